/* Unit tests for gateway/registry/gw_registry_fields.c: an audit of every catalog kind's
 * selectable fields against kube-apiserver v1.32's field label conversions (the table below is
 * transcribed from pkg/apis/<group>/<version>/conversion.go; every other kind takes the default
 * conversion: metadata.name and metadata.namespace), kube's messages for an unsupported field,
 * and the values the fields read (GetAttrs / ToSelectableFields). */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "tap.h"

static const struct {
    const char *group, *resource, *fields; /* fields: space-separated, the conversion's order */
} kube[] = {
    {"", "pods",
     "metadata.name metadata.namespace spec.nodeName spec.restartPolicy spec.schedulerName "
     "spec.serviceAccountName spec.hostNetwork status.phase status.podIP status.podIPs "
     "status.nominatedNodeName spec.host"},
    {"", "nodes", "metadata.name spec.unschedulable"},
    {"", "replicationcontrollers", "metadata.name metadata.namespace status.replicas"},
    {"", "events",
     "involvedObject.kind involvedObject.namespace involvedObject.name involvedObject.uid "
     "involvedObject.apiVersion involvedObject.resourceVersion involvedObject.fieldPath reason "
     "reportingComponent source type metadata.namespace metadata.name"},
    {"", "namespaces", "status.phase metadata.name"},
    {"", "secrets", "type metadata.namespace metadata.name"},
    {"", "services", "metadata.namespace metadata.name spec.clusterIP spec.type"},
    {"events.k8s.io", "events",
     "reason regarding.kind regarding.namespace regarding.name regarding.uid "
     "regarding.apiVersion regarding.resourceVersion regarding.fieldPath reportingController "
     "source type metadata.namespace metadata.name"},
    {"apps", "replicasets", "metadata.name metadata.namespace status.replicas"},
    {"apps", "statefulsets", "metadata.name metadata.namespace status.successful"},
    {"batch", "jobs", "metadata.name metadata.namespace status.successful"},
    {"certificates.k8s.io", "certificatesigningrequests", "metadata.name spec.signerName"},
    {"certificates.k8s.io", "clustertrustbundles", "metadata.name spec.signerName"},
    {"resource.k8s.io", "resourceslices", "metadata.name spec.nodeName spec.driver"},
};

static const char *
expected(const gw_resource_t *r)
{
    for (size_t i = 0; i < sizeof(kube) / sizeof(kube[0]); i++) {
        if (strcmp(kube[i].group, r->group) == 0 && strcmp(kube[i].resource, r->name) == 0)
            return kube[i].fields;
    }
    return "metadata.name metadata.namespace";
}

/* Whether two space-separated lists hold the same words (kgate lists metadata.name first; kube's
 * order is the conversion's). */
