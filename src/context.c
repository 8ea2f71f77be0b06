#include "context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "introspect.h"
#include "opset_yaml.h"
#include "plugin_load.h"

static char oom_message[] = "out of memory";

const char *ox_version(void)
{
    return OXPORT_VERSION;
}

const char *ox_strerror(ox_status status)
{
    switch (status) {
    case OX_OK: return "success";
    case OX_EINVAL: return "invalid argument";
    case OX_ENOMEM: return "out of memory";
    case OX_EIO: return "input/output error";
    case OX_EFORMAT: return "malformed ONNX input";
    case OX_EUNSUPPORTED: return "unsupported operator or argument";
    case OX_EPLUGIN: return "symbolic pack rejected or failed";
    case OX_ECONFIG: return "malformed YAML descriptor or config";
    case OX_ESTATE: return "call not valid in this state";
    case OX_ECHECK: return "ONNX structural rule violated";
    }
    return "unknown status";
}

static void set_message(ox_context *ctx, char *msg)
{
    if (ctx->errmsg != oom_message)
        free(ctx->errmsg);
    ctx->errmsg = msg ? msg : oom_message;
}

ox_status ox_fail(ox_context *ctx, ox_status status, const char *fmt, ...)
{
    if (!ctx)
        return status;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = NULL;
    if (n >= 0 && (msg = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    /* No room for the message, or a module that ran out of memory but
     * reported it under its own status: out of memory is always OX_ENOMEM,
     * so every caller (and the CLI's exit status 3) tells it from bad input. */
    if (!msg || strstr(msg, "out of memory"))
        status = OX_ENOMEM;
    set_message(ctx, msg);
    ctx->last_status = status;
    return status;
}

ox_status ox_fail_take(ox_context *ctx, ox_status status, char *msg)
{
    if (!ctx) {
        free(msg);
        return status;
    }
    if (!msg || strstr(msg, "out of memory"))
        status = OX_ENOMEM; /* as in ox_fail */
    set_message(ctx, msg);
    ctx->last_status = status;
    return status;
}

void ox_clear_error(ox_context *ctx)
{
    char *empty = malloc(1);
    if (empty)
        empty[0] = '\0';
    set_message(ctx, empty);
    ctx->last_status = OX_OK;
}

ox_status ox_context_new(unsigned flags, ox_context **out)
{
    if (!out)
        return OX_EINVAL;
    *out = NULL;
    ox_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return OX_ENOMEM;
    ctx->flags = flags;
    ctx->export_type = -1;
    ctx->errmsg = calloc(1, 1);
    if (!ctx->errmsg) {
        free(ctx);
        return OX_ENOMEM;
    }
    *out = ctx;
    return OX_OK;
}

void ox_context_free(ox_context *ctx)
{
    if (!ctx)
        return;
    ox_introspect_forget(ctx);
    ox_registry_free(ctx->registry);
    ox_mem_packs_free(ctx); /* the registry pointed into them */
    ox_opset_db_free(ctx->opsets);
    ox_config_free(ctx->config);
    ox_report_free(&ctx->problems);
    for (size_t i = 0; i < ctx->n_plugin_paths; i++)
        free(ctx->plugin_paths[i].path);
    free(ctx->plugin_paths);
    free(ctx->opset_dir);
    for (size_t i = 0; i < ctx->n_domain_versions; i++)
        free(ctx->domain_versions[i].domain);
    free(ctx->domain_versions);
    free(ctx->notes);
    free(ctx->warnings);
    free(ctx->size_reads);
    if (ctx->errmsg != oom_message)
        free(ctx->errmsg);
    free(ctx);
}

const char *ox_errmsg(const ox_context *ctx)
{
    if (!ctx)
        return "no context (ox_context_new failed or was not called)";
    return ctx->errmsg ? ctx->errmsg : "";
}

ox_status ox_context_add_plugin_path_ex(ox_context *ctx, const char *path, bool explicit_path)
{
    if (!ctx || !path || !*path)
        return ox_fail(ctx, OX_EINVAL, "ox_context_add_plugin_path: path is NULL or empty");
    if (ctx->loaded)
        return ox_fail(ctx, OX_ESTATE,
                       "ox_context_add_plugin_path(\"%s\"): plugins are already loaded; add paths "
                       "before the first conversion or ox_context_load",
                       path);
    if (ctx->n_plugin_paths == ctx->cap_plugin_paths) {
        size_t ncap = ctx->cap_plugin_paths ? ctx->cap_plugin_paths * 2 : 8;
        ox_path_entry *np = realloc(ctx->plugin_paths, ncap * sizeof(*np));
        if (!np)
            return ox_fail(ctx, OX_ENOMEM, "out of memory adding plugin path %s", path);
        ctx->plugin_paths = np;
        ctx->cap_plugin_paths = ncap;
    }
    char *copy = strdup(path);
    if (!copy)
        return ox_fail(ctx, OX_ENOMEM, "out of memory adding plugin path %s", path);
    ctx->plugin_paths[ctx->n_plugin_paths].path = copy;
    ctx->plugin_paths[ctx->n_plugin_paths].explicit_path = explicit_path;
    ctx->n_plugin_paths++;
    return OX_OK;
}

ox_status ox_context_add_plugin_path(ox_context *ctx, const char *path)
{
    return ox_context_add_plugin_path_ex(ctx, path, true);
}

ox_status ox_context_add_pack(ox_context *ctx, const ox_plugin_desc *desc, const char *origin)
{
    if (!ctx)
        return OX_EINVAL;
    return ox_mem_pack_add(ctx, desc, origin);
}

ox_status ox_context_set_export_type(ox_context *ctx, ox_export_type type)
{
    if (!ctx)
        return OX_EINVAL;
    if ((int)type < OX_EXPORT_ONNX || (int)type > OX_EXPORT_FALLTHROUGH)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_context_set_export_type: %d is not an export type (0 ONNX, 1 ATEN, "
                       "2 ATEN_FALLBACK, 3 FALLTHROUGH)",
                       (int)type);
    ctx->export_type = (int)type;
    return OX_OK;
}

ox_export_type ox_context_export_type(const ox_context *ctx)
{
    if (ctx->export_type >= 0)
        return (ox_export_type)ctx->export_type;
    if (ctx->config && ctx->config->export_type >= 0)
        return (ox_export_type)ctx->config->export_type;
    return OX_EXPORT_ONNX;
}

ox_status ox_context_set_domain_version(ox_context *ctx, const char *domain, int version)
{
    if (!ctx)
        return OX_EINVAL;
    if (!domain || !*domain || strcmp(domain, "ai.onnx") == 0)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_context_set_domain_version: domain %s%s%s is not a custom domain (the "
                       "default domain's version is the target opset)",
                       domain ? "'" : "", domain ? domain : "NULL", domain ? "'" : "");
    if (version < 1)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_context_set_domain_version: version %d of domain '%s' must be >= 1",
                       version, domain);
    for (size_t i = 0; i < ctx->n_domain_versions; i++)
        if (strcmp(ctx->domain_versions[i].domain, domain) == 0) {
            ctx->domain_versions[i].version = version;
            return OX_OK;
        }
    ox_config_domain *nd = realloc(ctx->domain_versions,
                                   (ctx->n_domain_versions + 1) * sizeof(*nd));
    if (!nd)
        return ox_fail(ctx, OX_ENOMEM, "out of memory");
    ctx->domain_versions = nd;
    if (!(nd[ctx->n_domain_versions].domain = strdup(domain)))
        return ox_fail(ctx, OX_ENOMEM, "out of memory");
    nd[ctx->n_domain_versions++].version = version;
    return OX_OK;
}

int ox_context_domain_version(const ox_context *ctx, const char *domain)
{
    for (size_t i = 0; i < ctx->n_domain_versions; i++)
        if (strcmp(ctx->domain_versions[i].domain, domain) == 0)
            return ctx->domain_versions[i].version;
    const ox_config *cfg = ctx->config;
    for (size_t i = 0; cfg && i < cfg->n_domains; i++)
        if (strcmp(cfg->domains[i].domain, domain) == 0)
            return cfg->domains[i].version;
    return 0;
}

const char *ox_context_warnings(const ox_context *ctx)
{
    return ctx && ctx->warnings ? ctx->warnings : "";
}

const char *ox_context_notes(const ox_context *ctx)
{
    return ctx && ctx->notes ? ctx->notes : "";
}

ox_status ox_context_set_opset_dir(ox_context *ctx, const char *dir)
{
    if (!ctx || !dir || !*dir)
        return ox_fail(ctx, OX_EINVAL, "ox_context_set_opset_dir: dir is NULL or empty");
    if (ctx->loaded)
        return ox_fail(ctx, OX_ESTATE,
                       "ox_context_set_opset_dir(\"%s\"): opsets are already loaded", dir);
    char *copy = strdup(dir);
    if (!copy)
        return ox_fail(ctx, OX_ENOMEM, "out of memory");
    free(ctx->opset_dir);
    ctx->opset_dir = copy;
    return OX_OK;
}

/* Which descriptor directory applies: the API's, then OXPORT_OPSET_DIR, then
 * the config's, then the built-in one: OXPORT_BUILTIN_OPSET_DIR when set (a
 * build tree's, which its CLI sets), else the installed one. */
const char *ox_context_opset_dir(const ox_context *ctx)
{
    if (ctx->opset_dir)
        return ctx->opset_dir;
    if (!(ctx->flags & OX_CONTEXT_NO_ENV)) {
        const char *env = getenv("OXPORT_OPSET_DIR");
        if (env && *env)
            return env;
    }
    if (ctx->config && ctx->config->opset_dir)
        return ctx->config->opset_dir;
    if (!(ctx->flags & OX_CONTEXT_NO_ENV)) {
        const char *builtin = getenv("OXPORT_BUILTIN_OPSET_DIR");
        if (builtin && *builtin)
            return builtin;
    }
    return OXPORT_OPSETDIR;
}

ox_status ox_context_load(ox_context *ctx)
{
    if (!ctx)
        return OX_EINVAL;
    if (ctx->loaded)
        return OX_OK;
    ox_status st;
    if (!ctx->opsets && !(ctx->flags & OX_CONTEXT_NO_DEFAULT_OPSETS)) {
        st = ox_opset_db_load(ctx, ox_context_opset_dir(ctx), &ctx->opsets);
        if (st != OX_OK)
            return st;
    }
    st = ox_registry_load(ctx);
    if (st != OX_OK)
        return st;
    if ((st = ox_config_check_disabled(ctx)) != OX_OK)
        return st;
    ctx->loaded = true;
    ox_clear_error(ctx);
    return OX_OK;
}

int ox_context_target_opset(const ox_context *ctx)
{
    if (ctx && ctx->config && ctx->config->target_opset > 0)
        return ctx->config->target_opset;
    return OX_DEFAULT_OPSET;
}
