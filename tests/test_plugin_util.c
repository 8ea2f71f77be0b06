/*
 * The plugin SDK (oxport/plugin_util.h) through the real engine: an
 * in-process pack whose symbolics call one builder each is converted at the
 * opsets where the builder's lowering changes, and the ONNX nodes built are
 * compared as a one-line rendering (op types, which operands are inputs and
 * which attributes, constants with their values).  The promotion rules are
 * checked against torch.result_type for every pair of operand kinds
 * (tests/golden/torch_promotion.tsv, written by tools/gen-promotion-table).
 */
/* before check.h, whose `fail` macro would rewrite the SDK's api->fail calls */
#include "oxport/plugin_util.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "oxport/oxport.h"
#include "symbolic_harness.h"
#include "test_util.h"

/* ------------------------------------------------------------ the pack */

static int sym_unsqueeze(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_unsqueeze(g, api, api->arg_tensor(g, "self"), 1));
}

static int sym_unsqueeze2(ox_sym *g, const ox_api *api)
{
    static const int64_t axes[] = {0, 3};
    return oxu_set_result(g, api, 0,
                          oxu_unsqueeze_axes(g, api, api->arg_tensor(g, "self"), axes, 2));
}

static int sym_squeeze(ox_sym *g, const ox_api *api)
{
    int64_t axis = 1;
    return oxu_set_result(g, api, 0, oxu_squeeze(g, api, api->arg_tensor(g, "self"), &axis, 1));
}

static int sym_squeeze_all(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_squeeze(g, api, api->arg_tensor(g, "self"), NULL, 0));
}

static int sym_slice(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_slice(g, api, api->arg_tensor(g, "self"), 1, 1, 3, 1));
}

static int sym_slice_step(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_slice(g, api, api->arg_tensor(g, "self"), 2, 0, 4, 2));
}

static int split_results(ox_sym *g, const ox_api *api, const int64_t *sizes, int64_t axis)
{
    ox_vid outs[2];
    if (oxu_split(g, api, api->arg_tensor(g, "self"), axis, sizes, 2, outs))
        return 1;
    return oxu_set_result(g, api, 0, outs[0]) || oxu_set_result(g, api, 1, outs[1]);
}

static int sym_split(ox_sym *g, const ox_api *api)
{
    static const int64_t sizes[] = {1, 2};
    return split_results(g, api, sizes, 1);
}

static int sym_split_equal(ox_sym *g, const ox_api *api)
{
    return split_results(g, api, NULL, 0);
}

static int sym_split_none(ox_sym *g, const ox_api *api)
{
    ox_vid out;
    return oxu_split(g, api, api->arg_tensor(g, "self"), 0, NULL, 0, &out);
}

static int sym_pad(ox_sym *g, const ox_api *api)
{
    static const int64_t pads[] = {0, 1, 0, 2};
    return oxu_set_result(g, api, 0,
                          oxu_pad(g, api, api->arg_tensor(g, "self"), "constant", pads, 4, 1.5));
}

static int sym_pad_reflect(ox_sym *g, const ox_api *api)
{
    static const int64_t pads[] = {0, 1, 0, 2};
    return oxu_set_result(g, api, 0,
                          oxu_pad(g, api, api->arg_tensor(g, "self"), "reflect", pads, 4, 0.0));
}

/* torch's order: pad = (last-dim begin, last-dim end, ...) */
static int sym_pad_torch(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0,
                          oxu_pad_arg(g, api, api->arg_tensor(g, "self"), "pad", "constant", 0.0));
}

/* pad amounts recorded as a traced 1-D int64 tensor, "other" */
static int sym_pad_traced(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0,
                          oxu_pad_arg(g, api, api->arg_tensor(g, "self"), "other", "constant",
                                      0.0));
}

static int sym_clip(ox_sym *g, const ox_api *api)
{
    double lo = -1.0, hi = 1.0;
    return oxu_set_result(g, api, 0, oxu_clip(g, api, api->arg_tensor(g, "self"), &lo, &hi));
}

static int sym_clip_lo(ox_sym *g, const ox_api *api)
{
    double lo = 0.0;
    return oxu_set_result(g, api, 0, oxu_clip(g, api, api->arg_tensor(g, "self"), &lo, NULL));
}

static int reduce(ox_sym *g, const ox_api *api, const char *type)
{
    int64_t axis = 1;
    return oxu_set_result(g, api, 0,
                          oxu_reduce(g, api, type, api->arg_tensor(g, "self"), &axis, 1, 1));
}

static int sym_reduce_sum(ox_sym *g, const ox_api *api)
{
    return reduce(g, api, "ReduceSum");
}

static int sym_reduce_mean(ox_sym *g, const ox_api *api)
{
    return reduce(g, api, "ReduceMean");
}

static int sym_resize(ox_sym *g, const ox_api *api)
{
    static const float scales[] = {1, 1, 2, 2};
    oxu_resize_opts o = {"nearest", "asymmetric", "floor"};
    return oxu_set_result(g, api, 0,
                          oxu_resize(g, api, api->arg_tensor(g, "self"), scales, 4, 0, &o));
}

static int sym_resize_linear(ox_sym *g, const ox_api *api)
{
    static const float scales[] = {1, 1, 2, 2};
    oxu_resize_opts o = {"linear", "pytorch_half_pixel", NULL};
    return oxu_set_result(g, api, 0,
                          oxu_resize(g, api, api->arg_tensor(g, "self"), scales, 4, 0, &o));
}

static int sym_resize_cubic(ox_sym *g, const ox_api *api)
{
    static const float scales[] = {1, 1, 2, 2};
    oxu_resize_opts o = {"cubic", NULL, NULL};
    return oxu_set_result(g, api, 0,
                          oxu_resize(g, api, api->arg_tensor(g, "self"), scales, 4, 0, &o));
}

static int sym_resize_sizes(ox_sym *g, const ox_api *api)
{
    static const int64_t sizes[] = {1, 1, 4, 4};
    oxu_resize_opts o = {"nearest", "asymmetric", "floor"};
    ox_vid s = oxu_const_ints(g, api, sizes, 4);
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, oxu_resize(g, api, x, NULL, 4, s, &o));
}

