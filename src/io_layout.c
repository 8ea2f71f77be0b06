/*
 * The io-layout stage (io_layout.h): graph inputs vs initializers and the
 * names a file carries, decided once for every writer of a file.
 */
#include "io_layout.h"

#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "strmap.h"

static ox_status oom(ox_context *ctx)
{
    return ox_fail(ctx, OX_ENOMEM, "ox_write: out of memory");
}

static const char *value_label(const ox_value *v)
{
    return v->name && v->name[0] ? v->name : "(unnamed)";
}

static bool vid_ok(const ox_graph *g, ox_vid id)
{
    return id > 0 && id < g->n_values && g->values[id] != NULL;
}

/* Whether parameters are listed as graph inputs too, as every runtime of
 * IR version 3 and older requires: the rule, stated once.  At those IR
 * versions keep_initializers_as_inputs=0 cannot be honoured (the file would
 * break the rule onnx.checker enforces), so it is overridden there, as
 * torch.onnx 1.13 does below opset 9; the pipeline warns about it. */
static bool params_listed_as_inputs(const ox_export_options *o, int64_t ir_version)
{
    return o->keep_initializers_as_inputs == 1 || ir_version <= 3;
}

/* Mark a value as written and give it a name (unique among written names). */
static int assign_name(ox_arena *a, ox_io_plan *p, ox_strset *taken, ox_vid id)
{
    if (p->names[id])
        return 0;
    const ox_value *v = p->g->values[id];
    const char *base = v->name && v->name[0] ? v->name : NULL;
    if (!base && !(base = ox_arena_printf(a, "%u", (unsigned)id)))
        return -1;
    /* the same name twice would break SSA: later values get a suffix */
    return (p->names[id] = ox_name_claim(a, taken, base)) ? 0 : -1;
}

/* Every value id a node, output, input or parameter refers to must exist.
 * Also gives 1 + the largest node id, for the plan's table of node names,
 * and whether a node holds a subgraph to lay out: this walk of the nodes is
 * the one that finds them. */
static ox_status check_refs(ox_context *ctx, const ox_graph *g, bool *used, size_t *node_ids,
                            bool *has_bodies)
{
    const char *gname = g->name && g->name[0] ? g->name : "graph";
    uint32_t idx = 0;
    *node_ids = 1;
    *has_bodies = false;
    for (const ox_node *n = g->first; n; n = n->next, idx++) {
        if ((size_t)n->id + 1 > *node_ids)
            *node_ids = (size_t)n->id + 1;
        for (uint32_t i = 0; i < n->n_attrs && !*has_bodies; i++)
            *has_bodies = n->attrs[i].kind == OX_ATTR_GRAPH && n->attrs[i].u.g;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            if (n->inputs[i] == 0)
                continue;
            if (!vid_ok(g, n->inputs[i]))
                return ox_fail(ctx, OX_EINVAL,
                               "ox_write: graph '%s': node %u (%s) input %u refers to value id "
                               "%u, which does not exist; the graph is corrupt (a pass removed "
                               "a value still in use)",
                               gname, idx, n->kind ? n->kind : "?", i, (unsigned)n->inputs[i]);
            used[n->inputs[i]] = true;
        }
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            if (n->outputs[i] != 0 && !vid_ok(g, n->outputs[i]))
                return ox_fail(ctx, OX_EINVAL,
                               "ox_write: graph '%s': node %u (%s) output %u refers to value id "
                               "%u, which does not exist; the graph is corrupt",
                               gname, idx, n->kind ? n->kind : "?", i, (unsigned)n->outputs[i]);
        }
    }
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        if (!vid_ok(g, g->outputs[i]))
            return ox_fail(ctx, OX_EINVAL, "ox_write: graph '%s': output %u refers to value id "
                           "%u, which does not exist", gname, i, (unsigned)g->outputs[i]);
        used[g->outputs[i]] = true;
    }
    for (uint32_t i = 0; i < g->n_inputs; i++)
        if (!vid_ok(g, g->inputs[i]))
            return ox_fail(ctx, OX_EINVAL, "ox_write: graph '%s': input %u refers to value id "
                           "%u, which does not exist", gname, i, (unsigned)g->inputs[i]);
    for (uint32_t i = 0; i < g->n_params; i++)
        if (!vid_ok(g, g->params[i]))
            return ox_fail(ctx, OX_EINVAL, "ox_write: graph '%s': parameter %u refers to value "
                           "id %u, which does not exist", gname, i, (unsigned)g->params[i]);
    return OX_OK;
}

