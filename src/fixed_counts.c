/*
 * Counts fixed to the example (fixed_counts.h).
 */
#include "fixed_counts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"
#include "static_shapes.h"
#include "varying_dims.h"

/* A Split into equal pieces, told no sizes (opset 18 counts them in
 * num_outputs): unbind's one piece per position.  torch.split and chunk over
 * a dynamic dim are recorded as slices whose bounds follow the size, and
 * sizes the model wrote down are the model's, so neither is one. */
static bool counted_split(const ox_node *n)
{
    return !n->domain[0] && strcmp(n->op_type, "Split") == 0 && n->n_outputs > 1 &&
           (n->n_inputs < 2 || !n->inputs[1]) && !ox_node_attr(n, "split");
}

/* A split the export warned about, by its input and dim: a symbolic's read
 * of that same size (unbind checking its count) is the same fact. */
typedef struct warned_split {
    ox_vid input;
    int64_t axis;
} warned_split;

static bool covered_by_split(const warned_split *splits, size_t n, const ox_size_read *r)
{
    for (size_t i = 0; i < n; i++)
        if (splits[i].input == r->v && splits[i].axis == r->axis)
            return true;
    return false;
}

/* One line per recorded op, not per size its conversion read: the reads of
 * one traced node come together (context.h), so the last node warned about
 * is the one to compare with. */
static void warn_size_reads(const ox_graph *g, const ox_varying_dims *d, const ox_size_read *reads,
                            size_t n_reads, const warned_split *splits, size_t n_splits,
                            ox_report *out)
{
    const ox_node *last_warned = NULL;
    for (size_t i = 0; i < n_reads; i++) {
        const ox_size_read *r = &reads[i];
        const ox_value *v = ox_graph_value(g, r->v);
        if (!v || !r->traced || r->axis < 0 || r->axis >= 64 || v->type.rank <= r->axis ||
            !v->type.dims || !((ox_varying_dims_of(d, r->v) >> r->axis) & 1) ||
            covered_by_split(splits, n_splits, r))
            continue;
        if (r->traced == last_warned)
            continue;
        last_warned = r->traced;
        ox_report_add_at(out, r->traced->scope,
                         "%s at %s: its conversion read dim %d of a value as %lld, the example's "
                         "size, but a dynamic axis reaches that dim; the file is built for %lld "
                         "there and may compute otherwise at another size",
                         r->traced->kind, ox_node_scope_text(r->traced), (int)r->axis,
                         (long long)v->type.dims[r->axis], (long long)v->type.dims[r->axis]);
    }
}

int ox_fixed_counts_warn(const ox_graph *g, const ox_static_shapes *shapes,
                         const ox_size_read *reads, size_t n_reads, ox_report *out)
{
    if (!ox_varying_dims_any_input(g))
        return 0;
    bool any_split = false;
    for (const ox_node *n = g->first; n && !any_split; n = n->next)
        any_split = counted_split(n);
    if (!any_split && !n_reads)
        return 0;
    ox_static_shapes own;
    const ox_static_shapes *sh = ox_static_shapes_of(g, shapes, &own);
    ox_varying_dims d;
    int rc = sh ? ox_varying_dims_compute(g, sh, &d) : -1;
    ox_static_shapes_free(&own);
    if (rc != 0)
        return -1;
    warned_split *splits = NULL;
    size_t n_splits = 0, cap_splits = 0;
    for (const ox_node *n = g->first; n; n = n->next) {
        if (!counted_split(n) || !n->n_inputs || !n->inputs[0])
            continue;
        int32_t rank = d.rank[n->inputs[0]];
        int64_t axis = ox_node_attr_int(n, "axis", 0);
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
        if (n_splits == cap_splits) {
            size_t cap = cap_splits ? cap_splits * 2 : 8;
            warned_split *grown = realloc(splits, cap * sizeof(*grown));
            if (!grown) {
                out->oom = 1;
                break;
            }
            splits = grown;
            cap_splits = cap;
        }
        splits[n_splits++] = (warned_split){n->inputs[0], axis};
    }
    if (!out->oom)
        warn_size_reads(g, &d, reads, n_reads, splits, n_splits, out);
    free(splits);
    ox_varying_dims_free(&d);
    return out->oom ? -1 : 0;
}