static int sym_resize_nothing(ox_sym *g, const ox_api *api)
{
    oxu_resize_opts o = {"nearest", NULL, NULL};
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, oxu_resize(g, api, x, NULL, 4, 0, &o));
}

static int sym_promote_many(ox_sym *g, const ox_api *api)
{
    ox_vid v[17];
    for (size_t i = 0; i < 17; i++)
        v[i] = api->arg_tensor(g, "self");
    return oxu_promote(g, api, 17, v, NULL);
}

/* x's shape filled with 2, as int32 (stored int64, then cast) */
static int sym_full(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, oxu_full(g, api, oxu_shape(g, api, x), 2.0, OX_INT32));
}

static int sym_full_float(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, oxu_full(g, api, oxu_shape(g, api, x), 0.5, OX_FLOAT));
}

/* a second cast to the type already reached builds nothing */
static int sym_cast(ox_sym *g, const ox_api *api)
{
    ox_vid y = oxu_cast_to(g, api, api->arg_tensor(g, "self"), OX_INT64);
    return oxu_set_result(g, api, 0, oxu_cast_to(g, api, y, OX_INT64));
}

static int sym_size_of(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_size_of(g, api, api->arg_tensor(g, "self"), 1));
}

static int sym_shape_slice(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_shape_slice(g, api, api->arg_tensor(g, "self"), 0, 2));
}

static int sym_axis(ox_sym *g, const ox_api *api)
{
    int64_t axis;
    ox_vid x = api->arg_tensor(g, "self");
    if (oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis))
        return 1;
    return oxu_set_result(g, api, 0, oxu_unsqueeze(g, api, x, axis));
}

/* self + other in their torch.result_type, the result cast to it */
static int sym_add(ox_sym *g, const ox_api *api)
{
    static const char *const names[] = {"self", "other"};
    ox_vid v[2];
    ox_dtype t;
    if (oxu_promote_args(g, api, 2, names, v, &t))
        return 1;
    return oxu_set_result_as(g, api, 0, oxu_op2(g, api, "Add", v[0], v[1]), t);
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_pad[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM("pad", OX_ARG_INTS)};
static const ox_param_decl p_axis[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM("dim", OX_ARG_INT)};
/* other is optional so the pre-scan lets a None through to oxu_promote_args
 * (whose own message is under test); a required one is refused earlier */
static const ox_param_decl p_add[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM_NULL("other", OX_ARG_TENSOR_OR_SCALAR)};

static const ox_op_decl sdk_ops[] = {
    OX_OP("sdk::unsqueeze", 9, p_self, 1, sym_unsqueeze),
    OX_OP("sdk::unsqueeze2", 9, p_self, 1, sym_unsqueeze2),
    OX_OP("sdk::squeeze", 9, p_self, 1, sym_squeeze),
    OX_OP("sdk::squeeze_all", 9, p_self, 1, sym_squeeze_all),
    OX_OP("sdk::slice", 9, p_self, 1, sym_slice),
    OX_OP("sdk::slice_step", 9, p_self, 1, sym_slice_step),
    OX_OP("sdk::split", 9, p_self, 2, sym_split),
    OX_OP("sdk::split_equal", 9, p_self, 2, sym_split_equal),
    OX_OP("sdk::split_none", 9, p_self, 1, sym_split_none),
    OX_OP("sdk::pad", 9, p_self, 1, sym_pad),
    OX_OP("sdk::pad_reflect", 9, p_self, 1, sym_pad_reflect),
    OX_OP("sdk::pad_torch", 9, p_pad, 1, sym_pad_torch),
    OX_OP("sdk::pad_traced", 9, p_add, 1, sym_pad_traced),
    OX_OP("sdk::clip", 9, p_self, 1, sym_clip),
    OX_OP("sdk::clip_lo", 9, p_self, 1, sym_clip_lo),
    OX_OP("sdk::reduce_sum", 9, p_self, 1, sym_reduce_sum),
    OX_OP("sdk::reduce_mean", 9, p_self, 1, sym_reduce_mean),
    OX_OP("sdk::resize", 9, p_self, 1, sym_resize),
    OX_OP("sdk::resize_linear", 9, p_self, 1, sym_resize_linear),
    OX_OP("sdk::resize_cubic", 9, p_self, 1, sym_resize_cubic),
    OX_OP("sdk::resize_sizes", 9, p_self, 1, sym_resize_sizes),
    OX_OP("sdk::resize_nothing", 9, p_self, 1, sym_resize_nothing),
    OX_OP("sdk::promote_many", 9, p_self, 1, sym_promote_many),
    OX_OP("sdk::full", 9, p_self, 1, sym_full),
    OX_OP("sdk::full_float", 9, p_self, 1, sym_full_float),
    OX_OP("sdk::cast", 9, p_self, 1, sym_cast),
    OX_OP("sdk::size_of", 9, p_self, 1, sym_size_of),
    OX_OP("sdk::shape_slice", 9, p_self, 1, sym_shape_slice),
    OX_OP("sdk::axis", 9, p_axis, 1, sym_axis),
    OX_OP("sdk::add", 9, p_add, 1, sym_add),
};

static const ox_plugin_desc sdk_desc = {
    OX_PLUGIN_HEADER, "sdk", "1", "plugin SDK test pack", sdk_ops,
    sizeof sdk_ops / sizeof sdk_ops[0], NULL, NULL,
};

/* ------------------------------------------------------------ harness */

/* Opset descriptors for 9..18 that declare nothing (the pack's declarations
 * are the operators' only schema), so 18 is a valid target. */
static char opset_dir[64];

static void make_opsets(void)
{
    snprintf(opset_dir, sizeof opset_dir, "/tmp/oxsdk-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(opset_dir));
    for (int v = 9; v <= 18; v++) {
        char path[128];
        snprintf(path, sizeof path, "%s/opset_%d.yaml", opset_dir, v);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "opset: %d\noperators:\n  sdk::declared_elsewhere:\n    params:\n"
                   "      - self\n",
                v);
        fclose(f);
    }
}

static void drop_opsets(void)
{
    rm_rf(opset_dir);
}

static ox_context *sdk_ctx(void)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, opset_dir), OX_OK);
    ck_assert_msg(ox_context_add_pack(ctx, &sdk_desc, "test:sdk") == OX_OK, "%s",
                  ox_errmsg(ctx));
    return ctx;
}

