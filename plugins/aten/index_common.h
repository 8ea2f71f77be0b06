/* What reading (index.c) and writing (index_put.c) by index share: the index tensors of an
 * advanced-indexing key, resolved to one integer tensor per indexed dim. */
#ifndef OX_ATEN_INDEX_COMMON_H
#define OX_ATEN_INDEX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "aten_util.h"

typedef struct {
    int rank;                    /* the indexed tensor's */
    size_t n;                    /* indexed dims */
    int64_t axis[AT_MAX_RANK];   /* which, ascending */
    ox_vid src[AT_MAX_RANK];     /* the index tensor (or mask) covering each */
    int mask_row[AT_MAX_RANK];   /* the mask's coordinate for this dim, -1 for an integer index */
    int n_masks;
    ox_vid mask;                 /* the last mask seen, its first dim and rank */
    int64_t mask_axis;
    int mask_rank;
    int adjacent;                /* the indexed dims are consecutive */
    /* Filled by ax_index_tensors: */
    ox_vid idx[AT_MAX_RANK];     /* int64, non-negative, broadcast to one shape */
    int brank;                   /* rank of that shape */
    ox_vid stacked;              /* [broadcast..., n]: GatherND/ScatterND indices */
    int64_t perm[AT_MAX_RANK];   /* indexed dims first, then the others */
    int out_rank;                /* rank of x[indices] */
    int64_t front;               /* dims before the broadcast dims in torch's result */
    int64_t out_perm[AT_MAX_RANK]; /* GatherND's [broadcast, others] -> torch's order */
} ax_plan;

/* Read argument 'indices' (None entries take a dim whole).  Nonzero after api->fail. */
int ax_index_plan(ox_sym *g, const ox_api *api, ox_vid x, ax_plan *p);
/* Build the integer index tensors, their broadcast and the stacked form. */
int ax_index_tensors(ox_sym *g, const ox_api *api, ox_vid x, ax_plan *p);
/* x[indices] in torch's order from a plan built by ax_index_tensors. */
ox_vid ax_gather_nd(ox_sym *g, const ox_api *api, ox_vid x, const ax_plan *p);
/* idx as int64 with negative values counted from the end of x's dim `axis`. */
ox_vid ax_wrap_index(ox_sym *g, const ox_api *api, ox_vid x, ox_vid idx, int64_t axis);
int ax_identity(const int64_t *perm, int n);
/* A slice bound argument (start/end) as a 1-element int64 tensor: the traced
 * value, or a constant (dflt when None). */
ox_vid ax_slice_bound(ox_sym *g, const ox_api *api, const char *name, int64_t dflt);

#endif /* OX_ATEN_INDEX_COMMON_H */