/* input_names / output_names on the main graph: checked, then taken first
 * so they win any collision.  input_names covers the graph inputs, then the
 * parameters the file holds as initializers only (the first n_param_inits of
 * p->inits), in that order: torch.onnx names its graph's inputs before it
 * moves parameters out of them, so names past the real inputs name the
 * parameters whether or not they stay inputs (the seed's AlexNet example
 * names its weights learned_0 ... this way). */
static ox_status caller_names(ox_context *ctx, ox_arena *a, ox_io_plan *p, ox_strset *taken,
                              const ox_export_options *o, size_t n_param_inits)
{
    const ox_graph *g = p->g;
    size_t n_nameable = p->n_ins;
    for (size_t i = 0; i < n_param_inits; i++)
        if (!p->is_input[p->inits[i]])
            n_nameable++;
    if (o->n_input_names > n_nameable)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_write: %zu input names given but the model has only %zu graph inputs "
                       "and parameters (inputs, then parameters); pass at most %zu",
                       o->n_input_names, n_nameable, n_nameable);
    ox_vid *nameable = NULL;
    if (o->n_input_names > p->n_ins) {
        if (!(nameable = ox_arena_alloc(a, n_nameable * sizeof(*nameable))))
            return oom(ctx);
        memcpy(nameable, p->ins, p->n_ins * sizeof(*nameable));
        size_t k = p->n_ins;
        for (size_t i = 0; i < n_param_inits; i++)
            if (!p->is_input[p->inits[i]])
                nameable[k++] = p->inits[i];
    }
    if (o->n_output_names > g->n_outputs)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_write: %zu output names given but the model has only %u outputs",
                       o->n_output_names, (unsigned)g->n_outputs);
    for (size_t pass = 0; pass < 2; pass++) {
        size_t n = pass == 0 ? o->n_input_names : o->n_output_names;
        const char *const *list = pass == 0 ? o->input_names : o->output_names;
        const char *what = pass == 0 ? "input" : "output";
        for (size_t i = 0; i < n; i++) {
            ox_vid id = pass == 1 ? g->outputs[i] : nameable ? nameable[i] : p->ins[i];
            const char *nm = list ? list[i] : NULL;
            if (!nm || !nm[0])
                return ox_fail(ctx, OX_EINVAL, "ox_write: %s_names[%zu] is %s; give every "
                               "renamed %s a non-empty name", what, i, nm ? "empty" : "NULL",
                               what);
            if (p->names[id]) {
                if (strcmp(p->names[id], nm) == 0)
                    continue; /* an input that is also an output, same name */
                return ox_fail(ctx, OX_EINVAL, "ox_write: value '%s' is named both '%s' and "
                               "'%s' by input_names/output_names; give it one name",
                               value_label(g->values[id]), p->names[id], nm);
            }
            if (ox_strset_has(taken, nm))
                return ox_fail(ctx, OX_EINVAL, "ox_write: %s_names[%zu] = '%s' is given to two "
                               "different values; names must be unique", what, i, nm);
            const char *copy = ox_arena_strdup(a, nm);
            if (!copy || ox_strset_add(taken, copy) < 0)
                return oom(ctx);
            p->names[id] = copy;
        }
    }
    return OX_OK;
}

