#ifndef GATEWAY_BASE_GW_ARENA_H
#define GATEWAY_BASE_GW_ARENA_H

/*
 * A per-request arena: bump allocation from chunks, freed all at once, plus cleanups that
 * release foreign objects (json_t, evbuffers) at the same moment. One arena belongs to one
 * thread at a time. Allocation failure aborts, as everywhere.
 */

#include <stddef.h>

typedef struct gw_arena gw_arena_t;

/** A new, empty arena. Free with gw_arena_free. */
gw_arena_t *gw_arena_new(void);

/** Run the cleanups (last registered first), then free every chunk. NULL is fine. */
void gw_arena_free(gw_arena_t *a);

/** The bytes the arena's chunks hold (what it took from malloc for its blocks), for tests
 *  and measurements. */
size_t gw_arena_held(const gw_arena_t *a);

/** n bytes, aligned for any type, uninitialised; valid until the arena is freed. */
void *gw_arena_alloc(gw_arena_t *a, size_t n);

/** n zeroed bytes. */
void *gw_arena_calloc(gw_arena_t *a, size_t n);

/** Copies of strings and byte ranges (the latter NUL-terminated too). */
char *gw_arena_strdup(gw_arena_t *a, const char *s);
char *gw_arena_strndup(gw_arena_t *a, const char *s, size_t n);

/** printf into the arena. */
char *gw_arena_sprintf(gw_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Call fn(obj) when the arena is freed, e.g. gw_arena_defer(a, (void (*)(void *))json_decref,
 *  doc). Cleanups run in reverse order of registration. */
void gw_arena_defer(gw_arena_t *a, void (*fn)(void *), void *obj);

#endif
