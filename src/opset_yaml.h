/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * YAML opset descriptors: per ONNX opset version, which operators are
 * supported, their parameters (name + kind), and limitations with a human
 * message.  opset_N.yaml inherits from the highest lower opset file and
 * overrides only what changes.
 */
#ifndef OXPORT_OPSET_YAML_H
#define OXPORT_OPSET_YAML_H

#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "report.h"

typedef struct ox_opset_db ox_opset_db;

/* A parameter the opset accepts; its kind, optionality and default are the
 * pack's declaration (plugin ABI 1.1), never repeated here. */
typedef struct ox_opset_param {
    const char *name;
} ox_opset_param;

typedef struct ox_opset_limitation {
    const char *arg;      /* recorded argument the limitation is about */
    const char *message;  /* human text */
    /* The matcher is private to opset_yaml.c. */
    const void *matcher;
} ox_opset_limitation;

typedef struct ox_opset_op {
    const char *name;         /* "aten::max_pool2d" */
    int declared_in;          /* opset file that last changed it */
    const ox_opset_param *params;
    size_t n_params;
    const ox_opset_limitation *limitations;
    size_t n_limitations;
    const char *doc;          /* optional one-line description */
} ox_opset_op;

/* An operator the project does not export, and why (the `excluded:` map
 * of an opset file, inherited like operators): TorchScript-only names a
 * trace never records, operators ONNX cannot express.  The pre-scan gives
 * the reason; `oxport ops --excluded` and docs/operators.md list them. */
typedef struct ox_opset_exclusion {
    const char *name;
    const char *reason;
    int declared_in; /* the opset file that excluded it */
} ox_opset_exclusion;

/* Load all opset_*.yaml in dir.  Errors: "file:line:col: expected ..., got ...". */
ox_status ox_opset_db_load(ox_context *ctx, const char *dir, ox_opset_db **out);
void ox_opset_db_free(ox_opset_db *db);
int ox_opset_db_min(const ox_opset_db *db);
int ox_opset_db_max(const ox_opset_db *db);
/* Resolved (inherited) descriptor of op at opset; NULL = not declared there. */
const ox_opset_op *ox_opset_db_lookup(const ox_opset_db *db, int opset, const char *name);
/* Operators declared at opset, sorted by name. */
size_t ox_opset_db_ops(const ox_opset_db *db, int opset, const ox_opset_op *const **out);
/* Exclusions at opset, sorted by name; the one for `name`, or NULL. */
size_t ox_opset_db_exclusions(const ox_opset_db *db, int opset, const ox_opset_exclusion *const **out);
const ox_opset_exclusion *ox_opset_db_excluded(const ox_opset_db *db, int opset, const char *name);
/* Check a traced node's recorded arguments against op's descriptor at opset.
 * Appends one line per problem, e.g.
 *   "aten::max_pool2d(ceil_mode=True) at AlexNet/Sequential[features]/MaxPool2d[2]:
 *    ceil_mode=True is not supported before opset 10; supported from opset 10"
 * Returns the number of problems found. */
size_t ox_opset_db_check_node(const ox_opset_db *db, int opset, const ox_graph *g,
                              const ox_node *n, ox_report *r);
/* The same with n's descriptor entry at opset already looked up (non-NULL). */
size_t ox_opset_db_check_node_as(const ox_opset_db *db, int opset, const ox_graph *g,
                                 const ox_node *n, const ox_opset_op *op, ox_report *r);
/* Lowest opset >= from where op is declared and node hits no limitation; 0 = none. */
int ox_opset_db_lifting_opset(const ox_opset_db *db, int from, const ox_graph *g, const ox_node *n);

/* For listings (`oxport ops`), without a node: the matcher as text
 * ("ceil_mode = true", "mode not in [constant, reflect]", "dim outside [-1, 3]",
 * "dtype present"), and the lowest opset above `opset` whose descriptor has
 * the op without this limitation (same arg and matcher); 0 = none. */
void ox_opset_limitation_describe(const ox_opset_limitation *l, char *buf, size_t cap);
int ox_opset_db_limitation_lifted(const ox_opset_db *db, int opset, const char *op,
                                  const ox_opset_limitation *l);

#endif /* OXPORT_OPSET_YAML_H */
