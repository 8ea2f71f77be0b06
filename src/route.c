/* Routing of traced nodes (route.h). */
#include "route.h"

#include <string.h>

#include "config.h"
#include "plugin_load.h"

const char *ox_node_scope_text(const ox_node *n)
{
    return n->scope && *n->scope ? n->scope : "(top level)";
}

const char *ox_route_disabled_by(const ox_context *ctx, const char *kind)
{
    const ox_config *cfg = ctx->config;
    if (!cfg)
        return NULL;
    for (size_t i = 0; i < cfg->n_disabled_ops; i++)
        if (strcmp(cfg->disabled_ops[i], kind) == 0)
            return cfg->path ? cfg->path : "the config";
    return NULL;
}

static int custom_domain_version(const ox_context *ctx, const char *domain)
{
    const ox_config *cfg = ctx->config;
    if (!cfg)
        return 0;
    for (size_t i = 0; i < cfg->n_domains; i++)
        if (strcmp(cfg->domains[i].domain, domain) == 0)
            return cfg->domains[i].version;
    return 0;
}

static const char *const export_type_names[] = {"ONNX", "ONNX_ATEN", "ONNX_ATEN_FALLBACK",
                                                "ONNX_FALLTHROUGH"};

const char *ox_export_type_name(ox_export_type et)
{
    return (unsigned)et < sizeof export_type_names / sizeof export_type_names[0]
               ? export_type_names[et]
               : "?";
}

ox_route ox_route_of(const ox_context *ctx, const ox_node *n, int opset)
{
    if (n->domain[0] == '\0' || custom_domain_version(ctx, n->domain) > 0)
        return OX_ROUTE_PASS_THROUGH;
    ox_export_type et = ox_context_export_type(ctx);
    bool aten = strcmp(n->domain, "aten") == 0;
    if (et == OX_EXPORT_ATEN && aten)
        return OX_ROUTE_ATEN;
    if (et == OX_EXPORT_ONNX || et == OX_EXPORT_ATEN ||
        ox_registry_find(ctx->registry, n->kind, opset))
        return OX_ROUTE_CONVERT;
    if (et == OX_EXPORT_ATEN_FALLBACK)
        return aten ? OX_ROUTE_ATEN : OX_ROUTE_CONVERT;
    return OX_ROUTE_AS_RECORDED;
}
