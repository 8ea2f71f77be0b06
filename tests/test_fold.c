/* Constant folding: what folds, what the folded values are, what stays. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "fold.h"
#include "fold_known_sizes.h"
#include "ir.h"
#include "passes.h"
#include "static_shapes.h"
#include "test_util.h"

static ox_context *ctx;
static ox_graph *g;

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_ENV, &ctx), OX_OK);
    g = ox_graph_new("m");
    ck_assert_ptr_nonnull(g);
}

static void teardown(void)
{
    ox_graph_free(g);
    ox_context_free(ctx);
}

/* A Constant node holding an int64 tensor. */
static ox_vid konst(uint32_t rank, const int64_t *dims, const int64_t *data)
{
    ox_node *n = ox_graph_add_node(g, "onnx::Constant", 0, NULL, 1);
    ox_attr *a = ox_node_add_attr(g, n, "value", OX_ATTR_TENSOR);
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof(*t));
    size_t cnt = 1;
    for (uint32_t i = 0; i < rank; i++)
        cnt *= (size_t)dims[i];
    t->dtype = OX_INT64;
    t->rank = rank;
    t->dims = rank ? ox_arena_memdup(&g->arena, dims, rank * sizeof(int64_t)) : NULL;
    t->data.data = ox_arena_memdup(&g->arena, data, cnt * sizeof(int64_t));
    t->data.nbytes = cnt * sizeof(int64_t);
    a->u.t = t;
    ox_value_set_type(g, ox_graph_value(g, n->outputs[0]), OX_INT64, (int32_t)rank, dims);
    return n->outputs[0];
}

static const ox_attr_tensor *folded(ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    ck_assert_ptr_nonnull(x->producer);
    ck_assert_str_eq(x->producer->kind, "onnx::Constant");
    ck_assert_uint_eq(x->producer->n_inputs, 0);
    return ox_node_attr(x->producer, "value")->u.t;
}

START_TEST(shape_chain_folds_into_one_constant)
{
    /* shape = Concat(Unsqueeze(2 * 3, axes=[0]), [-1]) ; y = Reshape(x, shape) */
    int64_t two = 2, three = 3, m1 = -1;
    int64_t d1[] = {1};
    ox_vid a = konst(0, NULL, &two);
    ox_vid b = konst(0, NULL, &three);
    ox_node *mul = ox_graph_add_node(g, "onnx::Mul", 2, (ox_vid[]){a, b}, 1);
    ox_node *unsq = ox_graph_add_node(g, "onnx::Unsqueeze", 1, &mul->outputs[0], 1);
    ox_attr *ax = ox_node_add_attr(g, unsq, "axes", OX_ATTR_INTS);
    ax->u.ints.p = ox_arena_memdup(&g->arena, (int64_t[]){0}, sizeof(int64_t));
    ax->u.ints.n = 1;
    ox_vid tail = konst(1, d1, &m1);
    ox_node *cat = ox_graph_add_node(g, "onnx::Concat", 2, (ox_vid[]){unsq->outputs[0], tail}, 1);
    ox_node_add_attr(g, cat, "axis", OX_ATTR_INT)->u.i = 0;
    int64_t xd[] = {6, 4};
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 2, xd);
    ox_graph_add_input(g, x->id);
    ox_node *rs = ox_graph_add_node(g, "onnx::Reshape", 2, (ox_vid[]){x->id, cat->outputs[0]}, 1);
    ox_graph_add_output(g, rs->outputs[0]);

    size_t n = 0;
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, &n), OX_OK);
    ck_assert_uint_eq(n, 3); /* Mul, Unsqueeze, Concat; Reshape reads the input x */
    const ox_attr_tensor *shape = folded(cat->outputs[0]);
    ck_assert_uint_eq(shape->rank, 1);
    ck_assert_int_eq(shape->dims[0], 2);
    const int64_t *s = shape->data.data;
    ck_assert_int_eq(s[0], 6);
    ck_assert_int_eq(s[1], -1);
    ck_assert_str_eq(rs->kind, "onnx::Reshape"); /* depends on a graph input: stays */

    ck_assert_int_eq(ox_pass_dce(ctx, g), OX_OK);
    ck_assert_uint_eq(g->n_nodes, 2); /* the folded Concat constant and the Reshape */
}
END_TEST

