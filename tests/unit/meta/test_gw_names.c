/* Unit tests for gateway/meta/gw_names: kube-apiserver's name and label validators, with
 * their exact messages. */
#include <string.h>

#include "gw_names.h"
#include "tap.h"

typedef const char *(*validator_fn)(const char *);

typedef struct {
    const char *value;
    const char *want; /* NULL: valid; "": invalid with the validator's regex message; else exact */
} vcase_t;

#define SUBDOMAIN_RE                                                                               \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "  \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define LABEL_RE                                                                                   \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "     \
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1035_RE                                                                                 \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "           \
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define QNAME_RULE                                                                                 \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_RE                                                                             \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

static char long_label[65], long_sub[256], max_label[64], max_sub[254];

static const vcase_t subdomain[] = {
    {"a", NULL},
    {"example.com", NULL},
    {"kube-system", NULL},
    {"0.1", NULL},
    {"a-b.c-d.e", NULL},
    {"", SUBDOMAIN_RE},
    {"A", SUBDOMAIN_RE},
    {"-a", SUBDOMAIN_RE},
    {"a-", SUBDOMAIN_RE},
    {"a..b", SUBDOMAIN_RE},
    {".a", SUBDOMAIN_RE},
    {"a.", SUBDOMAIN_RE},
    {"a_b", SUBDOMAIN_RE},
    {"a b", SUBDOMAIN_RE},
    {"a.-b", SUBDOMAIN_RE},
    {"a\n", SUBDOMAIN_RE},
    {max_sub, NULL},
    {long_sub, "must be no more than 253 characters"},
};

static const vcase_t label[] = {
    {"a", NULL},
    {"default", NULL},
    {"123-abc", NULL},
    {"0", NULL},
    {max_label, NULL},
    {"", LABEL_RE},
    {"a.b", "must not contain dots"},
    {"Abc", LABEL_RE},
    {"a_b", LABEL_RE},
    {"-a", LABEL_RE},
    {"a..b", LABEL_RE},
    {"a-", LABEL_RE},
    {long_label, "must be no more than 63 characters"},
};

static const vcase_t dns1035[] = {
    {"a", NULL},         {"my-svc", NULL},
    {"abc-123", NULL},   {"1abc", DNS1035_RE},
    {"", DNS1035_RE},    {"a-", DNS1035_RE},
    {"a.b", DNS1035_RE}, {"-a", DNS1035_RE},
    {"aB", DNS1035_RE},  {long_label, "must be no more than 63 characters"},
};

static const vcase_t path_segment[] = {
    {"a", NULL},
    {"system:controller:x", NULL},
    {"...", NULL},
    {"a.b", NULL},
    {"", NULL},
    {".", "may not be '.'"},
    {"..", "may not be '..'"},
    {"a/b", "may not contain '/'"},
    {"a%b", "may not contain '%'"},
    {"%/", "may not contain '/'"},
};

static const vcase_t qualified[] = {
    {"app", NULL},
    {"MyName", NULL},
    {"my.name", NULL},
    {"a_b-c.d", NULL},
    {"kubernetes.io/metadata.name", NULL},
    {"example.com/MyName", NULL},
    {"node-role.kubernetes.io/control-plane", NULL},
    {"", "name part must be non-empty"},
    {"/a", "prefix part must be non-empty"},
    {"example.com/", "name part must be non-empty"},
    {"Example.com/a", "prefix part " SUBDOMAIN_RE},
    {"a/b/c", "a qualified name " QNAME_RULE " with an optional DNS subdomain prefix and '/' "
              "(e.g. 'example.com/MyName')"},
    {"-a", "name part " QNAME_RULE},
    {"a_", "name part " QNAME_RULE},
    {"a b", "name part " QNAME_RULE},
    {long_label, "name part must be no more than 63 characters"},
};

static const vcase_t label_value[] = {
    {"", NULL},
    {"v1", NULL},
    {"My_Value-1.0", NULL},
    {max_label, NULL},
    {"-a", LABEL_VALUE_RE},
    {"a-", LABEL_VALUE_RE},
    {"a b", LABEL_VALUE_RE},
    {"a/b", LABEL_VALUE_RE},
    {"é", LABEL_VALUE_RE},
    {long_label, "must be no more than 63 characters"},
};

static void
run(const char *what, validator_fn fn, const vcase_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *got = fn(cases[i].value);
        char shown[48], name[160];
        snprintf(shown, sizeof(shown), "%.40s%s", cases[i].value,
                 strlen(cases[i].value) > 40 ? "..." : "");
        for (char *c = shown; *c; c++)
            *c = *c == '\n' ? '?' : *c; /* keep the TAP line whole */
        snprintf(name, sizeof(name), "%s '%s' is %s", what, shown,
                 cases[i].want ? "invalid" : "valid");
        tap_is_str(got, cases[i].want, name);
    }
}

#define RUN(what, fn, cases) run(what, fn, cases, sizeof(cases) / sizeof(cases[0]))

static void
test_config_map_key(void)
{
    const char *msgs[3];
    char long_key[300];

    tap_is_int(gw_valid_config_map_key("a-B_c.1", msgs), 0, "config key: a-B_c.1 is valid");
    tap_is_int(gw_valid_config_map_key("..a", msgs), 1, "config key: ..a, one message");
    tap_is_str(msgs[0], "must not start with '..'", "... kube's");
    tap_is_int(gw_valid_config_map_key("..", msgs), 1, "config key: ..");
    tap_is_str(msgs[0], "must not be '..'", "... kube's");
    tap_is_int(gw_valid_config_map_key("a b", msgs), 1, "config key: a space");
    tap_is_str(msgs[0],
               "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
               "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
               "'[-._a-zA-Z0-9]+')",
               "... kube's RegexError");
    memset(long_key, 'k', 254);
    long_key[254] = '\0';
    tap_is_int(gw_valid_config_map_key(long_key, msgs), 1, "config key: 254 characters");
    tap_is_str(msgs[0], "must be no more than 253 characters", "... kube's MaxLenError");
    tap_is_int(gw_valid_config_map_key("", msgs), 1, "config key: empty is not [-._a-zA-Z0-9]+");
}

int
main(void)
{
    test_config_map_key();
    memset(long_label, 'a', 64);
    memset(max_label, 'b', 63);
    for (int i = 0; i < 253; i++)
        max_sub[i] = i % 2 ? '.' : 'a' + i % 26;
    memcpy(long_sub, max_sub, 253);
    long_sub[253] = '.';
    long_sub[254] = 'z';
    RUN("DNS-1123 subdomain", gw_valid_dns1123_subdomain, subdomain);
    RUN("DNS-1123 label", gw_valid_dns1123_label, label);
    RUN("DNS-1035 label", gw_valid_dns1035_label, dns1035);
    RUN("path segment", gw_valid_path_segment_name, path_segment);
    RUN("qualified name", gw_valid_qualified_name, qualified);
    RUN("label value", gw_valid_label_value, label_value);
    return tap_done();
}
