/*
 * The verbose printer: the seed's format for ONNX graphs built with the IR
 * API and for traced graphs recorded through the tracer, checked against
 * literal text and against golden files in tests/golden/ (rewritten, never
 * hand-edited, by tools/regen-golden, which sets OXPORT_REGEN_GOLDEN=1).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "ir.h"
#include "oxport/oxport.h"
#include "print.h"
#include "test_util.h"

/* ------------------------------------------------------------ helpers */

static char *print_graph(const ox_graph *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ox_graph_print(g, f), OX_OK);
    fclose(f);
    return text;
}

/* Compare with tests/golden/<name>.txt, or rewrite it when regenerating. */
static void check_golden(const char *name, const char *text)
{
    const char *src = getenv("OXPORT_TEST_SRCDIR");
    ck_assert_msg(src != NULL, "OXPORT_TEST_SRCDIR is not set (run through meson test)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/%s.txt", src, name);
    const char *regen = getenv("OXPORT_REGEN_GOLDEN");
    if (regen && strcmp(regen, "1") == 0) {
        FILE *f = fopen(path, "wb");
        ck_assert_msg(f != NULL, "cannot write %s", path);
        fputs(text, f);
        ck_assert_int_eq(fclose(f), 0);
        return;
    }
    char *want = slurp_text(path);
    ck_assert_msg(want != NULL, "golden file %s is missing: run tools/regen-golden", path);
    if (strcmp(want, text) != 0) {
        /* Point at the first differing line so the failure is readable. */
        const char *a = text, *b = want, *la = text, *lb = want;
        int line = 1;
        while (*a && *a == *b) {
            if (*a == '\n') {
                line++;
                la = a + 1;
                lb = b + 1;
            }
            a++;
            b++;
        }
        const char *ea = strchr(la, '\n'), *eb = strchr(lb, '\n');
        ck_abort_msg("%s differs at line %d:\n  got:  %.*s\n  want: %.*s\n"
                     "(if the change is intended, run tools/regen-golden)",
                     path, line, ea ? (int)(ea - la) : (int)strlen(la), la,
                     eb ? (int)(eb - lb) : (int)strlen(lb), lb);
    }
    free(want);
}

static ox_value *named(ox_graph *g, ox_value_kind kind, const char *name, ox_dtype dt,
                       int32_t rank, const int64_t *dims)
{
    ox_value *v = ox_graph_add_value(g, kind, dt, rank, dims);
    ck_assert_ptr_nonnull(v);
    if (name)
        v->name = ox_arena_strdup(&g->arena, name);
    return v;
}

static ox_node *onnx_node(ox_graph *g, const char *kind, uint32_t n_in, const ox_vid *in,
                          uint32_t n_out, const char *scope)
{
    ox_node *n = ox_graph_add_node(g, kind, n_in, in, n_out);
    ck_assert_ptr_nonnull(n);
    n->scope = scope ? ox_arena_strdup(&g->arena, scope) : "";
    return n;
}

static void set_type(ox_graph *g, ox_vid id, ox_dtype dt, int32_t rank, const int64_t *dims)
{
    ck_assert_int_eq(ox_value_set_type(g, ox_graph_value(g, id), dt, rank, dims), 0);
}

static void attr_ints(ox_graph *g, ox_node *n, const char *name, size_t k, const int64_t *v)
{
    ox_attr *a = ox_node_add_attr(g, n, name, OX_ATTR_INTS);
    a->u.ints.p = ox_arena_memdup(&g->arena, v, k * sizeof *v);
    a->u.ints.n = k;
}

static void attr_int(ox_graph *g, ox_node *n, const char *name, int64_t v)
{
    ox_node_add_attr(g, n, name, OX_ATTR_INT)->u.i = v;
}

static void attr_float(ox_graph *g, ox_node *n, const char *name, float v)
{
    ox_node_add_attr(g, n, name, OX_ATTR_FLOAT)->u.f = v;
}

/* ------------------------------------------------- ONNX graphs (IR API) */

