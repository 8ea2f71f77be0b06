/*
 * Dims that may vary (varying_dims.h).  Every rule errs one way only: a dim
 * it cannot prove fixed is marked varying, because a dim declared fixed
 * that is not is a false fact a runtime may act on, while an unknown dim
 * only says less.
 */
#include "varying_dims.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic_api.h"

typedef enum rule_kind {
    R_SAME0,        /* the outputs' shapes follow input 0's, dim for dim */
    R_BCAST,        /* the right-aligned union of every input (elementwise, Concat) */
    R_BCAST0,       /* input 0 alone, right-aligned (Expand by a constant shape) */
    R_NONE,         /* a shape the inputs' shapes do not move (Shape's [rank]) */
    R_MATMUL,
    R_GEMM,
    R_CONV,         /* channels from the weight's dim 0 */
    R_CONV_T,       /* channels from the weight's dim 1 */
    R_POOL,         /* channels from the input's */
    R_GLOBAL_POOL,
    R_FLATTEN,
    R_TRANSPOSE,
    R_REDUCE,
    R_ARG_REDUCE,
    R_UNSQUEEZE,
    R_SQUEEZE,
    R_RESHAPE,
    R_GATHER,
    R_GATHER_ELEMENTS,
    R_SPLIT,
    R_TOPK,
    R_RNN,
    R_RESIZE,
    R_ROI_ALIGN,
    R_GRID_SAMPLE,
    R_FROM_SHAPE,   /* ConstantOfShape: the dims are its input's elements */
    R_SLICE,
    R_TILE,
    R_PAD,
} rule_kind;

typedef struct dims_rule {
    const char *op;
    rule_kind kind;
} dims_rule;

/* Sorted by strcmp, for bsearch. */
static const dims_rule rules[] = {
    {"Abs", R_SAME0}, {"Acos", R_SAME0}, {"Acosh", R_SAME0}, {"Add", R_BCAST},
    {"And", R_BCAST}, {"ArgMax", R_ARG_REDUCE}, {"ArgMin", R_ARG_REDUCE}, {"Asin", R_SAME0},
    {"Asinh", R_SAME0}, {"Atan", R_SAME0}, {"Atanh", R_SAME0}, {"AveragePool", R_POOL},
    {"BatchNormalization", R_SAME0}, {"Bernoulli", R_SAME0}, {"BitShift", R_BCAST},
    {"Cast", R_SAME0}, {"CastLike", R_SAME0}, {"Ceil", R_SAME0}, {"Celu", R_SAME0},
    {"Clip", R_SAME0}, {"Concat", R_BCAST}, {"ConstantOfShape", R_FROM_SHAPE}, {"Conv", R_CONV}, {"ConvTranspose", R_CONV_T},
    {"Cos", R_SAME0}, {"Cosh", R_SAME0}, {"CumSum", R_SAME0}, {"DepthToSpace", R_SAME0},
    {"DequantizeLinear", R_SAME0}, {"Div", R_BCAST}, {"Dropout", R_SAME0}, {"Elu", R_SAME0},
    {"Equal", R_BCAST}, {"Erf", R_SAME0}, {"Exp", R_SAME0}, {"Expand", R_BCAST0},
    {"EyeLike", R_SAME0}, {"Flatten", R_FLATTEN}, {"Floor", R_SAME0}, {"GRU", R_RNN},
    {"Gather", R_GATHER}, {"GatherElements", R_GATHER_ELEMENTS}, {"Gelu", R_SAME0},
    {"Gemm", R_GEMM}, {"GlobalAveragePool", R_GLOBAL_POOL}, {"GlobalLpPool", R_GLOBAL_POOL},
    {"GlobalMaxPool", R_GLOBAL_POOL}, {"Greater", R_BCAST}, {"GreaterOrEqual", R_BCAST},
    {"GridSample", R_GRID_SAMPLE}, {"GroupNormalization", R_SAME0}, {"HardSigmoid", R_SAME0},
    {"HardSwish", R_SAME0}, {"Hardmax", R_SAME0}, {"Identity", R_SAME0},
    {"InstanceNormalization", R_SAME0}, {"IsInf", R_SAME0}, {"IsNaN", R_SAME0},
    {"LRN", R_SAME0}, {"LSTM", R_RNN}, {"LayerNormalization", R_SAME0}, {"LeakyRelu", R_SAME0},
    {"Less", R_BCAST}, {"LessOrEqual", R_BCAST}, {"Log", R_SAME0}, {"LogSoftmax", R_SAME0},
    {"LpNormalization", R_SAME0}, {"LpPool", R_POOL}, {"MatMul", R_MATMUL}, {"Max", R_BCAST},
    {"MaxPool", R_POOL}, {"Mean", R_BCAST}, {"MeanVarianceNormalization", R_SAME0},
    {"Min", R_BCAST}, {"Mish", R_SAME0}, {"Mod", R_BCAST}, {"Mul", R_BCAST}, {"Neg", R_SAME0},
    {"Not", R_SAME0}, {"Or", R_BCAST}, {"PRelu", R_BCAST}, {"Pad", R_PAD}, {"Pow", R_BCAST},
    {"QuantizeLinear", R_SAME0}, {"RNN", R_RNN}, {"RandomNormalLike", R_SAME0},
    {"RandomUniformLike", R_SAME0}, {"Reciprocal", R_SAME0}, {"ReduceL1", R_REDUCE},
    {"ReduceL2", R_REDUCE}, {"ReduceLogSum", R_REDUCE}, {"ReduceLogSumExp", R_REDUCE},
    {"ReduceMax", R_REDUCE}, {"ReduceMean", R_REDUCE}, {"ReduceMin", R_REDUCE},
    {"ReduceProd", R_REDUCE}, {"ReduceSum", R_REDUCE}, {"ReduceSumSquare", R_REDUCE},
    {"Relu", R_SAME0}, {"Reshape", R_RESHAPE}, {"Resize", R_RESIZE},
    {"ReverseSequence", R_SAME0}, {"RoiAlign", R_ROI_ALIGN}, {"Round", R_SAME0},
    {"Scatter", R_SAME0}, {"ScatterElements", R_SAME0}, {"ScatterND", R_SAME0},
    {"Selu", R_SAME0}, {"Shape", R_NONE}, {"Shrink", R_SAME0}, {"Sigmoid", R_SAME0},
    {"Sign", R_SAME0}, {"Sin", R_SAME0}, {"Sinh", R_SAME0}, {"Size", R_NONE},
    {"Slice", R_SLICE}, {"Softmax", R_SAME0}, {"Softplus", R_SAME0}, {"Softsign", R_SAME0},
    {"SpaceToDepth", R_SAME0}, {"Split", R_SPLIT}, {"Sqrt", R_SAME0}, {"Squeeze", R_SQUEEZE},
    {"Sub", R_BCAST}, {"Sum", R_BCAST}, {"Tan", R_SAME0}, {"Tanh", R_SAME0},
    {"ThresholdedRelu", R_SAME0}, {"Tile", R_TILE}, {"TopK", R_TOPK},
    {"Transpose", R_TRANSPOSE}, {"Trilu", R_SAME0}, {"Unsqueeze", R_UNSQUEEZE},
    {"Upsample", R_RESIZE}, {"Where", R_BCAST}, {"Xor", R_BCAST},
};

#define N_RULES (sizeof rules / sizeof rules[0])

static int rule_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const dims_rule *)elem)->op);
}

bool ox_varying_dims_table_sorted(void)
{
    for (size_t i = 1; i < N_RULES; i++)
        if (strcmp(rules[i - 1].op, rules[i].op) >= 0)
            return false;
    return true;
}

static const dims_rule *rule_of(const ox_node *n)
{
    if (n->domain[0] || !n->op_type)
        return NULL;
    return bsearch(n->op_type, rules, N_RULES, sizeof rules[0], rule_cmp);
}

ox_rank_rule ox_varying_dims_rank_rule(const ox_node *n)
{
    const dims_rule *r = rule_of(n);
    if (!r)
        return OX_RANK_NOT_RULED;
    return r->kind == R_SAME0 ? OX_RANK_OF_INPUT0
           : r->kind == R_BCAST ? OX_RANK_OF_WIDEST
                                : OX_RANK_NOT_RULED;
}

/* --------------------------------------------------------------- masks */

#define MAX_TRACKED 64

static uint64_t every_dim(int32_t rank)
{
    if (rank < 0 || rank >= MAX_TRACKED)
        return ~(uint64_t)0;
    return rank ? ~(uint64_t)0 >> (MAX_TRACKED - rank) : 0;
}

static bool has_dim(uint64_t m, int64_t i)
{
    return i >= MAX_TRACKED || (i >= 0 && (m >> i) & 1);
}

static uint64_t dim_bit(int64_t i)
{
    return i >= 0 && i < MAX_TRACKED ? (uint64_t)1 << i : 0;
}

/* The rank the host recorded, or the one the analysis worked out for a
 * value a symbolic made in passing (those carry an element type only). */
