#include "ir.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* ir.h orders ox_value's fields to fit this; a field added in the wrong
 * place would cost every value of every graph 16 bytes. */
_Static_assert(sizeof(void *) != 8 || sizeof(ox_value) == 112, "ox_value grew past 112 bytes");

/* Grow a malloc'd vector of ox_vid; the vectors live outside the arena
 * because they are resized, and are freed with the graph. */
static int vid_push(ox_vid **v, uint32_t *n, uint32_t *cap, ox_vid x)
{
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        ox_vid *nv = realloc(*v, (size_t)ncap * sizeof(**v));
        if (!nv)
            return -1;
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = x;
    return 0;
}

ox_graph *ox_graph_new(const char *name)
{
    ox_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    ox_arena_init(&g->arena);
    g->name = ox_arena_strdup(&g->arena, name ? name : "");
    g->n_values = 1; /* id 0 is "no value" */
    g->cap_values = 64;
    g->values = calloc(g->cap_values, sizeof(*g->values));
    if (!g->name || !g->values) {
        ox_graph_free(g);
        return NULL;
    }
    return g;
}

void ox_graph_free(ox_graph *g)
{
    if (!g)
        return;
    for (uint32_t i = 1; i < g->n_values; i++) {
        ox_value *v = g->values[i];
        /* owned tensor bytes larger than a page are malloc'd, see ox_tensor_own */
        if (v && v->tensor.owned && v->tensor.data && v->tensor.nbytes >= OX_IR_MALLOC_THRESHOLD)
            free((void *)v->tensor.data);
    }
    free(g->values);
    free(g->inputs);
    free(g->params);
    free(g->outputs);
    free(g->consts);
    free(g->observed);
    free(g->opsets);
    ox_strmap_free(&g->opset_index);
    for (uint32_t i = 0; i < g->n_functions; i++)
        ox_graph_free(g->functions[i].body);
    free(g->functions);
    for (uint32_t i = 0; i < g->n_bodies; i++)
        ox_graph_free(g->bodies[i]);
    free(g->bodies);
    if (g->mapping_free)
        g->mapping_free(g->mapping, g->mapping_len);
    ox_strmap_free(&g->kinds);
    ox_strmap_free(&g->arg_names);
    ox_arena_free(&g->arena);
    free(g);
}

ox_value *ox_graph_add_value(ox_graph *g, ox_value_kind kind, ox_dtype dtype, int32_t rank,
                             const int64_t *dims)
{
    if (g->n_values == UINT32_MAX)
        return NULL;
    if (g->n_values == g->cap_values) {
        uint32_t ncap = g->cap_values * 2;
        ox_value **nv = realloc(g->values, (size_t)ncap * sizeof(*nv));
        if (!nv)
            return NULL;
        g->values = nv;
        g->cap_values = ncap;
    }
    ox_value *v = ox_arena_alloc(&g->arena, sizeof(*v));
    if (!v)
        return NULL;
    v->id = g->n_values;
    v->kind = kind;
    v->type.dtype = dtype;
    v->type.rank = rank;
    if (rank > 0) {
        v->type.dims = ox_arena_alloc(&g->arena, (size_t)rank * sizeof(int64_t));
        if (!v->type.dims)
            return NULL;
        for (int32_t i = 0; i < rank; i++)
            v->type.dims[i] = dims ? dims[i] : -1;
    }
    if (kind == OX_VAL_CONST && vid_push(&g->consts, &g->n_consts, &g->cap_consts, g->n_values) != 0)
        return NULL;
    g->values[g->n_values++] = v;
    return v;
}

int ox_value_set_type(ox_graph *g, ox_value *v, ox_dtype dtype, int32_t rank, const int64_t *dims)
{
    v->type.dtype = dtype;
    v->type.dim_params = NULL;
    if (rank <= 0) {
        v->type.rank = rank;
        v->type.dims = NULL;
        return 0;
    }
    int64_t *d = ox_arena_alloc(&g->arena, (size_t)rank * sizeof(int64_t));
    if (!d)
        return -1;
    for (int32_t i = 0; i < rank; i++)
        d[i] = dims ? dims[i] : -1;
    v->type.rank = rank;
    v->type.dims = d;
    return 0;
}

