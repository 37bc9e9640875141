/* libFuzzer driver for request-info parsing. The input is "METHOD\nPATH\nQUERY" (the query
 * line optional). Besides not crashing, it checks what the parser promises: on success every
 * field is set, a resource request has a prefix, a version and a resource whose segments hold
 * no '/' and are not "." or "..", and its verb is one of kube's; on failure GW_EINVAL.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_reqinfo.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_arena.c"
#include "gw_query.c"
#include "gw_reqinfo.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_segment(const char *s, bool may_be_empty)
{
    if (s == NULL || (!may_be_empty && *s == '\0') || strchr(s, '/') != NULL ||
        strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        abort();
}

static void
check_resource(const gw_reqinfo_t *r)
{
    static const char *const verbs[] = {"get",    "list",  "watch",  "create",
                                        "update", "patch", "delete", "deletecollection",
                                        "proxy",  ""};
    bool known = false;
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        known = known || strcmp(r->verb, verbs[i]) == 0;
    if (!known || (strcmp(r->api_prefix, "api") != 0 && strcmp(r->api_prefix, "apis") != 0))
        abort();
    if (strcmp(r->api_prefix, "api") == 0 && *r->group != '\0')
        abort();
    check_segment(r->version, false);
    check_segment(r->resource, false);
    check_segment(r->namespace_, true);
    check_segment(r->subresource, true);
    /* a name may come from a field selector, which kube checks the same way */
    check_segment(r->name, true);
    if (*r->name == '\0' && (strcmp(r->verb, "get") == 0 || strcmp(r->verb, "delete") == 0))
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    memcpy(in, data, size);
    in[size] = '\0';
    char *method = in, *path = strchr(in, '\n'), *query = NULL;
    if (path == NULL)
        goto out;
    *path++ = '\0';
    query = strchr(path, '\n');
    if (query != NULL)
        *query++ = '\0';
    gw_arena_t *a = gw_arena_new();
    gw_reqinfo_t r;
    int rc = gw_reqinfo_parse(a, method, path, query, &r);
    if (rc != 0 && rc != GW_EINVAL)
        abort();
    if (rc == 0 && (r.verb == NULL || r.path == NULL || r.group == NULL))
        abort();
    if (rc == 0 && r.is_resource)
        check_resource(&r);
    gw_arena_free(a);
out:
    free(in);
    return 0;
}
