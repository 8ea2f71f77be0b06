/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The engine context: error message, plugin search paths and loaded packs,
 * opset descriptors, user config.
 */
#ifndef OXPORT_CONTEXT_H
#define OXPORT_CONTEXT_H

#include <stdbool.h>

#include "oxport/oxport.h"
#include "report.h"

struct ox_registry;  /* plugin_load.h */
struct ox_opset_db;  /* opset_yaml.h */
struct ox_config;    /* config.h */

/* A size a symbolic read while converting (api->size): dim `axis` of
 * output-graph value `v`, for traced node `traced`. */
typedef struct ox_size_read {
    uint32_t v;
    int32_t axis;
    const struct ox_node *traced;
} ox_size_read;

typedef struct ox_path_entry {
    char *path;
    bool explicit_path; /* given through the API/config: may override built-in packs */
} ox_path_entry;

struct ox_context {
    unsigned flags;
    ox_status last_status;
    char *errmsg; /* malloc'd; never NULL after ox_context_new */
    ox_path_entry *plugin_paths;
    size_t n_plugin_paths, cap_plugin_paths;
    char *opset_dir;       /* NULL = OXPORT_OPSET_DIR or the installed dir */
    struct ox_config *config;
    struct ox_registry *registry; /* NULL until loaded */
    struct ox_opset_db *opsets;   /* NULL until loaded */
    /* The problems the last ox_convert failed on (empty otherwise), one per
     * line as ox_errmsg lists them before grouping: the CLI's JSON report. */
    ox_report problems;
    int problems_opset;
    int export_type;        /* ox_export_type; -1 = the config's, else OX_EXPORT_ONNX */
    struct ox_config_domain *domain_versions; /* ox_context_set_domain_version */
    size_t n_domain_versions;
    char *notes;            /* last conversion's notes, malloc'd or NULL */
    char *warnings;         /* last export's warnings (fixed_counts.h), malloc'd or NULL */
    /* The sizes symbolics read in the last conversion, kept only when an
     * input dim is dynamic: fixed_counts.h says which a dynamic axis
     * reaches, whose example value the file then holds.  In conversion
     * order, so the reads of one traced node come together. */
    ox_size_read *size_reads;
    size_t n_size_reads, cap_size_reads;
    bool track_size_reads;
    struct loaded_pack **mem_packs; /* ox_context_add_pack: validated, kept across reloads */
    size_t n_mem_packs, cap_mem_packs;
    struct ox_introspection *introspection; /* introspect.h: the last listing handed out */
    bool loaded;
};

/* Set the context's message; returns status so callers can `return ox_fail(...)`. */
ox_status ox_fail(ox_context *ctx, ox_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Take ownership of a malloc'd message. */
ox_status ox_fail_take(ox_context *ctx, ox_status status, char *msg);
void ox_clear_error(ox_context *ctx);

/* Plugin path with its provenance (config dirs are explicit too). */
ox_status ox_context_add_plugin_path_ex(ox_context *ctx, const char *path, bool explicit_path);
/* The export type in effect (the context's, the config's, else ONNX). */
ox_export_type ox_context_export_type(const ox_context *ctx);
/* The opset_import version for a custom domain: the context's, then the
 * config's custom_domains; 0 when neither names it. */
int ox_context_domain_version(const ox_context *ctx, const char *domain);
/* The opset descriptor directory in effect. */
const char *ox_context_opset_dir(const ox_context *ctx);

#endif /* OXPORT_CONTEXT_H */
