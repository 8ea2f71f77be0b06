#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "opset_yaml.h"
#include "plugin_load.h"
#include "yaml_read.h"

static const char *const config_keys[] = {"target_opset",       "opsets",         "plugin_dirs",
                                          "disabled_operators", "custom_domains", "opset_dir",
                                          "operator_export_type", "sync", "direct_io", NULL};
static const char *const range_keys[] = {"min", "max", NULL};

void ox_config_free(ox_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->n_plugin_dirs; i++)
        free(cfg->plugin_dirs[i]);
    free(cfg->plugin_dirs);
    for (size_t i = 0; i < cfg->n_disabled_ops; i++)
        free(cfg->disabled_ops[i]);
    free(cfg->disabled_ops);
    for (size_t i = 0; i < cfg->n_domains; i++)
        free(cfg->domains[i].domain);
    free(cfg->domains);
    free(cfg->opset_dir);
    free(cfg->path);
    free(cfg);
}

/* Relative paths in a config mean "next to this config file", so a project
 * can keep its config and plugins together and run from anywhere. */
static char *resolve_path(const char *config_path, const char *rel)
{
    if (rel[0] == '/')
        return strdup(rel);
    while (rel[0] == '.' && rel[1] == '/') {
        rel += 2;
        while (*rel == '/')
            rel++;
    }
    const char *slash = strrchr(config_path, '/');
    if (!slash)
        return strdup(*rel ? rel : ".");
    size_t dlen = (size_t)(slash - config_path);
    if (dlen == 0)
        dlen = 1; /* config in "/" */
    if (!*rel || !strcmp(rel, "."))
        return strndup(config_path, dlen);
    size_t len = dlen + 1 + strlen(rel) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s%s%s", (int)dlen, config_path, dlen == 1 && *config_path == '/' ? "" : "/",
                 rel);
    return out;
}

static ox_status read_opset(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                            const char *what, int *out)
{
    int64_t v;
    ox_status st = ox_yaml_int(ctx, y, n, what, &v);
    if (st != OX_OK)
        return st;
    if (v < 1 || v > 1000)
        return ox_yaml_expected(ctx, y, n, what);
    *out = (int)v;
    return OX_OK;
}

/* A list of strings, each copied (and resolved as a path when asked). */
static ox_status read_strings(ox_context *ctx, ox_yaml *y, const yaml_node_t *n, const char *what,
                              const char *item_what, bool paths, bool op_names, char ***out,
                              size_t *n_out)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return ox_yaml_expected(ctx, y, n, what);
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    char **list = calloc(count ? count : 1, sizeof(*list));
    if (!list)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
    *out = list;
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *it = ox_yaml_node(y, n->data.sequence.items.start[i]);
        const char *s;
        ox_status st = ox_yaml_string(ctx, y, it, item_what, &s);
        if (st != OX_OK)
            return st;
        if (op_names) {
            const char *sep = strstr(s, "::");
            if (!sep || sep == s || !sep[2])
                return ox_yaml_expected(ctx, y, it, item_what);
        }
        list[i] = paths ? resolve_path(y->path, s) : strdup(s);
        if (!list[i])
            return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
        *n_out = i + 1;
    }
    return OX_OK;
}

static ox_status read_domains(ox_context *ctx, ox_yaml *y, const yaml_node_t *n, ox_config *cfg)
{
    ox_status st = ox_yaml_check_mapping(ctx, y, n, "a mapping of custom domains to versions "
                                         "(com.example: 1)", NULL);
    if (st != OX_OK)
        return st;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    cfg->domains = calloc(count ? count : 1, sizeof(*cfg->domains));
    if (!cfg->domains)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *k = ox_yaml_node(y, n->data.mapping.pairs.start[i].key);
        yaml_node_t *v = ox_yaml_node(y, n->data.mapping.pairs.start[i].value);
        const char *name = (const char *)k->data.scalar.value;
        /* The default domain's version is the target opset, never a config entry. */
        if (!*name || !strcmp(name, "ai.onnx"))
            return ox_yaml_expected(ctx, y, k, "a custom domain name (not the default ai.onnx)");
        int64_t ver;
        if ((st = ox_yaml_int(ctx, y, v, "a domain version (a positive integer)", &ver)) != OX_OK)
            return st;
        if (ver < 1 || ver > 100000)
            return ox_yaml_expected(ctx, y, v, "a domain version (a positive integer)");
        cfg->domains[i].domain = strdup(name);
        if (!cfg->domains[i].domain)
            return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
        cfg->domains[i].version = (int)ver;
        cfg->n_domains = i + 1;
    }
    return OX_OK;
}

