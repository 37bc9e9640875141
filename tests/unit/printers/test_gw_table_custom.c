/* Unit tests for gateway/printers/gw_table_custom.c: Tables of custom resources as kube's
 * apiextensions table convertor builds them, over a cert-manager-like CRD: the columns (Name,
 * then the version's additionalPrinterColumns, or the default Age column), cells typed per
 * column as cellForJSONValue does, string columns printed as JSONPath prints, and nulls where a
 * path finds nothing or fails. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_table.h"
#include "tap.h"

/* 2024-05-01T12:00:00Z */
#define NOW 1714564800LL

static const char *crd_text =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
    "\"metadata\":{\"name\":\"certificates.cert-manager.io\"},\"spec\":{\"group\":"
    "\"cert-manager.io\",\"scope\":\"Namespaced\",\"names\":{\"plural\":\"certificates\","
    "\"kind\":\"Certificate\"},\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,"
    "\"additionalPrinterColumns\":["
    "{\"jsonPath\":\".status.conditions[?(@.type==\\\"Ready\\\")].status\",\"name\":\"Ready\","
    "\"type\":\"string\"},"
    "{\"jsonPath\":\".spec.secretName\",\"name\":\"Secret\",\"type\":\"string\"},"
    "{\"jsonPath\":\".spec.issuerRef.name\",\"name\":\"Issuer\",\"priority\":1,\"type\":"
    "\"string\"},"
    "{\"jsonPath\":\".status.conditions[?(@.type==\\\"Ready\\\")].message\",\"name\":\"Status\","
    "\"priority\":1,\"type\":\"string\"},"
    "{\"jsonPath\":\".metadata.creationTimestamp\",\"description\":\"When it was made.\","
    "\"name\":\"Age\",\"type\":\"date\"},"
    "{\"jsonPath\":\".status.revision\",\"name\":\"Revision\",\"type\":\"integer\"},"
    "{\"jsonPath\":\".spec.ratio\",\"name\":\"Ratio\",\"type\":\"number\"},"
    "{\"jsonPath\":\".spec.isCA\",\"name\":\"CA\",\"type\":\"boolean\",\"format\":\"\"},"
    "{\"jsonPath\":\".spec.dnsNames\",\"name\":\"DNS\",\"type\":\"string\",\"priority\":1}"
    "]},{\"name\":\"v1alpha1\",\"served\":true,\"storage\":false}]}}";

static const char *cert_text =
    "{\"apiVersion\":\"cert-manager.io/v1\",\"kind\":\"Certificate\",\"metadata\":{\"name\":"
    "\"web\",\"namespace\":\"default\",\"creationTimestamp\":\"2024-05-01T11:55:00Z\"},"
    "\"spec\":{\"secretName\":\"web-tls\",\"issuerRef\":{\"name\":\"letsencrypt\"},\"ratio\":0.5,"
    "\"isCA\":false,\"dnsNames\":[\"a.example\",\"b.example\"]},\"status\":{\"revision\":3,"
    "\"conditions\":[{\"type\":\"Issuing\",\"status\":\"False\"},{\"type\":\"Ready\",\"status\":"
    "\"True\",\"message\":\"Certificate is up to date and has not expired\"}]}}";

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (v == NULL)
        tap_diag("unparsable test input: %s: %s", e.text, text);
    return v;
}

/* The Table of one object of a custom resource whose version is `version` (of crd). */
static json_t *
table(const json_t *crd, const json_t *version, const char *group, const char *name,
      const char *obj, gw_table_include_t inc)
{
    gw_custom_t custom = {.crd_name = "certificates.cert-manager.io",
                          .crd = crd,
                          .version = version,
                          .storage_version = "v1"};
    gw_resource_t r = {.group = group, .version = "v1", .name = name, .custom = &custom};
    json_t *items = json_pack("[o]", parse(obj));
    json_t *list_meta = json_pack("{s:s}", "resourceVersion", "42");
    json_t *t = gw_table_build(&r, items, list_meta, "v1", inc, NOW);
    json_decref(items);
    json_decref(list_meta);
    return t;
}

static json_t *
cert_version(const json_t *crd)
{
    return json_array_get(json_object_get(json_object_get(crd, "spec"), "versions"), 0);
}

