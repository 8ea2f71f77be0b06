/* The pre-scan (prescan.h). */
#include "prescan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opset_yaml.h"
#include "param_decl.h"
#include "plugin_load.h"
#include "route.h"
#include "symbolic_api.h"

static void param_list(const ox_op_decl *d, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->n_params && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", d->params[i].name);
    if (!d->n_params)
        snprintf(buf, cap, "no parameters");
}

/* Recorded arguments against the pack's declaration, the operator's one
 * schema.  Returns the number of problems. */
static size_t check_args(const ox_node *n, const ox_op_impl *im, ox_report *r)
{
    const ox_op_decl *d = im->decl;
    const char *path = im->plugin->path;
    const char *at = ox_node_scope_text(n);
    size_t before = r->n;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        const ox_param_decl *p = ox_param_find_at(d, a->name, i);
        if (!p) {
            char list[512];
            param_list(d, list, sizeof list);
            ox_report_add_at(r, n->scope,
                             "%s at %s: unknown argument '%s' (the symbolic in %s declares %s)",
                             n->kind, at, a->name, path, list);
            continue;
        }
        if (a->kind == OX_ARG_NONE && ox_param_required(p)) {
            ox_report_add_at(r, n->scope, "%s at %s: required %s argument '%s' is None",
                             n->kind, at, ox_arg_kind_name(p->kind), p->name);
            continue;
        }
        if (!ox_param_accepts(p, a->kind)) {
            char kinds[128];
            ox_param_kind_text(p, kinds, sizeof kinds);
            ox_report_add_at(r, n->scope,
                             "%s at %s: argument '%s' is recorded as %s, but the symbolic in %s "
                             "declares %s",
                             n->kind, at, a->name, ox_arg_kind_name(a->kind), path, kinds);
        }
    }
    for (uint32_t i = 0; i < d->n_params; i++) {
        const ox_param_decl *p = &d->params[i];
        if (ox_param_required(p) && !ox_node_arg_at(n, p->name, i))
            ox_report_add_at(r, n->scope, "%s at %s: required %s argument '%s' is not recorded",
                             n->kind, at, ox_arg_kind_name(p->kind), p->name);
    }
    if (d->flags & OX_OP_OUTPUTS_AS_RECORDED) {
        if (n->n_outputs < d->n_outputs)
            ox_report_add_at(r, n->scope,
                             "%s at %s: recorded with %u output(s), but the symbolic in %s needs "
                             "at least %u",
                             n->kind, at, n->n_outputs, path, d->n_outputs);
    } else if (n->n_outputs != d->n_outputs) {
        ox_report_add_at(r, n->scope,
                         "%s at %s: recorded with %u output(s), but the symbolic in %s declares %u",
                         n->kind, at, n->n_outputs, path, d->n_outputs);
    }
    return r->n - before;
}

/* The descriptor's list of parameters this opset accepts, when it has one. */
static void check_accepted(const ox_context *ctx, int opset, const ox_node *n,
                           const ox_op_decl *d, const ox_opset_op *yop, ox_report *r)
{
    if (!yop || !yop->n_params)
        return;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        if (!ox_param_find_at(d, a->name, i))
            continue; /* reported as unknown already */
        bool listed = false;
        for (size_t k = 0; k < yop->n_params && !listed; k++)
            listed = strcmp(yop->params[k].name, a->name) == 0;
        if (listed || a->kind == OX_ARG_NONE)
            continue;
        ox_report_add_at(r, n->scope,
                         "%s at %s: argument '%s' is not accepted at opset %d (the opset "
                         "descriptor %s/opset_%d.yaml does not list it)",
                         n->kind, ox_node_scope_text(n), a->name, opset,
                         ox_context_opset_dir(ctx), yop->declared_in);
    }
}

/* The pack's check hook: a limitation only the node's arguments reveal. */
static void run_check_hook(ox_context *ctx, const ox_graph *traced, int opset,
                           const ox_node *n, const ox_op_impl *im, ox_report *r)
{
    char *msg;
    int lifted;
    if (!ox_sym_run_check(ctx, traced, opset, n, im->decl, im->plugin->path, &msg, &lifted))
        return;
    const char *at = ox_node_scope_text(n);
    if (!msg)
        ox_report_add_at(r, n->scope, "%s at %s: out of memory in the check hook of %s",
                         n->kind, at, im->plugin->path);
    else if (lifted)
        ox_report_add_at(r, n->scope, "%s at %s: %s; supported from opset %d", n->kind, at, msg,
                         lifted);
    else
        ox_report_add_at(r, n->scope, "%s at %s: %s", n->kind, at, msg);
    free(msg);
}

/* What to add to "no symbolic for X is registered": the lowest opset a
 * loaded pack converts it from, or, when no pack has it at all but the opset
 * descriptors declare it, that its pack is missing.  Only a pack makes an
 * operator supported, so the descriptors alone never yield an opset. */