static int32_t rank_of(ox_varying_dims *d, ox_vid v)
{
    return v && v < d->n ? d->rank[v] : -1;
}

/* A rank this analysis tracks dim by dim. */
static bool tracked(int32_t rank)
{
    return rank >= 0 && rank < MAX_TRACKED;
}

static uint64_t mask_of(ox_varying_dims *d, ox_vid v)
{
    return v ? ox_varying_dims_of(d, v) : 0;
}

/* The term of v's dim i (ox_varying_dims_compute_with_terms); 0 when it
 * has none or terms are not kept. */
static uint32_t term_of(const ox_varying_dims *d, ox_vid v, int64_t i)
{
    if (!d->terms || !v || v >= d->n || !d->terms[v] || i < 0 || i >= d->rank[v])
        return 0;
    return d->terms[v][i];
}

/* A short int list, copied (a constant's bytes may sit unaligned in a
 * buffer read from a file). */
typedef struct int_list_buf {
    int64_t v[MAX_TRACKED];
    size_t n;
} int_list_buf;

/* An int list from attribute `name` or, failing that, from constant input
 * `input` (the opsets that moved it from one to the other).  false when
 * neither holds one of at most 64 entries. */
static bool int_list(const ox_graph *g, const ox_node *n, const char *name, uint32_t input,
                     int_list_buf *out)
{
    const ox_attr *a = ox_node_attr(n, name);
    if (a && a->kind == OX_ATTR_INTS) {
        if (a->u.ints.n > MAX_TRACKED)
            return false;
        out->n = a->u.ints.n;
        if (out->n)
            memcpy(out->v, a->u.ints.p, out->n * sizeof(int64_t));
        return true;
    }
    if (input >= n->n_inputs || !n->inputs[input])
        return false;
    ox_dtype dt;
    size_t elems;
    const ox_tensor_data *t = ox_sym_const_tensor(g, n->inputs[input], &dt, &elems);
    if (!t || dt != OX_INT64 || elems > MAX_TRACKED || (elems && !t->data))
        return false;
    out->n = elems;
    if (elems)
        memcpy(out->v, t->data, elems * sizeof(int64_t));
    return true;
}

static int64_t norm_axis(int64_t a, int64_t rank)
{
    return a < 0 ? a + rank : a;
}

static bool list_has(const int64_t *p, size_t count, int64_t axis, int64_t rank)
{
    for (size_t i = 0; i < count; i++)
        if (norm_axis(p[i], rank) == axis)
            return true;
    return false;
}

/* `m` of rank r placed right-aligned in rank R. */
static uint64_t right_aligned(uint64_t m, int32_t r, int32_t R)
{
    uint64_t out = 0;
    for (int32_t j = 0; j < r; j++)
        if (has_dim(m, j))
            out |= dim_bit(R - r + j);
    return out;
}

/* --------------------------------------------------------- shape values */

/* A small int64 tensor of the file (rank 0 or 1) element by element: a
 * Reshape target built as Concat(Unsqueeze(Gather(Shape(x), 0)), [-1, 64])
 * varies in its first element only, and its others are known.  "Fixed"
 * means the same on every run, so a fixed element of a Shape is the traced
 * size. */
#define MAX_ELEMS OX_VARYING_MAX_ELEMS

typedef struct ox_shape_elems {
    uint32_t len;
    bool scalar;
    /* a bool tensor (a comparison of sizes, the logic on it): its known
     * elements are 0 and 1, for the arithmetic that selects by it, and it is
     * never handed out as a size (ox_varying_dims_known_value) */
    bool boolean;
    uint32_t vary;  /* bit i: element i may differ between runs */
    uint32_t known; /* bit i: element i is val[i] on every run */
    int64_t val[MAX_ELEMS];
    /* with terms: element i that varies is the size of term[i] (0: not
     * known which size) */
    uint32_t term[MAX_ELEMS];
} shape_elems;

static const shape_elems *elems_of(const ox_graph *g, ox_varying_dims *d, ox_vid v)
{
    if (!v || v >= d->n || !d->elems)
        return NULL;
    if (d->elems[v])
        return d->elems[v];
    ox_dtype dt;
    size_t count;
    const ox_tensor_data *t = ox_sym_const_tensor(g, v, &dt, &count);
    const ox_value *x = ox_graph_value(g, v);
    if (!t || count > MAX_ELEMS || (count && !t->data) || !x || x->type.rank > 1)
        return NULL;
    shape_elems *e = ox_arena_alloc(&d->elems_arena, sizeof(*e));
    if (!e)
        return NULL;
    memset(e, 0, sizeof(*e));
    e->len = (uint32_t)count;
    e->scalar = x->type.rank == 0;
    if (dt == OX_INT64 && count) { /* the values a target shape is built from; others fixed only */
        e->known = ~0u >> (32 - count);
        memcpy(e->val, t->data, count * sizeof(int64_t));
    } else if (dt == OX_BOOL && count) { /* a condition a size expression selects by */
        e->boolean = true;
        e->known = ~0u >> (32 - count);
        for (size_t i = 0; i < count; i++)
            e->val[i] = ((const unsigned char *)t->data)[i] != 0;
    }
    return d->elems[v] = e;
}

static bool elem_varies(const shape_elems *e, uint32_t i)
{
    return (e->vary >> i) & 1;
}

static bool elem_known(const shape_elems *e, uint32_t i, int64_t *v)
{
    if (!((e->known >> i) & 1))
        return false;
    *v = e->val[i];
    return true;
}

static shape_elems *new_elems(ox_varying_dims *d, uint32_t len, bool scalar)
{
    if (len > MAX_ELEMS)
        return NULL;
    shape_elems *e = ox_arena_alloc(&d->elems_arena, sizeof(*e));
    if (e) {
        memset(e, 0, sizeof(*e));
        e->len = len;
        e->scalar = scalar;
    }
    return e;
}

/* Copies keep a bool tensor's kind (Gather, Concat, Slice of one; a
 * Concat of both kinds is not a size). */
static void copy_elem(shape_elems *to, uint32_t i, const shape_elems *from, uint32_t j)
{
    to->vary |= (uint32_t)elem_varies(from, j) << i;
    to->term[i] = from->term[j];
    int64_t v;
    if (elem_known(from, j, &v)) {
        to->known |= 1u << i;
        to->val[i] = v;
    }
}

/* Shape(x) (opset 15's start and end too): element i is dim start+i. */
static shape_elems *shape_elems_of_shape(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    ox_vid x = n->inputs[0];
    int32_t r = rank_of(d, x);
    if (!tracked(r))
        return NULL;
    int64_t start = ox_node_attr_int(n, "start", 0), end = ox_node_attr_int(n, "end", r);
    start = start < 0 ? start + r : start;
    end = end < 0 ? end + r : end;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < start ? start : end > r ? r : end;
    shape_elems *e = new_elems(d, (uint32_t)(end - start), false);
    if (!e)
        return NULL;
    const ox_value *xv = ox_graph_value(g, x);
    uint64_t m = mask_of(d, x);
    for (uint32_t i = 0; i < e->len; i++) {
        int64_t dim = start + i;
        if (has_dim(m, dim)) {
            e->vary |= 1u << i;
            e->term[i] = term_of(d, x, dim);
        } else if (xv && xv->type.rank == r && xv->type.dims && xv->type.dims[dim] >= 0) {
            e->known |= 1u << i;
            e->val[i] = xv->type.dims[dim];
        }
    }
    return e;
}

static shape_elems *gathered_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    if (ox_node_attr_int(n, "axis", 0) != 0 || n->n_inputs < 2)
        return NULL;
    const shape_elems *data = elems_of(g, d, n->inputs[0]);
    const shape_elems *idx = elems_of(g, d, n->inputs[1]);
    if (!data || !idx || data->scalar || idx->vary || idx->known != (idx->len ? ~0u >> (32 - idx->len) : 0))
        return NULL;
    shape_elems *e = new_elems(d, idx->len, idx->scalar);
    if (e)
        e->boolean = data->boolean;
    for (uint32_t i = 0; e && i < idx->len; i++) {
        int64_t k = idx->val[i] < 0 ? idx->val[i] + data->len : idx->val[i];
        if (k < 0 || k >= data->len)
            return NULL;
        copy_elem(e, i, data, (uint32_t)k);
    }
    return e;
}

static shape_elems *concatenated_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    if (ox_node_attr_int(n, "axis", 0) != 0 && ox_node_attr_int(n, "axis", 0) != -1)
        return NULL;
    uint32_t len = 0;
    bool boolean = false;
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        const shape_elems *p = elems_of(g, d, n->inputs[i]);
        if (!p || p->scalar || (i && p->boolean != boolean))
            return NULL;
        boolean = p->boolean;
        len += p->len;
    }
    shape_elems *e = new_elems(d, len, false);
    if (e)
        e->boolean = boolean;
    uint32_t at = 0;
    for (uint32_t i = 0; e && i < n->n_inputs; i++) {
        const shape_elems *p = elems_of(g, d, n->inputs[i]);
        for (uint32_t j = 0; j < p->len; j++)
            copy_elem(e, at++, p, j);
    }
    return e;
}