static ox_status plan_graph(ox_context *ctx, ox_io_layout *l, ox_io_plan *p, const ox_graph *g,
                            const ox_export_options *o, bool main_graph)
{
    ox_arena *a = &l->arena;
    p->g = g;
    size_t nv = g->n_values ? g->n_values : 1;
    p->names = ox_arena_alloc(a, nv * sizeof(*p->names));
    p->is_init = ox_arena_alloc(a, nv * sizeof(*p->is_init));
    p->is_input = ox_arena_alloc(a, nv * sizeof(*p->is_input));
    p->inits = ox_arena_alloc(a, nv * sizeof(*p->inits));
    p->ins = ox_arena_alloc(a, nv * sizeof(*p->ins));
    bool *used = ox_arena_alloc(a, nv * sizeof(*used));
    ox_vid *params_as_inputs = ox_arena_alloc(a, nv * sizeof(ox_vid));
    if (!p->names || !p->is_init || !p->is_input || !p->inits || !p->ins || !used ||
        !params_as_inputs)
        return oom(ctx);
    size_t nn;
    ox_status st = check_refs(ctx, g, used, &nn, &p->has_bodies);
    if (st != OX_OK)
        return st;
    if (!(p->node_names = ox_arena_alloc(a, nn * sizeof(*p->node_names))))
        return oom(ctx);

    bool export_params = !main_graph || o->export_params;
    bool keep_all = main_graph && params_listed_as_inputs(o, l->ir_version);

    /* Initializers: parameters (in order), then forward-created constants a
     * node reads that no node produces (by id: deterministic). */
    size_t n_pai = 0;
    for (uint32_t i = 0; i < g->n_params; i++) {
        ox_vid id = g->params[i];
        if (p->is_init[id] || p->is_input[id])
            continue;
        if (export_params) {
            p->is_init[id] = true;
            p->inits[p->n_inits++] = id;
        } else {
            p->is_input[id] = true;
            params_as_inputs[n_pai++] = id;
        }
    }
    size_t n_param_inits = p->n_inits;
    for (uint32_t k = 0; k < g->n_consts; k++) {
        ox_vid id = g->consts[k];
        const ox_value *v = id < g->n_values ? g->values[id] : NULL;
        if (v && v->kind == OX_VAL_CONST && used[id] && !p->is_init[id] && !p->is_input[id] &&
            !(v->producer)) {
            p->is_init[id] = true;
            p->inits[p->n_inits++] = id;
        }
    }

    /* Graph inputs: the real ones, then parameters listed as inputs. */
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        ox_vid id = g->inputs[i];
        if (p->is_input[id] || p->is_init[id])
            continue; /* an initializer is listed with the initializers below */
        p->is_input[id] = true;
        p->ins[p->n_ins++] = id;
    }
    for (size_t i = 0; i < n_pai; i++)
        p->ins[p->n_ins++] = params_as_inputs[i];
    for (size_t i = 0; i < p->n_inits; i++) {
        ox_vid id = p->inits[i];
        bool listed = keep_all;
        /* a file read keeps the layout it had */
        if (!listed && main_graph && o->keep_initializers_as_inputs < 0)
            listed = g->values[id]->listed_as_input;
        if (!listed && !main_graph) {
            for (uint32_t k = 0; k < g->n_inputs; k++)
                if (g->inputs[k] == id)
                    listed = true;
        }
        if (listed && !p->is_input[id]) {
            p->is_input[id] = true;
            p->ins[p->n_ins++] = id;
        }
    }

    ox_strset taken;
    if (ox_strset_init(&taken, g->n_values) != 0)
        return oom(ctx);
    if (main_graph && (st = caller_names(ctx, a, p, &taken, o, n_param_inits)) != OX_OK)
        goto out;
    for (size_t i = 0; i < p->n_ins; i++)
        if (assign_name(a, p, &taken, p->ins[i]) != 0)
            goto nomem;
    for (size_t i = 0; i < p->n_inits; i++)
        if (assign_name(a, p, &taken, p->inits[i]) != 0)
            goto nomem;
    uint32_t idx = 0;
    for (const ox_node *n = g->first; n; n = n->next, idx++) {
        for (uint32_t i = 0; i < n->n_inputs; i++)
            if (n->inputs[i] && assign_name(a, p, &taken, n->inputs[i]) != 0)
                goto nomem;
        for (uint32_t i = 0; i < n->n_outputs; i++)
            if (n->outputs[i] && assign_name(a, p, &taken, n->outputs[i]) != 0)
                goto nomem;
        p->node_names[n->id] =
            n->name && n->name[0]
                ? n->name
                : ox_arena_printf(a, "%s_%u", n->op_type ? n->op_type : "node", (unsigned)idx);
        if (!p->node_names[n->id])
            goto nomem;
    }
    for (uint32_t i = 0; i < g->n_outputs; i++)
        if (assign_name(a, p, &taken, g->outputs[i]) != 0)
            goto nomem;
    goto out;
nomem:
    st = oom(ctx);
out:
    ox_strset_free(&taken);
    return st;
}

/* A new, zeroed subgraph plan of l (NULL out of memory, said on ctx). */
static ox_io_plan *new_sub(ox_context *ctx, ox_io_layout *l)
{
    if (l->n_subs == l->cap_subs) {
        size_t ncap = l->cap_subs ? l->cap_subs * 2 : 8;
        ox_io_plan *ns = realloc(l->subs, ncap * sizeof(*ns));
        if (!ns) {
            oom(ctx);
            return NULL;
        }
        l->subs = ns;
        l->cap_subs = ncap;
    }
    ox_io_plan *p = &l->subs[l->n_subs++];
    memset(p, 0, sizeof *p);
    return p;
}

/* Plan every GRAPH attribute body below g (planned as p), depth-first in
 * node order. */
