/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Sizes that no dynamic axis reaches, folded.  With a dynamic batch, a
 * model's `x.size(1)` or `x.shape[-1] // heads` is recorded as Shape, Gather
 * and arithmetic, and constant folding (fold.h) leaves the chain alone
 * because Shape(x) as a whole varies.  The elements it reads do not: the
 * varying-dims analysis (varying_dims.h) knows, dim by dim, which sizes may
 * differ on another run.  This pass turns every int64 value it knows whole
 * (the same on every run) into a Constant, so the chains fold away as they
 * do without dynamic axes and the file carries only the size arithmetic
 * that follows the input.
 */
#ifndef OXPORT_FOLD_KNOWN_SIZES_H
#define OXPORT_FOLD_KNOWN_SIZES_H

#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "static_shapes.h"

/* `shapes` is g's static-shape analysis, noted for every node (the fold
 * sweep's).  *n_folded counts the nodes that became Constants; their inputs
 * left unused are for the DCE pass.  Nothing to do (and no cost) when no
 * graph input has a dynamic dim. */
ox_status ox_pass_fold_known_sizes(ox_context *ctx, ox_graph *g, const ox_static_shapes *shapes,
                                   size_t *n_folded);

#endif /* OXPORT_FOLD_KNOWN_SIZES_H */
