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
#include "opset_yaml.h"
#include "plugin_load.h"
#include "strmap.h"

typedef enum ox_route {
    OX_ROUTE_CONVERT,     /* its symbolic converts it */
    OX_ROUTE_ATEN,        /* written as an ATen node (org.pytorch.aten) */
    OX_ROUTE_AS_RECORDED, /* written in its own domain, as recorded */
    OX_ROUTE_PASS_THROUGH /* onnx:: or a configured custom domain: copied */
} ox_route;

ox_route ox_route_of(const ox_context *ctx, const ox_node *n, int opset);

/* The config file that disables kind, or NULL. */
const char *ox_route_disabled_by(const ox_context *ctx, const char *kind);

/* What the pre-scan and the conversion decide from a node's kind alone
 * (its route, the config that disables it, its symbolic, its opset
 * descriptor entry), found once per distinct kind of a graph instead of by
 * four name lookups per node. */
typedef struct ox_kind_info {
    ox_route route;
    const char *disabled_by;
    const ox_op_impl *impl;   /* ox_registry_find at the opset */
    const ox_opset_op *yop;   /* ox_opset_db_lookup at the opset (NULL without descriptors) */
    /* The pre-scan's last node of this kind whose arguments matched the
     * declaration and the descriptor's list (prescan.c): a node recorded
     * with the same argument names (shared strings, ir.h), kinds and output
     * count gets the same answers, so it skips the name matching.  NULL
     * until one passes. */
    const ox_node *args_ok;
} ox_kind_info;

/* Kinds seen so far (keys borrowed from the nodes: the graph must outlive
 * the memo), for one context and opset.  A zeroed memo is empty. */
typedef struct ox_kind_memo {
    ox_strmap index; /* kind -> position in infos */
    /* kind string's address -> 1 + position in infos: a graph's nodes of one
     * kind share one string (ox_graph.kinds), so most lookups end here
     * without hashing the name.  Open addressing, at most half full. */
    struct ox_kind_seen {
        const char *kind;
        size_t at;
    } *seen;
    size_t seen_cap, n_seen;
    ox_kind_info *infos;
    size_t n, cap;
    ox_kind_info spare; /* the answer when memory runs out: computed, not kept */
} ox_kind_memo;

ox_kind_info *ox_kind_info_of(ox_kind_memo *m, const ox_context *ctx, const ox_node *n,
                                    int opset);
void ox_kind_memo_free(ox_kind_memo *m);

/* "ONNX", "ONNX_ATEN", ... for messages. */
const char *ox_export_type_name(ox_export_type et);

/* A node's scope for messages: "(top level)" when it has none. */
const char *ox_node_scope_text(const ox_node *n);

#endif
