/*
 * A set of borrowed strings (open addressing, FNV-1a): the names already
 * given out while naming values and nodes (passes.c, onnx_write.c).  The
 * strings must outlive the set.  A zeroed ox_strset is an empty set.
 */
#ifndef OXPORT_STRSET_H
#define OXPORT_STRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ox_strset {
    const char **slots;
    size_t cap, n;
} ox_strset;

/* The hash every string table of the engine uses. */
uint64_t ox_str_hash(const char *s);

/* Room for `expect` names before the first growth; 0, or -1 out of memory. */
int ox_strset_init(ox_strset *s, size_t expect);
void ox_strset_free(ox_strset *s);
bool ox_strset_has(const ox_strset *s, const char *name);
/* 1 added, 0 already there, -1 out of memory. */
int ox_strset_add(ox_strset *s, const char *name);

#endif /* OXPORT_STRSET_H */
