/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * An IR graph as JSON (`oxport dump --format json`; schema in
 * docs/json-output.md): the model's metadata, typed inputs, outputs and
 * initializers, and every node with its attributes, subgraphs included.
 */
#ifndef OXPORT_GRAPH_JSON_H
#define OXPORT_GRAPH_JSON_H

#include "ir.h"
#include "json_out.h"

/* A value's type: {"dtype": "float", "shape": [1, "N", null]} (a string
 * for a symbolic dim, null for an unknown one, shape null when the rank
 * is unknown, "other" the printed form of a non-tensor type such as
 * "Sequence(Float)", else null). */
void ox_json_type(ox_json *j, const ox_type *t);
/* A graph's opset imports: [{"domain": "", "version": 13}, ...]. */
void ox_json_opset_imports(ox_json *j, const ox_graph *g);
/* The "model" object: metadata and the main graph. */
void ox_json_model(ox_json *j, const ox_graph *g);

#endif /* OXPORT_GRAPH_JSON_H */
