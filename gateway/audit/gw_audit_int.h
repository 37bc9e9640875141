#ifndef GATEWAY_AUDIT_GW_AUDIT_INT_H
#define GATEWAY_AUDIT_GW_AUDIT_INT_H

/* Helpers shared by the files of gateway/audit/. */

#include <stddef.h>

/** errno e as Go's syscall errors spell it (strerror's text with a lower-case first letter),
 *  written into buf. Returns buf. Thread: any. */
char *gw_audit__errtext(int e, char *buf, size_t len);

#endif
