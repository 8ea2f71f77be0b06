/* Which dims of a graph's values may change with a dynamic input axis
 * (varying_dims.h): the rules keep a dim fixed only where it is. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fixed_counts.h"
#include "ir.h"
#include "static_shapes.h"
#include "test_util.h"
#include "varying_dims.h"

static ox_graph *g;

static void setup(void)
{
    g = ox_graph_new("m");
    ck_assert_ptr_nonnull(g);
}

static void teardown(void)
{
    ox_graph_free(g);
}

#define BIT(i) ((uint64_t)1 << (i))

/* A float graph input; dims named in `dynamic` (a bit per dim) get a
 * dim_param. */
static ox_vid input(uint32_t rank, const int64_t *dims, uint64_t dynamic)
{
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, (int32_t)rank, dims);
    for (uint32_t i = 0; i < rank; i++)
        if (dynamic & BIT(i))
            ck_assert_int_eq(ox_value_set_dim_param(g, x, i, i ? "n" : "batch"), 0);
    ox_graph_add_input(g, x->id);
    return x->id;
}

static ox_vid weight(uint32_t rank, const int64_t *dims)
{
    ox_value *w = ox_graph_add_value(g, OX_VAL_PARAM, OX_FLOAT, (int32_t)rank, dims);
    ox_graph_add_param(g, w->id);
    return w->id;
}

/* A Constant node holding int64s (its output typed, as conversion types it). */
static ox_vid ints(uint32_t count, const int64_t *data)
{
    ox_node *n = ox_graph_add_node(g, "onnx::Constant", 0, NULL, 1);
    ox_attr *a = ox_node_add_attr(g, n, "value", OX_ATTR_TENSOR);
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof(*t));
    int64_t dims[1] = {(int64_t)count};
    t->dtype = OX_INT64;
    t->rank = 1;
    t->dims = ox_arena_memdup(&g->arena, dims, sizeof dims);
    t->data.data = ox_arena_memdup(&g->arena, data, count * sizeof(int64_t));
    t->data.nbytes = count * sizeof(int64_t);
    a->u.t = t;
    ox_value_set_type(g, ox_graph_value(g, n->outputs[0]), OX_INT64, 1, dims);
    return n->outputs[0];
}

static ox_node *op(const char *kind, uint32_t n_in, const ox_vid *in, uint32_t n_out)
{
    ox_node *n = ox_graph_add_node(g, kind, n_in, in, n_out);
    ck_assert_ptr_nonnull(n);
    return n;
}

/* Gives n's output i the traced type: rank and dims (the host's record). */
static ox_vid typed(ox_node *n, uint32_t i, uint32_t rank, const int64_t *dims)
{
    ox_value_set_type(g, ox_graph_value(g, n->outputs[i]), OX_FLOAT, (int32_t)rank, dims);
    return n->outputs[i];
}

static void attr_int(ox_node *n, const char *name, int64_t v)
{
    ox_node_add_attr(g, n, name, OX_ATTR_INT)->u.i = v;
}

static void attr_ints(ox_node *n, const char *name, size_t count, const int64_t *v)
{
    ox_attr *a = ox_node_add_attr(g, n, name, OX_ATTR_INTS);
    a->u.ints.p = ox_arena_memdup(&g->arena, v, count * sizeof(int64_t));
    a->u.ints.n = count;
}

/* The masks of the graph as it stands. */
static ox_varying_dims analyse(void)
{
    ox_static_shapes s;
    ck_assert_int_eq(ox_static_shapes_init(g, &s), 0);
    for (const ox_node *n = g->first; n; n = n->next)
        ox_static_shapes_note(g, &s, n);
    ox_varying_dims d;
    ck_assert_int_eq(ox_varying_dims_compute(g, &s, &d), 0);
    ox_static_shapes_free(&s);
    return d;
}

static uint64_t mask(ox_vid v)
{
    ox_varying_dims d = analyse();
    uint64_t m = ox_varying_dims_of(&d, v);
    ox_varying_dims_free(&d);
    return m;
}