/* The seed document's AlexNet excerpt, value ids and all. */
START_TEST(seed_alexnet_excerpt)
{
    ox_graph *g = ox_graph_new("torch-jit-export");
    g->is_onnx = true;
    static const int64_t in_d[] = {10, 3, 224, 224}, w0_d[] = {64, 3, 11, 11}, b0_d[] = {64},
                         w14_d[] = {1000, 4096}, b14_d[] = {1000}, act_d[] = {10, 64, 55, 55},
                         out_d[] = {10, 1000};
    ox_vid x = named(g, OX_VAL_INPUT, "actual_input_1", OX_FLOAT, 4, in_d)->id;
    ox_vid w0 = named(g, OX_VAL_PARAM, "learned_0", OX_FLOAT, 4, w0_d)->id;
    ox_vid b0 = named(g, OX_VAL_PARAM, "learned_1", OX_FLOAT, 1, b0_d)->id;
    ox_graph_add_input(g, x);
    ox_graph_add_param(g, w0);
    ox_graph_add_param(g, b0);
    /* Unused values so the conv output gets id 17, as in the seed. */
    while (g->n_values < 17)
        ox_graph_add_value(g, OX_VAL_NODE, OX_UNDEFINED, -1, NULL);

    ox_vid conv_in[] = {x, w0, b0};
    ox_node *conv = onnx_node(g, "onnx::Conv", 3, conv_in, 1,
                              "AlexNet/Sequential[features]/Conv2d[0]");
    static const int64_t ones[] = {1, 1}, k11[] = {11, 11}, pads[] = {2, 2, 2, 2}, s4[] = {4, 4};
    /* Added out of order: the printer sorts by name. */
    attr_ints(g, conv, "strides", 2, s4);
    attr_ints(g, conv, "pads", 4, pads);
    attr_ints(g, conv, "kernel_shape", 2, k11);
    attr_int(g, conv, "group", 1);
    attr_ints(g, conv, "dilations", 2, ones);
    ck_assert_uint_eq(conv->outputs[0], 17);
    set_type(g, conv->outputs[0], OX_FLOAT, 4, act_d);

    ox_node *relu = onnx_node(g, "onnx::Relu", 1, conv->outputs, 1,
                              "AlexNet/Sequential[features]/ReLU[1]");
    set_type(g, relu->outputs[0], OX_FLOAT, 4, act_d);

    ox_vid w14 = named(g, OX_VAL_PARAM, "learned_14", OX_FLOAT, 2, w14_d)->id;
    ox_vid b14 = named(g, OX_VAL_PARAM, "learned_15", OX_FLOAT, 1, b14_d)->id;
    ox_graph_add_param(g, w14);
    ox_graph_add_param(g, b14);
    ox_vid gemm_in[] = {relu->outputs[0], w14, b14};
    ox_node *gemm = onnx_node(g, "onnx::Gemm", 3, gemm_in, 1,
                              "AlexNet/Sequential[classifier]/Linear[6]");
    attr_int(g, gemm, "transB", 1);
    attr_float(g, gemm, "beta", 1.0f);
    attr_float(g, gemm, "alpha", 1.0f);
    ox_value *out = ox_graph_value(g, gemm->outputs[0]);
    out->name = "output1";
    set_type(g, out->id, OX_FLOAT, 2, out_d);
    ox_graph_add_output(g, out->id);

    char *text = print_graph(g);
    ck_assert_str_eq(text,
        "graph(%actual_input_1 : Float(10, 3, 224, 224)\n"
        "      %learned_0 : Float(64, 3, 11, 11)\n"
        "      %learned_1 : Float(64)\n"
        "      %learned_14 : Float(1000, 4096)\n"
        "      %learned_15 : Float(1000)) {\n"
        "  %17 : Float(10, 64, 55, 55) = onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[11, 11], "
        "pads=[2, 2, 2, 2], strides=[4, 4]](%actual_input_1, %learned_0, %learned_1), "
        "scope: AlexNet/Sequential[features]/Conv2d[0]\n"
        "  %18 : Float(10, 64, 55, 55) = onnx::Relu(%17), scope: AlexNet/Sequential[features]/ReLU[1]\n"
        "  %output1 : Float(10, 1000) = onnx::Gemm[alpha=1, beta=1, transB=1](%18, %learned_14, "
        "%learned_15), scope: AlexNet/Sequential[classifier]/Linear[6]\n"
        "  return (%output1);\n"
        "}\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

static ox_attr_tensor *make_tensor(ox_graph *g, ox_dtype dt, uint32_t rank, const int64_t *dims,
                                   const void *data, size_t nbytes)
{
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    t->dims = rank ? ox_arena_memdup(&g->arena, dims, rank * sizeof *dims) : NULL;
    t->data.data = data ? ox_arena_memdup(&g->arena, data, nbytes) : NULL;
    t->data.nbytes = data ? nbytes : 0;
    t->data.owned = true;
    return t;
}

/* One node carrying every attribute kind the printer knows. */
static ox_graph *every_attr_graph(void)
{
    ox_graph *g = ox_graph_new("attrs");
    g->is_onnx = true;
    static const int64_t d2[] = {2, 3};
    ox_vid x = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 2, d2)->id;
    ox_graph_add_input(g, x);
    ox_node *n = onnx_node(g, "com.example::Everything", 1, &x, 1, "M/Custom[c]");

    attr_float(g, n, "f_one", 1.0f);
    attr_float(g, n, "f_slope", 0.01f);
    attr_float(g, n, "f_eps", 1e-05f);
    attr_float(g, n, "f_neg", -2.5f);
    attr_int(g, n, "i_neg", -9223372036854775807LL - 1);
    attr_int(g, n, "i_zero", 0);
    ox_attr *s = ox_node_add_attr(g, n, "s_mode", OX_ATTR_STRING);
    s->u.s.p = ox_arena_strdup(&g->arena, "say \"hi\"\\\n");
    s->u.s.len = strlen(s->u.s.p);
    ox_attr *e = ox_node_add_attr(g, n, "s_empty", OX_ATTR_STRING);
    e->u.s.p = "";
    e->u.s.len = 0;
    static const int64_t big[] = {7, -1, 0, 12345678901LL};
    attr_ints(g, n, "ints", 4, big);
    attr_ints(g, n, "ints_empty", 0, big);
    ox_attr *fl = ox_node_add_attr(g, n, "floats", OX_ATTR_FLOATS);
    static double fv[] = {0.5, (double)0.1f, 3.0};
    fl->u.floats.p = fv;
    fl->u.floats.n = 3;
    ox_attr *ss = ox_node_add_attr(g, n, "strings", OX_ATTR_STRINGS);
    static const char *sv[] = {"a", "b"};
    ss->u.strings.p = sv;
    ss->u.strings.n = 2;

    int64_t one = 1;
    ox_node_add_attr(g, n, "t_scalar", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_INT64, 0, NULL, &one, sizeof one);
    float fvals[10] = {0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f};
    static const int64_t d10[] = {10};
    ox_node_add_attr(g, n, "t_large", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_FLOAT, 1, d10, fvals, sizeof fvals);
    static const int64_t d3[] = {3};
    uint8_t bools[3] = {1, 0, 1};
    ox_node_add_attr(g, n, "t_bool", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_BOOL, 1, d3, bools, sizeof bools);
    uint16_t halves[3] = {0x3c00, 0xc000, 0x3555}; /* 1, -2, 0.333 */
    ox_node_add_attr(g, n, "t_half", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_FLOAT16, 1, d3, halves, sizeof halves);
    /* Weights kept outside (external data not loaded): opaque. */
    ox_node_add_attr(g, n, "t_external", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_FLOAT, 1, d10, NULL, 0);
    /* A damaged file can declare more elements than it has bytes. */
    ox_node_add_attr(g, n, "t_short", OX_ATTR_TENSOR)->u.t =
        make_tensor(g, OX_FLOAT, 1, d10, fvals, 8);
    ox_attr *ts = ox_node_add_attr(g, n, "tensors", OX_ATTR_TENSORS);
    ts->u.tensors.n = 2;
    ts->u.tensors.p = ox_arena_alloc(&g->arena, 2 * sizeof(ox_attr_tensor *));
    ts->u.tensors.p[0] = make_tensor(g, OX_INT64, 0, NULL, &one, sizeof one);
    double two = 2.0;
    ts->u.tensors.p[1] = make_tensor(g, OX_DOUBLE, 0, NULL, &two, sizeof two);

    set_type(g, n->outputs[0], OX_FLOAT, 2, d2);
    ox_graph_add_output(g, n->outputs[0]);
    return g;
}

START_TEST(every_attribute_kind)
{
    ox_graph *g = every_attr_graph();
    char *text = print_graph(g);
    /* The parts a reader relies on, literally; the golden pins the rest. */
    ck_assert_ptr_nonnull(strstr(text, "f_eps=1e-05, f_neg=-2.5, f_one=1, f_slope=0.01, "));
    ck_assert_ptr_nonnull(strstr(text, "floats=[0.5, 0.1, 3]"));
    ck_assert_ptr_nonnull(strstr(text, "i_neg=-9223372036854775808, i_zero=0, "
                                       "ints=[7, -1, 0, 12345678901], ints_empty=[], "));
    ck_assert_ptr_nonnull(strstr(text, "s_empty=\"\", s_mode=\"say \\\"hi\\\"\\\\\\n\", "
                                       "strings=[\"a\", \"b\"], "));
    ck_assert_ptr_nonnull(strstr(text, "t_bool={1, 0, 1}, t_external={...}, "
                                       "t_half={1, -2, 0.33325195}, "
                                       "t_large={0, 0.5, 1, 1.5, 2, 2.5, ...}, t_scalar={1}, "
                                       "t_short={...}, tensors=[{1}, {2}]](%x)"));
    ck_assert_ptr_nonnull(strstr(text, " = com.example::Everything["));
    check_golden("attributes", text);
    free(text);
    ox_graph_free(g);
}
END_TEST

START_TEST(types_dims_and_names)
{
    ox_graph *g = ox_graph_new("types");
    g->is_onnx = true;
    static const int64_t dyn[] = {-1, 3, -1, 224};
    ox_value *x = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 4, dyn);
    ck_assert_int_eq(ox_value_set_dim_param(g, x, 0, "batch"), 0);
    ox_value *scalar = named(g, OX_VAL_INPUT, "s", OX_INT64, 0, NULL);
    ox_value *untyped = named(g, OX_VAL_INPUT, "u", OX_UNDEFINED, -1, NULL);
    ox_value *norank = named(g, OX_VAL_INPUT, "r", OX_DOUBLE, -1, NULL);
    ox_value *unnamed = named(g, OX_VAL_INPUT, NULL, OX_BOOL, 1, dyn + 1);
    ox_graph_add_input(g, x->id);
    ox_graph_add_input(g, scalar->id);
    ox_graph_add_input(g, untyped->id);
    ox_graph_add_input(g, norank->id);
    ox_graph_add_input(g, unnamed->id);
    static const ox_dtype all[] = {OX_INT32, OX_FLOAT16, OX_UINT8, OX_INT8, OX_INT16, OX_BFLOAT16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ox_graph_add_input(g, ox_graph_add_value(g, OX_VAL_INPUT, all[i], 1, dyn + 1)->id);
    ox_graph_add_output(g, x->id);
    char *text = print_graph(g);
    ck_assert_str_eq(text,
        "graph(%x : Float(batch, 3, *, 224)\n"
        "      %s : Long()\n"
        "      %u : Tensor\n"
        "      %r : Double\n"
        "      %5 : Bool(3)\n"
        "      %6 : Int(3)\n"
        "      %7 : Half(3)\n"
        "      %8 : Byte(3)\n"
        "      %9 : Char(3)\n"
        "      %10 : Short(3)\n"
        "      %11 : BFloat16(3)) {\n"
        "  return (%x);\n"
        "}\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

START_TEST(multi_output_absent_input_empty_scope)
{
    ox_graph *g = ox_graph_new("lstm");
    g->is_onnx = true;
    static const int64_t xd[] = {5, 1, 8}, wd[] = {1, 64, 8}, hd[] = {1, 1, 16},
                         yd[] = {5, 1, 1, 16};
    ox_vid x = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 3, xd)->id;
    ox_vid w = named(g, OX_VAL_PARAM, "w", OX_FLOAT, 3, wd)->id;
    ox_graph_add_input(g, x);
    ox_graph_add_param(g, w);
    /* X, W, R, B absent, sequence_lens absent, initial_h */
    ox_vid in[] = {x, w, w, 0, 0, x};
    ox_node *n = onnx_node(g, "onnx::LSTM", 6, in, 3, NULL);
    attr_int(g, n, "hidden_size", 16);
    set_type(g, n->outputs[0], OX_FLOAT, 4, yd);
    set_type(g, n->outputs[1], OX_FLOAT, 3, hd);
    set_type(g, n->outputs[2], OX_FLOAT, 3, hd);
    ox_graph_value(g, n->outputs[0])->name = "y";
    ox_graph_add_output(g, n->outputs[0]);
    ox_graph_add_output(g, n->outputs[2]);
    /* A node without outputs. */
    onnx_node(g, "onnx::Print", 1, &x, 0, "");
    char *text = print_graph(g);
    ck_assert_str_eq(text,
        "graph(%x : Float(5, 1, 8)\n"
        "      %w : Float(1, 64, 8)) {\n"
        "  %y : Float(5, 1, 1, 16), %4 : Float(1, 1, 16), %5 : Float(1, 1, 16) = "
        "onnx::LSTM[hidden_size=16](%x, %w, %w, %, %, %x)\n"
        "  = onnx::Print(%x)\n"
        "  return (%y, %5);\n"
        "}\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

/* Initializers that are also inputs (IR <= 3 layout) print once. */
START_TEST(initializer_also_input_prints_once_scope_one_line)
{
    ox_graph *g = ox_graph_new("kept");
    g->is_onnx = true;
    static const int64_t d[] = {2};
    ox_vid x = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 1, d)->id;
    ox_vid w = named(g, OX_VAL_PARAM, "w", OX_FLOAT, 1, d)->id;
    ox_vid b = named(g, OX_VAL_PARAM, "b", OX_FLOAT, 1, d)->id;
    ox_graph_add_input(g, x);
    ox_graph_add_input(g, w);
    ox_graph_add_param(g, w);
    ox_graph_add_param(g, b);
    ox_vid in[] = {x, w};
    /* A doc_string read from a file may hold a stack trace: one line only. */
    ox_node *n = onnx_node(g, "onnx::Add", 2, in, 1, "Net/Add\n/usr/lib/x.py(3): f\n");
    ox_graph_add_output(g, n->outputs[0]);
    char *text = print_graph(g);
    ck_assert_str_eq(text,
        "graph(%x : Float(2)\n"
        "      %w : Float(2)\n"
        "      %b : Float(2)) {\n"
        "  %4 : Tensor = onnx::Add(%x, %w), scope: Net/Add\n"
        "  return (%4);\n"
        "}\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

/* Subgraphs print as indented blocks after their node, nested ones deeper. */
START_TEST(subgraph_blocks)
{
    static const int64_t d[] = {2};
    ox_graph *inner = ox_graph_new("inner");
    ox_vid ix = named(inner, OX_VAL_INPUT, "x", OX_FLOAT, 1, d)->id;
    ox_node *neg = onnx_node(inner, "onnx::Neg", 1, &ix, 1, "");
    ox_graph_value(inner, neg->outputs[0])->name = "n";
    ox_graph_add_output(inner, neg->outputs[0]);

    ox_graph *body = ox_graph_new("body");
    ox_vid it = named(body, OX_VAL_INPUT, "i", OX_INT64, 0, NULL)->id;
    ox_vid cond = named(body, OX_VAL_INPUT, "cond_in", OX_BOOL, 0, NULL)->id;
    ox_graph_add_input(body, it);
    ox_graph_add_input(body, cond);
    ox_node *nested = onnx_node(body, "onnx::If", 1, &cond, 1, "");
    ox_node_add_attr(body, nested, "then_branch", OX_ATTR_GRAPH)->u.g = inner;
    ox_graph_value(body, nested->outputs[0])->name = "r";
    ox_graph_add_output(body, cond);
    ox_graph_add_output(body, nested->outputs[0]);

    ox_graph *g = ox_graph_new("loop");
    g->is_onnx = true;
    ox_vid m = named(g, OX_VAL_INPUT, "M", OX_INT64, 0, NULL)->id;
    ox_graph_add_input(g, m);
    ox_vid in[] = {m, 0};
    ox_node *loop = onnx_node(g, "onnx::Loop", 2, in, 1, "Net/Loop");
    ox_node_add_attr(g, loop, "body", OX_ATTR_GRAPH)->u.g = body;
    ox_graph_value(g, loop->outputs[0])->name = "y";
    ox_graph_add_output(g, loop->outputs[0]);

    char *text = print_graph(g);
    ck_assert_str_eq(text,
        "graph(%M : Long()) {\n"
        "  %y : Tensor = onnx::Loop[body=<Graph body>](%M, %), scope: Net/Loop\n"
        "    body(%i : Long(), %cond_in : Bool()):\n"
        "      %r : Tensor = onnx::If[then_branch=<Graph inner>](%cond_in)\n"
        "        then_branch():\n"
        "          %n : Tensor = onnx::Neg(%x)\n"
        "          -> (%n)\n"
        "      -> (%cond_in, %r)\n"
        "  return (%y);\n"
        "}\n");
    free(text);
    ox_graph_free(g);
    ox_graph_free(body);
    ox_graph_free(inner);
}
END_TEST

START_TEST(empty_graph)
{
    ox_graph *g = ox_graph_new("empty");
    char *text = print_graph(g);
    ck_assert_str_eq(text, "graph() {\n  return ();\n}\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

START_TEST(bad_arguments_and_write_errors)
{
    ox_graph *g = every_attr_graph();
    ck_assert_int_eq(ox_graph_print(NULL, stdout), OX_EINVAL);
    ck_assert_int_eq(ox_graph_print(g, NULL), OX_EINVAL);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        ck_assert_int_eq(ox_graph_print(g, full), OX_EIO);
        fclose(full);
    }
    ox_graph_free(g);
}
END_TEST

START_TEST(header_line)
{
    ox_graph *g = every_attr_graph();
    g->ir_version = 7;
    ox_graph_set_opset(g, "", 13);
    ox_graph_set_opset(g, "com.microsoft", 1);
    g->producer_name = "pytorch";
    g->producer_version = "1.13.0";
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(ox_print_header(g, f), OX_OK);
    fclose(f);
    ck_assert_str_eq(text, "ir_version=7 opsets=[ai.onnx:13, com.microsoft:1] producer=pytorch "
                           "1.13.0 graph=attrs nodes=1 initializers=0 inputs=1 outputs=1\n");
    free(text);
    ox_graph_free(g);
}
END_TEST

/* Printing is linear: a million nodes go out at stream speed.  The bound is
 * loose (sanitizer builds are slow); a quadratic printer would take hours. */
START_TEST(million_nodes_print_fast)
{
    ox_graph *g = ox_graph_new("chain");
    g->is_onnx = true;
    static const int64_t d[] = {1, 16};
    ox_vid v = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 2, d)->id;
    ox_graph_add_input(g, v);
    for (int i = 0; i < 1000000; i++) {
        ox_node *n = ox_graph_add_node(g, "onnx::Relu", 1, &v, 1);
        n->scope = "Chain/ReLU[r]";
        v = n->outputs[0];
        set_type(g, v, OX_FLOAT, 2, d);
    }
    ox_graph_add_output(g, v);
    FILE *null = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(null);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(ox_graph_print(g, null), OX_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fclose(null);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_msg(secs < 20.0, "printing 1M nodes took %.1f s", secs);
    ox_graph_free(g);
}
END_TEST

/* --------------------------------------------------- traced graphs */

static ox_context *ctx;

static void ctx_setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_ENV, &ctx), OX_OK);
}

static void ctx_teardown(void)
{
    ox_context_free(ctx);
    ctx = NULL;
}

static float weights[64 * 3 * 11 * 11];

static ox_graph *traced_alexnet_head(void)
{
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "AlexNet", &t), OX_OK);
    static const int64_t in_d[] = {10, 3, 224, 224}, w_d[] = {64, 3, 11, 11}, b_d[] = {64},
                         act_d[] = {10, 64, 55, 55}, pool_d[] = {10, 64, 27, 27},
                         cat_d[] = {10, 128, 27, 27};
    ox_vid x, w, b, c, r, p, cat, sm, add, lr;
    ck_assert_int_eq(ox_trace_input(t, "actual_input_1", OX_FLOAT, 4, in_d, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "features.0.weight", OX_FLOAT, 4, w_d, weights, OX_BORROW, &w), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "features.0.bias", OX_FLOAT, 1, b_d, weights, OX_BORROW, &b), OX_OK);

    ck_assert_int_eq(ox_trace_push_scope(t, "Sequential[features]"), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "Conv2d[0]"), OX_OK);
    static const int64_t s4[] = {4, 4}, p2[] = {2, 2}, ones[] = {1, 1}, k3[] = {3, 3},
                         s2[] = {2, 2}, zeros[] = {0, 0};
    ox_arg conv[] = {ox_arg_tensor("input", x), ox_arg_tensor("weight", w),
                     ox_arg_tensor("bias", b), ox_arg_ints("stride", s4, 2),
                     ox_arg_ints("padding", p2, 2), ox_arg_ints("dilation", ones, 2),
                     ox_arg_int("groups", 1)};
    ox_tensor_desc act = {OX_FLOAT, 4, act_d};
    ck_assert_int_eq(ox_trace_op(t, "aten::conv2d", 7, conv, 1, &act, &c), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "ReLU[1]"), OX_OK);
    ox_arg relu[] = {ox_arg_tensor("self", c)};
    ck_assert_int_eq(ox_trace_op(t, "aten::relu_", 1, relu, 1, &act, &r), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "MaxPool2d[2]"), OX_OK);
    ox_arg pool[] = {ox_arg_tensor("self", r), ox_arg_ints("kernel_size", k3, 2),
                     ox_arg_ints("stride", s2, 2), ox_arg_ints("padding", zeros, 2),
                     ox_arg_ints("dilation", ones, 2), ox_arg_bool("ceil_mode", 0)};
    ox_tensor_desc pooled = {OX_FLOAT, 4, pool_d};
    ck_assert_int_eq(ox_trace_op(t, "aten::max_pool2d", 6, pool, 1, &pooled, &p), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);

    /* Tensor lists, None tensors, dtype, float, string and scalar args at the root scope. */
    ox_vid parts[] = {p, p};
    ox_arg cat_args[] = {ox_arg_tensors("tensors", parts, 2), ox_arg_int("dim", 1)};
    ox_tensor_desc catted = {OX_FLOAT, 4, cat_d};
    ck_assert_int_eq(ox_trace_op(t, "aten::cat", 2, cat_args, 1, &catted, &cat), OX_OK);
    ox_arg sm_args[] = {ox_arg_tensor("self", cat), ox_arg_int("dim", -1),
                        ox_arg_dtype("dtype", OX_FLOAT)};
    ck_assert_int_eq(ox_trace_op(t, "aten::softmax", 3, sm_args, 1, &catted, &sm), OX_OK);
    ox_arg add_args[] = {ox_arg_tensor("self", sm), ox_arg_tensor("other", cat),
                         ox_arg_float("alpha", 0.5)};
    ck_assert_int_eq(ox_trace_op(t, "aten::add", 3, add_args, 1, &catted, &add), OX_OK);
    ox_arg lr_args[] = {ox_arg_tensor("self", add), ox_arg_float("negative_slope", 0.01),
                        ox_arg_none("scale"), ox_arg_string("approximate", "tanh")};
    ck_assert_int_eq(ox_trace_op(t, "aten::leaky_relu", 4, lr_args, 1, &catted, &lr), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, lr, "output1"), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, p, NULL), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    return g;
}

