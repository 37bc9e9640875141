/* libFuzzer driver for --feature-gates items. Besides not crashing, it checks what the parser
 * promises: an accepted item sets its gate (and a refused one leaves every gate as it was),
 * and a refusal is one line. Builds on its own:
 *   clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_feature_gates.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_features.c"
#include "gw_log.c"
#include "gw_metric.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *item = malloc(size + 1);
    memcpy(item, data, size);
    item[size] = '\0';
    gw_log_set_level(GW_LOG_OFF);
    gw_features_reset();
    const char *why = gw_features_check(item);
    char err[256];
    const char *items[] = {item};
    int rc = gw_features_set(items, 1, err, sizeof(err));
    if ((why == NULL) != (rc == 0))
        abort();
    if (why != NULL && strchr(why, '\n') != NULL && strchr(item, '\n') == NULL)
        abort();
    if (rc != 0 && memcmp(set_to, (unsigned char[N_GATES]){0}, N_GATES) != 0)
        abort();
    free(item);
    return 0;
}
