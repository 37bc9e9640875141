/* The compiled admission webhooks, as one reference-counted snapshot. */
#include "gw_webhook_snapshot.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "gw_alloc.h"

#define DEFAULT_TIMEOUT_S 10
#define DEFAULT_PORT 443

/* One configuration's webhooks compiled, shared by the snapshots built while it stays the
 * same. */
typedef struct {
    atomic_int refs;
    char *name;
    json_t *webhooks; /* the stored list, to tell whether it changed */
    gw_webhook_t *items;
    size_t n;
} box_t;

typedef struct {
    box_t **boxes; /* the configurations by name */
    size_t nboxes;
    const gw_webhook_t **items; /* their webhooks in kube's order */
    size_t n;
} list_t;

struct gw_webhook_snap {
    atomic_int refs;
    list_t lists[2]; /* [0] validating, [1] mutating */
    size_t reused;
};

static pthread_mutex_t current_mu = PTHREAD_MUTEX_INITIALIZER;
static gw_webhook_snap_t *current;

static const char *
str_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

static char *
dup_or_null(const char *s)
{
    return s != NULL ? gw_strdup(s) : NULL;
}

/* caBundle's base64 as PEM text, or NULL when absent or unreadable (the call then uses the
 * system's roots and fails as kube's would on an unknown authority). */
static char *
ca_bundle(const json_t *cc)
{
    const char *b64 = json_string_value(json_object_get(cc, "caBundle"));
    size_t n = b64 != NULL ? strlen(b64) : 0;
    unsigned char *pem;

    if (n == 0 || n > 1 << 24)
        return NULL;
    pem = gw_calloc(1, n / 4 * 3 + 4);
    if (EVP_DecodeBlock(pem, (const unsigned char *)b64, (int)n) <= 0) {
        free(pem);
        return NULL;
    }
    return (char *)pem;
}

static gw_webhook_side_effects_t
side_effects(const char *s)
{
    static const char *const names[] = {"Unknown", "None", "Some", "NoneOnDryRun"};

    for (size_t i = 0; s != NULL && i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return (gw_webhook_side_effects_t)(i + 1);
    return s != NULL ? GW_WEBHOOK_SIDE_EFFECTS_UNKNOWN : GW_WEBHOOK_SIDE_EFFECTS_UNSET;
}

/* kube's CreateAdmissionObjects picks the first version it knows. */
static const char *
review_version(const json_t *versions)
{
    size_t i;
    json_t *v;

    json_array_foreach(versions, i, v)
    {
        const char *s = json_string_value(v);
        if (s != NULL && (strcmp(s, "v1") == 0 || strcmp(s, "v1beta1") == 0))
            return strcmp(s, "v1") == 0 ? "v1" : "v1beta1";
    }
    return NULL;
}

/* matchConditions compiled as a policy holding only them: kube's webhook matcher and the
 * policy's share the filter compiler, the cost budget and the failure handling. */
static gw_vap_compiled_t *
compile_conditions(const json_t *wh, bool ignore)
{
    const json_t *mc = json_object_get(wh, "matchConditions");
    json_t *doc;
    gw_vap_compiled_t *c;

    if (!json_is_array(mc) || json_array_size(mc) == 0)
        return NULL;
    doc = json_pack("{s:{s:s},s:{s:s,s:O}}", "metadata", "name", str_at(wh, "name"), "spec",
                    "failurePolicy", ignore ? "Ignore" : "Fail", "matchConditions", mc);
    c = gw_vap_compile(doc, NULL);
    json_decref(doc);
    return c;
}

/* The matching fields as kube reads a stored webhook: decoding defaults an absent
 * matchPolicy to Equivalent (the API writes it so; etcd may hold one without). */
static gw_admission_match_t *
compile_match(const json_t *wh)
{
    json_t *defaulted;
    gw_admission_match_t *m;

    if (json_object_get(wh, "matchPolicy") != NULL)
        return gw_admission_match_new_webhook(wh);
    defaulted = json_copy((json_t *)wh);
    json_object_set_new(defaulted, "matchPolicy", json_string("Equivalent"));
    m = gw_admission_match_new_webhook(defaulted);
    json_decref(defaulted);
    return m;
}

static void
client_config(gw_webhook_t *w, const json_t *cc)
{
    const json_t *svc = json_object_get(cc, "service"), *port;

    w->url = dup_or_null(json_string_value(json_object_get(cc, "url")));
    if (w->url == NULL && json_is_object(svc)) {
        port = json_object_get(svc, "port");
        w->svc_namespace = gw_strdup(str_at(svc, "namespace"));
        w->svc_name = gw_strdup(str_at(svc, "name"));
        w->svc_path = gw_strdup(str_at(svc, "path"));
        w->svc_port = json_is_integer(port) ? (int)json_integer_value(port) : DEFAULT_PORT;
    }
    w->ca_pem = ca_bundle(cc);
}

static void
compile_webhook(gw_webhook_t *w, const char *config, const json_t *wh, size_t index, bool mutating)
{
    const json_t *timeout = json_object_get(wh, "timeoutSeconds");
    json_int_t t = json_is_integer(timeout) ? json_integer_value(timeout) : DEFAULT_TIMEOUT_S;

    w->name = gw_strdup(str_at(wh, "name"));
    w->config_name = gw_strdup(config);
    w->uid = gw_sprintf("%s/%s/%zu", config, w->name, index);
    w->mutating = mutating;
    w->match = compile_match(wh);
    w->ignore = strcmp(str_at(wh, "failurePolicy"), "Ignore") == 0;
    w->conditions = compile_conditions(wh, w->ignore);
    w->timeout_s = t < 1 ? 1 : (t > 3600 ? 3600 : (int)t);
    w->side_effects = side_effects(json_string_value(json_object_get(wh, "sideEffects")));
    w->review_version = review_version(json_object_get(wh, "admissionReviewVersions"));
    w->reinvoke_if_needed = strcmp(str_at(wh, "reinvocationPolicy"), "IfNeeded") == 0;
    client_config(w, json_object_get(wh, "clientConfig"));
}

static void
webhook_clear(gw_webhook_t *w)
{
    free((char *)w->name);
    free((char *)w->config_name);
    free((char *)w->uid);
    gw_admission_match_free(w->match);
    gw_vap_compiled_free(w->conditions);
    free((char *)w->url);
    free((char *)w->svc_namespace);
    free((char *)w->svc_name);
    free((char *)w->svc_path);
    free((char *)w->ca_pem);
}

static void
box_unref(box_t *b)
{
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    for (size_t i = 0; i < b->n; i++)
        webhook_clear(&b->items[i]);
    free(b->items);
    free(b->name);
    json_decref(b->webhooks);
    free(b);
}

static box_t *
box_new(const json_t *config, bool mutating)
{
    box_t *b = gw_calloc(1, sizeof(*b));
    const json_t *hooks = json_object_get(config, "webhooks");
    size_t j;
    json_t *wh;

    atomic_init(&b->refs, 1);
    b->name = gw_strdup(str_at(json_object_get(config, "metadata"), "name"));
    b->webhooks = hooks != NULL ? json_deep_copy(hooks) : json_null();
    b->items = gw_calloc(json_array_size(hooks) + 1, sizeof(*b->items));
    json_array_foreach(hooks, j, wh)
    {
        if (json_is_object(wh))
            compile_webhook(&b->items[b->n++], b->name, wh, j, mutating);
    }
    return b;
}

/* The previous snapshot's box of `config` when its name and webhooks are unchanged. */
static box_t *
box_reuse(const list_t *prev, const json_t *config)
{
    const char *name = str_at(json_object_get(config, "metadata"), "name");
    const json_t *hooks = json_object_get(config, "webhooks");

    for (size_t i = 0; prev != NULL && i < prev->nboxes; i++) {
        box_t *b = prev->boxes[i];
        if (strcmp(b->name, name) == 0 &&
            json_equal(b->webhooks, hooks != NULL ? hooks : json_null())) {
            atomic_fetch_add(&b->refs, 1);
            return b;
        }
    }
    return NULL;
}

static int
box_by_name(const void *x, const void *y)
{
    return strcmp((*(box_t *const *)x)->name, (*(box_t *const *)y)->name);
}

/* The configurations by name, their webhooks in order; unchanged ones from prev. */
static size_t
build_list(list_t *l, const json_t *configs, bool mutating, const list_t *prev)
{
    size_t n = json_array_size(configs), total = 0, reused = 0;

    l->boxes = gw_calloc(n + 1, sizeof(*l->boxes));
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(configs, i);
        box_t *b;
        if (!json_is_object(c))
            continue;
        b = box_reuse(prev, c);
        reused += b != NULL;
        l->boxes[l->nboxes++] = b != NULL ? b : box_new(c, mutating);
        total += l->boxes[l->nboxes - 1]->n;
    }
    qsort(l->boxes, l->nboxes, sizeof(*l->boxes), box_by_name);
    l->items = gw_calloc(total + 1, sizeof(*l->items));
    for (size_t i = 0; i < l->nboxes; i++)
        for (size_t j = 0; j < l->boxes[i]->n; j++)
            l->items[l->n++] = &l->boxes[i]->items[j];
    return reused;
}