START_TEST(opset13_squeeze_and_cast_fold)
{
    int64_t d[] = {1, 3}, vals[] = {4, 5, 6}, axes = 0, d1[] = {1};
    ox_vid v = konst(2, d, vals);
    ox_vid ax = konst(1, d1, &axes);
    ox_node *sq = ox_graph_add_node(g, "onnx::Squeeze", 2, (ox_vid[]){v, ax}, 1);
    ox_node *cast = ox_graph_add_node(g, "onnx::Cast", 1, &sq->outputs[0], 1);
    ox_node_add_attr(g, cast, "to", OX_ATTR_INT)->u.i = OX_FLOAT;
    ox_graph_add_output(g, cast->outputs[0]);
    size_t n = 0;
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, &n), OX_OK);
    ck_assert_uint_eq(n, 2);
    const ox_attr_tensor *t = folded(cast->outputs[0]);
    ck_assert_int_eq(t->dtype, OX_FLOAT);
    ck_assert_uint_eq(t->rank, 1);
    ck_assert_int_eq(t->dims[0], 3);
    const float *f = t->data.data;
    ck_assert_float_eq(f[2], 6.0f);
    ck_assert_int_eq(ox_graph_value(g, cast->outputs[0])->type.dtype, OX_FLOAT);
}
END_TEST

START_TEST(rank0_scalars_fold)
{
    int64_t a = 2, b = 3;
    ox_node *add = ox_graph_add_node(g, "onnx::Add", 2, (ox_vid[]){konst(0, NULL, &a), konst(0, NULL, &b)}, 1);
    ox_node *id = ox_graph_add_node(g, "onnx::Identity", 1, &add->outputs[0], 1);
    ox_graph_add_output(g, id->outputs[0]);
    size_t n = 0;
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, &n), OX_OK);
    ck_assert_uint_eq(n, 2);
    const ox_attr_tensor *t = folded(id->outputs[0]);
    ck_assert_uint_eq(t->rank, 0);
    ck_assert_int_eq(*(const int64_t *)t->data.data, 5);
}
END_TEST

START_TEST(parameters_and_unknown_ops_are_left_alone)
{
    int64_t d[] = {2};
    static const float w[2] = {1, 2};
    ox_value *p = ox_graph_add_value(g, OX_VAL_PARAM, OX_FLOAT, 1, d);
    p->name = "w";
    p->tensor.data = w;
    p->tensor.nbytes = sizeof w;
    ox_graph_add_param(g, p->id);
    ox_node *tr = ox_graph_add_node(g, "onnx::Transpose", 1, &p->id, 1); /* a weight: never folded */
    int64_t two[] = {2, 2};
    ox_vid c = konst(1, d, two);
    ox_node *mx = ox_graph_add_node(g, "onnx::Max", 1, &c, 1); /* not a folded op */
    ox_node *cu = ox_graph_add_node(g, "com.example::Thing", 1, &c, 1); /* other domain */
    ox_graph_add_output(g, tr->outputs[0]);
    ox_graph_add_output(g, mx->outputs[0]);
    ox_graph_add_output(g, cu->outputs[0]);
    size_t n = 7;
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, &n), OX_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(tr->kind, "onnx::Transpose");
    ck_assert_str_eq(mx->kind, "onnx::Max");
}
END_TEST