START_TEST(classifier_keeps_its_class_count)
{
    /* [batch, 3, 8, 8] -> Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm: [batch, 10] */
    ox_vid x = input(4, (int64_t[]){2, 3, 8, 8}, BIT(0));
    ox_vid w = weight(4, (int64_t[]){4, 3, 3, 3}), fc = weight(2, (int64_t[]){10, 4});
    ox_node *conv = op("onnx::Conv", 2, (ox_vid[]){x, w}, 1);
    ox_vid c = typed(conv, 0, 4, (int64_t[]){2, 4, 6, 6});
    ox_vid r = typed(op("onnx::Relu", 1, &c, 1), 0, 4, (int64_t[]){2, 4, 6, 6});
    ox_vid p = typed(op("onnx::GlobalAveragePool", 1, &r, 1), 0, 4, (int64_t[]){2, 4, 1, 1});
    ox_vid f = typed(op("onnx::Flatten", 1, &p, 1), 0, 2, (int64_t[]){2, 4});
    ox_node *gemm = op("onnx::Gemm", 2, (ox_vid[]){f, fc}, 1);
    attr_int(gemm, "transB", 1);
    ox_vid y = typed(gemm, 0, 2, (int64_t[]){2, 10});
    ck_assert_uint_eq(mask(c), BIT(0));
    ck_assert_uint_eq(mask(y), BIT(0));
}
END_TEST

START_TEST(spatial_dims_follow_the_input_through_conv)
{
    ox_vid x = input(4, (int64_t[]){1, 3, 8, 8}, BIT(2) | BIT(3));
    ox_vid w = weight(4, (int64_t[]){4, 3, 3, 3});
    ox_vid c = typed(op("onnx::Conv", 2, (ox_vid[]){x, w}, 1), 0, 4, (int64_t[]){1, 4, 6, 6});
    ox_vid m = typed(op("onnx::MaxPool", 1, &c, 1), 0, 4, (int64_t[]){1, 4, 3, 3});
    ck_assert_uint_eq(mask(m), BIT(2) | BIT(3));
}
END_TEST

START_TEST(attention_scores_vary_in_both_sequence_dims)
{
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_node *t = op("onnx::Transpose", 1, &x, 1);
    attr_ints(t, "perm", 3, (int64_t[]){0, 2, 1});
    ox_vid xt = typed(t, 0, 3, (int64_t[]){2, 4, 5});
    ox_vid s = typed(op("onnx::MatMul", 2, (ox_vid[]){x, xt}, 1), 0, 3, (int64_t[]){2, 5, 5});
    ck_assert_uint_eq(mask(xt), BIT(0) | BIT(2));
    ck_assert_uint_eq(mask(s), BIT(0) | BIT(1) | BIT(2));
    /* times a fixed [4, 6] weight: the columns are the weight's */
    ox_vid w = weight(2, (int64_t[]){4, 6});
    ox_vid p = typed(op("onnx::MatMul", 2, (ox_vid[]){x, w}, 1), 0, 3, (int64_t[]){2, 5, 6});
    ck_assert_uint_eq(mask(p), BIT(0) | BIT(1));
}
END_TEST

START_TEST(broadcast_is_right_aligned)
{
    ox_vid x = input(2, (int64_t[]){2, 4}, BIT(0));
    ox_vid b = weight(1, (int64_t[]){4});
    ox_vid s = typed(op("onnx::Add", 2, (ox_vid[]){x, b}, 1), 0, 2, (int64_t[]){2, 4});
    ck_assert_uint_eq(mask(s), BIT(0));
    ox_vid col = input(2, (int64_t[]){3, 1}, BIT(0));
    ox_vid row = input(2, (int64_t[]){1, 5}, BIT(1));
    ox_vid o = typed(op("onnx::Mul", 2, (ox_vid[]){col, row}, 1), 0, 2, (int64_t[]){3, 5});
    ck_assert_uint_eq(mask(o), BIT(0) | BIT(1));
    /* a rank-1 operand's dim 0 is the last dim of the result */
    ox_vid v = input(1, (int64_t[]){5}, BIT(0));
    ox_vid m = weight(2, (int64_t[]){3, 5});
    ox_vid d = typed(op("onnx::Div", 2, (ox_vid[]){m, v}, 1), 0, 2, (int64_t[]){3, 5});
    ck_assert_uint_eq(mask(d), BIT(1));
}
END_TEST

START_TEST(reshape_by_a_constant_shape)
{
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_vid keep = typed(op("onnx::Reshape", 2, (ox_vid[]){x, ints(2, (int64_t[]){0, -1})}, 1), 0, 2,
                        (int64_t[]){2, 20});
    ox_vid rows = typed(op("onnx::Reshape", 2, (ox_vid[]){x, ints(2, (int64_t[]){-1, 4})}, 1), 0, 2,
                        (int64_t[]){10, 4});
    ox_vid fixed = typed(op("onnx::Reshape", 2, (ox_vid[]){x, ints(2, (int64_t[]){4, 10})}, 1), 0,
                         2, (int64_t[]){4, 10});
    ck_assert_uint_eq(mask(keep), BIT(0) | BIT(1));
    ck_assert_uint_eq(mask(rows), BIT(0));
    ck_assert_uint_eq(mask(fixed), 0);
}
END_TEST