static void
expect_cells(const json_t *crd, const char *name, const char *obj, const char *want)
{
    json_t *t = table(crd, cert_version(crd), "cert-manager.io", "certificates", obj,
                      GW_TABLE_INCLUDE_NONE);
    json_t *cells = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "cells");
    char *got = json_dumps(cells, JSON_COMPACT);
    tap_is_str(got, want, name);
    free(got);
    json_decref(t);
}

static void
test_columns(const json_t *crd)
{
    json_t *t = table(crd, cert_version(crd), "cert-manager.io", "certificates", cert_text,
                      GW_TABLE_INCLUDE_METADATA);
    json_t *cols = json_object_get(t, "columnDefinitions");
    char *got = json_dumps(json_array_get(cols, 0), JSON_COMPACT | JSON_SORT_KEYS);
    tap_is_str(got,
               "{\"description\":\"Name of the object, unique in its namespace.\",\"format\":"
               "\"name\",\"name\":\"Name\",\"priority\":0,\"type\":\"string\"}",
               "Name comes first");
    free(got);
    got = json_dumps(json_array_get(cols, 2), JSON_COMPACT | JSON_SORT_KEYS);
    tap_is_str(got,
               "{\"description\":\"Custom resource definition column (in JSONPath format): "
               ".spec.secretName\",\"format\":\"\",\"name\":\"Secret\",\"priority\":0,\"type\":"
               "\"string\"}",
               "a column without a description describes its path");
    free(got);
    got = json_dumps(json_array_get(cols, 5), JSON_COMPACT | JSON_SORT_KEYS);
    tap_is_str(got,
               "{\"description\":\"When it was made.\",\"format\":\"\",\"name\":\"Age\","
               "\"priority\":0,\"type\":\"date\"}",
               "a column's own description");
    free(got);
    tap_ok(json_array_size(cols) == 10, "Name and the nine columns (%zu)", json_array_size(cols));
    tap_ok(json_integer_value(json_object_get(json_array_get(cols, 3), "priority")) == 1,
           "priority 1 kept");
    tap_is_str(json_string_value(json_object_get(t, "kind")), "Table", "a Table");
    tap_is_str(
        json_string_value(json_object_get(json_object_get(t, "metadata"), "resourceVersion")), "42",
        "list metadata copied");
    json_t *row = json_array_get(json_object_get(t, "rows"), 0);
    tap_is_str(json_string_value(json_object_get(json_object_get(row, "object"), "kind")),
               "PartialObjectMetadata", "row object as includeObject says");
    json_decref(t);
}

static void
test_cells(const json_t *crd)
{
    expect_cells(crd, "every column", cert_text,
                 "[\"web\",\"True\",\"web-tls\",\"letsencrypt\",\"Certificate is up to date and "
                 "has not expired\",\"5m\",3,0.5,false,\"[\\\"a.example\\\",\\\"b.example\\\"]\"]");
    expect_cells(crd, "missing values are null",
                 "{\"metadata\":{\"name\":\"new\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},"
                 "\"spec\":{\"secretName\":\"new-tls\"}}",
                 "[\"new\",null,\"new-tls\",null,null,\"120m\",null,null,null,null]");
    expect_cells(crd, "conditions without Ready",
                 "{\"metadata\":{\"name\":\"c\"},\"status\":{\"conditions\":[{\"type\":"
                 "\"Issuing\",\"status\":\"True\"}]}}",
                 "[\"c\",null,null,null,null,null,null,null,null,null]");
    expect_cells(crd, "values of other types",
                 "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"yesterday\"},\"spec\":{"
                 "\"secretName\":{\"b\":1,\"a\":[true]},\"issuerRef\":{\"name\":null},\"ratio\":4,"
                 "\"isCA\":\"yes\",\"dnsNames\":7.25},\"status\":{\"revision\":2.9}}",
                 "[\"x\",null,\"{\\\"a\\\":[true],\\\"b\\\":1}\",\"<no value>\",null,"
                 "\"<invalid>\",2,4,null,\"7.25\"]");
    expect_cells(crd, "mistyped and zero times",
                 "{\"metadata\":{\"name\":\"y\",\"creationTimestamp\":\"0001-01-01T00:00:00Z\"},"
                 "\"spec\":{\"secretName\":12,\"ratio\":\"1\",\"isCA\":true},\"status\":{"
                 "\"revision\":\"3\"}}",
                 "[\"y\",null,\"12\",null,null,\"<unknown>\",null,null,true,null]");
    expect_cells(crd, "a time in the future",
                 "{\"metadata\":{\"name\":\"z\",\"creationTimestamp\":"
                 "\"2024-05-01T12:10:00Z\"}}",
                 "[\"z\",null,null,null,null,\"<invalid>\",null,null,null,null]");
    expect_cells(crd, "a filter over a non-list fails to null",
                 "{\"metadata\":{\"name\":\"w\"},\"status\":{\"conditions\":{\"type\":\"Ready\"}}}",
                 "[\"w\",null,null,null,null,null,null,null,null,null]");
}

