/*
 * The functions stage (functions.h): scope instances of selected module
 * types become calls of model-local functions.
 *
 * A node's scope is "Model/Block[layers.0]/Linear[fc]": segment d > 0 is
 * one module instance, "Type[attribute]".  Levels are handled from the
 * deepest up; at each level the nodes whose scope has a selected type at
 * that segment are grouped by the scope prefix ending there (one group per
 * instance).  A group becomes one call node: what its nodes read from
 * outside (graph inputs, parameters, other nodes' outputs) are the call's
 * inputs in first-use order, what the rest of the graph reads from it its
 * outputs in production order — the layout torch.onnx 1.13 gives its
 * functions (parameters passed as inputs).  Groups with the same body (same
 * nodes, attributes and wiring, compared exactly) share one function.
 */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "strmap.h"

/* One selected module type: "domain::Type" split. */
typedef struct fn_type {
    const char *domain;
    size_t domain_len;
    const char *type;
    bool seen; /* a scope of the graph names it */
} fn_type;

/* One instance being extracted: its nodes in graph order. */
typedef struct group {
    const char *key; /* scope prefix, in the graph's arena */
    const fn_type *type;
    ox_node **nodes;
    size_t n, cap;
} group;

typedef struct fx {
    ox_context *ctx;
    ox_graph *g;
    fn_type *types;
    size_t n_types;
    /* per node id (grown as call nodes are added): stamps and positions */
    uint32_t *node_serial, *node_taint, *node_pos;
    size_t node_cap;
    /* per value id: stamps, input slots, body values */
    uint32_t *v_serial, *v_slot, *v_uses_serial, *v_uses, *v_body;
    uint32_t serial;
    /* which selected type each function of g came from */
    const fn_type **fn_origin;
    size_t fn_cap;
    /* the current group's signature */
    ox_vid *ins, *outs;
    size_t n_ins, n_outs, cap_io;
} fx;

static ox_status oom(fx *x)
{
    return ox_fail(x->ctx, OX_ENOMEM, "out of memory turning modules into functions");
}

static int grow_nodes(fx *x)
{
    size_t need = x->g->next_node_id + 1;
    if (need <= x->node_cap)
        return 0;
    size_t cap = need * 2;
    uint32_t **arrays[] = {&x->node_serial, &x->node_taint, &x->node_pos};
    for (size_t i = 0; i < 3; i++) {
        uint32_t *a = realloc(*arrays[i], cap * sizeof(**arrays[i]));
        if (!a)
            return -1;
        memset(a + x->node_cap, 0, (cap - x->node_cap) * sizeof(*a));
        *arrays[i] = a;
    }
    x->node_cap = cap;
    return 0;
}

static int push_io(fx *x, ox_vid **list, size_t *n, ox_vid v)
{
    if (*n == x->cap_io) {
        size_t cap = x->cap_io ? x->cap_io * 2 : 16;
        ox_vid *a = realloc(x->ins, cap * sizeof(*a));
        if (!a)
            return -1;
        x->ins = a;
        ox_vid *b = realloc(x->outs, cap * sizeof(*b));
        if (!b)
            return -1;
        x->outs = b;
        x->cap_io = cap;
    }
    (*list)[(*n)++] = v;
    return 0;
}

/* The selected type of segment `seg` (of length len, "Type[attr]"), NULL
 * when none is selected; a type found is marked seen. */
static const fn_type *selected(fx *x, const char *seg, size_t len)
{
    const char *br = memchr(seg, '[', len);
    size_t tl = br ? (size_t)(br - seg) : len;
    for (size_t i = 0; i < x->n_types; i++)
        if (strlen(x->types[i].type) == tl && memcmp(x->types[i].type, seg, tl) == 0) {
            x->types[i].seen = true;
            return &x->types[i];
        }
    return NULL;
}

/* Where segment `level` of scope s ends (s + offset), or 0 when s has
 * fewer segments; *seg_start is where it begins. */