START_TEST(reshape_by_a_computed_shape_follows_its_elements)
{
    /* x.reshape(x.size(0), -1, 2): Concat(Unsqueeze(Gather(Shape(x), 0)), [-1, 2]) */
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_node *sh = op("onnx::Shape", 1, &x, 1);
    ox_value_set_type(g, ox_graph_value(g, sh->outputs[0]), OX_INT64, 1, (int64_t[]){3});
    ox_vid zero = ints(1, (int64_t[]){0});
    ox_vid b = op("onnx::Gather", 2, (ox_vid[]){sh->outputs[0], zero}, 1)->outputs[0];
    ox_vid rest = ints(2, (int64_t[]){-1, 2});
    ox_vid target = op("onnx::Concat", 2, (ox_vid[]){b, rest}, 1)->outputs[0];
    ox_vid y = typed(op("onnx::Reshape", 2, (ox_vid[]){x, target}, 1), 0, 3, (int64_t[]){2, 10, 2});
    ck_assert_uint_eq(mask(sh->outputs[0]), 0); /* [rank] never varies */
    ck_assert_uint_eq(mask(y), BIT(0) | BIT(1));
    /* by its own shape, the fixed dim stays fixed */
    ox_vid same = typed(op("onnx::Reshape", 2, (ox_vid[]){x, sh->outputs[0]}, 1), 0, 3,
                        (int64_t[]){2, 5, 4});
    ck_assert_uint_eq(mask(same), BIT(0) | BIT(1));
}
END_TEST

/* F.pad to a multiple of 4 (Swin's windows) from opset 11: the pads are
 * computed from a size, and the padded dim varies only where that size
 * or the data's dim does. */
START_TEST(a_pad_computed_from_sizes_follows_them)
{
    for (int width_dynamic = 0; width_dynamic < 2; width_dynamic++) {
        ox_graph_free(g);
        g = ox_graph_new("m");
        ox_vid x = input(2, (int64_t[]){2, 5}, BIT(0) | (width_dynamic ? BIT(1) : 0));
        ox_node *sh = op("onnx::Shape", 1, &x, 1);
        ox_vid w = op("onnx::Gather", 2, (ox_vid[]){sh->outputs[0], ints(1, (int64_t[]){1})}, 1)->outputs[0];
        ox_vid four = ints(1, (int64_t[]){4});
        ox_vid rem = op("onnx::Mod", 2, (ox_vid[]){w, four}, 1)->outputs[0];
        ox_vid gap = op("onnx::Sub", 2, (ox_vid[]){four, rem}, 1)->outputs[0];
        ox_vid right = op("onnx::Mod", 2, (ox_vid[]){gap, four}, 1)->outputs[0];
        ox_vid pads = op("onnx::Concat", 2, (ox_vid[]){ints(3, (int64_t[]){0, 0, 0}), right}, 1)->outputs[0];
        attr_int(ox_graph_value(g, pads)->producer, "axis", 0);
        ox_vid y = typed(op("onnx::Pad", 2, (ox_vid[]){x, pads}, 1), 0, 2, (int64_t[]){2, 8});
        ck_assert_uint_eq(mask(y), width_dynamic ? BIT(0) | BIT(1) : BIT(0));
    }
    /* pads the analysis cannot read: every dim may vary */
    ox_value *p = ox_graph_add_value(g, OX_VAL_INPUT, OX_INT64, 1, (int64_t[]){4});
    ox_graph_add_input(g, p->id);
    ox_vid x = input(2, (int64_t[]){2, 5}, 0);
    ox_vid y = typed(op("onnx::Pad", 2, (ox_vid[]){x, p->id}, 1), 0, 2, (int64_t[]){2, 8});
    ck_assert_uint_eq(mask(y), BIT(0) | BIT(1));
}
END_TEST

