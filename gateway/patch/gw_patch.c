#include "gw_patch.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_gojson.h"

/* kube-apiserver caps the bytes a patch's copy operations may add (JSONPatchMaxCopyBytes),
 * so a short patch cannot double a document ten thousand times. */
#define COPY_LIMIT (3LL * 1024 * 1024)

typedef struct {
    json_t *root;     /* the document being patched (owned) */
    long long copied; /* bytes added by copy operations so far */
    char *err;
    size_t err_len;
} patch_t;

/* A resolved pointer: the container of the target and the target's unescaped token. parent
 * is NULL when the pointer is "" (the whole document). */
typedef struct {
    json_t *parent;
    char *key;
} loc_t;

static int fail(patch_t *pt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(patch_t *pt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pt->err, pt->err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Unescape the next reference token of a JSON Pointer (RFC 6901: ~1 is '/', ~0 is '~', any
 * other '~' is malformed). *p points at the token's first byte; on return at its end. */
static char *
next_token(const char **p)
{
    const char *s = *p;
    size_t n = strcspn(s, "/");
    char *tok = gw_malloc(n + 1), *o = tok;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '~') {
            *o++ = s[i];
        } else if (i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
            *o++ = s[++i] == '0' ? '~' : '/';
        } else {
            free(tok);
            return NULL;
        }
    }
    *o = '\0';
    *p = s + n;
    return tok;
}

/* An array index token: "0" or digits without a leading zero ("-" handled by callers). */
static bool
parse_index(const char *tok, size_t *out)
{
    size_t v = 0;
    if (tok[0] == '\0' || (tok[0] == '0' && tok[1] != '\0'))
        return false;
    for (const char *c = tok; *c; c++) {
        if (*c < '0' || *c > '9' || v > (SIZE_MAX - 9) / 10)
            return false;
        v = v * 10 + (size_t)(*c - '0');
    }
    *out = v;
    return true;
}

/* The child `key` of a container, or NULL (missing key, bad or out-of-range index). */
static json_t *
child(json_t *c, const char *key)
{
    size_t i;
    if (json_is_object(c))
        return json_object_get(c, key);
    if (json_is_array(c) && parse_index(key, &i))
        return json_array_get(c, i);
    return NULL;
}

/* Walk every token but the last. Returns 0 and fills loc, 1 when an intermediate value or
 * the parent is missing (or is a scalar), -1 when the pointer is malformed. */
static int
locate(json_t *root, const char *path, loc_t *loc)
{
    loc->parent = NULL;
    loc->key = NULL;
    if (path[0] == '\0')
        return 0;
    if (path[0] != '/')
        return -1;
    json_t *cur = root;
    const char *p = path + 1;
    for (;;) {
        char *tok = next_token(&p);
        if (tok == NULL)
            return -1;
        if (*p == '\0') {
            loc->key = tok;
            break;
        }
        p++;
        cur = child(cur, tok);
        free(tok);
        if (cur == NULL)
            return 1;
    }
    if (!json_is_object(cur) && !json_is_array(cur)) {
        free(loc->key);
        loc->key = NULL;
        return 1;
    }
    loc->parent = cur;
    return 0;
}

/* locate() with evanphx/json-patch's wording (what kube-apiserver reports) on failure; `what`
 * is "path", "from path" or "destination path". */
static int
resolve(patch_t *pt, const char *op, const char *what, const char *path, loc_t *loc)
{
    int rc = locate(pt->root, path, loc);
    if (rc < 0)
        return fail(pt, "%s operation failed to decode %s: \"%s\" is not a JSON pointer", op,
                    strcmp(what, "from path") == 0 ? "from" : "path", path);
    if (rc == 0)
        return 0;
    /* the library quotes the path for add and remove only, and says "is missing" for test */
    const char *q = strcmp(op, "add") == 0 || strcmp(op, "remove") == 0 ? "\"" : "";
    const char *doc = strcmp(op, "test") == 0 ? "" : "doc ";
    return fail(pt, "%s operation does not apply: %sis missing %s: %s%s%s: missing value", op, doc,
                what, q, path, q);
}

/* Put value (stolen) at loc as RFC 6902 "add" does. */
static int
put(patch_t *pt, const char *op, const char *path, const loc_t *loc, json_t *value)
{
    size_t i, n;
    if (loc->parent == NULL) {
        json_decref(pt->root);
        pt->root = value;
        return 0;
    }
    if (json_is_object(loc->parent)) {
        json_object_set_new(loc->parent, loc->key, value);
        return 0;
    }
    n = json_array_size(loc->parent);
    if (strcmp(loc->key, "-") == 0) {
        json_array_append_new(loc->parent, value);
        return 0;
    }
    if (!parse_index(loc->key, &i)) {
        json_decref(value);
        return fail(pt, "error in %s for path: '%s': value was not a proper array index: '%s'", op,
                    path, loc->key);
    }
    if (i > n) {
        json_decref(value);
        return fail(pt,
                    "error in %s for path: '%s': Unable to access invalid index: %zu: invalid "
                    "index referenced",
                    op, path, i);
    }
    json_array_insert_new(loc->parent, i, value);
    return 0;
}

