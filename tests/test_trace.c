/* The tracer API as a host uses it: recording, scopes, validation messages. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "oxport/oxport.h"
#include "test_util.h"

static ox_context *ctx;
static ox_trace *t;

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_ENV, &ctx), OX_OK);
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
}

static void teardown(void)
{
    ox_trace_abort(t);
    t = NULL;
    ox_context_free(ctx);
}

static const int64_t shape4[] = {1, 3, 4, 4};
static const ox_tensor_desc f4 = {OX_FLOAT, 4, shape4};

START_TEST(records_ops_with_named_args_and_scopes)
{
    ox_vid x, w, y;
    float wdata[3 * 3] = {0};
    int64_t wshape[] = {3, 3, 1, 1};
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 4, shape4, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "conv.weight", OX_FLOAT, 4, wshape, wdata, OX_BORROW, &w), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "Conv2d[conv]"), OX_OK);
    int64_t stride[] = {1, 1};
    ox_arg args[] = {ox_arg_tensor("input", x), ox_arg_tensor("weight", w), ox_arg_none("bias"),
                     ox_arg_ints("stride", stride, 2), ox_arg_int("groups", 1)};
    ck_assert_int_eq(ox_trace_op(t, "aten::conv2d", 5, args, 1, &f4, &y), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "out"), OX_OK);

    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    t = NULL;
    ck_assert_uint_eq(g->n_nodes, 1);
    ox_node *n = g->first;
    ck_assert_str_eq(n->kind, "aten::conv2d");
    ck_assert_str_eq(n->domain, "aten");
    ck_assert_str_eq(n->scope, "Net/Conv2d[conv]");
    ck_assert_uint_eq(n->n_inputs, 2); /* tensor args, None excluded */
    ck_assert_uint_eq(n->n_args, 5);
    ck_assert_int_eq(ox_node_arg(n, "bias")->kind, OX_ARG_NONE);
    ck_assert_int_eq(ox_node_arg(n, "stride")->u.ints.p[1], 1);
    ck_assert_ptr_eq(ox_graph_host_value(g, w)->tensor.data, wdata); /* borrowed, not copied */
    ck_assert_uint_eq(ox_graph_host_value(g, w)->tensor.nbytes, sizeof wdata);
    ck_assert_str_eq(ox_graph_host_value(g, y)->name, "out");
    ck_assert_int_eq(ox_graph_host_value(g, y)->type.dims[3], 4);
    ck_assert_uint_eq(g->n_params, 1);
    ck_assert_uint_eq(g->n_outputs, 1);
    /* a traced graph is no ONNX graph: ox_write refuses it and writes nothing */
    ck_assert_int_eq(ox_write(ctx, g, "/nonexistent-dir/m.onnx", NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_write: graph Net is a traced graph, whose aten:: nodes "
                                     "are no ONNX operators; convert it first (ox_convert), or "
                                     "write it with ox_export");
    /* nor can ox_check judge it against ONNX's rules: it says so, rather than
     * reporting an unset ir_version and aten:: nodes as violations */
    size_t nv = 99;
    ck_assert_int_eq(ox_check(ctx, g, NULL, &nv), OX_EINVAL);
    ck_assert_uint_eq(nv, 0);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_check: graph Net is a traced graph, whose aten:: nodes "
                                     "are no ONNX operators; check the converted graph "
                                     "(ox_convert) or the written file");
    ox_graph_free(g);
}
END_TEST

START_TEST(inplace_ops_get_new_values)
{
    ox_vid x, a, b;
    ck_assert_int_eq(ox_trace_input(t, NULL, OX_FLOAT, 4, shape4, &x), OX_OK);
    ox_arg arg = ox_arg_tensor("self", x);
    ck_assert_int_eq(ox_trace_op(t, "aten::relu_", 1, &arg, 1, &f4, &a), OX_OK);
    arg = ox_arg_tensor("self", a);
    ck_assert_int_eq(ox_trace_op(t, "aten::relu_", 1, &arg, 1, &f4, &b), OX_OK);
    ck_assert_uint_ne(a, x);
    ck_assert_uint_ne(b, a);
}
END_TEST

