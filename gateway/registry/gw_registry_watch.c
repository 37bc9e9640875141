/*
 * WATCH of a collection, as kube-apiserver v1.32 serves it (endpoints/handlers/get.go and
 * watch.go over the watch cache, cacher.go): options validated as ListOptions (with the
 * WatchList defaults: an unset or "0" resourceVersion means sendInitialEvents=true), then a
 * chunked 200 stream of newline-delimited JSON events.
 *
 * With initial events the collection is listed first (paged at one revision, each page sent
 * before the next is read, so a large collection never sits in memory), each object as a
 * synthetic ADDED, then with allowWatchBookmarks a BOOKMARK marked k8s.io/initial-events-end;
 * changes follow from the list's revision. Otherwise changes follow from the requested
 * resourceVersion, or from now. Changes come from the shared watch of the collection
 * (gw_watch.h); selectors are applied per watcher to the new and the previous state, so an
 * object entering the selection is ADDED and one leaving it DELETED, as kube's cacheWatcher
 * does. Failures once the stream runs are ERROR events carrying a Status.
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_cbor.h"
#include "gw_convert.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_negotiate.h"
#include "gw_partial.h"
#include "gw_protobuf.h"
#include "gw_table.h"
#include "gw_watch.h"

#define CHUNK 500                  /* objects per page of the initial list */
#define MIN_REQUEST_TIMEOUT_S 1800 /* kube-apiserver's --min-request-timeout */
#define SLOW_WAIT_S 10             /* how long a paused watch waits for its client */
#define CONTENT_TYPE "application/json;stream=watch"
#define PROTOBUF_CONTENT_TYPE GW_PROTOBUF_WATCH_MEDIA_TYPE
#define CBOR_CONTENT_TYPE "application/cbor-seq"
#define INITIAL_EVENTS_END "k8s.io/initial-events-end"
#define BOOKMARK_BEFORE_END_MS 2000 /* kube's cacher: a bookmark this long before the deadline */

typedef struct {
    gw_req_t *r;                   /* the request, until the stream lets it go (gw_stream_detach) */
    gw_stream_t *s;                /* the answer, once started */
    const gw_resource_t *resource; /* r's, kept alive by the stream's catalog */
    const char *as_version;        /* r's (a literal) */
    struct gw_watch_local *watches; /* the worker's shared watches */
    gw_selector_t labels, fields;
    const char *const *field_names; /* the resource's selectable fields (event attributes) */
    const char *collection;         /* the shared watch: all namespaces; the block that holds the
                                       strings below too (keep_strings) */
    const char *prefix;             /* the request's namespace, or the collection */
    const char *name;               /* one object by name ("" for all) */
    const char *only_key;           /* one named object of one namespace: its key */
    const char *list_start;         /* the initial list's next key (NULL: the start) */
    int64_t rv;                     /* the requested resourceVersion (0: unset or "0") */
    int64_t timeout_s;              /* timeoutSeconds (0: kube's randomised default) */
    int64_t list_rev;               /* the initial list's revision */
    int64_t after;                  /* where the changes start */
    int64_t sent;                   /* the highest resourceVersion sent */
    int64_t known;                  /* the newest revision the collection is known to be at */
    gw_watcher_t *w;
    /* One timer, set for the earliest of: the watch's end, its next periodic bookmark
     * (allowWatchBookmarks) and a paused watch's deadline (an idle watch holds one event). */
    gw_timer_t timer;
    gw_timers_t *timers; /* the worker's */
    int64_t end_ms;      /* when the watch times out (monotonic) */
    int64_t mark_ms;     /* when the next bookmark is due; 0: none */
    int64_t slow_ms;     /* when a paused watch is ended; 0: not paused */
    gw_table_include_t include;
    bool initial;       /* sendInitialEvents */
    bool list_any;      /* resourceVersion "0": any state of the initial list will do */
    bool bookmarks;     /* allowWatchBookmarks */
    bool mark_is_last;  /* the bookmark timer is the one before the deadline */
    bool table;         /* events carry Tables */
    bool table_headers; /* a Table with column definitions went out */
    bool protobuf;      /* events are protobuf frames (else JSON lines) */
    bool cbor;          /* events are CBOR data items (application/cbor-seq) */
    bool convert;       /* the resource is another version than the one stored */
    bool partial;       /* objects go out as PartialObjectMetadata */
    bool page_pending;  /* an etcd page is on its way: ending waits for it */
    bool ended;
    bool registered; /* counted in apiserver_registered_watchers */
    /* a CRD whose webhook converts the objects: events wait, in order, for their reviews */
    bool webhook;
    json_t *queue;       /* [{"t": type, "o": object, "c": to convert, "table": as a Table}] */
    size_t in_review;    /* the queue's first entries, whose review is in flight */
    json_t *review_objs; /* the objects of that review, converted in place */
} watch_t;

static void list_page(watch_t *st);

/* ---- apiserver_registered_watchers --------------------------------------------------------- */

static const char *const gvk_labels[] = {"group", "version", "kind"};

