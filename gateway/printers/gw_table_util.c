/* Cell helpers shared by the printers, each the counterpart of a kube printer helper. */
#include "gw_table_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_buf.h"

const json_t *
gw_table__get(const json_t *obj, const char *path)
{
    char key[64];
    while (obj != NULL && *path != '\0') {
        size_t n = strcspn(path, ".");
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        obj = json_object_get(obj, key);
        path += n + (path[n] == '.');
    }
    return obj;
}

const char *
gw_table__str(const json_t *obj, const char *path)
{
    const char *s = json_string_value(gw_table__get(obj, path));
    return s != NULL ? s : "";
}

json_int_t
gw_table__int(const json_t *obj, const char *path)
{
    return json_integer_value(gw_table__get(obj, path));
}

void
gw_table__human_duration(long long s, char *buf, size_t n)
{
    long long m = s / 60, h = s / 3600, d = h / 24;
    if (s < -1)
        snprintf(buf, n, "<invalid>");
    else if (s < 0)
        snprintf(buf, n, "0s");
    else if (s < 120)
        snprintf(buf, n, "%llds", s);
    else if (m < 10 && s % 60 != 0)
        snprintf(buf, n, "%lldm%llds", m, s % 60);
    else if (m < 180)
        snprintf(buf, n, "%lldm", m);
    else if (h < 8 && m % 60 != 0)
        snprintf(buf, n, "%lldh%lldm", h, m % 60);
    else if (h < 48)
        snprintf(buf, n, "%lldh", h);
    else if (h < 24 * 8 && h % 24 != 0)
        snprintf(buf, n, "%lldd%lldh", d, h % 24);
    else if (h < 24 * 365 * 2)
        snprintf(buf, n, "%lldd", d);
    else if (h < 24 * 365 * 8 && d % 365 != 0)
        snprintf(buf, n, "%lldy%lldd", d / 365, d % 365);
    else
        snprintf(buf, n, "%lldy", d / 365);
}

json_t *
gw_table__age(const json_t *obj, const char *path, long long now)
{
    long long t;
    char buf[32];
    if (!gw_time_parse(gw_table__str(obj, path), &t))
        return json_string("<unknown>");
    gw_table__human_duration(now - t, buf, sizeof(buf));
    return json_string(buf);
}

/* ---- labels and selectors ---------------------------------------------------------------- */

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of an object, sorted (labels.Set and selector requirements are printed so). */
static const char **
sorted_keys(const json_t *map, size_t *n)
{
    const char *k;
    json_t *v;
    size_t i = 0;
    *n = json_object_size(map);
    const char **keys = gw_malloc((*n ? *n : 1) * sizeof(*keys));
    json_object_foreach((json_t *)map, k, v) keys[i++] = k;
    qsort(keys, *n, sizeof(*keys), str_cmp);
    return keys;
}

char *
gw_table__labels(const json_t *map)
{
    gw_buf_t t = {0};
    size_t n;
    const char **keys = sorted_keys(map, &n);
    for (size_t i = 0; i < n; i++) {
        gw_buf_str(&t, i > 0 ? "," : "");
        gw_buf_str(&t, keys[i]);
        gw_buf_str(&t, "=");
        const char *v = json_string_value(json_object_get(map, keys[i]));
        gw_buf_str(&t, v != NULL ? v : "");
    }
    free(keys);
    if (t.len == 0)
        gw_buf_str(&t, "<none>");
    return gw_buf_take(&t);
}

typedef struct {
    const char *key;
    char *text;
} req_t;

static int
req_cmp(const void *a, const void *b)
{
    return strcmp(((const req_t *)a)->key, ((const req_t *)b)->key);
}

/* One matchExpressions entry as labels.Requirement prints it: "k in (a,b)", "!k", ... */
static char *
expression(const json_t *e)
{
    const char *key = gw_table__str(e, "key"), *op = gw_table__str(e, "operator");
    const json_t *values = json_object_get(e, "values");
    size_t n = json_array_size(values);
    const char **v = gw_malloc((n ? n : 1) * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(values, i));
        v[i] = s != NULL ? s : "";
    }
    qsort(v, n, sizeof(*v), str_cmp);
    gw_buf_t t = {0};
    gw_buf_str(&t, strcmp(op, "DoesNotExist") == 0 ? "!" : "");
    gw_buf_str(&t, key);
    if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
        gw_buf_str(&t, strcmp(op, "In") == 0 ? " in (" : " notin (");
        for (size_t i = 0; i < n; i++) {
            gw_buf_str(&t, i > 0 ? "," : "");
            gw_buf_str(&t, v[i]);
        }
        gw_buf_str(&t, ")");
    }
    free(v);
    return gw_buf_take(&t);
}

char *
gw_table__selector(const json_t *selector, bool none)
{
    const json_t *labels = json_object_get(selector, "matchLabels");
    const json_t *exprs = json_object_get(selector, "matchExpressions");
    size_t nl, n = 0, ne = json_array_size(exprs);
    const char **keys = sorted_keys(json_is_object(labels) ? labels : NULL, &nl);
    req_t *reqs = gw_malloc((nl + ne + 1) * sizeof(*reqs));
    for (size_t i = 0; i < nl; i++, n++) {
        const char *v = json_string_value(json_object_get(labels, keys[i]));
        reqs[n] = (req_t){keys[i], gw_sprintf("%s=%s", keys[i], v != NULL ? v : "")};
    }
    for (size_t i = 0; i < ne; i++, n++)
        reqs[n] = (req_t){gw_table__str(json_array_get(exprs, i), "key"),
                          expression(json_array_get(exprs, i))};
    qsort(reqs, n, sizeof(*reqs), req_cmp);
    gw_buf_t t = {0};
    for (size_t i = 0; i < n; i++) {
        gw_buf_str(&t, i > 0 ? "," : "");
        gw_buf_str(&t, reqs[i].text);
        free(reqs[i].text);
    }
    if (t.len == 0 && none)
        gw_buf_str(&t, "<none>");
    free(reqs);
    free(keys);
    return gw_buf_take(&t);
}

void
gw_table__containers(const json_t *pod_spec, json_t *cells)
{
    const json_t *containers = json_object_get(pod_spec, "containers");
    gw_buf_t names = {0}, images = {0};
    for (size_t i = 0; i < json_array_size(containers); i++) {
        gw_buf_str(&names, i > 0 ? "," : "");
        gw_buf_str(&images, i > 0 ? "," : "");
        gw_buf_str(&names, gw_table__str(json_array_get(containers, i), "name"));
        gw_buf_str(&images, gw_table__str(json_array_get(containers, i), "image"));
    }
    json_array_append_new(cells, json_string(gw_buf_cstr(&names)));
    json_array_append_new(cells, json_string(gw_buf_cstr(&images)));
    gw_buf_free(&names);
    gw_buf_free(&images);
}

void
gw_table__cell(json_t *cells, const char *s)
{
    json_array_append_new(cells, json_string(s));
}
