/* Routing of traced nodes (route.h). */
#include "route.h"

#include <stdlib.h>
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

static void kind_info(ox_kind_info *k, const ox_context *ctx, const ox_node *n, int opset)
{
    k->route = ox_route_of(ctx, n, opset);
    k->disabled_by = ox_route_disabled_by(ctx, n->kind);
    k->impl = ox_registry_find(ctx->registry, n->kind, opset);
    k->yop = ctx->opsets ? ox_opset_db_lookup(ctx->opsets, opset, n->kind) : NULL;
    k->args_ok = NULL;
}

static size_t seen_slot(const struct ox_kind_seen *seen, size_t cap, const char *kind)
{
    size_t i = (size_t)(((uintptr_t)kind >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
    while (seen[i].kind && seen[i].kind != kind)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Remember that the string at `kind` is the kind at infos[at]; a memo that
 * cannot grow only forgets. */
static void remember(ox_kind_memo *m, const char *kind, size_t at)
{
    if ((m->n_seen + 1) * 2 > m->seen_cap) {
        size_t cap = m->seen_cap ? m->seen_cap * 2 : 64;
        struct ox_kind_seen *bigger = calloc(cap, sizeof(*bigger));
        if (!bigger)
            return;
        for (size_t i = 0; i < m->seen_cap; i++)
            if (m->seen[i].kind)
                bigger[seen_slot(bigger, cap, m->seen[i].kind)] = m->seen[i];
        free(m->seen);
        m->seen = bigger;
        m->seen_cap = cap;
    }
    struct ox_kind_seen *s = &m->seen[seen_slot(m->seen, m->seen_cap, kind)];
    if (!s->kind) {
        s->kind = kind;
        s->at = at;
        m->n_seen++;
    }
}

ox_kind_info *ox_kind_info_of(ox_kind_memo *m, const ox_context *ctx, const ox_node *n,
                                    int opset)
{
    if (m->n_seen) {
        const struct ox_kind_seen *s = &m->seen[seen_slot(m->seen, m->seen_cap, n->kind)];
        if (s->kind)
            return &m->infos[s->at];
    }
    const uint64_t *at = ox_strmap_find(&m->index, n->kind);
    if (at) {
        remember(m, n->kind, (size_t)*at);
        return &m->infos[*at];
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        ox_kind_info *grown = realloc(m->infos, cap * sizeof(*grown));
        if (!grown) {
            kind_info(&m->spare, ctx, n, opset);
            return &m->spare;
        }
        m->infos = grown;
        m->cap = cap;
    }
    kind_info(&m->infos[m->n], ctx, n, opset);
    if (ox_strmap_put(&m->index, n->kind, m->n) < 0) {
        m->spare = m->infos[m->n];
        return &m->spare;
    }
    remember(m, n->kind, m->n);
    return &m->infos[m->n++];
}

void ox_kind_memo_free(ox_kind_memo *m)
{
    free(m->seen);
    m->seen = NULL;
    m->seen_cap = m->n_seen = 0;
    ox_strmap_free(&m->index);
    free(m->infos);
    m->infos = NULL;
    m->n = m->cap = 0;
}
