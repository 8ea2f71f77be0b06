/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The io-layout stage: which values a file lists as graph inputs and which
 * as initializers, and the name every written value and node carries.  This
 * is the only place these are decided (the "parameters are inputs when the
 * IR version is 3 or less" rule, keep_initializers_as_inputs, export_params,
 * input_names/output_names, unique names); onnx_write.c serializes a layout
 * and decides nothing.  The graph itself is not modified: a layout lives in
 * its own arena, so a second write with other options starts afresh.
 */
#ifndef OXPORT_IO_LAYOUT_H
#define OXPORT_IO_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "context.h"
#include "ir.h"

/* One graph's layout (the main graph or a GRAPH attribute's body). */
typedef struct ox_io_plan {
    const ox_graph *g;
    const char **names;      /* per vid: the name in the file; NULL = not written */
    const char **node_names; /* per node id */
    ox_vid *inits;           /* initializers, in file order */
    size_t n_inits;
    ox_vid *ins;             /* graph inputs, in file order */
    size_t n_ins;
    bool *is_init;           /* per vid */
    bool *is_input;          /* per vid */
    bool has_bodies;         /* a node holds a GRAPH attribute with a body */
} ox_io_plan;

typedef struct ox_io_layout {
    ox_arena arena;
    int64_t ir_version; /* the graph's, or the one its default-domain opset implies */
    ox_io_plan main;
    ox_io_plan *subs;   /* every subgraph, found by ox_io_layout_sub */
    size_t n_subs, cap_subs;
    /* The graph's sizes are a host's trace of one run (ox_export sets it):
     * the writer declares a graph output's dims that a dynamic axis reaches
     * as open (varying_dims.h).  A graph read from a file (ox_write) keeps
     * the sizes its file declared. */
    bool traced_sizes;
    /* The graph's shape analysis, when ox_export's fold made one the graph
     * still matches (pipeline.h); NULL: the writer makes its own.  Borrowed. */
    const struct ox_static_shapes *shapes;
} ox_io_layout;

/* Subgraphs nested deeper than this are refused. */
#define OX_IO_MAX_SUBGRAPH_DEPTH 64

/* Lay out g (and its subgraphs) for a write with options o (NULL: the
 * defaults).  On failure the context says why and *l holds nothing to free
 * beyond ox_io_layout_free. */
ox_status ox_io_layout_plan(ox_context *ctx, const ox_graph *g, const ox_export_options *o,
                            ox_io_layout *l);
/* The plan of subgraph `sub`, NULL when it was not laid out. */
const ox_io_plan *ox_io_layout_sub(const ox_io_layout *l, const ox_graph *sub);
void ox_io_layout_free(ox_io_layout *l);

/* Give g's values and nodes the names the layout decided, so what is
 * printed before writing is what the file will say.  -1 out of memory. */
int ox_io_layout_name_graph(const ox_io_layout *l, ox_graph *g);

#endif /* OXPORT_IO_LAYOUT_H */
