/* Unit tests for gateway/audit/gw_audit_policy: an audit.k8s.io/v1 Policy read, validated and
 * evaluated as kube-apiserver's policy reader and checker do: every selector kind (users,
 * userGroups, verbs, namespaces, resources with groups, "*", subresource forms and
 * resourceNames, nonResourceURLs with a trailing "*"), the first matching rule winning,
 * omitStages of the policy and its rules, omitManagedFields, and kube's errors. */
#include <stdlib.h>
#include <string.h>

#include "gw_audit_policy.h"
#include "tap.h"

static gw_audit_policy_t *
parse(const char *text)
{
    char err[1024] = "";
    gw_audit_policy_t *p = gw_audit_policy_parse(text, strlen(text), err, sizeof(err));
    if (p == NULL)
        tap_diag("parse failed: %s", err);
    return p;
}

static const char *const masters[] = {"system:masters", "system:authenticated"};
static const char *const devs[] = {"dev", "system:authenticated"};

/* A resource request by user (groups) with verb on group/resource[/sub] name in ns. */
static gw_audit_attrs_t
res(const char *user, const char *const *groups, size_t n, const char *verb, const char *group,
    const char *resource, const char *sub, const char *ns, const char *name)
{
    return (gw_audit_attrs_t){.user = user,
                              .groups = groups,
                              .n_groups = n,
                              .verb = verb,
                              .resource_request = true,
                              .path = "",
                              .api_group = group,
                              .namespace_ = ns,
                              .resource = resource,
                              .subresource = sub,
                              .name = name};
}

static gw_audit_attrs_t
path(const char *user, const char *verb, const char *p)
{
    return (gw_audit_attrs_t){.user = user,
                              .groups = devs,
                              .n_groups = 2,
                              .verb = verb,
                              .path = p,
                              .api_group = "",
                              .namespace_ = "",
                              .resource = "",
                              .subresource = "",
                              .name = ""};
}

static const char policy[] = "apiVersion: audit.k8s.io/v1\n"
                             "kind: Policy\n"
                             "omitStages: [RequestReceived]\n"
                             "omitManagedFields: true\n"
                             "rules:\n"
                             "- level: None\n"
                             "  users: [system:kube-proxy]\n"
                             "- level: None\n"
                             "  userGroups: [system:nodes]\n"
                             "- level: RequestResponse\n"
                             "  omitManagedFields: false\n"
                             "  omitStages: [ResponseStarted]\n"
                             "  resources:\n"
                             "  - group: ''\n"
                             "    resources: [pods/log, '*/status']\n"
                             "- level: Request\n"
                             "  verbs: [update, patch]\n"
                             "  resources:\n"
                             "  - group: apps\n"
                             "    resources: ['deployments/*']\n"
                             "- level: Metadata\n"
                             "  resources:\n"
                             "  - group: ''\n"
                             "    resources: [configmaps]\n"
                             "    resourceNames: [controller-leader]\n"
                             "- level: Request\n"
                             "  namespaces: [kube-system]\n"
                             "- level: RequestResponse\n"
                             "  resources:\n"
                             "  - group: rbac.authorization.k8s.io\n"
                             "- level: Request\n"
                             "  resources:\n"
                             "  - group: batch\n"
                             "    resources: ['*']\n"
                             "- level: Metadata\n"
                             "  nonResourceURLs: [/version, '/apis/*']\n"
                             "- level: None\n"
                             "  nonResourceURLs: ['*']\n"
                             "- level: Metadata\n"
                             "  userGroups: [dev]\n";

static void
check(const gw_audit_policy_t *p, gw_audit_attrs_t a, gw_audit_level_t want, const char *name)
{
    gw_audit_decision_t d = gw_audit_policy_eval(p, &a);
    tap_is_str(gw_audit_level_name(d.level), gw_audit_level_name(want), name);
}