static ox_status plan_subgraphs(ox_context *ctx, ox_io_layout *l, const ox_io_plan *p_of_g,
                                const ox_graph *g, const ox_export_options *o, int depth)
{
    if (!p_of_g->has_bodies)
        return OX_OK; /* a graph of millions of nodes is not walked again for none */
    for (const ox_node *n = g->first; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_attrs; i++) {
            const ox_attr *at = &n->attrs[i];
            if (at->kind != OX_ATTR_GRAPH || !at->u.g)
                continue; /* a GRAPH with no body: the serializer names it */
            if (depth + 1 > OX_IO_MAX_SUBGRAPH_DEPTH)
                return ox_fail(ctx, OX_EINVAL, "ox_write: subgraphs nested deeper than %d levels",
                               OX_IO_MAX_SUBGRAPH_DEPTH);
            ox_io_plan *p = new_sub(ctx, l);
            if (!p)
                return OX_ENOMEM;
            ox_status st = plan_graph(ctx, l, p, at->u.g, o, false);
            /* p may move when a deeper body grows l->subs: copy what is read */
            ox_io_plan body = *p;
            if (st == OX_OK)
                st = plan_subgraphs(ctx, l, &body, at->u.g, o, depth + 1);
            if (st != OX_OK)
                return st;
        }
    }
    return OX_OK;
}

ox_status ox_io_layout_plan(ox_context *ctx, const ox_graph *g, const ox_export_options *opts,
                            ox_io_layout *l)
{
    memset(l, 0, sizeof *l);
    ox_arena_init(&l->arena);
    ox_export_options o;
    ox_export_options_init(&o);
    if (opts) {
        size_t n = opts->struct_size;
        if (n == 0 || n > sizeof(*opts))
            n = sizeof(*opts);
        memcpy(&o, opts, n);
        o.struct_size = (uint32_t)sizeof(o);
    }
    if (o.n_input_names && !o.input_names)
        return ox_fail(ctx, OX_EINVAL, "ox_write: n_input_names is %zu but input_names is NULL",
                       o.n_input_names);
    if (o.n_output_names && !o.output_names)
        return ox_fail(ctx, OX_EINVAL, "ox_write: n_output_names is %zu but output_names is NULL",
                       o.n_output_names);
    l->ir_version = g->ir_version > 0 ? g->ir_version
                                      : ox_ir_version_for_opset(ox_graph_opset(g, ""));
    ox_status st = plan_graph(ctx, l, &l->main, g, &o, true);
    if (st == OX_OK)
        st = plan_subgraphs(ctx, l, &l->main, g, &o, 0);
    /* Function bodies are laid out like subgraphs: names of their own. */
    for (uint32_t i = 0; st == OX_OK && i < g->n_functions; i++) {
        const ox_graph *body = g->functions[i].body;
        ox_io_plan *p = new_sub(ctx, l);
        st = !p ? OX_ENOMEM : plan_graph(ctx, l, p, body, &o, false);
        ox_io_plan planned = p ? *p : (ox_io_plan){0};
        if (st == OX_OK)
            st = plan_subgraphs(ctx, l, &planned, body, &o, 1);
    }
    return st;
}

const ox_io_plan *ox_io_layout_sub(const ox_io_layout *l, const ox_graph *sub)
{
    /* subgraphs are few (If/Loop bodies): a scan is enough */
    for (size_t i = 0; i < l->n_subs; i++)
        if (l->subs[i].g == sub)
            return &l->subs[i];
    return NULL;
}

void ox_io_layout_free(ox_io_layout *l)
{
    free(l->subs);
    ox_arena_free(&l->arena);
    memset(l, 0, sizeof *l);
}

int ox_io_layout_name_graph(const ox_io_layout *l, ox_graph *g)
{
    const ox_io_plan *p = &l->main;
    if (p->g != g)
        return 0;
    for (ox_vid id = 1; id < g->n_values; id++) {
        ox_value *v = g->values[id];
        const char *nm = p->names[id];
        /* a parameter the file lists as an input (too, or instead when the
         * weights are left out): the check holds an IR <= 3 file to the
         * initializers-are-inputs rule, as it does a file it reads */
        if (v && (p->is_init[id] || v->kind == OX_VAL_PARAM) && p->is_input[id])
            v->listed_as_input = true;
        if (!v || !nm || v->name == nm || (v->name && strcmp(v->name, nm) == 0))
            continue;
        if (!(v->name = ox_arena_strdup(&g->arena, nm)))
            return -1;
    }
    return 0;
}
