/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * User config (oxport.yaml): target opset, enabled opset range, plugin
 * directories, disabled operators, custom domains.
 */
#ifndef OXPORT_CONFIG_H
#define OXPORT_CONFIG_H

#include <stddef.h>

#include "context.h"

typedef struct ox_config_domain {
    char *domain;
    int version;
} ox_config_domain;

typedef struct ox_config {
    char *path;
    int target_opset;  /* 0 = not set */
    int min_opset, max_opset; /* 0 = not set */
    char **plugin_dirs; /* resolved relative to the config file */
    size_t n_plugin_dirs;
    char **disabled_ops;
    size_t n_disabled_ops;
    ox_config_domain *domains;
    size_t n_domains;
    char *opset_dir;   /* NULL = default */
    int export_type;   /* ox_export_type; -1 = not set */
    int sync;          /* key `sync`: 1 true, -1 false, 0 not set */
    int direct_io;     /* key `direct_io`: 1 true, -1 false, 0 not set */
} ox_config;

/* Parse a config file.  Errors carry file:line:col and what was expected;
 * unknown keys are errors. */
ox_status ox_config_load(ox_context *ctx, const char *path, ox_config **out);
/* Once both the config and the packs are loaded: every name in
 * disabled_operators is one a pack provides or an opset descriptor declares
 * (a typo would disable nothing, silently).  OX_EINVAL naming the file and
 * the name otherwise. */
ox_status ox_config_check_disabled(ox_context *ctx);
void ox_config_free(ox_config *cfg);

#endif /* OXPORT_CONFIG_H */
