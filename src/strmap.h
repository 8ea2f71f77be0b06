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
    size_t cap;
    size_t n;        /* keys in the map, hashed and dense */
    size_t n_hashed; /* keys in slots */
    /* Keys that are decimal numbers below dense_cap, written the one way
     * ("0", "17", not "017"), live in arrays indexed by their number
     * instead of the slots.  The names the engine gives values are such
     * numbers; hashed, a graph of a million values would scatter them over
     * a table far past the cache, and each probe would be a cache miss.
     * dense_cap is set once, by ox_strmap_init; the arrays are made at the
     * first such key. */
    size_t dense_cap;
    uint64_t *dense_val;
    uint64_t *dense_has; /* one bit a number */
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

/* Whether s[0..n) (n == SIZE_MAX: all of the NUL-terminated s) is a number
 * written the one way ("0", "17"; not "017", "+1" or "") and below `below`;
 * *out is its value.  The dense keys of a map are such numbers. */
bool ox_str_number(const char *s, size_t n, size_t below, size_t *out);

/* Room for `expect` keys before the first growth, and numbers below about
 * 2 * expect kept dense; 0, or -1 out of memory. */
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
