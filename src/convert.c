/*
 * Traced graph -> ONNX graph: the pipeline's prescan and convert stages
 * (pipeline.c runs them, then the passes).  Everything the user must fix is
 * found before any symbolic runs (pre-scan), and reported at once;
 * conversion then calls one symbolic per node.
 */
#include "convert.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "crash_note.h"
#include "lift_constants.h"
#include "opset_yaml.h"
#include "plugin_load.h"
#include "prescan.h"
#include "route.h"
#include "report.h"
#include "schema_check.h"
#include "symbolic_api.h"
#include "varying_dims.h"

void ox_convert_opset_range(const ox_context *ctx, int *lo, int *hi, const char **source)
{
    int l = 7, h = 21; /* without descriptors: every opset the IR table knows */
    const char *src = "the ONNX opsets oxport knows";
    if (ctx->opsets) {
        l = ox_opset_db_min(ctx->opsets);
        h = ox_opset_db_max(ctx->opsets);
        src = "the opset descriptors";
    }
    const ox_config *cfg = ctx->config;
    if (cfg && (cfg->min_opset || cfg->max_opset)) {
        if (cfg->min_opset > l)
            l = cfg->min_opset;
        if (cfg->max_opset && cfg->max_opset < h)
            h = cfg->max_opset;
        src = cfg->path ? cfg->path : "the config";
    }
    *lo = l;
    *hi = h;
    if (source)
        *source = src;
}

/* Hand the report to the context (ctx->problems); `r` is left empty. */
static void keep_problems(ox_context *ctx, ox_report *r, int opset)
{
    ox_report_free(&ctx->problems);
    ctx->problems = *r;
    ctx->problems_opset = opset;
    ox_report_init(r);
}

/* Scopes named per repeated problem before "and N more". */
#define REPORT_SCOPES_SHOWN 8

/* The report in ox_errmsg: identical problems once, with their count and
 * scopes (Swin-T at opset 9 hits one limitation 24 times in 3 modules). */
static char *problems_message(const ox_report *r, int opset)
{
    ox_report_group *groups;
    size_t n_groups;
    if (ox_report_group_lines(r, &groups, &n_groups) != 0)
        return NULL;
    char *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msg, &len);
    if (!f) {
        ox_report_groups_free(groups, n_groups);
        return NULL;
    }
    fprintf(f, "Couldn't export operator(s): %zu problem(s) at opset %d:", r->n, opset);
    int oom = 0;
    for (size_t i = 0; i < n_groups; i++) {
        char *suffix = ox_report_group_suffix(&groups[i], REPORT_SCOPES_SHOWN);
        if (!suffix)
            oom = 1;
        fprintf(f, "\n  - %s%s", r->lines[groups[i].first], suffix ? suffix : "");
        free(suffix);
    }
    ox_report_groups_free(groups, n_groups);
    if (fclose(f) != 0 || oom) {
        free(msg);
        return NULL;
    }
    return msg;
}

/* ----------------------------------------------------------- conversion */

typedef struct conv {
    ox_context *ctx;
    const ox_graph *traced;
    ox_graph *out;
    int opset;
    ox_vid *vmap;
    unsigned char *poisoned; /* traced values downstream of a failed symbolic */
    const char *last_scope, *last_scope_copy;
    ox_vid *outs;            /* scratch: a symbolic's outputs */
    uint32_t cap_outs;
    ox_report problems;
    ox_sym_session session;  /* id tag and call serial the symbolic API checks */
    ox_kind_memo kinds;      /* route and symbolic per node kind */
    bool contract_broken;    /* a pack broke the ABI contract (vs. declined an input) */
} conv;

static const char *scope_copy(conv *c, const char *scope)
{
    if (!scope)
        return "";
    if (scope != c->last_scope) {
        const char *cp = ox_arena_strdup(&c->out->arena, scope);
        if (!cp)
            return NULL;
        c->last_scope = scope;
        c->last_scope_copy = cp;
    }
    return c->last_scope_copy;
}

/* Copy the host's type of a traced value onto the ONNX value it maps to.
 * Graph inputs and parameters keep their own (they may carry dim_params). */