/* Take the value at loc out of the document; the caller owns the result. */
static json_t *
take(const loc_t *loc)
{
    json_t *v = child(loc->parent, loc->key);
    size_t i;
    if (v == NULL)
        return NULL;
    json_incref(v);
    if (json_is_object(loc->parent))
        json_object_del(loc->parent, loc->key);
    else if (parse_index(loc->key, &i))
        json_array_remove(loc->parent, i);
    return v;
}

static int
op_add(patch_t *pt, const char *path, const json_t *value)
{
    loc_t loc;
    if (resolve(pt, "add", "path", path, &loc) != 0)
        return -1;
    int rc = put(pt, "add", path, &loc, json_deep_copy(value));
    free(loc.key);
    return rc;
}

static int
op_remove(patch_t *pt, const char *path)
{
    loc_t loc;
    int rc = -1;
    if (resolve(pt, "remove", "path", path, &loc) != 0)
        return -1;
    if (loc.parent == NULL) {
        fail(pt, "remove operation does not apply: cannot remove the whole document");
        goto out;
    }
    json_t *v = take(&loc);
    if (v == NULL && json_is_object(loc.parent))
        fail(pt,
             "error in remove for path: '%s': Unable to remove nonexistent key: %s: missing value",
             path, loc.key);
    else if (v == NULL)
        fail(pt,
             "error in remove for path: '%s': Unable to access invalid index: %s: invalid index "
             "referenced",
             path, loc.key);
    rc = v == NULL ? -1 : 0;
    json_decref(v);
out:
    free(loc.key);
    return rc;
}

/* RFC 6902 requires the target of replace to exist (evanphx/json-patch v4, which
 * kube-apiserver uses, would add a missing object member instead). */
static int
op_replace(patch_t *pt, const char *path, const json_t *value)
{
    loc_t loc;
    size_t i;
    int rc = -1;
    if (resolve(pt, "replace", "path", path, &loc) != 0)
        return -1;
    if (loc.parent == NULL) {
        json_decref(pt->root);
        pt->root = json_deep_copy(value);
        return 0;
    }
    if (child(loc.parent, loc.key) == NULL)
        fail(pt, "replace operation does not apply: doc is missing key: %s: missing value", path);
    else if (json_is_object(loc.parent))
        rc = json_object_set_new(loc.parent, loc.key, json_deep_copy(value));
    else if (parse_index(loc.key, &i))
        rc = json_array_set_new(loc.parent, i, json_deep_copy(value));
    free(loc.key);
    return rc;
}

static int
op_move(patch_t *pt, const char *from, const char *path)
{
    loc_t src, dst;
    size_t n = strlen(from);
    /* pointers have one spelling (RFC 6901), so a textual prefix is a structural one */
    if (strncmp(path, from, n) == 0 && path[n] == '/')
        return fail(pt, "move operation does not apply: cannot move %s into its own child %s", from,
                    path);
    if (resolve(pt, "move", "from path", from, &src) != 0)
        return -1;
    json_t *v = src.parent == NULL ? json_incref(pt->root) : take(&src);
    free(src.key);
    if (v == NULL)
        return fail(
            pt, "move operation does not apply: doc is missing from path: %s: missing value", from);
    if (resolve(pt, "move", "destination path", path, &dst) != 0) {
        json_decref(v);
        return -1;
    }
    int rc = put(pt, "move", path, &dst, v);
    free(dst.key);
    return rc;
}

static int
op_copy(patch_t *pt, const char *from, const char *path)
{
    loc_t src, dst;
    if (resolve(pt, "copy", "from path", from, &src) != 0)
        return -1;
    json_t *v = src.parent == NULL ? pt->root : child(src.parent, src.key);
    free(src.key);
    if (v == NULL)
        return fail(
            pt, "copy operation does not apply: doc is missing from path: %s: missing value", from);
    pt->copied += (long long)json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
    if (pt->copied > COPY_LIMIT)
        return fail(pt,
                    "Unable to complete the copy, the accumulated size increase of copy is %lld, "
                    "exceeding the limit %lld",
                    pt->copied, COPY_LIMIT);
    v = json_deep_copy(v);
    if (resolve(pt, "copy", "destination path", path, &dst) != 0) {
        json_decref(v);
        return -1;
    }
    int rc = put(pt, "copy", path, &dst, v);
    free(dst.key);
    return rc;
}

static bool equal(const json_t *a, const json_t *b);

static bool
objects_equal(const json_t *a, const json_t *b)
{
    const char *k;
    size_t klen;
    json_t *v;
    if (json_object_size(a) != json_object_size(b))
        return false;
    json_object_keylen_foreach((json_t *)a, k, klen, v)
    {
        const json_t *w = json_object_getn(b, k, klen);
        if (w == NULL || !equal(v, w))
            return false;
    }
    return true;
}

