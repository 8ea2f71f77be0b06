/*
 * The function table symbolic packs call (struct ox_api in plugin.h).  Every
 * member tolerates the NULLs and zeros an earlier failed call returns, so a
 * symbolic can chain calls and check once; misuse is recorded on the ox_sym
 * and reported with the node's op and scope.
 */
#include "symbolic_api.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crash_note.h"
#include "param_decl.h"
#include "plugin_load.h"
#include "rank_of.h"
#include "lift_constants.h"
#include "schema_check.h"

static int vsym_error(ox_sym *g, const char *fmt, va_list ap)
{
    if (!g || g->err)
        return -1;
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0 || !(g->err = malloc((size_t)n + 1))) {
        g->oom = true;
        return -1;
    }
    vsnprintf(g->err, (size_t)n + 1, fmt, ap);
    return -1;
}

int ox_sym_error(ox_sym *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsym_error(g, fmt, ap);
    va_end(ap);
    return r;
}

/* ------------------------------------------------------ ids and handles */

uint32_t ox_sym_new_tag(void)
{
    static _Atomic uint32_t next;
    uint32_t t = ++next % ((1u << OX_VID_TAG_BITS) - 1u);
    return t + 1u;
}

/* An output-graph value as packs see it: tagged with the conversion. */
static ox_vid vid_out(ox_sym *g, ox_vid local)
{
    if (!local)
        return 0;
    if (local > OX_VID_INDEX_MAX) {
        ox_sym_error(g, "the ONNX graph has more than %u values, more than the plugin API "
                        "can address", OX_VID_INDEX_MAX);
        return 0;
    }
    return (g->session->tag << OX_VID_INDEX_BITS) | local;
}

/* Whether `tag` is the tag of a graph enclosing the body being built. */
static bool tag_encloses(const ox_sym *g, uint32_t tag)
{
    for (uint32_t k = 0; k < g->n_frames; k++)
        if (g->frames[k].outer_tag == tag)
            return true;
    return false;
}

/* A pack's vid as the output graph's id, or 0 when it is not a value of
 * this conversion (no error recorded: vid_in says why). */
static inline ox_vid vid_local(const ox_sym *g, ox_vid v)
{
    ox_vid local = v & OX_VID_INDEX_MAX;
    if ((v >> OX_VID_INDEX_BITS) != g->session->tag || !ox_graph_value(g->out, local))
        return 0;
    return local;
}

/* vid_in's error for a vid that is not one of the graph being built. */
static ox_vid vid_refused(ox_sym *g, ox_vid v, const char *what);

/* A vid from a pack back to the output graph's id; 0 (with the error
 * recorded) for one of another graph or one that does not exist.  Inline,
 * with the error out of line: the symbolic API checks every vid it is
 * given, several times a node. */
static inline ox_vid vid_in(ox_sym *g, ox_vid v, const char *what)
{
    if (!v)
        return 0;
    ox_vid local = vid_local(g, v);
    return local ? local : vid_refused(g, v, what);
}

static ox_vid vid_refused(ox_sym *g, ox_vid v, const char *what)
{
    uint32_t tag = v >> OX_VID_INDEX_BITS;
    if (tag_encloses(g, tag))
        ox_sym_error(g, "%s: value %#x belongs to a graph enclosing the body being built; "
                        "a body is closed: pass the value in as one of its inputs (Scan's "
                        "scan inputs or state, Loop's carried values)", what, (unsigned)v);
    else if (tag != g->session->tag)
        ox_sym_error(g, "%s: value %#x is not a value of this conversion (an id kept from "
                        "another graph, or a traced id; pass a vid from arg_tensor, "
                        "node_output or constant)", what, (unsigned)v);
    else
        ox_sym_error(g, "%s: value %#x does not exist in the ONNX graph", what, (unsigned)v);
    return 0;
}

/* The call a node handle belongs to, or NULL (and an error on the call under
 * way) when the handle was made by an earlier call. */
static bool handle_live(ox_onode *n)
{
    if (!n)
        return false;
    ox_sym *cur = n->session->current;
    if (!cur)
        return false;
    if (n->serial != n->session->serial) {
        ox_sym_error(cur, "node handle of %s was made by an earlier symbolic call; handles are "
                          "valid only inside the call that created them", n->node->op_type);
        return false;
    }
    if (n->graph != cur->out) {
        ox_sym_error(cur, "node handle of %s belongs to %s; a node's attributes are set while "
                          "the graph it was made in is the one being built (a body node's "
                          "before body_end)", n->node->op_type,
                     cur->n_frames && n->graph == cur->frames[0].outer ? "the main graph"
                                                                      : "another graph");
        return false;
    }
    return true;
}

/* The graph the traced values map into and its tag, whatever body is being
 * built. */
static ox_graph *root_out(const ox_sym *g)
{
    return g->n_frames ? g->frames[0].outer : g->out;
}

static uint32_t root_tag(const ox_sym *g)
{
    return g->n_frames ? g->frames[0].outer_tag : g->session->tag;
}

/* ---------------------------------------------------------- call context */

static int api_opset(ox_sym *g)
{
    return g ? g->opset : 0;
}

static const char *api_op_name(ox_sym *g)
{
    return g ? g->node->kind : "";
}

static const char *api_scope(ox_sym *g)
{
    return g && g->node->scope ? g->node->scope : "";
}

static int api_fail(ox_sym *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsym_error(g, fmt ? fmt : "(no message)", ap);
    va_end(ap);
    return -1;
}