static int copy_type(conv *c, ox_vid tv, ox_vid ov)
{
    const ox_value *t = ox_graph_value(c->traced, tv);
    ox_value *o = ox_graph_value(c->out, ov);
    if (!t || !o || o->kind != OX_VAL_NODE)
        return 0;
    if (t->type.dtype == OX_UNDEFINED && t->type.rank < 0)
        return 0;
    return ox_value_set_type(c->out, o, t->type.dtype, t->type.rank, t->type.dims);
}

/* The host's symbolic dims (dynamic axes) of t, onto o. */
static int copy_dim_params(conv *c, const ox_value *t, ox_value *o)
{
    for (int32_t k = 0; t->type.dim_params && k < t->type.rank && k < o->type.rank; k++)
        if (t->type.dim_params[k] &&
            ox_value_set_dim_param(c->out, o, (uint32_t)k, t->type.dim_params[k]) != 0)
            return -1;
    return 0;
}

static ox_status oom(conv *c)
{
    return ox_fail(c->ctx, OX_ENOMEM, "out of memory converting %s", c->traced->name);
}

static ox_status map_sources(conv *c)
{
    const ox_graph *tg = c->traced;
    for (uint32_t i = 0; i < tg->n_inputs; i++) {
        const ox_value *t = ox_graph_value(tg, tg->inputs[i]);
        ox_value *o = ox_graph_add_value(c->out, OX_VAL_INPUT, t->type.dtype, t->type.rank,
                                         t->type.dims);
        if (!o || ox_graph_add_input(c->out, o->id) != 0)
            return oom(c);
        if (t->name && !(o->name = ox_arena_strdup(&c->out->arena, t->name)))
            return oom(c);
        if (copy_dim_params(c, t, o) != 0)
            return oom(c);
        c->vmap[t->id] = o->id;
    }
    for (uint32_t i = 0; i < tg->n_params; i++) {
        const ox_value *t = ox_graph_value(tg, tg->params[i]);
        ox_value *o = ox_graph_add_value(c->out, OX_VAL_PARAM, t->type.dtype, t->type.rank,
                                         t->type.dims);
        if (!o || ox_graph_add_param(c->out, o->id) != 0)
            return oom(c);
        if (t->name && !(o->name = ox_arena_strdup(&c->out->arena, t->name)))
            return oom(c);
        /* borrowed: the traced graph (and the host's bytes) outlive the write */
        o->tensor.data = t->tensor.data;
        o->tensor.nbytes = t->tensor.nbytes;
        o->tensor.owned = false;
        o->source = t->source; /* bytes read on demand, by the writer */
        c->vmap[t->id] = o->id;
    }
    for (uint32_t v = 1; v < tg->n_values; v++) {
        const ox_value *t = tg->values[v];
        if (!t || t->kind != OX_VAL_CONST)
            continue;
        ox_value *o = ox_graph_add_value(c->out, OX_VAL_CONST, t->type.dtype, t->type.rank,
                                         t->type.dims);
        if (!o)
            return oom(c);
        o->tensor.data = t->tensor.data;
        o->tensor.nbytes = t->tensor.nbytes;
        o->tensor.owned = false;
        c->vmap[v] = o->id;
    }
    return OX_OK;
}

static bool inputs_poisoned(const conv *c, const ox_node *n)
{
    for (uint32_t i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] < c->traced->n_values && c->poisoned[n->inputs[i]])
            return true;
    return false;
}

static void poison_outputs(conv *c, const ox_node *n)
{
    for (uint32_t i = 0; i < n->n_outputs; i++)
        c->poisoned[n->outputs[i]] = 1;
}

/* A node written as recorded: inputs in argument order, every other argument
 * an attribute of its name.  as_aten: written as torch.onnx's ATen node
 * (org.pytorch.aten::ATen with operator and overload_name attributes). */
