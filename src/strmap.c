/*
 * The string table; see strmap.h.  Load stays at or below one half, so a
 * probe sequence always ends at an empty slot.
 */
#include "strmap.h"

#include <stdbool.h>
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
    memset(m, 0, sizeof *m);
    m->cap = capacity_for(expect);
    m->slots = calloc(m->cap, sizeof(*m->slots));
    if (!m->slots)
        m->cap = 0;
    m->dense_cap = m->slots ? m->cap : 0;
    return m->slots ? 0 : -1;
}

void ox_strmap_free(ox_strmap *m)
{
    free(m->slots);
    free(m->dense_val);
    free(m->dense_has);
    memset(m, 0, sizeof *m);
}

bool ox_str_number(const char *s, size_t n, size_t below, size_t *out)
{
    if (!n || s[0] < '0' || s[0] > '9')
        return false;
    if (s[0] == '0') {
        *out = 0;
        return below > 0 && (n == SIZE_MAX ? s[1] == '\0' : n == 1);
    }
    size_t v = 0, i = 0;
    /* Up to 19 digits a size_t cannot overflow: those are read without the
     * bound's check, which runs once after them.  Every name the engine
     * gives a value is read here, in several tables. */
    for (; i < 19 && (n == SIZE_MAX ? s[i] != '\0' : i < n); i++) {
        unsigned digit = (unsigned)(unsigned char)s[i] - '0';
        if (digit > 9)
            return false;
        v = v * 10 + digit;
    }
    if (v >= below)
        return false;
    for (; n == SIZE_MAX ? s[i] != '\0' : i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        size_t digit = (size_t)(s[i] - '0');
        if (below <= digit || v > (below - 1 - digit) / 10)
            return false; /* v * 10 + digit would reach `below` */
        v = v * 10 + digit;
    }
    *out = v;
    return true;
}

/* The number s[0..n) (n == SIZE_MAX: up to the NUL) writes, when it is one
 * kept dense in m. */
static bool dense_index(const ox_strmap *m, const char *s, size_t n, size_t *out)
{
    return m->dense_cap && ox_str_number(s, n, m->dense_cap, out);
}

static bool dense_has(const ox_strmap *m, size_t i)
{
    return m->dense_has && (m->dense_has[i / 64] >> (i % 64)) & 1u;
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
    size_t d;
    if (dense_index(m, s, n, &d))
        return dense_has(m, d) ? &m->dense_val[d] : NULL;
    if (!m->n_hashed)
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
    size_t cap = capacity_for(m->n_hashed + 1);
    ox_strmap_slot *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return -1;
    ox_strmap bigger = {.slots = slots, .cap = cap};
    for (size_t i = 0; i < m->cap; i++) {
        const char *k = m->slots[i].key;
        if (k)
            slots[probe(&bigger, k, SIZE_MAX)] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

static int dense_put(ox_strmap *m, size_t d, uint64_t val)
{
    if (!m->dense_has) {
        m->dense_has = calloc((m->dense_cap + 63) / 64, sizeof(*m->dense_has));
        m->dense_val = malloc(m->dense_cap * sizeof(*m->dense_val));
        if (!m->dense_has || !m->dense_val) {
            free(m->dense_has);
            free(m->dense_val);
            m->dense_has = m->dense_val = NULL;
            return -1;
        }
    }
    if (dense_has(m, d))
        return 0;
    m->dense_has[d / 64] |= (uint64_t)1 << (d % 64);
    m->dense_val[d] = val;
    m->n++;
    return 1;
}

int ox_strmap_put(ox_strmap *m, const char *key, uint64_t val)
{
    size_t d;
    if (dense_index(m, key, SIZE_MAX, &d))
        return dense_put(m, d, val);
    if ((m->n_hashed + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    size_t i = probe(m, key, SIZE_MAX);
    if (m->slots[i].key)
        return 0;
    m->slots[i].key = key;
    m->slots[i].val = val;
    m->n++;
    m->n_hashed++;
    return 1;
}
