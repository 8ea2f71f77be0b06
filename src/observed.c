/*
 * Which of the host's fixed values can vary (observed.h).
 */
#include "observed.h"

#include "context.h"
#include "passes.h"
#include "static_shapes.h"
#include "symbolic_api.h"
#include "varying_dims.h"

/* Whether v holds the same value on every run of the file: a constant, or
 * what the varying-dims analysis works out from sizes no dynamic axis
 * reaches, or a comparison of two sizes it knows are one (a host hands
 * over `a == b` for a comparison it made).  A value conversion did not
 * keep (0) may vary. */
static bool same_every_run(const ox_graph *g, const ox_varying_dims *d, ox_vid v)
{
    return ox_sym_const_tensor(g, v, NULL, NULL) || ox_varying_dims_same_every_run(d, v);
}

ox_status ox_pass_resolve_observed(ox_context *ctx, ox_graph *g, ox_report *notes)
{
    if (!g->n_observed)
        return OX_OK;
    ox_static_shapes own;
    const ox_static_shapes *s = ox_static_shapes_of(g, NULL, &own);
    ox_varying_dims d;
    if (!s || ox_varying_dims_compute_with_terms(g, s, &d) != 0) {
        ox_static_shapes_free(&own);
        return ox_fail(ctx, OX_ENOMEM, "out of memory asking which fixed values can vary");
    }
    for (uint32_t k = 0; k < g->n_observed; k++) {
        const ox_observed *e = &g->observed[k];
        bool same = true;
        for (uint32_t i = 0; same && i < e->n_values; i++)
            same = same_every_run(g, &d, e->values[i]);
        if (!same)
            ox_report_add(notes, "%s", e->message);
    }
    ox_varying_dims_free(&d);
    ox_static_shapes_free(&own);
    ox_graph_clear_observed(g);
    if (notes->oom)
        return ox_fail(ctx, OX_ENOMEM, "out of memory noting a fixed value");
    return ox_pass_dce(ctx, g);
}