/* One traced op: inputs x (and y when y_rank >= 0), extra arguments, outputs. */
typedef struct op_case {
    const char *op;
    ox_dtype x_dt;
    int x_rank;
    int64_t x_dims[OXU_MAX_RANK + 1]; /* one past what the SDK lays out */
    ox_dtype y_dt; /* second tensor input, "other", when not OX_UNDEFINED */
    int y_rank;
    int64_t y_dims[4];
    size_t n_extra;
    ox_arg extra[2];
    uint32_t n_out;
    ox_dtype out_dt;
} op_case;

/* out_rank: the outputs' recorded rank (sizes unknown).  The conversion
 * compares no shapes, but a written file must state the rank. */
static ox_graph *trace_ranked(ox_context *ctx, const op_case *c, int out_rank)
{
    ox_trace *t;
    ox_vid x, y = 0, out[2];
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ck_assert_int_eq(ox_trace_input(t, "x", c->x_dt, (uint32_t)c->x_rank, c->x_dims, &x), OX_OK);
    ox_arg args[4];
    size_t n = 0;
    args[n++] = ox_arg_tensor("self", x);
    if (c->y_dt != OX_UNDEFINED) {
        ck_assert_int_eq(ox_trace_input(t, "y", c->y_dt, (uint32_t)c->y_rank, c->y_dims, &y),
                         OX_OK);
        args[n++] = ox_arg_tensor("other", y);
    }
    for (size_t i = 0; i < c->n_extra; i++)
        args[n++] = c->extra[i];
    static const int64_t unknown[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    ox_tensor_desc od[2] = {{c->out_dt, (uint32_t)out_rank, unknown},
                            {c->out_dt, (uint32_t)out_rank, unknown}};
    uint32_t n_out = c->n_out ? c->n_out : 1;
    ck_assert_msg(ox_trace_op(t, c->op, n, args, n_out, od, out) == OX_OK, "%s: %s", c->op,
                  ox_errmsg(ctx));
    for (uint32_t i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof name, "out%u", (unsigned)i);
        ck_assert_int_eq(ox_trace_output(t, out[i], name), OX_OK);
    }
    ox_graph *g;
    ck_assert_msg(ox_trace_finish(t, &g) == OX_OK, "%s", ox_errmsg(ctx));
    return g;
}

/* The engine holds a symbolic to the recorded element type only. */
static ox_graph *trace_case(ox_context *ctx, const op_case *c)
{
    return trace_ranked(ctx, c, 0);
}

static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (at < cap)
        at += (size_t)vsnprintf(buf + at, cap - at, fmt, ap);
    va_end(ap);
    return at;
}

static size_t put_number(char *buf, size_t cap, size_t at, ox_dtype t, const void *p)
{
    switch (t) {
    case OX_FLOAT: return put(buf, cap, at, "%g", (double)*(const float *)p);
    case OX_DOUBLE: return put(buf, cap, at, "%g", *(const double *)p);
    case OX_INT64: return put(buf, cap, at, "%lld", (long long)*(const int64_t *)p);
    case OX_INT32: return put(buf, cap, at, "%d", (int)*(const int32_t *)p);
    case OX_BOOL: case OX_UINT8: return put(buf, cap, at, "%u", *(const uint8_t *)p);
    case OX_INT8: return put(buf, cap, at, "%d", *(const int8_t *)p);
    case OX_INT16: return put(buf, cap, at, "%d", *(const int16_t *)p);
    default: return put(buf, cap, at, "?");
    }
}

/* A tensor: dtype{values}, or dtype:value for rank 0. */
static size_t put_tensor(const ox_attr_tensor *t, char *buf, size_t cap, size_t at)
{
    size_t es = ox_dtype_size(t->dtype);
    size_t count = es ? (size_t)(t->data.nbytes / es) : 0;
    if (t->rank == 0) {
        at = put(buf, cap, at, "%s:", ox_dtype_name(t->dtype));
        return put_number(buf, cap, at, t->dtype, t->data.data);
    }
    at = put(buf, cap, at, "%s{", ox_dtype_name(t->dtype));
    for (size_t i = 0; i < count; i++) {
        at = put(buf, cap, at, i ? "," : "");
        at = put_number(buf, cap, at, t->dtype, (const char *)t->data.data + i * es);
    }
    return put(buf, cap, at, "}");
}

/* A Constant node's value, inline. */
static size_t put_constant(const ox_node *n, char *buf, size_t cap, size_t at)
{
    const ox_attr *a = ox_node_attr(n, "value");
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(a->kind, OX_ATTR_TENSOR);
    return put_tensor(a->u.t, buf, cap, at);
}

/* A value as a node input: a graph input by name, %k for output 0 of node k
 * (%k.j for output j), a constant as dtype{values} (rank 0: dtype:value). */
static size_t put_value(const ox_graph *og, ox_node *const *nodes, size_t n_nodes, char *buf,
                        size_t cap, size_t at, ox_vid id)
{
    if (!id)
        return put(buf, cap, at, "_");
    const ox_value *v = ox_graph_value(og, id);
    ck_assert_ptr_nonnull(v);
    if (v->kind == OX_VAL_INPUT)
        return put(buf, cap, at, "%s", v->name);
    if (v->kind == OX_VAL_NODE && strcmp(v->producer->op_type, "Constant") == 0)
        return put_constant(v->producer, buf, cap, at);
    if (v->kind == OX_VAL_NODE) {
        for (size_t k = 0; k < n_nodes; k++)
            if (nodes[k] == v->producer)
                return v->producer_index ? put(buf, cap, at, "%%%zu.%u", k, v->producer_index)
                                         : put(buf, cap, at, "%%%zu", k);
        return put(buf, cap, at, "%%?");
    }
    return put(buf, cap, at, "<%s value>", v->kind == OX_VAL_CONST ? "const" : "param");
}