/* Whether the op's result is a bool tensor, by its operator and its
 * operands' kinds: comparisons and logic are, Where and Identity are what
 * they pass on, a Cast is what it casts to. */
static bool result_is_bool(const ox_node *n, const bool *b)
{
    static const char *const bool_ops[] = {"Equal", "Less", "LessOrEqual", "Greater",
                                           "GreaterOrEqual", "Not", "And", "Or", "Xor"};
    const char *op = n->op_type;
    for (size_t i = 0; i < sizeof bool_ops / sizeof bool_ops[0]; i++)
        if (strcmp(op, bool_ops[i]) == 0)
            return true;
    if (strcmp(op, "Cast") == 0)
        return ox_node_attr_int(n, "to", 0) == OX_BOOL;
    if (strcmp(op, "Where") == 0)
        return n->n_inputs == 3 && b[1];
    if (strcmp(op, "Identity") == 0)
        return b[0];
    return false;
}

/* One element of an elementwise op's result from its operands' elements
 * (bool operands as 0 and 1; b says which are); false where the analysis
 * does not work it out. */
static bool compute_elem(const ox_node *n, const int64_t *v, const bool *b, int64_t *r)
{
    const char *op = n->op_type;
    uint32_t k = n->n_inputs;
    if (k == 2 && !b[0] && !b[1]) {
        int64_t x = v[0], y = v[1];
        if (strcmp(op, "Add") == 0)
            return !__builtin_add_overflow(x, y, r);
        if (strcmp(op, "Sub") == 0)
            return !__builtin_sub_overflow(x, y, r);
        if (strcmp(op, "Mul") == 0)
            return !__builtin_mul_overflow(x, y, r);
        if (strcmp(op, "Max") == 0)
            return *r = x > y ? x : y, true;
        if (strcmp(op, "Min") == 0)
            return *r = x < y ? x : y, true;
        if (strcmp(op, "Div") == 0 || strcmp(op, "Mod") == 0) {
            if (y == 0 || (x == INT64_MIN && y == -1))
                return false;
            if (op[0] == 'D') /* integer Div truncates, as C's */
                return *r = x / y, true;
            int64_t m = x % y; /* fmod=1: the dividend's sign, as C's; else the divisor's */
            if (!ox_node_attr_int(n, "fmod", 0) && m != 0 && ((m < 0) != (y < 0)))
                m += y;
            return *r = m, true;
        }
        if (strcmp(op, "Equal") == 0)
            return *r = x == y, true;
        if (strcmp(op, "Less") == 0)
            return *r = x < y, true;
        if (strcmp(op, "LessOrEqual") == 0)
            return *r = x <= y, true;
        if (strcmp(op, "Greater") == 0)
            return *r = x > y, true;
        if (strcmp(op, "GreaterOrEqual") == 0)
            return *r = x >= y, true;
        return false;
    }
    if (k == 2 && b[0] && b[1]) {
        if (strcmp(op, "And") == 0)
            return *r = v[0] && v[1], true;
        if (strcmp(op, "Or") == 0)
            return *r = v[0] || v[1], true;
        if (strcmp(op, "Xor") == 0 || strcmp(op, "Equal") == 0)
            return *r = (v[0] != v[1]) == (op[0] == 'X'), true;
        return false;
    }
    if (k == 3 && strcmp(op, "Where") == 0 && b[0] && b[1] == b[2])
        return *r = v[0] ? v[1] : v[2], true;
    if (k != 1)
        return false;
    if (strcmp(op, "Cast") == 0) {
        int64_t to = ox_node_attr_int(n, "to", 0);
        if (to == OX_BOOL)
            return *r = v[0] != 0, true;
        return to == OX_INT64 && (*r = v[0], true);
    }
    if (strcmp(op, "Identity") == 0)
        return *r = v[0], true;
    if (b[0])
        return strcmp(op, "Not") == 0 && (*r = !v[0], true);
    if (strcmp(op, "Neg") == 0)
        return v[0] != INT64_MIN && (*r = -v[0], true);
    if (strcmp(op, "Abs") == 0)
        return v[0] != INT64_MIN && (*r = v[0] < 0 ? -v[0] : v[0], true);
    return false;
}

/* A comparison of two sizes of one term (terms only): its outcome, the same
 * on every run. */
static bool one_term_compared(const ox_node *n, const uint32_t *term, const bool *b, int64_t *r)
{
    if (n->n_inputs != 2 || !term[0] || term[0] != term[1] || b[0] || b[1])
        return false;
    const char *op = n->op_type;
    if (strcmp(op, "Equal") == 0 || strcmp(op, "LessOrEqual") == 0 ||
        strcmp(op, "GreaterOrEqual") == 0)
        return *r = 1, true;
    if (strcmp(op, "Less") == 0 || strcmp(op, "Greater") == 0)
        return *r = 0, true;
    return false;
}

/* Identity and a Cast to int64 of a size keep its value, so its term. */
static bool passes_term(const ox_node *n, bool boolean)
{
    if (boolean)
        return false;
    return strcmp(n->op_type, "Identity") == 0 ||
           (strcmp(n->op_type, "Cast") == 0 && ox_node_attr_int(n, "to", 0) == OX_INT64);
}

/* An elementwise op on shape values (a scalar or one element broadcasts):
 * an element varies where an operand's does; its value is worked out for
 * what a size expression uses, torch's floor division and remainder
 * included (Div, the comparisons and logic that fix up its sign, Where),
 * and left unknown (fixed) for the rest. */
static shape_elems *elementwise_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    const shape_elems *in[3] = {NULL, NULL, NULL};
    uint32_t len = 1;
    bool scalar = true;
    if (n->n_inputs > 3)
        return NULL;
    for (uint32_t k = 0; k < n->n_inputs; k++) {
        if (!(in[k] = elems_of(g, d, n->inputs[k])))
            return NULL;
        if (in[k]->len != 1 && len != 1 && in[k]->len != len)
            return NULL;
        len = in[k]->len != 1 ? in[k]->len : len;
        scalar = scalar && in[k]->scalar;
    }
    shape_elems *e = new_elems(d, len, scalar);
    if (!e)
        return NULL;
    bool kinds[3] = {false, false, false};
    for (uint32_t k = 0; k < n->n_inputs; k++)
        kinds[k] = in[k]->boolean;
    /* a varying condition is never taken for a size */
    e->boolean = result_is_bool(n, kinds);
    for (uint32_t i = 0; i < len; i++) {
        int64_t v[3] = {0, 0, 0}, r = 0;
        bool all_known = true;
        uint32_t term[3] = {0, 0, 0};
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            uint32_t at = in[k]->len == 1 ? 0 : i;
            if (elem_varies(in[k], at)) {
                e->vary |= 1u << i;
                term[k] = in[k]->term[at];
            }
            all_known = elem_known(in[k], at, &v[k]) && all_known;
        }
        if (elem_varies(e, i) && one_term_compared(n, term, kinds, &r)) {
            e->vary &= ~(1u << i);
            e->known |= 1u << i;
            e->val[i] = r;
            continue;
        }
        if (elem_varies(e, i) && n->n_inputs == 1 && passes_term(n, kinds[0]))
            e->term[i] = term[0];
        if (elem_varies(e, i) || !all_known || !compute_elem(n, v, kinds, &r))
            continue;
        e->known |= 1u << i;
        e->val[i] = r;
    }
    return e;
}

static bool elementwise_op(const char *op)
{
    static const char *const ops[] = {"Abs", "Add", "And", "BitShift", "Cast", "Ceil", "Div",
                                      "Equal", "Floor", "Greater", "GreaterOrEqual", "Identity",
                                      "Less", "LessOrEqual", "Max", "Min", "Mod", "Mul", "Neg",
                                      "Not", "Or", "Sign", "Sub", "Where", "Xor"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

/* Unsqueeze of a scalar to [1], Squeeze of [1] to a scalar, Cast, Identity,
 * Reshape to one dim: the same elements. */
static shape_elems *same_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                               bool scalar)
{
    const shape_elems *x = elems_of(g, d, n->inputs[0]);
    if (!x)
        return NULL;
    shape_elems *e = new_elems(d, x->len, scalar);
    if (e) {
        *e = *x;
        e->scalar = scalar;
    }
    return e;
}

/* Slice of a 1-D shape value by constant bounds, step 1 (Shape(y)[0:2]). */
static shape_elems *sliced_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    const shape_elems *x = elems_of(g, d, n->inputs[0]);
    if (!x || x->scalar)
        return NULL;
    int_list_buf starts, ends, axes = {.n = 0}, steps = {.n = 0};
    if (!int_list(g, n, "starts", 1, &starts) || !int_list(g, n, "ends", 2, &ends) ||
        starts.n != 1 || ends.n != 1)
        return NULL;
    if ((n->n_inputs > 3 && n->inputs[3]) || ox_node_attr(n, "axes")) {
        if (!int_list(g, n, "axes", 3, &axes) || axes.n != 1 || norm_axis(axes.v[0], 1) != 0)
            return NULL;
    }
    if (n->n_inputs > 4 && n->inputs[4] &&
        (!int_list(g, n, "steps", 4, &steps) || steps.n != 1 || steps.v[0] != 1))
        return NULL;
    int64_t len = x->len, a = starts.v[0], b = ends.v[0];
    a = a < 0 ? a + len : a;
    b = b < 0 ? b + len : b;
    a = a < 0 ? 0 : a > len ? len : a;
    b = b < a ? a : b > len ? len : b;
    shape_elems *e = new_elems(d, (uint32_t)(b - a), false);
    if (e)
        e->boolean = x->boolean;
    for (int64_t i = a; e && i < b; i++)
        copy_elem(e, (uint32_t)(i - a), x, (uint32_t)i);
    return e;
}