static void
test_selectors(void)
{
    gw_audit_policy_t *p = parse(policy);
    if (!tap_ok(p != NULL, "the policy parses"))
        return;
    tap_is_int(gw_audit_policy_rules(p), 11, "eleven rules");
    check(p, res("system:kube-proxy", NULL, 0, "get", "", "pods", "log", "a", "x"), GW_AUDIT_NONE,
          "users: the first matching rule wins (None before pods/log)");
    const char *const nodes[] = {"system:nodes"};
    check(p, res("node1", nodes, 1, "get", "", "pods", "log", "a", "x"), GW_AUDIT_NONE,
          "userGroups");
    check(p, res("admin", masters, 2, "get", "", "pods", "log", "a", "x"),
          GW_AUDIT_REQUEST_RESPONSE, "resources: resource/subresource");
    check(p, res("admin", masters, 2, "get", "", "pods", "", "default", "x"), GW_AUDIT_NONE,
          "pods/log does not match pods (and nothing else does)");
    check(p, res("admin", masters, 2, "update", "", "services", "status", "a", "x"),
          GW_AUDIT_REQUEST_RESPONSE, "*/status matches any resource's status");
    check(p, res("admin", masters, 2, "update", "", "services", "", "a", "x"), GW_AUDIT_NONE,
          "*/status does not match the resource itself");
    check(p, res("admin", masters, 2, "patch", "apps", "deployments", "scale", "a", "x"),
          GW_AUDIT_REQUEST, "deployments/* matches its subresources");
    check(p, res("admin", masters, 2, "patch", "apps", "deployments", "", "a", "x"),
          GW_AUDIT_REQUEST, "... and the resource itself");
    check(p, res("admin", masters, 2, "get", "apps", "deployments", "", "a", "x"), GW_AUDIT_NONE,
          "verbs: get is not update or patch");
    check(p, res("admin", masters, 2, "get", "", "configmaps", "", "a", "controller-leader"),
          GW_AUDIT_METADATA, "resourceNames: the named object");
    check(p, res("admin", masters, 2, "get", "", "configmaps", "", "a", "other"), GW_AUDIT_NONE,
          "resourceNames: another object");
    check(p, res("admin", masters, 2, "get", "", "configmaps", "", "kube-system", "other"),
          GW_AUDIT_REQUEST, "namespaces");
    check(p, res("admin", masters, 2, "list", "rbac.authorization.k8s.io", "roles", "", "", ""),
          GW_AUDIT_REQUEST_RESPONSE, "a group without resources: all of its resources");
    check(p, res("admin", masters, 2, "list", "batch", "jobs", "", "a", ""), GW_AUDIT_REQUEST,
          "resources: *");
    check(p, res("admin", masters, 2, "list", "batch", "jobs", "status", "a", ""), GW_AUDIT_REQUEST,
          "resources: * also matches subresources");
    check(p, path("admin", "get", "/version"), GW_AUDIT_METADATA, "nonResourceURLs: exact");
    check(p, path("admin", "get", "/apis/apps/v1"), GW_AUDIT_METADATA,
          "nonResourceURLs: a trailing * matches the rest");
    check(p, path("admin", "get", "/apis"), GW_AUDIT_NONE, "/apis/* does not match /apis");
    check(p, path("admin", "get", "/healthz"), GW_AUDIT_NONE, "nonResourceURLs: *");
    check(p, res("alice", devs, 2, "get", "", "secrets", "", "a", "s"), GW_AUDIT_METADATA,
          "a resource request skips the nonResourceURLs rules");
    check(p, res(NULL, NULL, 0, "get", "", "secrets", "", "a", "s"), GW_AUDIT_NONE,
          "no rule matches: None");

    gw_audit_attrs_t a = res("admin", masters, 2, "get", "", "pods", "log", "a", "x");
    gw_audit_decision_t d = gw_audit_policy_eval(p, &a);
    tap_is_int(d.omit_stages, GW_AUDIT_STAGE_REQUEST_RECEIVED | GW_AUDIT_STAGE_RESPONSE_STARTED,
               "a rule's omitStages are united with the policy's");
    tap_ok(!d.omit_managed_fields, "a rule's omitManagedFields overrides the policy's");
    a = res("admin", masters, 2, "list", "batch", "jobs", "", "a", "");
    d = gw_audit_policy_eval(p, &a);
    tap_is_int(d.omit_stages, GW_AUDIT_STAGE_REQUEST_RECEIVED, "the policy's omitStages alone");
    tap_ok(d.omit_managed_fields, "the policy's omitManagedFields where the rule says nothing");
    a = res(NULL, NULL, 0, "get", "", "secrets", "", "a", "s");
    d = gw_audit_policy_eval(p, &a);
    tap_ok(d.omit_managed_fields && d.omit_stages == GW_AUDIT_STAGE_REQUEST_RECEIVED,
           "no match: the policy's stages and managedFields choice");
    gw_audit_policy_free(p);
}

