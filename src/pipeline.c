/*
 * The stage order (pipeline.h): which stage runs when, and nothing else;
 * each stage's work lives in the file the table names.
 */
#include "pipeline.h"

#include "convert.h"
#include "fold.h"
#include "fold_known_sizes.h"
#include "functions.h"
#include "lift_constants.h"
#include "observed.h"
#include "passes.h"

static ox_status stage_prescan(ox_pipeline *p)
{
    ox_status st = ox_convert_resolve_opset(p->ctx, p->traced, &p->opset, &p->lo, &p->hi);
    return st != OX_OK ? st : ox_convert_prescan(p->ctx, p->traced, p->opset, p->lo, p->hi);
}

static ox_status stage_convert(ox_pipeline *p)
{
    return ox_convert_graph(p->ctx, p->traced, p->opset, &p->g);
}

/* The survey (passes.h) is taken here, before the first of the three passes
 * it speaks for, and each of them skips its walks when it says there is
 * nothing to do; the naming stage is its last reader. */
static ox_status stage_remove_identity(ox_pipeline *p)
{
    ox_pass_survey(p->g, &p->survey);
    p->surveyed = true;
    return p->survey.forwarding ? ox_pass_remove_identity(p->ctx, p->g) : OX_OK;
}

static ox_status stage_dce(ox_pipeline *p)
{
    if (p->surveyed && !p->survey.dead && !p->survey.forwarding) {
        ox_graph_drop_unused_params(p->g); /* what DCE does besides removing nodes */
        return OX_OK;
    }
    return ox_pass_dce(p->ctx, p->g);
}

/* Folding only removes what it folds: a fold that changed nothing leaves
 * nothing for a second sweep (which would walk a large graph for it). */
static ox_status stage_dce_after_fold(ox_pipeline *p)
{
    return p->n_folded ? ox_pass_dce(p->ctx, p->g) : OX_OK;
}

static ox_status stage_toposort(ox_pipeline *p)
{
    return p->surveyed && p->survey.sorted ? OX_OK : ox_pass_toposort(p->ctx, p->g);
}

/* What only the host's fixed values kept goes before naming (observed.h),
 * and removing nodes leaves the survey's word on names true. */
static ox_status stage_observed(ox_pipeline *p)
{
    return ox_pass_resolve_observed(p->ctx, p->g, &p->notes);
}

/* The survey's last reader: nothing since it changed a name. */
static ox_status stage_name(ox_pipeline *p)
{
    bool unnamed = p->surveyed && !p->survey.named;
    p->surveyed = false;
    return unnamed ? ox_pass_name_unnamed_nodes(p->ctx, p->g) : ox_pass_name(p->ctx, p->g);
}

/* A stage that rewrites nodes in ways the fold's shape analysis did not see
 * drops that analysis: the writer then works it out afresh. */
static void drop_shapes(ox_pipeline *p)
{
    if (p->have_shapes)
        ox_static_shapes_free(&p->shapes);
    p->have_shapes = false;
}

/* Rounds of known-size folding and the constant fold after it: a size
 * folded lets the fold reach arithmetic the analysis does not work out (a
 * Div), whose result may fix a Reshape's target and so the next shape.  Real
 * models settle in one or two. */
#define KNOWN_SIZE_ROUNDS 4

static ox_status stage_fold(ox_pipeline *p)
{
    drop_shapes(p);
    ox_status st = ox_pass_fold_constants_keeping_shapes(p->ctx, p->g, &p->n_folded, &p->shapes);
    p->have_shapes = st == OX_OK;
    for (int round = 0; st == OX_OK && round < KNOWN_SIZE_ROUNDS; round++) {
        size_t known = 0, more = 0;
        st = ox_pass_fold_known_sizes(p->ctx, p->g, &p->shapes, &known);
        if (st != OX_OK || !known)
            break;
        drop_shapes(p);
        st = ox_pass_fold_constants_keeping_shapes(p->ctx, p->g, &more, &p->shapes);
        p->have_shapes = st == OX_OK;
        p->n_folded += known + more;
    }
    return st;
}

static ox_status stage_functions(ox_pipeline *p)
{
    const ox_export_options *o = p->export;
    if (o->n_function_types)
        drop_shapes(p);
    return ox_functions_extract(p->ctx, p->g, p->opset, o->function_types, o->n_function_types,
                                &p->notes);
}

static ox_status stage_lift_constants(ox_pipeline *p)
{
    size_t lifted = 0;
    ox_status st = ox_pass_lift_constants(p->ctx, p->g, p->opset, &lifted);
    if (lifted)
        drop_shapes(p);
    return st;
}