START_TEST(copied_params_outlive_host_memory)
{
    ox_vid p;
    int64_t shape[] = {2};
    float *data = malloc(2 * sizeof *data);
    data[0] = 1.5f;
    data[1] = -2.0f;
    ck_assert_int_eq(ox_trace_param(t, "p", OX_FLOAT, 1, shape, data, OX_COPY, &p), OX_OK);
    free(data);
    ox_vid c;
    int64_t one = 42;
    ck_assert_int_eq(ox_trace_const(t, OX_INT64, 0, NULL, &one, OX_COPY, &c), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, p, NULL), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    t = NULL;
    const float *copy = ox_graph_host_value(g, p)->tensor.data;
    ck_assert_float_eq(copy[0], 1.5f);
    ck_assert_float_eq(copy[1], -2.0f);
    ck_assert_int_eq(*(const int64_t *)ox_graph_host_value(g, c)->tensor.data, 42);
    ck_assert_int_eq(ox_graph_host_value(g, c)->kind, OX_VAL_CONST);
    ox_graph_free(g);
}
END_TEST

#define EXPECT_ERR(call, status, text)                                                     \
    do {                                                                                   \
        ck_assert_int_eq((call), (status));                                                \
        ck_assert_msg(strstr(ox_errmsg(ctx), (text)) != NULL, "message was: %s", ox_errmsg(ctx)); \
    } while (0)

START_TEST(validation_messages)
{
    ox_vid x, y;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 4, shape4, &x), OX_OK);
    EXPECT_ERR(ox_trace_input(t, "x", OX_FLOAT, 4, shape4, &y), OX_EINVAL,
               "name \"x\" is already used");
    EXPECT_ERR(ox_trace_input(t, "z", (ox_dtype)99, 4, shape4, &y), OX_EINVAL,
               "dtype 99 is not an ONNX element type");
    /* ONNX's complex types are read from files, never traced */
    EXPECT_ERR(ox_trace_input(t, "z", OX_COMPLEX64, 4, shape4, &y), OX_EINVAL,
               "ox_trace_input: dtype complex64 cannot be recorded; record a complex tensor in "
               "ONNX's float form (a trailing dimension of 2: real, imaginary)");
    EXPECT_ERR(ox_trace_input(t, "z", OX_FLOAT, 4, NULL, &y), OX_EINVAL, "sizes is NULL");
    int64_t bad[] = {1, -5};
    EXPECT_ERR(ox_trace_input(t, "z", OX_FLOAT, 2, bad, &y), OX_EINVAL, "size -5 at axis 1");
    int64_t unknown[] = {-1};
    EXPECT_ERR(ox_trace_param(t, "w", OX_FLOAT, 1, unknown, NULL, OX_BORROW, &y), OX_EINVAL,
               "tensor data needs every size >= 0");
    int64_t two[] = {2};
    EXPECT_ERR(ox_trace_param(t, "w", OX_FLOAT, 1, two, NULL, OX_BORROW, &y), OX_EINVAL,
               "data is NULL for a tensor of 8 bytes");
    EXPECT_ERR(ox_trace_param(t, NULL, OX_FLOAT, 1, two, NULL, OX_BORROW, &y), OX_EINVAL,
               "needs a name");

    ox_arg a = ox_arg_tensor("self", x);
    EXPECT_ERR(ox_trace_op(t, "relu", 1, &a, 1, &f4, &y), OX_EINVAL,
               "is not a qualified operator name");
    ox_arg unknown_v = ox_arg_tensor("self", 77);
    EXPECT_ERR(ox_trace_op(t, "aten::relu", 1, &unknown_v, 1, &f4, &y), OX_EINVAL,
               "refers to value 77, which this trace has not produced");
    ox_arg zero = ox_arg_tensor("self", 0);
    EXPECT_ERR(ox_trace_op(t, "aten::relu", 1, &zero, 1, &f4, &y), OX_EINVAL,
               "record a missing optional tensor with ox_arg_none");
    ox_arg dup[] = {ox_arg_tensor("self", x), ox_arg_int("self", 1)};
    EXPECT_ERR(ox_trace_op(t, "aten::relu", 2, dup, 1, &f4, &y), OX_EINVAL,
               "argument 'self' is recorded twice");
    ox_arg badbool = ox_arg_int("ceil_mode", 3);
    badbool.kind = OX_ARG_BOOL;
    EXPECT_ERR(ox_trace_op(t, "aten::max_pool2d", 1, &badbool, 1, &f4, &y), OX_EINVAL,
               "bool argument 'ceil_mode' is 3");
    EXPECT_ERR(ox_trace_op(t, "aten::relu", 1, &a, 0, &f4, &y), OX_EINVAL,
               "must produce at least one output");
    ox_tensor_desc bad_out = {OX_FLOAT, 2, bad};
    EXPECT_ERR(ox_trace_op(t, "aten::relu", 1, &a, 1, &bad_out, &y), OX_EINVAL, "output 0");
    EXPECT_ERR(ox_trace_output(t, 1234, NULL), OX_EINVAL, "value 1234 was not produced");
    EXPECT_ERR(ox_trace_pop_scope(t), OX_ESTATE, "no scope is pushed");
    EXPECT_ERR(ox_trace_push_scope(t, "A/B"), OX_EINVAL, "cannot contain '/'");

    /* the trace is still usable after every rejected call */
    ck_assert_int_eq(ox_trace_op(t, "aten::relu", 1, &a, 1, &f4, &y), OX_OK);
}
END_TEST