static bool
same_set(const char *a, const char *b)
{
    char wa[1024], wb[1024];
    size_t na = 0, nb = 0;
    char *words_a[32], *words_b[32], *save;

    snprintf(wa, sizeof(wa), "%s", a);
    snprintf(wb, sizeof(wb), "%s", b);
    for (char *w = strtok_r(wa, " ", &save); w != NULL && na < 32; w = strtok_r(NULL, " ", &save))
        words_a[na++] = w;
    for (char *w = strtok_r(wb, " ", &save); w != NULL && nb < 32; w = strtok_r(NULL, " ", &save))
        words_b[nb++] = w;
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++) {
        bool found = false;
        for (size_t j = 0; j < nb && !found; j++)
            found = strcmp(words_a[i], words_b[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

static void
test_audit(const gw_catalog_t *cat)
{
    size_t bad = 0, n = gw_catalog_count(cat);

    for (size_t i = 0; i < n; i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        char got[1024] = "";
        for (const char *const *f = gw_registry__selectable_fields(r); *f != NULL; f++) {
            if (got[0] != '\0')
                strcat(got, " ");
            strcat(got, *f);
        }
        if (!same_set(got, expected(r)) ||
            strcmp(gw_registry__selectable_fields(r)[0], "metadata.name") != 0) {
            bad++;
            tap_diag("%s/%s %s: got \"%s\", want \"%s\"", r->group, r->version, r->name, got,
                     expected(r));
        }
    }
    tap_ok(n > 70 && bad == 0,
           "every one of the %zu catalog kinds selects kube 1.32's fields, metadata.name first", n);
}

static const gw_resource_t *
find(const gw_catalog_t *cat, const char *group, const char *version, const char *name)
{
    const gw_resource_t *r = gw_catalog_find(cat, group, version, name);

    if (r == NULL) {
        printf("Bail out! %s/%s %s is not in the catalog\n", group, version, name);
        exit(1);
    }
    return r;
}

static void
test_messages(const gw_catalog_t *cat)
{
    char msg[256];

    tap_ok(!gw_registry__field_supported(find(cat, "", "v1", "nodes"), "metadata.namespace", msg,
                                         sizeof(msg)) &&
               strcmp(msg, "field label not supported: metadata.namespace") == 0,
           "nodes refuse metadata.namespace with kube's message");
    tap_ok(!gw_registry__field_supported(find(cat, "batch", "v1", "jobs"), "spec.x", msg,
                                         sizeof(msg)) &&
               strcmp(msg, "field label \"spec.x\" not supported for batchv1.Job") == 0,
           "jobs refuse with batch/v1's own message");
    tap_ok(gw_registry__field_supported(find(cat, "events.k8s.io", "v1", "events"),
                                        "regarding.kind", msg, sizeof(msg)),
           "events.k8s.io takes regarding.kind");
}

/* The value `label` reads in `text` for resource r; "(null)" for none. */
static void
value_is(const gw_resource_t *r, const char *text, const char *label, const char *want)
{
    json_t *doc = json_loads(text, 0, NULL);
    char *got = gw_registry__field_text(gw_registry__selectable_fields(r), label, doc);

    tap_is_str(got ? got : "(null)", want, label);
    free(got);
    json_decref(doc);
}

static void
test_values(const gw_catalog_t *cat)
{
    const gw_resource_t *pods = find(cat, "", "v1", "pods");
    const gw_resource_t *ev = find(cat, "", "v1", "events");
    const gw_resource_t *ev1 = find(cat, "events.k8s.io", "v1", "events");
    const gw_resource_t *jobs = find(cat, "batch", "v1", "jobs");
    const gw_resource_t *rc = find(cat, "", "v1", "replicationcontrollers");
    const gw_resource_t *nodes = find(cat, "", "v1", "nodes");
    const char *core = "{\"involvedObject\":{\"kind\":\"Pod\",\"uid\":\"u\"},\"source\":"
                       "{\"component\":\"kubelet\"},\"reportingComponent\":\"rc\"}";
    const char *v1 = "{\"regarding\":{\"kind\":\"Node\"},\"reportingController\":\"ctl\"}";

    value_is(pods, "{\"spec\":{}}", "spec.hostNetwork", "false");
    value_is(pods, "{\"spec\":{\"hostNetwork\":true}}", "spec.hostNetwork", "true");
    value_is(pods, "{\"spec\":{\"nodeName\":\"n1\"}}", "spec.host", "n1");
    value_is(pods, "{\"status\":{\"podIP\":\"1.1.1.1\",\"podIPs\":[{\"ip\":\"2.2.2.2\"}]}}",
             "status.podIP", "2.2.2.2");
    value_is(pods, "{\"status\":{\"podIP\":\"1.1.1.1\"}}", "status.podIP", "1.1.1.1");
    value_is(pods, "{\"status\":{\"podIPs\":[{\"ip\":\"2.2.2.2\"}]}}", "status.podIPs", "(null)");
    value_is(pods, "{\"status\":{\"phase\":\"Running\"}}", "status.phase", "Running");
    value_is(ev, core, "involvedObject.kind", "Pod");
    value_is(ev, v1, "involvedObject.kind", "Node");
    value_is(ev, core, "source", "kubelet");
    value_is(ev, v1, "source", "ctl");
    value_is(ev, v1, "reportingComponent", "ctl");
    value_is(ev1, core, "regarding.kind", "Pod");
    value_is(ev1, core, "regarding.uid", "u");
    value_is(ev1, v1, "regarding.kind", "Node");
    value_is(ev1, core, "reportingController", "rc");
    value_is(ev1, "{}", "regarding.name", "");
    value_is(jobs, "{\"status\":{\"succeeded\":3}}", "status.successful", "3");
    value_is(jobs, "{}", "status.successful", "0");
    value_is(rc, "{}", "status.replicas", "0");
    value_is(nodes, "{}", "spec.unschedulable", "false");
}

int
main(void)
{
    const gw_catalog_t *cat = gw_catalog_builtin();

    test_audit(cat);
    test_messages(cat);
    test_values(cat);
    return tap_done();
}
