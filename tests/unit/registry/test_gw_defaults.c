/* Unit tests for gateway/registry/gw_defaults*.c: one object in, the defaulted object out, per
 * kind, as kube-apiserver v1.32 writes it; set values left as they are; defaulting twice
 * changes nothing more; and every defaulted field is one the kind's schema knows, with its
 * type. The JSON texts use ' for " to stay readable. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_defaults.h"
#include "gw_fieldval.h"
#include "tap.h"

static const gw_catalog_t *cat;

/* `text` with ' read as ". */
static json_t *
doc(const char *text)
{
    char *s = strdup(text);
    json_t *d;

    for (char *p = s; *p != '\0'; p++)
        if (*p == '\'')
            *p = '"';
    d = json_loads(s, 0, NULL);
    free(s);
    if (d == NULL) {
        printf("Bail out! bad test JSON: %s\n", text);
        exit(1);
    }
    return d;
}

/* Whether `d` fits the schema of its kind (when the catalog has it): no unknown or mistyped
 * field. Required fields are not asked for (the test objects are partial). */
static bool
fits_schema(const char *group, const char *version, const char *kind, const json_t *d)
{
    const gw_resource_t *r = gw_catalog_find_kind(cat, group, version, kind);
    json_t *copy = json_deep_copy(d);
    gw_field_issues_t is = {0};
    bool fits = true;

    if (r != NULL && json_is_object(copy))
        gw_fieldval_check(copy, r->schema, &is);
    for (size_t i = 0; i < is.n; i++) {
        if (is.items[i].kind != GW_FIELD_REQUIRED) {
            tap_diag("schema: %s: %s", is.items[i].path, is.items[i].message);
            fits = false;
        }
    }
    gw_field_issues_clear(&is);
    json_decref(copy);
    return fits;
}

/* What a stored object of the kind got: the decoding's defaults, then a Service's addresses. */
static void
default_as_stored(const char *group, const char *version, const char *kind, json_t *obj,
                  const json_t *old)
{
    gw_defaults_apply(group, version, kind, obj);
    if (group[0] == '\0' && strcmp(kind, "Service") == 0)
        gw_defaults_service_addresses(obj, old);
}

/* The defaults on `in` (with `old` when not NULL) gives `want`; applying again changes
 * nothing more; the result fits the kind's schema. */
static void
update_is(const char *gvk, const char *old, const char *in, const char *want, const char *name)
{
    char group[64], version[16], kind[64];
    json_t *o = old != NULL ? doc(old) : NULL, *d = doc(in), *w = doc(want), *again;
    int ok;

    if (sscanf(gvk, "%63[^/]/%15[^/]/%63s", group, version, kind) != 3) {
        group[0] = '\0';
        sscanf(gvk, "/%15[^/]/%63s", version, kind);
    }
    default_as_stored(group, version, kind, d, o);
    again = json_deep_copy(d);
    default_as_stored(group, version, kind, again, o);
    ok = tap_ok(json_equal(d, w) && json_equal(d, again) && fits_schema(group, version, kind, d),
                "%s", name);
    if (!ok) {
        char *got = json_dumps(d, JSON_SORT_KEYS), *exp = json_dumps(w, JSON_SORT_KEYS);
        tap_diag("got  %s", got);
        tap_diag("want %s", exp);
        free(got);
        free(exp);
    }
    json_decref(o);
    json_decref(d);
    json_decref(w);
    json_decref(again);
}

/* "group/version/kind" ("/v1/Pod" for the core group). */
static void
defaults_is(const char *gvk, const char *in, const char *want, const char *name)
{
    update_is(gvk, NULL, in, want, name);
}

/* An object comes out as it went in. */
static void
unchanged(const char *gvk, const char *in, const char *name)
{
    update_is(gvk, NULL, in, in, name);
}

/* ---- pods --------------------------------------------------------------------------------- */

#define C_DEFAULTS                                                                                 \
    "'resources':{},'terminationMessagePath':'/dev/termination-log',"                              \
    "'terminationMessagePolicy':'File'"
#define SPEC_DEFAULTS                                                                              \
    "'dnsPolicy':'ClusterFirst','restartPolicy':'Always','schedulerName':'default-scheduler',"     \
    "'securityContext':{},'terminationGracePeriodSeconds':30"

