/*
 * Regular expressions on PCRE2 (CEL specifies RE2 syntax; the RE2 constructs Kubernetes
 * rules use mean the same in PCRE2). Every match runs under match and heap limits so a
 * pathological pattern cannot stall an evaluation.
 */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cel_int.h"

#define MATCH_LIMIT 200000
#define HEAP_LIMIT_KIB 16384

void *
cel__regex_compile(cel_arena_t *a, const char *pat, size_t len, const char **why)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, len, PCRE2_UTF, &code, &off, NULL);
    if (re == NULL) {
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(code, msg, sizeof(msg));
        *why = cel__arena_sprintf(a, "invalid regular expression '%.*s': %s at offset %zu",
                                  (int)len, pat, (const char *)msg, (size_t)off);
    }
    return re;
}

void
cel__regex_free(void *re)
{
    pcre2_code_free(re);
}

int
cel__regex_search(cel__eval_t *ev, void *re, const char *s, size_t len, const char **why)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (md == NULL || mc == NULL)
        abort();
    pcre2_set_match_limit(mc, MATCH_LIMIT);
    pcre2_set_heap_limit(mc, HEAP_LIMIT_KIB);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, md, mc);
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[128];
    pcre2_get_error_message(rc, msg, sizeof(msg));
    *why = cel__arena_sprintf(ev->arena, "regular expression match failed: %s", (const char *)msg);
    return -1;
}

cel_value_t
cel__fn_matches(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_STRING)
        return cel__no_overload(ev, "matches", a, n);
    /* Backtracking cost grows with both lengths. */
    uint64_t work = (uint64_t)(a[0].v.str.len + 1) * (a[1].v.str.len + 1);
    if (!cel__charge_size(ev, work))
        return cel__halt_error(ev);
    const char *why;
    void *re = call->u.call.regex;
    if (re == NULL) {
        re = cel__regex_compile(ev->arena, a[1].v.str.data, a[1].v.str.len, &why);
        if (re == NULL)
            return cel__err(ev, "%s", why);
    }
    int rc = cel__regex_search(ev, re, a[0].v.str.data, a[0].v.str.len, &why);
    if (re != call->u.call.regex)
        cel__regex_free(re);
    return rc < 0 ? cel__err(ev, "%s", why) : cel_bool(rc == 1);
}
