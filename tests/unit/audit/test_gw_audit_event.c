/* Unit tests for gateway/audit/gw_audit_event: an audit.k8s.io/v1 Event line as kube's log
 * backend writes it, field by field: the Go struct's order, omitempty, UserInfo and
 * ObjectReference, the bounded copy of a Status, the objects only at their levels,
 * omitManagedFields (objects and list items), Go's map order and HTML-safe escaping, MicroTime. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_audit_event.h"
#include "gw_buf.h"
#include "tap.h"

/* 2026-01-02T03:04:05.000007Z */
#define T0 1767323045000007LL

static json_t *
load(const char *s)
{
    json_t *j = json_loads(s, 0, NULL);
    if (j == NULL)
        abort();
    return j;
}

static void
is_line(const gw_audit_event_t *ev, gw_audit_stage_t stage, const char *want, const char *name)
{
    size_t len;
    char *got = gw_audit_event_encode(ev, stage, T0 + 1500, &len);
    tap_ok(len == strlen(got) && len > 0 && got[len - 1] == '\n', "%s: one line", name);
    got[len - 1] = '\0';
    tap_is_str(got, want, name);
    free(got);
}

static void
test_minimal(void)
{
    const char *ips[] = {"10.0.0.1", "127.0.0.1"};
    gw_audit_event_t ev = {.level = GW_AUDIT_METADATA,
                           .audit_id = "6a3f",
                           .request_uri = "/version",
                           .verb = "get",
                           .user = {.name = "system:anonymous"},
                           .source_ips = ips,
                           .n_source_ips = 2,
                           .received_us = T0};
    is_line(&ev, GW_AUDIT_STAGE_REQUEST_RECEIVED,
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","
            "\"auditID\":\"6a3f\",\"stage\":\"RequestReceived\",\"requestURI\":\"/version\","
            "\"verb\":\"get\",\"user\":{\"username\":\"system:anonymous\"},\"sourceIPs\":["
            "\"10.0.0.1\",\"127.0.0.1\"],\"requestReceivedTimestamp\":\"2026-01-02T03:04:05."
            "000007Z\",\"stageTimestamp\":\"2026-01-02T03:04:05.000007Z\"}",
            "RequestReceived: empty fields left out, the stage time is the request's");
    ev.code = 200;
    is_line(&ev, GW_AUDIT_STAGE_RESPONSE_COMPLETE,
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\","
            "\"auditID\":\"6a3f\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/version\","
            "\"verb\":\"get\",\"user\":{\"username\":\"system:anonymous\"},\"sourceIPs\":["
            "\"10.0.0.1\",\"127.0.0.1\"],\"responseStatus\":{\"metadata\":{},\"code\":200},"
            "\"requestReceivedTimestamp\":\"2026-01-02T03:04:05.000007Z\",\"stageTimestamp\":"
            "\"2026-01-02T03:04:05.001507Z\"}",
            "ResponseComplete: a success's status is the code alone, the stage time now");
}