/* RFC 6902 4.6: numbers are equal when their values are (1 and 1.0), objects regardless of
 * member order, arrays element by element. */
static bool
equal(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b))
        return json_integer_value(a) == json_integer_value(b);
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_OBJECT:
        return objects_equal(a, b);
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    default:
        return true; /* true, false, null: the type is the value */
    }
}

static int
op_test(patch_t *pt, const char *path, const json_t *value)
{
    loc_t loc;
    if (resolve(pt, "test", "path", path, &loc) != 0)
        return -1;
    json_t *v = loc.parent == NULL ? pt->root : child(loc.parent, loc.key);
    int rc = 0;
    if (v == NULL && json_is_array(loc.parent))
        rc = fail(pt,
                  "error in test for path: '%s': Unable to access invalid index: %s: invalid "
                  "index referenced",
                  path, loc.key);
    else if (v == NULL || !equal(v, value))
        rc = fail(pt, "testing value %s failed: test failed", path);
    free(loc.key);
    return rc;
}

/* One operation. Members that are missing or not strings read as evanphx/json-patch reads
 * them: an unknown op, or a path that fails to decode. */
static int
apply_op(patch_t *pt, const json_t *op)
{
    const char *kind = json_string_value(json_object_get(op, "op"));
    const char *path = json_string_value(json_object_get(op, "path"));
    const char *from = json_string_value(json_object_get(op, "from"));
    const json_t *value = json_object_get(op, "value");
    kind = kind != NULL ? kind : "unknown";
    bool moves = strcmp(kind, "move") == 0 || strcmp(kind, "copy") == 0;
    bool sets =
        strcmp(kind, "add") == 0 || strcmp(kind, "replace") == 0 || strcmp(kind, "test") == 0;
    if (!moves && !sets && strcmp(kind, "remove") != 0)
        return fail(pt, "Unexpected kind: %s", kind);
    if (moves && from == NULL)
        return fail(pt, "%s operation failed to decode from: missing value", kind);
    if (path == NULL)
        return fail(pt, "%s operation failed to decode path: missing value", kind);
    if (sets && value == NULL)
        return fail(pt, "%s operation failed to decode value: missing value", kind);
    switch (kind[0]) {
    case 'a':
        return op_add(pt, path, value);
    case 'r':
        return kind[2] == 'm' ? op_remove(pt, path) : op_replace(pt, path, value);
    case 'm':
        return op_move(pt, from, path);
    case 'c':
        return op_copy(pt, from, path);
    default:
        return op_test(pt, path, value);
    }
}

/* kube-apiserver decodes the patch into []map[string]RawMessage first: anything else is a
 * 400 with encoding/json's message; null decodes to an empty patch. */
static bool
decodes(const json_t *patch, char *err, size_t err_len)
{
    if (json_is_null(patch))
        return true;
    if (!json_is_array(patch)) {
        snprintf(err, err_len, "json: cannot unmarshal %s into Go value of type jsonpatch.Patch",
                 gw_gojson_kind(patch));
        return false;
    }
    for (size_t i = 0; i < json_array_size(patch); i++) {
        const json_t *op = json_array_get(patch, i);
        if (!json_is_object(op) && !json_is_null(op)) {
            snprintf(err, err_len,
                     "json: cannot unmarshal %s into Go value of type jsonpatch.Operation",
                     gw_gojson_kind(op));
            return false;
        }
    }
    return true;
}

json_t *
gw_json_patch(const json_t *doc, const json_t *patch, int *bad_request, char *err, size_t err_len)
{
    patch_t pt = {.err = err, .err_len = err_len};
    *bad_request = 0;
    if (!decodes(patch, err, err_len)) {
        *bad_request = 1;
        return NULL;
    }
    pt.root = json_deep_copy(doc);
    for (size_t i = 0; i < json_array_size(patch); i++) {
        if (apply_op(&pt, json_array_get(patch, i)) != 0) {
            json_decref(pt.root);
            return NULL;
        }
    }
    return pt.root;
}

/* RFC 7386 MergePatch(target, patch) on a target we own; returns the new target. */
static json_t *
merge(json_t *target, const json_t *patch)
{
    const char *k;
    json_t *v;
    if (!json_is_object(patch)) {
        json_decref(target);
        return json_deep_copy(patch);
    }
    if (!json_is_object(target)) {
        json_decref(target);
        target = json_object();
    }
    json_object_foreach((json_t *)patch, k, v)
    {
        if (json_is_null(v)) {
            json_object_del(target, k);
            continue;
        }
        json_t *cur = json_object_get(target, k);
        json_object_set_new(target, k, merge(json_incref(cur), v));
    }
    return target;
}

json_t *
gw_merge_patch(const json_t *doc, const json_t *patch)
{
    return merge(json_deep_copy(doc), patch);
}