static ox_status copy_node(conv *c, const ox_node *n, bool as_aten)
{
    /* inputs in argument order; None keeps an optional input's slot */
    uint32_t n_in = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        n_in += a->kind == OX_ARG_TENSOR_LIST ? (uint32_t)a->u.tensors.n
                : a->kind == OX_ARG_TENSOR || a->kind == OX_ARG_NONE ? 1u : 0u;
    }
    ox_vid *in = n_in ? ox_arena_alloc(&c->out->arena, n_in * sizeof(*in)) : NULL;
    if (n_in && !in)
        return oom(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        if (a->kind == OX_ARG_TENSOR)
            in[k++] = c->vmap[a->u.tensor];
        else if (a->kind == OX_ARG_NONE)
            in[k++] = 0;
        else if (a->kind == OX_ARG_TENSOR_LIST)
            for (size_t j = 0; j < a->u.tensors.n; j++)
                in[k++] = a->u.tensors.p[j] ? c->vmap[a->u.tensors.p[j]] : 0;
    }
    while (k > 0 && in[k - 1] == 0)
        k--;
    ox_node *o = ox_graph_add_node(c->out, as_aten ? "org.pytorch.aten::ATen" : n->kind, k, in,
                                   n->n_outputs);
    if (!o || !(o->scope = scope_copy(c, n->scope)))
        return oom(c);
    if (as_aten) {
        /* the recorder does not know the overload; "" is the default one */
        const char *names[2] = {"operator", "overload_name"}, *vals[2] = {n->op_type, ""};
        for (int i = 0; i < 2; i++) {
            ox_attr *at = ox_node_add_attr(c->out, o, names[i], OX_ATTR_STRING);
            if (!at || !(at->u.s.p = ox_arena_strdup(&c->out->arena, vals[i])))
                return oom(c);
            at->u.s.len = strlen(vals[i]);
        }
    }
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ox_targ *a = &n->args[i];
        ox_attr *at = NULL;
        switch (a->kind) {
        case OX_ARG_INT: case OX_ARG_BOOL: case OX_ARG_DTYPE:
            if ((at = ox_node_add_attr(c->out, o, a->name, OX_ATTR_INT)))
                at->u.i = a->u.i;
            break;
        case OX_ARG_FLOAT:
            if ((at = ox_node_add_attr(c->out, o, a->name, OX_ATTR_FLOAT)))
                at->u.f = a->u.f;
            break;
        case OX_ARG_STRING:
            if ((at = ox_node_add_attr(c->out, o, a->name, OX_ATTR_STRING))) {
                at->u.s.len = strlen(a->u.s);
                if (!(at->u.s.p = ox_arena_strdup(&c->out->arena, a->u.s)))
                    at = NULL;
            }
            break;
        case OX_ARG_INTS:
            if ((at = ox_node_add_attr(c->out, o, a->name, OX_ATTR_INTS))) {
                at->u.ints.n = a->u.ints.n;
                if (a->u.ints.n && !(at->u.ints.p = ox_arena_memdup(
                                         &c->out->arena, a->u.ints.p, a->u.ints.n * sizeof(int64_t))))
                    at = NULL;
            }
            break;
        case OX_ARG_FLOATS:
            if ((at = ox_node_add_attr(c->out, o, a->name, OX_ATTR_FLOATS))) {
                at->u.floats.n = a->u.floats.n;
                if (a->u.floats.n && !(at->u.floats.p = ox_arena_memdup(
                                           &c->out->arena, a->u.floats.p, a->u.floats.n * sizeof(double))))
                    at = NULL;
            }
            break;
        default:
            continue;
        }
        if (!at)
            return oom(c);
    }
    int version = o->domain[0] ? ox_context_domain_version(c->ctx, o->domain) : 0;
    if (o->domain[0] && ox_graph_set_opset(c->out, o->domain, version ? version : 1) != 0)
        return oom(c);
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        c->vmap[n->outputs[i]] = o->outputs[i];
        if (copy_type(c, n->outputs[i], o->outputs[i]) != 0)
            return oom(c);
    }
    return OX_OK;
}

typedef struct schema_report {
    conv *c;
    const ox_node *traced;
    const char *path;
    bool any;
} schema_report;