static size_t segment_end(const char *s, uint32_t level, size_t *seg_start)
{
    size_t at = 0;
    for (uint32_t d = 0; d < level; d++) {
        const char *slash = strchr(s + at, '/');
        if (!slash)
            return 0;
        at = (size_t)(slash - s) + 1;
    }
    *seg_start = at;
    size_t end = at + strcspn(s + at, "/");
    return end > at ? end : 0;
}

static uint32_t scope_depth(const char *s)
{
    uint32_t d = 0;
    for (; s && *s; s++)
        d += *s == '/';
    return d;
}

/* ------------------------------------------------------------- signature */

static bool in_group(const fx *x, const ox_node *n)
{
    return n && n->id < x->node_cap && x->node_serial[n->id] == x->serial;
}

/* The group's inputs and outputs; -1 out of memory, 0 done, or 1 + k when
 * the group is not convex: its node k reads, through nodes outside it, a
 * value the group computed (a module called twice with other work between
 * the calls: the nodes before k are one call). */
static long signature(fx *x, group *gr)
{
    ox_graph *g = x->g;
    x->n_ins = x->n_outs = 0;
    for (size_t k = 0; k < gr->n; k++) {
        x->node_serial[gr->nodes[k]->id] = x->serial;
        x->node_pos[gr->nodes[k]->id] = (uint32_t)k;
    }
    /* outside nodes between the group's first and last that depend on it */
    for (ox_node *n = gr->nodes[0]; n; n = n == gr->nodes[gr->n - 1] ? NULL : n->next) {
        bool inside = in_group(x, n), tainted = false;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_value *v = ox_graph_value(g, n->inputs[i]);
            ox_node *p = v ? v->producer : NULL;
            bool from_taint = p && p->id < x->node_cap && x->node_taint[p->id] == x->serial;
            if (inside && from_taint)
                return 1 + (int)x->node_pos[n->id];
            if (!inside && (from_taint || in_group(x, p)))
                tainted = true;
        }
        if (tainted)
            x->node_taint[n->id] = x->serial;
    }
    for (size_t k = 0; k < gr->n; k++) {
        ox_node *n = gr->nodes[k];
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_vid id = n->inputs[i];
            ox_value *v = ox_graph_value(g, id);
            if (!v)
                continue;
            if (x->v_uses_serial[id] != x->serial) {
                x->v_uses_serial[id] = x->serial;
                x->v_uses[id] = 0;
            }
            x->v_uses[id]++;
            if (in_group(x, v->producer) || x->v_serial[id] == x->serial)
                continue;
            x->v_serial[id] = x->serial;
            x->v_slot[id] = (uint32_t)x->n_ins;
            if (push_io(x, &x->ins, &x->n_ins, id) != 0)
                return -1;
        }
    }
    for (size_t k = 0; k < gr->n; k++) {
        ox_node *n = gr->nodes[k];
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_vid id = n->outputs[i];
            ox_value *v = ox_graph_value(g, id);
            if (!v)
                continue;
            uint32_t inner = x->v_uses_serial[id] == x->serial ? x->v_uses[id] : 0;
            if ((v->is_output || v->n_uses > inner) && push_io(x, &x->outs, &x->n_outs, id) != 0)
                return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ same body */

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool same_tensor(const ox_attr_tensor *a, const ox_attr_tensor *b)
{
    if (!a || !b)
        return a == b;
    if (a->dtype != b->dtype || a->rank != b->rank || a->data.nbytes != b->data.nbytes)
        return false;
    if (a->rank && memcmp(a->dims, b->dims, a->rank * sizeof(*a->dims)) != 0)
        return false;
    return !a->data.nbytes || memcmp(a->data.data, b->data.data, a->data.nbytes) == 0;
}

static bool same_attr(const ox_attr *a, const ox_attr *b)
{
    if (a->kind != b->kind || strcmp(a->name, b->name) != 0)
        return false;
    switch (a->kind) {
    case OX_ATTR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
    case OX_ATTR_INT: return a->u.i == b->u.i;
    case OX_ATTR_STRING:
        return a->u.s.len == b->u.s.len && (!a->u.s.len || memcmp(a->u.s.p, b->u.s.p, a->u.s.len) == 0);
    case OX_ATTR_TENSOR: return same_tensor(a->u.t, b->u.t);
    case OX_ATTR_FLOATS:
        return a->u.floats.n == b->u.floats.n &&
               (!a->u.floats.n ||
                memcmp(a->u.floats.p, b->u.floats.p, a->u.floats.n * sizeof(double)) == 0);
    case OX_ATTR_INTS:
        return a->u.ints.n == b->u.ints.n &&
               (!a->u.ints.n ||
                memcmp(a->u.ints.p, b->u.ints.p, a->u.ints.n * sizeof(int64_t)) == 0);
    case OX_ATTR_STRINGS:
        if (a->u.strings.n != b->u.strings.n)
            return false;
        for (size_t i = 0; i < a->u.strings.n; i++)
            if (strcmp(a->u.strings.p[i], b->u.strings.p[i]) != 0)
                return false;
        return true;
    case OX_ATTR_TENSORS:
        if (a->u.tensors.n != b->u.tensors.n)
            return false;
        for (size_t i = 0; i < a->u.tensors.n; i++)
            if (!same_tensor(a->u.tensors.p[i], b->u.tensors.p[i]))
                return false;
        return true;
    default:
        return false; /* subgraphs and the like: never shared */
    }
}

/* Where value id of the group comes from: ('n', node position, output) or
 * ('i', input slot, 0). */
static void group_ref(const fx *x, ox_vid id, char *kind, uint32_t *a, uint32_t *b)
{
    const ox_value *v = ox_graph_value(x->g, id);
    if (v && in_group(x, v->producer)) {
        *kind = 'n';
        *a = x->node_pos[v->producer->id];
        *b = v->producer_index;
    } else {
        *kind = 'i';
        *a = v ? x->v_slot[id] : UINT32_MAX;
        *b = 0;
    }
}

static void body_ref(const ox_graph *body, ox_vid id, char *kind, uint32_t *a, uint32_t *b)
{
    const ox_value *v = ox_graph_value(body, id);
    if (v && v->kind == OX_VAL_INPUT) {
        /* build_body creates the inputs first, in order: ids are consecutive */
        *kind = 'i';
        *a = (uint32_t)(id - body->inputs[0]);
        *b = 0;
    } else {
        *kind = 'n';
        *a = v && v->producer ? v->producer->id - body->first->id : UINT32_MAX;
        *b = v ? v->producer_index : 0;
    }
}

static bool same_ref(const fx *x, ox_vid gid, const ox_graph *body, ox_vid bid)
{
    if (!gid || !bid)
        return gid == bid;
    char k1, k2;
    uint32_t a1, b1, a2, b2;
    group_ref(x, gid, &k1, &a1, &b1);
    body_ref(body, bid, &k2, &a2, &b2);
    return k1 == k2 && a1 == a2 && b1 == b2;
}

static bool same_body(const fx *x, const group *gr, const ox_graph *body)
{
    if (body->n_nodes != gr->n || body->n_inputs != x->n_ins || body->n_outputs != x->n_outs)
        return false;
    size_t k = 0;
    for (const ox_node *b = body->first; b; b = b->next, k++) {
        const ox_node *n = gr->nodes[k];
        if (strcmp(nz(n->domain), nz(b->domain)) != 0 || strcmp(nz(n->op_type), nz(b->op_type)) ||
            n->n_inputs != b->n_inputs || n->n_outputs != b->n_outputs || n->n_attrs != b->n_attrs)
            return false;
        for (uint32_t i = 0; i < n->n_attrs; i++)
            if (!same_attr(&n->attrs[i], &b->attrs[i]))
                return false;
        for (uint32_t i = 0; i < n->n_inputs; i++)
            if (!same_ref(x, n->inputs[i], body, b->inputs[i]))
                return false;
        for (uint32_t i = 0; i < n->n_outputs; i++)
            if (!n->outputs[i] != !b->outputs[i])
                return false;
    }
    for (size_t i = 0; i < x->n_outs; i++)
        if (!same_ref(x, x->outs[i], body, body->outputs[i]))
            return false;
    return true;
}

/* ------------------------------------------------------------ build body */

static ox_value *copy_value(ox_graph *b, const ox_value *v, ox_value_kind kind)
{
    ox_value *nv = ox_graph_add_value(b, kind, v->type.dtype, v->type.rank, v->type.dims);
    if (!nv || (v->name && !(nv->name = ox_arena_strdup(&b->arena, v->name))))
        return NULL;
    return nv;
}

/* The body of a new function (domain, name) from the group: copies of its
 * nodes (attributes shared with g, which owns the body and outlives it). */
static int build_body(fx *x, const group *gr, const char *name)
{
    ox_graph *g = x->g;
    char *domain = ox_arena_strndup(&g->arena, gr->type->domain, gr->type->domain_len);
    ox_function *f = domain ? ox_graph_add_function(g, domain, name) : NULL;
    if (!f)
        return -1;
    ox_graph *b = f->body;
    /* the body imports the domains its nodes use, at the model's versions
     * (an inner function's domain was added to the model when it was made) */
    if (ox_graph_set_opset(b, "", ox_graph_opset(g, "")) != 0)
        return -1;
    for (size_t k = 0; k < gr->n; k++) {
        const char *d = gr->nodes[k]->domain;
        if (d && d[0] && ox_graph_set_opset(b, d, ox_graph_opset(g, d)) != 0)
            return -1;
    }
    for (size_t i = 0; i < x->n_ins; i++) {
        ox_value *nv = copy_value(b, g->values[x->ins[i]], OX_VAL_INPUT);
        if (!nv || ox_graph_add_input(b, nv->id) != 0)
            return -1;
        x->v_body[x->ins[i]] = nv->id;
    }
    ox_vid stack_ins[16];
    for (size_t k = 0; k < gr->n; k++) {
        const ox_node *n = gr->nodes[k];
        ox_vid *ins = n->n_inputs <= 16 ? stack_ins : malloc(n->n_inputs * sizeof(*ins));
        if (!ins)
            return -1;
        for (uint32_t i = 0; i < n->n_inputs; i++)
            ins[i] = n->inputs[i] ? x->v_body[n->inputs[i]] : 0;
        ox_node *bn = ox_graph_add_node(b, n->kind, n->n_inputs, ins, 0);
        if (ins != stack_ins)
            free(ins);
        if (!bn || ox_node_set_kind(b, bn, n->domain, n->op_type) != 0 ||
            (n->n_outputs && ox_node_set_outputs(b, bn, n->n_outputs, NULL) != 0))
            return -1;
        bn->name = n->name;
        bn->scope = n->scope;
        bn->doc = n->doc;
        bn->attrs = n->attrs;
        bn->n_attrs = n->n_attrs;
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            if (!n->outputs[i])
                continue;
            ox_value *nv = copy_value(b, g->values[n->outputs[i]], OX_VAL_NODE);
            if (!nv)
                return -1;
            ox_node_set_output(b, bn, i, nv->id);
            x->v_body[n->outputs[i]] = nv->id;
        }
    }
    for (size_t i = 0; i < x->n_outs; i++)
        if (ox_graph_add_output(b, x->v_body[x->outs[i]]) != 0)
            return -1;
    /* an outer function's body names this one's domain */
    return ox_graph_set_opset(g, domain, 1);
}

