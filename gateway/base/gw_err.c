#include "gw_err.h"

#include <stddef.h>

static const struct {
    const char *name;
    const char *text;
} error_table[] = {
    [0] = {"GW_OK", "success"},
    [-GW_EINVAL] = {"GW_EINVAL", "invalid argument"},
    [-GW_ENOTFOUND] = {"GW_ENOTFOUND", "not found"},
    [-GW_EEXIST] = {"GW_EEXIST", "already exists"},
    [-GW_ECONFLICT] = {"GW_ECONFLICT", "precondition failed: object was modified"},
    [-GW_ECOMPACTED] = {"GW_ECOMPACTED", "requested revision has been compacted"},
    [-GW_EFUTUREREV] = {"GW_EFUTUREREV", "requested revision is newer than the store"},
    [-GW_ETOOLARGE] = {"GW_ETOOLARGE", "request is too large"},
    [-GW_EUNAVAILABLE] = {"GW_EUNAVAILABLE", "etcd is unavailable"},
    [-GW_ETIMEOUT] = {"GW_ETIMEOUT", "deadline exceeded"},
    [-GW_ECANCELED] = {"GW_ECANCELED", "canceled"},
    [-GW_EINTERNAL] = {"GW_EINTERNAL", "internal error"},
};

static int
in_table(int err)
{
    return err <= 0 && err >= GW_ERR_MIN_;
}

const char *
gw_strerror(int err)
{
    return in_table(err) ? error_table[-err].text : "unknown error";
}

const char *
gw_errname(int err)
{
    return in_table(err) ? error_table[-err].name : "GW_E?";
}