static const gw_metric_desc_t watchers_desc = {
    .name = "apiserver_registered_watchers",
    .help = "Watches open now, by group, version and kind.",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = gvk_labels,
    .n_labels = 3,
};

static void
count_watcher(watch_t *st, int delta)
{
    static gw_metric_t *_Atomic family;
    const char *v[] = {st->resource->group, st->resource->version, st->resource->kind};
    gw_metric_add(gw_metric_cached(&family, &watchers_desc), v, delta);
    st->registered = delta > 0;
}

/* kube counts every event a watch sends (bookmarks too) and the size of its object's
 * encoding. Objects in a shared JSON line are measured exactly; other forms by the event as
 * sent, whose envelope adds a few dozen bytes to the object's. */
static const double event_size_buckets[] = {1024,  2048,  4096,  8192,
                                            16384, 32768, 65536, 131072}; /* kube's: 1 KiB x 2^n */

static const gw_metric_desc_t events_desc = {
    .name = "apiserver_watch_events_total",
    .help = "Events watches sent, by group, version and kind.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = gvk_labels,
    .n_labels = 3,
};

static const gw_metric_desc_t event_sizes_desc = {
    .name = "apiserver_watch_events_sizes",
    .help = "Size in bytes of the objects watches sent, by group, version and kind.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = gvk_labels,
    .n_labels = 3,
    .buckets = event_size_buckets,
    .n_buckets = sizeof(event_size_buckets) / sizeof(event_size_buckets[0]),
};

static void
count_event(const watch_t *st, size_t size)
{
    static gw_metric_t *_Atomic events, *_Atomic sizes;
    const char *v[] = {st->resource->group, st->resource->version, st->resource->kind};
    gw_metric_add(gw_metric_cached(&events, &events_desc), v, 1);
    gw_metric_observe(gw_metric_cached(&sizes, &event_sizes_desc), v, (double)size);
}

/* ---- the end ------------------------------------------------------------------------------- */

static void
watch_free(watch_t *st)
{
    if (st->registered)
        count_watcher(st, -1);
    gw_selector_clear(&st->labels);
    gw_selector_clear(&st->fields);
    json_decref(st->queue);
    json_decref(st->review_objs);
    free((char *)st->collection);
    free(st);
}

/* End the stream once nothing is pending; the request is gone after that. */
static void
watch_end(watch_t *st)
{
    st->ended = true;
    if (st->page_pending || st->in_review > 0)
        return;
    if (st->w != NULL)
        gw_watcher_stop(st->w);
    st->w = NULL;
    gw_timer_cancel(st->timers, &st->timer);
    gw_stream_end(st->s);
    watch_free(st);
}

static void
on_stop(void *arg)
{
    watch_end(arg);
}

/* ---- writing events ----------------------------------------------------------------------- */

/* Send the events added (the stream writer frames them; watches are not compressed). */
static void
flush(watch_t *st)
{
    gw_stream_flush(st->s, 0, NULL, NULL);
}

/* The event forms shared through gw_wev_form, one slot each (v1beta1 views are not shared). */
enum {
    FORM_PROTOBUF,
    FORM_PARTIAL_JSON,
    FORM_PARTIAL_PROTOBUF,
    FORM_CBOR,
};

/* One event as a CBOR data item: the object's own encoding inside {type, object}. */
static char *
encode_cbor_event(const watch_t *st, const char *type, const json_t *doc, size_t *len)
{
    const gw_schema_t *s = st->resource->schema;
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    uint8_t *obj, *out;
    size_t obj_len;
    char err[256];

    if (kind == NULL || strcmp(kind, st->resource->kind) != 0)
        s = NULL; /* a Status, a metadata view: nothing there is bytes or a float */
    if (gw_cbor_encode(doc, s, &obj, &obj_len, err, sizeof(err)) != 0) {
        gw_log_error(gw_stream_audit_id(st->s), "cannot encode a watch event as CBOR: %s", err);
        return NULL;
    }
    out = gw_cbor_encode_watch_event(type, obj, obj_len, len);
    free(obj);
    return (char *)out;
}

/* One event in the watch's form, into new bytes: a JSON line, or a protobuf frame (kube's
 * length-prefixed WatchEvent); objects other than a Status as PartialObjectMetadata when
 * asked. NULL when the object has no protobuf form. */
static char *
encode_event(const watch_t *st, const char *type, const json_t *doc, size_t *len)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    bool partial = st->partial && (kind == NULL || strcmp(kind, "Status") != 0);
    json_t *view = partial ? gw_partial_object(doc, st->as_version) : json_incref((json_t *)doc);
    char err[256], *out = NULL, *text;
    uint8_t *bytes;

    if (st->cbor) {
        out = encode_cbor_event(st, type, view, len);
    } else if (st->protobuf) {
        if (gw_protobuf_encode_watch_event_as(gw_stream_catalog(st->s),
                                              partial ? gw_partial_schema(false) : NULL, type, view,
                                              &bytes, len, err, sizeof(err)) == 0)
            out = (char *)bytes;
        else
            gw_log_error(gw_stream_audit_id(st->s), "cannot encode a watch event as protobuf: %s",
                         err);
    } else {
        text = json_dumps(view, JSON_COMPACT);
        out = gw_sprintf("{\"type\":\"%s\",\"object\":%s}\n", type, text);
        *len = strlen(out);
        free(text);
    }
    json_decref(view);
    return out;
}

