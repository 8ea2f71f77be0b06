/*
 * Fixed shapes (static_shapes.h).  A size read in Python is recorded as
 * Shape -> Gather -> ... so that it follows a dynamic axis; where no axis is
 * dynamic, ONNX Runtime runs the file only at the declared input shapes
 * (it refuses inputs whose fixed dims differ), every shape computed from
 * them is the traced one, and the chain is a constant, which the folding
 * sweep then collapses.
 *
 * A shape is fixed only when it follows from fixed shapes alone: the table
 * below lists the operators whose output shapes depend on their inputs'
 * shapes and attributes, with the inputs whose values also count (Reshape's
 * target shape); those must be constants.  An operator missing from it
 * (NonZero, Unique, Compress, control flow, any other domain) ends the
 * chain, so a data-dependent shape is never folded.
 */
#include "static_shapes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* op_type -> bit i set: input i's values set the output shape */
typedef struct shape_rule {
    const char *op;
    uint8_t value_inputs;
} shape_rule;

#define IN(i) ((uint8_t)(1u << (i)))

/* Sorted by strcmp, for bsearch (test_fold checks the order). */
static const shape_rule rules[] = {
    {"Abs", 0}, {"Acos", 0}, {"Acosh", 0}, {"Add", 0}, {"And", 0}, {"ArgMax", 0}, {"ArgMin", 0},
    {"Asin", 0}, {"Asinh", 0}, {"Atan", 0}, {"Atanh", 0}, {"AveragePool", 0},
    {"BatchNormalization", 0}, {"Bernoulli", 0}, {"BitShift", 0}, {"Cast", 0}, {"CastLike", 0},
    {"Ceil", 0}, {"Celu", 0}, {"Clip", 0}, {"Concat", 0}, {"ConstantOfShape", IN(0)},
    {"Conv", 0}, {"ConvTranspose", 0}, {"Cos", 0}, {"Cosh", 0}, {"CumSum", 0},
    {"DepthToSpace", 0}, {"DequantizeLinear", 0}, {"Div", 0}, {"Dropout", 0}, {"Einsum", 0},
    {"Elu", 0}, {"Equal", 0}, {"Erf", 0}, {"Exp", 0}, {"Expand", IN(1)}, {"EyeLike", 0},
    {"Flatten", 0}, {"Floor", 0}, {"GRU", 0}, {"Gather", 0}, {"GatherElements", 0},
    {"GatherND", 0}, {"Gelu", 0}, {"Gemm", 0}, {"GlobalAveragePool", 0}, {"GlobalLpPool", 0},
    {"GlobalMaxPool", 0}, {"Greater", 0}, {"GreaterOrEqual", 0}, {"GridSample", 0},
    {"GroupNormalization", 0}, {"HardSigmoid", 0}, {"HardSwish", 0}, {"Hardmax", 0},
    {"Identity", 0}, {"InstanceNormalization", 0}, {"IsInf", 0}, {"IsNaN", 0}, {"LRN", 0},
    {"LSTM", 0}, {"LayerNormalization", 0}, {"LeakyRelu", 0}, {"Less", 0}, {"LessOrEqual", 0},
    {"Log", 0}, {"LogSoftmax", 0}, {"LpNormalization", 0}, {"LpPool", 0}, {"MatMul", 0},
    {"Max", 0}, {"MaxPool", 0}, {"MaxUnpool", IN(2)}, {"Mean", 0},
    {"MeanVarianceNormalization", 0}, {"Min", 0}, {"Mish", 0}, {"Mod", 0}, {"Mul", 0},
    {"Neg", 0}, {"Not", 0}, {"OneHot", IN(1)}, {"Or", 0}, {"PRelu", 0}, {"Pad", IN(1) | IN(3)},
    {"Pow", 0}, {"QuantizeLinear", 0}, {"RNN", 0}, {"RandomNormalLike", 0},
    {"RandomUniformLike", 0}, {"Range", IN(0) | IN(1) | IN(2)}, {"Reciprocal", 0},
    {"ReduceL1", IN(1)}, {"ReduceL2", IN(1)}, {"ReduceLogSum", IN(1)},
    {"ReduceLogSumExp", IN(1)}, {"ReduceMax", IN(1)}, {"ReduceMean", IN(1)},
    {"ReduceMin", IN(1)}, {"ReduceProd", IN(1)}, {"ReduceSum", IN(1)},
    {"ReduceSumSquare", IN(1)}, {"Relu", 0}, {"Reshape", IN(1)},
    {"Resize", IN(1) | IN(2) | IN(3)}, {"ReverseSequence", 0}, {"RoiAlign", 0}, {"Round", 0},
    {"Scatter", 0}, {"ScatterElements", 0}, {"ScatterND", 0}, {"Selu", 0}, {"Shape", 0},
    {"Shrink", 0}, {"Sigmoid", 0}, {"Sign", 0}, {"Sin", 0}, {"Sinh", 0}, {"Size", 0},
    {"Slice", IN(1) | IN(2) | IN(3) | IN(4)}, {"Softmax", 0}, {"Softplus", 0}, {"Softsign", 0},
    {"SpaceToDepth", 0}, {"Split", IN(1)}, {"Sqrt", 0}, {"Squeeze", IN(1)}, {"Sub", 0},
    {"Sum", 0}, {"Tan", 0}, {"Tanh", 0}, {"ThresholdedRelu", 0}, {"Tile", IN(1)},
    {"TopK", IN(1)}, {"Transpose", 0}, {"Trilu", 0}, {"Unsqueeze", IN(1)}, {"Upsample", IN(1)},
    {"Where", 0}, {"Xor", 0},
};