int ox_value_set_dim_param(ox_graph *g, ox_value *v, uint32_t axis, const char *name)
{
    if (v->type.rank <= 0 || axis >= (uint32_t)v->type.rank)
        return -1;
    if (!v->type.dim_params) {
        v->type.dim_params = ox_arena_alloc(&g->arena, (size_t)v->type.rank * sizeof(char *));
        if (!v->type.dim_params)
            return -1;
    }
    v->type.dim_params[axis] = name ? ox_arena_strdup(&g->arena, name) : NULL;
    return 0;
}

const char *ox_graph_arg_name(ox_graph *g, const char *name)
{
    const uint64_t *known = ox_strmap_find(&g->arg_names, name);
    if (known)
        return (const char *)(uintptr_t)*known;
    char *copy = ox_arena_strdup(&g->arena, name);
    /* a table that cannot grow only costs the sharing */
    if (copy)
        (void)ox_strmap_put(&g->arg_names, copy, (uint64_t)(uintptr_t)copy);
    return copy;
}

/* Kinds up to this length are looked up in the graph's table before one is
 * made; a longer one (a custom domain's, say) gets a string of its own. */
#define KIND_INTERN_MAX 256

/* kind = "<domain>::<op>" in the arena, with the node's domain ("" for
 * onnx) and op_type pointing into it: one allocation for the three, made
 * once per kind of the graph (ox_graph.kinds). */
static int set_kind(ox_graph *g, ox_node *n, const char *domain, size_t dlen, const char *op,
                    size_t olen)
{
    bool onnx = dlen == 4 && memcmp(domain, "onnx", 4) == 0;
    size_t kind_len = dlen + 2 + olen;
    char buf[KIND_INTERN_MAX];
    const uint64_t *known = NULL;
    if (kind_len < sizeof buf) {
        memcpy(buf, domain, dlen);
        memcpy(buf + dlen, "::", 2);
        memcpy(buf + dlen + 2, op, olen);
        buf[kind_len] = '\0';
        known = ox_strmap_find(&g->kinds, buf);
    }
    char *k = known ? (char *)(uintptr_t)*known
                    : ox_arena_alloc(&g->arena, kind_len + 1 + (onnx ? 0 : dlen + 1));
    if (!k)
        return -1;
    if (!known) {
        memcpy(k, domain, dlen);
        memcpy(k + dlen, "::", 2);
        memcpy(k + dlen + 2, op, olen);
        k[kind_len] = '\0';
        if (!onnx) {
            memcpy(k + kind_len + 1, domain, dlen);
            k[kind_len + 1 + dlen] = '\0';
        }
        /* a table that cannot grow only costs the sharing */
        if (kind_len < sizeof buf)
            (void)ox_strmap_put(&g->kinds, k, (uint64_t)(uintptr_t)k);
    }
    n->kind = k;
    n->op_type = k + dlen + 2;
    n->domain = onnx ? "" : k + kind_len + 1;
    return 0;
}

/* Split "domain::op" into domain ("" for onnx) and op_type; a kind without
 * "::" is its own op_type, in the default domain. */
static int split_kind(ox_graph *g, ox_node *n, const char *kind)
{
    const char *sep = strstr(kind, "::");
    if (sep)
        return set_kind(g, n, kind, (size_t)(sep - kind), sep + 2, strlen(sep + 2));
    n->kind = ox_arena_strdup(&g->arena, kind);
    if (!n->kind)
        return -1;
    n->domain = "";
    n->op_type = n->kind;
    return 0;
}

