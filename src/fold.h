/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Constant folding, run by ox_export when do_constant_folding is set.
 */
#ifndef OXPORT_FOLD_H
#define OXPORT_FOLD_H

#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "static_shapes.h"

#define OX_FOLD_MAX_RANK 16

/* Replace nodes computed only from small onnx::Constant values by Constants
 * holding the result; *n_folded (may be NULL) counts them.  Inputs left
 * unused are for the DCE pass to remove. */
ox_status ox_pass_fold_constants(ox_context *ctx, ox_graph *g, size_t *n_folded);
/* The same, handing back the sweep's shape analysis of the folded graph in
 * *shapes (the caller frees it; nothing to free on failure): the writer's
 * value_info needs that analysis, and it is what a fresh one would find as
 * long as the graph gains no values (static_shapes.h). */
ox_status ox_pass_fold_constants_keeping_shapes(ox_context *ctx, ox_graph *g, size_t *n_folded,
                                                ox_static_shapes *shapes);

#endif /* OXPORT_FOLD_H */