/* A version without additionalPrinterColumns: kube's CRD handler serves Age. */
static void
test_default_columns(const json_t *crd)
{
    json_t *v1alpha1 = json_array_get(json_object_get(json_object_get(crd, "spec"), "versions"), 1);
    json_t *t =
        table(crd, v1alpha1, "cert-manager.io", "certificates", cert_text, GW_TABLE_INCLUDE_OBJECT);
    json_t *cols = json_object_get(t, "columnDefinitions");
    json_t *row = json_array_get(json_object_get(t, "rows"), 0);
    char *got = json_dumps(json_object_get(row, "cells"), JSON_COMPACT);
    tap_ok(json_array_size(cols) == 2, "Name and Age");
    tap_is_str(json_string_value(json_object_get(json_array_get(cols, 1), "name")), "Age",
               "Age column");
    tap_is_str(json_string_value(json_object_get(json_array_get(cols, 1), "type")), "date",
               "of type date");
    tap_is_str(got, "[\"web\",\"5m\"]", "name and age cells");
    tap_is_str(json_string_value(json_object_get(json_object_get(row, "object"), "kind")),
               "Certificate", "includeObject=Object gives the object");
    free(got);
    json_decref(t);
}

/* tableconvertor.New stops at the first path it cannot parse: the columns before it stay. */
static void
test_bad_path(void)
{
    json_t *crd = parse("{\"spec\":{\"versions\":[{\"name\":\"v1\",\"additionalPrinterColumns\":["
                        "{\"name\":\"A\",\"type\":\"string\",\"jsonPath\":\".spec.a\"},"
                        "{\"name\":\"B\",\"type\":\"string\",\"jsonPath\":\".spec[\"},"
                        "{\"name\":\"C\",\"type\":\"string\",\"jsonPath\":\".spec.c\"}]}]}}");
    json_t *t = table(crd, cert_version(crd), "example.com", "things",
                      "{\"metadata\":{\"name\":\"t\"},\"spec\":{\"a\":\"1\",\"c\":\"3\"}}",
                      GW_TABLE_INCLUDE_NONE);
    json_t *cols = json_object_get(t, "columnDefinitions");
    char *cells = json_dumps(
        json_object_get(json_array_get(json_object_get(t, "rows"), 0), "cells"), JSON_COMPACT);
    tap_ok(json_array_size(cols) == 2, "Name and A only (%zu columns)", json_array_size(cols));
    tap_is_str(cells, "[\"t\",\"1\"]", "their cells");
    free(cells);
    json_decref(t);
    json_decref(crd);
}

/* A custom resource named as a built-in is still printed from its CRD. */
static void
test_dispatch(const json_t *crd)
{
    json_t *t = table(crd, cert_version(crd), "", "pods", cert_text, GW_TABLE_INCLUDE_NONE);
    json_t *cols = json_object_get(t, "columnDefinitions");
    tap_is_str(json_string_value(json_object_get(json_array_get(cols, 1), "name")), "Ready",
               "custom columns, not the pod printer's");
    json_decref(t);
}

int
main(void)
{
    json_t *crd = parse(crd_text);
    test_columns(crd);
    test_cells(crd);
    test_default_columns(crd);
    test_bad_path();
    test_dispatch(crd);
    json_decref(crd);
    return tap_done();
}