/* The rest of a new node, once its kind is set. */
static ox_node *finish_node(ox_graph *g, ox_node *n, uint32_t n_inputs, const ox_vid *inputs,
                            uint32_t n_outputs)
{
    n->id = g->next_node_id++;
    n->scope = "";
    if (n_inputs) {
        n->inputs = ox_arena_alloc(&g->arena, (size_t)n_inputs * sizeof(ox_vid));
        if (!n->inputs)
            return NULL;
        for (uint32_t i = 0; i < n_inputs; i++) {
            n->inputs[i] = inputs ? inputs[i] : 0;
            ox_value *v = ox_graph_value(g, n->inputs[i]);
            if (v)
                v->n_uses++;
        }
    }
    n->n_inputs = n_inputs;
    if (ox_node_set_outputs(g, n, n_outputs, NULL) != 0)
        return NULL;
    for (uint32_t i = 0; i < n_outputs; i++) {
        ox_value *v = ox_graph_add_value(g, OX_VAL_NODE, OX_UNDEFINED, -1, NULL);
        if (!v)
            return NULL;
        ox_node_set_output(g, n, i, v->id);
    }
    ox_graph_append_node(g, n);
    g->n_nodes++;
    return n;
}

ox_node *ox_graph_add_node(ox_graph *g, const char *kind, uint32_t n_inputs, const ox_vid *inputs,
                           uint32_t n_outputs)
{
    ox_node *n = ox_arena_alloc(&g->arena, sizeof(*n));
    if (!n || split_kind(g, n, kind) != 0)
        return NULL;
    return finish_node(g, n, n_inputs, inputs, n_outputs);
}

/* Whether kind is "<domain>::<op>", compared byte by byte in place: the
 * check that lets a kind hint (ox_graph.kind_hints) stand in for the table
 * lookup.  Returns op_type's position in kind, or NULL. */
static const char *kind_hint_matches(const char *kind, const char *domain, const char *op)
{
    const char *k = kind;
    while (*domain && *k == *domain)
        k++, domain++;
    if (*domain || k[0] != ':' || k[1] != ':')
        return NULL;
    const char *op_type = k += 2;
    while (*op && *k == *op)
        k++, op++;
    return *op || *k ? NULL : op_type;
}

ox_node *ox_graph_add_node_op(ox_graph *g, const char *domain, const char *op_type,
                              uint32_t n_inputs, const ox_vid *inputs, uint32_t n_outputs)
{
    ox_node *n = ox_arena_alloc(&g->arena, sizeof(*n));
    if (!n)
        return NULL;
    struct ox_kind_hint *h = &g->kind_hints[((uintptr_t)op_type >> 3) & 15];
    const char *op_in_kind = h->op_arg == op_type && h->kind
                                 ? kind_hint_matches(h->kind, domain, op_type)
                                 : NULL;
    if (op_in_kind) {
        /* set_kind's layout: a non-onnx domain is kept after the kind */
        bool onnx = op_in_kind - h->kind == 6 && memcmp(h->kind, "onnx", 4) == 0;
        n->kind = h->kind;
        n->op_type = op_in_kind;
        n->domain = onnx ? "" : op_in_kind + strlen(op_in_kind) + 1;
        /* the same kind string: the row noted under it names this node's
         * operator and domain too (ox_node.schema_kind) */
        if (h->last && h->last->schema_row && h->last->schema_kind == n->kind) {
            n->schema_row = h->last->schema_row;
            n->schema_kind = n->kind;
        }
    } else {
        if (set_kind(g, n, domain, strlen(domain), op_type, strlen(op_type)) != 0)
            return NULL;
        h->op_arg = op_type;
        h->kind = n->kind;
    }
    h->last = n;
    return finish_node(g, n, n_inputs, inputs, n_outputs);
}

void ox_graph_remove_node(ox_graph *g, ox_node *n)
{
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        ox_value *v = ox_graph_value(g, n->inputs[i]);
        if (v && v->n_uses)
            v->n_uses--;
    }
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        ox_value *v = ox_graph_value(g, n->outputs[i]);
        if (v && v->producer == n)
            v->producer = NULL;
    }
    ox_graph_unlink_node(g, n);
    g->n_nodes--;
}

