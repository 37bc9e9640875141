/* Classification: whether a FlowSchema's rules match a request, as kube's flowcontrol
 * matching (rule.go), read straight from the stored object. */
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_apf.h"

#define SA_PREFIX "system:serviceaccount:"

/* Whether the string array `arr` holds `s` or, with `star`, "*". */
static bool
has(const json_t *arr, const char *s, bool star)
{
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
    {
        const char *x = json_string_value(v);
        if (x != NULL && ((star && strcmp(x, "*") == 0) || strcmp(x, s) == 0))
            return true;
    }
    return false;
}

static const char *
str_at(const json_t *obj, const char *a, const char *b)
{
    const json_t *v = json_object_get(obj, a);
    if (b != NULL)
        v = json_object_get(v, b);
    return json_string_value(v);
}

/* A ServiceAccount subject: the user is system:serviceaccount:<ns>:<name>, any name for "*". */
static bool
sa_matches(const json_t *sa, const char *user)
{
    const char *ns = str_at(sa, "namespace", NULL), *name = str_at(sa, "name", NULL);
    size_t nslen;

    if (ns == NULL || name == NULL || strncmp(user, SA_PREFIX, strlen(SA_PREFIX)) != 0)
        return false;
    user += strlen(SA_PREFIX);
    nslen = strlen(ns);
    if (strncmp(user, ns, nslen) != 0 || user[nslen] != ':')
        return false;
    user += nslen + 1;
    return *user != '\0' && strchr(user, ':') == NULL &&
           (strcmp(name, "*") == 0 || strcmp(name, user) == 0);
}

static bool
subject_matches(const json_t *s, const gw_apf_digest_t *d)
{
    const char *kind = str_at(s, "kind", NULL), *name;

    if (kind == NULL)
        return false;
    if (strcmp(kind, "User") == 0) {
        name = str_at(s, "user", "name");
        return name != NULL && (strcmp(name, "*") == 0 || strcmp(name, d->user) == 0);
    }
    if (strcmp(kind, "Group") == 0) {
        name = str_at(s, "group", "name");
        if (name == NULL)
            return false;
        if (strcmp(name, "*") == 0)
            return true;
        for (size_t i = 0; i < d->n_groups; i++) {
            if (strcmp(d->groups[i], name) == 0)
                return true;
        }
        return false;
    }
    if (strcmp(kind, "ServiceAccount") == 0)
        return sa_matches(json_object_get(s, "serviceAccount"), d->user);
    return false;
}

/* A rule's resource against the request's, "pods/status" naming a subresource. */
static bool
resource_matches(const json_t *resources, const gw_apf_digest_t *d)
{
    size_t i;
    json_t *v;
    size_t rlen = strlen(d->resource);

    json_array_foreach(resources, i, v)
    {
        const char *x = json_string_value(v);
        if (x == NULL)
            continue;
        if (strcmp(x, "*") == 0)
            return true;
        if (*d->subresource == '\0' ? strcmp(x, d->resource) == 0
                                    : strncmp(x, d->resource, rlen) == 0 && x[rlen] == '/' &&
                                          strcmp(x + rlen + 1, d->subresource) == 0)
            return true;
    }
    return false;
}

static bool
resource_rule_matches(const json_t *r, const gw_apf_digest_t *d)
{
    if (!has(json_object_get(r, "verbs"), d->verb, true) ||
        !has(json_object_get(r, "apiGroups"), d->api_group, true) ||
        !resource_matches(json_object_get(r, "resources"), d))
        return false;
    if (*d->namespace_ == '\0')
        return json_is_true(json_object_get(r, "clusterScope"));
    return has(json_object_get(r, "namespaces"), d->namespace_, true);
}

/* "*" matches every path, "/x/" followed by "*" every path under "/x/", anything else
 * itself. */
static bool
url_matches(const json_t *urls, const char *path)
{
    size_t i;
    json_t *v;

    json_array_foreach(urls, i, v)
    {
        const char *x = json_string_value(v);
        size_t n = x != NULL ? strlen(x) : 0;
        if (x == NULL)
            continue;
        if (strcmp(x, "*") == 0 || strcmp(x, path) == 0)
            return true;
        if (n > 0 && x[n - 1] == '*' && strncmp(x, path, n - 1) == 0)
            return true;
    }
    return false;
}

static bool
nonresource_rule_matches(const json_t *r, const gw_apf_digest_t *d)
{
    return has(json_object_get(r, "verbs"), d->verb, true) &&
           url_matches(json_object_get(r, "nonResourceURLs"), d->path);
}

static bool
rules_match(const json_t *prws, const gw_apf_digest_t *d)
{
    size_t i;
    json_t *s;
    bool subject = false;

    json_array_foreach(json_object_get(prws, "subjects"), i, s)
    {
        if ((subject = subject_matches(s, d)))
            break;
    }
    if (!subject)
        return false;
    if (d->is_resource) {
        json_array_foreach(json_object_get(prws, "resourceRules"), i, s)
        {
            if (resource_rule_matches(s, d))
                return true;
        }
        return false;
    }
    json_array_foreach(json_object_get(prws, "nonResourceRules"), i, s)
    {
        if (nonresource_rule_matches(s, d))
            return true;
    }
    return false;
}

bool
gw_apf_fs_matches(const json_t *fs, const gw_apf_digest_t *d)
{
    size_t i;
    json_t *prws;

    json_array_foreach(json_object_get(json_object_get(fs, "spec"), "rules"), i, prws)
    {
        if (rules_match(prws, d))
            return true;
    }
    return false;
}

const char *
gw_apf_distinguisher(const json_t *fs, const gw_apf_digest_t *d)
{
    const char *type = str_at(json_object_get(fs, "spec"), "distinguisherMethod", "type");

    if (type == NULL)
        return "";
    if (strcmp(type, "ByUser") == 0)
        return d->user;
    if (strcmp(type, "ByNamespace") == 0)
        return d->is_resource ? d->namespace_ : "";
    return "";
}

uint64_t
gw_apf_flow_hash(const char *fs_name, const char *distinguisher)
{
    size_t a = strlen(fs_name), b = strlen(distinguisher);
    unsigned char *buf = gw_malloc(a + b + 1);
    unsigned char sum[SHA256_DIGEST_LENGTH];
    uint64_t h = 0;

    memcpy(buf, fs_name, a);
    buf[a] = 0;
    memcpy(buf + a + 1, distinguisher, b);
    SHA256(buf, a + b + 1, sum);
    free(buf);
    for (int i = 7; i >= 0; i--)
        h = h << 8 | sum[i];
    return h;
}

void
gw_apf_deal(uint64_t hash, int deck_size, int hand_size, int *hand)
{
    /* kube's Dealer: mixed-radix digits of the hash, each then moved past the cards that an
     * earlier digit (as drawn, not as moved) did not exceed */
    for (int i = 0; i < hand_size; i++) {
        uint64_t left = (uint64_t)(deck_size - i);
        hand[i] = (int)(hash % left);
        hash /= left;
    }
    for (int i = hand_size - 1; i > 0; i--) {
        int card = hand[i];
        for (int j = i; j > 0; j--) {
            if (card >= hand[j - 1])
                card++;
        }
        hand[i] = card;
    }
}
