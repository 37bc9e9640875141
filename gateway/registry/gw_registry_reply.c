/* Answers shared by the handlers. */
#include "gw_registry_int.h"

#include <stdlib.h>

#include "gw_err.h"

void
gw_registry__reply_obj(gw_req_t *r, int code, const gw_obj_t *obj)
{
    size_t len;
    char *bytes =
        gw_registry__with_rv((const char *)obj->value, obj->value_len, obj->mod_revision, &len);

    if (bytes == NULL) {
        gw_reply_error(r, GW_EINTERNAL, r->info.name);
        return;
    }
    gw_reply_json_bytes(r, code, bytes, len);
    free(bytes);
}

void
gw_registry__reply_no_route(gw_req_t *r)
{
    gw_reply_status(r, 404, "NotFound", NULL, "the server could not find the requested resource");
}

void
gw_registry__reply_not_allowed(gw_req_t *r)
{
    gw_reply_status(r, 405, "MethodNotAllowed", NULL,
                    "the server does not allow this method on the requested resource");
}
