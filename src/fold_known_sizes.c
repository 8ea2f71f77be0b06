/*
 * Sizes that no dynamic axis reaches, folded (fold_known_sizes.h).
 */
#include "fold_known_sizes.h"

#include <string.h>

#include "varying_dims.h"

/* Whether v's type, as far as it is known, is what a constant of these
 * values has: int64, rank 0 for a scalar, else rank 1 of len elements.
 * Values a symbolic made on the way (a Slice of a Shape) often have no
 * inferred type, and the Constant gives them one; a known type that differs
 * keeps the node, so no type the graph was built against changes. */
static bool type_matches(const ox_value *v, uint32_t len, bool scalar)
{
    if (!v || v->type.nontensor || (v->type.dtype != OX_INT64 && v->type.dtype != OX_UNDEFINED))
        return false;
    if (v->type.rank < 0)
        return true;
    if (scalar)
        return v->type.rank == 0 && len == 1;
    return v->type.rank == 1 && (!v->type.dims || v->type.dims[0] < 0 ||
                                 v->type.dims[0] == (int64_t)len);
}

ox_status ox_pass_fold_known_sizes(ox_context *ctx, ox_graph *g, const ox_static_shapes *shapes,
                                   size_t *n_folded)
{
    *n_folded = 0;
    if (!ox_varying_dims_any_input(g))
        return OX_OK;
    ox_varying_dims d;
    if (ox_varying_dims_compute_keeping_values(g, shapes, &d) != 0)
        return ox_fail(ctx, OX_ENOMEM, "folding known sizes: out of memory");
    size_t folded = 0;
    for (ox_node *n = g->first; n; n = n->next) {
        /* a Constant is one already; a node of another domain, or with more
         * than one output, is not a size computation the analysis follows */
        if (n->domain[0] || n->n_outputs != 1 || !n->n_inputs || !n->outputs[0] ||
            strcmp(n->op_type, "Constant") == 0)
            continue;
        int64_t vals[OX_VARYING_MAX_ELEMS];
        uint32_t len = 0;
        bool scalar = false;
        if (!ox_varying_dims_known_value(&d, n->outputs[0], vals, &len, &scalar) ||
            !type_matches(ox_graph_value(g, n->outputs[0]), len, scalar))
            continue;
        int64_t dim = (int64_t)len;
        if (ox_node_become_constant_copy(g, n, OX_INT64, scalar ? 0 : 1, &dim, vals,
                                         (uint64_t)len * sizeof(int64_t)) != 0) {
            ox_varying_dims_free(&d);
            return ox_fail(ctx, OX_ENOMEM, "folding known sizes: out of memory at node %s",
                           n->name ? n->name : n->op_type);
        }
        folded++;
    }
    ox_varying_dims_free(&d);
    *n_folded = folded;
    return OX_OK;
}