START_TEST(mismatched_shapes_are_not_folded)
{
    int64_t d2[] = {2}, d3[] = {3}, a[] = {1, 2}, b[] = {1, 2, 3};
    ox_vid x = konst(1, d2, a), y = konst(1, d3, b);
    ox_node *add = ox_graph_add_node(g, "onnx::Add", 2, (ox_vid[]){x, y}, 1);
    int64_t bad_shape[] = {5};
    ox_vid s = konst(1, (int64_t[]){1}, bad_shape);
    ox_node *rs = ox_graph_add_node(g, "onnx::Reshape", 2, (ox_vid[]){x, s}, 1); /* 2 elems -> 5 */
    ox_graph_add_output(g, add->outputs[0]);
    ox_graph_add_output(g, rs->outputs[0]);
    size_t n = 0;
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, &n), OX_OK);
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* A graph input of the given dims (a float tensor). */
static ox_value *input(uint32_t rank, const int64_t *dims)
{
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, (int32_t)rank, dims);
    ox_graph_add_input(g, x->id);
    return x;
}

static ox_node *op1(const char *kind, ox_vid a)
{
    return ox_graph_add_node(g, kind, 1, &a, 1);
}

static ox_node *op2(const char *kind, ox_vid a, ox_vid b)
{
    return ox_graph_add_node(g, kind, 2, (ox_vid[]){a, b}, 1);
}

/* x.view(x.size(0), x.size(1) // 2, -1) as the recorder lowers it:
 * Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape. */
static ox_node *size_chain(ox_value *x, ox_node **shape_out)
{
    int64_t zero = 0, one = 1, two = 2, m1 = -1, d1[] = {1};
    ox_node *shape = op1("onnx::Shape", x->id);
    ox_node *b = op2("onnx::Gather", shape->outputs[0], konst(0, NULL, &zero));
    ox_node *n = op2("onnx::Gather", shape->outputs[0], konst(0, NULL, &one));
    ox_node *half = op2("onnx::Div", n->outputs[0], konst(0, NULL, &two));
    ox_vid ax = konst(1, d1, &zero);
    ox_node *ub = op2("onnx::Unsqueeze", b->outputs[0], ax);
    ox_node *uh = op2("onnx::Unsqueeze", half->outputs[0], ax);
    ox_node *cat = ox_graph_add_node(g, "onnx::Concat", 3,
                                     (ox_vid[]){ub->outputs[0], uh->outputs[0], konst(1, d1, &m1)}, 1);
    ox_node_add_attr(g, cat, "axis", OX_ATTR_INT)->u.i = 0;
    ox_node *rs = op2("onnx::Reshape", x->id, cat->outputs[0]);
    ox_graph_add_output(g, rs->outputs[0]);
    *shape_out = shape;
    return cat;
}

START_TEST(sizes_of_a_fixed_input_fold)
{
    int64_t xd[] = {2, 6, 4};
    ox_node *shape;
    ox_node *cat = size_chain(input(3, xd), &shape);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    ck_assert_str_eq(shape->kind, "onnx::Constant");
    const ox_attr_tensor *t = folded(cat->outputs[0]);
    ck_assert_uint_eq(t->dims[0], 3);
    const int64_t *v = t->data.data;
    ck_assert_int_eq(v[0], 2);
    ck_assert_int_eq(v[1], 3);
    ck_assert_int_eq(v[2], -1);
    ck_assert_int_eq(ox_pass_dce(ctx, g), OX_OK);
    ck_assert_uint_eq(g->n_nodes, 2); /* the shape constant and the Reshape */
}
END_TEST

/* The writer takes the fold's shape analysis instead of making its own
 * (pipeline.h): after folding, and after the DCE that follows, it must say
 * what a fresh analysis of the folded graph says, value by value. */
