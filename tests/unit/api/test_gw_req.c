/* The request context on a bare exchange (its lists and body, no transport): Warning headers with
 * kube's escaping and de-duplication, header replacement, and body decoding by Content-Type.
 * Answers are caught by recorders, so the test sees what would have been sent. */
#include "gw_req.c"

#include "gw_exchange_int.h"

#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>

#include "tap.h"

static int got_code;
static char got_reason[64];
static char got_message[512];

void
gw_reply_status(gw_req_t *r, int code, const char *reason, json_t *details, const char *fmt, ...)
{
    (void)r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(got_message, sizeof(got_message), fmt, ap);
    va_end(ap);
    got_code = code;
    snprintf(got_reason, sizeof(got_reason), "%s", reason);
    json_decref(details);
}

void
gw_reply_error(gw_req_t *r, int err, const char *name)
{
    (void)r, (void)name;
    got_code = err;
}

static gw_api__req_t p;
static gw_exchange_t x;
static struct evkeyvalq in_headers, out_headers;

static void
exchange_clear(void)
{
    evhttp_clear_headers(&in_headers);
    evhttp_clear_headers(&out_headers);
    TAILQ_INIT(&in_headers);
    TAILQ_INIT(&out_headers);
    if (x.body != NULL)
        evbuffer_free(x.body);
    x = (gw_exchange_t){.input_headers = &in_headers, .output_headers = &out_headers};
}

static gw_req_t *
request(const char *content_type, const char *body)
{
    exchange_clear();
    x.body = evbuffer_new();
    gw_arena_free(p.r.arena);
    p = (gw_api__req_t){0};
    p.r.x = &x;
    p.r.arena = gw_arena_new();
    if (content_type != NULL)
        evhttp_add_header(&in_headers, "Content-Type", content_type);
    evbuffer_add(x.body, body, strlen(body));
    got_code = 0;
    got_message[0] = '\0';
    return &p.r;
}

/* Every Warning header of the response, joined by '|'. */
static const char *
warnings(gw_req_t *r)
{
    static char all[1024];
    size_t n = 0;
    struct evkeyval *h;
    all[0] = '\0';
    TAILQ_FOREACH(h, gw_exchange_output_headers(r->x), next)
    {
        if (strcmp(h->key, "Warning") == 0)
            n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", n ? "|" : "", h->value);
    }
    return all;
}

static void
test_warnings(void)
{
    gw_req_t *r = request(NULL, "");
    gw_req_warning(r, "unknown field \"spec.foo\"");
    gw_req_warning(r, "path %s\\%d", "a", 1);
    gw_req_warning(r, "unknown field \"spec.foo\"");
    gw_req_warning(r, "%s", "");
    gw_req_warning(r, "line\nbreak");
    tap_is_str(warnings(r), "299 - \"unknown field \\\"spec.foo\\\"\"|299 - \"path a\\\\1\"",
               "299 warnings, quotes and backslashes escaped, each text once, empty and "
               "control-character texts dropped");
    gw_req_set_header(r, "ETag", "\"1\"");
    gw_req_set_header(r, "ETag", "\"2\"");
    const char *etag = evhttp_find_header(gw_exchange_output_headers(r->x), "ETag");
    tap_is_str(etag, "\"2\"", "a set header replaces the earlier value");
}

static void
test_bodies(void)
{
    gw_req_t *r = request(NULL, "{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\"}}");
    json_t *doc = gw_req_body_object(r, false, NULL);
    tap_ok(doc != NULL && strcmp(json_string_value(json_object_get(doc, "kind")), "ConfigMap") == 0,
           "no Content-Type: JSON");
    r = request("application/yaml", "kind: ConfigMap\ndata:\n  a: \"1\"\n");
    doc = gw_req_body_object(r, false, NULL);
    tap_ok(doc != NULL && json_is_object(json_object_get(doc, "data")), "YAML becomes JSON");
    r = request("application/json; charset=utf-8", "{\"kind\": ");
    doc = gw_req_body_object(r, false, NULL);
    tap_ok(doc == NULL && got_code == 400 && strcmp(got_reason, "BadRequest") == 0,
           "malformed JSON: 400 BadRequest");
    tap_ok(strncmp(got_message, "couldn't get version/kind; json parse error: ", 45) == 0,
           "... saying where (%s)", got_message);
    r = request("application/yaml", "a: [\n");
    doc = gw_req_body_object(r, false, NULL);
    tap_ok(doc == NULL && got_code == 400, "malformed YAML: 400 (%s)", got_message);
    r = request("text/plain", "{}");
    doc = gw_req_body_object(r, false, NULL);
    tap_ok(doc == NULL && got_code == 415 && strcmp(got_reason, "UnsupportedMediaType") == 0,
           "text/plain: 415");
    tap_is_str(got_message,
               "the body of the request was in an unknown format - accepted media types "
               "include: application/json, application/yaml, "
               "application/vnd.kubernetes.protobuf",
               "... in kube's words");
    bool empty = false;
    r = request(NULL, " \n");
    doc = gw_req_body_object(r, true, &empty);
    tap_ok(doc == NULL && empty && got_code == 0, "an empty body may be allowed (no answer)");
    r = request(NULL, "");
    doc = gw_req_body_object(r, false, &empty);
    tap_ok(doc == NULL && !empty && got_code == 400, "... or refused with 400");
    size_t len = 0;
    r = request(NULL, "abc");
    tap_ok(strcmp(gw_req_body(r, &len), "abc") == 0 && len == 3, "the raw body, NUL-terminated");
}

static void
test_patch_types(void)
{
    gw_req_t *r = request("application/merge-patch+json", "{}");
    tap_is_int(gw_req_patch_type(r, true), GW_BODY_MERGE_PATCH, "merge patch");
    r = request("application/strategic-merge-patch+json", "{}");
    tap_is_int(gw_req_patch_type(r, true), GW_BODY_STRATEGIC_PATCH,
               "strategic merge patch on a built-in kind");
    r = request("application/strategic-merge-patch+json", "{}");
    tap_is_int(gw_req_patch_type(r, false), GW_BODY_UNSUPPORTED,
               "strategic merge patch on a custom kind: refused");
    tap_is_str(got_message,
               "the body of the request was in an unknown format - accepted media types "
               "include: application/json-patch+json, application/merge-patch+json, "
               "application/apply-patch+yaml",
               "... listing what custom kinds take");
    r = request("application/json", "{}");
    tap_is_int(gw_req_patch_type(r, true), GW_BODY_UNSUPPORTED, "plain JSON is no patch type");
    tap_is_int(got_code, 415, "... 415");
    tap_ok(strstr(got_message, "application/strategic-merge-patch+json") != NULL,
           "... listing strategic merge for built-in kinds");
}

int
main(void)
{
    test_warnings();
    test_bodies();
    test_patch_types();
    exchange_clear();
    gw_arena_free(p.r.arena);
    return tap_done();
}
