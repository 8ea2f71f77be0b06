/*
 * Identity removal, dead-code elimination, topological sort and naming
 * (pipeline.c decides when each runs).
 * Each pass touches every node and edge a constant number of times: graphs
 * reach millions of nodes, so nothing here rescans the graph per node.
 */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static ox_status pass_oom(ox_context *ctx, const char *pass)
{
    return ox_fail(ctx, OX_ENOMEM, "out of memory in the %s pass", pass);
}

/* Nodes in list order, in an array (passes remove nodes while iterating).
 * One walk of the list, sized by the graph's node count and grown if a
 * caller moved nodes without keeping the count: on a graph past the cache,
 * each walk costs a memory load per node. */
static ox_node **node_array(const ox_graph *g, size_t *n)
{
    *n = 0; /* callers size their other arrays by it before checking for NULL */
    size_t cap = (size_t)g->n_nodes + 1, count = 0;
    ox_node **a = malloc(cap * sizeof(*a));
    if (!a)
        return NULL;
    for (ox_node *x = g->first; x; x = x->next) {
        if (count == cap) {
            ox_node **bigger = realloc(a, 2 * cap * sizeof(*a));
            if (!bigger) {
                free(a);
                return NULL;
            }
            a = bigger;
            cap *= 2;
        }
        a[count++] = x;
    }
    *n = count;
    return a;
}

/* ------------------------------------------------------ identity removal */

static bool is_false_constant(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    if (!x || x->kind != OX_VAL_NODE || !x->producer)
        return false;
    const ox_node *p = x->producer;
    if (p->domain[0] || strcmp(p->op_type, "Constant") != 0)
        return false;
    const ox_attr *a = ox_node_attr(p, "value");
    if (!a || a->kind != OX_ATTR_TENSOR || !a->u.t || a->u.t->data.nbytes != 1 ||
        a->u.t->dtype != OX_BOOL)
        return false;
    return ((const unsigned char *)a->u.t->data.data)[0] == 0;
}

static bool value_dead(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    return !x || (!x->n_uses && !x->is_output && !x->observed);
}

/* The input a pass-through node forwards, or 0 when it must stay. */
static ox_vid forwarded_input(const ox_graph *g, const ox_node *n)
{
    if (n->domain[0] || n->n_outputs < 1 || n->n_inputs < 1 || !n->inputs[0])
        return 0;
    ox_value *out = ox_graph_value(g, n->outputs[0]);
    if (!out || out->is_output || out->observed)
        return 0;
    /* ox_str_eq: the first letters compared inline, as the survey asks
     * this of every node and nearly all are neither */
    if (ox_str_eq(n->op_type, "Identity"))
        return n->n_inputs == 1 && n->n_outputs == 1 ? n->inputs[0] : 0;
    if (!ox_str_eq(n->op_type, "Dropout"))
        return 0;
    /* eval mode: no training_mode input (opset 12+), or a constant false one,
     * and the mask output unused */
    if (n->n_inputs >= 3 && n->inputs[2] && !is_false_constant(g, n->inputs[2]))
        return 0;
    if (n->n_outputs >= 2 && !value_dead(g, n->outputs[1]))
        return 0;
    const ox_attr *a = ox_node_attr(n, "is_test"); /* opset < 7 spelling: keep it honest */
    if (a && a->kind == OX_ATTR_INT && a->u.i == 0)
        return 0;
    return n->inputs[0];
}

static ox_vid resolve(ox_vid *remap, ox_vid v)
{
    ox_vid r = v;
    while (remap[r])
        r = remap[r];
    /* path compression keeps chains of identities linear overall */
    while (remap[v] && remap[v] != r) {
        ox_vid next = remap[v];
        remap[v] = r;
        v = next;
    }
    return r;
}

