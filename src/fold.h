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

#define OX_FOLD_MAX_RANK 16

/* Replace nodes computed only from small onnx::Constant values by Constants
 * holding the result; *n_folded (may be NULL) counts them.  Inputs left
 * unused are for the DCE pass to remove. */
ox_status ox_pass_fold_constants(ox_context *ctx, ox_graph *g, size_t *n_folded);

#endif /* OXPORT_FOLD_H */