void ox_graph_unlink_node(ox_graph *g, ox_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    n->prev = n->next = NULL;
}

void ox_graph_move_after(ox_graph *g, ox_node *after, ox_node *n)
{
    if (n == after)
        return;
    if (n->prev || n->next || g->first == n)
        ox_graph_unlink_node(g, n);
    n->prev = after;
    n->next = after->next;
    if (after->next)
        after->next->prev = n;
    else
        g->last = n;
    after->next = n;
}

void ox_graph_append_node(ox_graph *g, ox_node *n)
{
    n->next = NULL;
    n->prev = g->last;
    if (g->last)
        g->last->next = n;
    else
        g->first = n;
    g->last = n;
}

void ox_graph_set_order(ox_graph *g, ox_node *const *order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        order[i]->prev = i ? order[i - 1] : NULL;
        order[i]->next = i + 1 < n ? order[i + 1] : NULL;
    }
    g->first = n ? order[0] : NULL;
    g->last = n ? order[n - 1] : NULL;
}

void ox_graph_replace_uses(ox_graph *g, ox_vid from, ox_vid to)
{
    ox_value *vf = ox_graph_value(g, from);
    ox_value *vt = ox_graph_value(g, to);
    if (!vf || !vt || from == to)
        return;
    for (ox_node *n = g->first; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            if (n->inputs[i] == from) {
                n->inputs[i] = to;
                vf->n_uses--;
                vt->n_uses++;
            }
        }
        for (uint32_t i = 0; i < n->n_args; i++) {
            ox_targ *a = &n->args[i];
            if (a->kind == OX_ARG_TENSOR && a->u.tensor == from)
                a->u.tensor = to;
            else if (a->kind == OX_ARG_TENSOR_LIST)
                for (size_t k = 0; k < a->u.tensors.n; k++)
                    if (a->u.tensors.p[k] == from)
                        a->u.tensors.p[k] = to;
        }
    }
    for (uint32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == from)
            g->outputs[i] = to;
}

void ox_node_redirect_input(ox_graph *g, ox_node *n, uint32_t i, ox_vid to)
{
    ox_value *from = ox_graph_value(g, n->inputs[i]);
    ox_value *dest = ox_graph_value(g, to);
    if (from && from->n_uses)
        from->n_uses--;
    if (dest)
        dest->n_uses++;
    n->inputs[i] = to;
}

int ox_node_set_outputs(ox_graph *g, ox_node *n, uint32_t n_outputs, const ox_vid *outs)
{
    ox_vid *o = NULL;
    if (n_outputs && !(o = ox_arena_alloc(&g->arena, (size_t)n_outputs * sizeof(*o))))
        return -1;
    n->outputs = o;
    n->n_outputs = n_outputs;
    for (uint32_t i = 0; i < n_outputs; i++) {
        o[i] = 0;
        if (outs)
            ox_node_set_output(g, n, i, outs[i]);
    }
    return 0;
}

void ox_node_set_output(ox_graph *g, ox_node *n, uint32_t i, ox_vid v)
{
    ox_value *x = ox_graph_value(g, v);
    n->outputs[i] = v;
    if (!x)
        return;
    x->kind = OX_VAL_NODE;
    x->producer = n;
    x->producer_index = i;
}

int ox_node_set_kind(ox_graph *g, ox_node *n, const char *domain, const char *op_type)
{
    const char *d = ox_arena_strdup(&g->arena, domain);
    const char *op = ox_arena_strdup(&g->arena, op_type);
    const char *kind = ox_arena_printf(&g->arena, "%s::%s", domain[0] ? domain : "onnx", op_type);
    if (!d || !op || !kind)
        return -1;
    n->domain = d;
    n->op_type = op;
    n->kind = kind;
    return 0;
}