static void api_log(ox_sym *g, const char *fmt, ...)
{
    const char *dbg = getenv("OXPORT_DEBUG");
    if (!dbg || !*dbg || !fmt)
        return;
    fprintf(stderr, "oxport: %s (%s): ", api_op_name(g), api_scope(g));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ------------------------------------------------------------ arguments */

/* A recorded argument, else the declared default of an unrecorded one. */
static const ox_targ *arg(ox_sym *g, const char *name)
{
    if (!g || !name)
        return NULL;
    const ox_targ *a = ox_node_arg(g->node, name);
    if (a || !g->decl)
        return a;
    const ox_param_decl *p = ox_param_find(g->decl, name);
    return p && ox_param_default_arg(p, &g->dflt) ? &g->dflt : NULL;
}

/* A traced id to the output graph's own id (internal use). */
static ox_vid map_local(ox_sym *g, ox_vid traced)
{
    if (traced == 0 || traced >= g->traced->n_values)
        return 0;
    return g->vmap ? g->vmap[traced] : traced; /* a check hook reads the traced graph */
}

/* Traced values live in the main graph: inside a body their ids keep the
 * main graph's tag, so using one there is refused, not misread. */
static ox_vid map_vid(ox_sym *g, ox_vid traced)
{
    ox_vid local = map_local(g, traced);
    if (!local || !g->n_frames)
        return vid_out(g, local);
    return local > OX_VID_INDEX_MAX ? 0 : (root_tag(g) << OX_VID_INDEX_BITS) | local;
}

/* Recorded by the host (a declared default does not count). */
static int api_arg_present(ox_sym *g, const char *name)
{
    return g && name && ox_node_arg(g->node, name) != NULL;
}

static ox_arg_kind api_arg_kind(ox_sym *g, const char *name)
{
    const ox_targ *a = arg(g, name);
    return a ? a->kind : OX_ARG_NONE;
}

static ox_vid api_arg_tensor(ox_sym *g, const char *name)
{
    const ox_targ *a = arg(g, name);
    if (!a || a->kind != OX_ARG_TENSOR)
        return 0;
    return map_vid(g, a->u.tensor);
}

static size_t api_arg_tensors(ox_sym *g, const char *name, const ox_vid **out)
{
    if (out)
        *out = NULL;
    const ox_targ *a = arg(g, name);
    if (!a || !out)
        return 0;
    size_t n;
    const ox_vid *src;
    if (a->kind == OX_ARG_TENSOR_LIST) {
        n = a->u.tensors.n;
        src = a->u.tensors.p;
    } else if (a->kind == OX_ARG_TENSOR) {
        n = 1;
        src = &a->u.tensor;
    } else {
        return 0;
    }
    if (!n)
        return 0;
    ox_vid *m = ox_arena_alloc(&g->out->arena, n * sizeof(*m));
    if (!m) {
        g->oom = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        m[i] = map_vid(g, src[i]);
    *out = m;
    return n;
}


/* A recorded tensor argument that is a one-element constant reads as a number
 * (the seed's _scalar / parse_args). */
static int tensor_arg_scalar(ox_sym *g, const ox_targ *a, double *out)
{
    if (a->kind != OX_ARG_TENSOR)
        return 0;
    ox_dtype dt;
    size_t n;
    const ox_tensor_data *t = ox_sym_const_tensor(g->out, map_local(g, a->u.tensor), &dt, &n);
    if (!t || n != 1)
        return 0;
    bool ok = true;
    *out = ox_elem_load(dt, t->data, &ok);
    return ok;
}

static int64_t api_arg_int(ox_sym *g, const char *name, int64_t dflt)
{
    const ox_targ *a = arg(g, name);
    if (!a)
        return dflt;
    double d;
    switch (a->kind) {
    case OX_ARG_INT: case OX_ARG_BOOL: case OX_ARG_DTYPE:
        return a->u.i;
    case OX_ARG_TENSOR:
        return tensor_arg_scalar(g, a, &d) ? (int64_t)d : dflt;
    default:
        return dflt;
    }
}

static double api_arg_float(ox_sym *g, const char *name, double dflt)
{
    const ox_targ *a = arg(g, name);
    if (!a)
        return dflt;
    double d;
    switch (a->kind) {
    case OX_ARG_FLOAT:
        return a->u.f;
    case OX_ARG_INT: case OX_ARG_BOOL:
        return (double)a->u.i;
    case OX_ARG_TENSOR:
        return tensor_arg_scalar(g, a, &d) ? d : dflt;
    default:
        return dflt;
    }
}

static const char *api_arg_string(ox_sym *g, const char *name, const char *dflt)
{
    const ox_targ *a = arg(g, name);
    return a && a->kind == OX_ARG_STRING ? a->u.s : dflt;
}

static size_t api_arg_ints(ox_sym *g, const char *name, const int64_t **out)
{
    if (out)
        *out = NULL;
    const ox_targ *a = arg(g, name);
    if (!a || !out)
        return 0;
    if (a->kind == OX_ARG_INTS) {
        *out = a->u.ints.p;
        return a->u.ints.n;
    }
    if (a->kind == OX_ARG_INT) {
        *out = &a->u.i;
        return 1;
    }
    return 0;
}

static size_t api_arg_floats(ox_sym *g, const char *name, const double **out)
{
    if (out)
        *out = NULL;
    const ox_targ *a = arg(g, name);
    if (!a || !out)
        return 0;
    if (a->kind == OX_ARG_FLOATS) {
        *out = a->u.floats.p;
        return a->u.floats.n;
    }
    if (a->kind == OX_ARG_FLOAT) {
        *out = &a->u.f;
        return 1;
    }
    return 0;
}

/* --------------------------------------------------------------- values */

/* The value behind a pack's vid; NULL (error recorded) when it is not one
 * of this conversion's. */
static inline ox_value *val(ox_sym *g, ox_vid v, const char *what)
{
    if (!g)
        return NULL;
    ox_vid local = vid_in(g, v, what);
    return local ? ox_graph_value(g->out, local) : NULL;
}

/* Element types the schemas give the outputs of the nodes this call has
 * created so far, so a symbolic asking for the dtype of a node it just
 * built (to type a constant like it) gets one.  Calls create a handful of
 * nodes: the walk is short. */
static void infer_call_types(ox_sym *g)
{
    ox_node *n = g->out->last;
    if (!n || n->id < g->first_node_id)
        return;
    while (n->prev && n->prev->id >= g->first_node_id)
        n = n->prev;
    for (; n; n = n->next) {
        int64_t version = n->domain[0] ? ox_graph_opset(root_out(g), n->domain) : g->opset;
        ox_schema_lookup schema = {false, NULL};
        bool looked_up = false;
        for (uint32_t k = 0; k < n->n_outputs; k++) {
            ox_value *o = ox_graph_value(g->out, n->outputs[k]);
            if (!o || o->type.dtype != OX_UNDEFINED)
                continue;
            if (!looked_up) {
                schema = ox_schema_lookup_node_noting(n, version);
                looked_up = true;
            }
            o->type.dtype = ox_schema_output_dtype_as(g->out, NULL, n, &schema, k);
        }
    }
}

static ox_dtype api_dtype(ox_sym *g, ox_vid v)
{
    ox_value *x = val(g, v, "dtype");
    if (x && x->type.dtype == OX_UNDEFINED && x->kind == OX_VAL_NODE)
        infer_call_types(g);
    return x ? x->type.dtype : OX_UNDEFINED;
}

/* A value the symbolic built has no recorded rank; where ONNX's rules give
 * it (a Cast of a recorded operand, an Add of two), the symbolic gets it. */
static int api_rank(ox_sym *g, ox_vid v)
{
    ox_value *x = val(g, v, "rank");
    return x ? ox_rank_of(g->out, x) : -1;
}

/* Under a dynamic input, what the symbolic read is kept (context.h): the
 * export warns where a dynamic axis reaches it.  Memory running out only
 * loses the note. */
static void note_size_read(ox_sym *g, ox_vid local, int axis)
{
    ox_context *ctx = g->ctx;
    if (ctx->n_size_reads == ctx->cap_size_reads) {
        size_t cap = ctx->cap_size_reads ? ctx->cap_size_reads * 2 : 64;
        ox_size_read *grown = realloc(ctx->size_reads, cap * sizeof(*grown));
        if (!grown)
            return;
        ctx->size_reads = grown;
        ctx->cap_size_reads = cap;
    }
    ctx->size_reads[ctx->n_size_reads++] = (ox_size_read){local, axis, g->node};
}

/* v's recorded size along axis (-1 unknown); *local_out its output-graph id. */
static int64_t size_of(ox_sym *g, ox_vid v, int *axis, ox_vid *local_out)
{
    if (!g)
        return -1;
    ox_vid local = vid_in(g, v, "size");
    ox_value *x = local ? ox_graph_value(g->out, local) : NULL;
    if (!x || x->type.rank < 0)
        return -1;
    if (*axis < 0)
        *axis += x->type.rank;
    if (*axis < 0 || *axis >= x->type.rank)
        return -1;
    *local_out = local;
    return x->type.dims[*axis];
}

static int64_t api_size(ox_sym *g, ox_vid v, int axis)
{
    ox_vid local = 0;
    return size_of(g, v, &axis, &local);
}

static int64_t api_fixed_size(ox_sym *g, ox_vid v, int axis)
{
    ox_vid local = 0;
    int64_t n = size_of(g, v, &axis, &local);
    if (n >= 0 && g->ctx && g->ctx->track_size_reads && !g->checking && g->n_frames == 0)
        note_size_read(g, local, axis);
    return n;
}

const ox_tensor_data *ox_sym_const_tensor(const ox_graph *g, ox_vid v, ox_dtype *dtype,
                                          size_t *n_elems)
{
    ox_value *x = ox_graph_value(g, v);
    if (!x)
        return NULL;
    const ox_tensor_data *t = NULL;
    ox_dtype dt = OX_UNDEFINED;
    if (x->kind == OX_VAL_CONST) {
        t = &x->tensor;
        dt = x->type.dtype;
    } else if (x->kind == OX_VAL_NODE && x->producer && x->producer->domain[0] == '\0' &&
               strcmp(x->producer->op_type, "Constant") == 0) {
        const ox_attr *a = ox_node_attr(x->producer, "value");
        if (!a || a->kind != OX_ATTR_TENSOR || !a->u.t)
            return NULL;
        t = &a->u.t->data;
        dt = a->u.t->dtype;
    } else {
        return NULL;
    }
    size_t es = ox_dtype_size(dt);
    if (!es || (!t->data && t->nbytes))
        return NULL;
    if (dtype)
        *dtype = dt;
    if (n_elems)
        *n_elems = (size_t)(t->nbytes / es);
    return t;
}

static int api_is_const(ox_sym *g, ox_vid v)
{
    ox_value *x = val(g, v, "is_const");
    return x && ox_sym_const_tensor(g->out, x->id, NULL, NULL) != NULL;
}

static const void *api_const_data(ox_sym *g, ox_vid v, ox_dtype *dtype, size_t *n_elems)
{
    ox_value *x = val(g, v, "const_data");
    if (!x)
        return NULL;
    const ox_tensor_data *t = ox_sym_const_tensor(g->out, x->id, dtype, n_elems);
    return t ? t->data : NULL;
}

static int api_const_scalar(ox_sym *g, ox_vid v, double *out)
{
    ox_value *x = out ? val(g, v, "const_scalar") : NULL;
    if (!x)
        return 0;
    ox_dtype dt;
    size_t n;
    const ox_tensor_data *t = ox_sym_const_tensor(g->out, x->id, &dt, &n);
    if (!t || n != 1)
        return 0;
    bool ok = true;
    double d = ox_elem_load(dt, t->data, &ok);
    if (ok)
        *out = d;
    return ok;
}

/* --------------------------------------------------------- building nodes */

static ox_onode *make_node(ox_sym *g, const char *domain, const char *op_type, size_t n_inputs,
                           const ox_vid *inputs, size_t n_outputs)
{
    if (!g)
        return NULL;
    if (g->checking) {
        ox_sym_error(g, "the check hook tried to build %s (a check hook only reads its "
                        "arguments and reports with api->limit)",
                     op_type ? op_type : "a node");
        return NULL;
    }
    if (!op_type || !*op_type) {
        ox_sym_error(g, "op: op_type is NULL or empty");
        return NULL;
    }
    if (n_inputs > UINT32_MAX / 2 || (n_inputs && !inputs)) {
        ox_sym_error(g, "op(%s): %zu input(s) with %s input array", op_type, n_inputs,
                     inputs ? "an" : "a NULL");
        return NULL;
    }
    if (n_outputs > OX_NODE_OUTPUTS_MAX) {
        ox_sym_error(g, "op(%s): %zu outputs asked for (at most %u)", op_type, n_outputs,
                     (unsigned)OX_NODE_OUTPUTS_MAX);
        return NULL;
    }
    /* the local ids are copied again by ox_graph_add_node_op: a node's
     * handful of them go on the stack, not into the graph's arena where
     * they would stay for nothing */
    ox_vid on_stack[8];
    ox_vid *local = n_inputs <= 8 ? on_stack
                                  : ox_arena_alloc(&g->out->arena, n_inputs * sizeof(*local));
    if (n_inputs && !local) {
        g->oom = true;
        ox_sym_error(g, "op(%s): out of memory", op_type);
        return NULL;
    }
    for (size_t i = 0; i < n_inputs; i++) {
        /* the message names the input only when there is one to give */
        if (inputs[i] && !(local[i] = vid_local(g, inputs[i]))) {
            char what[96];
            snprintf(what, sizeof what, "op(%s): input %zu", op_type, i);
            vid_in(g, inputs[i], what);
            return NULL;
        }
        if (!inputs[i])
            local[i] = 0;
    }
    inputs = local;
    ox_onode *on = ox_arena_alloc(&g->out->arena, sizeof(*on));
    ox_node *node = on ? ox_graph_add_node_op(g->out, domain, op_type, (uint32_t)n_inputs,
                                              inputs, (uint32_t)n_outputs)
                       : NULL;
    if (!node) {
        g->oom = true;
        ox_sym_error(g, "op(%s): out of memory", op_type);
        return NULL;
    }
    node->scope = g->scope;
    on->node = node;
    on->graph = g->out;
    on->session = g->session;
    on->serial = g->session->serial;
    return on;
}

static ox_onode *api_op(ox_sym *g, const char *op_type, size_t n_inputs, const ox_vid *inputs,
                        size_t n_outputs)
{
    return make_node(g, "onnx", op_type, n_inputs, inputs, n_outputs);
}

static ox_onode *api_op_domain(ox_sym *g, const char *domain, int domain_version,
                               const char *op_type, size_t n_inputs, const ox_vid *inputs,
                               size_t n_outputs)
{
    if (!g)
        return NULL;
    if (!domain || !*domain || strcmp(domain, "ai.onnx") == 0 || strcmp(domain, "onnx") == 0)
        return make_node(g, "onnx", op_type, n_inputs, inputs, n_outputs);
    if (strstr(domain, "::")) {
        ox_sym_error(g, "op_domain: domain '%s' must not contain '::'", domain);
        return NULL;
    }
    if (domain_version < 1) {
        ox_sym_error(g, "op_domain(%s, %s): domain_version %d must be >= 1", domain,
                     op_type ? op_type : "(null)", domain_version);
        return NULL;
    }
    ox_onode *on = make_node(g, domain, op_type, n_inputs, inputs, n_outputs);
    if (on && ox_graph_set_opset(root_out(g), domain, domain_version) != 0) {
        g->oom = true;
        ox_sym_error(g, "op_domain: out of memory");
        return NULL;
    }
    return on;
}

static ox_vid api_node_output(ox_onode *n, size_t i)
{
    if (!handle_live(n))
        return 0;
    if (i >= n->node->n_outputs) {
        ox_sym_error(n->session->current, "node_output(%s, %zu): the node has %u output(s)",
                     n->node->op_type, i, n->node->n_outputs);
        return 0;
    }
    return vid_out(n->session->current, n->node->outputs[i]);
}

static ox_attr *add_attr(ox_onode *n, const char *name, ox_attr_kind kind)
{
    if (!handle_live(n))
        return NULL;
    if (!name || !*name) {
        ox_sym_error(n->session->current, "attribute of %s: name is NULL or empty", n->node->op_type);
        return NULL;
    }
    ox_attr *a = ox_node_add_attr(n->session->current->out, n->node, name, kind);
    if (!a) {
        n->session->current->oom = true;
        ox_sym_error(n->session->current, "attribute %s of %s: out of memory", name, n->node->op_type);
    }
    return a;
}

static void *attr_copy(ox_onode *n, const void *p, size_t bytes)
{
    if (!bytes)
        return NULL;
    void *c = ox_arena_memdup(&n->session->current->out->arena, p, bytes);
    if (!c) {
        n->session->current->oom = true;
        ox_sym_error(n->session->current, "attribute of %s: out of memory", n->node->op_type);
    }
    return c;
}

static void api_attr_float(ox_onode *n, const char *name, double v)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_FLOAT);
    if (a)
        a->u.f = v;
}

