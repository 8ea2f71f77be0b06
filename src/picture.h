/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Graph pictures: a graph as Graphviz DOT (modules as nested clusters,
 * initializers folded into the nodes that read them, tensor types on the
 * edges), and SVG/PNG rendered from it by Graphviz's `dot` program.
 */
#ifndef OXPORT_PICTURE_H
#define OXPORT_PICTURE_H

#include <stdio.h>

#include "ir.h"

/* What part of a graph to draw. */
typedef struct ox_picture_view {
    /* Only nodes whose scope is this module or inside it ("M/Sequential[features]");
     * NULL or "" draws the whole graph. */
    const char *scope;
    /* Module levels below `scope` drawn as clusters; a module deeper than
     * that is drawn as one box.  Negative: no limit. */
    int depth;
} ox_picture_view;

/* Nodes of the top-level graph the view selects (what `dot` would draw as
 * operator boxes).  Lets a caller refuse an empty selection. */
size_t ox_picture_count(const ox_graph *g, const ox_picture_view *view);

/* Write the DOT text.  Every drawn ONNX node gets the id "op_<k>" (k counts
 * the graph's nodes from 0 in order), a box standing for a collapsed module
 * "module_<k>", graph inputs "input_<k>" and outputs "output_<k>", so a
 * rendered SVG can be checked node by node.  OX_EIO on a write error. */
ox_status ox_picture_write_dot(const ox_graph *g, const ox_picture_view *view, FILE *out);

/* Render to `path` in `format` ("dot", "svg" or "png"; NULL: from the
 * path's extension).  SVG and PNG run Graphviz's `dot`; a missing `dot`,
 * its failure or an empty selection is an error naming the cause.  The file
 * appears atomically: on failure nothing is left at `path`. */
ox_status ox_picture_render(ox_context *ctx, const ox_graph *g, const ox_picture_view *view,
                            const char *path, const char *format);

/* "dot", "svg", "png" from a path's extension; NULL when it is none of them. */
const char *ox_picture_format_of(const char *path);

#endif /* OXPORT_PICTURE_H */
