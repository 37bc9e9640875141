/* The protobuf wire format: fields in and out, base64 and UTF-8 as Go's JSON encoder has them. */
#include "gw_protobuf_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_protobuf.h"

/* Groups (a deprecated proto2 form no Kubernetes type uses) nest at most this deep. */
#define PB_GROUP_DEPTH_MAX GW_PROTOBUF_DEPTH_MAX

static const char pb_b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool
gw_protobuf__varint(gw_protobuf__reader_t *r, uint64_t *v)
{
    uint64_t x = 0;

    /* Like Go's decoders: at most 10 bytes; bits past 64 in the last one are dropped. */
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return false;
        x |= (uint64_t)(*r->p & 0x7f) << shift;
        if (*r->p++ < 0x80) {
            *v = x;
            return true;
        }
    }
    return false;
}

static bool
pb_fixed(gw_protobuf__reader_t *r, size_t n, uint64_t *v)
{
    uint64_t x = 0;

    if ((size_t)(r->end - r->p) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    *v = x;
    return true;
}

static bool
pb_length(gw_protobuf__reader_t *r, const uint8_t **p, size_t *n)
{
    uint64_t len;

    if (!gw_protobuf__varint(r, &len) || len > (uint64_t)(r->end - r->p))
        return false;
    *p = r->p;
    *n = (size_t)len;
    r->p += len;
    return true;
}

static bool
pb_tag(gw_protobuf__reader_t *r, int *number, int *wire, const char **why)
{
    uint64_t tag;

    if (!gw_protobuf__varint(r, &tag)) {
        *why = "truncated or overlong field tag";
        return false;
    }
    if (tag >> 3 == 0 || tag >> 3 > INT32_MAX) {
        *why = "illegal field number";
        return false;
    }
    *number = (int)(tag >> 3);
    *wire = (int)(tag & 7);
    return true;
}

/* Read one value of wire type wire into f. */
static bool
pb_value(gw_protobuf__reader_t *r, gw_protobuf__field_t *f, const char **why)
{
    bool ok;

    switch (f->wire) {
    case GW_PB_VARINT:
        ok = gw_protobuf__varint(r, &f->u);
        break;
    case GW_PB_FIXED64:
        ok = pb_fixed(r, 8, &f->u);
        break;
    case GW_PB_FIXED32:
        ok = pb_fixed(r, 4, &f->u);
        break;
    case GW_PB_BYTES:
        ok = pb_length(r, &f->p, &f->n);
        break;
    default:
        *why = "unknown wire type";
        return false;
    }
    if (!ok)
        *why = "truncated value";
    return ok;
}

/* Skip a group's fields up to its end-group tag. */
static bool
pb_skip_group(gw_protobuf__reader_t *r, int number, int depth, const char **why)
{
    gw_protobuf__field_t f;

    if (depth > PB_GROUP_DEPTH_MAX) {
        *why = "groups nest too deep";
        return false;
    }
    for (;;) {
        if (r->p >= r->end) {
            *why = "unterminated group";
            return false;
        }
        if (!pb_tag(r, &f.number, &f.wire, why))
            return false;
        if (f.wire == GW_PB_GROUP_END) {
            if (f.number == number)
                return true;
            *why = "mismatched end of group";
            return false;
        }
        if (f.wire == GW_PB_GROUP_START ? !pb_skip_group(r, f.number, depth + 1, why)
                                        : !pb_value(r, &f, why))
            return false;
    }
}

int
gw_protobuf__next(gw_protobuf__reader_t *r, gw_protobuf__field_t *f, const char **why)
{
    for (;;) {
        if (r->p >= r->end)
            return 0;
        if (!pb_tag(r, &f->number, &f->wire, why))
            return -1;
        if (f->wire == GW_PB_GROUP_END) {
            *why = "end of group outside a group";
            return -1;
        }
        if (f->wire != GW_PB_GROUP_START)
            return pb_value(r, f, why) ? 1 : -1;
        if (!pb_skip_group(r, f->number, 1, why))
            return -1;
    }
}

/* ---- writing ------------------------------------------------------------------------------ */

void
gw_protobuf__put(gw_protobuf__buf_t *b, const void *p, size_t n)
{
    gw_buf_add(b, p, n);
}

static size_t
pb_varint_bytes(uint64_t v, uint8_t *out)
{
    size_t n = 0;

    do {
        out[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            out[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

void
gw_protobuf__put_varint(gw_protobuf__buf_t *b, uint64_t v)
{
    uint8_t tmp[10];

    gw_protobuf__put(b, tmp, pb_varint_bytes(v, tmp));
}

void
gw_protobuf__put_tag(gw_protobuf__buf_t *b, int number, int wire)
{
    gw_protobuf__put_varint(b, ((uint64_t)number << 3) | (uint64_t)wire);
}

void
gw_protobuf__put_bytes(gw_protobuf__buf_t *b, int number, const void *p, size_t n)
{
    gw_protobuf__put_tag(b, number, GW_PB_BYTES);
    gw_protobuf__put_varint(b, n);
    gw_protobuf__put(b, p, n);
}

size_t
gw_protobuf__begin(gw_protobuf__buf_t *b, int number)
{
    gw_protobuf__put_tag(b, number, GW_PB_BYTES);
    return b->len;
}

void
gw_protobuf__end(gw_protobuf__buf_t *b, size_t start)
{
    uint8_t tmp[10];
    size_t body = b->len - start, k = pb_varint_bytes(body, tmp);

    /* The length goes before a body of unknown size: slide the body over once it is known. */
    gw_buf_add(b, tmp, k);
    memmove(b->data + start + k, b->data + start, body);
    memcpy(b->data + start, tmp, k);
}

/* ---- base64 and UTF-8 --------------------------------------------------------------------- */

json_t *
gw_protobuf__base64(const uint8_t *p, size_t n)
{
    size_t out_len = (n + 2) / 3 * 4, o = 0;
    char *out = gw_malloc(out_len + 1);
    json_t *s;

    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        out[o++] = pb_b64_alphabet[(v >> 18) & 63];
        out[o++] = pb_b64_alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < n ? pb_b64_alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? pb_b64_alphabet[v & 63] : '=';
    }
    s = json_stringn(out, out_len);
    free(out);
    return s;
}

static int
pb_b64_value(char c)
{
    const char *hit = c ? strchr(pb_b64_alphabet, c) : NULL;

    return hit ? (int)(hit - pb_b64_alphabet) : -1;
}

bool
gw_protobuf__unbase64(const char *s, size_t n, uint8_t **out, size_t *out_len)
{
    uint8_t *buf = gw_malloc(n / 4 * 3 + 3);
    uint32_t acc = 0;
    size_t o = 0, q = 0, pad = 0;

    /* Go's StdEncoding: padded quanta of four; carriage returns and newlines are ignored. */
    for (size_t i = 0; i < n; i++) {
        int v = pb_b64_value(s[i]);
        if (s[i] == '\r' || s[i] == '\n')
            continue;
        if (s[i] == '=' && q >= 2)
            pad++;
        else if (v < 0 || pad)
            goto bad;
        else
            acc = acc << 6 | (uint32_t)v;
        if (++q < 4)
            continue;
        acc <<= 6 * pad;
        buf[o++] = (uint8_t)(acc >> 16);
        if (pad < 2)
            buf[o++] = (uint8_t)(acc >> 8);
        if (pad < 1)
            buf[o++] = (uint8_t)acc;
        acc = 0;
        q = 0;
    }
    if (q != 0)
        goto bad;
    *out = buf;
    *out_len = o;
    return true;
bad:
    free(buf);
    return false;
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0 when invalid. */
static size_t
pb_utf8_len(const uint8_t *p, size_t n)
{
    uint32_t c;
    size_t len;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2, c = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3, c = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4, c = p[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    /* No overlong forms, surrogates or code points past U+10FFFF. */
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    return len;
}

json_t *
gw_protobuf__string(const uint8_t *p, size_t n)
{
    gw_protobuf__buf_t b = {0};
    json_t *s;
    size_t i = 0, k;

    while (i < n && (k = pb_utf8_len(p + i, n - i)) != 0)
        i += k;
    if (i == n)
        return json_stringn((const char *)p, n);
    gw_protobuf__put(&b, p, i);
    while (i < n) {
        k = pb_utf8_len(p + i, n - i);
        if (k == 0) {
            gw_protobuf__put(&b, "\xef\xbf\xbd", 3);
            k = 1;
        } else
            gw_protobuf__put(&b, p + i, k);
        i += k;
    }
    s = json_stringn(b.data, b.len);
    gw_buf_free(&b);
    return s;
}

void
gw_protobuf__one_line(char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

gw_proto_type_t
gw_protobuf__wire_type(const gw_schema_t *s)
{
    return gw_schema_proto_type(s);
}