/* The name given to ox_trace_output is the output's name, also when the
 * value already has one (an input, a parameter, an earlier output) or is a
 * constant: the trace records an onnx::Identity whose output carries it. */
START_TEST(output_names_are_the_outputs_own)
{
    ox_vid x, w, c, y;
    int64_t two[] = {2};
    float wdata[2] = {1, 2};
    int64_t cdata = 7;
    ox_tensor_desc d2 = {OX_FLOAT, 1, two};
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 1, two, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "w", OX_FLOAT, 1, two, wdata, OX_BORROW, &w), OX_OK);
    ck_assert_int_eq(ox_trace_const(t, OX_INT64, 0, NULL, &cdata, OX_COPY, &c), OX_OK);
    ox_arg add[] = {ox_arg_tensor("A", x), ox_arg_tensor("B", w)};
    ck_assert_int_eq(ox_trace_op(t, "onnx::Add", 2, add, 1, &d2, &y), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "Block[b]"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, x, "x_out"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, w, "w_out"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, c, "c_out"), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "sum"), OX_OK);     /* a node value takes it */
    ck_assert_int_eq(ox_trace_output(t, y, "sum_again"), OX_OK); /* an earlier output */
    ck_assert_int_eq(ox_trace_output(t, x, NULL), OX_OK);        /* unnamed: as before */

    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    t = NULL;
    const char *want[] = {"x_out", "w_out", "c_out", "sum", "sum_again"};
    const ox_vid src[] = {x, w, c, 0, y};
    ck_assert_uint_eq(g->n_outputs, 6);
    for (uint32_t i = 0; i < 5; i++) {
        const ox_value *o = ox_graph_value(g, g->outputs[i]);
        ck_assert_str_eq(o->name, want[i]);
        if (!src[i]) {
            ck_assert_uint_eq(ox_graph_host_id(g, o->id), y);
            continue;
        }
        ck_assert_int_eq(o->kind, OX_VAL_NODE);
        ck_assert_str_eq(o->producer->kind, "onnx::Identity");
        ck_assert_uint_eq(ox_graph_host_id(g, o->producer->inputs[0]), src[i]);
        ck_assert_str_eq(o->producer->scope, "Net"); /* the root, as convert's own */
        ck_assert_int_eq(o->type.dtype, ox_graph_host_value(g, src[i])->type.dtype);
        ck_assert_int_eq(o->type.rank, ox_graph_host_value(g, src[i])->type.rank);
    }
    ck_assert_uint_eq(ox_graph_host_id(g, g->outputs[5]), x);
    /* the input and the parameter keep their own names */
    ck_assert_str_eq(ox_graph_host_value(g, x)->name, "x");
    ck_assert_str_eq(ox_graph_host_value(g, w)->name, "w");
    ck_assert_uint_eq(g->n_nodes, 5); /* Add + 4 Identity */
    ox_graph_free(g);
}
END_TEST