static bool is_op(const ox_node *n, const char *op)
{
    return strcmp(n->op_type, op) == 0;
}

/* The elements of n's output 0, when it is a small int64 tensor n computes
 * from shape values; NULL when it is not one or they are not worked out. */
static shape_elems *computed_elems(const ox_graph *g, ox_varying_dims *d, const ox_node *n)
{
    if (n->domain[0] || n->n_outputs < 1 || !n->n_inputs || !n->inputs[0])
        return NULL;
    int32_t out_rank = rank_of(d, n->outputs[0]);
    if (out_rank > 1)
        return NULL;
    if (is_op(n, "Shape"))
        return shape_elems_of_shape(g, d, n);
    if (is_op(n, "Gather"))
        return gathered_elems(g, d, n);
    if (is_op(n, "Concat"))
        return concatenated_elems(g, d, n);
    if (is_op(n, "Slice"))
        return sliced_elems(g, d, n);
    if (elementwise_op(n->op_type))
        return elementwise_elems(g, d, n);
    if (is_op(n, "Unsqueeze") || is_op(n, "Squeeze") || is_op(n, "Reshape")) {
        if (out_rank != 0 && out_rank != 1)
            return NULL;
        const shape_elems *x = elems_of(g, d, n->inputs[0]);
        return x && x->len == 1 ? same_elems(g, d, n, out_rank == 0)
               : x && out_rank == 1 && is_op(n, "Reshape") ? same_elems(g, d, n, false)
                                                            : NULL;
    }
    return NULL;
}

/* ---------------------------------------------------------------- rules */

#define FALLBACK UINT64_MAX /* a rule's "cannot say": every dim varies */

static uint64_t broadcast(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                          uint32_t inputs, int32_t R)
{
    uint64_t out = 0;
    for (uint32_t i = 0; i < inputs && i < n->n_inputs; i++) {
        ox_vid v = n->inputs[i];
        if (!v)
            continue;
        int32_t r = rank_of(d, v);
        if (!tracked(r) || r > R)
            return FALLBACK;
        out |= right_aligned(mask_of(d, v), r, R);
    }
    return out;
}

static uint64_t matmul(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    ox_vid a = n->inputs[0], b = n->inputs[1];
    int32_t ra = rank_of(d, a), rb = rank_of(d, b);
    if (ra < 2 || rb < 2 || !tracked(ra) || !tracked(rb) || R < 2)
        return FALLBACK;
    uint64_t ma = mask_of(d, a), mb = mask_of(d, b);
    uint64_t out = right_aligned(ma & every_dim(ra - 2), ra - 2, R - 2) |
                   right_aligned(mb & every_dim(rb - 2), rb - 2, R - 2);
    if (has_dim(ma, ra - 2))
        out |= dim_bit(R - 2);
    if (has_dim(mb, rb - 1))
        out |= dim_bit(R - 1);
    return out;
}

static uint64_t gemm(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    if (R != 2 || rank_of(d, n->inputs[0]) != 2 || rank_of(d, n->inputs[1]) != 2)
        return FALLBACK;
    uint64_t ma = mask_of(d, n->inputs[0]), mb = mask_of(d, n->inputs[1]);
    uint64_t out = 0;
    if (has_dim(ma, ox_node_attr_int(n, "transA", 0) ? 1 : 0))
        out |= dim_bit(0);
    if (has_dim(mb, ox_node_attr_int(n, "transB", 0) ? 0 : 1))
        out |= dim_bit(1);
    if (n->n_inputs > 2 && n->inputs[2]) {
        int32_t rc = rank_of(d, n->inputs[2]);
        if (!tracked(rc) || rc > 2)
            return FALLBACK;
        out |= right_aligned(mask_of(d, n->inputs[2]), rc, 2);
    }
    return out;
}

/* Conv, ConvTranspose and the windowed pools: batch and spatial dims
 * follow the input's, channels the weight's (`channel_dim` of input 1) or,
 * for a pool (channel_dim < 0), the input's. */
static uint64_t windowed(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R,
                         int channel_dim)
{
    ox_vid x = n->inputs[0];
    if (rank_of(d, x) != R || R < 2)
        return FALLBACK;
    uint64_t mx = mask_of(d, x);
    uint64_t out = mx & ~dim_bit(1);
    if (channel_dim < 0) {
        out |= mx & dim_bit(1);
    } else {
        if (n->n_inputs < 2 || !n->inputs[1])
            return FALLBACK;
        if (has_dim(mask_of(d, n->inputs[1]), channel_dim))
            out |= dim_bit(1);
    }
    return out;
}

static uint64_t flatten(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int32_t r = rank_of(d, n->inputs[0]);
    if (!tracked(r) || R != 2)
        return FALLBACK;
    int64_t axis = norm_axis(ox_node_attr_int(n, "axis", 1), r);
    uint64_t m = mask_of(d, n->inputs[0]), out = 0;
    for (int32_t j = 0; j < r; j++)
        if (has_dim(m, j))
            out |= dim_bit(j < axis ? 0 : 1);
    return out;
}

/* Dims kept by a reduction or Squeeze: `axes` (or all) dropped, or made 1
 * with keep; src as below.  false when the count is not R. */
static bool kept_sources(int32_t r, const int64_t *axes, size_t n_axes, bool all, bool keep,
                         int32_t R, int32_t *src)
{
    int32_t k = 0;
    for (int32_t j = 0; j < r; j++) {
        bool gone = all || list_has(axes, n_axes, j, r);
        if (gone && !keep)
            continue;
        if (k < R)
            src[k] = gone ? -1 : j;
        k++;
    }
    return k == R;
}

/* Rules whose output dims are each one of input 0's dims, moved, or a new
 * or reduced dim of size 1 (Transpose, Unsqueeze, Squeeze, the
 * reductions): src[k] is the input dim output dim k is, -1 for a new or
 * reduced one.  false where the rule cannot say (axes computed in the file,
 * a rank that does not add up).  The masks and the terms both follow it. */
static bool source_dims(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                        const dims_rule *rule, int32_t R, int32_t src[MAX_TRACKED])
{
    int32_t r = rank_of(d, n->inputs[0]);
    int_list_buf axes = {.n = 0};
    if (!tracked(r) || !tracked(R))
        return false;
    switch (rule->kind) {
    case R_TRANSPOSE: {
        const ox_attr *perm = ox_node_attr(n, "perm");
        bool given = perm && perm->kind == OX_ATTR_INTS;
        if (r != R || (given && perm->u.ints.n != (size_t)r))
            return false;
        for (int32_t i = 0; i < R; i++) {
            int64_t from = given ? perm->u.ints.p[i] : R - 1 - i;
            if (from < 0 || from >= r)
                return false;
            src[i] = (int32_t)from;
        }
        return true;
    }
    case R_UNSQUEEZE:
        if (!int_list(g, n, "axes", 1, &axes) || (size_t)R != (size_t)r + axes.n)
            return false;
        for (int32_t i = 0, j = 0; i < R; i++)
            src[i] = list_has(axes.v, axes.n, i, R) ? -1 : j++;
        return true;
    case R_SQUEEZE:
        /* without axes every size-1 dim goes, and which those are at run
         * time is not known where a dim varies */
        if (!int_list(g, n, "axes", 1, &axes) || axes.n == 0)
            return false;
        return kept_sources(r, axes.v, axes.n, false, false, R, src);
    case R_ARG_REDUCE: {
        int64_t axis = ox_node_attr_int(n, "axis", 0);
        return kept_sources(r, &axis, 1, false, ox_node_attr_int(n, "keepdims", 1) != 0, R, src);
    }
    case R_REDUCE: {
        bool keep = ox_node_attr_int(n, "keepdims", 1) != 0;
        bool listed = int_list(g, n, "axes", 1, &axes);
        if (n->n_inputs > 1 && n->inputs[1] && !listed)
            return false; /* axes computed in the file */
        if (listed && axes.n)
            return kept_sources(r, axes.v, axes.n, false, keep, R, src);
        if (!ox_node_attr_int(n, "noop_with_empty_axes", 0))
            return kept_sources(r, NULL, 0, true, keep, R, src);
        for (int32_t k = 0; k < R; k++)
            src[k] = k;
        return r == R;
    }
    default:
        return false;
    }
}