static void schema_rule_broken(void *user, const char *rule)
{
    schema_report *sr = user;
    const ox_node *n = sr->traced;
    ox_report_add(&sr->c->problems, "%s at %s: the symbolic in %s emitted an invalid ONNX node: %s",
                  n->kind, ox_node_scope_text(n), sr->path, rule);
    sr->any = true;
}

/* Every node the symbolic for traced node n created (those after `before`)
 * against its schema at the target opset: a pack's wrong attribute name or
 * input count fails here, naming the pack and the recorded op, instead of
 * reaching the file. */
static int64_t node_version(const conv *c, const ox_node *o)
{
    return o->domain[0] ? ox_graph_opset(c->out, o->domain) : c->opset;
}

static bool nodes_match_schemas(conv *c, const ox_node *n, ox_node *before, const char *path)
{
    schema_report sr = {c, n, path, false};
    for (ox_node *o = before ? before->next : c->out->first; o; o = o->next) {
        int64_t version = node_version(c, o);
        /* noted in the node: the type inference below and ox_check look it
         * up again */
        ox_schema_lookup l = ox_schema_lookup_node_noting(o, version);
        if (ox_constant_needs_lifting(o, version))
            continue; /* an initializer in the file (lift_constants.h) */
        ox_schema_check_node_as(c->out, NULL, o, &l, version, schema_rule_broken, &sr);
    }
    return !sr.any;
}

/* The element types the schemas give the outputs of the nodes this call
 * created, in order, so later nodes of the call see their operands' types.
 * A type the symbolic set (set_type, constant) that the schema contradicts
 * is the pack's error. */
static bool infer_node_types(conv *c, const ox_node *n, ox_node *before, const char *path)
{
    bool ok = true;
    for (ox_node *o = before ? before->next : c->out->first; o; o = o->next) {
        ox_schema_lookup l = ox_schema_lookup_node_noting(o, node_version(c, o));
        for (uint32_t k = 0; k < o->n_outputs; k++) {
            ox_value *v = ox_graph_value(c->out, o->outputs[k]);
            ox_dtype want = v ? ox_schema_output_dtype_as(c->out, NULL, o, &l, k) : OX_UNDEFINED;
            if (want == OX_UNDEFINED)
                continue;
            if (v->type.dtype == OX_UNDEFINED) {
                v->type.dtype = want;
            } else if (v->type.dtype != want) {
                ox_report_add(&c->problems,
                              "%s at %s: the symbolic in %s typed output %u of its %s node as "
                              "%s, but the schema makes it %s",
                              n->kind, ox_node_scope_text(n), path, k, o->op_type,
                              ox_dtype_name(v->type.dtype), ox_dtype_name(want));
                ok = false;
            }
        }
    }
    return ok;
}

/* The host's recorded element type of output i against the type of the
 * value the symbolic mapped it to (inferred above or known before): a
 * difference would make the file say one type and compute another. */
static bool host_type_agrees(conv *c, const ox_node *n, uint32_t i, const char *path)
{
    const ox_value *t = ox_graph_value(c->traced, n->outputs[i]);
    const ox_value *o = ox_graph_value(c->out, c->outs[i]);
    if (!t || !o || t->type.dtype == OX_UNDEFINED || o->type.dtype == OX_UNDEFINED ||
        t->type.dtype == o->type.dtype)
        return true;
    char made[96];
    if (o->kind == OX_VAL_NODE && o->producer)
        snprintf(made, sizeof made, "output %u of its %s node", o->producer_index,
                 o->producer->op_type);
    else
        snprintf(made, sizeof made, "a graph %s",
                 o->kind == OX_VAL_INPUT ? "input" : o->kind == OX_VAL_PARAM ? "parameter"
                                                                          : "constant");
    ox_report_add(&c->problems,
                  "%s at %s: the host recorded output %u as %s, but the symbolic in %s maps it "
                  "to %s, which is %s",
                  n->kind, ox_node_scope_text(n), i, ox_dtype_name(t->type.dtype), path, made,
                  ox_dtype_name(o->type.dtype));
    return false;
}