/* Whether events go out as the shared JSON lines, untouched: the lines hold objects in their
 * kind's storage version, so a watch of another version converts each. */
static bool
plain(const watch_t *st)
{
    return !st->protobuf && !st->cbor && !st->partial && !st->table && !st->convert;
}

static bool
emit_doc(watch_t *st, const char *type, const json_t *doc)
{
    size_t len;
    char *bytes = encode_event(st, type, doc, &len);

    if (bytes == NULL)
        return false;
    count_event(st, len);
    gw_stream_add(st->s, bytes, len);
    free(bytes);
    return true;
}

/* ---- a CRD's conversion webhook ------------------------------------------------------------ */

static bool table_event(watch_t *st, const char *type, json_t *doc);
static void pump(watch_t *st);

/* Whether the event waits in the queue: an object the webhook must convert, or anything
 * behind one. */
static bool
queued(watch_t *st, const char *type, const json_t *doc, bool table)
{
    bool needs = st->webhook && !st->partial &&
                 gw_registry__webhook_needed(st->resource, doc, st->resource->api_version);

    if (!needs && json_array_size(st->queue) == 0)
        return false;
    json_array_append_new(
        st->queue, json_pack("{s:s,s:O,s:b,s:b}", "t", type, "o", doc, "c", needs, "table", table));
    if (st->in_review == 0)
        pump(st);
    return true;
}

/* The review answered: the events it held go out in order (converted objects in place of
 * the stored ones), then the next review. */
static void
reviewed(gw_req_t *r, const char *err, void *arg)
{
    watch_t *st = arg;
    json_t *objs = st->review_objs, *e;
    size_t n = st->in_review, i, j = 0;
    bool ok = err == NULL;

    (void)r;
    st->review_objs = NULL;
    if (err != NULL)
        gw_log_error(gw_stream_audit_id(st->s), "unable to encode watch object: %s", err);
    for (i = 0; ok && i < n; i++) {
        e = json_array_get(st->queue, i);
        const char *type = json_string_value(json_object_get(e, "t"));
        json_t *doc = json_object_get(e, "o");
        if (json_is_true(json_object_get(e, "c")))
            doc = json_array_get(objs, j++);
        ok = json_is_true(json_object_get(e, "table")) ? table_event(st, type, json_incref(doc))
                                                       : emit_doc(st, type, doc);
    }
    json_decref(objs);
    for (i = 0; i < n; i++)
        json_array_remove(st->queue, 0);
    st->in_review = 0;
    if (!ok) { /* kube ends a watch whose object it cannot encode */
        json_array_clear(st->queue);
        watch_end(st);
        return;
    }
    flush(st);
    if (st->ended)
        watch_end(st);
    else if (json_array_size(st->queue) > 0)
        pump(st);
}

/* One review for every queued object to convert. */
static void
pump(watch_t *st)
{
    size_t i;
    json_t *e;

    st->review_objs = json_array();
    json_array_foreach(st->queue, i, e)
    {
        if (json_is_true(json_object_get(e, "c")))
            json_array_append(st->review_objs, json_object_get(e, "o"));
    }
    st->in_review = json_array_size(st->queue);
    gw_registry__webhook_convert(st->r, st->review_objs, st->resource->api_version, false, reviewed,
                                 st);
}

/* An event built here (a bookmark, an error, an object): after those queued, if any. */
static bool
add_doc(watch_t *st, const char *type, const json_t *doc)
{
    if (st->webhook && json_array_size(st->queue) > 0) {
        json_array_append_new(
            st->queue, json_pack("{s:s,s:O,s:b,s:b}", "t", type, "o", doc, "c", 0, "table", 0));
        return true;
    }
    return emit_doc(st, type, doc);
}

static bool
add_line(watch_t *st, const char *type, const char *obj, size_t len)
{
    json_t *doc;
    bool ok;

    if (plain(st)) {
        char head[64];
        int n = snprintf(head, sizeof(head), "{\"type\":\"%s\",\"object\":", type);

        count_event(st, len);
        gw_stream_add(st->s, head, (size_t)n);
        gw_stream_add(st->s, obj, len);
        gw_stream_add(st->s, "}\n", 2);
        return true;
    }
    doc = json_loadb(obj, len, 0, NULL);
    if (doc != NULL && !st->partial) /* a metadata view: kube's shows the stored metadata */
        gw_registry__serve_as(doc, st->resource);
    if (doc != NULL && queued(st, type, doc, false)) {
        json_decref(doc);
        return true;
    }
    ok = doc != NULL && add_doc(st, type, doc);
    json_decref(doc);
    return ok;
}

/* A shared event's type as a watch event names it. */
static const char *const type_names[] = {
    [GW_WATCH_ADDED] = "ADDED", [GW_WATCH_MODIFIED] = "MODIFIED", [GW_WATCH_DELETED] = "DELETED"};