/* A rule of source_dims: an output dim varies where its input dim does. */
static uint64_t by_sources(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                           const dims_rule *rule, int32_t R)
{
    int32_t src[MAX_TRACKED];
    if (!source_dims(g, d, n, rule, R, src))
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]), out = 0;
    for (int32_t k = 0; k < R; k++)
        if (src[k] >= 0 && has_dim(m, src[k]))
            out |= dim_bit(k);
    return out;
}

/* Reshape's -1 (target element `at`) is numel(x) over the other elements.
 * It is fixed when every varying dim of x is copied by a 0 at its own
 * position and every other element is a known number: the varying factors
 * then cancel (x.flatten(2), x.reshape(0, 0, -1) with a dynamic batch). */
static bool minus_one_fixed(const shape_elems *shape, int32_t r, uint64_t m, bool allowzero,
                            uint32_t at)
{
    for (int32_t i = 0; i < r; i++) {
        int64_t s;
        uint32_t u = (uint32_t)i;
        if (has_dim(m, i) && (allowzero || u >= shape->len || u == at || elem_varies(shape, u) ||
                              !elem_known(shape, u, &s) || s != 0))
            return false;
    }
    for (uint32_t k = 0; k < shape->len; k++) {
        int64_t s;
        if (k != at && (elem_varies(shape, k) || !elem_known(shape, k, &s) || s == -1))
            return false;
    }
    return true;
}

/* Reshape by a target the file holds or computes: an element that varies
 * gives a varying dim; a known positive one a fixed dim; 0 copies the input's
 * dim (unless allowzero); -1 follows the rest unless the varying dims cancel
 * (minus_one_fixed); a fixed element of unknown value follows the rest.
 * (A target carrying a varying dim as its size, x.view(x.size(0), -1), still
 * leaves the -1 varying: the file then declares it open.) */
static uint64_t reshape(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int32_t r = rank_of(d, n->inputs[0]);
    const shape_elems *shape = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
    if (!tracked(r) || !shape || shape->scalar || shape->len != (uint32_t)R)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]), out = 0;
    bool allowzero = ox_node_attr_int(n, "allowzero", 0) != 0;
    bool any = m != 0 || shape->vary != 0;
    for (int32_t k = 0; k < R; k++) {
        int64_t s;
        bool varies;
        if (elem_varies(shape, (uint32_t)k))
            varies = true;
        else if (!elem_known(shape, (uint32_t)k, &s))
            varies = any;
        else
            varies = s == -1 ? any && !(r <= MAX_TRACKED && minus_one_fixed(shape, r, m, allowzero, (uint32_t)k))
                     : (s == 0 && !allowzero) ? has_dim(m, k) : false;
        if (varies)
            out |= dim_bit(k);
    }
    return out;
}

/* Expand by a target shape: a dim the target fixes above 1 is fixed; where
 * the target says 1 (or is shorter) the input's dim stays. */
static uint64_t expand(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int32_t r = rank_of(d, n->inputs[0]);
    const shape_elems *shape = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
    if (!tracked(r) || !shape || shape->scalar || (int32_t)shape->len > R || r > R)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]), out = 0;
    for (int32_t k = 0; k < R; k++) {
        int32_t j = k - (R - (int32_t)shape->len), i = k - (R - r);
        bool from_input = i >= 0 && has_dim(m, i);
        int64_t s;
        bool varies;
        if (j < 0)
            varies = from_input;
        else if (elem_varies(shape, (uint32_t)j))
            varies = true;
        else if (elem_known(shape, (uint32_t)j, &s) && s > 1)
            varies = false;
        else
            varies = from_input;
        if (varies)
            out |= dim_bit(k);
    }
    return out;
}

static uint64_t from_shape(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    const shape_elems *shape = elems_of(g, d, n->inputs[0]);
    if (!shape || shape->scalar || shape->len != (uint32_t)R)
        return FALLBACK;
    return shape->vary;
}

static uint64_t tile(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    const shape_elems *reps = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
    if (rank_of(d, n->inputs[0]) != R || !reps || reps->len != (uint32_t)R)
        return FALLBACK;
    return mask_of(d, n->inputs[0]) | reps->vary;
}

/* Pad: a dim varies with the data's or with either of its pads (from
 * opset 11 an input, often computed from sizes: a pad to a multiple of a
 * window); before it the pads are an attribute.  With opset 18's axes,
 * every dim may vary. */
static uint64_t pad(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    if (rank_of(d, n->inputs[0]) != R)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]);
    if (ox_node_attr(n, "pads"))
        return m;
    const shape_elems *pads = n->n_inputs > 1 && n->inputs[1] ? elems_of(g, d, n->inputs[1]) : NULL;
    if (!pads || pads->boolean || pads->len != 2 * (uint32_t)R || (n->n_inputs > 3 && n->inputs[3]))
        return FALLBACK;
    for (int32_t i = 0; i < R; i++)
        if (elem_varies(pads, (uint32_t)i) || elem_varies(pads, (uint32_t)(R + i)))
            m |= dim_bit(i);
    return m;
}

/* Slice: a sliced dim varies with the data's dim or with a bound that
 * varies; the others are the data's.  The axes must be known. */
static uint64_t slice(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int32_t r = rank_of(d, n->inputs[0]);
    if (!tracked(r) || r != R)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]);
    const ox_attr *starts_attr = ox_node_attr(n, "starts");
    if (starts_attr) /* below opset 10 every bound is an attribute */
        return m;
    const shape_elems *starts = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
    const shape_elems *ends = n->n_inputs > 2 ? elems_of(g, d, n->inputs[2]) : NULL;
    const shape_elems *steps = n->n_inputs > 4 && n->inputs[4] ? elems_of(g, d, n->inputs[4]) : NULL;
    if (!starts || !ends || starts->len != ends->len || (n->n_inputs > 4 && n->inputs[4] && !steps))
        return FALLBACK;
    int_list_buf axes = {.n = 0};
    bool axes_given = n->n_inputs > 3 && n->inputs[3];
    if (axes_given && (!int_list(g, n, "axes", 3, &axes) || axes.n != starts->len))
        return FALLBACK;
    uint64_t out = m;
    for (uint32_t j = 0; j < starts->len; j++) {
        int64_t axis = axes_given ? norm_axis(axes.v[j], r) : (int64_t)j;
        if (axis < 0 || axis >= r)
            return FALLBACK;
        if (elem_varies(starts, j) || elem_varies(ends, j) || (steps && elem_varies(steps, j)))
            out |= dim_bit(axis);
    }
    return out;
}

static uint64_t gather(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    ox_vid data = n->inputs[0], idx = n->n_inputs > 1 ? n->inputs[1] : 0;
    int32_t r = rank_of(d, data), q = rank_of(d, idx);
    if (!tracked(r) || !tracked(q) || r + q - 1 != R)
        return FALLBACK;
    int64_t axis = norm_axis(ox_node_attr_int(n, "axis", 0), r);
    uint64_t md = mask_of(d, data), mi = mask_of(d, idx), out = 0;
    for (int32_t i = 0; i < R; i++) {
        bool varies = i < axis ? has_dim(md, i)
                    : i < axis + q ? has_dim(mi, i - axis)
                                   : has_dim(md, i - q + 1);
        if (varies)
            out |= dim_bit(i);
    }
    return out;
}

/* Split and TopK: input 0's dims, `axis` fixed when its sizes are given. */
static uint64_t axis_fixed(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                           int32_t R, int64_t axis, bool sizes_given)
{
    int32_t r = rank_of(d, n->inputs[0]);
    if (!tracked(r) || r != R)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]);
    return sizes_given ? m & ~dim_bit(norm_axis(axis, r)) : m;
}

static uint64_t split(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int_list_buf sizes;
    bool given = int_list(g, n, "split", 1, &sizes) && sizes.n > 0;
    return axis_fixed(g, d, n, R, ox_node_attr_int(n, "axis", 0), given);
}

static uint64_t topk(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    /* k is an attribute below opset 10, else input 1, a constant (the
     * value-input check before the rule) */
    return axis_fixed(g, d, n, R, ox_node_attr_int(n, "axis", -1), true);
}

/* LSTM, GRU, RNN: Y is [seq, dirs, batch, hidden] (layout 0) or [batch,
 * seq, dirs, hidden]; Y_h and Y_c [dirs, batch, hidden] or [batch, dirs,
 * hidden]. */
static uint64_t rnn(const ox_graph *g, ox_varying_dims *d, const ox_node *n, uint32_t out_i,
                    int32_t R)
{
    if (rank_of(d, n->inputs[0]) != 3)
        return FALLBACK;
    uint64_t m = mask_of(d, n->inputs[0]);
    bool batch_first = ox_node_attr_int(n, "layout", 0) != 0;
    bool seq = has_dim(m, batch_first ? 1 : 0), batch = has_dim(m, batch_first ? 0 : 1);
    if (out_i == 0) {
        if (R != 4)
            return FALLBACK;
        return (seq ? dim_bit(batch_first ? 1 : 0) : 0) | (batch ? dim_bit(batch_first ? 0 : 2) : 0);
    }
    if (R != 3)
        return FALLBACK;
    return batch ? dim_bit(batch_first ? 0 : 1) : 0;
}