START_TEST(traced_graph)
{
    ox_graph *g = traced_alexnet_head();
    char *text = print_graph(g);
    ck_assert_ptr_nonnull(strstr(text,
        "graph(%actual_input_1 : Float(10, 3, 224, 224)\n"
        "      %features.0.weight : Float(64, 3, 11, 11)\n"
        "      %features.0.bias : Float(64)) {\n"));
    ck_assert_ptr_nonnull(strstr(text,
        " = aten::max_pool2d[kernel_size=[3, 3], stride=[2, 2], padding=[0, 0], "
        "dilation=[1, 1], ceil_mode=0](%5), scope: AlexNet/Sequential[features]/MaxPool2d[2]\n"));
    ck_assert_ptr_nonnull(strstr(text, " = aten::cat[dim=1]([%6, %6]), scope: AlexNet\n"));
    ck_assert_ptr_nonnull(strstr(text, " = aten::softmax[dim=-1, dtype=Float](%7), scope: AlexNet\n"));
    ck_assert_ptr_nonnull(strstr(text,
        "%output1 : Float(10, 128, 27, 27) = aten::leaky_relu[negative_slope=0.01, scale=None, "
        "approximate=\"tanh\"](%9), scope: AlexNet\n"));
    ck_assert_ptr_nonnull(strstr(text, "  return (%output1, %6);\n}\n"));
    check_golden("traced_alexnet", text);
    free(text);
    ox_graph_free(g);
}
END_TEST