/* The converted graph's nodes in order, Op(inputs; attributes) | ..., with
 * Constant nodes folded into the inputs that use them. */
static void render(const ox_graph *og, char *buf, size_t cap)
{
    ox_node *nodes[64];
    size_t n_nodes = 0, at = 0;
    for (ox_node *n = og->first; n && n_nodes < 64; n = n->next)
        if (strcmp(n->op_type, "Constant") != 0) /* shown inline where used */
            nodes[n_nodes++] = n;
    buf[0] = '\0';
    for (size_t k = 0; k < n_nodes; k++) {
        const ox_node *n = nodes[k];
        at = put(buf, cap, at, "%s%s(", k ? " | " : "", n->op_type);
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            at = put(buf, cap, at, i ? ", " : "");
            at = put_value(og, nodes, n_nodes, buf, cap, at, n->inputs[i]);
        }
        for (uint32_t i = 0; i < n->n_attrs; i++) {
            const ox_attr *a = &n->attrs[i];
            at = put(buf, cap, at, "%s%s=", i ? ", " : "; ", a->name);
            switch (a->kind) {
            case OX_ATTR_INT: at = put(buf, cap, at, "%lld", (long long)a->u.i); break;
            case OX_ATTR_FLOAT: at = put(buf, cap, at, "%g", a->u.f); break;
            case OX_ATTR_STRING: at = put(buf, cap, at, "%.*s", (int)a->u.s.len, a->u.s.p); break;
            case OX_ATTR_INTS:
                at = put(buf, cap, at, "[");
                for (size_t j = 0; j < a->u.ints.n; j++)
                    at = put(buf, cap, at, "%s%lld", j ? "," : "", (long long)a->u.ints.p[j]);
                at = put(buf, cap, at, "]");
                break;
            case OX_ATTR_TENSOR: at = put_tensor(a->u.t, buf, cap, at); break;
            default: at = put(buf, cap, at, "<kind %d>", (int)a->kind); break;
            }
        }
        at = put(buf, cap, at, ")");
    }
    ck_assert_uint_lt(at, cap);
}

/* Converts c at opset and compares the rendering of the nodes built. */
static void expect_nodes(const op_case *c, int opset, const char *want)
{
    ox_context *ctx = sdk_ctx();
    ox_graph *g = trace_case(ctx, c), *og = NULL;
    ck_assert_msg(ox_convert(ctx, g, opset, &og) == OX_OK, "%s at opset %d: %s", c->op, opset,
                  ox_errmsg(ctx));
    char got[2048];
    render(og, got, sizeof got);
    ck_assert_msg(strcmp(got, want) == 0, "%s at opset %d:\n got  %s\n want %s", c->op, opset,
                  got, want);
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}

/* Converts c at opset and expects the conversion to fail with `msg` for it. */
static void expect_failure(const op_case *c, int opset, const char *msg)
{
    ox_context *ctx = sdk_ctx();
    ox_graph *g = trace_case(ctx, c), *og = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, opset, &og), OX_EUNSUPPORTED);
    char want[1024];
    snprintf(want, sizeof want,
             "Couldn't export operator(s): 1 problem(s) at opset %d:\n  - %s at Net: %s (symbolic "
             "in test:sdk)",
             opset, c->op, msg);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    ck_assert_ptr_null(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}

#define F32 OX_FLOAT
#define X234 F32, 3, {2, 3, 4}, OX_UNDEFINED, 0, {0}
#define X23 F32, 2, {2, 3}, OX_UNDEFINED, 0, {0}
#define X1234 F32, 4, {1, 2, 3, 4}, OX_UNDEFINED, 0, {0}

/* ------------------------------------------------------------ the builders */

START_TEST(unsqueeze_and_squeeze_take_axes_as_input_from_13)
{
    op_case u = {"sdk::unsqueeze", X234, 0, {{0}}, 1, F32};
    expect_nodes(&u, 9, "Unsqueeze(x; axes=[1])");
    expect_nodes(&u, 12, "Unsqueeze(x; axes=[1])");
    expect_nodes(&u, 13, "Unsqueeze(x, int64{1})");
    op_case u2 = {"sdk::unsqueeze2", X234, 0, {{0}}, 1, F32};
    expect_nodes(&u2, 11, "Unsqueeze(x; axes=[0,3])");
    expect_nodes(&u2, 17, "Unsqueeze(x, int64{0,3})");
    op_case s = {"sdk::squeeze", F32, 3, {2, 1, 4}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, F32};
    expect_nodes(&s, 9, "Squeeze(x; axes=[1])");
    expect_nodes(&s, 13, "Squeeze(x, int64{1})");
    op_case all = {"sdk::squeeze_all", F32, 3, {2, 1, 4}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, F32};
    expect_nodes(&all, 9, "Squeeze(x)");
    expect_nodes(&all, 13, "Squeeze(x)");
}
END_TEST

START_TEST(slice_has_attributes_at_9_and_inputs_from_10)
{
    op_case c = {"sdk::slice", X234, 0, {{0}}, 1, F32};
    expect_nodes(&c, 9, "Slice(x; starts=[1], ends=[3], axes=[1])");
    expect_nodes(&c, 10, "Slice(x, int64{1}, int64{3}, int64{1})");
    op_case st = {"sdk::slice_step", X234, 0, {{0}}, 1, F32};
    expect_nodes(&st, 10, "Slice(x, int64{0}, int64{4}, int64{2}, int64{2})");
    expect_failure(&st, 9,
                   "Slice has no steps before opset 10 (step=2); export with opset 10 or later");
}
END_TEST