START_TEST(reshape_by_an_unknown_shape_varies_everywhere)
{
    ox_vid x = input(2, (int64_t[]){2, 6}, BIT(0));
    ox_value *shape = ox_graph_add_value(g, OX_VAL_INPUT, OX_INT64, 1, (int64_t[]){2});
    ox_graph_add_input(g, shape->id);
    ox_vid y = typed(op("onnx::Reshape", 2, (ox_vid[]){x, shape->id}, 1), 0, 2, (int64_t[]){3, 4});
    ck_assert_uint_eq(mask(y), BIT(0) | BIT(1));
}
END_TEST

START_TEST(a_size_expression_on_fixed_dims_stays_fixed)
{
    /* c // 2 with c fixed: Div, and comparisons and a Cast in the fix-up */
    ox_vid x = input(2, (int64_t[]){3, 8}, BIT(0));
    ox_node *sh = op("onnx::Shape", 1, &x, 1);
    ox_vid c = op("onnx::Gather", 2, (ox_vid[]){sh->outputs[0], ints(1, (int64_t[]){1})}, 1)->outputs[0];
    ox_vid two = ints(1, (int64_t[]){2});
    ox_vid half = op("onnx::Div", 2, (ox_vid[]){c, two}, 1)->outputs[0];
    ox_vid neg = op("onnx::Less", 2, (ox_vid[]){c, two}, 1)->outputs[0];
    ox_node *cast = op("onnx::Cast", 1, &neg, 1);
    attr_int(cast, "to", OX_INT64);
    ox_vid fixed = op("onnx::Sub", 2, (ox_vid[]){half, cast->outputs[0]}, 1)->outputs[0];
    ox_vid b = op("onnx::Gather", 2, (ox_vid[]){sh->outputs[0], ints(1, (int64_t[]){0})}, 1)->outputs[0];
    ox_vid target = op("onnx::Concat", 3, (ox_vid[]){b, ints(1, (int64_t[]){2}), fixed}, 1)->outputs[0];
    ox_vid y = typed(op("onnx::Reshape", 2, (ox_vid[]){x, target}, 1), 0, 3, (int64_t[]){3, 2, 4});
    /* the fixed element is worked out (8 // 2 - (8 < 2) = 4), so only the
     * batch varies */
    ck_assert_uint_eq(mask(y), BIT(0));
    ox_node *e = op("onnx::Expand", 2, (ox_vid[]){ints(1, (int64_t[]){1}), target}, 1);
    ck_assert_uint_eq(mask(typed(e, 0, 3, (int64_t[]){3, 2, 4})), BIT(0));
}
END_TEST

START_TEST(unbind_pieces_keep_their_fixed_dims)
{
    /* unbind over dim 1: Split (equal pieces), then Squeeze, the Split's
     * outputs untyped (a symbolic's values in passing) */
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_node *split = op("onnx::Split", 1, &x, 5);
    attr_int(split, "axis", 1);
    ox_vid piece = split->outputs[0];
    ox_vid y = typed(op("onnx::Squeeze", 2, (ox_vid[]){piece, ints(1, (int64_t[]){1})}, 1), 0, 2,
                     (int64_t[]){2, 4});
    ck_assert_uint_eq(mask(piece), BIT(0) | BIT(1)); /* rank 3, worked out */
    ck_assert_uint_eq(mask(y), BIT(0));
    /* pieces of given sizes are fixed in the split dim */
    ox_node *sized = op("onnx::Split", 2, (ox_vid[]){x, ints(2, (int64_t[]){2, 3})}, 2);
    attr_int(sized, "axis", 1);
    ck_assert_uint_eq(mask(sized->outputs[1]), BIT(0));
}
END_TEST

START_TEST(reductions_drop_or_fix_their_axes)
{
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_node *mean = op("onnx::ReduceMean", 1, &x, 1);
    attr_ints(mean, "axes", 1, (int64_t[]){1});
    attr_int(mean, "keepdims", 0);
    ox_vid m = typed(mean, 0, 2, (int64_t[]){2, 4});
    ox_node *sum = op("onnx::ReduceSum", 2, (ox_vid[]){x, ints(1, (int64_t[]){-2})}, 1);
    ox_vid s = typed(sum, 0, 3, (int64_t[]){2, 1, 4});
    ox_node *am = op("onnx::ArgMax", 1, &x, 1);
    attr_int(am, "axis", 0);
    ox_vid a = typed(am, 0, 3, (int64_t[]){1, 5, 4});
    ck_assert_uint_eq(mask(m), BIT(0));
    ck_assert_uint_eq(mask(s), BIT(0));
    ck_assert_uint_eq(mask(a), BIT(1));
}
END_TEST

