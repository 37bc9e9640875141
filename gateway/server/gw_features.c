/* Feature gates: kube 1.32's table and its Set and Enabled rules (component-base/featuregate). */
#include "gw_features.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gw_log.h"
#include "gw_metric.h"

typedef enum { ALPHA, BETA, GA, DEPRECATED } stage_t;

typedef struct {
    const char *name;
    bool dflt;
    stage_t stage;
    bool locked;
} gate_t;

static const gate_t gates[] = {
#define GATE(name, dflt, stage, locked) {#name, dflt, stage, locked},
#include "gw_features_table.h"
#undef GATE
};

#define N_GATES (sizeof(gates) / sizeof(gates[0]))

/* What --feature-gates set: 0 not named, 1 off, 2 on. */
static unsigned char set_to[N_GATES];
static bool all_alpha, all_beta;

/* kube prints the stage as its PreRelease string, which is empty for GA. */
static const char *const stage_names[] = {
    [ALPHA] = "ALPHA", [BETA] = "BETA", [GA] = "", [DEPRECATED] = "DEPRECATED"};

static const gate_t *
find(const char *name, size_t len)
{
    for (size_t i = 0; i < N_GATES; i++)
        if (strlen(gates[i].name) == len && strncmp(gates[i].name, name, len) == 0)
            return &gates[i];
    return NULL;
}

/* strconv.ParseBool's spellings. */
int
gw_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
            *out = strcmp(s, yes[i]) == 0;
            return 0;
        }
    }
    return -1;
}

typedef struct {
    const gate_t *gate;
    bool value;
} parsed_t;

/* Split "Name=value" as kube's Set does (strings.TrimSpace on both sides) and judge it. */
static const char *
parse(const char *item, parsed_t *p, char *err, size_t len)
{
    const char *eq = strchr(item, '=');
    const char *k = item, *k_end = eq != NULL ? eq : item + strlen(item);
    while (*k == ' ' || *k == '\t')
        k++;
    while (k_end > k && (k_end[-1] == ' ' || k_end[-1] == '\t'))
        k_end--;
    int klen = (int)(k_end - k);
    if (eq == NULL) {
        snprintf(err, len, "missing bool value for %.*s", klen, k);
        return err;
    }
    char v[64];
    const char *vs = eq + 1;
    while (*vs == ' ' || *vs == '\t')
        vs++;
    snprintf(v, sizeof(v), "%s", vs);
    for (size_t n = strlen(v); n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t');)
        v[--n] = '\0';
    p->gate = find(k, (size_t)klen);
    if (p->gate == NULL) {
        snprintf(err, len, "unrecognized feature gate: %.*s", klen, k);
        return err;
    }
    if (gw_parse_bool(v, &p->value) != 0) {
        snprintf(err, len,
                 "invalid value of %.*s=%s, err: strconv.ParseBool: parsing \"%s\": invalid syntax",
                 klen, k, v, v);
        return err;
    }
    if (p->gate->locked && p->value != p->gate->dflt) {
        snprintf(err, len, "cannot set feature gate %s to %s, feature is locked to %s",
                 p->gate->name, p->value ? "true" : "false", p->gate->dflt ? "true" : "false");
        return err;
    }
    return NULL;
}

const char *
gw_features_check(const char *item)
{
    static _Thread_local char err[256];
    parsed_t p;
    return parse(item, &p, err, sizeof(err));
}

int
gw_features_set(const char *const *items, size_t n, char *err, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        parsed_t p;
        if (parse(items[i], &p, err, len) != NULL)
            return -1;
        size_t at = (size_t)(p.gate - gates);
        set_to[at] = p.value ? 2 : 1;
        if (strcmp(p.gate->name, "AllAlpha") == 0)
            all_alpha = p.value;
        if (strcmp(p.gate->name, "AllBeta") == 0)
            all_beta = p.value;
        if (p.gate->stage == GA)
            gw_log_warn("features",
                        "Setting GA feature gate %s=%s. It will be removed in a future release.",
                        p.gate->name, p.value ? "true" : "false");
        else if (p.gate->stage == DEPRECATED)
            gw_log_warn("features",
                        "Setting deprecated feature gate %s=%s. It will be removed in a future "
                        "release.",
                        p.gate->name, p.value ? "true" : "false");
    }
    return 0;
}

/* A gate's value: named, else AllAlpha/AllBeta for an unlocked gate of that stage, else its
 * default (kube's SetFromMap applies AllAlpha/AllBeta only to gates not named themselves). */
static bool
value_of(size_t i)
{
    const gate_t *g = &gates[i];
    if (set_to[i] != 0)
        return set_to[i] == 2;
    if (!g->locked && g->stage == ALPHA && all_alpha)
        return true;
    if (!g->locked && g->stage == BETA && all_beta)
        return true;
    return g->dflt;
}

bool
gw_feature_enabled(const char *name)
{
    const gate_t *g = find(name, strlen(name));
    return g != NULL && value_of((size_t)(g - gates));
}

void
gw_features_publish(void)
{
    static const char *const labels[] = {"name", "stage"};
    static const gw_metric_desc_t desc = {
        .name = "kubernetes_feature_enabled",
        .help = "This metric records the data about the stage and enablement of a k8s feature.",
        .stability = "BETA",
        .type = GW_METRIC_GAUGE,
        .labels = labels,
        .n_labels = 2,
    };
    gw_metric_t *m = gw_metric_family(&desc);
    for (size_t i = 0; i < N_GATES; i++) {
        const char *values[] = {gates[i].name, stage_names[gates[i].stage]};
        gw_metric_set(m, values, value_of(i) ? 1 : 0);
    }
}

void
gw_features_reset(void)
{
    memset(set_to, 0, sizeof(set_to));
    all_alpha = all_beta = false;
}
