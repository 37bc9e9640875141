/*
 * LIST of a collection, as kube-apiserver's etcd3 store pages it (storage/etcd3/store.go
 * GetList): etcd is read in bounded chunks at one pinned revision, items are filtered by the
 * label and field selectors and appended, already encoded, to the answer; limit counts
 * matching items; continue tokens carry the revision and the next key; remainingItemCount is
 * only known without selectors.
 *
 * A JSON answer without a limit is streamed once it outgrows STREAM_MIN: its ListMeta (the
 * revision alone then) is known from the first chunk, so the head goes out with the items
 * taken so far, then each chunk's items as they come; with more than GW_STREAM_HIGH_WATER
 * queued on the connection the next chunk is read only once the client has taken it all. It
 * is gzipped on the fly when the client accepts gzip (it is past kube's compression threshold
 * by then; the stream writer, gw_stream_*, compresses and frames what this file encodes), and
 * a pretty answer (curl's) has its items re-encoded one by one. So a list holds one chunk of
 * etcd data and its encoding plus what its connection has queued, whatever the collection's
 * size. A failure once the answer is under way can no longer be a Status: the stream is cut
 * short, and the client's decoder reports the truncated document. Smaller answers, answers
 * with a limit (their continue token is known last), Tables and YAML are built whole and
 * answered with a length.
 *
 * The list verb writes its items in the negotiated form as they are read (gw_registry_items.c):
 * JSON or protobuf, objects or PartialObjectMetadata. A protobuf answer's envelope states its
 * length before the items, so one that outgrows STREAM_MIN is read twice at its revision: a
 * first pass encodes and counts the items without keeping them, the second streams them.
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_continue.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_partial.h"
#include "gw_selector.h"

/* Items read from etcd per round trip. */
#define CHUNK 500
/* Encoded items an unlimited answer may gather before it is streamed: kube-apiserver's
 * compression threshold, so a streamed answer is one kube would have compressed too. */
#define STREAM_MIN (128 * 1024)

struct gw_lister {
    gw_req_t *r;
    gw_selector_t labels, fields;
    bool filtered;      /* a selector is in force */
    int64_t limit;      /* matching items per answer; 0: all */
    int64_t min_rv;     /* resourceVersion N, not-older-than */
    bool relaxed;       /* resourceVersion "0" or N: not the latest (a read cache may answer) */
    int64_t rev;        /* the pinned revision (0 until the first chunk) */
    bool continued;     /* the request carried a continue token */
    const char *prefix; /* the collection's relative prefix */
    const char *start;  /* where the next chunk starts (NULL: the prefix) */
    int64_t count;      /* items taken */
    gw_items_t form;    /* how items are written (the list verb: as negotiated) */
    gw_buf_t items;     /* the items taken (streamed: those not yet sent) */
    json_t *docs;       /* the items as documents, for a Table */
    json_t *names;      /* the items' names, when asked */
    char *token;        /* the answer's continue token */
    int64_t remaining;  /* the answer's remainingItemCount, or -1 */
    gw_list_done_fn done;
    void *arg;
    bool may_stream; /* the list verb's own answer (not deletecollection's) */
    /* a streamed answer */
    gw_stream_t *stream; /* once the answer is streamed */
    bool sent_item;      /* an item went out (the next needs a comma) */
    bool waiting;        /* for the client to take what is queued */
    bool no_wait;        /* told to stop: never wait for the client again */
    /* a streamed protobuf answer: the first pass only counts the items' bytes */
    bool sizing;
    size_t sized;      /* the items' bytes counted by the first pass */
    size_t sent_bytes; /* the items' bytes the second pass sent */
    /* a CRD whose webhook converts the items: a page's matches go out in one review */
    bool convert;
    json_t *pending; /* this page's matching items, in the storage version */
    int after;       /* what follows the page (page_end's `what`) */
    const char *after_key;
    int64_t after_remaining;
};

static void
lister_free(void *p)
{
    gw_lister_t *l = p;

    gw_selector_clear(&l->labels);
    gw_selector_clear(&l->fields);
    free(l->items.data);
    json_decref(l->docs);
    json_decref(l->names);
    json_decref(l->pending);
    free(l->token);
}