START_TEST(resize_to_a_reference_size_keeps_the_channels)
{
    /* y [b, 21, h/8, w/8] resized to Concat(Shape(y)[0:2], Shape(x)[2:4]) */
    ox_vid x = input(4, (int64_t[]){1, 3, 64, 64}, BIT(0) | BIT(2) | BIT(3));
    ox_vid w = weight(4, (int64_t[]){21, 3, 8, 8});
    ox_node *conv = op("onnx::Conv", 2, (ox_vid[]){x, w}, 1);
    ox_vid y = typed(conv, 0, 4, (int64_t[]){1, 21, 57, 57});
    ox_vid sy = op("onnx::Shape", 1, &y, 1)->outputs[0];
    ox_vid head = op("onnx::Slice", 3, (ox_vid[]){sy, ints(1, (int64_t[]){0}), ints(1, (int64_t[]){2})},
                     1)->outputs[0];
    ox_node *sx = op("onnx::Shape", 1, &x, 1);
    attr_int(sx, "start", 2);
    ox_vid sizes = op("onnx::Concat", 2, (ox_vid[]){head, sx->outputs[0]}, 1)->outputs[0];
    ox_node *rs = op("onnx::Resize", 4, (ox_vid[]){y, 0, 0, sizes}, 1);
    ck_assert_uint_eq(mask(typed(rs, 0, 4, (int64_t[]){1, 21, 64, 64})), BIT(0) | BIT(2) | BIT(3));
}
END_TEST

START_TEST(lstm_outputs_follow_sequence_and_batch)
{
    ox_vid x = input(3, (int64_t[]){7, 2, 8}, BIT(0) | BIT(1));
    ox_vid w = weight(3, (int64_t[]){1, 64, 8}), r = weight(3, (int64_t[]){1, 64, 16});
    ox_node *lstm = op("onnx::LSTM", 3, (ox_vid[]){x, w, r}, 3);
    ox_vid y = typed(lstm, 0, 4, (int64_t[]){7, 1, 2, 16});
    ox_vid h = typed(lstm, 1, 3, (int64_t[]){1, 2, 16});
    ck_assert_uint_eq(mask(y), BIT(0) | BIT(2));
    ck_assert_uint_eq(mask(h), BIT(1));
}
END_TEST

START_TEST(gather_by_constant_indices)
{
    ox_vid x = input(3, (int64_t[]){2, 5, 4}, BIT(0) | BIT(1));
    ox_node *ga = op("onnx::Gather", 2, (ox_vid[]){x, ints(3, (int64_t[]){0, 2, 1})}, 1);
    attr_int(ga, "axis", 1);
    ck_assert_uint_eq(mask(typed(ga, 0, 3, (int64_t[]){2, 3, 4})), BIT(0));
}
END_TEST

START_TEST(unknown_operators_vary_everywhere_unless_fixed)
{
    ox_vid x = input(2, (int64_t[]){2, 4}, BIT(0));
    ox_vid f = typed(op("com.example::Foo", 1, &x, 1), 0, 2, (int64_t[]){2, 4});
    ox_vid z = typed(op("onnx::NonZero", 1, &x, 1), 0, 2, (int64_t[]){2, 8});
    ck_assert_uint_eq(mask(f), BIT(0) | BIT(1));
    ck_assert_uint_eq(mask(z), BIT(0) | BIT(1));
    /* no dynamic axis reaches a fixed input's Relu */
    ox_vid c = input(2, (int64_t[]){3, 3}, 0);
    ck_assert_uint_eq(mask(typed(op("onnx::Relu", 1, &c, 1), 0, 2, (int64_t[]){3, 3})), 0);
}
END_TEST

START_TEST(unknown_input_dims_count_as_dynamic)
{
    ox_vid x = input(2, (int64_t[]){-1, 4}, 0);
    ck_assert_uint_eq(mask(typed(op("onnx::Relu", 1, &x, 1), 0, 2, (int64_t[]){-1, 4})), BIT(0));
}
END_TEST

static size_t fixed_count_warnings(void)
{
    ox_report r;
    ox_report_init(&r);
    ck_assert_int_eq(ox_fixed_counts_warn(g, NULL, NULL, 0, &r), 0);
    size_t n = r.n;
    for (size_t i = 0; i < r.n; i++)
        ck_assert_ptr_nonnull(strstr(r.lines[i], "the number of pieces (5"));
    ox_report_free(&r);
    return n;
}

