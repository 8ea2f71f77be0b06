/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The engine's one string table: borrowed string keys (the strings must
 * outlive the map) to a uint64_t value, open addressing, FNV-1a.  The
 * registry's operator index, the reader's name table, the checker's
 * definitions, the tracer's duplicate names and the naming passes all use
 * it.  A zeroed map is an empty map.
 */
#ifndef OXPORT_STRMAP_H
#define OXPORT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ox_strmap_slot {
    const char *key; /* NULL = empty */
    uint64_t val;
} ox_strmap_slot;

typedef struct ox_strmap {
    ox_strmap_slot *slots;
    size_t cap, n;
} ox_strmap;

/* a equals b: the first bytes compared inline, so the linear name scans
 * (a node's arguments and attributes, a graph's opsets) skip most
 * candidates without a call. */
static inline bool ox_str_eq(const char *a, const char *b)
{
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* The hash every string table of the engine uses: of s, or of its first n
 * bytes. */
uint64_t ox_str_hash(const char *s);
uint64_t ox_strn_hash(const char *s, size_t n);

/* Room for `expect` keys before the first growth; 0, or -1 out of memory. */
int ox_strmap_init(ox_strmap *m, size_t expect);
void ox_strmap_free(ox_strmap *m);
/* The value of the key equal to the first n bytes of s (or to key), NULL
 * when absent.  n must be less than SIZE_MAX. */
uint64_t *ox_strmap_findn(const ox_strmap *m, const char *s, size_t n);
uint64_t *ox_strmap_find(const ox_strmap *m, const char *key);
/* Insert key -> val when key is absent (the first value stays).  1 added,
 * 0 already there, -1 out of memory. */
int ox_strmap_put(ox_strmap *m, const char *key, uint64_t val);

/* A set of strings is a map whose values are unused. */
typedef ox_strmap ox_strset;

static inline int ox_strset_init(ox_strset *s, size_t expect) { return ox_strmap_init(s, expect); }
static inline void ox_strset_free(ox_strset *s) { ox_strmap_free(s); }
static inline bool ox_strset_has(const ox_strset *s, const char *name)
{
    return ox_strmap_find(s, name) != NULL;
}
/* 1 added, 0 already there, -1 out of memory. */
static inline int ox_strset_add(ox_strset *s, const char *name)
{
    return ox_strmap_put(s, name, 0);
}

#endif /* OXPORT_STRMAP_H */