static void assert_kept_analysis_is_fresh(void)
{
    ox_static_shapes kept, fresh;
    ck_assert_int_eq(ox_pass_fold_constants_keeping_shapes(ctx, g, NULL, &kept), OX_OK);
    ck_assert_int_eq(ox_pass_dce(ctx, g), OX_OK);
    ck_assert_uint_eq(kept.n, g->n_values);
    ck_assert_int_eq(ox_static_shapes_init(g, &fresh), 0);
    for (const ox_node *n = g->first; n; n = n->next)
        ox_static_shapes_note(g, &fresh, n);
    size_t n_fixed = 0;
    for (const ox_node *n = g->first; n; n = n->next)
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_vid v = n->outputs[i];
            ck_assert_msg(ox_static_shapes_is_fixed(&kept, v) == ox_static_shapes_is_fixed(&fresh, v),
                          "value %u of %s: fixed differs", (unsigned)v, n->kind);
            ck_assert(ox_static_shapes_is_data_sized(&kept, v) ==
                      ox_static_shapes_is_data_sized(&fresh, v));
            n_fixed += ox_static_shapes_is_fixed(&fresh, v);
        }
    ck_assert_uint_gt(n_fixed, 0);
    ox_static_shapes_free(&kept);
    ox_static_shapes_free(&fresh);
}

/* g made anew with one input of [2, 6, 4], its first dim "batch" when
 * `dynamic`. */
static ox_value *fresh_graph_input(int dynamic)
{
    ox_graph_free(g);
    g = ox_graph_new("m");
    int64_t xd[] = {2, 6, 4};
    ox_value *x = input(3, xd);
    if (dynamic)
        ox_value_set_dim_param(g, x, 0, "batch");
    return x;
}

START_TEST(kept_analysis_matches_a_fresh_one)
{
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        ox_value *x = fresh_graph_input(dynamic);
        ox_node *shape;
        ox_node *cat = size_chain(x, &shape);
        ox_node *relu = op1("onnx::Relu", cat->outputs[0]);
        ox_node *nz = op1("onnx::NonZero", relu->outputs[0]); /* data-sized from here */
        ox_graph_add_output(g, op1("onnx::Neg", nz->outputs[0])->outputs[0]);
        assert_kept_analysis_is_fresh();
    }
}
END_TEST

/* ox_static_shapes_note remembers each kind's shape rule by the kind
 * string's address (static_shapes.h).  Noted with that memo, a graph of many
 * kinds, with a node made a Constant in place and one of another domain,
 * gets what the lookup by name gives: the same graph noted with the memo
 * emptied before every node. */
START_TEST(shape_rule_memo_agrees_with_the_lookup)
{
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        ox_value *x = fresh_graph_input(dynamic);
        ox_node *shape;
        ox_node *cat = size_chain(x, &shape);
        ox_node *relu = op1("onnx::Relu", cat->outputs[0]);
        ox_node *custom = op1("com.example::Relu", relu->outputs[0]);
        ox_node *relu2 = op1("onnx::Relu", relu->outputs[0]);
        ck_assert_int_eq(ox_node_set_kind(g, relu2, "", "Constant"), 0);
        ox_node *nz = op1("onnx::NonZero", relu->outputs[0]);
        ox_node *neg = op1("onnx::Neg", nz->outputs[0]);
        ox_node *neg2 = op1("onnx::Neg", custom->outputs[0]);
        ox_graph_add_output(g, neg->outputs[0]);
        ox_graph_add_output(g, neg2->outputs[0]);
        ox_graph_add_output(g, relu2->outputs[0]);
        ox_static_shapes memo, plain;
        ck_assert_int_eq(ox_static_shapes_init(g, &memo), 0);
        ck_assert_int_eq(ox_static_shapes_init(g, &plain), 0);
        for (const ox_node *n = g->first; n; n = n->next) {
            ox_static_shapes_note(g, &memo, n);
            memset(plain.memo, 0, sizeof plain.memo);
            ox_static_shapes_note(g, &plain, n);
        }
        for (ox_vid v = 1; v < g->n_values; v++) {
            ck_assert(ox_static_shapes_is_fixed(&memo, v) == ox_static_shapes_is_fixed(&plain, v));
            ck_assert(ox_static_shapes_is_data_sized(&memo, v) ==
                      ox_static_shapes_is_data_sized(&plain, v));
        }
        ck_assert(ox_static_shapes_is_data_sized(&memo, neg->outputs[0]));
        ox_static_shapes_free(&memo);
        ox_static_shapes_free(&plain);
    }
}
END_TEST