static void
test_json(void)
{
    gw_audit_policy_t *p =
        parse("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":[{\"level\":"
              "\"Metadata\"}]}");
    tap_ok(p != NULL, "a JSON policy parses");
    if (p != NULL) {
        gw_audit_attrs_t a = path("x", "get", "/");
        tap_is_int(gw_audit_policy_eval(p, &a).level, GW_AUDIT_METADATA,
                   "a rule without selectors matches everything");
    }
    gw_audit_policy_free(p);
}

static void
bad(const char *text, const char *want, const char *name)
{
    char err[1024] = "";
    gw_audit_policy_t *p = gw_audit_policy_parse(text, strlen(text), err, sizeof(err));
    tap_ok(p == NULL, "%s: refused", name);
    tap_is_str(err, want, name);
    gw_audit_policy_free(p);
}

#define HEAD "apiVersion: audit.k8s.io/v1\nkind: Policy\n"

static void
test_errors(void)
{
    bad(HEAD, "loaded illegal policy with 0 rules", "no rules");
    bad("kind: Policy\nrules: []\n",
        "failed decoding: Object 'apiVersion' is missing in 'kind: Policy\nrules: []\n'",
        "no apiVersion");
    bad("apiVersion: audit.k8s.io/v1\n",
        "failed decoding: Object 'Kind' is missing in 'apiVersion: audit.k8s.io/v1\n'", "no kind");
    bad(HEAD "rules:\n- {}\n", "rules[0].level: Required value", "a rule without a level");
    bad(HEAD "rules:\n- level: Everything\n",
        "rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", "
        "\"Metadata\", \"Request\", \"RequestResponse\"",
        "an unknown level");
    bad(HEAD "rules:\n- level: None\n  nonResourceURLs: [healthz, '/a*b']\n",
        "[rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must "
        "begin with a '/' character, rules[0].nonResourceURLs[1]: Invalid value: \"/a*b\": "
        "non-resource URL wildcards '*' must be the final character of the rule]",
        "non-resource URLs");
    bad(HEAD "rules:\n- level: None\n  omitStages: [Later]\n",
        "rules[0].omitStages[0]: Invalid value: \"Later\": allowed stages are "
        "RequestReceived,ResponseStarted,ResponseComplete,Panic",
        "an unknown stage");
    bad(HEAD "rules:\n- level: None\n  resources: [{group: ''}]\n  nonResourceURLs: [/x]\n",
        "rules[0].nonResourceURLs: Invalid value: []string{\"/x\"}: rules cannot apply to both "
        "regular resources and non-resource URLs",
        "resources and nonResourceURLs");
    bad(HEAD "rules:\n- level: None\n  resources: [{group: Apps, resourceNames: [a]}]\n",
        "[rules[0].resources.group: Invalid value: \"Apps\": a lowercase RFC 1123 subdomain must "
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
        "rules[0].resources.resourceNames: Invalid value: []string{\"a\"}: using resourceNames "
        "requires at least one resource]",
        "a group that is no DNS subdomain, resourceNames without resources");
    bad(HEAD "rules:\n- level: 3\n",
        "failed decoding: json: cannot unmarshal number into Go struct field "
        "PolicyRule.rules.level of type v1.Level",
        "a level that is no string");
    bad("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n",
        "failed decoding: no kind \"Policy\" is registered for version \"audit.k8s.io/v1beta1\" "
        "in scheme \"k8s.io/apiserver/pkg/audit/scheme.go:30\"",
        "a removed version");
}

static void
test_load(void)
{
    char err[512];
    tap_ok(gw_audit_policy_load("/nonexistent/policy.yaml", err, sizeof(err)) == NULL,
           "a missing file is refused");
    tap_is_str(err,
               "failed to read file path \"/nonexistent/policy.yaml\": open "
               "/nonexistent/policy.yaml: no such file or directory",
               "... in kube's words");
}

int
main(void)
{
    test_selectors();
    test_json();
    test_errors();
    test_load();
    return tap_done();
}