static void api_attr_int(ox_onode *n, const char *name, int64_t v)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_INT);
    if (a)
        a->u.i = v;
}

static void api_attr_string(ox_onode *n, const char *name, const char *v)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_STRING);
    if (!a)
        return;
    if (!v)
        v = "";
    a->u.s.len = strlen(v);
    a->u.s.p = ox_arena_strdup(&n->session->current->out->arena, v);
    if (!a->u.s.p) {
        a->u.s.len = 0;
        n->session->current->oom = true;
    }
}

static void api_attr_floats(ox_onode *n, const char *name, const double *v, size_t count)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_FLOATS);
    if (!a || (count && !v))
        return;
    a->u.floats.p = attr_copy(n, v, count * sizeof(*v));
    a->u.floats.n = a->u.floats.p ? count : 0;
}

static void api_attr_ints(ox_onode *n, const char *name, const int64_t *v, size_t count)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_INTS);
    if (!a || (count && !v))
        return;
    a->u.ints.p = attr_copy(n, v, count * sizeof(*v));
    a->u.ints.n = a->u.ints.p ? count : 0;
}

static void api_attr_strings(ox_onode *n, const char *name, const char *const *v, size_t count)
{
    ox_attr *a = add_attr(n, name, OX_ATTR_STRINGS);
    if (!a || !count || !v)
        return;
    const char **p = ox_arena_alloc(&n->session->current->out->arena, count * sizeof(*p));
    if (!p) {
        n->session->current->oom = true;
        return;
    }
    for (size_t i = 0; i < count; i++)
        if (!(p[i] = ox_arena_strdup(&n->session->current->out->arena, v[i] ? v[i] : ""))) {
            n->session->current->oom = true;
            return;
        }
    a->u.strings.p = p;
    a->u.strings.n = count;
}