/* --------------------------------------------- round trip through a file */

static char tmpdir[256];

static void tmp_setup(void)
{
    ctx_setup();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/oxport-print-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void)
{
    rm_rf(tmpdir);
    ctx_teardown();
}

/* Write an IR-built ONNX graph, read it back: the reader recovers what the
 * printer shows (names, types, attributes, scopes). */
START_TEST(round_trip_ir_graph)
{
    ox_graph *g = ox_graph_new("roundtrip");
    g->is_onnx = true;
    ox_graph_set_opset(g, "", 13);
    g->ir_version = ox_ir_version_for_opset(13);
    static const int64_t xd[] = {1, 4}, wd[] = {3, 4}, yd[] = {1, 3};
    ox_vid x = named(g, OX_VAL_INPUT, "x", OX_FLOAT, 2, xd)->id;
    ox_value *wv = named(g, OX_VAL_PARAM, "fc.weight", OX_FLOAT, 2, wd);
    static float wdata[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    wv->tensor.data = wdata;
    wv->tensor.nbytes = sizeof wdata;
    ox_graph_add_input(g, x);
    ox_graph_add_param(g, wv->id);
    ox_vid in[] = {x, wv->id};
    ox_node *gemm = onnx_node(g, "onnx::Gemm", 2, in, 1, "Net/Linear[fc]");
    gemm->name = "Gemm_0";
    attr_int(g, gemm, "transB", 1);
    attr_float(g, gemm, "alpha", 0.5f);
    ox_value *h = ox_graph_value(g, gemm->outputs[0]);
    h->name = "h";
    set_type(g, h->id, OX_FLOAT, 2, yd);
    ox_node *relu = onnx_node(g, "onnx::LeakyRelu", 1, &h->id, 1, "Net/LeakyReLU[act]");
    relu->name = "LeakyRelu_1";
    attr_float(g, relu, "alpha", 0.01f);
    ox_value *y = ox_graph_value(g, relu->outputs[0]);
    y->name = "y";
    set_type(g, y->id, OX_FLOAT, 2, yd);
    ox_graph_add_output(g, y->id);

    char path[512];
    snprintf(path, sizeof path, "%s/rt.onnx", tmpdir);
    ox_export_options opts;
    ox_export_options_init(&opts);
    ck_assert_msg(ox_write(ctx, g, path, &opts) == OX_OK, "ox_write: %s", ox_errmsg(ctx));
    ox_graph *back = NULL;
    ck_assert_msg(ox_read(ctx, path, &back) == OX_OK, "ox_read: %s", ox_errmsg(ctx));
    char *direct = print_graph(g), *reread = print_graph(back);
    ck_assert_str_eq(reread, direct);
    free(direct);
    free(reread);
    ox_graph_free(back);
    ox_graph_free(g);
}
END_TEST

/* Trace -> export (verbose print of the converted graph) -> read -> print. */
START_TEST(round_trip_traced_export)
{
    const char *build = getenv("OXPORT_TEST_BUILDDIR");
    ck_assert_ptr_nonnull(build);
    char plugins[4096];
    snprintf(plugins, sizeof plugins, "%s/plugins/aten", build);
    if (access(plugins, F_OK) != 0) {
        fprintf(stderr, "round_trip_traced_export: skipped, %s not built\n", plugins);
        return;
    }
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, plugins), OX_OK);
    const char *opsets = getenv("OXPORT_OPSET_DIR");
    ck_assert_ptr_nonnull(opsets);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, opsets), OX_OK);
    ox_graph *traced = NULL;
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    static const int64_t in_d[] = {1, 3, 8, 8}, w_d[] = {4, 3, 3, 3}, b_d[] = {4},
                         act_d[] = {1, 4, 8, 8}, pool_d[] = {1, 4, 4, 4};
    static const int64_t ones[] = {1, 1}, k2[] = {2, 2}, zeros[] = {0, 0};
    ox_vid x, w, b, c, r, p;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 4, in_d, &x), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "conv.weight", OX_FLOAT, 4, w_d, weights, OX_BORROW, &w), OX_OK);
    ck_assert_int_eq(ox_trace_param(t, "conv.bias", OX_FLOAT, 1, b_d, weights, OX_BORROW, &b), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "Conv2d[conv]"), OX_OK);
    ox_arg conv[] = {ox_arg_tensor("input", x), ox_arg_tensor("weight", w),
                     ox_arg_tensor("bias", b), ox_arg_ints("stride", ones, 2),
                     ox_arg_ints("padding", ones, 2), ox_arg_ints("dilation", ones, 2),
                     ox_arg_int("groups", 1)};
    ox_tensor_desc act = {OX_FLOAT, 4, act_d}, pooled = {OX_FLOAT, 4, pool_d};
    ck_assert_int_eq(ox_trace_op(t, "aten::conv2d", 7, conv, 1, &act, &c), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ox_arg relu[] = {ox_arg_tensor("self", c)};
    ck_assert_int_eq(ox_trace_op(t, "aten::relu", 1, relu, 1, &act, &r), OX_OK);
    ox_arg pool[] = {ox_arg_tensor("self", r), ox_arg_ints("kernel_size", k2, 2),
                     ox_arg_ints("stride", k2, 2), ox_arg_ints("padding", zeros, 2),
                     ox_arg_ints("dilation", ones, 2), ox_arg_bool("ceil_mode", 0)};
    ck_assert_int_eq(ox_trace_op(t, "aten::max_pool2d", 6, pool, 1, &pooled, &p), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, p, "y"), OX_OK);
    ck_assert_int_eq(ox_trace_finish(t, &traced), OX_OK);

    char path[512];
    snprintf(path, sizeof path, "%s/traced.onnx", tmpdir);
    char *direct = NULL;
    size_t len = 0;
    FILE *verbose = open_memstream(&direct, &len);
    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.verbose = verbose;
    ox_status st = ox_export(ctx, traced, path, &opts);
    fclose(verbose);
    ck_assert_msg(st == OX_OK, "ox_export: %s", ox_errmsg(ctx));
    ck_assert_ptr_nonnull(strstr(direct, " = onnx::Conv["));
    ox_graph *back = NULL;
    ck_assert_msg(ox_read(ctx, path, &back) == OX_OK, "ox_read: %s", ox_errmsg(ctx));
    char *reread = print_graph(back);
    ck_assert_str_eq(reread, direct);
    free(direct);
    free(reread);
    ox_graph_free(back);
    ox_graph_free(traced);
}
END_TEST