static void
test_pod(void)
{
    defaults_is(
        "/v1/Pod", "{'spec':{'containers':[{'name':'c','image':'nginx'}]}}",
        "{'spec':{'containers':[{'name':'c','image':'nginx','imagePullPolicy':'Always'," C_DEFAULTS
        "}]," SPEC_DEFAULTS ",'enableServiceLinks':true}}",
        "a bare pod gets kube's pod and container defaults");
    defaults_is("/v1/Pod", "{}", "{'spec':{" SPEC_DEFAULTS ",'enableServiceLinks':true}}",
                "a pod without spec gets one (a Go struct)");
    unchanged("/v1/Pod",
              "{'spec':{'containers':[{'name':'c','image':'nginx','imagePullPolicy':'Never',"
              "'resources':{'requests':{'cpu':'1'}},'terminationMessagePath':'/x',"
              "'terminationMessagePolicy':'FallbackToLogsOnError','ports':[{'containerPort':80,"
              "'protocol':'UDP'}]}],'dnsPolicy':'Default','restartPolicy':'Never',"
              "'schedulerName':'s','securityContext':{'runAsUser':1},"
              "'terminationGracePeriodSeconds':0,'enableServiceLinks':false}}",
              "set values stay (terminationGracePeriodSeconds 0 and false included)");
    defaults_is("/v1/Pod",
                "{'spec':{'dnsPolicy':'','restartPolicy':null,'securityContext':null,"
                "'terminationGracePeriodSeconds':null,'schedulerName':'',"
                "'enableServiceLinks':null}}",
                "{'spec':{" SPEC_DEFAULTS ",'enableServiceLinks':true}}",
                "empty strings and nulls count as unset");
    defaults_is("/v1/Pod",
                "{'spec':{'containers':[{'name':'c','image':'i:1','resources':{'limits':"
                "{'cpu':'1','memory':'1Gi'},'requests':{'cpu':'500m'}}}],'initContainers':"
                "[{'name':'i','image':'i:1','resources':{'limits':{'cpu':'2'}}}],"
                "'ephemeralContainers':[{'name':'e','image':'i:1','resources':{'limits':"
                "{'cpu':'3'}}}]}}",
                "{'spec':{'containers':[{'name':'c','image':'i:1','imagePullPolicy':"
                "'IfNotPresent','resources':{'limits':{'cpu':'1','memory':'1Gi'},'requests':"
                "{'cpu':'500m','memory':'1Gi'}},'terminationMessagePath':'/dev/termination-log',"
                "'terminationMessagePolicy':'File'}],'initContainers':[{'name':'i','image':"
                "'i:1','imagePullPolicy':'IfNotPresent','resources':{'limits':{'cpu':'2'},"
                "'requests':{'cpu':'2'}},'terminationMessagePath':'/dev/termination-log',"
                "'terminationMessagePolicy':'File'}],'ephemeralContainers':[{'name':'e','image':"
                "'i:1','imagePullPolicy':'IfNotPresent','resources':{'limits':{'cpu':'3'}},"
                "'terminationMessagePath':'/dev/termination-log','terminationMessagePolicy':"
                "'File'}]," SPEC_DEFAULTS ",'enableServiceLinks':true}}",
                "pods: missing requests come from limits (not for ephemeral containers)");
    defaults_is("/v1/Pod",
                "{'spec':{'hostNetwork':true,'containers':[{'name':'c','image':'i:1','ports':"
                "[{'containerPort':80},{'containerPort':81,'hostPort':9}]}]}}",
                "{'spec':{'hostNetwork':true,'containers':[{'name':'c','image':'i:1',"
                "'imagePullPolicy':'IfNotPresent','ports':[{'containerPort':80,'hostPort':80,"
                "'protocol':'TCP'},{'containerPort':81,'hostPort':9,'protocol':'TCP'}]," C_DEFAULTS
                "}]," SPEC_DEFAULTS ",'enableServiceLinks':true}}",
                "hostNetwork: host ports are the container ports");
}

static void
test_container_parts(void)
{
    defaults_is(
        "/v1/PodTemplate",
        "{'template':{'spec':{'containers':[{'name':'c','image':'i:1',"
        "'env':[{'name':'A','valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}},"
        "{'name':'B','value':'b'}],"
        "'livenessProbe':{'httpGet':{'port':80}},"
        "'readinessProbe':{'grpc':{'port':9},'periodSeconds':0,'timeoutSeconds':5},"
        "'startupProbe':{'tcpSocket':{'port':80},'failureThreshold':30},"
        "'lifecycle':{'preStop':{'httpGet':{'port':8,'path':'/q','scheme':'HTTPS'}},"
        "'postStart':{'exec':{'command':['x']}}}}]}}}",
        "{'template':{'spec':{'containers':[{'name':'c','image':'i:1','imagePullPolicy':"
        "'IfNotPresent'," C_DEFAULTS ","
        "'env':[{'name':'A','valueFrom':{'fieldRef':{'fieldPath':'metadata.name','apiVersion':"
        "'v1'}}},{'name':'B','value':'b'}],"
        "'livenessProbe':{'httpGet':{'port':80,'path':'/','scheme':'HTTP'},'timeoutSeconds':1,"
        "'periodSeconds':10,'successThreshold':1,'failureThreshold':3},"
        "'readinessProbe':{'grpc':{'port':9,'service':''},'periodSeconds':10,"
        "'timeoutSeconds':5,'successThreshold':1,'failureThreshold':3},"
        "'startupProbe':{'tcpSocket':{'port':80},'failureThreshold':30,'timeoutSeconds':1,"
        "'periodSeconds':10,'successThreshold':1},"
        "'lifecycle':{'preStop':{'httpGet':{'port':8,'path':'/q','scheme':'HTTPS'}},"
        "'postStart':{'exec':{'command':['x']}}}}]," SPEC_DEFAULTS "}}}",
        "pod templates: probes, handlers and field references (no enableServiceLinks)");
}