START_TEST(a_split_counted_over_a_dynamic_dim_warns)
{
    ox_vid x = input(3, (int64_t[]){3, 5, 4}, BIT(1));
    ox_node *over_fixed = op("onnx::Split", 1, &x, 3); /* dim 0: 3 pieces, always */
    attr_int(over_fixed, "axis", 0);
    ck_assert_uint_eq(fixed_count_warnings(), 0);
    ox_node *sized = op("onnx::Split", 2, (ox_vid[]){x, ints(2, (int64_t[]){2, 3})}, 2);
    attr_int(sized, "axis", 1); /* sizes the model gave */
    ck_assert_uint_eq(fixed_count_warnings(), 0);
    ox_node *counted = op("onnx::Split", 1, &x, 5); /* unbind(1) */
    attr_int(counted, "axis", -2);
    ck_assert_uint_eq(fixed_count_warnings(), 1);
}
END_TEST

START_TEST(a_size_read_warns_only_where_a_dynamic_axis_reaches)
{
    ox_vid x = input(2, (int64_t[]){3, 6}, BIT(1));
    ox_vid y = typed(op("onnx::Relu", 1, &x, 1), 0, 2, (int64_t[]){3, 6});
    /* the recorded op the reads were made for (its graph: the trace's) */
    ox_graph *traced = ox_graph_new("t");
    ox_node *unfold = ox_graph_add_node(traced, "aten::unfold", 0, NULL, 1);
    unfold->scope = "Net/Windows[w]";
    ox_size_read reads[] = {{y, 0, unfold}, {y, 1, unfold}, {y, -1, unfold}, {x, 1, unfold}};
    ox_report r;
    ox_report_init(&r);
    ck_assert_int_eq(ox_fixed_counts_warn(g, NULL, reads, 1, &r), 0);
    ck_assert_uint_eq(r.n, 0); /* dim 0 is fixed */
    ck_assert_int_eq(ox_fixed_counts_warn(g, NULL, reads, 4, &r), 0);
    ck_assert_uint_eq(r.n, 1); /* dim 1 varies: one line for the call, not one per read */
    ck_assert_ptr_nonnull(strstr(r.lines[0], "aten::unfold at Net/Windows[w]: its conversion read "
                                             "dim 1 of a value as 6"));
    ox_report_free(&r);
    ox_graph_free(traced);
}
END_TEST

START_TEST(no_dynamic_axis_no_warning)
{
    ox_vid x = input(3, (int64_t[]){3, 5, 4}, 0);
    ox_node *counted = op("onnx::Split", 1, &x, 5);
    attr_int(counted, "axis", 1);
    ck_assert_uint_eq(fixed_count_warnings(), 0);
}
END_TEST

START_TEST(rule_table_is_sorted)
{
    ck_assert(ox_varying_dims_table_sorted());
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("varying_dims");
    TCase *t = tcase_create("rules");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, classifier_keeps_its_class_count);
    tcase_add_test(t, spatial_dims_follow_the_input_through_conv);
    tcase_add_test(t, attention_scores_vary_in_both_sequence_dims);
    tcase_add_test(t, broadcast_is_right_aligned);
    tcase_add_test(t, reshape_by_a_constant_shape);
    tcase_add_test(t, reshape_by_a_computed_shape_follows_its_elements);
    tcase_add_test(t, reshape_by_an_unknown_shape_varies_everywhere);
    tcase_add_test(t, a_size_expression_on_fixed_dims_stays_fixed);
    tcase_add_test(t, a_pad_computed_from_sizes_follows_them);
    tcase_add_test(t, unbind_pieces_keep_their_fixed_dims);
    tcase_add_test(t, reductions_drop_or_fix_their_axes);
    tcase_add_test(t, lstm_outputs_follow_sequence_and_batch);
    tcase_add_test(t, resize_to_a_reference_size_keeps_the_channels);
    tcase_add_test(t, gather_by_constant_indices);
    tcase_add_test(t, unknown_operators_vary_everywhere_unless_fixed);
    tcase_add_test(t, unknown_input_dims_count_as_dynamic);
    tcase_add_test(t, rule_table_is_sorted);
    tcase_add_test(t, a_split_counted_over_a_dynamic_dim_warns);
    tcase_add_test(t, no_dynamic_axis_no_warning);
    tcase_add_test(t, a_size_read_warns_only_where_a_dynamic_axis_reaches);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