/* The function the group calls: an existing one of its type with the same
 * body, else a new one.  Its index in g->functions, or -1 out of memory. */
static long function_for(fx *x, const group *gr)
{
    ox_graph *g = x->g;
    unsigned same_type = 0;
    for (uint32_t i = 0; i < g->n_functions; i++) {
        if (x->fn_origin[i] != gr->type)
            continue;
        if (same_body(x, gr, g->functions[i].body))
            return i;
        same_type++;
    }
    const char *name = same_type ? ox_arena_printf(&g->arena, "%s_%u", gr->type->type, same_type)
                                 : gr->type->type;
    if (g->n_functions == x->fn_cap) {
        size_t cap = x->fn_cap ? x->fn_cap * 2 : 8;
        const fn_type **o = realloc(x->fn_origin, cap * sizeof(*o));
        if (!o)
            return -1;
        x->fn_origin = o;
        x->fn_cap = cap;
    }
    if (!name || build_body(x, gr, name) != 0)
        return -1;
    x->fn_origin[g->n_functions - 1] = gr->type;
    return (long)g->n_functions - 1;
}

/* The group's nodes give way to one call node.  A group that is not convex
 * is cut before the first node that reads back what it computed, and each
 * part replaced on its own (each a call of the module). */
static ox_status replace(fx *x, const group *whole)
{
    ox_graph *g = x->g;
    group part = *whole; /* what is left to replace (whole->nodes stays the array to free) */
    group *gr = &part;
    for (;;) {
        x->serial++;
        if (grow_nodes(x) != 0)
            return oom(x);
        long conv = signature(x, gr);
        if (conv < 0)
            return oom(x);
        if (conv == 0)
            break;
        if (conv == 1) /* its first node cannot read back what it computed */
            return ox_fail(x->ctx, OX_EINVAL, "internal error: module '%s' reads back its own "
                           "values at its first node", gr->key);
        group head = *gr;
        head.n = (size_t)(conv - 1);
        ox_status st = replace(x, &head); /* convex: it reads nothing tainted */
        if (st != OX_OK)
            return st;
        gr->nodes += head.n;
        gr->n -= head.n;
    }
    long fi = function_for(x, gr);
    if (fi < 0)
        return oom(x);
    const ox_function *f = &g->functions[fi];
    ox_node *first = gr->nodes[0], *last = gr->nodes[gr->n - 1];
    ox_node *call = ox_graph_add_node(g, "local::call", (uint32_t)x->n_ins, x->ins, 0);
    if (!call || ox_node_set_kind(g, call, f->domain, f->name) != 0)
        return oom(x);
    call->scope = gr->key;
    /* The call takes the place of the group's last node: everything it reads
     * comes before.  The outside nodes in between that read the group
     * (signature() marked them) move after it, in their order. */
    ox_graph_move_after(g, last, call);
    ox_node *at = call;
    for (ox_node *n = first, *next; n && n != last; n = next) {
        next = n->next;
        if (!in_group(x, n) && x->node_taint[n->id] == x->serial) {
            ox_graph_move_after(g, at, n);
            at = n;
        }
    }
    for (size_t k = gr->n; k-- > 0;)
        ox_graph_remove_node(g, gr->nodes[k]);
    if (x->n_outs && ox_node_set_outputs(g, call, (uint32_t)x->n_outs, x->outs) != 0)
        return oom(x);
    return OX_OK;
}

