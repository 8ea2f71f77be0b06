/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * What happens to one traced node: copied as it is (already ONNX, or a
 * configured custom domain), converted by a symbolic, or — per the export
 * type — written as an ATen node or as recorded.  The pre-scan and the
 * conversion ask the same question, so the answer lives here once.
 */
#ifndef OXPORT_ROUTE_H
#define OXPORT_ROUTE_H

#include "context.h"
#include "ir.h"

typedef enum ox_route {
    OX_ROUTE_CONVERT,     /* its symbolic converts it */
    OX_ROUTE_ATEN,        /* written as an ATen node (org.pytorch.aten) */
    OX_ROUTE_AS_RECORDED, /* written in its own domain, as recorded */
    OX_ROUTE_PASS_THROUGH /* onnx:: or a configured custom domain: copied */
} ox_route;

ox_route ox_route_of(const ox_context *ctx, const ox_node *n, int opset);

/* The config file that disables kind, or NULL. */
const char *ox_route_disabled_by(const ox_context *ctx, const char *kind);

/* "ONNX", "ONNX_ATEN", ... for messages. */
const char *ox_export_type_name(ox_export_type et);

/* A node's scope for messages: "(top level)" when it has none. */
const char *ox_node_scope_text(const ox_node *n);

#endif