START_TEST(split_sizes_attribute_then_input_then_num_outputs)
{
    op_case c = {"sdk::split", X234, 0, {{0}}, 2, F32};
    expect_nodes(&c, 9, "Split(x; axis=1, split=[1,2])");
    expect_nodes(&c, 12, "Split(x; axis=1, split=[1,2])");
    expect_nodes(&c, 13, "Split(x, int64{1,2}; axis=1)");
    expect_nodes(&c, 18, "Split(x, int64{1,2}; axis=1)");
    op_case eq = {"sdk::split_equal", X234, 0, {{0}}, 2, F32};
    expect_nodes(&eq, 9, "Split(x; axis=0)");
    expect_nodes(&eq, 17, "Split(x; axis=0)");
    expect_nodes(&eq, 18, "Split(x; axis=0, num_outputs=2)");
    op_case none = {"sdk::split_none", X234, 0, {{0}}, 1, F32};
    expect_failure(&none, 13, "Split into 0 parts");
}
END_TEST

START_TEST(pad_attributes_before_11_inputs_from_11)
{
    op_case c = {"sdk::pad", X23, 0, {{0}}, 1, F32};
    expect_nodes(&c, 9, "Pad(x; mode=constant, pads=[0,1,0,2], value=1.5)");
    expect_nodes(&c, 11, "Pad(x, int64{0,1,0,2}, float32:1.5; mode=constant)");
    /* Pad-2 takes floats only: an integer tensor is padded as double */
    op_case i = {"sdk::pad", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64};
    expect_nodes(&i, 9,
                 "Cast(x; to=11) | Pad(%0; mode=constant, pads=[0,1,0,2], value=1.5) | "
                 "Cast(%1; to=7)");
    expect_nodes(&i, 11, "Pad(x, int64{0,1,0,2}, int64:1; mode=constant)");
    op_case r = {"sdk::pad_reflect", X23, 0, {{0}}, 1, F32};
    expect_nodes(&r, 10, "Pad(x; mode=reflect, pads=[0,1,0,2])");
    expect_nodes(&r, 11, "Pad(x, int64{0,1,0,2}; mode=reflect)");
}
END_TEST

START_TEST(pad_from_torch_order)
{
    static const int64_t last[] = {1, 2}, odd[] = {1, 2, 3};
    op_case c = {"sdk::pad_torch", X234, 1, {ox_arg_ints("pad", last, 2)}, 1, F32};
    /* (1, 2) pads the last dimension: begins [0,0,1], ends [0,0,2] */
    expect_nodes(&c, 11, "Pad(x, int64{0,0,1,0,0,2}, float32:0; mode=constant)");
    op_case bad = {"sdk::pad_torch", X234, 1, {ox_arg_ints("pad", odd, 3)}, 1, F32};
    expect_failure(&bad, 11,
                   "argument 'pad' has 3 values; expected an even count of at most 6 for a "
                   "rank-3 input");
}
END_TEST

START_TEST(pad_failures_name_the_argument_and_the_opset)
{
    static const int64_t two[] = {1, 1};
    op_case big = {"sdk::pad_torch", F32, 9, {1, 1, 1, 1, 1, 1, 1, 1, 1},
                   OX_UNDEFINED, 0, {0}, 1, {ox_arg_ints("pad", two, 2)}, 1, F32};
    expect_failure(&big, 11, "padding supports inputs up to rank 8, got rank 9");
    /* traced amounts: Pad's pads input, so opset 11 */
    op_case tr = {"sdk::pad_traced", F32, 2, {2, 3}, OX_INT64, 1, {2}, 0, {{0}}, 1, F32};
    expect_failure(&tr, 10,
                   "pad amounts computed from traced sizes need Pad's pads input, from opset 11; "
                   "export with opset 11 or later");
    /* [0, pad...] gathered into ONNX order: (begin, end) of the last dim */
    expect_nodes(&tr, 11,
                 "Concat(int64{0}, y; axis=0) | Gather(%0, int64{0,1,0,2}; axis=0) | "
                 "Pad(x, %1, float32:0; mode=constant)");
    op_case odd = {"sdk::pad_traced", F32, 2, {2, 3}, OX_INT64, 1, {3}, 0, {{0}}, 1, F32};
    expect_failure(&odd, 11,
                   "argument 'other' has 3 values; expected an even count of at most 4 for a "
                   "rank-2 input");
}
END_TEST

START_TEST(clip_bounds_attributes_then_inputs_integers_by_where)
{
    op_case c = {"sdk::clip", X23, 0, {{0}}, 1, F32};
    expect_nodes(&c, 9, "Clip(x; min=-1, max=1)");
    expect_nodes(&c, 11, "Clip(x, float32:-1, float32:1)");
    op_case lo = {"sdk::clip_lo", X23, 0, {{0}}, 1, F32};
    expect_nodes(&lo, 10, "Clip(x; min=0)");
    expect_nodes(&lo, 11, "Clip(x, float32:0, _)");
    /* Clip takes integers from opset 12 */
    op_case i = {"sdk::clip", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64};
    const char *where = "Less(x, int64:-1) | Where(%0, int64:-1, x) | Greater(%1, int64:1) | "
                        "Where(%2, int64:1, %1)";
    expect_nodes(&i, 9, where);
    expect_nodes(&i, 11, where);
    expect_nodes(&i, 12, "Clip(x, int64:-1, int64:1)");
}
END_TEST

START_TEST(reduce_axes_input_from_13_for_sum_and_18_for_the_others)
{
    op_case s = {"sdk::reduce_sum", X234, 0, {{0}}, 1, F32};
    expect_nodes(&s, 12, "ReduceSum(x; axes=[1], keepdims=1)");
    expect_nodes(&s, 13, "ReduceSum(x, int64{1}; keepdims=1)");
    op_case m = {"sdk::reduce_mean", X234, 0, {{0}}, 1, F32};
    expect_nodes(&m, 13, "ReduceMean(x; axes=[1], keepdims=1)");
    expect_nodes(&m, 17, "ReduceMean(x; axes=[1], keepdims=1)");
    expect_nodes(&m, 18, "ReduceMean(x, int64{1}; keepdims=1)");
    ck_assert_int_eq(oxu_reduce_axes_input_opset("ReduceSum"), 13);
    ck_assert_int_eq(oxu_reduce_axes_input_opset("ReduceMax"), 18);
}
END_TEST