static ox_status convert_node(conv *c, const ox_node *n, const ox_op_impl *im)
{
    if (n->n_outputs > c->cap_outs) {
        ox_vid *no = realloc(c->outs, n->n_outputs * sizeof(*no));
        if (!no)
            return oom(c);
        c->outs = no;
        c->cap_outs = n->n_outputs;
    }
    memset(c->outs, 0, n->n_outputs * sizeof(*c->outs));
    ox_sym s;
    memset(&s, 0, sizeof s);
    s.session = &c->session;
    s.ctx = c->ctx;
    s.opset = c->opset;
    s.traced = c->traced;
    s.node = n;
    s.out = c->out;
    s.vmap = c->vmap;
    s.scope = scope_copy(c, n->scope);
    s.outputs = c->outs;
    s.n_outputs = n->n_outputs;
    s.extra_output = -1;
    s.first_node_id = c->out->next_node_id;
    s.decl = im->decl;
    if (!s.scope)
        return oom(c);

    ox_node *before = c->out->last;
    c->session.current = &s;
    c->session.serial++;
    ox_crash_note_enter("symbolic", im->plugin->path, n->kind, n->scope);
    int rc = im->decl->symbolic(&s, ox_symbolic_api());
    ox_crash_note_leave();
    c->session.current = NULL;
    bool had_err = s.err != NULL;
    if (ox_sym_close_bodies(&s) && !had_err)
        c->contract_broken = true;

    const char *path = im->plugin->path;
    bool failed = true;
    if (s.oom) {
        free(s.err);
        return oom(c);
    }
    if (s.err && s.limited && s.lifted_at) {
        ox_report_add_at(&c->problems, n->scope,
                         "%s at %s: %s; supported from opset %d (symbolic in %s)", n->kind,
                         ox_node_scope_text(n), s.err, s.lifted_at, path);
    } else if (s.err) {
        ox_report_add_at(&c->problems, n->scope,
                         "%s at %s: %s (symbolic in %s)", n->kind, ox_node_scope_text(n), s.err,
                         path);
    } else if (rc != 0) {
        ox_report_add_at(&c->problems, n->scope,
                         "%s at %s: the symbolic in %s returned %d without a message (it should "
                         "return api->fail(...))",
                         n->kind, ox_node_scope_text(n), path, rc);
        c->contract_broken = true;
    } else if (s.extra_output >= 0) {
        ox_report_add_at(&c->problems, n->scope,
                         "%s at %s: the symbolic in %s set output %ld, but the node "
                         "has %u output(s)",
                         n->kind, ox_node_scope_text(n), path, s.extra_output, n->n_outputs);
        c->contract_broken = true;
    } else if (!nodes_match_schemas(c, n, before, path) ||
               !infer_node_types(c, n, before, path)) {
        c->contract_broken = true;
    } else {
        failed = false;
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            if (!c->outs[i]) {
                ox_report_add_at(&c->problems, n->scope,
                                 "%s at %s: the symbolic in %s left output %u of %u unset",
                                 n->kind, ox_node_scope_text(n), path, i, n->n_outputs);
                c->contract_broken = true;
                failed = true;
                break;
            }
        }
    }
    free(s.err);
    if (failed) {
        poison_outputs(c, n);
        return OX_OK;
    }
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        if (!host_type_agrees(c, n, i, path)) {
            c->contract_broken = true;
            poison_outputs(c, n);
            return OX_OK;
        }
    }
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        c->vmap[n->outputs[i]] = c->outs[i];
        if (copy_type(c, n->outputs[i], c->outs[i]) != 0)
            return oom(c);
    }
    return OX_OK;
}

