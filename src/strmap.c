/*
 * The string table; see strmap.h.  Load stays at or below one half, so a
 * probe sequence always ends at an empty slot.
 */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

uint64_t ox_str_hash(const char *s)
{
    uint64_t h = FNV_OFFSET;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return h;
}

uint64_t ox_strn_hash(const char *s, size_t n)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
    return h;
}

static size_t capacity_for(size_t expect)
{
    size_t cap = 64;
    while (cap < expect * 2 + 16)
        cap *= 2;
    return cap;
}

int ox_strmap_init(ox_strmap *m, size_t expect)
{
    m->cap = capacity_for(expect);
    m->n = 0;
    m->slots = calloc(m->cap, sizeof(*m->slots));
    if (!m->slots)
        m->cap = 0;
    return m->slots ? 0 : -1;
}

void ox_strmap_free(ox_strmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

/* The slot holding the key s[0..n) (n == SIZE_MAX: all of the NUL-terminated
 * s, compared without measuring it first), or the empty slot where it would
 * go. */
static size_t probe(const ox_strmap *m, const char *s, size_t n)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)(n == SIZE_MAX ? ox_str_hash(s) : ox_strn_hash(s, n)) & mask;
    for (const char *k; (k = m->slots[i].key); i = (i + 1) & mask)
        if (n == SIZE_MAX ? strcmp(k, s) == 0 : strncmp(k, s, n) == 0 && k[n] == '\0')
            break;
    return i;
}

uint64_t *ox_strmap_findn(const ox_strmap *m, const char *s, size_t n)
{
    if (!m->n)
        return NULL;
    ox_strmap_slot *slot = &m->slots[probe(m, s, n)];
    return slot->key ? &slot->val : NULL;
}

uint64_t *ox_strmap_find(const ox_strmap *m, const char *key)
{
    return ox_strmap_findn(m, key, SIZE_MAX);
}

static int grow(ox_strmap *m)
{
    ox_strmap bigger;
    if (ox_strmap_init(&bigger, m->n + 1) != 0)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        const char *k = m->slots[i].key;
        if (k)
            bigger.slots[probe(&bigger, k, SIZE_MAX)] = m->slots[i];
    }
    bigger.n = m->n;
    free(m->slots);
    *m = bigger;
    return 0;
}

int ox_strmap_put(ox_strmap *m, const char *key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    size_t i = probe(m, key, SIZE_MAX);
    if (m->slots[i].key)
        return 0;
    m->slots[i].key = key;
    m->slots[i].val = val;
    m->n++;
    return 1;
}
