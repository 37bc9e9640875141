/* Reading the administrator's files (policies, keys, configurations) whole, with a cap. */
#include "gw_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gw_alloc.h"

char *
gw_file_read(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    size_t n = 0, cap = 0, got;

    if (f == NULL)
        return NULL;
    errno = 0;
    do { /* grow as the file turns out larger; read one byte past max to notice it */
        if (n == cap) {
            cap = cap == 0 ? 4096 : cap * 2;
            s = gw_realloc(s, cap + 1);
        }
        got = fread(s + n, 1, cap - n, f);
        n += got;
    } while (got > 0 && n <= max);
    int failed = ferror(f) ? (errno != 0 ? errno : EIO) : n > max ? EFBIG : 0;
    fclose(f);
    if (failed != 0) {
        free(s);
        errno = failed;
        return NULL;
    }
    s[n] = '\0';
    *len = n;
    return s;
}
