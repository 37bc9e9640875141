#ifndef GATEWAY_AUDIT_GW_AUDIT_LOG_H
#define GATEWAY_AUDIT_GW_AUDIT_LOG_H

/*
 * The log backend behind kube's buffered backend in its batch mode, the one that never blocks
 * the request: encoded events go into a bounded buffer that one writer thread empties into
 * the (rotated) file. An event that finds the buffer full is dropped and counted
 * (apiserver_audit_error_total{plugin="buffered"}, kube's "audit buffer queue blocked"); one the
 * file refuses is counted under plugin="log".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_audit_file.h"

/** kube's --audit-log-batch-buffer-size default. */
#define GW_AUDIT_LOG_BUFFER 10000

typedef struct gw_audit_log gw_audit_log_t;

/** Start the writer thread over file f (taken) with room for `capacity` events. Thread: main. */
gw_audit_log_t *gw_audit_log_start(gw_audit_file_t *f, size_t capacity);

/** Queue one encoded line (taken: freed by the log), or drop it when the buffer is full.
 *  Returns false when dropped. Never blocks on I/O. Thread: any. */
bool gw_audit_log_submit(gw_audit_log_t *l, char *line, size_t len);

/** Events dropped because the buffer was full, and events the file refused. Thread: any. */
uint64_t gw_audit_log_dropped(const gw_audit_log_t *l);
uint64_t gw_audit_log_failed(const gw_audit_log_t *l);

/** Write what is queued, stop the thread, close the file and free. NULL is fine. Thread:
 *  main, once nothing submits any more. */
void gw_audit_log_stop(gw_audit_log_t *l);

#endif