START_TEST(sizes_of_a_dynamic_input_stay)
{
    int64_t xd[] = {2, 6, 4};
    ox_value *x = input(3, xd);
    ox_value_set_dim_param(g, x, 0, "batch"); /* dynamic_axes={x: {0: batch}} */
    ox_node *shape;
    ox_node *cat = size_chain(x, &shape);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    ck_assert_str_eq(shape->kind, "onnx::Shape");
    ck_assert_str_eq(cat->kind, "onnx::Concat");
}
END_TEST

/* The constant fold, then known-size folding and the constant fold again,
 * as the export's fold stage runs them; the known-size pass's count. */
static size_t fold_with_known_sizes(void)
{
    ox_static_shapes sh;
    ck_assert_int_eq(ox_pass_fold_constants_keeping_shapes(ctx, g, NULL, &sh), OX_OK);
    size_t known = 0;
    ck_assert_int_eq(ox_pass_fold_known_sizes(ctx, g, &sh, &known), OX_OK);
    ox_static_shapes_free(&sh);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    ck_assert_int_eq(ox_pass_dce(ctx, g), OX_OK);
    return known;
}

/* With only the batch dynamic, x.size(1) // 2 is the same on every run: the
 * Gather of dim 1, the Div and the Unsqueeze after it become Constants (the
 * analysis works integer division out); the batch's Gather and the Concat
 * that mixes both stay. */
START_TEST(sizes_no_dynamic_axis_reaches_fold)
{
    ox_value *x = fresh_graph_input(1);
    ox_node *shape;
    ox_node *cat = size_chain(x, &shape);
    ck_assert_uint_eq(fold_with_known_sizes(), 3);
    ck_assert_str_eq(shape->kind, "onnx::Shape");
    ck_assert_str_eq(cat->kind, "onnx::Concat");
    const ox_attr_tensor *half = folded(cat->inputs[1]);
    ck_assert_int_eq(half->rank, 1);
    ck_assert_int_eq(((const int64_t *)half->data.data)[0], 3);
    const ox_value *b = ox_graph_value(g, cat->inputs[0]);
    ck_assert_str_eq(b->producer->kind, "onnx::Unsqueeze"); /* of the batch, read at run time */
    /* Shape, the batch's Gather and Unsqueeze, the Concat and the Reshape,
     * with the constants they read */
    size_t shapes = 0, gathers = 0;
    for (const ox_node *n = g->first; n; n = n->next) {
        shapes += strcmp(n->kind, "onnx::Shape") == 0;
        gathers += strcmp(n->kind, "onnx::Gather") == 0;
    }
    ck_assert_uint_eq(shapes, 1);
    ck_assert_uint_eq(gathers, 1);
}
END_TEST

/* Where a dynamic axis reaches the dim a size is read from, or the analysis
 * cannot follow the value (an operator of another domain in between), no
 * size is folded. */
START_TEST(sizes_a_dynamic_axis_reaches_stay)
{
    ox_value *x = fresh_graph_input(1);
    ox_value_set_dim_param(g, x, 1, "channels");
    ox_node *shape;
    ox_node *cat = size_chain(x, &shape);
    ck_assert_uint_eq(fold_with_known_sizes(), 0);
    ck_assert_str_eq(cat->kind, "onnx::Concat");
    ck_assert_str_eq(ox_graph_value(g, cat->inputs[1])->producer->kind, "onnx::Unsqueeze");

    x = fresh_graph_input(1);
    ox_node *custom = op1("com.example::Relu", x->id);
    ox_value *y = ox_graph_value(g, custom->outputs[0]);
    int64_t yd[] = {2, 6, 4};
    ck_assert_int_eq(ox_value_set_type(g, y, OX_FLOAT, 3, yd), 0);
    cat = size_chain(y, &shape);
    ck_assert_uint_eq(fold_with_known_sizes(), 0);
    ck_assert_str_eq(ox_graph_value(g, cat->inputs[1])->producer->kind, "onnx::Unsqueeze");
}
END_TEST

