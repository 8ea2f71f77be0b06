/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The functions stage: every scope instance of a selected module type
 * (ox_export_options.function_types) becomes a call node of a model-local
 * function, and each distinct body one ox_function of the graph.  Inner
 * instances are replaced first, so an outer function's body calls the inner
 * one.  Runs on a converted, named graph, before the io-layout stage.
 */
#ifndef OXPORT_FUNCTIONS_H
#define OXPORT_FUNCTIONS_H

#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "report.h"

/* Functions need IR 8, which opset 15 brings. */
#define OX_FUNCTIONS_MIN_OPSET 15

/* A type no scope of the graph names is no error (a model may not run a
 * module of it on this input), but it is said in `notes`. */
ox_status ox_functions_extract(ox_context *ctx, ox_graph *g, int opset,
                               const char *const *types, size_t n_types, ox_report *notes);

#endif /* OXPORT_FUNCTIONS_H */