static uint64_t resize(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    int32_t r = rank_of(d, n->inputs[0]);
    if (!tracked(r) || r != R)
        return FALLBACK;
    if (ox_node_attr(n, "axes"))
        return FALLBACK; /* opset 18's partial sizes or scales */
    if (n->n_inputs > 3 && n->inputs[3]) {
        /* by sizes, which the file holds or computes (Shape pieces of a
         * reference tensor): each output dim is its element */
        const shape_elems *sizes = elems_of(g, d, n->inputs[3]);
        return sizes && !sizes->scalar && sizes->len == (uint32_t)R ? sizes->vary : FALLBACK;
    }
    /* by scales (input 2 from opset 11, input 1 before): a fixed factor of
     * each dim */
    uint32_t at = n->n_inputs > 2 ? 2 : 1;
    const shape_elems *scales = at < n->n_inputs ? elems_of(g, d, n->inputs[at]) : NULL;
    return scales && !scales->vary ? mask_of(d, n->inputs[0]) : FALLBACK;
}

static uint64_t roi_align(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    if (R != 4 || n->n_inputs < 2 || rank_of(d, n->inputs[0]) != 4 || rank_of(d, n->inputs[1]) != 2)
        return FALLBACK;
    return (has_dim(mask_of(d, n->inputs[1]), 0) ? dim_bit(0) : 0) |
           (mask_of(d, n->inputs[0]) & dim_bit(1));
}

static uint64_t grid_sample(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R)
{
    if (n->n_inputs < 2 || rank_of(d, n->inputs[0]) != R || rank_of(d, n->inputs[1]) != R || R < 3)
        return FALLBACK;
    uint64_t mx = mask_of(d, n->inputs[0]), mg = mask_of(d, n->inputs[1]);
    uint64_t out = (mx | mg) & dim_bit(0);
    out |= mx & dim_bit(1);
    for (int32_t i = 2; i < R; i++)
        if (has_dim(mg, i - 1))
            out |= dim_bit(i);
    return out;
}

/* Output out_i's rank by n's rule, for a value whose rank was not
 * recorded; -1 when the rule does not say. */
static int32_t rule_rank(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                         const dims_rule *rule, uint32_t out_i)
{
    int32_t r = n->n_inputs && n->inputs[0] ? rank_of(d, n->inputs[0]) : -1;
    int32_t r1 = n->n_inputs > 1 && n->inputs[1] ? rank_of(d, n->inputs[1]) : -1;
    int_list_buf list;
    switch (rule->kind) {
    case R_SAME0: case R_CONV: case R_CONV_T: case R_POOL: case R_GLOBAL_POOL:
    case R_TRANSPOSE: case R_SPLIT: case R_TOPK: case R_RESIZE: case R_GRID_SAMPLE:
        return r;
    case R_BCAST: {
        int32_t most = -1;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            int32_t ri = n->inputs[i] ? rank_of(d, n->inputs[i]) : 0;
            if (ri < 0)
                return -1;
            most = ri > most ? ri : most;
        }
        return most;
    }
    case R_BCAST0: { /* Expand: the longer of the input's rank and the shape's */
        const shape_elems *e = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
        if (r < 0 || !e || e->scalar)
            return -1;
        return (int32_t)e->len > r ? (int32_t)e->len : r;
    }
    case R_FROM_SHAPE: {
        const shape_elems *e = elems_of(g, d, n->inputs[0]);
        return e && !e->scalar ? (int32_t)e->len : -1;
    }
    case R_SLICE: case R_TILE: case R_PAD: return r;
    case R_NONE: return strcmp(n->op_type, "Shape") == 0 ? 1 : 0;
    case R_MATMUL: return r >= 2 && r1 >= 2 ? (r > r1 ? r : r1) : -1;
    case R_GEMM: case R_FLATTEN: return 2;
    case R_REDUCE: case R_ARG_REDUCE: {
        if (r < 0)
            return -1;
        if (ox_node_attr_int(n, "keepdims", 1))
            return r;
        if (rule->kind == R_ARG_REDUCE)
            return r - 1;
        if (!int_list(g, n, "axes", 1, &list) || list.n == 0)
            return ox_node_attr_int(n, "noop_with_empty_axes", 0) ? r : 0;
        return r - (int32_t)list.n;
    }
    case R_UNSQUEEZE:
        return r >= 0 && int_list(g, n, "axes", 1, &list) ? r + (int32_t)list.n : -1;
    case R_SQUEEZE:
        return r >= 0 && int_list(g, n, "axes", 1, &list) && list.n ? r - (int32_t)list.n : -1;
    case R_RESHAPE: {
        const shape_elems *e = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
        return e && !e->scalar ? (int32_t)e->len : -1;
    }
    case R_GATHER: return r >= 0 && r1 >= 0 ? r + r1 - 1 : -1;
    case R_GATHER_ELEMENTS: return r1;
    case R_RNN: return out_i == 0 ? 4 : 3;
    case R_ROI_ALIGN: return 4;
    }
    return -1;
}

static uint64_t by_rule(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                        const dims_rule *rule, uint32_t out_i, int32_t R)
{
    if (!tracked(R) || n->n_inputs == 0 || !n->inputs[0])
        return rule->kind == R_NONE ? 0 : FALLBACK;
    switch (rule->kind) {
    case R_SAME0:
        return rank_of(d, n->inputs[0]) == R ? mask_of(d, n->inputs[0]) : FALLBACK;
    case R_BCAST: return broadcast(g, d, n, n->n_inputs, R);
    case R_BCAST0: return expand(g, d, n, R);
    case R_FROM_SHAPE: return from_shape(g, d, n, R);
    case R_SLICE: return slice(g, d, n, R);
    case R_TILE: return tile(g, d, n, R);
    case R_PAD: return pad(g, d, n, R);
    case R_NONE: return 0;
    case R_MATMUL: return n->n_inputs >= 2 ? matmul(g, d, n, R) : FALLBACK;
    case R_GEMM: return n->n_inputs >= 2 ? gemm(g, d, n, R) : FALLBACK;
    case R_CONV: return windowed(g, d, n, R, 0);
    case R_CONV_T: return windowed(g, d, n, R, 1);
    case R_POOL: return windowed(g, d, n, R, -1);
    case R_GLOBAL_POOL:
        return rank_of(d, n->inputs[0]) == R ? mask_of(d, n->inputs[0]) & (dim_bit(0) | dim_bit(1))
                                             : FALLBACK;
    case R_FLATTEN: return flatten(g, d, n, R);
    case R_TRANSPOSE: case R_REDUCE: case R_ARG_REDUCE: case R_UNSQUEEZE: case R_SQUEEZE:
        return by_sources(g, d, n, rule, R);
    case R_RESHAPE: return reshape(g, d, n, R);
    case R_GATHER: return gather(g, d, n, R);
    case R_GATHER_ELEMENTS:
        return n->n_inputs >= 2 && rank_of(d, n->inputs[1]) == R ? mask_of(d, n->inputs[1]) : FALLBACK;
    case R_SPLIT: return split(g, d, n, R);
    case R_TOPK: return topk(g, d, n, R);
    case R_RNN: return rnn(g, d, n, out_i, R);
    case R_RESIZE: return resize(g, d, n, R);
    case R_ROI_ALIGN: return roi_align(g, d, n, R);
    case R_GRID_SAMPLE: return grid_sample(g, d, n, R);
    }
    return FALLBACK;
}

/* ---------------------------------------------------------------- terms */

/* The term of a dim several dims broadcast into (Expand, an elementwise
 * op, MatMul's batch): theirs, if every one that varies has the same and
 * every fixed one is 1.  A fixed size above 1 makes the dim that size, and
 * two varying dims of other terms may make it either: no term then. */
typedef struct term_vote {
    uint32_t term;
    bool none; /* a candidate ruled a term out */
} term_vote;

static void vote_dim(const ox_graph *g, ox_varying_dims *d, term_vote *t, ox_vid v, int64_t dim)
{
    if (has_dim(mask_of(d, v), dim)) {
        uint32_t k = term_of(d, v, dim);
        if (!k || (t->term && t->term != k))
            t->none = true;
        t->term = k;
        return;
    }
    const ox_value *x = ox_graph_value(g, v);
    int32_t r = rank_of(d, v);
    if (!x || x->type.rank != r || !x->type.dims || dim >= r || x->type.dims[dim] != 1)
        t->none = true; /* fixed, and not (known to be) 1 */
}

static uint32_t vote_result(const term_vote *t)
{
    return t->none ? 0 : t->term;
}

/* Elementwise ops: the right-aligned vote of every input.  Concat: every
 * dim but its axis is each input's, which must agree. */