/* A graph output must be a distinct value produced inside the graph. */
static ox_status map_outputs(conv *c)
{
    const ox_graph *tg = c->traced;
    for (uint32_t i = 0; i < tg->n_outputs; i++) {
        ox_vid tv = tg->outputs[i];
        ox_vid ov = c->vmap[tv];
        ox_value *o = ox_graph_value(c->out, ov);
        if (!o)
            return ox_fail(c->ctx, OX_EINVAL, "ox_convert: graph output %u (value %u) was never "
                                              "produced", i, tv);
        if (o->kind == OX_VAL_INPUT || o->kind == OX_VAL_PARAM || o->is_output) {
            ox_node *id = ox_graph_add_node(c->out, "onnx::Identity", 1, &ov, 1);
            if (!id || !(id->scope = scope_copy(c, tg->name)))
                return oom(c);
            ov = id->outputs[0];
            o = ox_graph_value(c->out, ov);
            if (copy_type(c, tv, ov) != 0)
                return oom(c);
        }
        const ox_value *t = ox_graph_value(tg, tv);
        if (t->name && !o->name && !(o->name = ox_arena_strdup(&c->out->arena, t->name)))
            return oom(c);
        /* dynamic axes the host named on an output (ox_graph_set_dim_param) */
        if (copy_dim_params(c, t, o) != 0)
            return oom(c);
        if (ox_graph_add_output(c->out, ov) != 0)
            return oom(c);
    }
    return OX_OK;
}

/* Constants the emitted graph uses become Constant nodes (small) or
 * initializers (large); the rest vanish. */
static ox_status materialize_constants(conv *c)
{
    ox_graph *g = c->out;
    uint32_t n_consts = g->n_consts;
    for (uint32_t k = 0; k < n_consts; k++) {
        ox_vid v = g->consts[k];
        ox_value *x = g->values[v];
        if (x->kind != OX_VAL_CONST || (!x->n_uses && !x->is_output))
            continue;
        if (x->tensor.nbytes > OX_CONVERT_CONSTANT_NODE_MAX) {
            if (ox_value_become_param(g, v) != 0)
                return oom(c);
            continue;
        }
        ox_node *n = ox_value_become_constant_node(g, v);
        if (!n || !(n->scope = scope_copy(c, c->traced->name)))
            return oom(c);
    }
    return OX_OK;
}

/* The host's fixed values (ox_trace_fixed_values), as the emitted graph's:
 * after the constants, so a constant only a warning asks about stays a
 * value and does not become a node.  A value conversion did not keep maps
 * to 0, which the pipeline counts as varying. */
static ox_status map_observed(conv *c)
{
    const ox_graph *tg = c->traced;
    for (uint32_t k = 0; k < tg->n_observed; k++) {
        const ox_observed *e = &tg->observed[k];
        ox_vid *ids = ox_arena_alloc(&c->out->arena, e->n_values * sizeof(*ids));
        if (!ids)
            return oom(c);
        for (uint32_t i = 0; i < e->n_values; i++)
            ids[i] = e->values[i] < tg->n_values ? c->vmap[e->values[i]] : 0;
        if (ox_graph_add_observed(c->out, ids, e->n_values, e->message) != 0)
            return oom(c);
    }
    return OX_OK;
}

static ox_status build(conv *c, ox_graph **out)
{
    ox_status st = map_sources(c);
    if (st != OX_OK)
        return st;
    for (const ox_node *n = c->traced->first; n; n = n->next) {
        if (inputs_poisoned(c, n)) {
            poison_outputs(c, n);
            continue;
        }
        const ox_kind_info *k = ox_kind_info_of(&c->kinds, c->ctx, n, c->opset);
        st = k->route == OX_ROUTE_CONVERT ? convert_node(c, n, k->impl)
                                          : copy_node(c, n, k->route == OX_ROUTE_ATEN);
        if (st != OX_OK)
            return st;
    }
    if (c->problems.n || c->problems.oom) {
        char *msg = problems_message(&c->problems, c->opset);
        if (!msg)
            return oom(c);
        return ox_fail_take(c->ctx, c->contract_broken ? OX_EPLUGIN : OX_EUNSUPPORTED, msg);
    }
    if ((st = map_outputs(c)) != OX_OK || (st = materialize_constants(c)) != OX_OK ||
        (st = map_observed(c)) != OX_OK)
        return st;

    ox_graph *g = c->out;
    if (ox_graph_set_opset(g, "", c->opset) != 0)
        return oom(c);
    const ox_config *cfg = c->ctx->config;
    for (size_t i = 0; cfg && i < cfg->n_domains; i++)
        if (ox_graph_set_opset(g, cfg->domains[i].domain, cfg->domains[i].version) != 0)
            return oom(c);
    /* custom_opsets: the host's version for every custom domain the graph uses */
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        int v = g->opsets[i].domain[0] ? ox_context_domain_version(c->ctx, g->opsets[i].domain) : 0;
        if (v)
            g->opsets[i].version = v;
    }
    /* the default domain first, as torch writes it */
    for (uint32_t i = 1; i < g->n_opsets; i++) {
        if (g->opsets[i].domain[0] == '\0') {
            ox_opset_import d = g->opsets[i];
            memmove(&g->opsets[1], &g->opsets[0], i * sizeof(d));
            g->opsets[0] = d;
            break;
        }
    }
    g->ir_version = ox_ir_version_for_opset(c->opset);
    g->is_onnx = true;
    *out = g;
    c->out = NULL;
    return OX_OK;
}

