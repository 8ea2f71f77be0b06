#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct ox_arena_chunk {
    ox_arena_chunk *next;
    size_t size;
    size_t mapped; /* bytes mapped for this chunk (zero-filled by the system); 0: malloc'd */
    _Alignas(16) unsigned char data[];
};

#define ARENA_FIRST_CHUNK 4096u
/* A chunk of this size or more is mapped, and its pages are faulted in by
 * the mapping call (MAP_POPULATE) rather than one fault at a time as they
 * are first written.  A graph of a million nodes fills some 450 MiB of
 * chunks, and those first-touch faults were a fifth of the time spent
 * building it (perf, docs/performance.md).  Mapped pages come zero-filled,
 * and a bump allocator never hands out the same bytes twice, so allocations
 * from such a chunk skip the memset too.  Only an arena already past 2 MiB
 * gets such chunks, so a small graph costs what it did. */
#define ARENA_MAPPED ((size_t)2 << 20)
/* Chunks double up to this size: with its header, a mapped chunk of 2 MiB. */
#define ARENA_MAX_CHUNK (ARENA_MAPPED - sizeof(ox_arena_chunk))

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* A chunk with room for csize bytes, or NULL. */
static ox_arena_chunk *chunk_new(size_t csize)
{
    size_t bytes = sizeof(ox_arena_chunk) + csize;
    if (bytes < ARENA_MAPPED || bytes > SIZE_MAX - ARENA_MAPPED) {
        ox_arena_chunk *c = malloc(bytes);
        if (c) {
            c->size = csize;
            c->mapped = 0;
        }
        return c;
    }
    size_t len = round_up(bytes, 4096);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    ox_arena_chunk *c = m;
    c->size = len - sizeof(ox_arena_chunk);
    c->mapped = len;
    return c;
}

static void chunk_free(ox_arena_chunk *c)
{
    if (c->mapped)
        munmap(c, c->mapped);
    else
        free(c);
}

void ox_arena_init(ox_arena *a)
{
    a->head = NULL;
    a->cur = a->end = NULL;
    a->zeroed = false;
    a->next_size = ARENA_FIRST_CHUNK;
    a->total = 0;
}

void ox_arena_free(ox_arena *a)
{
    ox_arena_chunk *c = a->head;
    while (c) {
        ox_arena_chunk *next = c->next;
        chunk_free(c);
        c = next;
    }
    ox_arena_init(a);
}

void *ox_arena_alloc_slow(ox_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - 32)
        return NULL;
    size_t need = (size + 15u) & ~(size_t)15u;
    ox_arena_chunk *c = a->head;
    if (!c || (size_t)(a->end - a->cur) < need) {
        int big = need > a->next_size;
        ox_arena_chunk *n = chunk_new(big ? need : a->next_size);
        if (!n)
            return NULL;
        a->total += n->size;
        if (big && c) {
            /* an oversized block gets its own chunk behind the head, so small
             * allocations keep filling the current chunk */
            n->next = c->next;
            c->next = n;
            if (!n->mapped)
                memset(n->data, 0, need);
            return n->data;
        }
        if (!big && a->next_size < ARENA_MAX_CHUNK)
            a->next_size = a->next_size * 2 < ARENA_MAX_CHUNK ? a->next_size * 2 : ARENA_MAX_CHUNK;
        n->next = c;
        a->head = n;
        a->cur = n->data;
        a->end = n->data + n->size;
        a->zeroed = n->mapped != 0;
    }
    void *p = a->cur;
    a->cur += need;
    if (!a->zeroed)
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