static ox_status parse_config(ox_context *ctx, ox_yaml *y, ox_config *cfg)
{
    yaml_node_t *root = ox_yaml_root(y);
    /* An empty file is a valid config: every key is optional. */
    if (!root || ox_yaml_scalar(root).kind == OX_YS_NULL)
        return OX_OK;
    ox_status st = ox_yaml_check_mapping(ctx, y, root, "a config mapping", config_keys);
    if (st != OX_OK)
        return st;
    yaml_node_t *n;
    if ((n = ox_yaml_get(y, root, "target_opset")) &&
        (st = read_opset(ctx, y, n, "a target opset number", &cfg->target_opset)) != OX_OK)
        return st;
    yaml_node_t *range = ox_yaml_get(y, root, "opsets");
    if (range) {
        st = ox_yaml_check_mapping(ctx, y, range, "an opset range ({min: N, max: M})",
                                   range_keys);
        if (st != OX_OK)
            return st;
        if ((n = ox_yaml_get(y, range, "min")) &&
            (st = read_opset(ctx, y, n, "a minimum opset number", &cfg->min_opset)) != OX_OK)
            return st;
        if ((n = ox_yaml_get(y, range, "max")) &&
            (st = read_opset(ctx, y, n, "a maximum opset number", &cfg->max_opset)) != OX_OK)
            return st;
        if (cfg->min_opset && cfg->max_opset && cfg->min_opset > cfg->max_opset)
            return ox_yaml_fail_at(ctx, y, range, "expected min <= max, got min %d and max %d",
                                   cfg->min_opset, cfg->max_opset);
    }
    if (cfg->target_opset && ((cfg->min_opset && cfg->target_opset < cfg->min_opset) ||
                              (cfg->max_opset && cfg->target_opset > cfg->max_opset))) {
        char what[96];
        snprintf(what, sizeof(what), "a target_opset inside the enabled range %d..%d",
                 cfg->min_opset ? cfg->min_opset : 1, cfg->max_opset ? cfg->max_opset : 1000);
        return ox_yaml_expected(ctx, y, ox_yaml_get(y, root, "target_opset"), what);
    }
    if ((n = ox_yaml_get(y, root, "plugin_dirs")) &&
        (st = read_strings(ctx, y, n, "a list of plugin directories", "a directory path", true,
                           false, &cfg->plugin_dirs, &cfg->n_plugin_dirs)) != OX_OK)
        return st;
    if ((n = ox_yaml_get(y, root, "disabled_operators")) &&
        (st = read_strings(ctx, y, n, "a list of operator names",
                           "a qualified operator name like aten::dropout", false, true,
                           &cfg->disabled_ops, &cfg->n_disabled_ops)) != OX_OK)
        return st;
    if ((n = ox_yaml_get(y, root, "custom_domains")) && (st = read_domains(ctx, y, n, cfg)) != OX_OK)
        return st;
    if ((n = ox_yaml_get(y, root, "operator_export_type"))) {
        static const char *const types[] = {"onnx", "aten", "aten_fallback", "fallthrough"};
        const char *s;
        if ((st = ox_yaml_string(ctx, y, n, "onnx, aten, aten_fallback or fallthrough", &s)) != OX_OK)
            return st;
        for (int k = 0; k < 4 && cfg->export_type < 0; k++)
            if (strcmp(s, types[k]) == 0)
                cfg->export_type = k;
        if (cfg->export_type < 0)
            return ox_yaml_expected(ctx, y, n, "onnx, aten, aten_fallback or fallthrough");
    }
    if ((n = ox_yaml_get(y, root, "sync"))) {
        ox_yvalue v = ox_yaml_scalar(n);
        if (v.kind != OX_YS_BOOL)
            return ox_yaml_expected(ctx, y, n, "true or false (fsync exported files)");
        cfg->sync = v.i ? 1 : -1;
    }
    if ((n = ox_yaml_get(y, root, "direct_io"))) {
        ox_yvalue v = ox_yaml_scalar(n);
        if (v.kind != OX_YS_BOOL)
            return ox_yaml_expected(ctx, y, n, "true or false (write large files with direct I/O)");
        cfg->direct_io = v.i ? 1 : -1;
    }
    if ((n = ox_yaml_get(y, root, "opset_dir"))) {
        const char *s;
        if ((st = ox_yaml_string(ctx, y, n, "a directory path", &s)) != OX_OK)
            return st;
        cfg->opset_dir = resolve_path(y->path, s);
        if (!cfg->opset_dir)
            return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
    }
    return OX_OK;
}