/* Elements of a tensor of this shape; SIZE_MAX on a bad size. */
static size_t elem_count(uint32_t rank, const int64_t *sizes)
{
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] < 0 || (sizes[i] && n > SIZE_MAX / (size_t)sizes[i]))
            return SIZE_MAX;
        n *= (size_t)sizes[i];
    }
    return n;
}

static ox_attr_tensor *make_tensor(ox_sym *g, const char *what, ox_dtype dtype, uint32_t rank,
                                   const int64_t *sizes, const void *data)
{
    size_t es = ox_dtype_size(dtype);
    if (!ox_dtype_valid((int)dtype) || !es) {
        ox_sym_error(g, "%s: dtype %d is not an ONNX element type constants can hold "
                     "(numeric or bool, not complex)", what, (int)dtype);
        return NULL;
    }
    if (rank && !sizes) {
        ox_sym_error(g, "%s: rank %u but sizes is NULL", what, rank);
        return NULL;
    }
    size_t n = elem_count(rank, sizes);
    if (n == SIZE_MAX || n > SIZE_MAX / es) {
        ox_sym_error(g, "%s: invalid sizes", what);
        return NULL;
    }
    if (n && !data) {
        ox_sym_error(g, "%s: data is NULL for %zu element(s)", what, n);
        return NULL;
    }
    ox_arena *ar = &g->out->arena;
    ox_attr_tensor *t = ox_arena_alloc(ar, sizeof(*t));
    if (!t)
        goto oom;
    t->dtype = dtype;
    t->rank = rank;
    if (rank && !(t->dims = ox_arena_memdup(ar, sizes, rank * sizeof(int64_t))))
        goto oom;
    t->data.nbytes = (uint64_t)n * es;
    t->data.owned = true;
    if (n && !(t->data.data = ox_arena_memdup(ar, data, n * es)))
        goto oom;
    return t;
oom:
    g->oom = true;
    ox_sym_error(g, "%s: out of memory", what);
    return NULL;
}