ox_status ox_pass_remove_identity(ox_context *ctx, ox_graph *g)
{
    ox_vid *remap = NULL;
    ox_node **dead = NULL;
    size_t n_dead = 0, cap_dead = 0;
    for (ox_node *n = g->first; n; n = n->next) {
        ox_vid in = forwarded_input(g, n);
        if (!in)
            continue;
        if (!remap && !(remap = calloc(g->n_values, sizeof(*remap))))
            goto oom;
        if (n_dead == cap_dead) {
            size_t ncap = cap_dead ? cap_dead * 2 : 16;
            ox_node **nd = realloc(dead, ncap * sizeof(*nd));
            if (!nd)
                goto oom;
            dead = nd;
            cap_dead = ncap;
        }
        remap[n->outputs[0]] = in;
        dead[n_dead++] = n;
    }
    if (!n_dead)
        return OX_OK;
    for (ox_node *n = g->first; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_vid v = n->inputs[i];
            if (!v || !remap[v])
                continue;
            ox_node_redirect_input(g, n, i, resolve(remap, v));
        }
    }
    for (size_t i = 0; i < n_dead; i++)
        ox_graph_remove_node(g, dead[i]);
    free(remap);
    free(dead);
    return OX_OK;
oom:
    free(remap);
    free(dead);
    return pass_oom(ctx, "identity removal");
}

/* ------------------------------------------------------------------ DCE */

static bool node_dead(const ox_graph *g, const ox_node *n)
{
    for (uint32_t i = 0; i < n->n_outputs; i++)
        if (!value_dead(g, n->outputs[i]))
            return false;
    return true;
}

ox_status ox_pass_dce(ox_context *ctx, ox_graph *g)
{
    unsigned char *removed = calloc(g->next_node_id ? g->next_node_id : 1, 1);
    ox_node **stack = NULL;
    size_t cap = 0;
    if (!removed)
        return pass_oom(ctx, "dead-code elimination");
    /* One reverse sweep of the list; a removal that frees a producer out of
     * order (the list is not sorted yet) queues it, so every node is looked
     * at O(1) times.  The cursor steps past a node before it is removed, and
     * a live node's prev is always live, so no array of the nodes is needed. */
    ox_node *cursor = g->last;
    while (cursor) {
        ox_node *k = cursor;
        cursor = k->prev;
        if (removed[k->id] || !node_dead(g, k))
            continue;
        size_t top = 0;
        if (!cap && !(stack = malloc((cap = 64) * sizeof(*stack))))
            goto oom;
        stack[top++] = k;
        removed[k->id] = 1;
        while (top) {
            ox_node *x = stack[--top];
            if (x == cursor)
                cursor = x->prev;
            ox_graph_remove_node(g, x);
            for (uint32_t i = 0; i < x->n_inputs; i++) {
                ox_value *v = ox_graph_value(g, x->inputs[i]);
                if (!v || v->n_uses || v->is_output || v->observed || v->kind != OX_VAL_NODE ||
                    !v->producer)
                    continue;
                ox_node *p = v->producer;
                if (removed[p->id] || !node_dead(g, p))
                    continue;
                if (top == cap) {
                    ox_node **bigger = realloc(stack, 2 * cap * sizeof(*stack));
                    if (!bigger)
                        goto oom;
                    stack = bigger;
                    cap *= 2;
                }
                removed[p->id] = 1;
                stack[top++] = p;
            }
        }
    }
    free(removed);
    free(stack);
    ox_graph_drop_unused_params(g); /* unused parameters are not written */
    return OX_OK;
oom:
    free(removed);
    free(stack);
    return pass_oom(ctx, "dead-code elimination");
}

/* ------------------------------------------------------------- toposort */

/* Depth-first from each node in creation order: producers are placed just
 * before their first consumer, everything else keeps its order. */
