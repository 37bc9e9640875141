/* Deprecation facts of a kind read as kube-apiserver's endpoints/deprecation package reads them. */
#include "gw_lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_discovery.h"

gw_release_t
gw_lifecycle_server_release(void)
{
    gw_release_t r = {atoi(GW_KUBE_MAJOR), atoi(GW_KUBE_MINOR)};
    return r;
}

static bool
is_none(gw_release_t r)
{
    return r.major == 0 && r.minor == 0;
}

bool
gw_lifecycle_deprecated(const gw_lifecycle_t *l, gw_release_t current)
{
    if (l == NULL || is_none(l->deprecated))
        return false;
    if (is_none(current))
        return true;
    if (l->deprecated.major != current.major)
        return l->deprecated.major < current.major;
    return l->deprecated.minor <= current.minor;
}

char *
gw_lifecycle_removed_release(const gw_lifecycle_t *l, char *buf, size_t len)
{
    buf[0] = '\0';
    if (l != NULL && !is_none(l->removed))
        snprintf(buf, len, "%d.%d", l->removed.major, l->removed.minor);
    return buf;
}

/* schema.GroupVersion's String(): the version alone for the core group. */
static void
group_version(char *buf, size_t len, const char *group, const char *version)
{
    if (group[0] == '\0')
        snprintf(buf, len, "%s", version);
    else
        snprintf(buf, len, "%s/%s", group, version);
}

char *
gw_lifecycle_warning(const gw_lifecycle_t *l, char *buf, size_t len)
{
    char gv[256], removed[64] = "", use[320] = "";

    buf[0] = '\0';
    if (l == NULL || is_none(l->deprecated))
        return buf;
    group_version(gv, sizeof(gv), l->group, l->version);
    if (!is_none(l->removed))
        snprintf(removed, sizeof(removed), ", unavailable in v%d.%d+", l->removed.major,
                 l->removed.minor);
    if (l->replacement_kind != NULL) {
        char rgv[256];
        group_version(rgv, sizeof(rgv), l->replacement_group, l->replacement_version);
        snprintf(use, sizeof(use), "; use %s %s", rgv, l->replacement_kind);
    }
    snprintf(buf, len, "%s %s is deprecated in v%d.%d+%s%s", gv, l->kind, l->deprecated.major,
             l->deprecated.minor, removed, use);
    return buf;
}