gw_webhook_snap_t *
gw_webhook_snap_new(const json_t *mutating, const json_t *validating, const gw_webhook_snap_t *prev)
{
    gw_webhook_snap_t *s = gw_calloc(1, sizeof(*s));

    atomic_init(&s->refs, 1);
    s->reused = build_list(&s->lists[1], mutating, true, prev ? &prev->lists[1] : NULL);
    s->reused += build_list(&s->lists[0], validating, false, prev ? &prev->lists[0] : NULL);
    return s;
}

size_t
gw_webhook_snap_reused(const gw_webhook_snap_t *s)
{
    return s != NULL ? s->reused : 0;
}

gw_webhook_snap_t *
gw_webhook_snap_ref(gw_webhook_snap_t *s)
{
    if (s != NULL)
        atomic_fetch_add(&s->refs, 1);
    return s;
}

void
gw_webhook_snap_unref(gw_webhook_snap_t *s)
{
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < s->lists[l].nboxes; i++)
            box_unref(s->lists[l].boxes[i]);
        free(s->lists[l].boxes);
        free(s->lists[l].items);
    }
    free(s);
}

void
gw_webhook_snap_publish(gw_webhook_snap_t *s)
{
    pthread_mutex_lock(&current_mu);
    gw_webhook_snap_t *old = current;
    current = s;
    pthread_mutex_unlock(&current_mu);
    gw_webhook_snap_unref(old);
}

gw_webhook_snap_t *
gw_webhook_snap_current(void)
{
    pthread_mutex_lock(&current_mu);
    gw_webhook_snap_t *s = gw_webhook_snap_ref(current);
    pthread_mutex_unlock(&current_mu);
    return s;
}

size_t
gw_webhook_snap_count(const gw_webhook_snap_t *s, bool mutating)
{
    return s != NULL ? s->lists[mutating ? 1 : 0].n : 0;
}

const gw_webhook_t *
gw_webhook_snap_at(const gw_webhook_snap_t *s, bool mutating, size_t i)
{
    return s->lists[mutating ? 1 : 0].items[i];
}
