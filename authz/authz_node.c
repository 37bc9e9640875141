/* The Node authorizer's decisions: which rule a (group, resource) falls under, and the rules. */
#include "authz_node.h"

#include <stdio.h>
#include <string.h>

#include "authz_node_int.h"
#include "authz_rbac_int.h"
#include "gw_selector.h"

#define NODE_USER_PREFIX "system:node:"
#define NODES_GROUP "system:nodes"
#define LEASE_NAMESPACE "kube-node-lease"

/* One request being decided; why receives the reason of a NO_OPINION. */
typedef struct {
    const authz_attrs_t *a;
    const char *node;
    const authz_node_graph_t *g;
    char why[256];
} req_t;

typedef authz_decision_t (*rule_fn)(req_t *r, const char *kind);

/* kube's NodeRules: what every node may do beyond what the graph decides (set at start-up). */
static json_t *static_rules;

void
authz_node_use_rules(const json_t *rules)
{
    json_decref(static_rules);
    static_rules = rules != NULL ? json_deep_copy(rules) : NULL;
}

/* What kube leaves to the static rules (and its NodeRestriction admission to narrow). */
static authz_decision_t
by_static_rules(req_t *r)
{
    size_t i;
    const json_t *rule;

    json_array_foreach(static_rules, i, rule)
    {
        if (authz__rule_allows(rule, r->a))
            return AUTHZ_ALLOW;
    }
    return AUTHZ_NO_OPINION;
}

static bool
is(const char *s, const char *want)
{
    return s != NULL && strcmp(s, want) == 0;
}

static bool
empty(const char *s)
{
    return s == NULL || *s == '\0';
}

static authz_decision_t
no_opinion(req_t *r, const char *why)
{
    snprintf(r->why, sizeof(r->why), "%s", why);
    return AUTHZ_NO_OPINION;
}

/* Whether a pod bound to the node reaches the named object. */
static authz_decision_t
related(req_t *r, const char *kind)
{
    if (empty(r->a->name))
        return no_opinion(r, "No Object name found");
    if (authz_node_graph_has(r->g, r->node, kind, r->a->namespace_ ? r->a->namespace_ : "",
                             r->a->name))
        return AUTHZ_ALLOW;
    snprintf(r->why, sizeof(r->why), "no relationship found between node '%s' and this object",
             r->node);
    return AUTHZ_NO_OPINION;
}

/* secrets and configmaps: kube reads them by name only (a list or watch narrowed to one name
 * by a field selector carries that name). */
static authz_decision_t
read_object(req_t *r, const char *kind)
{
    if (!is(r->a->verb, "get") && !is(r->a->verb, "list") && !is(r->a->verb, "watch"))
        return no_opinion(r, "can only read resources of this type");
    if (!empty(r->a->subresource))
        return no_opinion(r, "cannot read subresource");
    if (empty(r->a->namespace_))
        return no_opinion(r, "can only read namespaced object of this type");
    return related(r, kind);
}

/* persistentvolumeclaims and persistentvolumes: get only. */
static authz_decision_t
get_object(req_t *r, const char *kind)
{
    if (!is(r->a->verb, "get"))
        return no_opinion(r, "can only get individual resources of this type");
    if (!empty(r->a->subresource))
        return no_opinion(r, "cannot get subresource");
    return related(r, kind);
}

static authz_decision_t
create_token(req_t *r, const char *kind)
{
    if (!is(r->a->verb, "create") || empty(r->a->name))
        return no_opinion(r, "can only create tokens for individual service accounts");
    if (!is(r->a->subresource, "token"))
        return no_opinion(r, "can only create token subresource of serviceaccount");
    return related(r, kind);
}

/* Whether a field selector (a list's or watch's) requires spec.nodeName=<node> (or ==): kube
 * lets a node list and watch exactly its own pods that way. One that does not parse has no
 * requirements. */
static bool
selects_node(const char *field_selector, const char *node)
{
    gw_selector_t sel;
    char err[256];
    bool found = false;

    if (field_selector == NULL ||
        gw_field_selector_parse(field_selector, &sel, err, sizeof(err)) != 0)
        return false;
    for (size_t i = 0; i < sel.n && !found; i++)
        found = sel.reqs[i].op == GW_SEL_EQUALS && is(sel.reqs[i].key, "spec.nodeName") &&
                sel.reqs[i].n_values == 1 && is(sel.reqs[i].values[0], node);
    gw_selector_clear(&sel);
    return found;
}

/* Its pods: get one, list and watch those bound to it, update their status (only theirs: what
 * kube's admission narrows the static rules to); the rest by the static rules (mirror pods,
 * evictions). */
static authz_decision_t
pod(req_t *r, const char *kind)
{
    bool listing = is(r->a->verb, "list") || is(r->a->verb, "watch");

    if ((is(r->a->verb, "update") || is(r->a->verb, "patch")) && is(r->a->subresource, "status"))
        return related(r, kind);
    if (!is(r->a->verb, "get") && !listing)
        return by_static_rules(r);
    if (!empty(r->a->subresource))
        return no_opinion(r, "");
    if (listing && selects_node(r->a->field_selector, r->node))
        return AUTHZ_ALLOW;
    /* a list or watch narrowed to one pod by name is read like a get */
    if (listing && empty(r->a->name))
        return no_opinion(r, "can only list/watch pods with spec.nodeName field selector");
    return related(r, kind);
}