#define N_RULES (sizeof rules / sizeof rules[0])

static int rule_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const shape_rule *)elem)->op);
}

bool ox_static_shapes_table_sorted(void)
{
    for (size_t i = 1; i < N_RULES; i++)
        if (strcmp(rules[i - 1].op, rules[i].op) >= 0)
            return false;
    return true;
}

/* The rules hashed by operator, built once per process: the folding sweep
 * and the writer look every node's rule up, and bisecting by string compares
 * was 7% of an export's instructions (docs/performance.md).  Values are
 * indices into rules[]. */
static ox_strmap rule_index;
static bool rule_index_built; /* false: out of memory, bisect */
static pthread_once_t rule_index_once = PTHREAD_ONCE_INIT;

static void build_rule_index(void)
{
    bool ok = ox_strmap_init(&rule_index, N_RULES) == 0;
    for (size_t i = 0; ok && i < N_RULES; i++)
        ok = ox_strmap_put(&rule_index, rules[i].op, i) > 0;
    if (!ok)
        ox_strmap_free(&rule_index);
    rule_index_built = ok;
}

static const shape_rule *rule_of(const char *op)
{
    pthread_once(&rule_index_once, build_rule_index);
    if (!rule_index_built)
        return bsearch(op, rules, N_RULES, sizeof rules[0], rule_cmp);
    const uint64_t *i = ox_strmap_find(&rule_index, op);
    return i ? &rules[*i] : NULL;
}

/* Every dim recorded and none symbolic. */
static bool dims_known(const ox_type *t)
{
    if (t->nontensor || t->rank < 0 || (t->rank > 0 && !t->dims))
        return false;
    for (int32_t i = 0; i < t->rank; i++)
        if (t->dims[i] < 0 || (t->dim_params && t->dim_params[i]))
            return false;
    return true;
}

int ox_static_shapes_init(const ox_graph *g, ox_static_shapes *s)
{
    memset(s->memo, 0, sizeof s->memo);
    s->n = g->n_values;
    s->fixed = calloc(s->n ? s->n : 1, 1);
    s->data_sized = calloc(s->n ? s->n : 1, 1);
    if (!s->fixed || !s->data_sized) {
        ox_static_shapes_free(s);
        return -1;
    }
    for (uint32_t id = 1; id < g->n_values; id++) {
        const ox_value *v = g->values[id];
        if (!v)
            continue;
        switch (v->kind) {
        case OX_VAL_INPUT: s->fixed[id] = dims_known(&v->type); break;
        case OX_VAL_PARAM:
        case OX_VAL_CONST: s->fixed[id] = v->type.rank >= 0; break;
        case OX_VAL_NODE: break;
        }
    }
    return 0;
}

void ox_static_shapes_free(ox_static_shapes *s)
{
    free(s->fixed);
    free(s->data_sized);
    s->fixed = NULL;
    s->data_sized = NULL;
    s->n = 0;
}

const ox_static_shapes *ox_static_shapes_of(const ox_graph *g, const ox_static_shapes *given,
                                            ox_static_shapes *own)
{
    memset(own, 0, sizeof *own);
    if (given && given->n == g->n_values)
        return given;
    if (ox_static_shapes_init(g, own) != 0)
        return NULL;
    for (const ox_node *n = g->first; n; n = n->next)
        ox_static_shapes_note(g, own, n);
    return own;
}


/* The operators whose output sizes are counts of what the input's values
 * select. */
static bool sizes_from_values(const ox_node *n)
{
    static const char *const ops[] = {"NonZero", "NonMaxSuppression", "Compress", "Unique"};
    if (n->domain[0])
        return false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(n->op_type, ops[k]) == 0)
            return true;
    return false;
}