ox_status ox_config_load(ox_context *ctx, const char *path, ox_config **out)
{
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_config_load: out is NULL");
    *out = NULL;
    if (!path || !*path)
        return ox_fail(ctx, OX_EINVAL, "ox_config_load: path is NULL or empty");
    ox_config *cfg = calloc(1, sizeof(*cfg));
    if (!cfg)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", path);
    cfg->export_type = -1;
    cfg->path = strdup(path);
    if (!cfg->path) {
        free(cfg);
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", path);
    }
    ox_yaml y;
    ox_status st = ox_yaml_load(ctx, cfg->path, &y);
    if (st == OX_OK) {
        st = parse_config(ctx, &y, cfg);
        ox_yaml_free(&y);
    }
    if (st != OX_OK) {
        ox_config_free(cfg);
        return st;
    }
    *out = cfg;
    return OX_OK;
}

/* Whether some opset's descriptors declare `name`. */
static bool declared_anywhere(const ox_opset_db *db, const char *name)
{
    if (!db)
        return false;
    for (int opset = ox_opset_db_min(db); opset <= ox_opset_db_max(db); opset++)
        if (ox_opset_db_lookup(db, opset, name))
            return true;
    return false;
}

ox_status ox_config_check_disabled(ox_context *ctx)
{
    const ox_config *cfg = ctx->config;
    for (size_t i = 0; cfg && i < cfg->n_disabled_ops; i++) {
        const char *name = cfg->disabled_ops[i];
        if (ox_registry_lowest_since(ctx->registry, name) > 0 || declared_anywhere(ctx->opsets, name))
            continue;
        return ox_fail(ctx, OX_EINVAL,
                       "%s: disabled_operators names %s, which no symbolic pack provides and no "
                       "opset descriptor declares (a misspelt name would disable nothing; "
                       "`oxport ops` lists the operators)",
                       cfg->path ? cfg->path : "config", name);
    }
    return OX_OK;
}

ox_status ox_context_load_config(ox_context *ctx, const char *path)
{
    if (!ctx)
        return OX_EINVAL;
    ox_config *cfg;
    ox_status st = ox_config_load(ctx, path, &cfg);
    if (st != OX_OK)
        return st;
    /* Plugin directories only matter before the packs are scanned; refuse
     * rather than silently ignore them. */
    if (ctx->loaded && cfg->n_plugin_dirs) {
        ox_config_free(cfg);
        return ox_fail(ctx, OX_ESTATE,
                       "ox_context_load_config(\"%s\"): plugins are already loaded, so its "
                       "plugin_dirs would have no effect; load the config before ox_context_load "
                       "or the first conversion",
                       path);
    }
    /* The loader searches ctx->config->plugin_dirs itself (after the API
     * paths and OXPORT_PLUGIN_PATH), and ox_context_opset_dir() consults
     * cfg->opset_dir after the API and the environment, so the config only
     * needs to be stored. */
    ox_config *old = ctx->config;
    ctx->config = cfg;
    if (ctx->loaded && (st = ox_config_check_disabled(ctx)) != OX_OK) {
        ctx->config = old; /* refused whole: the context keeps the config it had */
        ox_config_free(cfg);
        return st;
    }
    ox_config_free(old);
    return OX_OK;
}