/* Nodes: read only its own (by name, without the graph: a kubelet reads its Node before
 * creating it), modify only its own (what kube's admission narrows the static rules to);
 * the rest (registering one) by the static rules. */
static authz_decision_t
node(req_t *r, const char *kind)
{
    (void)kind;
    bool read = is(r->a->verb, "get") || is(r->a->verb, "list") || is(r->a->verb, "watch");
    bool write = is(r->a->verb, "update") || is(r->a->verb, "patch") || is(r->a->verb, "delete");
    if (!read && !write)
        return by_static_rules(r);
    if ((read && !empty(r->a->subresource)) ||
        (write && !empty(r->a->subresource) && !is(r->a->subresource, "status")))
        return no_opinion(r, "");
    if (is(r->a->name, r->node))
        return read ? AUTHZ_ALLOW : by_static_rules(r);
    if (read && empty(r->a->name))
        snprintf(r->why, sizeof(r->why),
                 "node '%s' cannot read all nodes, only its own Node object", r->node);
    else if (read)
        snprintf(r->why, sizeof(r->why), "node '%s' cannot read '%s', only its own Node object",
                 r->node, r->a->name);
    else
        snprintf(r->why, sizeof(r->why), "node '%s' can only modify its own Node object", r->node);
    return AUTHZ_NO_OPINION;
}

/* Its Lease in kube-node-lease; a create carries no name, which kube leaves to admission. */
static authz_decision_t
lease(req_t *r, const char *kind)
{
    static const char *const verbs[] = {"get", "create", "update", "patch", "delete"};
    bool known = false;

    (void)kind;
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        known = known || is(r->a->verb, verbs[i]);
    if (!known)
        return no_opinion(r, "can only get, create, update, patch, or delete a node lease");
    if (!empty(r->a->subresource))
        return no_opinion(r, "cannot access subresource of a node lease");
    if (!is(r->a->namespace_, LEASE_NAMESPACE))
        return no_opinion(r, "can only access leases in the kube-node-lease namespace");
    if (!is(r->a->verb, "create") && !is(r->a->name, r->node))
        return no_opinion(r, "can only access node lease with the same name as the requesting "
                             "node");
    return AUTHZ_ALLOW;
}

static const struct {
    const char *group, *resource;
    rule_fn fn;
    const char *kind; /* the graph's, for the rules that ask it */
} rules[] = {
    {"", "secrets", read_object, "secret"},
    {"", "configmaps", read_object, "configmap"},
    {"", "persistentvolumeclaims", get_object, "pvc"},
    {"", "persistentvolumes", get_object, "pv"},
    {"", "serviceaccounts", create_token, "serviceaccount"},
    {"", "pods", pod, "pod"},
    {"", "nodes", node, NULL},
    {"coordination.k8s.io", "leases", lease, NULL},
};

/* The node name of a node identity ("" for system:node: alone), or NULL for anyone else. */
static const char *
node_name(const authn_user_t *u)
{
    bool in_group = false;

    if (u == NULL || strncmp(u->name, NODE_USER_PREFIX, strlen(NODE_USER_PREFIX)) != 0)
        return NULL;
    for (size_t i = 0; i < u->n_groups; i++)
        in_group = in_group || strcmp(u->groups[i], NODES_GROUP) == 0;
    return in_group ? u->name + strlen(NODE_USER_PREFIX) : NULL;
}

static void
node_authorize(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
               void *ctx)
{
    req_t r = {.a = attrs, .node = node_name(attrs->user)};

    (void)self;
    if (r.node == NULL) {
        cb(AUTHZ_NO_OPINION, "", NULL, ctx);
        return;
    }
    if (*r.node == '\0') {
        snprintf(r.why, sizeof(r.why), "unknown node for user \"%s\"", attrs->user->name);
        cb(AUTHZ_NO_OPINION, r.why, NULL, ctx);
        return;
    }
    for (size_t i = 0; attrs->resource_request && i < sizeof(rules) / sizeof(rules[0]); i++) {
        const char *group = attrs->api_group != NULL ? attrs->api_group : "";
        if (is(group, rules[i].group) && is(attrs->resource, rules[i].resource)) {
            authz_node_graph_t *g = authz_node__current();
            r.g = g;
            authz_decision_t d = rules[i].fn(&r, rules[i].kind);
            authz_node_graph_unref(g);
            cb(d, r.why, NULL, ctx);
            return;
        }
    }
    cb(by_static_rules(&r), "", NULL, ctx);
}

static void
node_free(authz_authorizer_t *self)
{
    (void)self;
}

authz_authorizer_t authz_node_authorizer = {
    .name = "Node", .label = "node", .authorize = node_authorize, .free = node_free};
