/* The node graph: which objects each node reaches through the pods bound to it, as the
 * vertices kube's graph populator adds for a pod (plugin/pkg/auth/authorizer/node/graph.go). */
#include "authz_node.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "authz_node_int.h"
#include "gw_alloc.h"

struct authz_node_graph {
    atomic_int refs;
    /* "<node>/<kind>/<ns>/<name>" -> true: none of the parts may hold a '/' (kube names of
     * these kinds are path segments), so the keys do not collide. */
    json_t *edges;
};

/* One pod being added: its node, namespace, and the claims' bound volumes. */
typedef struct {
    authz_node_graph_t *g;
    const char *node;
    const char *ns;
    const json_t *claim_volumes; /* "<ns>/<claim>" -> volumeName */
} pod_ctx_t;

static pthread_mutex_t current_mu = PTHREAD_MUTEX_INITIALIZER;
static authz_node_graph_t *current;

static const char *
str_at(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    if (b != NULL)
        v = json_object_get(v, b);
    return json_string_value(v);
}

static void
add_edge(const pod_ctx_t *p, const char *kind, const char *name)
{
    if (name == NULL || *name == '\0' || strchr(name, '/') != NULL)
        return;
    char *key =
        gw_sprintf("%s/%s/%s/%s", p->node, kind, strcmp(kind, "pv") == 0 ? "" : p->ns, name);
    json_object_set_new(p->g->edges, key, json_true());
    free(key);
}

static void
add_claim(const pod_ctx_t *p, const char *claim)
{
    if (claim == NULL)
        return;
    add_edge(p, "pvc", claim);
    char *key = gw_sprintf("%s/%s", p->ns, claim);
    add_edge(p, "pv", json_string_value(json_object_get(p->claim_volumes, key)));
    free(key);
}

/* A volume source's secret: that of the secret and azureFile sources (secretName), of the
 * storage plugins (secretRef) and csi's nodePublishSecretRef. */
static void
add_source(const pod_ctx_t *p, const json_t *src)
{
    add_edge(p, "secret", str_at(src, "secretName", NULL));
    add_edge(p, "secret", str_at(src, "secretRef", "name"));
    add_edge(p, "secret", str_at(src, "nodePublishSecretRef", "name"));
}

static void
add_projected(const pod_ctx_t *p, const json_t *projected)
{
    size_t i;
    const json_t *src;

    json_array_foreach(json_object_get(projected, "sources"), i, src)
    {
        add_edge(p, "secret", str_at(src, "secret", "name"));
        add_edge(p, "configmap", str_at(src, "configMap", "name"));
    }
}

static void
add_volume(const pod_ctx_t *p, const char *pod_name, const json_t *vol)
{
    const char *key;
    const json_t *src;

    json_object_foreach((json_t *)vol, key, src)
    {
        if (strcmp(key, "configMap") == 0) {
            add_edge(p, "configmap", str_at(src, "name", NULL));
        } else if (strcmp(key, "projected") == 0) {
            add_projected(p, src);
        } else if (strcmp(key, "persistentVolumeClaim") == 0) {
            add_claim(p, str_at(src, "claimName", NULL));
        } else if (strcmp(key, "ephemeral") == 0 && str_at(vol, "name", NULL) != NULL) {
            /* the claim of a generic ephemeral volume is named <pod>-<volume> */
            char *claim = gw_sprintf("%s-%s", pod_name, str_at(vol, "name", NULL));
            add_claim(p, claim);
            free(claim);
        } else if (json_is_object(src)) {
            add_source(p, src);
        }
    }
}

static void
add_container(const pod_ctx_t *p, const json_t *c)
{
    size_t i;
    const json_t *e;

    json_array_foreach(json_object_get(c, "env"), i, e)
    {
        const json_t *from = json_object_get(e, "valueFrom");
        add_edge(p, "secret", str_at(from, "secretKeyRef", "name"));
        add_edge(p, "configmap", str_at(from, "configMapKeyRef", "name"));
    }
    json_array_foreach(json_object_get(c, "envFrom"), i, e)
    {
        add_edge(p, "secret", str_at(e, "secretRef", "name"));
        add_edge(p, "configmap", str_at(e, "configMapRef", "name"));
    }
}

static void
add_pod(pod_ctx_t *p, const json_t *pod)
{
    static const char *const lists[] = {"containers", "initContainers", "ephemeralContainers"};
    const json_t *spec = json_object_get(pod, "spec");
    const char *name = str_at(pod, "metadata", "name");
    size_t i;
    const json_t *o;

    p->node = str_at(spec, "nodeName", NULL);
    p->ns = str_at(pod, "metadata", "namespace");
    if (p->node == NULL || *p->node == '\0' || strchr(p->node, '/') != NULL || p->ns == NULL ||
        name == NULL)
        return;
    add_edge(p, "pod", name);
    add_edge(p, "serviceaccount", str_at(spec, "serviceAccountName", NULL));
    json_array_foreach(json_object_get(spec, "imagePullSecrets"), i, o)
    {
        add_edge(p, "secret", str_at(o, "name", NULL));
    }
    json_array_foreach(json_object_get(spec, "volumes"), i, o)
    {
        add_volume(p, name, o);
    }
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        json_array_foreach(json_object_get(spec, lists[l]), i, o)
        {
            add_container(p, o);
        }
    }
}

/* "<ns>/<claim>" -> spec.volumeName of the bound claims. */
static json_t *
claim_volumes(const json_t *claims)
{
    json_t *out = json_object();
    size_t i;
    const json_t *c;

    json_array_foreach(claims, i, c)
    {
        const char *vol = str_at(c, "spec", "volumeName");
        const char *ns = str_at(c, "metadata", "namespace");
        const char *name = str_at(c, "metadata", "name");
        if (vol == NULL || *vol == '\0' || ns == NULL || name == NULL)
            continue;
        char *key = gw_sprintf("%s/%s", ns, name);
        json_object_set_new(out, key, json_string(vol));
        free(key);
    }
    return out;
}

authz_node_graph_t *
authz_node_graph_new(const json_t *pods, const json_t *claims)
{
    authz_node_graph_t *g = gw_calloc(1, sizeof(*g));
    json_t *volumes = claim_volumes(claims);
    pod_ctx_t p = {.g = g, .claim_volumes = volumes};
    size_t i;
    const json_t *pod;

    atomic_init(&g->refs, 1);
    g->edges = json_object();
    json_array_foreach(pods, i, pod)
    {
        add_pod(&p, pod);
    }
    json_decref(volumes);
    return g;
}

void
authz_node_graph_unref(authz_node_graph_t *g)
{
    if (g == NULL || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    json_decref(g->edges);
    free(g);
}

bool
authz_node_graph_has(const authz_node_graph_t *g, const char *node, const char *kind,
                     const char *ns, const char *name)
{
    if (g == NULL)
        return false;
    char *key = gw_sprintf("%s/%s/%s/%s", node, kind, strcmp(kind, "pv") == 0 ? "" : ns, name);
    bool has = json_object_get(g->edges, key) != NULL;
    free(key);
    return has;
}

void
authz_node_publish(authz_node_graph_t *g)
{
    pthread_mutex_lock(&current_mu);
    authz_node_graph_t *old = current;
    current = g;
    pthread_mutex_unlock(&current_mu);
    authz_node_graph_unref(old);
}

authz_node_graph_t *
authz_node__current(void)
{
    pthread_mutex_lock(&current_mu);
    authz_node_graph_t *g = current;
    if (g != NULL)
        atomic_fetch_add(&g->refs, 1);
    pthread_mutex_unlock(&current_mu);
    return g;
}
