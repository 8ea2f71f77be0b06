/*
 * Graph passes run on every converted graph.  Each is O(nodes + edges) and
 * takes the graph as its only state, so new passes (constant folding) slot
 * into the table without touching conversion.
 */
#ifndef OXPORT_PASSES_H
#define OXPORT_PASSES_H

#include <stddef.h>

#include "context.h"
#include "ir.h"

typedef ox_status (*ox_pass_fn)(ox_context *ctx, ox_graph *g);

typedef struct ox_pass {
    const char *name;
    ox_pass_fn run;
} ox_pass;

/* The pipeline ox_passes_run applies, in order. */
size_t ox_passes(const ox_pass **out);
ox_status ox_passes_run(ox_context *ctx, ox_graph *g);

/* Rewire uses of Identity and eval-mode Dropout outputs to their input (a
 * node whose output is a graph output stays, so output names survive). */
ox_status ox_pass_remove_identity(ox_context *ctx, ox_graph *g);
/* Remove nodes none of whose outputs is used or a graph output, and
 * parameters nothing uses. */
ox_status ox_pass_dce(ox_context *ctx, ox_graph *g);
/* Topological order, stable: a graph already in order keeps it; otherwise
 * nodes follow creation order except where an input forces a producer first.
 * A cycle is OX_ECHECK. */
ox_status ox_pass_toposort(ox_context *ctx, ox_graph *g);
/* Names: inputs and parameters keep theirs (unnamed ones get their index),
 * other values are numbered in node order from n_inputs + n_params (torch's
 * "%17"); nodes are "<OpType>_<n>".  Collisions get "_1", "_2" ... */
ox_status ox_pass_name(ox_context *ctx, ox_graph *g);

#endif /* OXPORT_PASSES_H */