static bool is_fixed(const ox_static_shapes *s, ox_vid v)
{
    return ox_static_shapes_is_fixed(s, v);
}

/* A value the file holds as a constant (a parameter can be overridden when
 * initializers are listed as inputs, so it does not count). */
static bool is_constant(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    if (!x)
        return false;
    if (x->kind == OX_VAL_CONST)
        return true;
    return x->kind == OX_VAL_NODE && x->producer && !x->producer->domain[0] &&
           strcmp(x->producer->op_type, "Constant") == 0;
}

static int become_int64_constant(ox_graph *g, ox_node *n, uint32_t rank, const int64_t *dims,
                                 const int64_t *data, uint64_t count)
{
    return ox_node_become_constant_copy(g, n, OX_INT64, rank, dims, data, count * sizeof(int64_t));
}

int ox_static_shapes_fold(ox_graph *g, const ox_static_shapes *s, ox_node *n)
{
    if (n->domain[0] || n->n_inputs != 1 || n->n_outputs != 1 || !is_fixed(s, n->inputs[0]))
        return 0;
    bool shape = strcmp(n->op_type, "Shape") == 0;
    if (!shape && strcmp(n->op_type, "Size") != 0)
        return 0;
    const ox_value *x = ox_graph_value(g, n->inputs[0]);
    if (!x || !dims_known(&x->type))
        return 0;
    int64_t rank = x->type.rank;
    if (!shape) {
        int64_t count = 1;
        for (int64_t i = 0; i < rank; i++)
            if (__builtin_mul_overflow(count, x->type.dims[i], &count))
                return 0;
        return become_int64_constant(g, n, 0, NULL, &count, 1) ? -1 : 1;
    }
    /* Shape's start/end (opset 15): negative from the end, clamped to [0, rank] */
    int64_t start = ox_node_attr_int(n, "start", 0), end = ox_node_attr_int(n, "end", rank);
    start = start < 0 ? start + rank : start;
    end = end < 0 ? end + rank : end;
    start = start < 0 ? 0 : start > rank ? rank : start;
    end = end < 0 ? 0 : end > rank ? rank : end;
    int64_t len = end > start ? end - start : 0;
    return become_int64_constant(g, n, 1, &len, x->type.dims + start, (uint64_t)len) ? -1 : 1;
}

void ox_static_shapes_note(const ox_graph *g, ox_static_shapes *s, const ox_node *n)
{
    bool fixed;
    bool has_rule = false;
    struct ox_shape_rule_memo *m = &s->memo[((uintptr_t)n->kind >> 4) & 15];
    if (!n->domain[0] && (m->kind != n->kind || !n->kind)) {
        m->kind = n->kind;
        m->constant = strcmp(n->op_type, "Constant") == 0;
        m->rule = m->constant ? NULL : rule_of(n->op_type);
    }
    if (n->domain[0]) {
        fixed = false;
    } else if (m->constant) {
        fixed = n->n_inputs == 0;
        has_rule = true;
    } else {
        const shape_rule *r = m->rule;
        fixed = has_rule = r != NULL;
        for (uint32_t i = 0; fixed && i < n->n_inputs; i++) {
            ox_vid v = n->inputs[i];
            if (!v) /* an absent optional input */
                continue;
            if (!is_fixed(s, v) || (i < 8 && (r->value_inputs & IN(i)) && !is_constant(g, v)))
                fixed = false;
        }
    }
    bool data_sized = false;
    for (uint32_t i = 0; i < n->n_inputs && !data_sized; i++)
        data_sized = ox_static_shapes_is_data_sized(s, n->inputs[i]);
    /* the sources have no shape rule (their sizes are not the inputs'), so
     * the names are compared only for operators without one */
    if (!data_sized && !has_rule)
        data_sized = sizes_from_values(n);
    for (uint32_t i = 0; i < n->n_outputs; i++)
        if (n->outputs[i] && n->outputs[i] < s->n) {
            s->fixed[n->outputs[i]] = fixed;
            s->data_sized[n->outputs[i]] = data_sized;
        }
}

bool ox_static_shapes_value_inputs_constant(const ox_graph *g, const ox_node *n)
{
    if (n->domain[0] || !n->op_type)
        return false;
    const shape_rule *r = rule_of(n->op_type);
    if (!r)
        return false;
    for (uint32_t i = 0; i < n->n_inputs && i < 8; i++)
        if ((r->value_inputs & IN(i)) && n->inputs[i] && !is_constant(g, n->inputs[i]))
            return false;
    return true;
}