static void broadcast_terms(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R,
                            uint32_t *t)
{
    bool concat = strcmp(n->op_type, "Concat") == 0;
    int64_t axis = concat ? norm_axis(ox_node_attr_int(n, "axis", 0), R) : -1;
    for (int32_t k = 0; k < R; k++) {
        if (k == axis)
            continue;
        term_vote vote = {0, false};
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_vid v = n->inputs[i];
            int32_t r = v ? rank_of(d, v) : -1;
            if (!v || !tracked(r))
                continue;
            int64_t j = k - (R - r);
            if (j < 0)
                continue;
            if (concat) { /* equal at run time: any term of them is the dim's */
                if (!vote.term)
                    vote.term = term_of(d, v, j);
                continue;
            }
            vote_dim(g, d, &vote, v, j);
        }
        t[k] = vote_result(&vote);
    }
}

/* Expand: the input's dims voted with the target's elements. */
static void expand_terms(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R,
                         uint32_t *t)
{
    ox_vid x = n->inputs[0];
    int32_t r = rank_of(d, x);
    const shape_elems *shape = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
    if (!tracked(r) || !shape || shape->scalar || (int32_t)shape->len > R || r > R)
        return;
    for (int32_t k = 0; k < R; k++) {
        term_vote vote = {0, false};
        int32_t i = k - (R - r), j = k - (R - (int32_t)shape->len);
        if (i >= 0)
            vote_dim(g, d, &vote, x, i);
        int64_t s;
        if (j >= 0) {
            if (elem_varies(shape, (uint32_t)j)) {
                uint32_t e = shape->term[j];
                vote.none = vote.none || !e || (vote.term && vote.term != e);
                vote.term = e;
            } else if (!elem_known(shape, (uint32_t)j, &s) || s != 1) {
                vote.none = true;
            }
        }
        t[k] = vote_result(&vote);
    }
}

/* Slice keeps the dims it does not slice. */
static void slice_terms(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R,
                        uint32_t *t)
{
    ox_vid x = n->inputs[0];
    int_list_buf axes = {.n = 0};
    bool attr_form = ox_node_attr(n, "starts") != NULL;
    size_t n_bounds;
    if (attr_form) {
        const ox_attr *st = ox_node_attr(n, "starts");
        if (st->kind != OX_ATTR_INTS)
            return;
        n_bounds = st->u.ints.n;
    } else {
        const shape_elems *starts = n->n_inputs > 1 ? elems_of(g, d, n->inputs[1]) : NULL;
        if (!starts)
            return;
        n_bounds = starts->len;
    }
    bool axes_given = attr_form ? ox_node_attr(n, "axes") != NULL : n->n_inputs > 3 && n->inputs[3];
    if (axes_given && (!int_list(g, n, "axes", 3, &axes) || axes.n != n_bounds))
        return;
    for (int32_t k = 0; k < R; k++) {
        bool sliced = axes_given ? list_has(axes.v, axes.n, k, R) : (size_t)k < n_bounds;
        if (!sliced)
            t[k] = term_of(d, x, k);
    }
}

/* Tile by repeats of 1 and Pad by 0 on both sides keep a dim. */
static void tile_or_pad_terms(const ox_graph *g, ox_varying_dims *d, const ox_node *n, int32_t R,
                              uint32_t *t, bool is_pad)
{
    ox_vid x = n->inputs[0];
    const ox_attr *pads = is_pad ? ox_node_attr(n, "pads") : NULL;
    if (pads) {
        if (pads->kind != OX_ATTR_INTS || pads->u.ints.n != 2 * (size_t)R)
            return;
        for (int32_t k = 0; k < R; k++)
            if (pads->u.ints.p[k] == 0 && pads->u.ints.p[R + k] == 0)
                t[k] = term_of(d, x, k);
        return;
    }
    if (is_pad && n->n_inputs > 3 && n->inputs[3])
        return; /* opset 18's axes */
    const shape_elems *e = n->n_inputs > 1 && n->inputs[1] ? elems_of(g, d, n->inputs[1]) : NULL;
    uint32_t per_dim = is_pad ? 2 : 1;
    if (!e || e->boolean || e->len != per_dim * (uint32_t)R)
        return;
    int64_t keep = is_pad ? 0 : 1, a, b;
    for (int32_t k = 0; k < R; k++) {
        bool kept = elem_known(e, (uint32_t)k, &a) && a == keep &&
                    (!is_pad || (elem_known(e, (uint32_t)(R + k), &b) && b == 0));
        if (kept)
            t[k] = term_of(d, x, k);
    }
}

/* Output out_i's dim terms by n's rule, into t (R entries, zeroed): only
 * where the output's dim is the input's, the very size, on every run. */
static void terms_by_rule(const ox_graph *g, ox_varying_dims *d, const ox_node *n,
                          const dims_rule *rule, uint32_t out_i, int32_t R, uint32_t *t)
{
    ox_vid x = n->inputs[0], w = n->n_inputs > 1 ? n->inputs[1] : 0;
    int32_t r = rank_of(d, x), r1 = w ? rank_of(d, w) : -1;
    switch (rule->kind) {
    case R_SAME0:
        /* output 0 only (LayerNormalization's Mean has the rank, not the
         * dims); DepthToSpace and SpaceToDepth move sizes between dims */
        if (out_i == 0 && r == R && strcmp(n->op_type, "DepthToSpace") != 0 &&
            strcmp(n->op_type, "SpaceToDepth") != 0)
            for (int32_t k = 0; k < R; k++)
                t[k] = term_of(d, x, k);
        return;
    case R_BCAST: broadcast_terms(g, d, n, R, t); return;
    case R_BCAST0: expand_terms(g, d, n, R, t); return;
    case R_FROM_SHAPE: {
        const shape_elems *e = elems_of(g, d, x);
        if (e && !e->scalar && e->len == (uint32_t)R)
            for (int32_t k = 0; k < R; k++)
                t[k] = elem_varies(e, (uint32_t)k) ? e->term[k] : 0;
        return;
    }
    case R_RESHAPE: {
        const shape_elems *e = w ? elems_of(g, d, w) : NULL;
        bool allowzero = ox_node_attr_int(n, "allowzero", 0) != 0;
        int64_t s;
        if (!e || e->scalar || e->len != (uint32_t)R)
            return;
        for (int32_t k = 0; k < R; k++) {
            if (elem_varies(e, (uint32_t)k))
                t[k] = e->term[k];
            else if (!allowzero && elem_known(e, (uint32_t)k, &s) && s == 0 && k < r)
                t[k] = term_of(d, x, k);
        }
        return;
    }
    case R_TRANSPOSE: case R_UNSQUEEZE: case R_SQUEEZE: case R_REDUCE: case R_ARG_REDUCE: {
        int32_t src[MAX_TRACKED];
        if (source_dims(g, d, n, rule, R, src))
            for (int32_t k = 0; k < R; k++)
                t[k] = src[k] >= 0 ? term_of(d, x, src[k]) : 0;
        return;
    }
    case R_MATMUL: {
        if (r < 2 || r1 < 2 || !tracked(r) || !tracked(r1) || R < 2)
            return;
        t[R - 2] = term_of(d, x, r - 2);
        t[R - 1] = term_of(d, w, r1 - 1);
        for (int32_t k = 0; k < R - 2; k++) {
            term_vote vote = {0, false};
            int32_t i = k - (R - r), j = k - (R - r1);
            if (i >= 0)
                vote_dim(g, d, &vote, x, i);
            if (j >= 0)
                vote_dim(g, d, &vote, w, j);
            t[k] = vote_result(&vote);
        }
        return;
    }
    case R_GEMM:
        t[0] = term_of(d, x, ox_node_attr_int(n, "transA", 0) ? 1 : 0);
        t[1] = term_of(d, w, ox_node_attr_int(n, "transB", 0) ? 0 : 1);
        return;
    case R_CONV: case R_CONV_T:
        t[0] = term_of(d, x, 0);
        return;
    case R_POOL: case R_GLOBAL_POOL:
        t[0] = term_of(d, x, 0);
        if (R > 1)
            t[1] = term_of(d, x, 1);
        return;
    case R_FLATTEN: {
        int64_t axis = tracked(r) ? norm_axis(ox_node_attr_int(n, "axis", 1), r) : -1;
        if (axis == 1)
            t[0] = term_of(d, x, 0);
        if (axis >= 0 && axis == r - 1)
            t[1] = term_of(d, x, r - 1);
        return;
    }
    case R_GATHER: {
        if (!tracked(r) || !tracked(r1) || r + r1 - 1 != R)
            return;
        int64_t axis = norm_axis(ox_node_attr_int(n, "axis", 0), r);
        for (int32_t k = 0; k < R; k++)
            t[k] = k < axis ? term_of(d, x, k) : k < axis + r1 ? term_of(d, w, k - axis)
                                                               : term_of(d, x, k - r1 + 1);
        return;
    }
    case R_GATHER_ELEMENTS:
        if (r1 == R)
            for (int32_t k = 0; k < R; k++)
                t[k] = term_of(d, w, k);
        return;
    case R_SPLIT: case R_TOPK: {
        int64_t axis = norm_axis(ox_node_attr_int(n, "axis", rule->kind == R_TOPK ? -1 : 0), r);
        if (r == R)
            for (int32_t k = 0; k < R; k++)
                t[k] = k == axis ? 0 : term_of(d, x, k);
        return;
    }
    case R_SLICE: slice_terms(g, d, n, R, t); return;
    case R_TILE: if (r == R) tile_or_pad_terms(g, d, n, R, t, false); return;
    case R_PAD: if (r == R) tile_or_pad_terms(g, d, n, R, t, true); return;
    case R_RNN: {
        bool batch_first = ox_node_attr_int(n, "layout", 0) != 0;
        uint32_t seq = term_of(d, x, batch_first ? 1 : 0), batch = term_of(d, x, batch_first ? 0 : 1);
        if (r != 3)
            return;
        if (out_i == 0 && R == 4) {
            t[batch_first ? 1 : 0] = seq;
            t[batch_first ? 0 : 2] = batch;
        } else if (out_i > 0 && R == 3) {
            t[batch_first ? 0 : 1] = batch;
        }
        return;
    }
    case R_NONE: case R_RESIZE: case R_ROI_ALIGN: case R_GRID_SAMPLE:
        return;
    }
}

