/*
 * The Kubernetes regex library: find (the first match, or "") and findAll (every match, or at
 * most a limit of them), with Go's FindAllString rules for empty matches: an empty match right
 * after the previous match is skipped, and the search then moves on by one code point. A
 * constant pattern is compiled with the program (cel_env.c); others per call.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

/* The call's compiled pattern, or one compiled now (owned by the caller: *fresh is set). */
static void *
rx_pattern(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *pat, bool *fresh,
           cel_value_t *err)
{
    const char *why;
    *fresh = call->u.call.regex == NULL;
    if (!*fresh)
        return call->u.call.regex;
    void *re = cel__regex_compile(ev->arena, pat->v.str.data, pat->v.str.len, &why);
    if (re == NULL)
        *err = cel__err(ev, "Illegal regex: %s", why);
    return re;
}

static bool
rx_charge(cel__eval_t *ev, const cel_value_t *a)
{
    return cel__work_size(ev, (uint64_t)(a[0].v.str.len + 1) * (a[1].v.str.len + 1));
}

static cel_value_t
rx_find(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_STRING)
        return cel__no_overload(ev, "find", a, n);
    if (!rx_charge(ev, a))
        return cel__halt_error(ev);
    bool fresh;
    cel_value_t err;
    void *re = rx_pattern(ev, call, &a[1], &fresh, &err);
    if (re == NULL)
        return err;
    const char *why;
    size_t ms = 0, me = 0;
    int rc = cel__regex_find(ev, re, a[0].v.str.data, a[0].v.str.len, 0, &ms, &me, &why);
    if (fresh)
        cel__regex_free(re);
    if (rc < 0)
        return cel__err(ev, "%s", why);
    return cel__string_own(a[0].v.str.data + ms, rc == 1 ? me - ms : 0);
}

/* Go's Regexp.allMatches over `s`, keeping at most `limit` matches (negative: all). */
static cel_value_t
rx_all(cel__eval_t *ev, void *re, const cel_value_t *s, int64_t limit)
{
    const char *data = s->v.str.data, *why;
    size_t len = s->v.str.len, pos = 0;
    long prev_end = -1;
    cel_list_t *out = cel__list_new(ev->arena, 4);
    while ((limit < 0 || (int64_t)out->len < limit) && pos <= len) {
        size_t ms, me;
        int rc = cel__regex_find(ev, re, data, len, pos, &ms, &me, &why);
        if (rc < 0)
            return cel__err(ev, "%s", why);
        if (rc == 0)
            break;
        bool accept = true;
        if (me == pos) {
            /* An empty match: not right after the previous one; step over one code point. */
            uint32_t cp;
            size_t w = pos < len ? cel__utf8_decode(data + pos, len - pos, &cp) : 0;
            accept = (long)ms != prev_end;
            pos = w > 0 ? pos + w : len + 1;
        } else {
            pos = me;
        }
        prev_end = (long)me;
        if (accept)
            cel__list_push(ev->arena, out, cel__string_own(data + ms, me - ms));
    }
    return cel__list_value(out);
}

static cel_value_t
rx_find_all(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_STRING || (n == 3 && a[2].kind != CEL_INT))
        return cel__no_overload(ev, "findAll", a, n);
    if (!rx_charge(ev, a))
        return cel__halt_error(ev);
    bool fresh;
    cel_value_t err;
    void *re = rx_pattern(ev, call, &a[1], &fresh, &err);
    if (re == NULL)
        return err;
    cel_value_t out = rx_all(ev, re, &a[0], n == 3 ? a[2].v.i : -1);
    if (fresh)
        cel__regex_free(re);
    return out;
}

const cel__fn_t cel__regex_fns[] = {
    {"find", true, 2, 2, rx_find},
    {"findAll", true, 2, 3, rx_find_all},
    {NULL, false, 0, 0, NULL},
};