/* gw_wev_form's maker: the event in this watch's form. */
static char *
make_form(const gw_wev_t *e, void *ctx, size_t *len)
{
    json_t *doc = json_loadb(e->obj, e->obj_len, 0, NULL);
    char *out = doc != NULL ? encode_event(ctx, type_names[e->type], doc, len) : NULL;

    json_decref(doc);
    return out;
}

/* A change as it happened, shared with every watcher of the same form: the JSON line, or a
 * form made once per event. */
static bool
add_shared(watch_t *st, const gw_wev_t *e)
{
    gw_wev_t *ev = (gw_wev_t *)e;
    int slot = st->cbor      ? FORM_CBOR
               : st->partial ? (st->protobuf ? FORM_PARTIAL_PROTOBUF : FORM_PARTIAL_JSON)
                             : FORM_PROTOBUF;
    const char *bytes = e->line;
    size_t len = e->line_len;

    /* Forms not shared: v1beta1 metadata views, CBOR ones, and every form of a converted
     * version (the slots hold one version's). */
    if (st->convert || (st->partial && (st->cbor || strcmp(st->as_version, "v1") != 0)))
        return add_line(st, type_names[e->type], e->obj, e->obj_len);
    if (!plain(st))
        bytes = gw_wev_form(ev, slot, make_form, st, &len);
    if (bytes == NULL)
        return false;
    count_event(st, plain(st) ? e->obj_len : len);
    gw_stream_add_ref(st->s, bytes, len, gw_wev_unref_cleanup, gw_wev_ref(ev));
    return true;
}

/* kube's watch of Tables: one Table per event; only the first carries column definitions. */
static bool
add_table(watch_t *st, const char *type, const char *obj, size_t len)
{
    json_t *doc = json_loadb(obj, len, 0, NULL);

    if (doc == NULL)
        return false;
    gw_registry__serve_as(doc, st->resource);
    if (queued(st, type, doc, true)) {
        json_decref(doc);
        return true;
    }
    return table_event(st, type, doc);
}

/* A Table event of doc (stolen). */
static bool
table_event(watch_t *st, const char *type, json_t *doc)
{
    json_t *items, *meta, *table;
    bool ok;

    items = json_pack("[o]", doc);
    meta = json_pack("{s:O?}", "resourceVersion",
                     json_object_get(json_object_get(doc, "metadata"), "resourceVersion"));
    table = gw_registry__table_of(st->r, items, meta, st->include);
    if (st->table_headers)
        json_object_set_new(table, "columnDefinitions", json_null());
    st->table_headers = true;
    ok = add_doc(st, type, table);
    json_decref(table);
    json_decref(meta);
    json_decref(items);
    return ok;
}

/* One object event of `type` with the object's encoded bytes. */
static bool
add_object(watch_t *st, const char *type, const char *obj, size_t len)
{
    if (st->table)
        return add_table(st, type, obj, len);
    return add_line(st, type, obj, len);
}

static void
add_bookmark(watch_t *st, int64_t rev, bool initial_end)
{
    char text[24]; /* not in the arena: a watch sends bookmarks for as long as it lasts */
    json_t *meta, *obj;

    snprintf(text, sizeof(text), "%" PRId64, rev);
    meta = json_pack("{s:s}", "resourceVersion", text);
    obj = json_pack("{s:s,s:s,s:o}", "kind", st->resource->kind, "apiVersion",
                    st->resource->api_version, "metadata", meta);

    if (initial_end)
        json_object_set_new(meta, "annotations", json_pack("{s:s}", INITIAL_EVENTS_END, "true"));
    add_doc(st, "BOOKMARK", obj);
    json_decref(obj);
    st->sent = rev;
}

/* An ERROR event with a Status, then the end. details is stolen. */
static void
fail(watch_t *st, int code, const char *reason, json_t *details, const char *message)
{
    json_t *status =
        json_pack("{s:s,s:s,s:{},s:s,s:s,s:s}", "kind", "Status", "apiVersion", "v1", "metadata",
                  "status", "Failure", "message", message, "reason", reason);

    if (details != NULL)
        json_object_set_new(status, "details", details);
    json_object_set_new(status, "code", json_integer(code));
    add_doc(st, "ERROR", status);
    json_decref(status);
    flush(st);
    watch_end(st);
}

static void
fail_err(watch_t *st, int err)
{
    char msg[256];

    if (err == GW_ECOMPACTED) {
        snprintf(msg, sizeof(msg), "too old resource version: %" PRId64, st->after);
        fail(st, 410, "Expired", NULL, msg);
    } else if (err == GW_EUNAVAILABLE || err == GW_ETIMEOUT) {
        fail(st, err == GW_ETIMEOUT ? 504 : 503,
             err == GW_ETIMEOUT ? "Timeout" : "ServiceUnavailable", NULL, gw_strerror(err));
    } else {
        snprintf(msg, sizeof(msg), "Internal error occurred: %s", gw_strerror(err));
        fail(st, 500, "InternalError", NULL, msg);
    }
}

