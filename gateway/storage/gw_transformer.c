/* Value helpers shared by transformers and the store. */
#include "gw_transformer.h"

#include <stdlib.h>

void
gw_value_view(gw_value_t *out, const uint8_t *in, size_t len)
{
    *out = (gw_value_t){.data = in, .len = len};
}

void
gw_value_clear(gw_value_t *v)
{
    free(v->owned);
    *v = (gw_value_t){0};
}