static void api_attr_tensor(ox_onode *n, const char *name, ox_dtype dtype, uint32_t rank,
                            const int64_t *sizes, const void *data)
{
    if (!handle_live(n))
        return;
    ox_attr_tensor *t = make_tensor(n->session->current, "attr_tensor", dtype, rank, sizes, data);
    if (!t)
        return;
    ox_attr *a = add_attr(n, name, OX_ATTR_TENSOR);
    if (a)
        a->u.t = t;
}

/* set_type annotates what a node produces: it may add what is unknown,
 * never change what is known (the host's inputs and parameters, a type set
 * earlier). */
static void api_set_type(ox_sym *g, ox_vid v, ox_dtype dtype, int rank, const int64_t *sizes)
{
    if (g && g->checking) {
        ox_sym_error(g, "the check hook called set_type (a check hook builds nothing)");
        return;
    }
    ox_value *x = val(g, v, "set_type");
    if (!x)
        return;
    if (x->kind != OX_VAL_NODE) {
        ox_sym_error(g, "set_type: value %#x is a graph %s; its type is the host's and cannot "
                        "be changed", (unsigned)v,
                     x->kind == OX_VAL_INPUT ? "input" : x->kind == OX_VAL_PARAM ? "parameter"
                                                                                   : "constant");
        return;
    }
    if (dtype != OX_UNDEFINED && !ox_dtype_valid((int)dtype)) {
        ox_sym_error(g, "set_type: dtype %d is not an element type conversion takes (ONNX's "
                        "numeric, bool and string types; not the complex ones)", (int)dtype);
        return;
    }
    if (rank < 0)
        rank = -1;
    if (dtype != OX_UNDEFINED && x->type.dtype != OX_UNDEFINED && dtype != x->type.dtype) {
        ox_sym_error(g, "set_type: value %#x is %s; it cannot become %s", (unsigned)v,
                     ox_dtype_name(x->type.dtype), ox_dtype_name(dtype));
        return;
    }
    if (rank >= 0 && x->type.rank >= 0 && rank != x->type.rank) {
        ox_sym_error(g, "set_type: value %#x has rank %d; it cannot become rank %d",
                     (unsigned)v, x->type.rank, rank);
        return;
    }
    for (int k = 0; sizes && rank > 0 && x->type.rank == rank && k < rank; k++)
        if (sizes[k] >= 0 && x->type.dims[k] >= 0 && sizes[k] != x->type.dims[k]) {
            ox_sym_error(g, "set_type: value %#x has size %lld on axis %d; it cannot become "
                            "%lld", (unsigned)v, (long long)x->type.dims[k], k,
                         (long long)sizes[k]);
            return;
        }
    /* merge: what was known stays, what was unknown is added */
    ox_dtype dt = dtype != OX_UNDEFINED ? dtype : x->type.dtype;
    int32_t r = rank >= 0 ? rank : x->type.rank;
    int64_t stack[16];
    int64_t *dims = NULL;
    if (r > 0 && (sizes || x->type.rank == r)) {
        dims = r <= 16 ? stack : ox_arena_alloc(&g->out->arena, (size_t)r * sizeof(*dims));
        if (!dims) {
            g->oom = true;
            return;
        }
        for (int k = 0; k < r; k++) {
            int64_t known = x->type.rank == r ? x->type.dims[k] : -1;
            dims[k] = known >= 0 ? known : sizes && rank == r && sizes[k] >= 0 ? sizes[k] : -1;
        }
    }
    if (ox_value_set_type(g->out, x, dt, r, dims) != 0)
        g->oom = true;
}