/* kube's "too large resource version" for a start that etcd has not reached. */
static void
fail_too_large(watch_t *st, int64_t current)
{
    char msg[160];
    json_t *details =
        json_pack("{s:[{s:s,s:s}],s:i}", "causes", "reason", "ResourceVersionTooLarge", "message",
                  "Too large resource version", "retryAfterSeconds", 1);

    snprintf(msg, sizeof(msg),
             "Timeout: Too large resource version: %" PRId64 ", current: %" PRId64, st->rv,
             current);
    fail(st, 504, "Timeout", details, msg);
}

/* ---- filtering ----------------------------------------------------------------------------- */

typedef struct {
    const watch_t *st;
    const gw_wev_attrs_t *attrs;
} attr_src_t;

static const char *
attr_value(const char *field, void *arg)
{
    attr_src_t *src = arg;

    for (size_t i = 0; src->st->field_names[i] != NULL; i++) {
        if (strcmp(src->st->field_names[i], field) == 0)
            return src->attrs->values[i];
    }
    return NULL;
}

/* Whether a state passes the watch's name and selectors (field_names[0] is metadata.name). */
static bool
matches(const watch_t *st, const gw_wev_attrs_t *a)
{
    attr_src_t src = {st, a};

    if (a->values == NULL)
        return false;
    if (st->name[0] != '\0' && (a->values[0] == NULL || strcmp(a->values[0], st->name) != 0))
        return false;
    return gw_label_selector_match(&st->labels, a->labels) &&
           gw_field_selector_match(&st->fields, attr_value, &src);
}

/* kube's cacheWatcher.convertToWatchEvent: the event as this watcher sees it, the shared line
 * when its type stands, else recomposed (an object entering or leaving the selection). */
static bool
add_event(watch_t *st, const gw_wev_t *e)
{
    bool cur = e->type != GW_WATCH_DELETED && matches(st, &e->cur);
    bool old = e->prev != NULL && matches(st, &e->old);
    const char *type = cur && old ? "MODIFIED" : cur ? "ADDED" : "DELETED";
    bool natural = (cur && old && e->type == GW_WATCH_MODIFIED) ||
                   (cur && !old && e->type == GW_WATCH_ADDED) ||
                   (!cur && old && e->type == GW_WATCH_DELETED);
    size_t len;
    char *prev;
    bool ok;

    if (!cur && !old)
        return true;
    if (natural && !st->table)
        return add_shared(st, e);
    if (cur || e->type == GW_WATCH_DELETED)
        return add_object(st, type, e->obj, e->obj_len);
    /* Left the selection: its previous state, at this change's revision. */
    prev = gw_registry__with_rv(e->prev, e->prev_len, e->rev, &len);
    ok = prev != NULL && add_object(st, type, prev, len);
    free(prev);
    return ok;
}

static void subscribe(watch_t *st, int64_t after);

/* The client took everything queued: go on from where the paused watch was. */
static void
on_resumable(void *arg)
{
    watch_t *st = arg;

    st->slow_ms = 0;
    subscribe(st, st->sent);
}

static void rearm(watch_t *st);

/* More than the queue limit waits on the connection: leave the shared watch (nothing more is
 * queued) while the stream writer waits for the client to take it all (on_resumable), then
 * subscribe again from the last resourceVersion sent (from the window, or etcd); a client that
 * does not is ended. A burst (a window replayed at once) costs a pause, never unbounded
 * memory. */
static void
pause_watch(watch_t *st)
{
    gw_watcher_stop(st->w);
    st->w = NULL;
    st->slow_ms = gw_timers_now_ms() + SLOW_WAIT_S * 1000;
    rearm(st);
}

static void
on_event(watch_t *st, const gw_wev_t *e)
{
    if (!add_event(st, e)) {
        fail_err(st, GW_EINTERNAL);
        return;
    }
    st->sent = e->rev;
    if (gw_stream_flush(st->s, gw_watch_queue_limit(st->watches), on_resumable, st))
        pause_watch(st);
}

static void
on_note(const gw_watcher_note_t *n, void *arg)
{
    watch_t *st = arg;

    if (n->kind == GW_WATCHER_EVENT) {
        on_event(st, n->ev);
    } else if (n->kind == GW_WATCHER_PROGRESS) {
        /* The next bookmark carries it; kube sends bookmarks on each watcher's own schedule. */
        if (n->rev > st->known)
            st->known = n->rev;
    } else {
        st->w = NULL;
        if (n->err == GW_ECOMPACTED) {
            char msg[160];
            snprintf(msg, sizeof(msg), "too old resource version: %" PRId64 " (%" PRId64 ")",
                     st->after, n->rev - 1);
            fail(st, 410, "Expired", NULL, msg);
        } else {
            watch_end(st); /* the client watches again from what it got */
        }
    }
}

