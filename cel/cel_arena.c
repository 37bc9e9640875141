/*
 * Arenas: bump allocation in growing blocks, freed all at once. Every value an evaluation
 * creates lives in one, so an evaluation never frees piecemeal and never leaks.
 */
#include "cel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define BLOCK_MIN 4096
#define ALIGN 16

typedef struct block {
    struct block *next;
    size_t used;
    size_t size;
    _Alignas(ALIGN) unsigned char data[];
} block_t;

typedef struct cleanup {
    struct cleanup *next;
    void (*fn)(void *);
    void *ptr;
} cleanup_t;

struct cel_arena {
    block_t *head;
    cleanup_t *cleanups;
};

void *
cel__xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        abort();
    return p;
}

void *
cel__xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        abort();
    return p;
}

void *
cel__xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        abort();
    return q;
}

char *
cel__xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cel__xmalloc(n), s, n);
}

cel_arena_t *
cel_arena_new(void)
{
    return cel__xcalloc(1, sizeof(cel_arena_t));
}

void
cel_arena_free(cel_arena_t *a)
{
    if (a == NULL)
        return;
    while (a->cleanups != NULL) {
        cleanup_t *c = a->cleanups;
        a->cleanups = c->next;
        c->fn(c->ptr);
    }
    while (a->head != NULL) {
        block_t *b = a->head;
        a->head = b->next;
        free(b);
    }
    free(a);
}

void *
cel_arena_alloc(cel_arena_t *a, size_t n)
{
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (need < n)
        abort();
    block_t *b = a->head;
    if (b == NULL || b->size - b->used < need) {
        /* Big requests get a block of their own behind the current one, so the space
         * left in the current block is not wasted. */
        size_t size = need > BLOCK_MIN ? need : BLOCK_MIN;
        if (b != NULL && b->size < 65536 && size == BLOCK_MIN)
            size = b->size * 2;
        block_t *nb = cel__xmalloc(sizeof(block_t) + size);
        nb->used = 0;
        nb->size = size;
        if (b != NULL && need > BLOCK_MIN) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    return memset(p, 0, n);
}

char *
cel_arena_strndup(cel_arena_t *a, const char *s, size_t len)
{
    char *p = cel_arena_alloc(a, len + 1);
    if (len > 0)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void
cel_arena_on_free(cel_arena_t *a, void (*fn)(void *), void *ptr)
{
    cleanup_t *c = cel_arena_alloc(a, sizeof(*c));
    c->fn = fn;
    c->ptr = ptr;
    c->next = a->cleanups;
    a->cleanups = c;
}

char *
cel__arena_vsprintf(cel_arena_t *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        abort();
    char *p = cel_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *
cel__arena_sprintf(cel_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = cel__arena_vsprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