/* ------------------------------------------------------------ constants */

static ox_vid api_constant(ox_sym *g, ox_dtype dtype, uint32_t rank, const int64_t *sizes,
                           const void *data)
{
    if (!g)
        return 0;
    ox_attr_tensor *t = make_tensor(g, "constant", dtype, rank, sizes, data);
    if (!t)
        return 0;
    ox_onode *on = make_node(g, "onnx", "Constant", 0, NULL, 1);
    if (!on)
        return 0;
    ox_attr *a = add_attr(on, "value", OX_ATTR_TENSOR);
    if (!a)
        return 0;
    a->u.t = t;
    ox_vid v = on->node->outputs[0];
    if (ox_value_set_type(g->out, ox_graph_value(g->out, v), dtype, (int32_t)rank, sizes) != 0) {
        g->oom = true;
        return 0;
    }
    return vid_out(g, v);
}

static ox_vid api_const_ints(ox_sym *g, const int64_t *v, size_t n)
{
    int64_t size = (int64_t)n;
    return api_constant(g, OX_INT64, 1, &size, v);
}

static ox_vid api_const_scalar_of(ox_sym *g, ox_dtype dtype, double v)
{
    unsigned char buf[8];
    if (!g)
        return 0;
    if (!ox_elem_store(dtype, v, buf)) {
        ox_sym_error(g, "const_scalar_of: dtype %d is not a numeric ONNX element type",
                     (int)dtype);
        return 0;
    }
    return api_constant(g, dtype, 0, NULL, buf);
}

static ox_vid api_scalar_like(ox_sym *g, double v, ox_vid like)
{
    ox_dtype dt = like ? api_dtype(g, like) : OX_UNDEFINED;
    return api_const_scalar_of(g, dt == OX_UNDEFINED ? OX_FLOAT : dt, v);
}

/* -------------------------------------------------------------- results */

static int api_set_output(ox_sym *g, size_t i, ox_vid v)
{
    if (!g)
        return -1;
    if (g->checking)
        return ox_sym_error(g, "the check hook called set_output (a check hook builds nothing)");
    if (i >= g->n_outputs) {
        if (g->extra_output < 0)
            g->extra_output = (long)i;
        return -1;
    }
    if (!v)
        return ox_sym_error(g, "set_output(%zu): value 0 (no value)", i);
    if (g->n_frames)
        return ox_sym_error(g, "set_output(%zu) inside a body: end the body (body_end) and set "
                               "the outputs from values of the main graph", i);
    ox_vid local = vid_local(g, v);
    if (!local) {
        char what[48];
        snprintf(what, sizeof what, "set_output(%zu)", i);
        vid_in(g, v, what);
        return -1;
    }
    g->outputs[i] = local;
    return 0;
}

/* ------------------------------------------------------------- ABI 1.1 */

static int api_limit(ox_sym *g, int lifted_at, const char *fmt, ...)
{
    if (!g)
        return -1;
    if (!g->err) {
        va_list ap;
        va_start(ap, fmt);
        vsym_error(g, fmt ? fmt : "(no message)", ap);
        va_end(ap);
        g->limited = true;
        g->lifted_at = lifted_at > g->opset ? lifted_at : 0;
    }
    return -1;
}

static uint32_t api_n_outputs(ox_sym *g)
{
    return g ? g->n_outputs : 0;
}

static int api_checking(ox_sym *g)
{
    return g && g->checking;
}

static ox_dtype api_output_dtype(ox_sym *g, size_t i)
{
    if (!g || i >= g->node->n_outputs)
        return OX_UNDEFINED;
    const ox_value *v = ox_graph_value(g->traced, g->node->outputs[i]);
    return v ? v->type.dtype : OX_UNDEFINED;
}

/* ------------------------------------------------------------- ABI 1.2 */

/* A body as packs hold it: the graph, checked and closed by body_end, and
 * whether a node has taken it as its attribute yet. */
struct ox_obody {
    ox_graph *graph;
    ox_sym_session *session;
    bool attached;
};

/* The enclosing graph back, as body_begin found it. */
static void pop_frame(ox_sym *g)
{
    ox_sym_frame *f = &g->frames[--g->n_frames];
    g->out = f->outer;
    g->session->tag = f->outer_tag;
    g->first_node_id = f->outer_first_node_id;
}

