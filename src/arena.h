/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Bump allocator: a graph allocates everything it owns here and frees it in
 * one call.  Chunks grow geometrically; large requests get a chunk of their own.
 */
#ifndef OXPORT_ARENA_H
#define OXPORT_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct ox_arena_chunk ox_arena_chunk;

typedef struct ox_arena {
    ox_arena_chunk *head;
    /* The head chunk's bytes not handed out yet, kept here so that an
     * allocation that fits is a few inline instructions (ox_arena_alloc):
     * a converted node makes about ten. */
    unsigned char *cur, *end;
    bool zeroed; /* the head chunk is mapped: its bytes are zero already */
    size_t next_size;
    size_t total; /* bytes reserved, for diagnostics */
} ox_arena;

void ox_arena_init(ox_arena *a);
void ox_arena_free(ox_arena *a);
/* ox_arena_alloc when the head chunk has no room (or size is 0 or huge). */
void *ox_arena_alloc_slow(ox_arena *a, size_t size);
/* 16-byte aligned, zero-filled; NULL only when memory is exhausted. */
static inline void *ox_arena_alloc(ox_arena *a, size_t size)
{
    size_t need = (size + 15u) & ~(size_t)15u;
    if (size - 1 < 65536u && need <= (size_t)(a->end - a->cur)) {
        unsigned char *p = a->cur;
        a->cur += need;
        if (!a->zeroed)
            memset(p, 0, need);
        return p;
    }
    return ox_arena_alloc_slow(a, size);
}
void *ox_arena_memdup(ox_arena *a, const void *p, size_t size);
char *ox_arena_strdup(ox_arena *a, const char *s); /* NULL in, NULL out */
char *ox_arena_strndup(ox_arena *a, const char *s, size_t n);
char *ox_arena_printf(ox_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* OXPORT_ARENA_H */
