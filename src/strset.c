/*
 * Set of borrowed strings; see strset.h.  Load stays at or below one half,
 * so a probe sequence always ends at an empty slot.
 */
#include "strset.h"

#include <stdlib.h>
#include <string.h>

uint64_t ox_str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static size_t capacity_for(size_t expect)
{
    size_t cap = 64;
    while (cap < expect * 2 + 16)
        cap *= 2;
    return cap;
}

int ox_strset_init(ox_strset *s, size_t expect)
{
    s->cap = capacity_for(expect);
    s->n = 0;
    s->slots = calloc(s->cap, sizeof(*s->slots));
    if (!s->slots)
        s->cap = 0;
    return s->slots ? 0 : -1;
}

void ox_strset_free(ox_strset *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}

/* The slot holding `name`, or the empty slot where it would go. */
static size_t probe(const ox_strset *s, const char *name)
{
    size_t mask = s->cap - 1;
    size_t i = (size_t)ox_str_hash(name) & mask;
    while (s->slots[i] && strcmp(s->slots[i], name) != 0)
        i = (i + 1) & mask;
    return i;
}

bool ox_strset_has(const ox_strset *s, const char *name)
{
    return s->n && s->slots[probe(s, name)] != NULL;
}

static int grow(ox_strset *s)
{
    ox_strset bigger;
    if (ox_strset_init(&bigger, s->n + 1) != 0)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i])
            bigger.slots[probe(&bigger, s->slots[i])] = s->slots[i];
    bigger.n = s->n;
    free(s->slots);
    *s = bigger;
    return 0;
}

int ox_strset_add(ox_strset *s, const char *name)
{
    if ((s->n + 1) * 2 > s->cap && grow(s) != 0)
        return -1;
    size_t i = probe(s, name);
    if (s->slots[i])
        return 0;
    s->slots[i] = name;
    s->n++;
    return 1;
}