ox_status ox_convert_resolve_opset(ox_context *ctx, const ox_graph *traced, int *opset, int *lo,
                                   int *hi)
{
    if (!traced)
        return ox_fail(ctx, OX_EINVAL, "ox_convert: graph is NULL");
    if (traced->is_onnx)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_convert: graph %s is already an ONNX graph (converted or read from a "
                       "file); pass the traced graph from ox_trace_finish",
                       traced->name);
    ox_status st = ox_context_load(ctx);
    if (st != OX_OK)
        return st;
    if (*opset == 0)
        *opset = ox_context_target_opset(ctx);
    const char *source;
    ox_convert_opset_range(ctx, lo, hi, &source);
    if (*opset < *lo || *opset > *hi)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_convert: opset %d is outside the enabled range %d..%d (set by %s)",
                       *opset, *lo, *hi, source);
    return OX_OK;
}

ox_status ox_convert_prescan(ox_context *ctx, const ox_graph *traced, int opset, int lo, int hi)
{
    ox_report_free(&ctx->problems);
    ox_report r, notes;
    ox_report_init(&r);
    ox_report_init(&notes);
    free(ctx->notes);
    ctx->notes = NULL;
    ox_prescan(ctx, traced, opset, lo, hi, &r, &notes);
    if (notes.n && !(ctx->notes = ox_report_join(&notes, NULL))) {
        ox_report_free(&notes);
        ox_report_free(&r);
        return ox_fail(ctx, OX_ENOMEM, "out of memory reporting the conversion's notes");
    }
    ox_report_free(&notes);
    if (r.n || r.oom) {
        char *msg = r.oom ? NULL : problems_message(&r, opset);
        keep_problems(ctx, &r, opset);
        if (!msg)
            return ox_fail(ctx, OX_ENOMEM, "out of memory reporting unsupported operators");
        return ox_fail_take(ctx, OX_EUNSUPPORTED, msg);
    }
    ox_report_free(&r);
    return OX_OK;
}

ox_status ox_convert_graph(ox_context *ctx, const ox_graph *traced, int opset, ox_graph **out)
{
    ox_status st;
    conv c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.traced = traced;
    c.opset = opset;
    c.session.tag = ox_sym_new_tag();
    /* the sizes symbolics read matter where an axis is dynamic (context.h) */
    ctx->n_size_reads = 0;
    ctx->track_size_reads = ox_varying_dims_any_input(traced);
    ox_report_init(&c.problems);
    c.out = ox_graph_new(traced->name);
    c.vmap = calloc(traced->n_values, sizeof(*c.vmap));
    c.poisoned = calloc(traced->n_values, 1);
    if (!c.out || !c.vmap || !c.poisoned)
        st = oom(&c);
    else
        st = build(&c, out);
    ox_graph_free(c.out);
    free(c.vmap);
    free(c.poisoned);
    free(c.outs);
    ox_kind_memo_free(&c.kinds);
    if (st != OX_OK && c.problems.n)
        keep_problems(ctx, &c.problems, opset);
    ox_report_free(&c.problems);
    return st;
}