int ox_node_become_constant(ox_graph *g, ox_node *n, ox_attr_tensor *t)
{
    ox_attr *a = ox_arena_alloc(&g->arena, sizeof(*a));
    if (!a || ox_node_set_kind(g, n, "", "Constant") != 0)
        return -1;
    a->name = "value";
    a->kind = OX_ATTR_TENSOR;
    a->u.t = t;
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        ox_value *in = ox_graph_value(g, n->inputs[i]);
        if (in && in->n_uses)
            in->n_uses--;
    }
    n->n_inputs = 0;
    n->attrs = a;
    n->n_attrs = 1;
    ox_value *out = ox_graph_value(g, n->outputs[0]);
    return ox_value_set_type(g, out, t->dtype, (int32_t)t->rank, t->dims);
}

int ox_node_become_constant_copy(ox_graph *g, ox_node *n, ox_dtype dtype, uint32_t rank,
                                 const int64_t *dims, const void *data, uint64_t nbytes)
{
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof(*t));
    int64_t *d = rank ? ox_arena_memdup(&g->arena, dims, rank * sizeof(int64_t)) : NULL;
    void *bytes = nbytes ? ox_arena_memdup(&g->arena, data, nbytes) : ox_arena_alloc(&g->arena, 1);
    if (!t || (rank && !d) || !bytes)
        return -1;
    t->dtype = dtype;
    t->rank = rank;
    t->dims = d;
    t->data.data = bytes;
    t->data.nbytes = nbytes;
    t->data.owned = true;
    t->name = NULL;
    return ox_node_become_constant(g, n, t);
}

int ox_value_become_param(ox_graph *g, ox_vid v)
{
    ox_value *x = ox_graph_value(g, v);
    if (!x || ox_graph_add_param(g, v) != 0)
        return -1;
    x->kind = OX_VAL_PARAM;
    return 0;
}

ox_node *ox_value_become_constant_node(ox_graph *g, ox_vid v)
{
    ox_value *x = ox_graph_value(g, v);
    ox_node *n = x ? ox_graph_add_node(g, "onnx::Constant", 0, NULL, 0) : NULL;
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof(*t));
    ox_attr *a = n ? ox_node_add_attr(g, n, "value", OX_ATTR_TENSOR) : NULL;
    if (!n || !t || !a || ox_node_set_outputs(g, n, 1, &v) != 0)
        return NULL;
    t->dtype = x->type.dtype;
    t->rank = x->type.rank > 0 ? (uint32_t)x->type.rank : 0;
    t->dims = x->type.dims;
    t->data = x->tensor;
    a->u.t = t;
    memset(&x->tensor, 0, sizeof x->tensor);
    return n;
}

int ox_constant_node_become_param(ox_graph *g, ox_node *n)
{
    const ox_attr *a = ox_node_attr(n, "value");
    if (n->domain[0] || strcmp(n->op_type, "Constant") != 0 || n->n_outputs != 1 || !a ||
        a->kind != OX_ATTR_TENSOR || !a->u.t)
        return -1;
    const ox_attr_tensor *t = a->u.t;
    ox_vid v = n->outputs[0];
    ox_value *x = ox_graph_value(g, v);
    if (!x || ox_value_set_type(g, x, t->dtype, (int32_t)t->rank, t->dims) != 0)
        return -1;
    /* a copy the value owns: attribute bytes live in the arena whatever
     * their size, a value's large owned bytes are malloc'd (ox_tensor_own) */
    if (ox_tensor_own(g, &x->tensor, t->data.data, t->data.nbytes) != 0)
        return -1;
    ox_graph_remove_node(g, n); /* clears x's producer */
    return ox_value_become_param(g, v);
}

int ox_graph_add_input(ox_graph *g, ox_vid v)
{
    return vid_push(&g->inputs, &g->n_inputs, &g->cap_inputs, v);
}

int ox_graph_add_param(ox_graph *g, ox_vid v)
{
    return vid_push(&g->params, &g->n_params, &g->cap_params, v);
}

