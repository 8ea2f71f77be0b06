/*
 * Conversion of a traced graph (aten::/fn:: nodes) into an ONNX-domain
 * graph: pre-scan of every node against the packs and the opset YAML, then
 * one symbolic call per node, then the passes (passes.h).  The public entry
 * point is ox_convert (oxport.h).
 */
#ifndef OXPORT_CONVERT_H
#define OXPORT_CONVERT_H

#include "context.h"
#include "ir.h"

/* Enabled opset range: the config's opsets {min, max}, else the loaded
 * descriptors' range.  `source` (may be NULL) receives what set it, for
 * messages.  Call after ox_context_load. */
void ox_convert_opset_range(const ox_context *ctx, int *lo, int *hi, const char **source);

/* Constants up to this many bytes become onnx::Constant nodes when an emitted
 * node uses them; larger ones become initializers. */
#define OX_CONVERT_CONSTANT_NODE_MAX 4096u

#endif /* OXPORT_CONVERT_H */