START_TEST(resize_is_upsample_at_9_resize_10_and_resize_11)
{
    op_case c = {"sdk::resize", X1234, 0, {{0}}, 1, F32};
    expect_nodes(&c, 9, "Upsample(x, float32{1,1,2,2}; mode=nearest)");
    expect_nodes(&c, 10, "Resize(x, float32{1,1,2,2}; mode=nearest)");
    expect_nodes(&c, 11,
                 "ConstantOfShape(int64{0}) | Resize(x, %0, float32{1,1,2,2}; mode=nearest, "
                 "coordinate_transformation_mode=asymmetric, nearest_mode=floor)");
    expect_nodes(&c, 13,
                 "Resize(x, _, float32{1,1,2,2}; mode=nearest, "
                 "coordinate_transformation_mode=asymmetric, nearest_mode=floor)");
    op_case s = {"sdk::resize_sizes", X1234, 0, {{0}}, 1, F32};
    expect_nodes(&s, 11,
                 "ConstantOfShape(int64{0}) | Resize(x, %0, %0, int64{1,1,4,4}; mode=nearest, "
                 "coordinate_transformation_mode=asymmetric, nearest_mode=floor)");
    expect_nodes(&s, 13,
                 "Resize(x, _, _, int64{1,1,4,4}; mode=nearest, "
                 "coordinate_transformation_mode=asymmetric, nearest_mode=floor)");
    expect_failure(&s, 10,
                   "Resize takes scales only before opset 11 (output sizes need Resize-11); "
                   "export with opset 11 or later");
    op_case l = {"sdk::resize_linear", X1234, 0, {{0}}, 1, F32};
    expect_nodes(&l, 11,
                 "ConstantOfShape(int64{0}) | Resize(x, %0, float32{1,1,2,2}; mode=linear, "
                 "coordinate_transformation_mode=pytorch_half_pixel)");
    expect_failure(&l, 10,
                   "Resize maps coordinates only as 'asymmetric' before opset 11 (asked for "
                   "'pytorch_half_pixel'); export with opset 11 or later");
    op_case none = {"sdk::resize_nothing", X1234, 0, {{0}}, 1, F32};
    expect_failure(&none, 13, "oxu_resize needs scales or sizes");
    op_case cu = {"sdk::resize_cubic", X1234, 0, {{0}}, 1, F32};
    expect_failure(&cu, 9, "Upsample has no mode 'cubic' before opset 11; export with opset 11 "
                           "or later");
    expect_nodes(&cu, 13, "Resize(x, _, float32{1,1,2,2}; mode=cubic)");
}
END_TEST

START_TEST(casts_shapes_and_axes)
{
    op_case c = {"sdk::cast", X23, 0, {{0}}, 1, OX_INT64};
    expect_nodes(&c, 9, "Cast(x; to=7)");
    op_case s = {"sdk::size_of", X234, 0, {{0}}, 1, OX_INT64};
    expect_nodes(&s, 9, "Shape(x) | Gather(%0, int64:1; axis=0)");
    op_case sl = {"sdk::shape_slice", X234, 0, {{0}}, 1, OX_INT64};
    expect_nodes(&sl, 9, "Shape(x) | Slice(%0; starts=[0], ends=[2], axes=[0])");
    expect_nodes(&sl, 13, "Shape(x) | Slice(%0, int64{0}, int64{2}, int64{0})");
    op_case fi = {"sdk::full", X23, 0, {{0}}, 1, OX_INT32};
    expect_nodes(&fi, 9, "Shape(x) | ConstantOfShape(%0; value=int64{2}) | Cast(%1; to=6)");
    op_case ff = {"sdk::full_float", X23, 0, {{0}}, 1, F32};
    expect_nodes(&ff, 9, "Shape(x) | ConstantOfShape(%0; value=float32{0.5})");
    op_case a = {"sdk::axis", X234, 1, {ox_arg_int("dim", -1)}, 1, F32};
    expect_nodes(&a, 13, "Unsqueeze(x, int64{2})");
    op_case far = {"sdk::axis", X234, 1, {ox_arg_int("dim", 3)}, 1, F32};
    expect_failure(&far, 13, "argument 'dim' is 3, outside the range [-3, 2] for a rank-3 input");
}
END_TEST

/* ------------------------------------------------ onnx.checker and ONNX Runtime */

/* onnx.checker (full_check) accepts what each builder emits at the opsets
 * where it changes (up to 17, the newest the installed onnx checks). */