/* ----------------------------------------------------------------- levels */

static ox_status run_level(fx *x, uint32_t level)
{
    ox_graph *g = x->g;
    ox_strmap index;
    group *groups = NULL;
    size_t n_groups = 0, cap_groups = 0;
    ox_status st = OX_OK;
    if (ox_strmap_init(&index, 16) != 0)
        return oom(x);
    for (ox_node *n = g->first; n && st == OX_OK; n = n->next) {
        size_t start = 0, end = n->scope ? segment_end(n->scope, level, &start) : 0;
        const fn_type *t = end ? selected(x, n->scope + start, end - start) : NULL;
        if (!t)
            continue;
        uint64_t *gi = ox_strmap_findn(&index, n->scope, end);
        if (!gi) {
            if (n_groups == cap_groups) {
                size_t cap = cap_groups ? cap_groups * 2 : 8;
                group *ng = realloc(groups, cap * sizeof(*ng));
                if (!ng) {
                    st = oom(x);
                    break;
                }
                groups = ng;
                cap_groups = cap;
            }
            group *gr = &groups[n_groups];
            memset(gr, 0, sizeof *gr);
            gr->type = t;
            if (!(gr->key = ox_arena_strndup(&g->arena, n->scope, end)) ||
                ox_strmap_put(&index, gr->key, n_groups) < 0) {
                st = oom(x);
                break;
            }
            n_groups++;
            gi = ox_strmap_find(&index, gr->key);
        }
        group *gr = &groups[*gi];
        if (gr->n == gr->cap) {
            size_t cap = gr->cap ? gr->cap * 2 : 8;
            ox_node **nn = realloc(gr->nodes, cap * sizeof(*nn));
            if (!nn) {
                st = oom(x);
                break;
            }
            gr->nodes = nn;
            gr->cap = cap;
        }
        gr->nodes[gr->n++] = n;
    }
    for (size_t i = 0; i < n_groups && st == OX_OK; i++)
        st = replace(x, &groups[i]);
    for (size_t i = 0; i < n_groups; i++)
        free(groups[i].nodes);
    free(groups);
    ox_strmap_free(&index);
    return st;
}