/* ---- field selectors ---------------------------------------------------------------------- */

/* The kinds' selectable fields and their values are gw_registry_fields.c's. */
typedef struct {
    const json_t *doc;
    const char *const *labels;
    char *vals[32]; /* the values handed out, freed after the match */
    size_t n;
} field_src_t;

static const char *
field_value(const char *field, void *arg)
{
    field_src_t *src = arg;

    if (src->n == sizeof(src->vals) / sizeof(src->vals[0]))
        return NULL;
    src->vals[src->n] = gw_registry__field_text(src->labels, field, src->doc);
    return src->vals[src->n++];
}

static bool
fields_match(const gw_lister_t *l, const json_t *doc)
{
    field_src_t src = {.doc = doc, .labels = gw_registry__selectable_fields(l->r->resource)};
    bool ok = gw_field_selector_match(&l->fields, field_value, &src);

    for (size_t i = 0; i < src.n; i++)
        free(src.vals[i]);
    return ok;
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
        if (!gw_registry__field_supported(r->resource, fields->reqs[i].key, err, sizeof(err))) {
            gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
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

/* kube's ValidateListOptions on resourceVersionMatch (set). */
static void
match_errors(gw_field_errors_t *errs, const char *rv, const char *match, const char *cont)
{
    static const char *const values[] = {"Exact", "NotOlderThan", "", NULL};

    if (rv == NULL || rv[0] == '\0')
        gw_ferr_forbidden(errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (cont != NULL && cont[0] != '\0')
        gw_ferr_forbidden(errs, "resourceVersionMatch",
                          "resourceVersionMatch is forbidden when continue is provided");
    if (strcmp(match, "Exact") != 0 && strcmp(match, "NotOlderThan") != 0)
        gw_ferr_not_supported(errs, "resourceVersionMatch", match, values);
    if (strcmp(match, "Exact") == 0 && rv != NULL && strcmp(rv, "0") == 0)
        gw_ferr_forbidden(errs, "resourceVersionMatch",
                          "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
}

/* kube's ValidateListOptions for a list: the resourceVersionMatch combinations, and
 * sendInitialEvents (given at all, whatever its value) refused as a watch-only option. */
static bool
check_match(gw_lister_t *l, const char *rv, const char *match, const char *cont)
{
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};

    if (match != NULL && match[0] != '\0')
        match_errors(&errs, rv, match, cont);
    if (gw_req_query(l->r, "sendInitialEvents") != NULL)
        gw_ferr_forbidden(&errs, "sendInitialEvents", "sendInitialEvents is forbidden for list");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(l->r, &f, "meta.k8s.io", "ListOptions", "", &errs);
    gw_registry__reply_fail(l->r, &f);
    return false;
}

/* kube's etcd3 store reads the token before it looks at the resourceVersion. */
static bool
apply_continue(gw_lister_t *l, const char *rv, const char *cont)
{
    char err[512], *start;
    int64_t rev;

    if (gw_continue_decode(cont, &rev, &start, err, sizeof(err)) != 0) {
        gw_reply_status(l->r, 400, "BadRequest", NULL, "invalid continue token: %s", err);
        return false;
    }
    if (rv != NULL && rv[0] != '\0' && strcmp(rv, "0") != 0) {
        free(start);
        gw_reply_status(l->r, 400, "BadRequest", NULL,
                        "specifying resource version is not allowed when using continue");
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
    if (rv == NULL || rv[0] == '\0')
        return true;
    l->relaxed = true;
    if (strcmp(rv, "0") == 0)
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

/* Field selectors with more requirements than this parse the whole object. */
#define MAX_VIEW_FIELDS 8

/* ---- paging ------------------------------------------------------------------------------- */

/* The top-level members of obj that the selectors read (metadata, and the first part of each
 * field selector's path), parsed alone; NULL when the bytes need a full parse. */
static json_t *
selector_view(const gw_lister_t *l, const gw_obj_t *obj)
{
    const char *names[1 + MAX_VIEW_FIELDS];
    char part[MAX_VIEW_FIELDS][64];
    size_t n = 0;

    if (l->fields.n == 0)
        return gw_registry__parse_labels((const char *)obj->value, obj->value_len);
    if (gw_registry__fields_whole(l->r->resource))
        return NULL;
    names[n++] = "metadata";
    for (size_t i = 0; i < l->fields.n; i++) {
        size_t len = strcspn(l->fields.reqs[i].key, ".");
        if (n > MAX_VIEW_FIELDS || len >= sizeof(part[0]))
            return NULL;
        snprintf(part[n - 1], sizeof(part[0]), "%.*s", (int)len, l->fields.reqs[i].key);
        names[n] = part[n - 1];
        n++;
    }
    return gw_registry__parse_members((const char *)obj->value, obj->value_len, names, n);
}

/* Take one item if it matches; false when its bytes are not an object. */
static bool
take(gw_lister_t *l, const gw_obj_t *obj)
{
    json_t *doc = NULL;
    bool ok = true;

    if (l->filtered || l->docs != NULL || l->names != NULL) {
        doc = l->docs == NULL && l->names == NULL ? selector_view(l, obj) : NULL;
        if (doc == NULL)
            doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len,
                                            obj->mod_revision, NULL);
        if (doc == NULL)
            return false;
        if (!gw_label_selector_match(&l->labels,
                                     json_object_get(json_object_get(doc, "metadata"), "labels")) ||
            !fields_match(l, doc)) {
            json_decref(doc);
            return true;
        }
    }
    l->count++;
    if (l->names != NULL)
        json_array_append_new(l->names, json_string(gw_objmeta_str(doc, "name")));
    if (l->convert) {
        /* held whole (a selector's view is partial) until the page's review answers */
        json_t *full = l->docs != NULL
                           ? json_incref(doc)
                           : gw_registry__parse_stored((const char *)obj->value, obj->value_len,
                                                       obj->mod_revision, NULL);
        ok = full != NULL;
        if (ok)
            json_array_append_new(l->pending, full);
    } else if (l->docs != NULL) {
        gw_registry__serve_as(doc, l->r->resource); /* selectors read the stored version */
        json_array_append(l->docs, doc);
    } else
        ok = gw_registry__items_add(&l->form, &l->items, obj);
    json_decref(doc);
    return ok;
}

/* The answer's ListMeta: the revision, and where paging goes on. */
static json_t *
list_meta(gw_lister_t *l)
{
    json_t *meta =
        json_pack("{s:s}", "resourceVersion", gw_arena_sprintf(l->r->arena, "%" PRId64, l->rev));

    if (l->token != NULL)
        json_object_set_new(meta, "continue", json_string(l->token));
    if (l->remaining > 0)
        json_object_set_new(meta, "remainingItemCount", json_integer(l->remaining));
    return meta;
}

static void stream_finish(gw_lister_t *l);
static void stream_start(gw_lister_t *l);
static void fetch(gw_lister_t *l);

/* The first pass of a streamed protobuf answer is over: its length is known, so the answer
 * starts, and the second pass reads the collection again at the same revision. */
static void
sized(gw_lister_t *l)
{
    l->sized += l->items.len;
    l->items.len = 0;
    l->sizing = false;
    stream_start(l);
    l->start = NULL;
    fetch(l);
}

static void
finish(gw_lister_t *l)
{
    json_t *meta;
    gw_buf_t body = {0};

    if (l->sizing) {
        sized(l);
        return;
    }
    if (l->stream != NULL) {
        stream_finish(l);
        return;
    }
    meta = list_meta(l);
    if (l->docs != NULL) {
        l->done(l->r, NULL, l->docs, meta, l->names, l->arg);
        json_decref(meta);
        return;
    }
    gw_registry__items_head(&l->form, &body, meta, l->items.len);
    gw_buf_add(&body, l->items.data ? l->items.data : "", l->items.len);
    gw_registry__items_tail(&l->form, &body);
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

/* ---- streamed answers ---------------------------------------------------------------------- */

/* One item of a pretty answer: as the whole document's encoder would lay it out, two spaces a
 * level, the item two levels deep. */
static void
stream_pretty_item(gw_lister_t *l, const json_t *item)
{
    char *text = json_dumps(item, JSON_INDENT(2));

    if (l->sent_item)
        gw_stream_add(l->stream, ",\n    ", 6);
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        gw_stream_add(l->stream, p, n);
        p += n;
        if (*p == '\n') {
            gw_stream_add(l->stream, "\n    ", 5);
            p++;
        }
    }
    free(text);
    l->sent_item = true;
}

/* Queue the items taken and not yet sent (re-encoded one by one when pretty); false when they
 * do not parse back. */
static bool
stream_items(gw_lister_t *l)
{
    json_error_t err;
    size_t at = 0;

    if (!l->r->pretty && l->items.len > 0) {
        if (l->sent_item && !l->form.protobuf)
            gw_stream_add(l->stream, ",", 1);
        gw_stream_add(l->stream, l->items.data, l->items.len);
        l->sent_bytes += l->items.len;
        l->sent_item = true;
    }
    while (l->r->pretty && at < l->items.len) {
        json_t *item =
            json_loadb(l->items.data + at, l->items.len - at, JSON_DISABLE_EOF_CHECK, &err);
        if (item == NULL)
            return false;
        stream_pretty_item(l, item);
        json_decref(item);
        at += err.position + 1; /* and the comma */
    }
    l->items.len = 0;
    return true;
}

/* The stream ends short of its end: its client left, or a chunk could not be read. */
static void
stream_cut(gw_lister_t *l, int err)
{
    if (err != GW_ECANCELED)
        gw_log_warn(l->r->audit_id, "a streamed list of %s was cut short: %s", l->prefix,
                    gw_strerror(err));
    gw_stream_cut(l->stream);
}

static void
stream_finish(gw_lister_t *l)
{
    const char *end = l->r->pretty ? "\n  ]\n}" : "]}\n";
    gw_buf_t tail = {0};

    if (!stream_items(l) || (l->form.protobuf && l->sent_bytes != l->sized)) {
        stream_cut(l, GW_EINTERNAL);
        return;
    }
    if (l->form.protobuf) {
        gw_registry__items_tail(&l->form, &tail);
        gw_stream_add(l->stream, tail.data, tail.len);
        free(tail.data);
    } else {
        gw_stream_add(l->stream, end, strlen(end));
    }
    gw_stream_end(l->stream);
}

static void
on_drained(void *arg)
{
    gw_lister_t *l = arg;

    l->waiting = false;
    fetch(l);
}

/* The client left, or the server drains (told once): the answer never waits for the client
 * again; a chunk on its way decides when it comes. */
static void
on_stop(void *arg)
{
    gw_lister_t *l = arg;

    l->no_wait = true;
    if (!l->waiting)
        return;
    l->waiting = false;
    if (l->r->gone)
        stream_cut(l, GW_ECANCELED);
    else
        fetch(l);
}

/* Send what the last chunk gave, then read the next one: now, or once the client has taken
 * what is queued. */
static void
stream_page(gw_lister_t *l)
{
    if (!stream_items(l)) {
        stream_cut(l, GW_EINTERNAL);
        return;
    }
    if (gw_stream_flush(l->stream, GW_STREAM_HIGH_WATER, l->no_wait ? NULL : on_drained, l)) {
        l->waiting = true;
        return;
    }
    fetch(l);
}

/* Whether the answer goes out streamed from here on: JSON or protobuf, without a limit (so its
 * ListMeta is the revision alone, known now), with more gathered than is worth holding. */
static bool
streamable(const gw_lister_t *l)
{
    return l->may_stream && l->limit == 0 &&
           (l->r->accept == GW_MEDIA_JSON || l->r->accept == GW_MEDIA_PROTOBUF) &&
           gw_stream_allowed(l->r) && l->items.len >= STREAM_MIN;
}

/* The head of a pretty answer, as the whole document's encoder would lay it out. */
static void
add_pretty_head(gw_lister_t *l, gw_buf_t *b, json_t *meta)
{
    json_t *doc = json_pack("{s:s,s:s,s:O}", "kind", l->form.kind, "apiVersion",
                            l->form.api_version, "metadata", meta);
    char *text = json_dumps(doc, JSON_INDENT(2));

    gw_buf_add(b, text, strlen(text) - 2); /* without its closing "\n}" */
    gw_buf_str(b, ",\n  \"items\": [\n    ");
    free(text);
    json_decref(doc);
}

/* A 200 stream with the answer's head; gzipped when the client takes it. */
static void
stream_start(gw_lister_t *l)
{
    json_t *meta = list_meta(l);
    gw_buf_t head = {0};

    l->stream = gw_stream_start(l->r, gw_registry__items_type(&l->form), l->r->gzip, on_stop, l);
    if (l->r->pretty && !l->form.protobuf)
        add_pretty_head(l, &head, meta);
    else
        gw_registry__items_head(&l->form, &head, meta, l->sized);
    gw_stream_add(l->stream, head.data, head.len);
    free(head.data);
    json_decref(meta);
}

/* ---- reading ------------------------------------------------------------------------------- */

/* A failure: a Status while nothing is sent, else the stream is cut short. */
static void
list_fail(gw_lister_t *l, int err)
{
    if (l->stream != NULL)
        stream_cut(l, err);
    else if (err == GW_ECOMPACTED)
        expired(l);
    else
        gw_reply_error(l->r, err, "");
}

/* An item no transformer can read fails the whole list, as kube's: its etcd key and the
 * transformer's words. */
static void
list_unreadable(gw_lister_t *l, const gw_obj_t *obj)
{
    gw_fail_t f = {0};

    if (l->stream != NULL) {
        stream_cut(l, GW_EINTERNAL);
        return;
    }
    gw_registry__fail_unreadable(
        l->r, &f,
        gw_arena_sprintf(l->r->arena, "unable to transform key \"%s%s\": %s",
                         gw_store_prefix(l->r->store), obj->key, obj->unreadable));
    gw_registry__reply_fail(l->r, &f);
}

/* The chunk read, more to come and no limit reached: on to the next. */
static void
next_page(gw_lister_t *l, const char *next_key)
{
    l->start = gw_arena_strdup(l->r->arena, next_key);
    if (l->stream == NULL && !l->sizing && streamable(l)) {
        if (l->form.protobuf)
            l->sizing = true;
        else
            stream_start(l);
    }
    if (l->sizing) {
        l->sized += l->items.len;
        l->items.len = 0;
    }
    if (l->stream != NULL)
        stream_page(l);
    else
        fetch(l);
}

enum { AFTER_FINISH, AFTER_STOP, AFTER_NEXT };

static void
go_on(gw_lister_t *l, int what, const char *key, int64_t remaining)
{
    if (what == AFTER_FINISH)
        finish(l);
    else if (what == AFTER_STOP)
        stop_at(l, key, remaining);
    else
        next_page(l, key);
}

/* The page's review answered: its items are taken in the request's version. */
static void
page_converted(gw_req_t *r, const char *err, void *arg)
{
    gw_lister_t *l = arg;
    size_t i;
    json_t *doc;

    if (err != NULL) {
        if (l->stream != NULL) {
            gw_log_error(r->audit_id, "%s", err);
            stream_cut(l, GW_EINTERNAL);
        } else {
            gw_registry__reply_conversion_error(r, err);
        }
        return;
    }
    json_array_foreach(l->pending, i, doc)
    {
        if (l->docs != NULL)
            json_array_append(l->docs, doc);
        else if (!gw_registry__items_add_doc(&l->form, &l->items, doc)) {
            list_fail(l, GW_EINTERNAL);
            return;
        }
    }
    json_array_clear(l->pending);
    go_on(l, l->after, l->after_key, l->after_remaining);
}

/* The page is read: what follows waits for its items' conversion, if any. */
static void
page_end(gw_lister_t *l, int what, const char *key, int64_t remaining)
{
    if (!l->convert || json_array_size(l->pending) == 0) {
        go_on(l, what, key, remaining);
        return;
    }
    l->after = what;
    l->after_key = key != NULL ? gw_arena_strdup(l->r->arena, key) : NULL;
    l->after_remaining = remaining;
    gw_registry__webhook_convert(l->r, l->pending, l->r->resource->api_version, true,
                                 page_converted, l);
}

/* The first page again, after a wait for the store to reach min_rv. */
static void
fetch_again(void *arg)
{
    fetch(arg);
}

static void
got_page(int err, const gw_list_page_t *page, void *arg)
{
    gw_lister_t *l = arg;

    if (err == 0 && l->rev == 0 && page->revision < l->min_rv) {
        if (gw_registry__retry_future(l->r, fetch_again, l))
            return;
        err = GW_EFUTUREREV;
    }
    if (err == 0 && (l->stream != NULL || l->sizing) && l->r->gone)
        err = GW_ECANCELED; /* nobody to read the rest for */
    if (err != 0) {
        list_fail(l, err);
        return;
    }
    l->rev = page->revision;
    for (size_t i = 0; i < page->n_items; i++) {
        if (l->limit > 0 && l->count == l->limit) {
            page_end(l, AFTER_STOP, page->items[i].key,
                     (int64_t)(page->n_items - i) + page->remaining);
            return;
        }
        if (page->items[i].unreadable != NULL) {
            list_unreadable(l, &page->items[i]);
            return;
        }
        if (!take(l, &page->items[i])) {
            list_fail(l, GW_EINTERNAL);
            return;
        }
    }
    if (!page->more)
        page_end(l, AFTER_FINISH, NULL, 0);
    else if (l->limit > 0 && l->count == l->limit)
        page_end(l, AFTER_STOP, page->next_key, page->remaining);
    else
        page_end(l, AFTER_NEXT, page->next_key, 0);
}

static void
fetch(gw_lister_t *l)
{
    gw_list_req_t q = {.prefix = l->prefix,
                       .start_key = l->start,
                       .revision = l->rev,
                       .limit = CHUNK,
                       .collection = gw_registry__collection(l->r),
                       .relaxed = l->relaxed,
                       .min_revision = l->min_rv};
    int rc;

    /* Unfiltered, a chunk need not go past the limit. */
    if (!l->filtered && l->limit > 0 && l->limit - l->count < CHUNK)
        q.limit = l->limit - l->count;
    rc = gw_store_list(l->r->store, &q, got_page, l);
    if (rc != 0)
        list_fail(l, rc == GW_EINVAL ? GW_EINTERNAL : rc);
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

static void
list_start(gw_req_t *r, bool table, bool names, bool may_stream, gw_list_done_fn done, void *arg)
{
    gw_lister_t *l = gw_arena_calloc(r->arena, sizeof(*l));

    l->r = r;
    l->done = done;
    l->arg = arg;
    l->remaining = -1;
    l->may_stream = may_stream;
    l->docs = table ? json_array() : NULL;
    l->names = names ? json_array() : NULL;
    gw_registry__items_init(&l->form, r, may_stream);
    l->convert = gw_registry__converts_by_webhook(r->resource) && !l->form.partial &&
                 strcmp(r->resource->version, r->resource->custom->storage_version) != 0;
    l->pending = l->convert ? json_array() : NULL;
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

void
gw_registry__list_run(gw_req_t *r, bool table, bool names, gw_list_done_fn done, void *arg)
{
    list_start(r, table, names, false, done, arg);
}

/* ---- the list verb ------------------------------------------------------------------------ */

static void
reply_list(gw_req_t *r, const gw_buf_t *body, json_t *docs, json_t *meta, json_t *names, void *arg)
{
    json_t *table;

    gw_items_t form;

    (void)names;
    (void)arg;
    gw_registry__items_init(&form, r, true);
    if (body != NULL && (form.protobuf || (r->accept == GW_MEDIA_JSON && !r->pretty))) {
        gw_reply_raw(r, 200, gw_registry__items_type(&form), body->data, body->len);
        return;
    }
    if (body != NULL) {
        gw_reply_json_bytes(r, 200, body->data, body->len);
        return;
    }
    table = gw_registry__table(r, docs, meta);
    if (table != NULL)
        gw_reply_json(r, 200, table);
}

/* The list verb's JSON answers may stream (deletecollection's lists never do: they answer
 * after the deletions). */
void
gw_registry__list(gw_req_t *r)
{
    bool table = r->accept == GW_MEDIA_TABLE;

    char pkg[64];

    if (r->as == GW_AS_PARTIAL) {
        gw_reply_status(r, 406, "NotAcceptable", NULL,
                        "you requested PartialObjectMetadata, but the requested object is a list "
                        "(*%s.%s)",
                        gw_partial_go_package(r->resource->group, pkg), r->resource->list_kind);
        return;
    }
    list_start(r, table, false, !table, reply_list, NULL);
}
