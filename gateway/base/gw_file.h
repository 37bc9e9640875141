#ifndef GATEWAY_BASE_GW_FILE_H
#define GATEWAY_BASE_GW_FILE_H

#include <stddef.h>

/**
 * The whole file at `path` as a new NUL-terminated string of *len bytes (the NUL not counted),
 * or NULL with errno set: fopen's, fread's (EISDIR for a directory; EIO when it says none),
 * EFBIG when it holds more than `max`
 * bytes (what an administrator's file may not exceed, so that a wrong path cannot make the
 * process read a device or a huge log). Caller frees. Thread: any.
 */
char *gw_file_read(const char *path, size_t max, size_t *len);

#endif
