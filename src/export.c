/*
 * ox_export: convert, optionally print, write.  The converted graph lives
 * only for the duration of the call; its parameters borrow the traced
 * graph's bytes, which borrow the host's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "fold.h"
#include "passes.h"
#include "ir.h"
#include "oxport/oxport.h"

void ox_export_options_init(ox_export_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = (uint32_t)sizeof(*opts);
    opts->opset = 0;
    opts->export_params = 1;
    opts->keep_initializers_as_inputs = -1;
    opts->external_data_threshold = 0; /* the writer's default (1 KiB) */
    opts->external_data = 0;
    opts->do_constant_folding = 1;
    opts->producer_name = "oxport";
    opts->producer_version = ox_version();
    opts->check = 1;
}

/* Give the converted graph the caller's input/output names before it is
 * printed, so the verbose listing shows the names the file will carry (the
 * writer applies the same prefix rule and finds them already in place).
 * Inputs are the graph inputs, then the parameters when they are listed as
 * inputs — torch.onnx's "inputs followed by parameters". */
static void apply_names(ox_graph *g, const ox_export_options *o)
{
    int64_t ir = g->ir_version ? g->ir_version : ox_ir_version_for_opset(ox_graph_opset(g, ""));
    bool params_are_inputs = !o->export_params || o->keep_initializers_as_inputs == 1 ||
                             (o->keep_initializers_as_inputs < 0 && ir <= 3);
    size_t k = 0;
    for (uint32_t i = 0; i < g->n_inputs && k < o->n_input_names; i++, k++)
        if (o->input_names[k] && *o->input_names[k])
            g->values[g->inputs[i]]->name = o->input_names[k];
    for (uint32_t i = 0; params_are_inputs && i < g->n_params && k < o->n_input_names; i++, k++)
        if (o->input_names[k] && *o->input_names[k])
            g->values[g->params[i]]->name = o->input_names[k];
    for (uint32_t i = 0; i < g->n_outputs && i < o->n_output_names; i++)
        if (o->output_names[i] && *o->output_names[i])
            g->values[g->outputs[i]]->name = o->output_names[i];
}

/* The smallest struct a host may pass: everything up to producer_version
 * existed in 0.1. */
#define EXPORT_OPTIONS_MIN_0_1 \
    (offsetof(ox_export_options, producer_version) + sizeof(const char *))

ox_status ox_export(ox_context *ctx, const ox_graph *traced, const char *path,
                    const ox_export_options *opts)
{
    if (!ctx)
        return OX_EINVAL;
    if (!traced)
        return ox_fail(ctx, OX_EINVAL, "ox_export: graph is NULL");
    if (!path || !*path)
        return ox_fail(ctx, OX_EINVAL, "ox_export: path is NULL or empty");
    ox_export_options o;
    ox_export_options_init(&o);
    if (opts) {
        if (opts->struct_size < EXPORT_OPTIONS_MIN_0_1 || opts->struct_size > sizeof(o))
            return ox_fail(ctx, OX_EINVAL,
                           "ox_export: options struct_size is %u, expected %zu; initialize the "
                           "options with ox_export_options_init",
                           (unsigned)opts->struct_size, sizeof(o));
        memcpy(&o, opts, opts->struct_size);
        o.struct_size = (uint32_t)sizeof(o);
    }
    ox_graph *onnx = NULL;
    ox_status st = ox_convert(ctx, traced, o.opset, &onnx);
    if (st != OX_OK)
        return st;
    if ((o.n_input_names && !o.input_names) || (o.n_output_names && !o.output_names)) {
        ox_graph_free(onnx);
        return ox_fail(ctx, OX_EINVAL, "ox_export: a names count is set but its list is NULL");
    }
    if (o.do_constant_folding &&
        ((st = ox_pass_fold_constants(ctx, onnx, NULL)) != OX_OK ||
         (st = ox_pass_dce(ctx, onnx)) != OX_OK)) {
        ox_graph_free(onnx);
        return st;
    }
    apply_names(onnx, &o);
    if (o.verbose && (st = ox_graph_print(onnx, o.verbose)) != OX_OK) {
        ox_graph_free(onnx);
        return ox_fail(ctx, st, "ox_export: printing the graph (verbose) failed: %s",
                       ox_strerror(st));
    }
    /* the file must pass the checker (as torch.onnx runs onnx.checker);
     * checked before anything is written, so a failure leaves no file */
    if (o.check && (st = ox_check(ctx, onnx, NULL, NULL)) != OX_OK) {
        ox_graph_free(onnx);
        char why[1024];
        snprintf(why, sizeof why, "%s", ox_errmsg(ctx));
        return ox_fail(ctx, st, "ox_export: %s; %s was not written (check=0 skips the check)",
                       why, path);
    }
    st = ox_write(ctx, onnx, path, &o);
    ox_graph_free(onnx);
    return st;
}
