/* Unit tests for gateway/base/gw_buf: growth, NUL termination, take, truncate. */
#include <stdlib.h>
#include <string.h>

#include "gw_buf.h"
#include "tap.h"

static void
test_growth(void)
{
    gw_buf_t b = {0};
    int ok = 1;

    tap_is_str(gw_buf_cstr(&b), "", "an empty buffer reads as \"\"");
    for (int i = 0; i < 1000; i++) {
        gw_buf_str(&b, "abc");
        ok &= b.len == (size_t)(i + 1) * 3 && b.cap > b.len && b.data[b.len] == '\0';
    }
    tap_ok(ok, "3000 bytes appended 3 at a time: length tracks, capacity leads, NUL follows");
    tap_ok(strncmp(b.data + 2997, "abc", 4) == 0, "the last bytes are in place");
    gw_buf_free(&b);
    tap_ok(b.data == NULL && b.len == 0 && b.cap == 0, "free leaves an empty buffer");
}

static void
test_ops(void)
{
    gw_buf_t b = {0};

    gw_buf_add(&b, "x\0y", 3);
    tap_ok(b.len == 3 && memcmp(b.data, "x\0y", 4) == 0, "bytes with a NUL inside are kept");
    gw_buf_add(&b, NULL, 0);
    tap_is_int(b.len, 3, "adding nothing changes nothing");
    gw_buf_truncate(&b, 1);
    gw_buf_char(&b, '.');
    gw_buf_printf(&b, "%s[%d]", "items", 12);
    tap_is_str(b.data, "x.items[12]", "truncate, a byte and printf compose a path");
    gw_buf_truncate(&b, 1);
    tap_is_str(gw_buf_cstr(&b), "x", "truncate pops back to a saved length");
    char *s = gw_buf_take(&b);
    tap_is_str(s, "x", "take hands over the text");
    tap_ok(b.data == NULL && b.len == 0, "and leaves the buffer empty");
    free(s);
    s = gw_buf_take(&b);
    tap_is_str(s, "", "taking an empty buffer gives a new \"\"");
    free(s);
    gw_buf_printf(&b, "%0300d", 7);
    tap_ok(b.len == 300 && b.data[299] == '7' && b.data[300] == '\0', "printf grows the buffer");
    gw_buf_free(&b);
}

int
main(void)
{
    test_growth();
    test_ops();
    return tap_done();
}
