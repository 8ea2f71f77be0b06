/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Below opset 9 the Constant operator holds float tensors only (Constant-1:
 * float16, float, double); shape vectors, indices and masks must then be
 * initializers.  Symbolics keep building Constants of every type (folding
 * works on them); this stage, the pipeline's last before the file's layout,
 * turns the ones opset 7 and 8 cannot hold into initializers.
 */
#ifndef OXPORT_LIFT_CONSTANTS_H
#define OXPORT_LIFT_CONSTANTS_H

#include <stdbool.h>

#include "context.h"
#include "ir.h"

/* True for a Constant node at `opset` whose value the opset's Constant
 * cannot hold, which ox_pass_lift_constants will make an initializer: the
 * schema check at conversion lets it through. */
bool ox_constant_needs_lifting(const ox_node *n, int64_t opset);

/* Every such Constant of g's main graph becomes an initializer holding its
 * tensor (same value, same name); *n_lifted (may be NULL) counts them. */
ox_status ox_pass_lift_constants(ox_context *ctx, ox_graph *g, int64_t opset, size_t *n_lifted);

#endif /* OXPORT_LIFT_CONSTANTS_H */
