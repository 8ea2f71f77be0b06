/*
 * Counts fixed to the example (fixed_counts.h).
 */
#include "fixed_counts.h"

#include <stdbool.h>
#include <string.h>

#include "route.h"
#include "static_shapes.h"
#include "varying_dims.h"

static bool any_input_varies(const ox_graph *g)
{
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const ox_value *v = ox_graph_value(g, g->inputs[i]);
        if (!v || v->type.nontensor)
            continue;
        for (int32_t d = 0; d < v->type.rank; d++)
            if (!v->type.dims || v->type.dims[d] < 0 || (v->type.dim_params && v->type.dim_params[d]))
                return true;
    }
    return false;
}

static int64_t attr_int(const ox_node *n, const char *name, int64_t dflt)
{
    const ox_attr *a = ox_node_attr(n, name);
    return a && a->kind == OX_ATTR_INT ? a->u.i : dflt;
}

/* A Split into equal pieces, told no sizes (opset 18 counts them in
 * num_outputs): unbind's one piece per position.  torch.split and chunk over
 * a dynamic dim are recorded as slices whose bounds follow the size, and
 * sizes the model wrote down are the model's, so neither is one. */
static bool counted_split(const ox_node *n)
{
    return !n->domain[0] && strcmp(n->op_type, "Split") == 0 && n->n_outputs > 1 &&
           (n->n_inputs < 2 || !n->inputs[1]) && !ox_node_attr(n, "split");
}

int ox_fixed_counts_warn(const ox_graph *g, ox_report *out)
{
    if (!any_input_varies(g))
        return 0;
    bool any_split = false;
    for (const ox_node *n = g->first; n && !any_split; n = n->next)
        any_split = counted_split(n);
    if (!any_split)
        return 0;
    ox_static_shapes shapes;
    if (ox_static_shapes_init(g, &shapes) != 0)
        return -1;
    for (const ox_node *n = g->first; n; n = n->next)
        ox_static_shapes_note(g, &shapes, n);
    ox_varying_dims d;
    int rc = ox_varying_dims_compute(g, &shapes, &d);
    ox_static_shapes_free(&shapes);
    if (rc != 0)
        return -1;
    for (const ox_node *n = g->first; n; n = n->next) {
        if (!counted_split(n) || !n->n_inputs || !n->inputs[0])
            continue;
        int32_t rank = d.rank[n->inputs[0]];
        int64_t axis = attr_int(n, "axis", 0);
        if (axis < 0 && rank >= 0)
            axis += rank;
        if (axis < 0 || axis >= 64 || !((ox_varying_dims_of(&d, n->inputs[0]) >> axis) & 1))
            continue;
        ox_report_add_at(out, n->scope,
                         "Split at %s: dim %lld of its input follows a dynamic axis, but the number "
                         "of pieces (%u, one per traced position, as unbind makes) is fixed to the "
                         "example; the file makes %u pieces at every size and fails where that dim "
                         "is not a multiple of %u",
                         ox_node_scope_text(n), (long long)axis, n->n_outputs, n->n_outputs,
                         n->n_outputs);
    }
    ox_varying_dims_free(&d);
    return out->oom ? -1 : 0;
}
