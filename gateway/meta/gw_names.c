#include "gw_names.h"

#include <string.h>

/*
 * The regular expressions and messages are k8s.io/apimachinery's (util/validation): clients
 * match on these texts, so they are reproduced as kube-apiserver prints them, including
 * RegexError's double space between examples. Where kube-apiserver reports several messages
 * (a value both too long and malformed), these functions return the first of them.
 */

#define LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define SUBDOMAIN_FMT LABEL_FMT "(\\." LABEL_FMT ")*"
#define DNS1035_FMT "[a-z]([-a-z0-9]*[a-z0-9])?"
#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LABEL_VALUE_FMT "(" QNAME_FMT ")?"

#define SUBDOMAIN_MSG                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "  \
    "for validation is '" SUBDOMAIN_FMT "')"
#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "     \
    "used for validation is '" LABEL_FMT "')"
#define DNS1035_MSG                                                                                \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "           \
    "'abc-123', regex used for validation is '" DNS1035_FMT "')"
#define QNAME_RULE                                                                                 \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '" QNAME_FMT "')"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is '" LABEL_VALUE_FMT "')"

static bool
is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool
is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool
match_label(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool
match_subdomain(const char *s, size_t n)
{
    for (;;) {
        const char *dot = memchr(s, '.', n);
        size_t len = dot != NULL ? (size_t)(dot - s) : n;
        if (!match_label(s, len))
            return false;
        if (dot == NULL)
            return true;
        s = dot + 1;
        n -= len + 1;
    }
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool
match_qname(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && strchr("-_.", s[i]) == NULL)
            return false;
    return true;
}

const char *
gw_valid_dns1123_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n > 253)
        return "must be no more than 253 characters";
    return match_subdomain(s, n) ? NULL : SUBDOMAIN_MSG;
}

const char *
gw_valid_dns1123_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    if (match_label(s, n))
        return NULL;
    /* a valid subdomain of the right length can only be wrong for its dots */
    return match_subdomain(s, n) ? "must not contain dots" : LABEL_MSG;
}

const char *
gw_valid_dns1035_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    return n > 0 && s[0] >= 'a' && s[0] <= 'z' && match_label(s, n) ? NULL : DNS1035_MSG;
}

const char *
gw_valid_path_segment_name(const char *s)
{
    if (strcmp(s, ".") == 0)
        return "may not be '.'";
    if (strcmp(s, "..") == 0)
        return "may not be '..'";
    if (strchr(s, '/') != NULL)
        return "may not contain '/'";
    if (strchr(s, '%') != NULL)
        return "may not contain '%'";
    return NULL;
}

static const char *
valid_prefix(const char *s, size_t n)
{
    if (n == 0)
        return "prefix part must be non-empty";
    if (n > 253)
        return "prefix part must be no more than 253 characters";
    return match_subdomain(s, n) ? NULL : "prefix part " SUBDOMAIN_MSG;
}

const char *
gw_valid_qualified_name(const char *s)
{
    const char *slash = strchr(s, '/'), *name = s;
    if (slash != NULL && strchr(slash + 1, '/') != NULL)
        return "a qualified name " QNAME_RULE " with an optional DNS subdomain prefix and '/' "
               "(e.g. 'example.com/MyName')";
    if (slash != NULL) {
        const char *msg = valid_prefix(s, (size_t)(slash - s));
        if (msg != NULL)
            return msg;
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0)
        return "name part must be non-empty";
    if (n > 63)
        return "name part must be no more than 63 characters";
    return match_qname(name, n) ? NULL : "name part " QNAME_RULE;
}

size_t
gw_valid_qualified_name_all(const char *s, const char *msgs[4])
{
    const char *slash = strchr(s, '/'), *name = s;
    size_t n = 0, len;

    if (slash != NULL && strchr(slash + 1, '/') != NULL) {
        msgs[n++] = "a qualified name " QNAME_RULE " with an optional DNS subdomain prefix and '/' "
                    "(e.g. 'example.com/MyName')";
        return n;
    }
    if (slash != NULL) {
        size_t pn = (size_t)(slash - s);
        if (pn == 0) {
            msgs[n++] = "prefix part must be non-empty";
        } else {
            if (pn > 253)
                msgs[n++] = "prefix part must be no more than 253 characters";
            if (!match_subdomain(s, pn))
                msgs[n++] = "prefix part " SUBDOMAIN_MSG;
        }
        name = slash + 1;
    }
    len = strlen(name);
    if (len == 0)
        msgs[n++] = "name part must be non-empty";
    else if (len > 63)
        msgs[n++] = "name part must be no more than 63 characters";
    if (!match_qname(name, len))
        msgs[n++] = "name part " QNAME_RULE;
    return n;
}

const char *
gw_valid_label_value(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    return n == 0 || match_qname(s, n) ? NULL : LABEL_VALUE_MSG;
}

/* ---- config keys -------------------------------------------------------------------------- */

#define CONFIG_KEY_FMT "[-._a-zA-Z0-9]+"
#define CONFIG_KEY_MSG                                                                             \
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "           \
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '" CONFIG_KEY_FMT    \
    "')"

size_t
gw_valid_config_map_key(const char *s, const char *msgs[3])
{
    size_t n = 0, len = strlen(s);
    bool ok = len > 0;

    if (len > 253)
        msgs[n++] = "must be no more than 253 characters";
    for (size_t i = 0; i < len && ok; i++)
        ok = is_alnum(s[i]) || s[i] == '-' || s[i] == '.' || s[i] == '_';
    if (!ok)
        msgs[n++] = CONFIG_KEY_MSG;
    if (strcmp(s, ".") == 0)
        msgs[n++] = "must not be '.'";
    else if (strcmp(s, "..") == 0)
        msgs[n++] = "must not be '..'";
    else if (strncmp(s, "..", 2) == 0)
        msgs[n++] = "must not start with '..'";
    return n;
}
