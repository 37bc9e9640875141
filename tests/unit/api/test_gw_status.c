/* metav1.Status bodies and the gw_err.h mapping, checked against what kube-apiserver writes.
 * The answer functions are replaced by recorders, so the test sees the exact document. */
#include "gw_status.c"

#include "tap.h"

static int got_code;
static char *got_body;
static char got_retry[32];

void
gw_reply_json(gw_req_t *r, int code, json_t *doc)
{
    (void)r;
    got_code = code;
    free(got_body);
    got_body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
}

void
gw_req_set_header(gw_req_t *r, const char *name, const char *value)
{
    (void)r;
    if (strcmp(name, "Retry-After") == 0)
        snprintf(got_retry, sizeof(got_retry), "%s", value);
}

static gw_req_t *
request(const char *group, const char *resource)
{
    static gw_req_t r;
    static gw_resource_t res;
    gw_arena_free(r.arena);
    r = (gw_req_t){.arena = gw_arena_new(), .audit_id = "test"};
    r.info = (gw_reqinfo_t){.group = group,
                            .resource = resource,
                            .verb = "get",
                            .path = "",
                            .api_prefix = "",
                            .version = "v1",
                            .namespace_ = "",
                            .subresource = "",
                            .name = ""};
    res = (gw_resource_t){.group = group, .name = resource};
    r.resource = &res;
    got_retry[0] = '\0';
    return &r;
}

static void
check_error(int err, const char *group, const char *resource, const char *name, int code,
            const char *body)
{
    gw_req_t *r = request(group, resource);
    gw_reply_error(r, err, name);
    char label[128];
    snprintf(label, sizeof(label), "%s on %s%s%s", gw_errname(err), resource, *group ? "." : "",
             group);
    tap_is_int(got_code, code, label);
    tap_is_str(got_body, body, label);
}

static void
test_errors(void)
{
    check_error(GW_ENOTFOUND, "", "pods", "x", 404,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\",\"details\":{"
                "\"name\":\"x\",\"kind\":\"pods\"},\"code\":404}");
    check_error(GW_ENOTFOUND, "apps", "deployments", "web", 404,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"deployments.apps \\\"web\\\" not found\",\"reason\":\"NotFound\","
                "\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"},"
                "\"code\":404}");
    check_error(GW_EEXIST, "", "configmaps", "c", 409,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"configmaps \\\"c\\\" already exists\",\"reason\":\"AlreadyExists\","
                "\"details\":{\"name\":\"c\",\"kind\":\"configmaps\"},\"code\":409}");
    check_error(GW_ECONFLICT, "rbac.authorization.k8s.io", "roles", "r", 409,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Operation cannot be fulfilled on roles.rbac.authorization.k8s.io "
                "\\\"r\\\": the object has been modified; please apply your changes to the latest "
                "version and try again\",\"reason\":\"Conflict\",\"details\":{\"name\":\"r\","
                "\"group\":\"rbac.authorization.k8s.io\",\"kind\":\"roles\"},\"code\":409}");
    check_error(GW_ECOMPACTED, "", "pods", "", 410,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}");
    check_error(GW_EFUTUREREV, "", "pods", "", 504,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Timeout: Too large resource version\",\"reason\":\"Timeout\","
                "\"details\":{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\",\"message\":"
                "\"Too large resource version\"}],\"retryAfterSeconds\":1},\"code\":504}");
    tap_is_str(got_retry, "1", "a Timeout for a future revision sets Retry-After");
    check_error(GW_ETOOLARGE, "", "configmaps", "big", 413,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Request entity too large: etcdserver: request is too large\","
                "\"reason\":\"RequestEntityTooLarge\",\"code\":413}");
    check_error(GW_EUNAVAILABLE, "", "pods", "", 503,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"etcd cluster is unavailable or misconfigured\",\"reason\":"
                "\"ServiceUnavailable\",\"code\":503}");
    check_error(GW_ETIMEOUT, "", "pods", "", 504,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Timeout: request did not complete within the allowed duration\","
                "\"reason\":\"Timeout\",\"code\":504}");
    tap_is_str(got_retry, "", "no Retry-After without retryAfterSeconds");
    check_error(GW_EINTERNAL, "", "pods", "x", 500,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Internal error occurred: internal error\",\"reason\":"
                "\"InternalError\",\"details\":{\"causes\":[{\"message\":\"internal error\"}]},"
                "\"code\":500}");
    check_error(GW_EINVAL, "", "pods", "x", 500,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Internal error occurred: invalid argument\",\"reason\":"
                "\"InternalError\",\"details\":{\"causes\":[{\"message\":\"invalid argument\"}]},"
                "\"code\":500}");
    check_error(GW_ENOTFOUND, "", "pods", "a\xff\"b", 404,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"pods \\\"a\xef\xbf\xbd\\\"b\\\" not found\",\"reason\":\"NotFound\","
                "\"details\":{\"name\":\"a\xef\xbf\xbd\\\"b\",\"kind\":\"pods\"},\"code\":404}");
}

static void
test_status(void)
{
    gw_req_t *r = request("", "pods");
    gw_reply_status(r, 401, "Unauthorized", NULL, "Unauthorized");
    tap_is_str(got_body,
               "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}",
               "401: no details at all, as kube's NewUnauthorized");
    r = request("", "pods");
    json_t *d =
        json_pack("{s:s,s:s,s:s,s:s}", "kind", "pods", "extra", "kept?", "name", "p", "group", "");
    gw_reply_status(r, 403, "Forbidden", d, "m");
    tap_is_str(got_body,
               "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"m\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"p\",\"kind\":"
               "\"pods\"},\"code\":403}",
               "details in kube's field order, empty strings and unknown strings left out");
    r = request("", "pods");
    gw_reply_status(r, 404, "NotFound", json_object(),
                    "the server could not find the requested "
                    "resource");
    tap_ok(strstr(got_body, "\"details\":{}") != NULL, "empty details stay as {}");
    r = request("", "pods");
    gw_reply_status(r, 429, "TooManyRequests", json_pack("{s:i}", "retryAfterSeconds", 1),
                    "Too many requests, please try again later.");
    tap_is_str(got_retry, "1", "retryAfterSeconds becomes a Retry-After header");
    tap_ok(strstr(got_body, "\"details\":{\"retryAfterSeconds\":1}") != NULL,
           "... and stays in details");
    r = request("", "pods");
    r->accept = GW_MEDIA_TABLE;
    gw_reply_status(r, 400, "BadRequest", NULL, "%s %d", "x", 7);
    tap_is_int(r->accept, GW_MEDIA_JSON, "a Status for a Table request goes out as JSON");
    tap_ok(strstr(got_body, "\"message\":\"x 7\"") != NULL, "the message is formatted");
    r = request("", "pods");
    gw_api__reply_not_acceptable(r);
    tap_is_str(got_body,
               "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"only the following media types are accepted: application/json, "
               "application/yaml\",\"reason\":\"NotAcceptable\",\"code\":406}",
               "406 in kube's words");
    r = request("", "");
    r->resource = NULL;
    r->info.group = "example.com";
    r->info.resource = "widgets";
    gw_reply_error(r, GW_ENOTFOUND, NULL);
    tap_ok(strstr(got_body, "\"message\":\"widgets.example.com \\\"\\\" not found\"") != NULL,
           "without a resolved resource the request's names are used (%s)", got_body);
}

int
main(void)
{
    test_errors();
    test_status();
    gw_arena_free(request("", "")->arena);
    free(got_body);
    return tap_done();
}
