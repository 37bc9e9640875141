#include "gw_arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/*
 * Requests use 1 to 3 KiB of their arena (a watch 1.1-1.25 KiB), and a watch of Tables, of a
 * webhook-converted kind or audited keeps its arena for as long as it streams (the others let
 * their request go: gw_stream_detach), so the first chunk is small (a watch's and some room) and
 * each further one twice the last, up to CHUNK_MAX: a request never holds more than twice what it
 * used plus the first chunk. Blocks past BIG_BLOCK get a chunk of their own.
 */
#define CHUNK_FIRST 1536
#define CHUNK_MAX 8192
#define BIG_BLOCK 2048

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
} chunk_t;

typedef struct cleanup {
    struct cleanup *next;
    void (*fn)(void *);
    void *obj;
} cleanup_t;

struct gw_arena {
    chunk_t *chunks;
    cleanup_t *cleanups;
};

static chunk_t *
chunk_new(size_t size, chunk_t *next)
{
    chunk_t *c = gw_malloc(sizeof(*c) + size);
    c->next = next;
    c->used = 0;
    c->size = size;
    return c;
}

/* The arena itself lives at the start of its first chunk: one allocation for a request that
 * needs no more. */
gw_arena_t *
gw_arena_new(void)
{
    const size_t align = alignof(max_align_t);
    chunk_t *first = chunk_new(CHUNK_FIRST, NULL);
    gw_arena_t *a = (gw_arena_t *)first->data;

    first->used = (sizeof(*a) + align - 1) & ~(align - 1);
    a->chunks = first;
    a->cleanups = NULL;
    return a;
}

void
gw_arena_free(gw_arena_t *a)
{
    if (a == NULL)
        return;
    for (cleanup_t *c = a->cleanups; c != NULL; c = c->next)
        c->fn(c->obj);
    /* The first chunk, which holds `a`, is the last of the list. */
    chunk_t *next;
    for (chunk_t *c = a->chunks; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
}

size_t
gw_arena_held(const gw_arena_t *a)
{
    size_t n = 0;
    for (const chunk_t *c = a->chunks; c != NULL; c = c->next)
        n += c->size;
    return n;
}

void *
gw_arena_alloc(gw_arena_t *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    size_t need = (n + align - 1) & ~(align - 1);
    chunk_t *c = a->chunks;
    if (need > c->size - c->used) {
        if (need > BIG_BLOCK) {
            /* A big block gets its own chunk behind the current one, which stays in use. */
            chunk_t *big = chunk_new(need, c->next);
            c->next = big;
            big->used = need;
            return big->data;
        }
        c = a->chunks = chunk_new(c->size < CHUNK_MAX ? c->size * 2 : CHUNK_MAX, c);
    }
    void *p = c->data + c->used;
    c->used += need;
    return p;
}

void *
gw_arena_calloc(gw_arena_t *a, size_t n)
{
    return memset(gw_arena_alloc(a, n), 0, n);
}

char *
gw_arena_strndup(gw_arena_t *a, const char *s, size_t n)
{
    char *p = gw_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
gw_arena_strdup(gw_arena_t *a, const char *s)
{
    return gw_arena_strndup(a, s, strlen(s));
}

char *
gw_arena_sprintf(gw_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = gw_arena_alloc(a, n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(p, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    return p;
}

void
gw_arena_defer(gw_arena_t *a, void (*fn)(void *), void *obj)
{
    cleanup_t *c = gw_arena_alloc(a, sizeof(*c));
    c->fn = fn;
    c->obj = obj;
    c->next = a->cleanups;
    a->cleanups = c;
}