static void
test_full(void)
{
    const char *groups[] = {"system:masters", "system:authenticated"};
    const char *igroups[] = {"dev"};
    json_t *extra = load("{\"scopes\":[\"b\",\"a\"],\"a-key\":[\"x\"]}");
    json_t *status = load("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                          "\"Failure\",\"message\":\"a <b> & c\",\"reason\":\"AlreadyExists\","
                          "\"details\":{\"name\":\"one\",\"kind\":\"configmaps\"},\"code\":409}");
    json_t *obj = load("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"one\",\"managedFields\":"
                       "[{\"manager\":\"m\"}]},\"data\":{\"k\":\"line\\n\\u2028\"}}");
    json_t *ann = load("{\"z\":\"1\",\"authorization.k8s.io/reason\":\"\","
                       "\"authorization.k8s.io/decision\":\"allow\"}");
    gw_audit_user_t imp = {.name = "alice", .groups = igroups, .n_groups = 1};
    gw_audit_objref_t ref = {.resource = "configmaps",
                             .namespace_ = "default",
                             .name = "one",
                             .uid = "u-1",
                             .api_group = "",
                             .api_version = "v1",
                             .resource_version = "12",
                             .subresource = ""};
    gw_audit_event_t ev = {
        .level = GW_AUDIT_REQUEST_RESPONSE,
        .audit_id = "id",
        .request_uri = "/api/v1/namespaces/default/configmaps?a=1&b=2",
        .verb = "create",
        .user = {.name = "admin", .uid = "7", .groups = groups, .n_groups = 2, .extra = extra},
        .impersonated = &imp,
        .user_agent = "kubectl/v1.32.0",
        .object_ref = &ref,
        .code = 409,
        .status = status,
        .request_object = obj,
        .response_object = status,
        .omit_managed_fields = true,
        .received_us = T0,
        .annotations = ann};
    is_line(&ev, GW_AUDIT_STAGE_RESPONSE_COMPLETE,
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\","
            "\"auditID\":\"id\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/"
            "namespaces/default/configmaps?a=1\\u0026b=2\",\"verb\":\"create\",\"user\":{"
            "\"username\":\"admin\",\"uid\":\"7\",\"groups\":[\"system:masters\",\"system:"
            "authenticated\"],\"extra\":{\"a-key\":[\"x\"],\"scopes\":[\"b\",\"a\"]}},"
            "\"impersonatedUser\":{\"username\":\"alice\",\"groups\":[\"dev\"]},\"userAgent\":"
            "\"kubectl/v1.32.0\",\"objectRef\":{\"resource\":\"configmaps\",\"namespace\":"
            "\"default\",\"name\":\"one\",\"uid\":\"u-1\",\"apiVersion\":\"v1\","
            "\"resourceVersion\":\"12\"},\"responseStatus\":{\"metadata\":{},\"status\":"
            "\"Failure\",\"message\":\"a \\u003cb\\u003e \\u0026 c\",\"reason\":"
            "\"AlreadyExists\",\"details\":{\"name\":\"one\",\"kind\":\"configmaps\"},\"code\":"
            "409},\"requestObject\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"one\"},"
            "\"data\":{\"k\":\"line\\n\\u2028\"}},\"responseObject\":{\"kind\":\"Status\","
            "\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"a "
            "\\u003cb\\u003e \\u0026 c\",\"reason\":\"AlreadyExists\",\"details\":{\"name\":"
            "\"one\",\"kind\":\"configmaps\"},\"code\":409},\"requestReceivedTimestamp\":"
            "\"2026-01-02T03:04:05.000007Z\",\"stageTimestamp\":\"2026-01-02T03:04:05.001507Z\","
            "\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","
            "\"authorization.k8s.io/reason\":\"\",\"z\":\"1\"}}",
            "every field in kube's order, maps sorted, HTML escaped, managedFields omitted");
    ev.level = GW_AUDIT_REQUEST;
    size_t len;
    char *line = gw_audit_event_encode(&ev, GW_AUDIT_STAGE_RESPONSE_COMPLETE, T0, &len);
    tap_ok(strstr(line, "\"requestObject\"") != NULL && strstr(line, "\"responseObject\"") == NULL,
           "Request: the request object only");
    free(line);
    ev.level = GW_AUDIT_METADATA;
    line = gw_audit_event_encode(&ev, GW_AUDIT_STAGE_RESPONSE_COMPLETE, T0, &len);
    tap_ok(strstr(line, "\"requestObject\"") == NULL && strstr(line, "\"responseObject\"") == NULL,
           "Metadata: no objects");
    free(line);
    json_decref(extra);
    json_decref(status);
    json_decref(obj);
    json_decref(ann);
}

static void
test_managed_fields(void)
{
    json_t *list = load("{\"kind\":\"List\",\"metadata\":{\"managedFields\":[]},\"items\":[{"
                        "\"metadata\":{\"name\":\"a\",\"managedFields\":[1]},\"spec\":{"
                        "\"metadata\":{\"managedFields\":[2]}}}]}");
    gw_buf_t b = {0};
    gw_audit_json_write(&b, list, true);
    tap_is_str(gw_buf_cstr(&b),
               "{\"kind\":\"List\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"a\"},"
               "\"spec\":{\"metadata\":{\"managedFields\":[2]}}}]}",
               "omitManagedFields: the list's and its items' metadata, nothing deeper");
    gw_buf_free(&b);
    gw_audit_json_write(&b, list, false);
    tap_ok(strstr(gw_buf_cstr(&b), "[1]") != NULL, "kept without omitManagedFields");
    gw_buf_free(&b);
    json_decref(list);
}

static void
test_micro_time(void)
{
    char t[40];
    tap_is_str(gw_audit_micro_time(0, t, sizeof(t)), "1970-01-01T00:00:00.000000Z",
               "MicroTime of the epoch");
    tap_is_str(gw_audit_micro_time(T0 + 999992, t, sizeof(t)), "2026-01-02T03:04:05.999999Z",
               "MicroTime keeps six digits");
}

int
main(void)
{
    test_minimal();
    test_full();
    test_managed_fields();
    test_micro_time();
    return tap_done();
}