static void
test_volumes(void)
{
    defaults_is(
        "/v1/PodTemplate",
        "{'template':{'spec':{'volumes':[{'name':'a'},{'name':'b','secret':{'secretName':'s'}},"
        "{'name':'c','configMap':{'name':'m','defaultMode':256}},"
        "{'name':'d','downwardAPI':{'items':[{'path':'p','fieldRef':{'fieldPath':'x'}}]}},"
        "{'name':'e','projected':{'sources':[{'serviceAccountToken':{'path':'t'}},"
        "{'downwardAPI':{'items':[{'path':'q','fieldRef':{'fieldPath':'y'}}]}}]}},"
        "{'name':'f','hostPath':{'path':'/h'}},{'name':'g','emptyDir':{'medium':'Memory'}},"
        "{'name':'h','ephemeral':{'volumeClaimTemplate':{'spec':{'accessModes':['x']}}}},"
        "{'name':'i','iscsi':{'targetPortal':'t','iqn':'q','lun':0}},"
        "{'name':'j','rbd':{'monitors':['m'],'image':'i'}},"
        "{'name':'k','azureDisk':{'diskName':'n','diskURI':'u'}},"
        "{'name':'l','scaleIO':{'gateway':'g','system':'s','secretRef':{}}}]}}}",
        "{'template':{'spec':{'volumes':[{'name':'a','emptyDir':{}},"
        "{'name':'b','secret':{'secretName':'s','defaultMode':420}},"
        "{'name':'c','configMap':{'name':'m','defaultMode':256}},"
        "{'name':'d','downwardAPI':{'defaultMode':420,'items':[{'path':'p','fieldRef':"
        "{'fieldPath':'x','apiVersion':'v1'}}]}},"
        "{'name':'e','projected':{'defaultMode':420,'sources':[{'serviceAccountToken':{'path':"
        "'t','expirationSeconds':3600}},{'downwardAPI':{'items':[{'path':'q','fieldRef':"
        "{'fieldPath':'y','apiVersion':'v1'}}]}}]}},"
        "{'name':'f','hostPath':{'path':'/h','type':''}},"
        "{'name':'g','emptyDir':{'medium':'Memory'}},"
        "{'name':'h','ephemeral':{'volumeClaimTemplate':{'spec':{'accessModes':['x'],"
        "'volumeMode':'Filesystem'}}}},"
        "{'name':'i','iscsi':{'targetPortal':'t','iqn':'q','lun':0,'iscsiInterface':"
        "'default'}},"
        "{'name':'j','rbd':{'monitors':['m'],'image':'i','pool':'rbd','user':'admin',"
        "'keyring':'/etc/ceph/keyring'}},"
        "{'name':'k','azureDisk':{'diskName':'n','diskURI':'u','cachingMode':'ReadWrite',"
        "'fsType':'ext4','readOnly':false,'kind':'Shared'}},"
        "{'name':'l','scaleIO':{'gateway':'g','system':'s','secretRef':{},'storageMode':"
        "'ThinProvisioned','fsType':'xfs'}}]," SPEC_DEFAULTS "}}}",
        "volumes: emptyDir when no source, file modes 0644, each source's defaults");
}

/* The pull policy kube picks for `image`. */
static const char *
policy_of(const char *image)
{
    static char out[32];
    json_t *p = json_pack("{s:{s:[{s:s,s:s}]}}", "spec", "containers", "name", "c", "image", image);

    gw_defaults_apply("", "v1", "Pod", p);
    snprintf(out, sizeof(out), "%s",
             json_string_value(json_object_get(
                 json_array_get(json_object_get(json_object_get(p, "spec"), "containers"), 0),
                 "imagePullPolicy")));
    json_decref(p);
    return out;
}