START_TEST(onnx_checker_accepts_every_form)
{
    static const struct {
        op_case c;
        int out_rank;
        int opsets[4];
    } forms[] = {
        {{"sdk::unsqueeze", X234, 0, {{0}}, 1, F32}, 4, {9, 13}},
        {{"sdk::squeeze", F32, 3, {2, 1, 4}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, F32}, 2, {9, 13}},
        {{"sdk::slice_step", X234, 0, {{0}}, 1, F32}, 3, {10}},
        {{"sdk::slice", X234, 0, {{0}}, 1, F32}, 3, {9, 10}},
        {{"sdk::split", X234, 0, {{0}}, 2, F32}, 3, {9, 13}},
        {{"sdk::split_equal", X234, 0, {{0}}, 2, F32}, 3, {9, 13}},
        {{"sdk::pad", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64}, 2,
         {9, 11}},
        {{"sdk::pad_reflect", X23, 0, {{0}}, 1, F32}, 2, {9, 11}},
        {{"sdk::clip", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64}, 2,
         {9, 11, 12}},
        {{"sdk::clip_lo", X23, 0, {{0}}, 1, F32}, 2, {9, 11}},
        {{"sdk::reduce_sum", X234, 0, {{0}}, 1, F32}, 3, {9, 13}},
        {{"sdk::reduce_mean", X234, 0, {{0}}, 1, F32}, 3, {9, 13}},
        {{"sdk::resize", X1234, 0, {{0}}, 1, F32}, 4, {9, 10, 11, 13}},
        {{"sdk::resize_sizes", X1234, 0, {{0}}, 1, F32}, 4, {11, 13}},
        {{"sdk::full", X23, 0, {{0}}, 1, OX_INT32}, 2, {9}},
        {{"sdk::size_of", X234, 0, {{0}}, 1, OX_INT64}, 0, {9}},
        {{"sdk::shape_slice", X234, 0, {{0}}, 1, OX_INT64}, 1, {9, 10}},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        for (size_t k = 0; k < 4 && forms[i].opsets[k]; k++) {
            ox_context *ctx = sdk_ctx();
            ox_graph *g = trace_ranked(ctx, &forms[i].c, forms[i].out_rank);
            char dir[] = "/tmp/oxsdk-chk-XXXXXX";
            ck_assert_ptr_nonnull(mkdtemp(dir));
            sym_write_checked(ctx, g, forms[i].opsets[k], dir);
            rm_rf(dir);
            ox_graph_free(g);
            ox_context_free(ctx);
        }
}
END_TEST

/* The integer lowerings compute what torch does: clamp by Where before
 * opset 12, constant padding through double before 11. */
static void run_int64(const op_case *c, int opset, const int64_t *x, size_t n_out,
                      const int64_t *want)
{
    ox_context *ctx = sdk_ctx();
    ox_graph *g = trace_ranked(ctx, c, c->x_rank);
    char dir[] = "/tmp/oxsdk-ort-XXXXXX", path[4200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sym_write_checked(ctx, g, opset, dir);
    feed f = {"x", "int64", c->x_rank, c->x_dims, x, sizeof(int64_t)};
    sym_run_ort(dir, opset, 1, &f);
    size_t n = 0;
    snprintf(path, sizeof path, "%s/out/output_0.bin", dir);
    int64_t *got = read_file(path, &n);
    ck_assert_uint_eq(n, n_out * sizeof(int64_t));
    for (size_t i = 0; i < n_out; i++)
        ck_assert_msg(got[i] == want[i], "%s at opset %d: [%zu] is %lld, want %lld", c->op, opset,
                      i, (long long)got[i], (long long)want[i]);
    free(got);
    rm_rf(dir);
    ox_graph_free(g);
    ox_context_free(ctx);
}

START_TEST(integer_lowerings_compute_torchs_values)
{
    static const int64_t x[6] = {-3, -1, 0, 1, 2, 5};
    op_case clip = {"sdk::clip", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64};
    static const int64_t clipped[6] = {-1, -1, 0, 1, 1, 1};
    run_int64(&clip, 9, x, 6, clipped);
    run_int64(&clip, 12, x, 6, clipped);
    /* pads [0,1,0,2]: one column before, two after, value 1.5 truncated to 1 */
    op_case pad = {"sdk::pad", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 0, {{0}}, 1, OX_INT64};
    static const int64_t padded[12] = {1, -3, -1, 0, 1, 1, 1, 1, 2, 5, 1, 1};
    run_int64(&pad, 9, x, 12, padded);
}
END_TEST

/* ------------------------------------------------------------ promotion */

START_TEST(promote_casts_to_the_torch_result_type)
{
    /* a 0-dim float32 does not widen a float16 tensor */
    op_case h = {"sdk::add", OX_FLOAT16, 2, {2, 3}, F32, 0, {0}, 0, {{0}}, 1, OX_FLOAT16};
    expect_nodes(&h, 13, "Cast(y; to=10) | Add(x, %0)");
    /* a 0-dim float64 lifts an int32 tensor to float64 */
    op_case d = {"sdk::add", OX_INT32, 2, {2, 3}, OX_DOUBLE, 0, {0}, 0, {{0}}, 1, OX_DOUBLE};
    expect_nodes(&d, 13, "Cast(x; to=11) | Add(%0, y)");
    /* uint8 with int8 needs int16 (which Add takes from opset 14) */
    op_case u = {"sdk::add", OX_UINT8, 1, {3}, OX_INT8, 1, {3}, 0, {{0}}, 1, OX_INT16};
    expect_nodes(&u, 14, "Cast(x; to=5) | Cast(y; to=5) | Add(%0, %1)");
    /* a Python float makes an int64 tensor the default float32 */
    op_case n = {"sdk::add", OX_INT64, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 1,
                 {ox_arg_float("other", 2.5)}, 1, F32};
    expect_nodes(&n, 13, "Cast(x; to=1) | Add(%0, float32:2.5)");
    /* a Python int keeps an int32 tensor int32 */
    op_case k = {"sdk::add", OX_INT32, 2, {2, 3}, OX_UNDEFINED, 0, {0}, 1,
                 {ox_arg_int("other", 2)}, 1, OX_INT32};
    expect_nodes(&k, 13, "Add(x, int32:2)");
    /* same types: nothing to cast */
    op_case same = {"sdk::add", F32, 2, {2, 3}, F32, 2, {2, 3}, 0, {{0}}, 1, F32};
    expect_nodes(&same, 9, "Add(x, y)");
}
END_TEST

static int dtype_named(const char *name, ox_dtype *out)
{
    static const ox_dtype all[] = {OX_BOOL,  OX_UINT8,   OX_INT8,     OX_INT16, OX_INT32,
                                   OX_INT64, OX_FLOAT16, OX_BFLOAT16, OX_FLOAT, OX_DOUBLE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(ox_dtype_name(all[i]), name) == 0) {
            *out = all[i];
            return 1;
        }
    return 0;
}

static int level_named(const char *name, oxu_operand_level *out)
{
    *out = strcmp(name, "tensor") == 0    ? OXU_TENSOR
           : strcmp(name, "zerodim") == 0 ? OXU_ZERO_DIM
                                          : OXU_NUMBER;
    return strcmp(name, "tensor") == 0 || strcmp(name, "zerodim") == 0 ||
           strcmp(name, "number") == 0;
}

/* Every row of torch.result_type's table (both orders of every pair). */
START_TEST(result_type_agrees_with_torch)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/tests/golden/torch_promotion.tsv", srcdir());
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char a[32], la[32], b[32], lb[32], r[32];
        ck_assert_int_eq(sscanf(line, "%31s %31s %31s %31s %31s", a, la, b, lb, r), 5);
        ox_dtype t[2], want;
        oxu_operand_level l[2];
        ck_assert_msg(dtype_named(a, &t[0]) && dtype_named(b, &t[1]) && dtype_named(r, &want),
                      "unknown dtype in %s", line);
        ck_assert_msg(level_named(la, &l[0]) && level_named(lb, &l[1]), "bad level in %s", line);
        ox_dtype got = oxu_result_type(2, t, l);
        ck_assert_msg(got == want, "%s %s + %s %s: got %s, torch gives %s", a, la, b, lb,
                      ox_dtype_name(got), r);
        rows++;
    }
    fclose(f);
    /* 23 operand kinds, pairs of two numbers left out */
    ck_assert_uint_eq(rows, 23 * 23 - 3 * 3);
}
END_TEST