/* The same, exported and read back: the file holds the names asked for. */
START_TEST(output_names_reach_the_file)
{
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/opset", srcdir());
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    snprintf(dir, sizeof dir, "%s/trace-output-names.XXXXXX", builddir());
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.onnx", dir);

    ox_vid x, w;
    int64_t two[] = {2};
    float wdata[2] = {1, 2};
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 1, two, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "w", OX_FLOAT, 1, two, wdata, OX_BORROW, &w), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, x, "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, w, "weights"), OX_OK);
    ox_graph *g, *r;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    t = NULL;
    /* the output y is its own value: its axis is named by output index, the
     * input's by its vid, and each keeps its own name */
    ck_assert_int_eq(ox_graph_set_output_dim_param(g, 0, 0, "m"), OX_OK);
    ck_assert_int_eq(ox_graph_set_dim_param(g, x, 0, "n"), OX_OK);
    ck_assert_int_eq(ox_graph_set_output_dim_param(g, 2, 0, "m"), OX_EINVAL);
    ck_assert_int_eq(ox_graph_set_output_dim_param(g, 0, 1, "m"), OX_EINVAL);
    ox_export_options o;
    ox_export_options_init(&o);
    o.opset = 13;
    ck_assert_msg(ox_export(ctx, g, path, &o) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph_free(g);
    ck_assert_msg(ox_read(ctx, path, &r) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(r->n_inputs, 1);
    ck_assert_str_eq(ox_graph_value(r, r->inputs[0])->name, "x");
    ck_assert_uint_eq(r->n_outputs, 2);
    ck_assert_str_eq(ox_graph_value(r, r->outputs[0])->name, "y");
    ck_assert_str_eq(ox_graph_value(r, r->outputs[1])->name, "weights");
    ck_assert_str_eq(ox_graph_value(r, r->inputs[0])->type.dim_params[0], "n");
    ck_assert_str_eq(ox_graph_value(r, r->outputs[0])->type.dim_params[0], "m");
    ox_graph_free(r);
    rm_tree(dir);
}
END_TEST

/* A name something already has is refused, with what has it; the trace
 * records nothing for the refused call and stays usable. */
START_TEST(output_name_taken_is_refused)
{
    ox_vid x, w, y;
    int64_t two[] = {2};
    float wdata[2] = {1, 2};
    ox_tensor_desc d2 = {OX_FLOAT, 1, two};
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 1, two, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "w", OX_FLOAT, 1, two, wdata, OX_BORROW, &w), OX_OK);
    ox_arg add[] = {ox_arg_tensor("A", x), ox_arg_tensor("B", w)};
    ck_assert_int_eq(ox_trace_op(t, "onnx::Add", 2, add, 1, &d2, &y), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "y"), OX_OK);
    EXPECT_ERR(ox_trace_output(t, x, "x"), OX_EINVAL,
               "ox_trace_output: name \"x\" is already used in this trace (by input 0); give "
               "output 1 a name of its own");
    EXPECT_ERR(ox_trace_output(t, y, "w"), OX_EINVAL, "\"w\" is already used in this trace (by parameter 0)");
    EXPECT_ERR(ox_trace_output(t, y, "y"), OX_EINVAL, "\"y\" is already used in this trace (by output 0)");
    EXPECT_ERR(ox_trace_output(t, x, "y"), OX_EINVAL, "(by output 0)");
    ck_assert_int_eq(ox_trace_output(t, x, "x2"), OX_OK);
    /* the other way round: an input or a parameter after an output of the
     * name is told which value has it, not "another input or parameter" */
    ox_vid z;
    EXPECT_ERR(ox_trace_input(t, "y", OX_FLOAT, 1, two, &z), OX_EINVAL,
               "ox_trace_input: name \"y\" is already used in this trace (by output 0); names "
               "must be unique");
    EXPECT_ERR(ox_trace_param(t, "x2", OX_FLOAT, 1, two, wdata, OX_BORROW, &z), OX_EINVAL,
               "ox_trace_param: name \"x2\" is already used in this trace (by output 1)");
    EXPECT_ERR(ox_trace_param(t, "x", OX_FLOAT, 1, two, wdata, OX_BORROW, &z), OX_EINVAL,
               "ox_trace_param: name \"x\" is already used in this trace (by input 0)");

    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    t = NULL;
    ck_assert_uint_eq(g->n_outputs, 2);
    ck_assert_uint_eq(g->n_nodes, 2); /* Add, and one Identity for "x2" */
    ck_assert_str_eq(ox_graph_value(g, g->outputs[1])->name, "x2");
    ox_graph_free(g);
}
END_TEST

/* An id belongs to the trace that returned it.  A host that keeps two
 * traces (two models, or a stale id from the last export) and mixes them up,
 * or makes an id up, is told so: ids were bare indices, so trace B took A's
 * first input for its own first input, silently. */