static ox_status stage_io_layout(ox_pipeline *p)
{
    const ox_export_options *o = p->export;
    if ((o->n_input_names && !o->input_names) || (o->n_output_names && !o->output_names))
        return ox_fail(p->ctx, OX_EINVAL, "ox_export: a names count is set but its list is NULL");
    ox_status st = ox_io_layout_plan(p->ctx, p->g, o, &p->layout);
    p->laid_out = true;
    if (st != OX_OK)
        return st;
    p->layout.traced_sizes = true;
    p->layout.shapes = p->have_shapes ? &p->shapes : NULL;
    /* The layout listed the initializers as inputs anyway (IR <= 3 requires
     * it); a caller who asked otherwise is told, as torch.onnx tells. */
    if (o->keep_initializers_as_inputs == 0 && p->layout.ir_version <= 3 && p->layout.main.n_inits)
        ox_report_add(&p->notes,
                      "keep_initializers_as_inputs=0 is ignored at opset %d: its IR version "
                      "%lld requires every initializer to be a graph input too, so the file "
                      "lists them as inputs (opset 9 or newer can leave them out)",
                      p->opset, (long long)p->layout.ir_version);
    /* the verbose listing and the check then see the names the file gets */
    if (ox_io_layout_name_graph(&p->layout, p->g) != 0)
        return ox_fail(p->ctx, OX_ENOMEM, "out of memory naming the graph's inputs and outputs");
    return OX_OK;
}

static const ox_stage stages[] = {
    {"prescan", stage_prescan, OX_STAGE_ALWAYS},
    {"convert", stage_convert, OX_STAGE_ALWAYS},
    {"remove-identity", stage_remove_identity, OX_STAGE_ALWAYS},
    {"dce", stage_dce, OX_STAGE_ALWAYS},
    {"toposort", stage_toposort, OX_STAGE_ALWAYS},
    {"observed", stage_observed, OX_STAGE_ALWAYS},
    {"name", stage_name, OX_STAGE_ALWAYS},
    {"fold-constants", stage_fold, OX_STAGE_FOLDING},
    {"dce", stage_dce_after_fold, OX_STAGE_FOLDING},
    {"functions", stage_functions, OX_STAGE_EXPORTING},
    {"lift-constants", stage_lift_constants, OX_STAGE_ALWAYS},
    {"io-layout", stage_io_layout, OX_STAGE_EXPORTING},
};

#define N_STAGES (sizeof stages / sizeof stages[0])

size_t ox_pipeline_stages(const ox_stage **out)
{
    *out = stages;
    return N_STAGES;
}

void ox_pipeline_init(ox_pipeline *p, ox_context *ctx, const ox_graph *traced, int opset,
                      const ox_export_options *export)
{
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->traced = traced;
    p->opset = opset;
    p->export = export;
    ox_report_init(&p->notes);
}

static bool applies(const ox_pipeline *p, ox_stage_when when)
{
    switch (when) {
    case OX_STAGE_ALWAYS: return true;
    case OX_STAGE_FOLDING: return p->export && p->export->do_constant_folding;
    case OX_STAGE_EXPORTING: return p->export != NULL;
    }
    return false;
}

static ox_status run_stages(ox_pipeline *p, size_t first)
{
    for (size_t i = first; i < N_STAGES; i++) {
        if (!applies(p, stages[i].when))
            continue;
        ox_status st = stages[i].run(p);
        if (st != OX_OK)
            return st;
    }
    ox_clear_error(p->ctx);
    return OX_OK;
}

ox_status ox_pipeline_run(ox_pipeline *p)
{
    return run_stages(p, 0);
}

ox_status ox_pipeline_run_from(ox_pipeline *p, const char *first)
{
    for (size_t i = 0; i < N_STAGES; i++)
        if (strcmp(stages[i].name, first) == 0)
            return run_stages(p, i);
    return ox_fail(p->ctx, OX_EINVAL, "the pipeline has no stage '%s'", first);
}

ox_graph *ox_pipeline_take_graph(ox_pipeline *p)
{
    ox_graph *g = p->g;
    p->g = NULL;
    return g;
}

void ox_pipeline_free(ox_pipeline *p)
{
    drop_shapes(p);
    if (p->laid_out)
        ox_io_layout_free(&p->layout);
    p->laid_out = false;
    ox_graph_free(p->g);
    p->g = NULL;
    ox_report_free(&p->notes);
}