void ox_graph_drop_unused_params(ox_graph *g)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < g->n_params; i++) {
        const ox_value *v = ox_graph_value(g, g->params[i]);
        if (v && (v->n_uses || v->is_output))
            g->params[w++] = g->params[i];
    }
    g->n_params = w;
}

int ox_graph_add_output(ox_graph *g, ox_vid v)
{
    ox_value *val = ox_graph_value(g, v);
    if (!val)
        return -1;
    val->is_output = true;
    return vid_push(&g->outputs, &g->n_outputs, &g->cap_outputs, v);
}

int ox_graph_add_observed(ox_graph *g, const ox_vid *values, uint32_t n, const char *message)
{
    if (g->n_observed == g->cap_observed) {
        uint32_t cap = g->cap_observed ? 2 * g->cap_observed : 8;
        ox_observed *grown = realloc(g->observed, cap * sizeof(*grown));
        if (!grown)
            return -1;
        g->observed = grown;
        g->cap_observed = cap;
    }
    ox_vid *copy = n ? ox_arena_memdup(&g->arena, values, n * sizeof(*values)) : NULL;
    const char *msg = ox_arena_strdup(&g->arena, message ? message : "");
    if ((n && !copy) || !msg)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        ox_value *v = ox_graph_value(g, values[i]);
        if (v)
            v->observed = true;
    }
    g->observed[g->n_observed++] = (ox_observed){copy, n, msg};
    return 0;
}

void ox_graph_clear_observed(ox_graph *g)
{
    for (uint32_t k = 0; k < g->n_observed; k++)
        for (uint32_t i = 0; i < g->observed[k].n_values; i++) {
            ox_value *v = ox_graph_value(g, g->observed[k].values[i]);
            if (v)
                v->observed = false;
        }
    g->n_observed = 0;
}

/* Imports past this many are found through g->opset_index. */
#define OPSET_SCAN_MAX 8

/* The position of domain's import in g->opsets, or -1. */
static int64_t opset_position(const ox_graph *g, const char *domain)
{
    if (g->n_opsets > OPSET_SCAN_MAX && g->opset_index.slots) {
        const uint64_t *i = ox_strmap_find(&g->opset_index, domain);
        if (!i)
            return -1; /* the index holds every domain imported */
        if (*i < g->n_opsets && ox_str_eq(g->opsets[*i].domain, domain))
            return (int64_t)*i;
        /* a stale position (the imports were reordered): scan */
    }
    for (uint32_t i = 0; i < g->n_opsets; i++)
        if (ox_str_eq(g->opsets[i].domain, domain))
            return i;
    return -1;
}

/* Indexes opsets[i] once there are many.  The index holds every domain or
 * is dropped (lookups then scan), so a failure to grow it costs time only. */
static void index_opset(ox_graph *g, uint32_t i)
{
    if (g->n_opsets <= OPSET_SCAN_MAX)
        return;
    bool whole = true;
    if (!g->opset_index.slots) {
        if (ox_strmap_init(&g->opset_index, 2 * (size_t)g->n_opsets) != 0)
            return;
        for (uint32_t k = 0; k < g->n_opsets && whole; k++)
            whole = ox_strmap_put(&g->opset_index, g->opsets[k].domain, k) >= 0;
    } else {
        whole = ox_strmap_put(&g->opset_index, g->opsets[i].domain, i) >= 0;
    }
    if (!whole)
        ox_strmap_free(&g->opset_index);
}