static ox_status sort(ox_context *ctx, ox_graph *g)
{
    size_t n;
    ox_node **nodes = node_array(g, &n);
    uint32_t idn = g->next_node_id ? g->next_node_id : 1;
    ox_node **by_id = calloc(idn, sizeof(*by_id));
    unsigned char *state = calloc(idn, 1); /* 0 new, 1 on the stack, 2 placed */
    ox_node **stack = malloc((n ? n : 1) * sizeof(*stack));
    uint32_t *next_in = malloc((n ? n : 1) * sizeof(*next_in));
    ox_node **order = malloc((n ? n : 1) * sizeof(*order));
    ox_status st = OX_OK;
    if (!nodes || !by_id || !state || !stack || !next_in || !order) {
        st = pass_oom(ctx, "topological sort");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        by_id[nodes[i]->id] = nodes[i];
    size_t placed = 0;
    for (uint32_t id = 0; id < idn; id++) {
        ox_node *root = by_id[id];
        if (!root || state[id])
            continue;
        size_t top = 0;
        stack[top] = root;
        next_in[top++] = 0;
        state[id] = 1;
        while (top) {
            ox_node *x = stack[top - 1];
            if (next_in[top - 1] < x->n_inputs) {
                ox_value *v = ox_graph_value(g, x->inputs[next_in[top - 1]++]);
                if (!v || v->kind != OX_VAL_NODE || !v->producer)
                    continue;
                ox_node *p = v->producer;
                if (p->id >= idn || by_id[p->id] != p)
                    continue; /* produced by a node no longer in the graph */
                if (state[p->id] == 1) {
                    st = ox_fail(ctx, OX_ECHECK,
                                 "the graph has a cycle: node %u (%s) depends on its own output",
                                 p->id, p->kind);
                    goto done;
                }
                if (state[p->id] == 0) {
                    state[p->id] = 1;
                    stack[top] = p;
                    next_in[top++] = 0;
                }
                continue;
            }
            state[x->id] = 2;
            order[placed++] = x;
            top--;
        }
    }
    ox_graph_set_order(g, order, placed);
done:
    free(nodes);
    free(by_id);
    free(state);
    free(stack);
    free(next_in);
    free(order);
    return st;
}

/* Whether x, after `before` in the list, is where the sort would keep it:
 * its id is larger, and so is every producer's it reads from.  The sort
 * visits nodes in id order and places each after its producers, so a list
 * where every node passes this is a list it leaves as it is. */
static bool in_order_after(const ox_graph *g, const ox_node *before, const ox_node *x)
{
    if (before && x->id <= before->id)
        return false;
    for (uint32_t i = 0; i < x->n_inputs; i++) {
        const ox_value *v = ox_graph_value(g, x->inputs[i]);
        if (v && v->kind == OX_VAL_NODE && v->producer && v->producer->id >= x->id)
            return false;
    }
    return true;
}

/* Traced and converted graphs are built in execution order and nearly
 * always are in order: one checking walk replaces the sort's five arrays and
 * its walks of a graph that may be past the cache. */
ox_status ox_pass_toposort(ox_context *ctx, ox_graph *g)
{
    const ox_node *before = NULL;
    for (const ox_node *x = g->first; x; before = x, x = x->next)
        if (!in_order_after(g, before, x))
            return sort(ctx, g);
    return OX_OK;
}

/* --------------------------------------------------------------- survey */

void ox_pass_survey(const ox_graph *g, ox_graph_survey *s)
{
    s->forwarding = s->dead = s->named = false;
    s->sorted = true;
    const ox_node *before = NULL;
    for (const ox_node *x = g->first; x; before = x, x = x->next) {
        if (s->sorted && !in_order_after(g, before, x))
            s->sorted = false;
        if (!s->dead && node_dead(g, x))
            s->dead = true;
        if (!s->forwarding && forwarded_input(g, x))
            s->forwarding = true;
        s->named = s->named || x->name;
        for (uint32_t i = 0; !s->named && i < x->n_outputs; i++) {
            const ox_value *v = ox_graph_value(g, x->outputs[i]);
            s->named = v && v->name;
        }
    }
}

/* --------------------------------------------------------------- naming */

/* The ox_strset of names holds the names fixed before numbering (given
 * names, and suffixed ones derived from them).  Generated names are unique by
 * construction (a counter), so only they are checked against this set: it
 * stays small and cache-resident even when the graph has millions of values. */

const char *ox_name_claim(ox_arena *a, ox_strset *s, const char *base)
{
    int r = ox_strset_add(s, base);
    if (r)
        return r > 0 ? base : NULL;
    for (unsigned long k = 1;; k++) {
        char *nm = ox_arena_printf(a, "%s_%lu", base, k);
        if (!nm || (r = ox_strset_add(s, nm)) < 0)
            return NULL;
        if (r)
            return nm;
    }
}

/* Decimal digits of v at the end of buf[24]; returns the first digit. */
static char *utoa(unsigned long v, char *end)
{
    *--end = '\0';
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* Whether s is a number as utoa writes one, the only names a generated one
 * can collide with (one past what the counter reaches never does). */
static bool is_number_name(const char *s)
{
    size_t unused;
    return ox_str_number(s, SIZE_MAX, SIZE_MAX, &unused);
}

/* The next number no given name took, as a name (`given` holds a number
 * name only when numbered_given says so).  NULL on OOM. */
static const char *next_number(ox_graph *g, const ox_strset *given, bool numbered_given,
                               unsigned long *counter)
{
    char buf[24];
    const char *p;
    do
        p = utoa((*counter)++, buf + sizeof buf);
    while (numbered_given && ox_strset_has(given, p));
    return ox_arena_memdup(&g->arena, p, (size_t)(buf + sizeof buf - p));
}

/* "<OpType>_<n>" unless a given node name took it. */
static const char *node_name(ox_graph *g, ox_strset *given, const char *op_type, unsigned long n)
{
    char num[24];
    const char *digits = utoa(n, num + sizeof num);
    size_t lo = strlen(op_type), ld = (size_t)(num + sizeof num - digits);
    char *nm = ox_arena_alloc(&g->arena, lo + 1 + ld);
    if (!nm)
        return NULL;
    memcpy(nm, op_type, lo);
    nm[lo] = '_';
    memcpy(nm + lo + 1, digits, ld);
    /* without given node names there is nothing to collide with */
    return given->n && ox_strset_has(given, nm) ? ox_name_claim(&g->arena, given, nm) : nm;
}

static ox_status name_graph(ox_context *ctx, ox_graph *g, bool names_on_nodes)
{
    ox_strset values = {0}, nodes = {0};
    ox_status st = OX_OK;
    unsigned long counter = 0;
    bool numbered = false; /* a given name is a number: generated ones must skip it */
    /* Given names first, in declaration order, so they win collisions. */
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t n = pass ? g->n_params : g->n_inputs;
        const ox_vid *ids = pass ? g->params : g->inputs;
        for (uint32_t i = 0; i < n; i++) {
            ox_value *v = ox_graph_value(g, ids[i]);
            if (v && v->name && !(v->name = ox_name_claim(&g->arena, &values, v->name)))
                goto oom;
            numbered = numbered || (v && v->name && is_number_name(v->name));
        }
    }
    for (ox_node *n = names_on_nodes ? g->first : NULL; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_value *v = ox_graph_value(g, n->outputs[i]);
            if (v && v->name && !(v->name = ox_name_claim(&g->arena, &values, v->name)))
                goto oom;
            numbered = numbered || (v && v->name && is_number_name(v->name));
        }
        if (n->name && !(n->name = ox_name_claim(&g->arena, &nodes, n->name)))
            goto oom;
    }
    /* Unnamed inputs and parameters take their position's number. */
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t n = pass ? g->n_params : g->n_inputs;
        const ox_vid *ids = pass ? g->params : g->inputs;
        for (uint32_t i = 0; i < n; i++, counter++) {
            ox_value *v = ox_graph_value(g, ids[i]);
            if (v && !v->name) {
                unsigned long c = counter;
                if (!(v->name = next_number(g, &values, numbered, &c)))
                    goto oom;
            }
        }
    }
    unsigned long node_counter = 0;
    for (ox_node *n = g->first; n; n = n->next, node_counter++) {
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_value *v = ox_graph_value(g, n->outputs[i]);
            if (v && !v->name && !(v->name = next_number(g, &values, numbered, &counter)))
                goto oom;
        }
        if (!n->name && !(n->name = node_name(g, &nodes, n->op_type, node_counter)))
            goto oom;
    }
    goto done;
oom:
    st = pass_oom(ctx, "naming");
done:
    ox_strset_free(&values);
    ox_strset_free(&nodes);
    return st;
}

ox_status ox_pass_name(ox_context *ctx, ox_graph *g)
{
    return name_graph(ctx, g, true);
}

ox_status ox_pass_name_unnamed_nodes(ox_context *ctx, ox_graph *g)
{
    return name_graph(ctx, g, false);
}