START_TEST(data_dependent_shapes_stay)
{
    int64_t xd[] = {3, 4}, zero = 0;
    ox_value *x = input(2, xd);
    /* NonZero's output shape depends on x's values, whatever x's shape */
    ox_node *nz = op1("onnx::NonZero", x->id);
    ox_value_set_type(g, ox_graph_value(g, nz->outputs[0]), OX_INT64, 2, (int64_t[]){2, 5});
    ox_node *relu = op1("onnx::Identity", nz->outputs[0]); /* shape-preserving after it */
    ox_node *s1 = op1("onnx::Shape", relu->outputs[0]);
    /* a Reshape to a shape computed from data (not a constant) */
    ox_node *mx = op1("onnx::ReduceMax", x->id);
    ox_node *cast = op1("onnx::Cast", mx->outputs[0]);
    ox_node_add_attr(g, cast, "to", OX_ATTR_INT)->u.i = OX_INT64;
    ox_node *u = op2("onnx::Unsqueeze", cast->outputs[0], konst(1, (int64_t[]){1}, &zero));
    ox_node *rs = op2("onnx::Reshape", x->id, u->outputs[0]);
    ox_value_set_type(g, ox_graph_value(g, rs->outputs[0]), OX_FLOAT, 1, (int64_t[]){12});
    ox_node *s2 = op1("onnx::Size", rs->outputs[0]);
    /* another domain's operator */
    ox_node *cu = op1("com.example::Thing", x->id);
    ox_value_set_type(g, ox_graph_value(g, cu->outputs[0]), OX_FLOAT, 2, xd);
    ox_node *s3 = op1("onnx::Shape", cu->outputs[0]);
    ox_graph_add_output(g, s1->outputs[0]);
    ox_graph_add_output(g, s2->outputs[0]);
    ox_graph_add_output(g, s3->outputs[0]);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    ck_assert_str_eq(s1->kind, "onnx::Shape");
    ck_assert_str_eq(s2->kind, "onnx::Size");
    ck_assert_str_eq(s3->kind, "onnx::Shape");
}
END_TEST

START_TEST(shape_start_end_and_size)
{
    int64_t xd[] = {2, 3, 5, 7};
    ox_value *x = input(4, xd);
    ox_node *sh = op1("onnx::Shape", x->id); /* opset 15: x.shape[1:-1] */
    ox_node_add_attr(g, sh, "start", OX_ATTR_INT)->u.i = 1;
    ox_node_add_attr(g, sh, "end", OX_ATTR_INT)->u.i = -1;
    ox_node *sz = op1("onnx::Size", x->id);
    ox_graph_add_output(g, sh->outputs[0]);
    ox_graph_add_output(g, sz->outputs[0]);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    const ox_attr_tensor *t = folded(sh->outputs[0]);
    ck_assert_int_eq(t->dims[0], 2);
    ck_assert_int_eq(((const int64_t *)t->data.data)[0], 3);
    ck_assert_int_eq(((const int64_t *)t->data.data)[1], 5);
    t = folded(sz->outputs[0]);
    ck_assert_uint_eq(t->rank, 0);
    ck_assert_int_eq(*(const int64_t *)t->data.data, 210);
}
END_TEST

