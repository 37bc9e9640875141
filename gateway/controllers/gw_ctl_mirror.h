#ifndef GATEWAY_CONTROLLERS_GW_CTL_MIRROR_H
#define GATEWAY_CONTROLLERS_GW_CTL_MIRROR_H

/*
 * A process-wide view of a few collections kept current from etcd, for the authorizers'
 * snapshots (RBAC, the node graph): the collections are watched, and after any change (or
 * every minute) all of them are read again at one revision and handed over, as rounds
 * (gw_ctl_rounds.h). A failed read is retried after a second.
 */

#include <stdint.h>

#include <jansson.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_ctl_mirror gw_ctl_mirror_t;

/** One round's collections: lists[i] holds the objects under paths[i] (borrowed for the
 *  call), all read at `revision`. Thread: the mirror's. */
typedef void (*gw_ctl_mirror_fn)(json_t *const *lists, int64_t revision, void *arg);

/**
 * Start on `base` (it must keep running; client must outlive the mirror): `paths` are key
 * prefixes relative to etcd_prefix ("roles/"), NULL-ended, at most 8, borrowed for the
 * mirror's life; `name` is for the log. publish(lists, revision, arg) runs after each round
 * read. Thread: base's.
 */
gw_ctl_mirror_t *gw_ctl_mirror_start(etcd_client_t *client, struct event_base *base,
                                     const char *name, const char *etcd_prefix,
                                     const gw_value_transformer_t *values, const char *const *paths,
                                     gw_ctl_mirror_fn publish, void *arg);

/** Stop and free (no publish after). NULL is fine. Thread: base's. */
void gw_ctl_mirror_stop(gw_ctl_mirror_t *m);

#endif
