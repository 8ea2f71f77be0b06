/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * One ONNX node against its operator schema (onnx_schemas.h): the rules
 * onnx.checker's schema verification and strict type inference enforce that
 * the IR can decide — the operator exists (and is not deprecated) at the
 * domain's version, input/output counts, required inputs present, attribute
 * names, kinds and required ones, and element types of operands whose dtype
 * is known against the type constraints (including one type per constraint
 * variable).
 *
 * Shared by conversion (each node a symbolic creates, as it returns) and by
 * ox_check (files read).
 */
#ifndef OXPORT_SCHEMA_CHECK_H
#define OXPORT_SCHEMA_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* Called once per broken rule with a sentence naming the operator, e.g.
 * "Gemm (opset 13) has no attribute 'axis'". */
typedef void (*ox_schema_emit_fn)(void *user, const char *rule);

/* Why a node's schema was not checked, or NULL when it was: a custom domain
 * the table does not know, or a version newer than the table holds. */
const char *ox_schema_unchecked_reason(const char *domain, int64_t version);

/* Checks node n of graph g at `version` of the node's domain.  `types`
 * (NULL, or indexed by value id) supplies element types inferred for values
 * whose own type is unknown.  Returns the number of rules broken (0 when the
 * node's domain/version is one the table does not cover: see
 * ox_schema_unchecked_reason). */
size_t ox_schema_check_node(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                            int64_t version, ox_schema_emit_fn emit, void *user);

/* The element type the schema gives output i of node n at `version`: a
 * type fixed by an attribute (Cast's `to`, Constant's value), the only type
 * the output's constraint allows, or the type an input bound to the same
 * constraint variable has.  OX_UNDEFINED when the schema leaves it open (or
 * the node is not one the table covers). */
ox_dtype ox_schema_output_dtype(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                int64_t version, uint32_t i);

/* A node's schema, looked up once for several of the calls below (the
 * conversion and the checker each check a node and infer its outputs):
 * `checked` false when the table does not cover the node's domain/version
 * (ox_schema_unchecked_reason), `s` NULL when it has no such operator. */
typedef struct ox_schema_lookup {
    bool checked;
    const struct ox_schema *s;
} ox_schema_lookup;

ox_schema_lookup ox_schema_lookup_node(const ox_node *n, int64_t version);
/* The same, noting the row found in n->schema_row, so the next lookups of
 * n (conversion's, the checker's) skip the hash. */
ox_schema_lookup ox_schema_lookup_node_noting(ox_node *n, int64_t version);
/* ox_schema_check_node and ox_schema_output_dtype with the lookup of n at
 * `version` already made. */
size_t ox_schema_check_node_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                               const ox_schema_lookup *l, int64_t version,
                               ox_schema_emit_fn emit, void *user);
/* ox_schema_check_node_as without its memo of clean nodes (schema_check.c):
 * the general path, for the test that compares the two. */
size_t ox_schema_check_node_unmemoized(const ox_graph *g, const ox_dtype *types,
                                       const ox_node *n, const ox_schema_lookup *l,
                                       int64_t version, ox_schema_emit_fn emit, void *user);
ox_dtype ox_schema_output_dtype_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                   const ox_schema_lookup *l, uint32_t i);

#endif /* OXPORT_SCHEMA_CHECK_H */