int ox_graph_set_opset(ox_graph *g, const char *domain, int64_t version)
{
    if (!domain || ox_str_eq(domain, "ai.onnx"))
        domain = "";
    int64_t at = opset_position(g, domain);
    if (at >= 0) {
        if (version > g->opsets[at].version)
            g->opsets[at].version = version;
        return 0;
    }
    if (g->n_opsets == g->cap_opsets) {
        uint32_t ncap = g->cap_opsets ? g->cap_opsets * 2 : 4;
        ox_opset_import *no = realloc(g->opsets, (size_t)ncap * sizeof(*no));
        if (!no)
            return -1;
        g->opsets = no;
        g->cap_opsets = ncap;
    }
    const char *d = ox_arena_strdup(&g->arena, domain);
    if (!d)
        return -1;
    g->opsets[g->n_opsets].domain = d;
    g->opsets[g->n_opsets].version = version;
    g->n_opsets++;
    index_opset(g, g->n_opsets - 1);
    return 0;
}

int64_t ox_graph_opset(const ox_graph *g, const char *domain)
{
    if (!domain || ox_str_eq(domain, "ai.onnx"))
        domain = "";
    int64_t at = opset_position(g, domain);
    return at >= 0 ? g->opsets[at].version : 0;
}

static const char *plain_domain(const char *domain)
{
    return !domain || ox_str_eq(domain, "ai.onnx") ? "" : domain;
}

ox_function *ox_graph_add_function(ox_graph *g, const char *domain, const char *name)
{
    if (g->n_functions == g->cap_functions) {
        uint32_t ncap = g->cap_functions ? g->cap_functions * 2 : 4;
        ox_function *nf = realloc(g->functions, (size_t)ncap * sizeof(*nf));
        if (!nf)
            return NULL;
        g->functions = nf;
        g->cap_functions = ncap;
    }
    ox_function f;
    memset(&f, 0, sizeof f);
    f.name = ox_arena_strdup(&g->arena, name ? name : "");
    f.domain = ox_arena_strdup(&g->arena, domain ? domain : "");
    if (!f.name || !f.domain || !(f.body = ox_graph_new(f.name)))
        return NULL;
    f.body->is_onnx = true;
    g->functions[g->n_functions] = f;
    return &g->functions[g->n_functions++];
}

ox_graph *ox_graph_add_body(ox_graph *g, const char *name)
{
    if (g->n_bodies == g->cap_bodies) {
        uint32_t ncap = g->cap_bodies ? g->cap_bodies * 2 : 4;
        ox_graph **nb = realloc(g->bodies, (size_t)ncap * sizeof(*nb));
        if (!nb)
            return NULL;
        g->bodies = nb;
        g->cap_bodies = ncap;
    }
    ox_graph *b = ox_graph_new(name ? name : "");
    if (!b)
        return NULL;
    b->is_onnx = true;
    g->bodies[g->n_bodies++] = b;
    return b;
}

const ox_function *ox_graph_function(const ox_graph *g, const char *domain, const char *name)
{
    domain = plain_domain(domain);
    for (uint32_t i = 0; g && name && i < g->n_functions; i++) {
        const ox_function *f = &g->functions[i];
        if (ox_str_eq(f->name, name) && ox_str_eq(plain_domain(f->domain), domain))
            return f;
    }
    return NULL;
}

ox_attr *ox_node_add_attr(ox_graph *g, ox_node *n, const char *name, ox_attr_kind kind)
{
    /* Attributes are few per node: replace in place when the name repeats,
     * otherwise grow the array (old storage stays in the arena). */
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        if (strcmp(n->attrs[i].name, name) == 0) {
            ox_attr *a = &n->attrs[i];
            memset(&a->u, 0, sizeof(a->u));
            a->kind = kind;
            return a;
        }
    }
    ox_attr *na = ox_arena_alloc(&g->arena, (size_t)(n->n_attrs + 1) * sizeof(*na));
    if (!na)
        return NULL;
    if (n->n_attrs)
        memcpy(na, n->attrs, (size_t)n->n_attrs * sizeof(*na));
    ox_attr *a = &na[n->n_attrs];
    a->name = ox_arena_strdup(&g->arena, name);
    if (!a->name)
        return NULL;
    a->kind = kind;
    n->attrs = na;
    n->n_attrs++;
    return a;
}

