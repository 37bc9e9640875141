/*
 * LIST of a collection, as kube-apiserver's etcd3 store pages it (storage/etcd3/store.go
 * GetList): etcd is read in bounded chunks at one pinned revision, items are filtered by the
 * label and field selectors and appended, already encoded, to the answer, so no more than one
 * chunk of etcd data is held at a time. limit counts matching items; continue tokens carry the
 * revision and the next key; remainingItemCount is only known without selectors.
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_continue.h"
#include "gw_err.h"
#include "gw_selector.h"

/* Items read from etcd per round trip. */
#define CHUNK 500

struct gw_lister {
    gw_req_t *r;
    gw_selector_t labels, fields;
    bool filtered;      /* a selector is in force */
    int64_t limit;      /* matching items per answer; 0: all */
    int64_t min_rv;     /* resourceVersion N, not-older-than */
    int64_t rev;        /* the pinned revision (0 until the first chunk) */
    bool continued;     /* the request carried a continue token */
    const char *prefix; /* the collection's relative prefix */
    const char *start;  /* where the next chunk starts (NULL: the prefix) */
    int64_t count;      /* items taken */
    gw_buf_t items;     /* "item,item,..." */
    json_t *docs;       /* the items as documents, for a Table */
    json_t *names;      /* the items' names, when asked */
    char *token;        /* the answer's continue token */
    int64_t remaining;  /* the answer's remainingItemCount, or -1 */
    gw_list_done_fn done;
    void *arg;
};

static void fetch(gw_lister_t *l);

static void
lister_free(void *p)
{
    gw_lister_t *l = p;

    gw_selector_clear(&l->labels);
    gw_selector_clear(&l->fields);
    free(l->items.data);
    json_decref(l->docs);
    json_decref(l->names);
    free(l->token);
}

/* ---- field selectors ---------------------------------------------------------------------- */

/* The fields kube lets each kind select on: metadata.name and metadata.namespace, and the
 * kind's own (its GetAttrs). NULL-terminated, so that the watches can take them as they are. */
#define META_FIELDS "metadata.name", "metadata.namespace"
static const char *const pod_fields[] = {META_FIELDS,
                                         "spec.nodeName",
                                         "spec.restartPolicy",
                                         "spec.schedulerName",
                                         "spec.serviceAccountName",
                                         "spec.hostNetwork",
                                         "status.phase",
                                         "status.podIP",
                                         "status.nominatedNodeName",
                                         NULL};
static const char *const event_fields[] = {META_FIELDS,
                                           "involvedObject.kind",
                                           "involvedObject.namespace",
                                           "involvedObject.name",
                                           "involvedObject.uid",
                                           "involvedObject.apiVersion",
                                           "involvedObject.resourceVersion",
                                           "involvedObject.fieldPath",
                                           "reason",
                                           "reportingComponent",
                                           "source",
                                           "type",
                                           NULL};
static const char *const secret_fields[] = {META_FIELDS, "type", NULL};
static const char *const node_fields[] = {META_FIELDS, "spec.unschedulable", NULL};
static const char *const namespace_fields[] = {META_FIELDS, "status.phase", NULL};
static const char *const replicas_fields[] = {META_FIELDS, "status.replicas", NULL};
static const char *const job_fields[] = {META_FIELDS, "status.successful", NULL};
static const char *const csr_fields[] = {META_FIELDS, "spec.signerName", NULL};
static const char *const meta_fields[] = {META_FIELDS, NULL};

static const struct {
    const char *group, *resource;
    const char *const *fields;
} kind_fields[] = {
    {"", "pods", pod_fields},
    {"", "events", event_fields},
    {"", "secrets", secret_fields},
    {"", "nodes", node_fields},
    {"", "namespaces", namespace_fields},
    {"", "replicationcontrollers", replicas_fields},
    {"apps", "replicasets", replicas_fields},
    {"batch", "jobs", job_fields},
    {"certificates.k8s.io", "certificatesigningrequests", csr_fields},
};

const char *const *
gw_registry__selectable_fields(const gw_resource_t *res)
{
    for (size_t i = 0; i < sizeof(kind_fields) / sizeof(kind_fields[0]); i++) {
        if (strcmp(kind_fields[i].group, res->group) == 0 &&
            strcmp(kind_fields[i].resource, res->name) == 0)
            return kind_fields[i].fields;
    }
    return meta_fields;
}