/* A term of its own, or the one of its dim_param name. */
typedef struct ox_named_term {
    const char *name;
    uint32_t term;
    struct ox_named_term *next;
} named_term;

static uint32_t input_term(ox_varying_dims *d, const char *name)
{
    if (name)
        for (const named_term *t = d->named; t; t = t->next)
            if (strcmp(t->name, name) == 0)
                return t->term;
    uint32_t term = ++d->n_terms;
    named_term *t = name ? ox_arena_alloc(&d->elems_arena, sizeof(*t)) : NULL;
    if (t) {
        *t = (named_term){name, term, d->named};
        d->named = t;
    }
    return term;
}

/* v's terms, R of them, in the arena; terms of dims that do not vary are
 * dropped.  false out of memory. */
static bool set_terms(ox_varying_dims *d, ox_vid v, int32_t R, const uint32_t *t)
{
    if (!tracked(R) || !R)
        return true;
    uint32_t *own = ox_arena_alloc(&d->elems_arena, (size_t)R * sizeof(*own));
    if (!own)
        return false;
    uint64_t m = d->mask[v];
    for (int32_t k = 0; k < R; k++)
        own[k] = has_dim(m, k) ? t[k] : 0;
    d->terms[v] = own;
    return true;
}

/* -------------------------------------------------------------- the walk */

static uint64_t input_mask(const ox_type *t)
{
    if (t->nontensor || !tracked(t->rank))
        return ~(uint64_t)0;
    uint64_t m = 0;
    for (int32_t i = 0; i < t->rank; i++)
        if (!t->dims || t->dims[i] < 0 || (t->dim_params && t->dim_params[i]))
            m |= dim_bit(i);
    return m;
}

/* Rules that read their shape-setting inputs element by element (a
 * computed target shape is fine); the others need those inputs constant. */
static bool reads_elements(const dims_rule *rule)
{
    return rule->kind == R_RESHAPE || rule->kind == R_BCAST0 || rule->kind == R_FROM_SHAPE ||
           rule->kind == R_SLICE || rule->kind == R_TILE || rule->kind == R_RESIZE ||
           rule->kind == R_PAD;
}

/* Terms for an input's varying dims: one per dim_param name, else one of
 * their own. */
static bool input_terms(ox_varying_dims *d, const ox_value *v)
{
    int32_t R = v->type.rank;
    uint32_t t[MAX_TRACKED] = {0};
    if (!tracked(R))
        return true;
    for (int32_t k = 0; k < R; k++)
        if (has_dim(d->mask[v->id], k))
            t[k] = input_term(d, v->type.dim_params ? v->type.dim_params[k] : NULL);
    return set_terms(d, v->id, R, t);
}

static int compute(const ox_graph *g, const ox_static_shapes *shapes, ox_varying_dims *out,
                   bool keep_values, bool terms)
{
    memset(out, 0, sizeof(*out));
    ox_arena_init(&out->elems_arena);
    out->n = g->n_values;
    size_t slots = out->n ? out->n : 1;
    out->mask = calloc(slots, sizeof(*out->mask));
    out->rank = malloc(slots * sizeof(*out->rank));
    out->elems = calloc(slots, sizeof(*out->elems));
    out->terms = terms ? calloc(slots, sizeof(*out->terms)) : NULL;
    if (!out->mask || !out->rank || !out->elems || (terms && !out->terms)) {
        ox_varying_dims_free(out);
        return -1;
    }
    out->rank[0] = -1;
    for (uint32_t id = 1; id < g->n_values; id++) {
        const ox_value *v = g->values[id];
        out->rank[id] = v && !v->type.nontensor ? v->type.rank : -1;
        if (v && v->kind == OX_VAL_INPUT) {
            out->mask[id] = input_mask(&v->type);
            if (terms && !input_terms(out, v)) {
                ox_varying_dims_free(out);
                return -1;
            }
        }
    }
    for (const ox_node *n = g->first; n; n = n->next) {
        const dims_rule *rule = rule_of(n);
        /* a rule reads its shape-setting inputs as constants (or element by
         * element); others computed leave every dim open */
        bool values_known =
            rule && (reads_elements(rule) || ox_static_shapes_value_inputs_constant(g, n));
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_vid o = n->outputs[i];
            if (!o || o >= out->n)
                continue;
            int32_t R = rank_of(out, o);
            if (R < 0 && values_known)
                R = out->rank[o] = rule_rank(g, out, n, rule, i);
            uint64_t m = FALLBACK;
            if (ox_static_shapes_is_fixed(shapes, o))
                m = 0;
            else if (values_known && !ox_static_shapes_is_data_sized(shapes, o))
                m = by_rule(g, out, n, rule, i, R);
            out->mask[o] = m == FALLBACK ? every_dim(R) : m & every_dim(R);
            if (terms && m != FALLBACK && m != 0 && tracked(R) && n->n_inputs && n->inputs[0]) {
                uint32_t t[MAX_TRACKED] = {0};
                terms_by_rule(g, out, n, rule, i, R, t);
                if (!set_terms(out, o, R, t)) {
                    ox_varying_dims_free(out);
                    return -1;
                }
            }
        }
        if (n->n_outputs && n->outputs[0] && n->outputs[0] < out->n && !out->elems[n->outputs[0]])
            out->elems[n->outputs[0]] = computed_elems(g, out, n);
    }
    if (!keep_values) {
        /* the elements served the walk; the masks are the answer */
        free(out->elems);
        out->elems = NULL;
        ox_arena_free(&out->elems_arena);
    }
    return 0;
}

int ox_varying_dims_compute(const ox_graph *g, const ox_static_shapes *shapes,
                            ox_varying_dims *out)
{
    return compute(g, shapes, out, false, false);
}

int ox_varying_dims_compute_keeping_values(const ox_graph *g, const ox_static_shapes *shapes,
                                           ox_varying_dims *out)
{
    return compute(g, shapes, out, true, false);
}

int ox_varying_dims_compute_with_terms(const ox_graph *g, const ox_static_shapes *shapes,
                                       ox_varying_dims *out)
{
    return compute(g, shapes, out, true, true);
}

bool ox_varying_dims_same_every_run(const ox_varying_dims *d, ox_vid v)
{
    const shape_elems *e = d->elems && v && v < d->n ? d->elems[v] : NULL;
    return e && !e->vary;
}

bool ox_varying_dims_known_value(const ox_varying_dims *d, ox_vid v,
                                 int64_t vals[OX_VARYING_MAX_ELEMS], uint32_t *len, bool *scalar)
{
    const shape_elems *e = d->elems && v && v < d->n ? d->elems[v] : NULL;
    uint32_t all = e && e->len ? ~0u >> (32 - e->len) : 0;
    if (!e || !e->len || e->boolean || e->vary || e->known != all)
        return false;
    memcpy(vals, e->val, e->len * sizeof(int64_t));
    *len = e->len;
    *scalar = e->scalar;
    return true;
}

bool ox_varying_dims_any_input(const ox_graph *g)
{
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const ox_value *v = ox_graph_value(g, g->inputs[i]);
        if (v && !v->type.nontensor && input_mask(&v->type) != 0)
            return true;
    }
    return false;
}

uint64_t ox_varying_dims_of(const ox_varying_dims *d, ox_vid v)
{
    return v < d->n ? d->mask[v] : ~(uint64_t)0;
}

void ox_varying_dims_free(ox_varying_dims *d)
{
    free(d->mask);
    free(d->rank);
    free(d->elems);
    d->elems = NULL;
    free(d->terms);
    d->terms = NULL;
    d->named = NULL;
    d->n_terms = 0;
    ox_arena_free(&d->elems_arena);
    d->mask = NULL;
    d->rank = NULL;
    d->n = 0;
}