const ox_attr *ox_node_attr(const ox_node *n, const char *name)
{
    for (uint32_t i = 0; i < n->n_attrs; i++)
        if (ox_str_eq(n->attrs[i].name, name))
            return &n->attrs[i];
    return NULL;
}

int64_t ox_node_attr_int(const ox_node *n, const char *name, int64_t dflt)
{
    const ox_attr *a = ox_node_attr(n, name);
    return a && a->kind == OX_ATTR_INT ? a->u.i : dflt;
}

const ox_targ *ox_node_arg(const ox_node *n, const char *name)
{
    for (uint32_t i = 0; i < n->n_args; i++)
        if (ox_str_eq(n->args[i].name, name))
            return &n->args[i];
    return NULL;
}

const ox_targ *ox_node_arg_at(const ox_node *n, const char *name, uint32_t hint)
{
    if (hint < n->n_args && ox_str_eq(n->args[hint].name, name))
        return &n->args[hint];
    return ox_node_arg(n, name);
}

uint64_t ox_sparse_param_nnz(const ox_sparse_param *s)
{
    const ox_attr_tensor *v = s->values;
    if (!v)
        return 0;
    if (v->rank == 1)
        return v->dims && v->dims[0] > 0 ? (uint64_t)v->dims[0] : 0;
    uint64_t n = 1;
    for (uint32_t i = 0; i < v->rank; i++)
        n *= v->dims && v->dims[i] > 0 ? (uint64_t)v->dims[i] : 0;
    return n;
}

size_t ox_graph_node_count(const ox_graph *g)
{
    return g ? g->n_nodes : 0;
}

static ox_status set_dim_param(ox_graph *g, ox_value *val, uint32_t axis, const char *name)
{
    if (!val || !name || !*name)
        return OX_EINVAL;
    if (val->kind != OX_VAL_INPUT && !val->is_output)
        return OX_EINVAL;
    if (val->type.rank <= 0 || axis >= (uint32_t)val->type.rank)
        return OX_EINVAL;
    return ox_value_set_dim_param(g, val, axis, name) == 0 ? OX_OK : OX_ENOMEM;
}

ox_status ox_graph_set_dim_param(ox_graph *g, ox_vid v, uint32_t axis, const char *name)
{
    return set_dim_param(g, ox_graph_host_value(g, v), axis, name);
}

ox_status ox_graph_set_output_dim_param(ox_graph *g, size_t i, uint32_t axis, const char *name)
{
    if (!g || i >= g->n_outputs)
        return OX_EINVAL;
    return set_dim_param(g, ox_graph_value(g, g->outputs[i]), axis, name);
}

int ox_tensor_own(ox_graph *g, ox_tensor_data *t, const void *data, uint64_t nbytes)
{
    void *copy;
    if (nbytes >= OX_IR_MALLOC_THRESHOLD) {
        copy = malloc(nbytes);
    } else {
        copy = ox_arena_alloc(&g->arena, nbytes ? nbytes : 1);
    }
    if (!copy)
        return -1;
    if (nbytes)
        memcpy(copy, data, nbytes);
    t->data = copy;
    t->nbytes = nbytes;
    t->owned = true;
    return 0;
}

const char *ox_arg_kind_name(ox_arg_kind k)
{
    switch (k) {
    case OX_ARG_NONE: return "None";
    case OX_ARG_TENSOR: return "tensor";
    case OX_ARG_TENSOR_LIST: return "tensor_list";
    case OX_ARG_INT: return "int";
    case OX_ARG_FLOAT: return "float";
    case OX_ARG_BOOL: return "bool";
    case OX_ARG_STRING: return "string";
    case OX_ARG_INTS: return "ints";
    case OX_ARG_FLOATS: return "floats";
    case OX_ARG_DTYPE: return "dtype";
    case OX_ARG_OPT_TENSOR: return "optional_tensor";
    case OX_ARG_SCALAR: return "scalar";
    case OX_ARG_TENSOR_OR_SCALAR: return "tensor_or_scalar";
    }
    return "unknown";
}