static bool
field_known(const gw_resource_t *res, const char *field)
{
    for (const char *const *f = gw_registry__selectable_fields(res); *f != NULL; f++) {
        if (strcmp(*f, field) == 0)
            return true;
    }
    return false;
}

typedef struct {
    const json_t *doc;
    char buf[32];
} field_src_t;

/* A dotted field of the object as a selector sees it: strings as they are, numbers and
 * booleans in their text form, anything absent as "". */
static const char *
field_value(const char *field, void *arg)
{
    field_src_t *src = arg;
    const json_t *v = src->doc;
    char part[128];

    for (const char *p = field; v != NULL && *p != '\0';) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        v = json_object_get(v, part);
        p += n + (p[n] == '.');
    }
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_boolean(v))
        return json_is_true(v) ? "true" : "false";
    if (json_is_integer(v)) {
        snprintf(src->buf, sizeof(src->buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return src->buf;
    }
    return NULL;
}

/* ---- options ------------------------------------------------------------------------------ */

bool
gw_registry__parse_selectors(gw_req_t *r, gw_selector_t *labels, gw_selector_t *fields)
{
    const char *ls = gw_req_query(r, "labelSelector"), *fs = gw_req_query(r, "fieldSelector");
    char err[512];

    if (ls != NULL && gw_label_selector_parse(ls, labels, err, sizeof(err)) != 0) {
        gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
        return false;
    }
    if (fs != NULL && gw_field_selector_parse(fs, fields, err, sizeof(err)) != 0) {
        gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
        return false;
    }
    for (size_t i = 0; i < fields->n; i++) {
        if (!field_known(r->resource, fields->reqs[i].key)) {
            gw_reply_status(r, 400, "BadRequest", NULL, "field label not supported: %s",
                            fields->reqs[i].key);
            return false;
        }
    }
    return true;
}

static bool
parse_selectors(gw_lister_t *l)
{
    if (!gw_registry__parse_selectors(l->r, &l->labels, &l->fields))
        return false;
    l->filtered = l->labels.n > 0 || l->fields.n > 0;
    return true;
}

/* kube's ValidateListOptions for the resourceVersionMatch combinations. */
static bool
check_match(gw_lister_t *l, const char *rv, const char *match, const char *cont)
{
    static const char *const values[] = {"Exact", "NotOlderThan", "", NULL};
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};

    if (match == NULL || match[0] == '\0')
        return true;
    if (rv == NULL || rv[0] == '\0')
        gw_ferr_forbidden(&errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (cont != NULL && cont[0] != '\0')
        gw_ferr_forbidden(&errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden when continue is provided");
    if (strcmp(match, "Exact") != 0 && strcmp(match, "NotOlderThan") != 0)
        gw_ferr_not_supported(&errs, "resourceVersionMatch", match, values);
    if (strcmp(match, "Exact") == 0 && rv != NULL && strcmp(rv, "0") == 0)
        gw_ferr_forbidden(&errs, "resourceVersionMatch",
                          "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(l->r, &f, "meta.k8s.io", "ListOptions", "", &errs);
    gw_registry__reply_fail(l->r, &f);
    return false;
}

static bool
apply_continue(gw_lister_t *l, const char *rv, const char *cont)
{
    char err[512], *start;
    int64_t rev;

    if (rv != NULL && rv[0] != '\0' && strcmp(rv, "0") != 0) {
        gw_reply_status(l->r, 400, "BadRequest", NULL,
                        "specifying resource version is not allowed when using continue");
        return false;
    }
    if (gw_continue_decode(cont, &rev, &start, err, sizeof(err)) != 0) {
        gw_reply_status(l->r, 400, "BadRequest", NULL, "invalid continue token: %s", err);
        return false;
    }
    l->continued = true;
    l->rev = rev > 0 ? rev : 0;
    l->start = gw_arena_sprintf(l->r->arena, "%s%s", l->prefix, start);
    free(start);
    return true;
}

/* resourceVersion, resourceVersionMatch, limit and continue; false after replying. */
static bool
parse_versions(gw_lister_t *l)
{
    gw_req_t *r = l->r;
    const char *rv = gw_req_query(r, "resourceVersion"), *cont = gw_req_query(r, "continue");
    const char *match = gw_req_query(r, "resourceVersionMatch"), *lim = gw_req_query(r, "limit");
    int64_t n = 0;

    if (lim != NULL && lim[0] != '\0' && !gw_registry__parse_int(lim, &l->limit)) {
        gw_reply_status(r, 400, "BadRequest", NULL, "invalid limit: %s", lim);
        return false;
    }
    if (l->limit < 0)
        l->limit = 0;
    if (!check_match(l, rv, match, cont))
        return false;
    if (cont != NULL && cont[0] != '\0')
        return apply_continue(l, rv, cont);
    if (rv == NULL || rv[0] == '\0' || strcmp(rv, "0") == 0)
        return true;
    if (!gw_registry__parse_int(rv, &n) || n < 0) {
        gw_reply_status(r, 400, "BadRequest", NULL, "invalid resource version: %s", rv);
        return false;
    }
    /* A version with a limit (or asked Exact) is read exactly there; otherwise any state at
     * least that new will do. */
    if ((match != NULL && strcmp(match, "Exact") == 0) ||
        ((match == NULL || match[0] == '\0') && l->limit > 0))
        l->rev = n;
    else
        l->min_rv = n;
    return true;
}

/* ---- paging ------------------------------------------------------------------------------- */

/* Take one item if it matches; false when its bytes are not an object. */
static bool
take(gw_lister_t *l, const gw_obj_t *obj)
{
    json_t *doc = NULL;
    field_src_t src;
    bool ok = true;

    if (l->filtered || l->docs != NULL || l->names != NULL) {
        doc =
            gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision);
        if (doc == NULL)
            return false;
        src.doc = doc;
        if (!gw_label_selector_match(&l->labels,
                                     json_object_get(json_object_get(doc, "metadata"), "labels")) ||
            !gw_field_selector_match(&l->fields, field_value, &src)) {
            json_decref(doc);
            return true;
        }
    }
    l->count++;
    if (l->names != NULL)
        json_array_append_new(l->names, json_string(gw_objmeta_str(doc, "name")));
    if (l->docs != NULL) {
        json_array_append(l->docs, doc);
    } else {
        if (l->items.len > 0)
            gw_registry__buf_add(&l->items, ",", 1);
        ok = gw_registry__buf_obj(&l->items, obj);
    }
    json_decref(doc);
    return ok;
}

static void
finish(gw_lister_t *l)
{
    json_t *meta =
        json_pack("{s:s}", "resourceVersion", gw_arena_sprintf(l->r->arena, "%" PRId64, l->rev));
    char *text;
    gw_buf_t body = {0};

    if (l->token != NULL)
        json_object_set_new(meta, "continue", json_string(l->token));
    if (l->remaining > 0)
        json_object_set_new(meta, "remainingItemCount", json_integer(l->remaining));
    if (l->docs != NULL) {
        l->done(l->r, NULL, l->docs, meta, l->names, l->arg);
        json_decref(meta);
        return;
    }
    text = json_dumps(meta, JSON_COMPACT);
    gw_registry__buf_str(&body, "{\"kind\":\"");
    gw_registry__buf_str(&body, l->r->resource->list_kind);
    gw_registry__buf_str(&body, "\",\"apiVersion\":\"");
    gw_registry__buf_str(&body, gw_registry__api_version(l->r));
    gw_registry__buf_str(&body, "\",\"metadata\":");
    gw_registry__buf_str(&body, text);
    gw_registry__buf_str(&body, ",\"items\":[");
    gw_registry__buf_add(&body, l->items.data ? l->items.data : "", l->items.len);
    gw_registry__buf_str(&body, "]}");
    free(text);
    json_decref(meta);
    l->done(l->r, &body, NULL, NULL, l->names, l->arg);
    free(body.data);
}

/* Stop at `limit` with the rest starting at `next` (relative key). */
static void
stop_at(gw_lister_t *l, const char *next, int64_t remaining)
{
    l->token = gw_continue_encode(l->rev, next + strlen(l->prefix));
    l->remaining = l->filtered ? -1 : remaining;
    finish(l);
}

/* A compacted revision: 410, for a continued list with a token to go on at the latest. */
static void
expired(gw_lister_t *l)
{
    const char *msg = "The resourceVersion for the provided list is too old.";
    json_t *st;
    char *token = NULL;

    if (l->continued) {
        msg = "The provided continue parameter is too old to display a consistent list result. "
              "You can start a new list without the continue parameter, or use the continue "
              "token in this response to retrieve the remainder of the results. Continuing with "
              "the provided token results in an inconsistent list - objects that were created, "
              "modified, or deleted between the time the first chunk was returned and now may "
              "show up in the list.";
        token = gw_continue_encode(-1, l->start + strlen(l->prefix));
    }
    st = json_pack("{s:s,s:s,s:{},s:s,s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                   "metadata", "status", "Failure", "message", msg, "reason", "Expired", "code",
                   410);
    if (token != NULL)
        json_object_set_new(json_object_get(st, "metadata"), "continue", json_string(token));
    gw_reply_json(l->r, 410, st);
    free(token);
}

static void
got_page(int err, const gw_list_page_t *page, void *arg)
{
    gw_lister_t *l = arg;

    if (err == GW_ECOMPACTED) {
        expired(l);
        return;
    }
    if (err == 0 && l->rev == 0 && page->revision < l->min_rv)
        err = GW_EFUTUREREV;
    if (err != 0) {
        gw_reply_error(l->r, err, "");
        return;
    }
    l->rev = page->revision;
    for (size_t i = 0; i < page->n_items; i++) {
        if (l->limit > 0 && l->count == l->limit) {
            stop_at(l, page->items[i].key, (int64_t)(page->n_items - i) + page->remaining);
            return;
        }
        if (!take(l, &page->items[i])) {
            gw_reply_error(l->r, GW_EINTERNAL, "");
            return;
        }
    }
    if (!page->more) {
        finish(l);
    } else if (l->limit > 0 && l->count == l->limit) {
        stop_at(l, page->next_key, page->remaining);
    } else {
        l->start = gw_arena_strdup(l->r->arena, page->next_key);
        fetch(l);
    }
}

static void
fetch(gw_lister_t *l)
{
    gw_list_req_t q = {
        .prefix = l->prefix, .start_key = l->start, .revision = l->rev, .limit = CHUNK};
    int rc;

    /* Unfiltered, a chunk need not go past the limit. */
    if (!l->filtered && l->limit > 0 && l->limit - l->count < CHUNK)
        q.limit = l->limit - l->count;
    rc = gw_store_list(l->r->store, &q, got_page, l);
    if (rc != 0)
        gw_reply_error(l->r, rc == GW_EINVAL ? GW_EINTERNAL : rc, "");
}

const char *
gw_registry__collection_prefix(gw_req_t *r, const gw_selector_t *fields)
{
    const char *ns = gw_registry__namespace(r);
    char *p;
    const char *out;

    /* A field selector naming one namespace narrows an all-namespaces list to it, as kube
     * does. */
    for (size_t i = 0; ns[0] == '\0' && r->resource->namespaced && i < fields->n; i++) {
        const gw_sel_req_t *q = &fields->reqs[i];
        if (strcmp(q->key, "metadata.namespace") == 0 && q->op == GW_SEL_EQUALS &&
            gw_objmeta_check_name(GW_NAME_LABEL, q->values[0], false) == NULL)
            ns = q->values[0];
    }
    p = gw_store_collection_prefix(r->resource->storage_path, ns[0] ? ns : NULL);
    out = p ? gw_arena_strdup(r->arena, p) : NULL;
    free(p);
    return out;
}

void
gw_registry__list_run(gw_req_t *r, bool table, bool names, gw_list_done_fn done, void *arg)
{
    gw_lister_t *l = gw_arena_calloc(r->arena, sizeof(*l));

    l->r = r;
    l->done = done;
    l->arg = arg;
    l->remaining = -1;
    l->docs = table ? json_array() : NULL;
    l->names = names ? json_array() : NULL;
    gw_arena_defer(r->arena, lister_free, l);
    if (!parse_selectors(l))
        return;
    l->prefix = gw_registry__collection_prefix(r, &l->fields);
    if (l->prefix == NULL) {
        gw_registry__reply_no_route(r);
        return;
    }
    if (!parse_versions(l))
        return;
    fetch(l);
}

/* ---- the list verb ------------------------------------------------------------------------ */

static void
reply_list(gw_req_t *r, const gw_buf_t *body, json_t *docs, json_t *meta, json_t *names, void *arg)
{
    json_t *table;

    (void)names;
    (void)arg;
    if (body != NULL) {
        gw_reply_json_bytes(r, 200, body->data, body->len);
        return;
    }
    table = gw_registry__table(r, docs, meta);
    if (table != NULL)
        gw_reply_json(r, 200, table);
}

void
gw_registry__list(gw_req_t *r)
{
    gw_registry__list_run(r, r->accept == GW_MEDIA_TABLE, false, reply_list, NULL);
}