static Suite *print_suite(void)
{
    Suite *s = suite_create("print");
    TCase *onnx = tcase_create("onnx");
    tcase_add_test(onnx, seed_alexnet_excerpt);
    tcase_add_test(onnx, every_attribute_kind);
    tcase_add_test(onnx, types_dims_and_names);
    tcase_add_test(onnx, multi_output_absent_input_empty_scope);
    tcase_add_test(onnx, initializer_also_input_prints_once_scope_one_line);
    tcase_add_test(onnx, empty_graph);
    tcase_add_test(onnx, subgraph_blocks);
    tcase_add_test(onnx, bad_arguments_and_write_errors);
    tcase_add_test(onnx, header_line);
    tcase_add_test(onnx, million_nodes_print_fast);
    suite_add_tcase(s, onnx);

    TCase *traced = tcase_create("traced");
    tcase_add_checked_fixture(traced, ctx_setup, ctx_teardown);
    tcase_add_test(traced, traced_graph);
    suite_add_tcase(s, traced);

    TCase *rt = tcase_create("round_trip");
    tcase_add_checked_fixture(rt, tmp_setup, tmp_teardown);
    tcase_add_test(rt, round_trip_ir_graph);
    tcase_add_test(rt, round_trip_traced_export);
    suite_add_tcase(s, rt);
    return s;
}

int main(void)
{
    return run_suite(print_suite());
}
