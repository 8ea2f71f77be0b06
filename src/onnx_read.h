/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The ONNX reader (ox_read in oxport.h): a ModelProto file becomes an IR
 * graph.  It is a fuzz target: any byte string yields a graph or OX_EFORMAT,
 * never a crash.
 */
#ifndef OXPORT_ONNX_READ_H
#define OXPORT_ONNX_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"

/* Deepest nesting of messages accepted (subgraphs inside attributes count);
 * deeper input is rejected before decoding so it cannot exhaust the stack. */
#define OX_READ_MAX_DEPTH 64

/* Parse a serialized ModelProto held in memory.  `name` is used in messages,
 * `base_dir` resolves external data (NULL: external data is an error).  The
 * bytes need not outlive the call. */
ox_status ox_read_memory(ox_context *ctx, const void *data, size_t len, const char *name,
                         const char *base_dir, ox_graph **out);

/* True when `v` is an initializer that the file read also listed as a graph
 * input (ox_value.listed_as_input; writing the graph back keeps that
 * layout).  False for graphs that were not read from a file. */
bool ox_read_param_is_input(const ox_graph *g, ox_vid v);

#endif /* OXPORT_ONNX_READ_H */