static void
test_pull_policy(void)
{
    static const struct {
        const char *image, *policy;
    } cases[] = {
        {"nginx", "Always"},
        {"nginx:latest", "Always"},
        {"nginx:1.27", "IfNotPresent"},
        {"docker.io/library/nginx", "Always"},
        {"registry.example.com:5000/team/app:latest", "Always"},
        {"localhost:5000/app", "Always"},
        {"localhost:5000/app:v2", "IfNotPresent"},
        {"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "IfNotPresent"},
        {"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "Always"},
        {"Nginx", "IfNotPresent"},
        {"nginx:", "IfNotPresent"},
        {"", "IfNotPresent"},
        {"MyRegistry/app", "Always"},
        {"team/app:Latest", "IfNotPresent"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        tap_is_str(policy_of(cases[i].image), cases[i].policy, cases[i].image);
}

/* ---- workloads ---------------------------------------------------------------------------- */

#define TEMPLATE_IN                                                                                \
    "'template':{'metadata':{'labels':{'app':'w'}},'spec':{'containers':[{'name':'c','image':'i:"  \
    "1'}]}}"
#define TEMPLATE_OUT                                                                               \
    "'template':{'metadata':{'labels':{'app':'w'}},'spec':{'containers':[{'name':'c','image':"     \
    "'i:1','imagePullPolicy':'IfNotPresent'," C_DEFAULTS "}]," SPEC_DEFAULTS "}}"

static void
test_apps(void)
{
    defaults_is("apps/v1/Deployment", "{'spec':{" TEMPLATE_IN "}}",
                "{'spec':{'replicas':1,'revisionHistoryLimit':10,'progressDeadlineSeconds':600,"
                "'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':'25%',"
                "'maxSurge':'25%'}}," TEMPLATE_OUT "}}",
                "deployments: replicas, history, deadline, rolling update 25%/25%, the template");
    unchanged("apps/v1/Deployment",
              "{'spec':{'replicas':0,'revisionHistoryLimit':0,'progressDeadlineSeconds':60,"
              "'strategy':{'type':'Recreate'}}}",
              "deployments: Recreate gets no rollingUpdate; zero counts stay");
    defaults_is("apps/v1/Deployment",
                "{'spec':{'replicas':2,'revisionHistoryLimit':1,'progressDeadlineSeconds':60,"
                "'strategy':{'rollingUpdate':{'maxSurge':2}}}}",
                "{'spec':{'replicas':2,'revisionHistoryLimit':1,'progressDeadlineSeconds':60,"
                "'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':2,"
                "'maxUnavailable':'25%'}}}}",
                "deployments: a partial rolling update is completed");
    defaults_is("apps/v1/ReplicaSet", "{'spec':{" TEMPLATE_IN "}}",
                "{'spec':{'replicas':1," TEMPLATE_OUT "}}", "replica sets: replicas 1");
    defaults_is("apps/v1/DaemonSet", "{'spec':{" TEMPLATE_IN "}}",
                "{'spec':{'revisionHistoryLimit':10,'updateStrategy':{'type':'RollingUpdate',"
                "'rollingUpdate':{'maxUnavailable':1,'maxSurge':0}}," TEMPLATE_OUT "}}",
                "daemon sets: rolling update 1/0, history 10");
    unchanged("apps/v1/DaemonSet",
              "{'spec':{'revisionHistoryLimit':3,'updateStrategy':{'type':'OnDelete'}}}",
              "daemon sets: OnDelete stays alone");
}

static void
test_stateful_set(void)
{
    defaults_is("apps/v1/StatefulSet",
                "{'spec':{'serviceName':'s'," TEMPLATE_IN ",'volumeClaimTemplates':[{'metadata':"
                "{'name':'data'},'spec':{'accessModes':['ReadWriteOnce']}}]}}",
                "{'spec':{'serviceName':'s','replicas':1,'revisionHistoryLimit':10,"
                "'podManagementPolicy':'OrderedReady','updateStrategy':{'type':'RollingUpdate',"
                "'rollingUpdate':{'partition':0}},'persistentVolumeClaimRetentionPolicy':"
                "{'whenDeleted':'Retain','whenScaled':'Retain'}," TEMPLATE_OUT ","
                "'volumeClaimTemplates':[{'apiVersion':'v1','kind':'PersistentVolumeClaim',"
                "'metadata':{'name':'data'},'spec':{'accessModes':['ReadWriteOnce'],"
                "'volumeMode':'Filesystem'},'status':{'phase':'Pending'}}]}}",
                "stateful sets: policies, partition 0, claim templates as kube writes them");
    defaults_is("apps/v1/StatefulSet",
                "{'spec':{'updateStrategy':{'type':'RollingUpdate'},"
                "'persistentVolumeClaimRetentionPolicy':{'whenDeleted':'Delete'}}}",
                "{'spec':{'replicas':1,'revisionHistoryLimit':10,'podManagementPolicy':"
                "'OrderedReady','updateStrategy':{'type':'RollingUpdate'},"
                "'persistentVolumeClaimRetentionPolicy':{'whenDeleted':'Delete',"
                "'whenScaled':'Retain'}}}",
                "stateful sets: a given RollingUpdate type gets no rollingUpdate");
    defaults_is("apps/v1/StatefulSet",
                "{'spec':{'updateStrategy':{'type':'RollingUpdate','rollingUpdate':"
                "{'maxUnavailable':2}}}}",
                "{'spec':{'replicas':1,'revisionHistoryLimit':10,'podManagementPolicy':"
                "'OrderedReady','updateStrategy':{'type':'RollingUpdate','rollingUpdate':"
                "{'maxUnavailable':2,'partition':0}},'persistentVolumeClaimRetentionPolicy':"
                "{'whenDeleted':'Retain','whenScaled':'Retain'}}}",
                "stateful sets: ... but a given rollingUpdate gets partition 0");
}

#define JOB_TEMPLATE_IN                                                                            \
    "'template':{'metadata':{'labels':{'app':'j'}},'spec':{'restartPolicy':'Never',"               \
    "'containers':[{'name':'c','image':'i:1'}]}}"
#define JOB_TEMPLATE_OUT                                                                           \
    "'template':{'metadata':{'labels':{'app':'j'}},'spec':{'restartPolicy':'Never',"               \
    "'containers':[{'name':'c','image':'i:1','imagePullPolicy':'IfNotPresent'," C_DEFAULTS "}],"   \
    "'dnsPolicy':'ClusterFirst','schedulerName':'default-scheduler','securityContext':{},"         \
    "'terminationGracePeriodSeconds':30}}"

static void
test_jobs(void)
{
    defaults_is(
        "batch/v1/Job", "{'metadata':{'name':'j'},'spec':{" JOB_TEMPLATE_IN "}}",
        "{'metadata':{'name':'j','labels':{'app':'j'}},'spec':{'completions':1,"
        "'parallelism':1,'backoffLimit':6,'completionMode':'NonIndexed','suspend':false,"
        "'manualSelector':false,'podReplacementPolicy':'TerminatingOrFailed'," JOB_TEMPLATE_OUT
        "}}",
        "jobs: one pod once, backoff 6, labels from the template");
    defaults_is("batch/v1/Job",
                "{'metadata':{'labels':{'own':'x'}},'spec':{'parallelism':3,"
                "'backoffLimitPerIndex':1,'completionMode':'Indexed','completions':4,"
                "'podFailurePolicy':{'rules':[{'action':'Ignore','onPodConditions':[{'type':"
                "'DisruptionTarget'},{'type':'X','status':'False'}]}]}}}",
                "{'metadata':{'labels':{'own':'x'}},'spec':{'parallelism':3,"
                "'backoffLimitPerIndex':1,'completionMode':'Indexed','completions':4,"
                "'backoffLimit':2147483647,'suspend':false,'manualSelector':false,"
                "'podReplacementPolicy':'Failed','podFailurePolicy':{'rules':[{'action':"
                "'Ignore','onPodConditions':[{'type':'DisruptionTarget','status':'True'},"
                "{'type':'X','status':'False'}]}]}}}",
                "jobs: per-index limits, failure policy, own labels kept");
    defaults_is("batch/v1/Job", "{'spec':{'parallelism':2}}",
                "{'spec':{'parallelism':2,'backoffLimit':6,'completionMode':'NonIndexed',"
                "'suspend':false,'manualSelector':false,'podReplacementPolicy':"
                "'TerminatingOrFailed'}}",
                "jobs: a parallel job without completions keeps none");
    defaults_is("batch/v1/CronJob",
                "{'spec':{'schedule':'* * * * *','jobTemplate':{'spec':{" JOB_TEMPLATE_IN "}}}}",
                "{'spec':{'schedule':'* * * * *','concurrencyPolicy':'Allow','suspend':false,"
                "'successfulJobsHistoryLimit':3,'failedJobsHistoryLimit':1,'jobTemplate':"
                "{'spec':{" JOB_TEMPLATE_OUT "}}}}",
                "cron jobs: their own defaults; the job template's pod only (no job defaults)");
}

static void
test_core_workloads(void)
{
    defaults_is("/v1/ReplicationController", "{'spec':{" TEMPLATE_IN "}}",
                "{'metadata':{'labels':{'app':'w'}},'spec':{'replicas':1,'selector':{'app':'w'}"
                "," TEMPLATE_OUT "}}",
                "replication controllers: selector, labels and replicas from the template");
    defaults_is("/v1/ReplicationController",
                "{'metadata':{'labels':{'a':'b'}},'spec':{'selector':{'x':'y'},'replicas':0}}",
                "{'metadata':{'labels':{'a':'b'}},'spec':{'selector':{'x':'y'},'replicas':0}}",
                "replication controllers: set values stay, no template no defaults");
    defaults_is("/v1/PodTemplate", "{'template':{}}", "{'template':{'spec':{" SPEC_DEFAULTS "}}}",
                "pod templates: an empty template gets a defaulted spec");
}

/* ---- services ----------------------------------------------------------------------------- */

#define SVC_CLUSTER                                                                                \
    "'sessionAffinity':'None','internalTrafficPolicy':'Cluster','ipFamilyPolicy':"                 \
    "'SingleStack','ipFamilies':['IPv4']"

static void
test_services(void)
{
    defaults_is("/v1/Service",
                "{'spec':{'selector':{'app':'w'},'ports':[{'port':80},{'port':443,"
                "'targetPort':'https','protocol':'UDP'},{'port':8,'targetPort':0}]}}",
                "{'spec':{'selector':{'app':'w'},'type':'ClusterIP'," SVC_CLUSTER ",'ports':["
                "{'port':80,'protocol':'TCP','targetPort':80},{'port':443,'targetPort':'https',"
                "'protocol':'UDP'},{'port':8,'targetPort':8,'protocol':'TCP'}]}}",
                "services: ClusterIP, no affinity, TCP, target port is the port, single stack");
    defaults_is("/v1/Service",
                "{'spec':{'type':'NodePort','sessionAffinity':'ClientIP','ports':[{'port':80,"
                "'nodePort':30080}]}}",
                "{'spec':{'type':'NodePort','sessionAffinity':'ClientIP','sessionAffinityConfig':"
                "{'clientIP':{'timeoutSeconds':10800}},'externalTrafficPolicy':'Cluster',"
                "'internalTrafficPolicy':'Cluster','ipFamilyPolicy':'SingleStack','ipFamilies':"
                "['IPv4'],'ports':[{'port':80,'nodePort':30080,'protocol':'TCP','targetPort':"
                "80}]}}",
                "services: node ports get an external policy; ClientIP its 3 hours");
    defaults_is("/v1/Service",
                "{'spec':{'type':'LoadBalancer','sessionAffinityConfig':{'clientIP':{}}},"
                "'status':{'loadBalancer':{'ingress':[{'ip':'1.2.3.4'},{'hostname':'h'}]}}}",
                "{'spec':{'type':'LoadBalancer','externalTrafficPolicy':'Cluster',"
                "'allocateLoadBalancerNodePorts':true," SVC_CLUSTER "},'status':{'loadBalancer':"
                "{'ingress':[{'ip':'1.2.3.4','ipMode':'VIP'},{'hostname':'h'}]}}}",
                "services: load balancers; affinity None drops its config");
    unchanged("/v1/Service",
              "{'spec':{'type':'ExternalName','externalName':'x.example.com','sessionAffinity':"
              "'None'}}",
              "services: ExternalName gets no traffic or IP fields");
    defaults_is("/v1/Service", "{'spec':{'clusterIP':'None','selector':{'a':'b'}}}",
                "{'spec':{'clusterIP':'None','clusterIPs':['None'],'selector':{'a':'b'},'type':"
                "'ClusterIP'," SVC_CLUSTER "}}",
                "services: headless with a selector is single stack");
    defaults_is("/v1/Service", "{'spec':{'clusterIP':'None'}}",
                "{'spec':{'clusterIP':'None','clusterIPs':['None'],'type':'ClusterIP',"
                "'sessionAffinity':'None','internalTrafficPolicy':'Cluster','ipFamilyPolicy':"
                "'RequireDualStack','ipFamilies':['IPv4','IPv6']}}",
                "services: headless without selector may serve both families");
    defaults_is("/v1/Service",
                "{'spec':{'clusterIP':'fd00::10','externalIPs':['1.1.1.1'],"
                "'externalTrafficPolicy':'Local','internalTrafficPolicy':'Local'}}",
                "{'spec':{'clusterIP':'fd00::10','clusterIPs':['fd00::10'],'externalIPs':"
                "['1.1.1.1'],'externalTrafficPolicy':'Local','internalTrafficPolicy':'Local',"
                "'type':'ClusterIP','sessionAffinity':'None','ipFamilyPolicy':'SingleStack',"
                "'ipFamilies':['IPv6']}}",
                "services: given IPs and policies stay; the family follows the IP");
    update_is("/v1/Service",
              "{'spec':{'clusterIP':'10.0.0.9','clusterIPs':['10.0.0.9'],'ipFamilyPolicy':"
              "'PreferDualStack','ipFamilies':['IPv4']}}",
              "{'spec':{'ports':[{'port':80}]}}",
              "{'spec':{'clusterIP':'10.0.0.9','clusterIPs':['10.0.0.9'],'type':'ClusterIP',"
              "'sessionAffinity':'None','internalTrafficPolicy':'Cluster','ipFamilyPolicy':"
              "'PreferDualStack','ipFamilies':['IPv4'],'ports':[{'port':80,'protocol':'TCP',"
              "'targetPort':80}]}}",
              "services: an update keeps the stored addresses and policy");
}

/* ---- other core kinds --------------------------------------------------------------------- */

static void
test_core(void)
{
    defaults_is("/v1/Secret", "{'data':{}}", "{'data':{},'type':'Opaque'}", "secrets: Opaque");
    unchanged("/v1/Secret", "{'type':'kubernetes.io/tls'}", "secrets: a type stays");
    unchanged("/v1/ConfigMap", "{'data':{'a':'b'}}", "config maps: nothing");
    defaults_is("/v1/Endpoints",
                "{'subsets':[{'ports':[{'port':80},{'port':53,'protocol':'UDP'}]}]}",
                "{'subsets':[{'ports':[{'port':80,'protocol':'TCP'},{'port':53,'protocol':"
                "'UDP'}]}]}",
                "endpoints: TCP ports");
    defaults_is("/v1/PersistentVolume", "{'spec':{'hostPath':{'path':'/d'}}}",
                "{'spec':{'hostPath':{'path':'/d','type':''},'persistentVolumeReclaimPolicy':"
                "'Retain','volumeMode':'Filesystem'},'status':{'phase':'Pending'}}",
                "persistent volumes: Retain, Filesystem, Pending, source defaults");
    defaults_is("/v1/PersistentVolumeClaim", "{'spec':{'volumeMode':'Block'}}",
                "{'spec':{'volumeMode':'Block'},'status':{'phase':'Pending'}}",
                "claims: Pending, a volume mode stays");
    defaults_is("/v1/LimitRange",
                "{'spec':{'limits':[{'type':'Container','max':{'cpu':'2','memory':'1Gi'},"
                "'min':{'cpu':'100m','memory':'10Mi'},'default':{'memory':'512Mi'}},"
                "{'type':'Pod','max':{'cpu':'4'}}]}}",
                "{'spec':{'limits':[{'type':'Container','max':{'cpu':'2','memory':'1Gi'},"
                "'min':{'cpu':'100m','memory':'10Mi'},'default':{'memory':'512Mi','cpu':'2'},"
                "'defaultRequest':{'memory':'512Mi','cpu':'2'}},{'type':'Pod','max':"
                "{'cpu':'4'}}]}}",
                "limit ranges: container defaults from max, requests from defaults");
    defaults_is("/v1/Node", "{'status':{'capacity':{'cpu':'4'}}}",
                "{'status':{'capacity':{'cpu':'4'},'allocatable':{'cpu':'4'}}}",
                "nodes: allocatable is the capacity");
}

/* ---- named groups ------------------------------------------------------------------------- */

static void
test_networking_rbac(void)
{
    defaults_is("networking.k8s.io/v1/NetworkPolicy",
                "{'spec':{'podSelector':{},'ingress':[{'ports':[{'port':80}]}],'egress':[{}]}}",
                "{'spec':{'podSelector':{},'ingress':[{'ports':[{'port':80,'protocol':'TCP'}]}],"
                "'egress':[{}],'policyTypes':['Ingress','Egress']}}",
                "network policies: types from the rules, TCP ports");
    defaults_is("networking.k8s.io/v1/NetworkPolicy", "{'spec':{'podSelector':{}}}",
                "{'spec':{'podSelector':{},'policyTypes':['Ingress']}}",
                "network policies: an ingress policy by default");
    unchanged("networking.k8s.io/v1/NetworkPolicy",
              "{'spec':{'podSelector':{},'policyTypes':['Egress']}}",
              "network policies: given types stay");
    defaults_is("networking.k8s.io/v1/IngressClass",
                "{'spec':{'controller':'c','parameters':{'kind':'K','name':'n'}}}",
                "{'spec':{'controller':'c','parameters':{'kind':'K','name':'n','scope':"
                "'Cluster'}}}",
                "ingress classes: parameters are cluster-scoped");
    unchanged("networking.k8s.io/v1/Ingress",
              "{'spec':{'rules':[{'http':{'paths':[{'path':'/'}]}}]}}",
              "ingresses: nothing (pathType is validated)");
    defaults_is("rbac.authorization.k8s.io/v1/RoleBinding",
                "{'roleRef':{'kind':'Role','name':'r'},'subjects':[{'kind':'User','name':'u'},"
                "{'kind':'Group','name':'g'},{'kind':'ServiceAccount','name':'s','namespace':"
                "'n'},{'kind':'User','name':'v','apiGroup':'x'}]}",
                "{'roleRef':{'kind':'Role','name':'r','apiGroup':'rbac.authorization.k8s.io'},"
                "'subjects':[{'kind':'User','name':'u','apiGroup':'rbac.authorization.k8s.io'},"
                "{'kind':'Group','name':'g','apiGroup':'rbac.authorization.k8s.io'},{'kind':"
                "'ServiceAccount','name':'s','namespace':'n'},{'kind':'User','name':'v',"
                "'apiGroup':'x'}]}",
                "role bindings: RBAC's group for the role, users and groups");
    defaults_is("rbac.authorization.k8s.io/v1/ClusterRoleBinding",
                "{'roleRef':{'kind':'ClusterRole','name':'r'}}",
                "{'roleRef':{'kind':'ClusterRole','name':'r','apiGroup':"
                "'rbac.authorization.k8s.io'}}",
                "cluster role bindings too");
}

static void
test_autoscaling(void)
{
    defaults_is("autoscaling/v2/HorizontalPodAutoscaler", "{'spec':{'maxReplicas':5}}",
                "{'spec':{'maxReplicas':5,'minReplicas':1,'metrics':[{'type':'Resource',"
                "'resource':{'name':'cpu','target':{'type':'Utilization','averageUtilization':"
                "80}}}]}}",
                "autoscalers v2: min 1, 80% CPU, no behaviour");
    defaults_is("autoscaling/v2/HorizontalPodAutoscaler",
                "{'spec':{'minReplicas':2,'metrics':[{'type':'Pods'}],'behavior':{'scaleDown':"
                "{'stabilizationWindowSeconds':60}}}}",
                "{'spec':{'minReplicas':2,'metrics':[{'type':'Pods'}],'behavior':{'scaleUp':"
                "{'stabilizationWindowSeconds':0,'selectPolicy':'Max','policies':[{'type':"
                "'Pods','value':4,'periodSeconds':15},{'type':'Percent','value':100,"
                "'periodSeconds':15}]},'scaleDown':{'stabilizationWindowSeconds':60,"
                "'selectPolicy':'Max','policies':[{'type':'Percent','value':100,"
                "'periodSeconds':15}]}}}}",
                "autoscalers v2: a behaviour gets both rules completed");
    defaults_is("autoscaling/v1/HorizontalPodAutoscaler", "{'spec':{'maxReplicas':5}}",
                "{'spec':{'maxReplicas':5,'minReplicas':1}}",
                "autoscalers v1: min 1; the 80% target is the conversion's, not a default");
}

static void
test_storage_scheduling_discovery(void)
{
    defaults_is("storage.k8s.io/v1/StorageClass", "{'provisioner':'p'}",
                "{'provisioner':'p','reclaimPolicy':'Delete','volumeBindingMode':'Immediate'}",
                "storage classes: Delete, Immediate");
    defaults_is("storage.k8s.io/v1/CSIDriver", "{'spec':{}}",
                "{'spec':{'attachRequired':true,'podInfoOnMount':false,'storageCapacity':false,"
                "'fsGroupPolicy':'ReadWriteOnceWithFSType','requiresRepublish':false,"
                "'seLinuxMount':false,'volumeLifecycleModes':['Persistent']}}",
                "CSI drivers");
    defaults_is("scheduling.k8s.io/v1/PriorityClass", "{'value':5}",
                "{'value':5,'preemptionPolicy':'PreemptLowerPriority'}",
                "priority classes: preempt lower priorities");
    defaults_is("discovery.k8s.io/v1/EndpointSlice",
                "{'addressType':'IPv4','ports':[{'port':80},{'name':'dns','port':53,'protocol':"
                "'UDP'}]}",
                "{'addressType':'IPv4','ports':[{'port':80,'name':'','protocol':'TCP'},"
                "{'name':'dns','port':53,'protocol':'UDP'}]}",
                "endpoint slices: port name and protocol");
}

static void
test_admission(void)
{
    defaults_is("admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
                "{'webhooks':[{'name':'w','clientConfig':{'service':{'name':'s','namespace':"
                "'n'}},'rules':[{'operations':['CREATE']}],'sideEffects':'None'}]}",
                "{'webhooks':[{'name':'w','clientConfig':{'service':{'name':'s','namespace':'n',"
                "'port':443}},'rules':[{'operations':['CREATE'],'scope':'*'}],'sideEffects':"
                "'None','failurePolicy':'Fail','matchPolicy':'Equivalent','namespaceSelector':{},"
                "'objectSelector':{},'timeoutSeconds':10,'reinvocationPolicy':'Never'}]}",
                "mutating webhooks");
    defaults_is("admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
                "{'webhooks':[{'name':'w','failurePolicy':'Ignore','timeoutSeconds':3}]}",
                "{'webhooks':[{'name':'w','failurePolicy':'Ignore','timeoutSeconds':3,"
                "'matchPolicy':'Equivalent','namespaceSelector':{},'objectSelector':{}}]}",
                "validating webhooks (no reinvocation policy)");
    defaults_is("admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
                "{'spec':{'matchConstraints':{'resourceRules':[{'operations':['CREATE']}]}}}",
                "{'spec':{'failurePolicy':'Fail','matchConstraints':{'matchPolicy':'Equivalent',"
                "'namespaceSelector':{},'objectSelector':{},'resourceRules':[{'operations':"
                "['CREATE'],'scope':'*'}]}}}",
                "validating admission policies");
    defaults_is("admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding",
                "{'spec':{'policyName':'p','matchResources':{}}}",
                "{'spec':{'policyName':'p','matchResources':{'matchPolicy':'Equivalent',"
                "'namespaceSelector':{},'objectSelector':{}}}}",
                "validating admission policy bindings");
}

static void
test_others(void)
{
    unchanged("example.com/v1/Widget", "{'spec':{}}", "unknown kinds are left alone");
    unchanged("autoscaling/v3/HorizontalPodAutoscaler", "{'spec':{}}",
              "a kind in another version is not another version's");
    unchanged("policy/v1/PodDisruptionBudget", "{'spec':{'minAvailable':1}}",
              "pod disruption budgets: nothing");
    unchanged("/v1/Pod", "[1]", "a document that is not an object is left alone");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_pod();
    test_container_parts();
    test_volumes();
    test_pull_policy();
    test_apps();
    test_stateful_set();
    test_jobs();
    test_core_workloads();
    test_services();
    test_core();
    test_networking_rbac();
    test_autoscaling();
    test_storage_scheduling_discovery();
    test_admission();
    test_others();
    return tap_done();
}