START_TEST(integer_division_comparisons_and_logic)
{
    /* the floor-division lowering: q = a / b (truncating) ; q - ((q*b != a) & ((a<0) ^ (b<0))) */
    int64_t a = -7, b = 2, zero = 0;
    ox_vid va = konst(0, NULL, &a), vb = konst(0, NULL, &b), vz = konst(0, NULL, &zero);
    ox_node *q = op2("onnx::Div", va, vb);
    ox_node *back = op2("onnx::Mul", q->outputs[0], vb);
    ox_node *eq = op2("onnx::Equal", back->outputs[0], va);
    ox_node *ne = op1("onnx::Not", eq->outputs[0]);
    ox_node *la = op2("onnx::Less", va, vz), *lb = op2("onnx::Less", vb, vz);
    ox_node *x = op2("onnx::Xor", la->outputs[0], lb->outputs[0]);
    ox_node *both = op2("onnx::And", ne->outputs[0], x->outputs[0]);
    ox_node *c = op1("onnx::Cast", both->outputs[0]);
    ox_node_add_attr(g, c, "to", OX_ATTR_INT)->u.i = OX_INT64;
    ox_node *fl = op2("onnx::Sub", q->outputs[0], c->outputs[0]);
    ox_node *by0 = op2("onnx::Div", va, vz); /* undefined: left to run time */
    ox_graph_add_output(g, fl->outputs[0]);
    ox_graph_add_output(g, by0->outputs[0]);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    ck_assert_int_eq(*(const int64_t *)folded(q->outputs[0])->data.data, -3);
    ck_assert_int_eq(folded(both->outputs[0])->dtype, OX_BOOL);
    ck_assert_int_eq(*(const int64_t *)folded(fl->outputs[0])->data.data, -4);
    ck_assert_str_eq(by0->kind, "onnx::Div");
}
END_TEST

START_TEST(gather_and_slice_of_constants)
{
    int64_t d[] = {4}, v[] = {10, 20, 30, 40}, m1 = -1, one = 1, big = INT64_MAX, d1[] = {1};
    ox_vid c = konst(1, d, v);
    ox_node *last = op2("onnx::Gather", c, konst(0, NULL, &m1)); /* negative index */
    ox_node *oob = op2("onnx::Gather", c, konst(0, NULL, &(int64_t){4})); /* out of range */
    ox_node *tail = ox_graph_add_node(g, "onnx::Slice", 3,
                                      (ox_vid[]){c, konst(1, d1, &one), konst(1, d1, &big)}, 1);
    ox_graph_add_output(g, last->outputs[0]);
    ox_graph_add_output(g, oob->outputs[0]);
    ox_graph_add_output(g, tail->outputs[0]);
    ck_assert_int_eq(ox_pass_fold_constants(ctx, g, NULL), OX_OK);
    const ox_attr_tensor *t = folded(last->outputs[0]);
    ck_assert_uint_eq(t->rank, 0);
    ck_assert_int_eq(*(const int64_t *)t->data.data, 40);
    ck_assert_str_eq(oob->kind, "onnx::Gather");
    t = folded(tail->outputs[0]);
    ck_assert_int_eq(t->dims[0], 3);
    ck_assert_int_eq(((const int64_t *)t->data.data)[0], 20);
    ck_assert_int_eq(((const int64_t *)t->data.data)[2], 40);
}
END_TEST

START_TEST(shape_rule_table_is_sorted)
{
    ck_assert(ox_static_shapes_table_sorted());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fold");
    TCase *tc = tcase_create("fold");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, shape_chain_folds_into_one_constant);
    tcase_add_test(tc, shape_rule_memo_agrees_with_the_lookup);
    tcase_add_test(tc, opset13_squeeze_and_cast_fold);
    tcase_add_test(tc, rank0_scalars_fold);
    tcase_add_test(tc, parameters_and_unknown_ops_are_left_alone);
    tcase_add_test(tc, mismatched_shapes_are_not_folded);
    tcase_add_test(tc, sizes_of_a_fixed_input_fold);
    tcase_add_test(tc, sizes_of_a_dynamic_input_stay);
    tcase_add_test(tc, sizes_no_dynamic_axis_reaches_fold);
    tcase_add_test(tc, sizes_a_dynamic_axis_reaches_stay);
    tcase_add_test(tc, data_dependent_shapes_stay);
    tcase_add_test(tc, shape_start_end_and_size);
    tcase_add_test(tc, integer_division_comparisons_and_logic);
    tcase_add_test(tc, gather_and_slice_of_constants);
    tcase_add_test(tc, shape_rule_table_is_sorted);
    tcase_add_test(tc, kept_analysis_matches_a_fresh_one);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
