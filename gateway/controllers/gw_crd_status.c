/* A CRD's status conditions as kube's apihelpers edit them, and the controllers' status write:
 * read, edit, write under the resourceVersion precondition, again on a conflict. */
#include "gw_crd_int.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"

#define MAX_ATTEMPTS 10

json_t *
gw_crd__condition(const json_t *crd, const char *type)
{
    const json_t *list = json_object_get(json_object_get(crd, "status"), "conditions");

    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t != NULL && strcmp(t, type) == 0)
            return c;
    }
    return NULL;
}

bool
gw_crd__condition_true(const json_t *crd, const char *type)
{
    const char *s = json_string_value(json_object_get(gw_crd__condition(crd, type), "status"));

    return s != NULL && strcmp(s, "True") == 0;
}

void
gw_crd__set_condition(json_t *crd, const char *type, const char *status, const char *reason,
                      const char *message, const char *now)
{
    json_t *c = gw_crd__condition(crd, type);

    if (c == NULL) {
        json_t *list = json_object_get(gw_json_child(crd, "status"), "conditions");
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(json_object_get(crd, "status"), "conditions", list);
        }
        json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", type, "status",
                                              status, "lastTransitionTime", now, "reason", reason,
                                              "message", message));
        return;
    }
    const char *old = json_string_value(json_object_get(c, "status"));
    const char *time = json_string_value(json_object_get(c, "lastTransitionTime"));
    if (old == NULL || strcmp(old, status) != 0 || time == NULL || time[0] == '\0') {
        json_object_set_new(c, "status", json_string(status));
        json_object_set_new(c, "lastTransitionTime", json_string(now));
    }
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(message));
}

void
gw_crd__remove_condition(json_t *crd, const char *type)
{
    json_t *list = json_object_get(json_object_get(crd, "status"), "conditions");
    size_t i = 0;

    while (i < json_array_size(list)) {
        const char *t = json_string_value(json_object_get(json_array_get(list, i), "type"));
        if (t != NULL && strcmp(t, type) == 0)
            json_array_remove(list, i);
        else
            i++;
    }
}

/* x509.CertPool's AppendCertsFromPEM: true when some CERTIFICATE block parses. */
static bool
pem_has_certificate(const unsigned char *pem, int len)
{
    BIO *bio = BIO_new_mem_buf(pem, len);
    STACK_OF(X509_INFO) *infos = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL);
    bool found = false;

    for (int i = 0; infos != NULL && i < sk_X509_INFO_num(infos) && !found; i++)
        found = sk_X509_INFO_value(infos, i)->x509 != NULL;
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    BIO_free(bio);
    return found;
}

bool
gw_crd__ca_bundle_ok(const json_t *crd)
{
    const json_t *conv = json_object_get(json_object_get(crd, "spec"), "conversion");
    const json_t *cc = json_object_get(json_object_get(conv, "webhook"), "clientConfig");
    const char *b64 = json_string_value(json_object_get(cc, "caBundle"));
    size_t len = b64 != NULL ? strlen(b64) : 0;

    if (len == 0)
        return true; /* no CA data: the system's roots, which is fine */
    if (len % 4 != 0 || len > 1 << 24)
        return false;
    unsigned char *pem = gw_malloc(len / 4 * 3 + 1);
    int n = EVP_DecodeBlock(pem, (const unsigned char *)b64, (int)len);
    n -= (b64[len - 1] == '=') + (len > 1 && b64[len - 2] == '='); /* the padding's zeros */
    bool ok = n > 0 && pem_has_certificate(pem, n);
    free(pem);
    ERR_clear_error(); /* the PEM reader's complaints are not this thread's TLS state */
    return ok;
}

/* ---- the write ---------------------------------------------------------------------------- */

typedef struct {
    gw_store_t *store;
    char *key;
    gw_crd__edit_fn edit;
    gw_crd__done_fn done;
    void *arg;
    int attempts;
    bool removed; /* the last write was the delete of an object no finalizer holds */
} write_t;

static void
finish(write_t *w, int err, const json_t *crd, int64_t rev)
{
    w->done(err, crd, rev, w->arg);
    free(w->key);
    free(w);
}

static void attempt(write_t *w, const gw_obj_t *cur);

static void
written(int err, const gw_obj_t *obj, void *arg)
{
    write_t *w = arg;

    if (err == GW_ECONFLICT && obj != NULL && ++w->attempts < MAX_ATTEMPTS) {
        attempt(w, obj);
        return;
    }
    json_t *o = err == 0 && !w->removed && obj != NULL ? gw_ctl__parse(obj) : NULL;
    finish(w, err, o, o != NULL ? obj->mod_revision : 0);
    json_decref(o);
}

/* The generic store's rule for updates: the last finalizer gone from an object being deleted
 * removes it. */
static bool
ends_deletion(const json_t *o)
{
    return gw_objmeta_deleting(o) && gw_json_strings_count_at(o, "metadata", "finalizers") == 0;
}

/* status members in the order kube's type declares them, whatever order the edits left. */
static void
order_status(json_t *o)
{
    static const char *const first[] = {"conditions", "acceptedNames", "storedVersions"};
    json_t *status = json_object_get(o, "status");
    json_t *sorted = json_object();
    const char *k;
    json_t *v;

    if (!json_is_object(status)) {
        json_decref(sorted);
        return;
    }
    for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++)
        if ((v = json_object_get(status, first[i])) != NULL)
            json_object_set(sorted, first[i], v);
    json_object_foreach(status, k, v)
        json_object_set(sorted, k, v); /* a member set above keeps its place */
    json_object_set_new(o, "status", sorted);
}

static int
store(write_t *w, json_t *o, int64_t rev)
{
    w->removed = ends_deletion(o);
    if (w->removed)
        return gw_store_delete(w->store, w->key, rev, written, w);
    size_t len;
    order_status(o);
    uint8_t *value = gw_ctl__dump(o, &len);
    int rc = gw_store_update(w->store, w->key, value, len, rev, written, w);
    free(value);
    return rc;
}

static void
attempt(write_t *w, const gw_obj_t *cur)
{
    json_t *o = gw_ctl__parse(cur);
    if (o == NULL) {
        finish(w, GW_EINTERNAL, NULL, 0); /* not an object kgate can edit */
        return;
    }
    json_t *before = json_deep_copy(o);
    int rc = w->edit(o, w->arg);
    if (rc == 0 && json_equal(before, o))
        finish(w, 0, o, cur->mod_revision);
    else if (rc != 0 || (rc = store(w, o, cur->mod_revision)) != 0)
        finish(w, rc, NULL, 0);
    json_decref(before);
    json_decref(o);
}

static void
got(int err, const gw_obj_t *obj, void *arg)
{
    write_t *w = arg;

    if (err != 0)
        finish(w, err, NULL, 0);
    else
        attempt(w, obj);
}

int
gw_crd__write(gw_store_t *store, const char *name, gw_crd__edit_fn edit, gw_crd__done_fn done,
              void *arg)
{
    char *key = gw_store_object_key(GW_CRD__PATH, NULL, name);

    if (key == NULL)
        return GW_EINVAL;
    write_t *w = gw_calloc(1, sizeof(*w));
    *w = (write_t){.store = store, .key = key, .edit = edit, .done = done, .arg = arg};
    int rc = gw_store_get(store, key, 0, got, w);
    if (rc != 0) {
        free(w->key);
        free(w);
    }
    return rc;
}