static void
subscribe(watch_t *st, int64_t after)
{
    gw_watcher_req_t q = {
        .collection = st->collection,
        .key_prefix = strcmp(st->prefix, st->collection) != 0 ? st->prefix : NULL,
        .after_rev = after,
        .fields = st->field_names,
        .encode = gw_registry__with_rv,
    };

    st->after = after;
    st->known = 0; /* a progress note speaks for the subscription it came on */
    if (st->sent < after)
        st->sent = after;
    st->w = gw_watcher_start(st->watches, &q, on_note, st);
    if (st->w == NULL) {
        fail_err(st, GW_EINTERNAL);
        return;
    }
    /* initialised: its initial events are written, it follows changes from here */
    if (st->r != NULL)
        gw_req_watch_initialized(st->r);
    /* From here on events are encoded from what the watch keeps: the request can go (but for
     * Tables and webhook conversions, which are the request's work). */
    if (!st->table && !st->webhook && gw_stream_detach(st->s))
        st->r = NULL;
}

/* ---- initial events ----------------------------------------------------------------------- */

/* One listed object as a synthetic ADDED, when it passes the watch's name and selectors. */
static bool
add_item(watch_t *st, const gw_obj_t *obj)
{
    gw_watch_event_t ev = {.type = GW_WATCH_ADDED, .revision = obj->mod_revision, .obj = obj};
    gw_wev_t *e;
    char *bytes;
    size_t len;
    bool ok;

    if (st->only_key != NULL && strcmp(obj->key, st->only_key) != 0)
        return true;
    if (st->name[0] == '\0' && st->labels.n == 0 && st->fields.n == 0) {
        bytes =
            gw_registry__with_rv((const char *)obj->value, obj->value_len, obj->mod_revision, &len);
        ok = bytes != NULL && add_object(st, "ADDED", bytes, len);
        free(bytes);
        return ok;
    }
    e = gw_wev_new(&ev, st->field_names, gw_registry__with_rv);
    ok = e != NULL && (!matches(st, &e->cur) || add_object(st, "ADDED", e->obj, e->obj_len));
    gw_wev_unref(e);
    return ok;
}

static bool
add_items(watch_t *st, const gw_list_page_t *page)
{
    for (size_t i = 0; i < page->n_items; i++) {
        if (!add_item(st, &page->items[i]))
            return false;
    }
    return true;
}

static void
on_drained(void *arg)
{
    list_page(arg);
}

/* The initial list is over: its bookmark, then the changes since its revision. */
static void
listed(watch_t *st)
{
    if (st->bookmarks)
        add_bookmark(st, st->list_rev, true);
    flush(st);
    subscribe(st, st->list_rev);
}

static void
got_page(int err, const gw_list_page_t *page, void *arg)
{
    watch_t *st = arg;

    st->page_pending = false;
    if (st->ended) {
        watch_end(st);
        return;
    }
    if (err == 0 && page->revision < st->rv) {
        fail_too_large(st, page->revision);
        return;
    }
    if (err != 0 || !add_items(st, page)) {
        fail_err(st, err != 0 ? err : GW_EINTERNAL);
        return;
    }
    st->list_rev = page->revision;
    if (!page->more || st->only_key != NULL) {
        listed(st);
        return;
    }
    st->list_start = gw_arena_strdup(st->r->arena, page->next_key);
    if (!gw_stream_flush(st->s, GW_STREAM_HIGH_WATER, on_drained, st))
        list_page(st); /* else once the client took what is queued */
}

static void
list_page(watch_t *st)
{
    gw_list_req_t q = {.prefix = st->prefix,
                       .start_key = st->only_key != NULL ? st->only_key : st->list_start,
                       .revision = st->list_rev,
                       .limit = st->only_key != NULL ? 1 : CHUNK,
                       .collection = st->collection,
                       .relaxed = st->list_any};
    int rc;

    if (st->ended) {
        watch_end(st);
        return;
    }
    st->page_pending = true;
    rc = gw_store_list(st->r->store, &q, got_page, st);
    if (rc != 0) {
        st->page_pending = false;
        fail_err(st, GW_EINTERNAL);
    }
}

static void
got_revision(int err, int64_t rev, void *arg)
{
    watch_t *st = arg;

    st->page_pending = false;
    if (st->ended)
        watch_end(st);
    else if (err != 0)
        fail_err(st, err);
    else
        subscribe(st, rev);
}

/* ---- options ------------------------------------------------------------------------------- */