static ox_status parse_types(fx *x, const char *const *types, size_t n)
{
    x->types = calloc(n, sizeof(*x->types));
    if (!x->types)
        return oom(x);
    for (size_t i = 0; i < n; i++) {
        const char *e = types[i];
        if (!e || !e[0])
            return ox_fail(x->ctx, OX_EINVAL, "function_types[%zu] is %s; name a module type, "
                           "\"domain::Type\" or \"Type\"", i, e ? "empty" : "NULL");
        const char *sep = NULL;
        for (const char *p = strstr(e, "::"); p; p = strstr(p + 2, "::"))
            sep = p;
        fn_type *t = &x->types[x->n_types++];
        t->domain = sep ? e : "local";
        t->domain_len = sep ? (size_t)(sep - e) : 5;
        t->type = sep ? sep + 2 : e;
        if (!t->type[0] || strpbrk(t->type, "[]/") || (sep && sep == e))
            return ox_fail(x->ctx, OX_EINVAL, "function_types[%zu] is \"%s\"; name a module type, "
                           "\"domain::Type\" or \"Type\" (no '[', ']' or '/')", i, e);
    }
    return OX_OK;
}

ox_status ox_functions_extract(ox_context *ctx, ox_graph *g, int opset,
                               const char *const *types, size_t n_types, ox_report *notes)
{
    if (!n_types)
        return OX_OK;
    if (!types)
        return ox_fail(ctx, OX_EINVAL, "ox_export: n_function_types is %zu but function_types is "
                       "NULL", n_types);
    if (opset < OX_FUNCTIONS_MIN_OPSET)
        return ox_fail(ctx, OX_EINVAL, "ox_export: model-local functions need opset %d or newer "
                       "(IR version 8); the export targets opset %d", OX_FUNCTIONS_MIN_OPSET, opset);
    fx x;
    memset(&x, 0, sizeof x);
    x.ctx = ctx;
    x.g = g;
    ox_status st = parse_types(&x, types, n_types);
    size_t nv = g->n_values ? g->n_values : 1;
    uint32_t **per_value[] = {&x.v_serial, &x.v_slot, &x.v_uses_serial, &x.v_uses, &x.v_body};
    for (size_t i = 0; st == OX_OK && i < 5; i++)
        if (!(*per_value[i] = calloc(nv, sizeof(uint32_t))))
            st = oom(&x);
    uint32_t depth = 0;
    for (const ox_node *n = g->first; n; n = n->next) {
        uint32_t d = scope_depth(n->scope);
        depth = d > depth ? d : depth;
    }
    /* segment 0 is the model itself: never a function */
    for (uint32_t level = depth; st == OX_OK && level >= 1; level--)
        st = run_level(&x, level);
    /* Each call took its group's place, with the group's readers moved after
     * it; sibling instances interleaved in the list could still leave a call
     * before a value it reads, so the order is settled once more (O(nodes)). */
    if (st == OX_OK && g->n_functions)
        st = ox_pass_toposort(ctx, g);
    for (size_t i = 0; st == OX_OK && notes && i < x.n_types; i++) {
        if (x.types[i].seen)
            continue;
        if (g->name && strcmp(g->name, x.types[i].type) == 0)
            ox_report_add(notes, "function type '%s' is the model itself, which is never a "
                          "function; name the types of modules inside it", types[i]);
        else
            ox_report_add(notes, "function type '%s' names no module of the model (no scope "
                          "segment '%s[...]'), so no function was made for it", types[i],
                          x.types[i].type);
    }
    for (size_t i = 0; i < 5; i++)
        free(*per_value[i]);
    free(x.node_serial);
    free(x.node_taint);
    free(x.node_pos);
    free(x.fn_origin);
    free(x.ins);
    free(x.outs);
    free(x.types);
    return st;
}