static void missing_hint(const ox_context *ctx, const char *kind, int lo, int hi, char *buf,
                         size_t cap)
{
    buf[0] = '\0';
    const ox_opset_exclusion *ex = ctx->opsets ? ox_opset_db_excluded(ctx->opsets, hi, kind) : NULL;
    if (ex && !ox_registry_lowest_since(ctx->registry, kind)) {
        snprintf(buf, cap, "; oxport does not export it: %s (opset_%d.yaml)", ex->reason,
                 ex->declared_in);
        return;
    }
    int since = ox_registry_lowest_since(ctx->registry, kind);
    if (since > hi) {
        /* "supported from opset N" would send the user to an opset they cannot
         * export: a pack may declare any since_opset up to 1000, and the config
         * may narrow the range below the pack's */
        snprintf(buf, cap, "; its symbolic starts at opset %d, above the enabled opsets %d..%d",
                 since, lo, hi);
        return;
    }
    if (since) {
        snprintf(buf, cap, "; supported from opset %d", since);
        return;
    }
    for (int o = lo; ctx->opsets && o <= hi; o++)
        if (ox_opset_db_lookup(ctx->opsets, o, kind)) {
            snprintf(buf, cap, "; the opset descriptors declare it, but no loaded pack provides "
                               "its symbolic (is the pack on the plugin path?)");
            return;
        }
}

/* Whether n was recorded with the arguments of `ok` (the same names, as
 * shared strings, the same kinds, in the same order) and the same number of
 * outputs: then check_args and check_accepted, which read nothing else of a
 * node, answer for n as they did for `ok`.  A name that is an equal string
 * at another address only misses. */
static bool same_signature(const ox_node *n, const ox_node *ok)
{
    if (n->n_args != ok->n_args || n->n_outputs != ok->n_outputs)
        return false;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (n->args[i].name != ok->args[i].name || n->args[i].kind != ok->args[i].kind)
            return false;
    return true;
}

void ox_prescan(ox_context *ctx, const ox_graph *traced, int opset, int lo, int hi,
                ox_report *r, ox_report *notes)
{
    const char *et = ox_export_type_name(ox_context_export_type(ctx));
    ox_kind_memo kinds;
    memset(&kinds, 0, sizeof kinds);
    for (const ox_node *n = traced->first; n; n = n->next) {
        ox_kind_info *k = ox_kind_info_of(&kinds, ctx, n, opset);
        ox_route rt = k->route;
        if (rt == OX_ROUTE_PASS_THROUGH)
            continue;
        const char *cfg = k->disabled_by;
        if (cfg) {
            ox_report_add_at(r, n->scope,
                             "ONNX export failed on %s because %s is disabled by %s (scope: %s)",
                             n->op_type, n->kind, cfg, ox_node_scope_text(n));
            continue;
        }
        if (rt == OX_ROUTE_ATEN || rt == OX_ROUTE_AS_RECORDED) {
            /* ONNX_ATEN converts every aten:: node so: nothing to note */
            if (ox_context_export_type(ctx) != OX_EXPORT_ATEN)
                ox_report_add(notes, "%s at %s: no symbolic at opset %d; exported %s (%s)",
                              n->kind, ox_node_scope_text(n), opset,
                              rt == OX_ROUTE_ATEN ? "as an ATen node in domain org.pytorch.aten"
                                                  : "as recorded, in its own domain",
                              et);
            continue;
        }
        const ox_op_impl *im = k->impl;
        if (!im) {
            char tail[128];
            missing_hint(ctx, n->kind, lo, hi, tail, sizeof tail);
            /* a pack may have it from a later opset: then it is registered, not here */
            bool later = ox_registry_lowest_since(ctx->registry, n->kind) != 0;
            ox_report_add_at(r, n->scope,
                             later ? "ONNX export failed on %s because %s has no symbolic at this "
                                     "opset (scope: %s)%s"
                                   : "ONNX export failed on %s because no symbolic for %s is "
                                     "registered (scope: %s)%s",
                             n->op_type, n->kind, ox_node_scope_text(n), tail);
            continue;
        }
        const ox_opset_op *yop = k->yop;
        size_t arg_problems = 0;
        if (!k->args_ok || !same_signature(n, k->args_ok)) {
            size_t problems_before = r->n;
            arg_problems = check_args(n, im, r);
            check_accepted(ctx, opset, n, im->decl, yop, r);
            /* a report that ran out of memory may have lost a problem */
            if (r->n == problems_before && !r->oom)
                k->args_ok = n;
        }
        if (yop)
            ox_opset_db_check_node_as(ctx->opsets, opset, traced, n, yop, r);
        /* a hook reads arguments: only ones that fit the declaration */
        if (!arg_problems)
            run_check_hook(ctx, traced, opset, n, im, r);
    }
    ox_kind_memo_free(&kinds);
}