/* kube's query conversion of booleans: present and neither "0" nor "false" (any case). */
static bool
query_bool(gw_req_t *r, const char *key, bool *present)
{
    const char *v = gw_req_query(r, key);

    if (present != NULL)
        *present = v != NULL;
    return v != NULL && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

/* kube's SetListOptionsDefaults (WatchList on, as in v1.32) and the watch half of
 * ValidateListOptions; false after answering 422. */
static bool
check_versions(watch_t *st, const char *rv, const char *match)
{
    static const char *const supported[] = {"NotOlderThan", NULL};
    const char *cont = gw_req_query(st->r, "continue");
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};
    bool has_sie;

    st->initial = query_bool(st->r, "sendInitialEvents", &has_sie);
    if (match == NULL)
        match = "";
    if (!has_sie && match[0] == '\0' && (rv == NULL || rv[0] == '\0' || strcmp(rv, "0") == 0)) {
        st->initial = has_sie = true;
        match = "NotOlderThan";
    }
    if (has_sie && strcmp(match, "NotOlderThan") != 0)
        gw_ferr_forbidden(
            &errs, "resourceVersionMatch",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    if (match[0] != '\0' && !has_sie)
        gw_ferr_forbidden(&errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                          "provided");
    if (match[0] != '\0' && strcmp(match, "NotOlderThan") != 0)
        gw_ferr_not_supported(&errs, "resourceVersionMatch", match, supported);
    if (match[0] != '\0' && cont != NULL && cont[0] != '\0')
        gw_ferr_forbidden(&errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden when continue is provided");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(st->r, &f, "meta.k8s.io", "ListOptions", "", &errs);
    gw_registry__reply_fail(st->r, &f);
    return false;
}

static bool
parse_numbers(watch_t *st, const char *rv)
{
    gw_req_t *r = st->r;
    const char *ts = gw_req_query(r, "timeoutSeconds");

    if (rv != NULL && rv[0] != '\0' && (!gw_registry__parse_int(rv, &st->rv) || st->rv < 0)) {
        gw_reply_status(r, 400, "BadRequest", NULL, "invalid resource version: %s", rv);
        return false;
    }
    if (ts != NULL && ts[0] != '\0' && !gw_registry__parse_int(ts, &st->timeout_s)) {
        gw_reply_status(r, 400, "BadRequest", NULL,
                        "strconv.ParseInt: parsing \"%s\": invalid syntax", ts);
        return false;
    }
    return true;
}

static bool
parse_include(watch_t *st)
{
    const char *inc = gw_req_query(st->r, "includeObject");

    st->include = GW_TABLE_INCLUDE_METADATA;
    if (!st->table || inc == NULL || inc[0] == '\0' || strcmp(inc, "Metadata") == 0)
        return true;
    if (strcmp(inc, "None") == 0 || strcmp(inc, "Object") == 0) {
        st->include = inc[0] == 'N' ? GW_TABLE_INCLUDE_NONE : GW_TABLE_INCLUDE_OBJECT;
        return true;
    }
    gw_reply_status(st->r, 400, "BadRequest", NULL, "unrecognized includeObject value: \"%s\"",
                    inc);
    return false;
}

/* The strings the watch needs for as long as it lasts, in one block of its own. */
static void
keep_strings(watch_t *st, const char *collection, const char *prefix, const char *name,
             const char *only_key)
{
    const char *v[] = {collection, prefix, name, only_key};
    const char **out[] = {&st->collection, &st->prefix, &st->name, &st->only_key};
    size_t k = only_key != NULL ? 4 : 3, n[4], total = 0; /* only_key stays NULL without one */
    char *at;

    for (size_t i = 0; i < k; i++)
        total += n[i] = strlen(v[i]) + 1;
    at = gw_malloc(total);
    for (size_t i = 0; i < k; i++) {
        *out[i] = memcpy(at, v[i], n[i]);
        at += n[i];
    }
}

static bool
parse_options(watch_t *st)
{
    gw_req_t *r = st->r;
    const char *rv = gw_req_query(r, "resourceVersion");
    const char *prefix, *only_key;
    char *all;

    if (!gw_registry__parse_selectors(r, &st->labels, &st->fields) ||
        !check_versions(st, rv, gw_req_query(r, "resourceVersionMatch")) || !parse_numbers(st, rv))
        return false;
    st->bookmarks = query_bool(r, "allowWatchBookmarks", NULL);
    st->list_any = rv != NULL && strcmp(rv, "0") == 0;
    st->field_names = gw_registry__selectable_fields(r->resource);
    prefix = gw_registry__collection_prefix(r, &st->fields);
    if (prefix == NULL) {
        gw_registry__reply_no_route(r);
        return false;
    }
    all = gw_store_collection_prefix(r->resource->storage_path, NULL);
    only_key =
        r->info.name[0] != '\0' && (!r->resource->namespaced || r->info.namespace_[0] != '\0')
            ? gw_registry__object_key(r, r->info.name)
            : NULL;
    keep_strings(st, all, prefix, r->info.name, only_key);
    free(all);
    st->table = r->accept == GW_MEDIA_TABLE;
    st->protobuf = r->accept == GW_MEDIA_PROTOBUF;
    st->cbor = r->accept == GW_MEDIA_CBOR;
    st->convert = gw_convert_is_spoke(r->resource->api_version, strlen(r->resource->api_version),
                                      r->resource->kind, strlen(r->resource->kind)) ||
                  gw_registry__custom_rewrites(r->resource);
    st->partial = r->as == GW_AS_PARTIAL;
    st->webhook = gw_registry__converts_by_webhook(r->resource) && st->convert;
    st->queue = st->webhook ? json_array() : NULL;
    return parse_include(st);
}

/* ---- periodic bookmarks -------------------------------------------------------------------- */

/* kube's cacheWatcher.nextBookmarkTime: a minute from now, or 2 s before the deadline when
 * that comes first; none once that moment has passed. */
static void
arm_mark(watch_t *st)
{
    int64_t now = gw_timers_now_ms(), next = now + gw_watch_bookmark_ms(st->watches);

    st->mark_is_last = st->end_ms - BOOKMARK_BEFORE_END_MS <= next;
    if (st->mark_is_last)
        next = st->end_ms - BOOKMARK_BEFORE_END_MS;
    st->mark_ms = next < now ? 0 : next;
}

/* The cacher's bookmark: the newest revision known for the collection (events this watch
 * filtered out included), sent when it is past where the watch started, so that a client
 * resumes from there. A periodic one is sent only when it moves the client on; the one before
 * the deadline always is. */
static void
bookmark_due(watch_t *st)
{
    int64_t rev = st->known > st->sent ? st->known : st->sent;

    st->mark_ms = 0;
    if (st->w != NULL && rev > st->after && (st->mark_is_last || rev > st->sent)) {
        add_bookmark(st, rev, false);
        flush(st);
    }
    if (!st->mark_is_last)
        arm_mark(st);
}

/* The timer set for the earliest moment due. */
static void
rearm(watch_t *st)
{
    int64_t next = st->end_ms;

    if (st->mark_ms != 0 && st->mark_ms < next)
        next = st->mark_ms;
    if (st->slow_ms != 0 && st->slow_ms < next)
        next = st->slow_ms;
    gw_timer_set(st->timers, &st->timer, next);
}

static void
on_timer(gw_timer_t *t)
{
    watch_t *st = (watch_t *)((char *)t - offsetof(watch_t, timer));
    int64_t now = gw_timers_now_ms();

    /* The client did not take what was queued in time: kube ends a watcher that cannot keep
     * up, and the client resumes from what it got. */
    if (st->slow_ms != 0 && now >= st->slow_ms) {
        gw_log_info(gw_stream_audit_id(st->s),
                    "ending a watch of %s whose client reads too slowly (%zu bytes queued)",
                    st->collection, gw_stream_queued(st->s));
        watch_end(st);
        return;
    }
    if (now >= st->end_ms) {
        watch_end(st);
        return;
    }
    if (st->mark_ms != 0 && now >= st->mark_ms)
        bookmark_due(st);
    rearm(st);
}

/* ---- the verb ------------------------------------------------------------------------------ */

/* kube's watch timeout: timeoutSeconds, else --min-request-timeout times a random factor in
 * [1, 2) so that watches opened together do not all end together. */
static void
arm_timer(watch_t *st)
{
    double s = st->timeout_s != 0 ? (double)st->timeout_s
                                  : MIN_REQUEST_TIMEOUT_S * (1.0 + (double)random() / RAND_MAX);
    st->timers = gw_worker_timers(st->r->worker);
    gw_timer_init(&st->timer, on_timer);
    st->end_ms = gw_timers_now_ms() + (s > 0 ? (int64_t)(s * 1000) : 0);
    if (st->bookmarks)
        arm_mark(st);
    rearm(st);
}

/* The stream of events, never gzipped (as kgate has always answered watches). */
static void
begin(watch_t *st)
{
    st->s = gw_stream_start(st->r,
                            st->cbor       ? CBOR_CONTENT_TYPE
                            : st->protobuf ? PROTOBUF_CONTENT_TYPE
                                           : CONTENT_TYPE,
                            false, on_stop, st);
    count_watcher(st, 1);
    arm_timer(st);
    if (st->initial) {
        list_page(st);
    } else if (st->rv > 0) {
        subscribe(st, st->rv);
    } else {
        st->page_pending = true;
        if (gw_store_current_revision(st->r->store, got_revision, st) != 0) {
            st->page_pending = false;
            fail_err(st, GW_EINTERNAL);
        }
    }
}

/* Whether the watch can be served, or the answer that says why it cannot (sent here). */
static bool
servable(watch_t *st)
{
    gw_req_t *r = st->r;

    if (!parse_options(st))
        return false;
    /* Watch streams come in JSON and protobuf: YAML has no stream framing in kube either. */
    if (r->accept == GW_MEDIA_YAML) {
        gw_reply_status(r, 406, "NotAcceptable", NULL,
                        "only the following media types are accepted: %s",
                        r->cbor ? GW_NEG_STREAMED_CBOR : GW_NEG_STREAMED);
        return false;
    }
    if (r->as == GW_AS_PARTIAL_LIST) {
        char pkg[64];
        gw_reply_status(r, 406, "NotAcceptable", NULL,
                        "you requested PartialObjectMetadataList, but the requested object is "
                        "not a list (*%s.%s)",
                        gw_partial_go_package(r->resource->group, pkg), r->resource->kind);
        return false;
    }
    if (r->watches == NULL) {
        gw_reply_error(r, GW_EUNAVAILABLE, NULL);
        return false;
    }
    return true;
}

void
gw_registry__watch(gw_req_t *r)
{
    /* Not in the request's arena: the watch may outlive the request. */
    watch_t *st = gw_calloc(1, sizeof(*st));

    st->r = r;
    st->resource = r->resource;
    st->as_version = r->as_version;
    st->watches = r->watches;
    if (!servable(st)) {
        watch_free(st);
        return;
    }
    begin(st);
}
