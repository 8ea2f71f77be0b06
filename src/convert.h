/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Conversion of a traced graph (aten::/fn:: nodes) into an ONNX-domain
 * graph, as two pipeline stages (pipeline.h): the pre-scan of every node
 * against the packs and the opset YAML, then one symbolic call per node.
 * The public entry point is ox_convert (oxport.h), which runs the pipeline.
 */
#ifndef OXPORT_CONVERT_H
#define OXPORT_CONVERT_H

#include "context.h"
#include "ir.h"

/* Enabled opset range: the config's opsets {min, max}, else the loaded
 * descriptors' range.  `source` (may be NULL) receives what set it, for
 * messages.  Call after ox_context_load. */
void ox_convert_opset_range(const ox_context *ctx, int *lo, int *hi, const char **source);

/* Check the traced graph and the opset (0 = the context's target) against
 * the enabled range [*lo, *hi], loading the context's packs and opsets. */
ox_status ox_convert_resolve_opset(ox_context *ctx, const ox_graph *traced, int *opset, int *lo,
                                   int *hi);
/* Every node against the packs, the config and the opset descriptors; all
 * problems reported at once (OX_EUNSUPPORTED), notes kept on the context. */
ox_status ox_convert_prescan(ox_context *ctx, const ox_graph *traced, int opset, int lo, int hi);
/* One symbolic call per node: the converted graph, before any pass. */
ox_status ox_convert_graph(ox_context *ctx, const ox_graph *traced, int opset, ox_graph **out);

/* Constants up to this many bytes become onnx::Constant nodes when an emitted
 * node uses them; larger ones become initializers. */
#define OX_CONVERT_CONSTANT_NODE_MAX 4096u

#endif /* OXPORT_CONVERT_H */