START_TEST(result_type_of_three_and_of_unpromotable_types)
{
    /* int32 tensor, 0-dim float64, Python float: the 0-dim float64 decides */
    ox_dtype t[3] = {OX_INT32, OX_DOUBLE, OX_FLOAT};
    oxu_operand_level l[3] = {OXU_TENSOR, OXU_ZERO_DIM, OXU_NUMBER};
    ck_assert_int_eq(oxu_result_type(3, t, l), OX_DOUBLE);
    /* bool tensor, 0-dim uint8, Python int: the 0-dim uint8 */
    ox_dtype b[3] = {OX_BOOL, OX_UINT8, OX_INT64};
    ck_assert_int_eq(oxu_result_type(3, b, l), OX_UINT8);
    /* float16 with bfloat16: float32 holds both */
    ck_assert_int_eq(oxu_promote_types(OX_FLOAT16, OX_BFLOAT16), OX_FLOAT);
    /* types torch 1.x does not promote, and an unknown one */
    ox_dtype u[2] = {OX_UINT32, OX_INT64};
    ck_assert_int_eq(oxu_result_type(2, u, l), OX_UNDEFINED);
    ox_dtype s[2] = {OX_STRING, OX_FLOAT};
    ck_assert_int_eq(oxu_result_type(2, s, l), OX_UNDEFINED);
    ox_dtype un[2] = {OX_UNDEFINED, OX_FLOAT};
    ck_assert_int_eq(oxu_result_type(2, un, l), OX_UNDEFINED);
}
END_TEST

START_TEST(promote_args_needs_its_tensors)
{
    op_case many = {"sdk::promote_many", X23, 0, {{0}}, 1, F32};
    expect_failure(&many, 13, "oxu_promote takes at most 16 operands, got 17");
    /* "other" recorded as None */
    op_case c = {"sdk::add", X23, 1, {ox_arg_none("other")}, 1, F32};
    expect_failure(&c, 13, "argument 'other' is missing or None");
}
END_TEST

static int fake_limit(ox_sym *g, int lifted_at, const char *fmt, ...)
{
    return 1;
}

static uint32_t fake_n_outputs(ox_sym *g)
{
    return 3;
}

/* A member past the table's struct_size, or left NULL, is not there. */
START_TEST(api_has_reads_struct_size_and_the_member)
{
    ox_api api;
    memset(&api, 0, sizeof api);
    api.struct_size = (uint32_t)sizeof api;
    ck_assert(!OXU_API_HAS(&api, limit));
    api.limit = fake_limit;
    ck_assert(OXU_API_HAS(&api, limit));
    api.struct_size = (uint32_t)offsetof(ox_api, limit); /* a 1.0 engine's table */
    ck_assert(!OXU_API_HAS(&api, limit));
    ck_assert(!OXU_API_HAS(&api, n_outputs));
    /* the recorded arity where the engine tells it, else the declared one */
    api.n_outputs = fake_n_outputs;
    ck_assert_uint_eq(oxu_n_outputs(NULL, &api, 2), 2);
    api.struct_size = (uint32_t)sizeof api;
    ck_assert_uint_eq(oxu_n_outputs(NULL, &api, 2), 3);
}
END_TEST

static Suite *plugin_util_suite(void)
{
    Suite *s = suite_create("plugin_util");
    TCase *b = tcase_create("builders");
    tcase_add_checked_fixture(b, make_opsets, drop_opsets);
    tcase_add_test(b, unsqueeze_and_squeeze_take_axes_as_input_from_13);
    tcase_add_test(b, slice_has_attributes_at_9_and_inputs_from_10);
    tcase_add_test(b, split_sizes_attribute_then_input_then_num_outputs);
    tcase_add_test(b, pad_attributes_before_11_inputs_from_11);
    tcase_add_test(b, pad_from_torch_order);
    tcase_add_test(b, pad_failures_name_the_argument_and_the_opset);
    tcase_add_test(b, clip_bounds_attributes_then_inputs_integers_by_where);
    tcase_add_test(b, reduce_axes_input_from_13_for_sum_and_18_for_the_others);
    tcase_add_test(b, resize_is_upsample_at_9_resize_10_and_resize_11);
    tcase_add_test(b, casts_shapes_and_axes);
    tcase_add_test(b, promote_casts_to_the_torch_result_type);
    tcase_add_test(b, promote_args_needs_its_tensors);
    suite_add_tcase(s, b);
    TCase *o = tcase_create("onnx");
    tcase_add_checked_fixture(o, make_opsets, drop_opsets);
    tcase_set_timeout(o, 300);
    tcase_add_test(o, onnx_checker_accepts_every_form);
    tcase_add_test(o, integer_lowerings_compute_torchs_values);
    suite_add_tcase(s, o);
    TCase *p = tcase_create("promotion");
    tcase_add_test(p, result_type_agrees_with_torch);
    tcase_add_test(p, result_type_of_three_and_of_unpromotable_types);
    suite_add_tcase(s, p);
    TCase *a = tcase_create("api");
    tcase_add_test(a, api_has_reads_struct_size_and_the_member);
    suite_add_tcase(s, a);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plugin_util_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