static int api_body_begin(ox_sym *g, size_t n_inputs, const ox_dtype *dtypes, const int *ranks,
                          ox_vid *inputs)
{
    if (!g)
        return -1;
    if (g->checking)
        return ox_sym_error(g, "the check hook called body_begin (a check hook builds nothing)");
    if (g->n_frames >= OX_SYM_MAX_BODY_DEPTH)
        return ox_sym_error(g, "body_begin: bodies nest at most %u deep",
                            (unsigned)OX_SYM_MAX_BODY_DEPTH);
    if (n_inputs > OX_NODE_OUTPUTS_MAX || (n_inputs && (!dtypes || !inputs)))
        return ox_sym_error(g, "body_begin: %zu input(s) with %s", n_inputs,
                            n_inputs > OX_NODE_OUTPUTS_MAX ? "more than the bound"
                                                           : "a NULL dtypes or inputs array");
    for (size_t i = 0; i < n_inputs; i++)
        if (dtypes[i] == OX_UNDEFINED || !ox_dtype_valid((int)dtypes[i]))
            return ox_sym_error(g, "body_begin: input %zu has dtype %d, not an element type "
                                "conversion takes (ONNX's, not the complex ones)",
                                i, (int)dtypes[i]);
    /* the body's name is unique in the file: its values' names start with it */
    char *name = ox_arena_printf(&root_out(g)->arena, "%s_%u_body%u", g->node->op_type,
                                 (unsigned)g->node->id, (unsigned)g->n_bodies_made++);
    ox_graph *b = name ? ox_graph_add_body(root_out(g), name) : NULL;
    if (!b) {
        g->oom = true;
        return ox_sym_error(g, "body_begin: out of memory");
    }
    ox_sym_frame *f = &g->frames[g->n_frames++];
    f->outer = g->out;
    f->outer_tag = g->session->tag;
    f->outer_first_node_id = g->first_node_id;
    g->out = b;
    g->first_node_id = 0;
    uint32_t tag;
    do /* a tag none of the enclosing graphs has */
        tag = ox_sym_new_tag();
    while (tag_encloses(g, tag));
    g->session->tag = tag;
    for (size_t i = 0; i < n_inputs; i++) {
        int rank = ranks && ranks[i] >= 0 ? ranks[i] : -1;
        int64_t unknown[16];
        int64_t *dims = NULL;
        if (rank > 0) {
            dims = rank <= 16 ? unknown : ox_arena_alloc(&b->arena, (size_t)rank * sizeof(*dims));
            for (int k = 0; dims && k < rank; k++)
                dims[k] = -1;
        }
        ox_value *v = rank > 0 && !dims ? NULL
                                        : ox_graph_add_value(b, OX_VAL_INPUT, dtypes[i], rank, dims);
        if (!v || ox_graph_add_input(b, v->id) != 0) {
            g->oom = true;
            return ox_sym_error(g, "body_begin: out of memory");
        }
        inputs[i] = vid_out(g, v->id);
    }
    return 0;
}

static void body_rule_broken(void *user, const char *rule)
{
    ox_sym *g = user;
    ox_sym_error(g, "body_end: a node of the body is not valid ONNX: %s", rule);
}

/* Output value `local` of body b, an Identity of it where ONNX wants a
 * value of its own (a body input, an output listed twice). */
static ox_vid body_output_value(ox_graph *b, ox_vid local)
{
    const ox_value *v = ox_graph_value(b, local);
    if (v->kind == OX_VAL_NODE && !v->is_output)
        return local;
    ox_node *id = ox_graph_add_node(b, "onnx::Identity", 1, &local, 1);
    if (!id || ox_value_set_type(b, ox_graph_value(b, id->outputs[0]), v->type.dtype,
                                 v->type.rank, v->type.dims) != 0)
        return 0;
    return id->outputs[0];
}

/* Every node of body b against its schema at the target opset, and the
 * element types the schemas give their outputs (as convert.c does for a
 * call's nodes in the main graph). */
static bool body_nodes_valid(ox_sym *g, ox_graph *b)
{
    for (ox_node *o = b->first, *next; o && !g->err; o = next) {
        next = o->next;
        int64_t version = o->domain[0] ? ox_graph_opset(root_out(g), o->domain) : g->opset;
        if (ox_constant_needs_lifting(o, version)) {
            /* what the main graph's lift-constants pass does: an initializer */
            if (ox_constant_node_become_param(b, o) != 0) {
                g->oom = true;
                ox_sym_error(g, "body_end: out of memory");
            }
            continue;
        }
        ox_schema_lookup l = ox_schema_lookup_node_noting(o, version);
        ox_schema_check_node_as(b, NULL, o, &l, version, body_rule_broken, g);
        for (uint32_t k = 0; k < o->n_outputs && !g->err; k++) {
            ox_value *v = ox_graph_value(b, o->outputs[k]);
            ox_dtype want = v ? ox_schema_output_dtype_as(b, NULL, o, &l, k) : OX_UNDEFINED;
            if (want == OX_UNDEFINED)
                continue;
            if (v->type.dtype == OX_UNDEFINED)
                v->type.dtype = want;
            else if (v->type.dtype != want)
                ox_sym_error(g, "body_end: output %u of the body's %s node is typed %s, but "
                                "the schema makes it %s", k, o->op_type,
                             ox_dtype_name(v->type.dtype), ox_dtype_name(want));
        }
    }
    return !g->err;
}

static ox_obody *api_body_end(ox_sym *g, size_t n_outputs, const ox_vid *outputs)
{
    if (!g)
        return NULL;
    if (!g->n_frames) {
        ox_sym_error(g, "body_end without body_begin");
        return NULL;
    }
    ox_graph *b = g->out;
    if (!n_outputs || !outputs)
        ox_sym_error(g, "body_end: a body needs at least one output (%zu given%s)", n_outputs,
                     n_outputs && !outputs ? " with a NULL array" : "");
    for (size_t i = 0; i < n_outputs && outputs && !g->err; i++) {
        char what[48];
        snprintf(what, sizeof what, "body_end: output %zu", i);
        ox_vid local = vid_local(g, outputs[i]);
        if (!local) {
            vid_in(g, outputs[i], what);
            break;
        }
        ox_vid out = body_output_value(b, local);
        if (!out || ox_graph_add_output(b, out) != 0) {
            g->oom = true;
            ox_sym_error(g, "body_end: out of memory");
        } else {
            ox_graph_value(b, out)->is_output = true;
        }
    }
    bool ok = !g->err && body_nodes_valid(g, b);
    /* names unique in the file: the body's own name, then the value's id */
    for (ox_vid id = 1; ok && id < b->n_values; id++) {
        ox_value *v = b->values[id];
        if (v && !v->name && !(v->name = ox_arena_printf(&b->arena, "%s/%u", b->name, (unsigned)id))) {
            g->oom = true;
            ok = false;
        }
    }
    ox_obody *ob = ok ? ox_arena_alloc(&root_out(g)->arena, sizeof(*ob)) : NULL;
    if (ok && !ob) {
        g->oom = true;
        ox_sym_error(g, "body_end: out of memory");
    }
    pop_frame(g);
    if (!ob)
        return NULL;
    ob->graph = b;
    ob->session = g->session;
    ob->attached = false;
    return ob;
}