START_TEST(ids_of_another_trace_are_refused)
{
    ox_vid xa, ya;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 4, shape4, &xa), OX_OK);
    ox_arg arg = ox_arg_tensor("self", xa);
    ck_assert_int_eq(ox_trace_op(t, "aten::relu", 1, &arg, 1, &f4, &ya), OX_OK);

    ox_trace *b;
    ck_assert_int_eq(ox_trace_begin(ctx, "Other", &b), OX_OK);
    ox_vid xb, yb, zb;
    ck_assert_int_eq(ox_trace_input(b, "x", OX_FLOAT, 4, shape4, &xb), OX_OK);
    arg = ox_arg_tensor("self", xb);
    ck_assert_int_eq(ox_trace_op(b, "aten::relu", 1, &arg, 1, &f4, &yb), OX_OK);
    ck_assert_int_eq(ox_trace_op(b, "aten::relu", 1, &arg, 1, &f4, &zb), OX_OK);
    ck_assert_uint_ne(xa, xb);

    /* A's ids in B, though B has as many values: every call that takes one */
    char want[160];
    arg = ox_arg_tensor("self", xa);
    ck_assert_int_eq(ox_trace_op(b, "aten::relu", 1, &arg, 1, &f4, &zb), OX_EINVAL);
    snprintf(want, sizeof want, "ox_trace_op(aten::relu): argument 'self' refers to value %u, "
             "which this trace has not produced", xa);
    ck_assert_msg(strstr(ox_errmsg(ctx), want), "%s", ox_errmsg(ctx));
    ox_vid list[] = {xb, 0, ya};
    ox_arg cat[] = {ox_arg_tensors("tensors", list, 3), ox_arg_int("dim", 0)};
    ck_assert_int_eq(ox_trace_op(b, "aten::cat", 2, cat, 1, &f4, &zb), OX_EINVAL);
    ck_assert_int_eq(ox_trace_output(b, ya, "y"), OX_EINVAL);
    snprintf(want, sizeof want, "ox_trace_output: value %u was not produced by this trace", ya);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    ck_assert_int_eq(ox_trace_fixed_values(b, 1, &xa, "fixed"), OX_EINVAL);
    /* a number no trace returned: the index a host might guess */
    arg = ox_arg_tensor("self", 1);
    ck_assert_int_eq(ox_trace_op(b, "aten::relu", 1, &arg, 1, &f4, &zb), OX_EINVAL);

    /* B's own ids, None in a list included, still work, after finish too */
    list[2] = yb;
    ck_assert_int_eq(ox_trace_op(b, "aten::cat", 2, cat, 1, &f4, &zb), OX_OK);
    ck_assert_int_eq(ox_trace_fixed_values(b, 1, &yb, "fixed"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b, zb, "z"), OX_OK);
    ox_graph *gb;
    ck_assert_int_eq(ox_trace_finish(b, &gb), OX_OK);
    ck_assert_ptr_eq(ox_graph_host_value(gb, zb), ox_graph_value(gb, gb->outputs[0]));
    ck_assert_uint_eq(gb->last->inputs[0], ox_graph_host_value(gb, xb)->id);
    ck_assert_uint_eq(gb->last->inputs[1], 0);
    ck_assert_uint_eq(gb->last->inputs[2], ox_graph_host_value(gb, yb)->id);
    ck_assert_int_eq(ox_graph_set_dim_param(gb, xa, 0, "batch"), OX_EINVAL);
    ck_assert_int_eq(ox_graph_set_dim_param(gb, 1, 0, "batch"), OX_EINVAL);
    ck_assert_int_eq(ox_graph_set_dim_param(gb, xb, 0, "batch"), OX_OK);
    ck_assert_str_eq(ox_graph_host_value(gb, xb)->type.dim_params[0], "batch");
    ox_graph_free(gb);
}
END_TEST

START_TEST(finish_requires_outputs_and_balanced_scopes)
{
    ox_graph *g = NULL;
    ox_vid x;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 4, shape4, &x), OX_OK);
    ox_trace_push_scope(t, "Block[b]");
    ox_trace_output(t, x, NULL);
    EXPECT_ERR(ox_trace_finish(t, &g), OX_ESTATE, "1 scope(s) still pushed (innermost: Net/Block[b])");
    t = NULL;
    ck_assert_ptr_null(g);

    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    EXPECT_ERR(ox_trace_finish(t, &g), OX_ESTATE, "no graph output was marked");
    t = NULL;
    EXPECT_ERR(ox_trace_begin(ctx, "", &t), OX_EINVAL, "model_name is empty");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("api");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, records_ops_with_named_args_and_scopes);
    tcase_add_test(tc, inplace_ops_get_new_values);
    tcase_add_test(tc, copied_params_outlive_host_memory);
    tcase_add_test(tc, validation_messages);
    tcase_add_test(tc, finish_requires_outputs_and_balanced_scopes);
    tcase_add_test(tc, output_names_are_the_outputs_own);
    tcase_add_test(tc, output_names_reach_the_file);
    tcase_add_test(tc, output_name_taken_is_refused);
    tcase_add_test(tc, ids_of_another_trace_are_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
