#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ox_arena_chunk {
    ox_arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

#define ARENA_FIRST_CHUNK 4096u
#define ARENA_MAX_CHUNK (1u << 20)

void ox_arena_init(ox_arena *a)
{
    a->head = NULL;
    a->next_size = ARENA_FIRST_CHUNK;
    a->total = 0;
}

void ox_arena_free(ox_arena *a)
{
    ox_arena_chunk *c = a->head;
    while (c) {
        ox_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    ox_arena_init(a);
}

void *ox_arena_alloc(ox_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - 32)
        return NULL;
    size_t need = (size + 15u) & ~(size_t)15u;
    ox_arena_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        int big = need > a->next_size;
        size_t csize = big ? need : a->next_size;
        ox_arena_chunk *n = malloc(sizeof(*n) + csize);
        if (!n)
            return NULL;
        n->size = csize;
        n->used = 0;
        a->total += csize;
        if (big && c) {
            /* an oversized block gets its own chunk behind the head, so small
             * allocations keep filling the current chunk */
            n->next = c->next;
            c->next = n;
            n->used = need;
            memset(n->data, 0, need);
            return n->data;
        }
        if (!big && a->next_size < ARENA_MAX_CHUNK)
            a->next_size *= 2;
        n->next = c;
        a->head = n;
        c = n;
    }
    void *p = c->data + c->used;
    c->used += need;
    memset(p, 0, need);
    return p;
}

void *ox_arena_memdup(ox_arena *a, const void *p, size_t size)
{
    void *q = ox_arena_alloc(a, size);
    if (q && size)
        memcpy(q, p, size);
    return q;
}

char *ox_arena_strndup(ox_arena *a, const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *q = ox_arena_alloc(a, n + 1);
    if (q) {
        memcpy(q, s, n);
        q[n] = '\0';
    }
    return q;
}

char *ox_arena_strdup(ox_arena *a, const char *s)
{
    return s ? ox_arena_strndup(a, s, strlen(s)) : NULL;
}

char *ox_arena_printf(ox_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *q = ox_arena_alloc(a, (size_t)n + 1);
    if (!q)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(q, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return q;
}
