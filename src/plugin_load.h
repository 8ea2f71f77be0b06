/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Symbolic-pack loader and operator registry.
 *
 * Search order: in-process packs (ox_context_add_pack), paths given through
 * the API (ox_context_add_plugin_path), OXPORT_PLUGIN_PATH (colon-separated),
 * the config's plugin_dirs, then the built-in packs: OXPORT_BUILTIN_PLUGIN_PATH
 * when set (a build tree's packs), else the installed plugindir unless
 * OXPORT_NO_DEFAULT_PLUGINDIR is set or the context was created with
 * OX_CONTEXT_NO_DEFAULT_PLUGINS (OXPORT_NO_DEFAULT_PLUGINDIR drops
 * OXPORT_BUILTIN_PLUGIN_PATH too: only explicit paths remain).
 */
#ifndef OXPORT_PLUGIN_LOAD_H
#define OXPORT_PLUGIN_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "context.h"
#include "report.h"
#include "oxport/plugin.h"

typedef struct ox_registry ox_registry;

/* Sane ranges for a pack's declarations (plugin.h documents them): ONNX
 * opsets are numbered in the tens, so a since_opset past this is a typo or
 * garbage; output counts past OX_NODE_OUTPUTS_MAX would allocate that many
 * values per node. */
#define OX_SINCE_OPSET_MAX 1000
#define OX_NODE_OUTPUTS_MAX 65536u
#define OX_DECL_PARAMS_MAX 1024u

/* Where a pack came from, in increasing precedence: a pack of a higher rank
 * overrides an operator of a lower one name by name, from its own lowest
 * since_opset of the name up; packs of one rank may not both provide one
 * (name, since_opset). */
typedef enum ox_pack_rank {
    OX_PACK_BUILTIN = 0,    /* the installed plugindir (or OXPORT_BUILTIN_PLUGIN_PATH) */
    OX_PACK_CONFIGURED = 1, /* ox_context_add_plugin_path, OXPORT_PLUGIN_PATH, plugin_dirs */
    OX_PACK_IN_PROCESS = 2  /* ox_context_add_pack: a descriptor from the host's memory */
} ox_pack_rank;

typedef struct ox_plugin_info {
    const char *path;   /* the .so, or the origin an in-process pack was added with */
    const ox_plugin_desc *desc;
    bool explicit_path; /* came from the API/env/config rather than the installed dir */
    ox_pack_rank rank;
} ox_plugin_info;

typedef struct ox_op_impl {
    const ox_op_decl *decl;
    const ox_plugin_info *plugin;
    const ox_plugin_info *overrides; /* pack whose declaration this one replaced, or NULL */
} ox_op_impl;

/* Load every pack on the search path into ctx->registry (idempotent).
 * On rejection of a pack the message names file, field and both values. */
ox_status ox_registry_load(ox_context *ctx);
void ox_registry_free(ox_registry *r);

/* Validate one .so without adding it to a registry: every diagnostic goes
 * to the report (for `oxport plugins --check`). */
ox_status ox_plugin_check_file(ox_context *ctx, const char *path, ox_report *r);

size_t ox_registry_plugins(const ox_registry *r, const ox_plugin_info *const **out);
/* The implementation for target `opset`: highest since_opset <= opset.
 * In-place names ("aten::relu_") resolve to the out-of-place op.  NULL when none. */
const ox_op_impl *ox_registry_find(const ox_registry *r, const char *name, int opset);
/* Lowest since_opset of any implementation of name, 0 when none. */
int ox_registry_lowest_since(const ox_registry *r, const char *name);
/* All implementations sorted by name then since_opset. */
size_t ox_registry_ops(const ox_registry *r, const ox_op_impl *const **out);

/* Everything `oxport plugins --check` reports about the loaded set: YAML
 * parameters a pack does not declare, YAML operators no pack provides.  One
 * line per finding; returns the number added.  (Kinds are the pack's alone,
 * so nothing needs agreeing at load time.) */
size_t ox_registry_consistency(ox_context *ctx, ox_report *r);

/* Validate an in-process descriptor and keep it in ctx (ox_context_add_pack). */
ox_status ox_mem_pack_add(ox_context *ctx, const ox_plugin_desc *desc, const char *origin);
/* Finalize and free ctx's in-process packs (after its registry is freed). */
void ox_mem_packs_free(ox_context *ctx);

/* The table handed to packs (symbolic_api.c). */
const ox_api *ox_symbolic_api(void);

#endif /* OXPORT_PLUGIN_LOAD_H */