static void api_attr_graph(ox_onode *n, const char *name, ox_obody *body)
{
    if (!handle_live(n))
        return;
    ox_sym *cur = n->session->current;
    if (!body) {
        ox_sym_error(cur, "attr_graph(%s, %s): no body (body_end failed or was not called)",
                     n->node->op_type, name ? name : "(null)");
        return;
    }
    if (body->session != n->session) {
        ox_sym_error(cur, "attr_graph(%s, %s): the body was built in another conversion",
                     n->node->op_type, name ? name : "(null)");
        return;
    }
    if (body->attached) {
        ox_sym_error(cur, "attr_graph(%s, %s): the body is already another node's attribute; "
                          "build one body per node", n->node->op_type, name ? name : "(null)");
        return;
    }
    ox_attr *a = add_attr(n, name, OX_ATTR_GRAPH);
    if (!a)
        return;
    a->u.g = body->graph;
    body->attached = true;
}

uint32_t ox_sym_close_bodies(ox_sym *g)
{
    uint32_t n = g->n_frames;
    if (n)
        ox_sym_error(g, "the symbolic returned with %u body(ies) open (every body_begin needs "
                        "its body_end)", (unsigned)n);
    while (g->n_frames)
        pop_frame(g);
    return n;
}

int ox_sym_run_check(ox_context *ctx, const ox_graph *traced, int opset, const ox_node *n,
                     const ox_op_decl *decl, const char *pack, char **msg, int *lifted_at)
{
    *msg = NULL;
    *lifted_at = 0;
    if (!decl->check)
        return 0;
    ox_sym_session session = {.tag = ox_sym_new_tag()};
    ox_sym s;
    memset(&s, 0, sizeof s);
    s.session = &session;
    s.ctx = ctx;
    s.opset = opset;
    s.traced = traced;
    s.node = n;
    s.out = (ox_graph *)(uintptr_t)traced; /* read only: building is refused */
    s.vmap = NULL;
    s.scope = n->scope ? n->scope : "";
    s.n_outputs = n->n_outputs;
    s.extra_output = -1;
    s.first_node_id = UINT32_MAX;
    s.decl = decl;
    s.checking = true;
    session.current = &s;
    session.serial = 1;
    ox_crash_note_enter("check hook", pack, n->kind, n->scope);
    int rc = decl->check(&s, ox_symbolic_api());
    ox_crash_note_leave();
    if (s.oom) {
        free(s.err);
        return 1;
    }
    if (rc == 0 && !s.err)
        return 0;
    if (s.err && !s.limited && rc == 0) {
        /* a misuse inside a hook that still said "convertible" */
        *msg = s.err;
        return 1;
    }
    if (!s.err) {
        const char *m = "the check hook returned nonzero without api->limit (it should return "
                        "api->limit(...))";
        *msg = malloc(strlen(m) + 1);
        if (*msg)
            strcpy(*msg, m);
        return 1;
    }
    *msg = s.err;
    *lifted_at = s.limited ? s.lifted_at : 0;
    return 1;
}

static const ox_api api_table = {
    .struct_size = sizeof(ox_api),
    .abi_major = OX_PLUGIN_ABI_MAJOR,
    .abi_minor = OX_PLUGIN_ABI_MINOR,
    .opset = api_opset,
    .op_name = api_op_name,
    .scope = api_scope,
    .fail = api_fail,
    .arg_present = api_arg_present,
    .arg_kind = api_arg_kind,
    .arg_tensor = api_arg_tensor,
    .arg_tensors = api_arg_tensors,
    .arg_int = api_arg_int,
    .arg_float = api_arg_float,
    .arg_string = api_arg_string,
    .arg_ints = api_arg_ints,
    .arg_floats = api_arg_floats,
    .dtype = api_dtype,
    .rank = api_rank,
    .size = api_size,
    .is_const = api_is_const,
    .const_data = api_const_data,
    .const_scalar = api_const_scalar,
    .op = api_op,
    .op_domain = api_op_domain,
    .node_output = api_node_output,
    .attr_float = api_attr_float,
    .attr_int = api_attr_int,
    .attr_string = api_attr_string,
    .attr_floats = api_attr_floats,
    .attr_ints = api_attr_ints,
    .attr_strings = api_attr_strings,
    .attr_tensor = api_attr_tensor,
    .set_type = api_set_type,
    .constant = api_constant,
    .const_ints = api_const_ints,
    .const_scalar_of = api_const_scalar_of,
    .scalar_like = api_scalar_like,
    .set_output = api_set_output,
    .log = api_log,
    /* 1.1 */
    .limit = api_limit,
    .n_outputs = api_n_outputs,
    .checking = api_checking,
    .output_dtype = api_output_dtype,
    /* 1.2 */
    .body_begin = api_body_begin,
    .body_end = api_body_end,
    .attr_graph = api_attr_graph,
    .fixed_size = api_fixed_size,
};

const ox_api *ox_symbolic_api(void)
{
    return &api_table;
}
