/* libFuzzer driver for JSONPath templates: CRD printer column paths (any CRD author's text,
 * evaluated for every Table of the resource). The input is a template, optionally followed by
 * a NUL and a JSON document to evaluate it on (else a fixed custom resource). Besides not
 * crashing or leaking, it checks what the module promises: a parse fails with a one-line
 * message; an evaluation succeeds with well-formed result lists (every value present, the
 * list ends in order) or fails with a message; evaluating again gives the same results; every
 * value prints. An evaluation's message names fields as the template spells them (kube's
 * "x is not found"), so only a parse's message must be one line. Builds on its own:
 *   clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_jsonpath.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_jsonpath.c"
#define fail eval_fail
#include "gw_gotype.c"
#include "gw_jsonpath_eval.c"
#undef fail
#include "gw_jsonpath_text.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *object_text =
    "{\"apiVersion\":\"cert-manager.io/v1\",\"kind\":\"Certificate\",\"metadata\":{\"name\":"
    "\"web\",\"labels\":{\"a.b/c\":\"x\"},\"creationTimestamp\":\"2024-05-01T11:55:00Z\"},"
    "\"spec\":{\"secretName\":\"web-tls\",\"ratio\":0.5,\"isCA\":false,\"dnsNames\":[\"a\",\"b\"],"
    "\"empty\":[],\"nothing\":null},\"status\":{\"revision\":3,\"conditions\":[{\"type\":"
    "\"Issuing\",\"status\":\"False\"},{\"type\":\"Ready\",\"status\":\"True\",\"n\":2}]}}";

static void
check_message(const char *err, size_t n, bool one_line)
{
    if (memchr(err, '\0', n) == NULL || err[0] == '\0' || (one_line && strchr(err, '\n') != NULL))
        abort();
}

static void
check_eval(const gw_jsonpath_t *p, const json_t *doc, bool allow_missing)
{
    gw_jsonpath_results_t r = {0}, again = {0};
    char err[256];
    int rc = gw_jsonpath_find(p, doc, allow_missing, &r, err, sizeof(err));
    if (rc != 0) {
        check_message(err, sizeof(err), false);
        if (rc != GW_EINVAL || r.n_values != 0 || r.n_parts != 0)
            abort();
    }
    for (size_t i = 0, prev = 0; i < r.n_parts; prev = r.end[i++]) {
        if (r.end[i] < prev || r.end[i] > r.n_values)
            abort();
    }
    if (r.n_parts > 0 && r.end[r.n_parts - 1] != r.n_values)
        abort();
    for (size_t i = 0; i < r.n_values; i++) {
        char *text = gw_jsonpath_text(r.values[i]);
        if (r.values[i] == NULL || text == NULL)
            abort();
        free(text);
    }
    int rc2 = gw_jsonpath_find(p, doc, allow_missing, &again, err, sizeof(err));
    if (rc2 != rc || again.n_values != r.n_values || again.n_parts != r.n_parts ||
        (r.n_values > 0 && memcmp(again.values, r.values, r.n_values * sizeof(*r.values)) != 0))
        abort();
    gw_jsonpath_results_free(&r);
    gw_jsonpath_results_free(&again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *object;
    if (object == NULL)
        object = json_loads(object_text, 0, NULL);
    size_t tlen = strnlen((const char *)data, size);
    char *text = gw_strndup((const char *)data, tlen);
    json_t *doc = NULL;
    if (tlen + 1 < size)
        doc = json_loadb((const char *)data + tlen + 1, size - tlen - 1, JSON_DECODE_ANY, NULL);
    char err[256];
    memset(err, 'x', sizeof(err));
    gw_jsonpath_t *p = gw_jsonpath_parse(text, err, sizeof(err));
    if (p == NULL) {
        check_message(err, sizeof(err), true);
    } else {
        check_eval(p, doc != NULL ? doc : object, true);
        check_eval(p, doc != NULL ? doc : object, false);
    }
    gw_jsonpath_free(p);
    json_decref(doc);
    free(text);
    return 0;
}
