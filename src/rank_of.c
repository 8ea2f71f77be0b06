/* The rank of a value from its producer's operator (rank_of.h). */
#include "rank_of.h"

#include <stdlib.h>
#include <string.h>

/* How a default-domain operator's output 0 gets its rank. */
typedef enum rank_rule {
    KEEPS_INPUT0, /* elementwise on input 0, or shaped like it (Softmax, CumSum, PRelu) */
    BROADCASTS,   /* multidirectional broadcasting: the largest input rank */
} rank_rule;

typedef struct rank_entry {
    const char *op_type;
    rank_rule rule;
} rank_entry;

/* In strcmp order, for bsearch (rank_rules_sorted checks it in the tests). */
static const rank_entry RULES[] = {
    {"Abs", KEEPS_INPUT0},         {"Acos", KEEPS_INPUT0},
    {"Acosh", KEEPS_INPUT0},       {"Add", BROADCASTS},
    {"And", BROADCASTS},           {"Asin", KEEPS_INPUT0},
    {"Asinh", KEEPS_INPUT0},       {"Atan", KEEPS_INPUT0},
    {"Atanh", KEEPS_INPUT0},       {"BitShift", BROADCASTS},
    {"BitwiseAnd", BROADCASTS},    {"BitwiseNot", KEEPS_INPUT0},
    {"BitwiseOr", BROADCASTS},     {"BitwiseXor", BROADCASTS},
    {"Cast", KEEPS_INPUT0},        {"CastLike", KEEPS_INPUT0},
    {"Ceil", KEEPS_INPUT0},        {"Celu", KEEPS_INPUT0},
    {"Clip", KEEPS_INPUT0},        {"Cos", KEEPS_INPUT0},
    {"Cosh", KEEPS_INPUT0},        {"CumSum", KEEPS_INPUT0},
    {"Div", BROADCASTS},           {"Elu", KEEPS_INPUT0},
    {"Equal", BROADCASTS},         {"Erf", KEEPS_INPUT0},
    {"Exp", KEEPS_INPUT0},         {"Floor", KEEPS_INPUT0},
    {"Gelu", KEEPS_INPUT0},        {"Greater", BROADCASTS},
    {"GreaterOrEqual", BROADCASTS}, {"HardSigmoid", KEEPS_INPUT0},
    {"HardSwish", KEEPS_INPUT0},   {"Hardmax", KEEPS_INPUT0},
    {"Identity", KEEPS_INPUT0},    {"IsInf", KEEPS_INPUT0},
    {"IsNaN", KEEPS_INPUT0},       {"LeakyRelu", KEEPS_INPUT0},
    {"Less", BROADCASTS},          {"LessOrEqual", BROADCASTS},
    {"Log", KEEPS_INPUT0},         {"LogSoftmax", KEEPS_INPUT0},
    {"Max", BROADCASTS},           {"Mean", BROADCASTS},
    {"Min", BROADCASTS},           {"Mish", KEEPS_INPUT0},
    {"Mod", BROADCASTS},           {"Mul", BROADCASTS},
    {"Neg", KEEPS_INPUT0},         {"Not", KEEPS_INPUT0},
    {"Or", BROADCASTS},            {"PRelu", KEEPS_INPUT0},
    {"Pow", BROADCASTS},           {"Reciprocal", KEEPS_INPUT0},
    {"Relu", KEEPS_INPUT0},        {"Round", KEEPS_INPUT0},
    {"Selu", KEEPS_INPUT0},        {"Shrink", KEEPS_INPUT0},
    {"Sigmoid", KEEPS_INPUT0},     {"Sign", KEEPS_INPUT0},
    {"Sin", KEEPS_INPUT0},         {"Sinh", KEEPS_INPUT0},
    {"Softmax", KEEPS_INPUT0},     {"Softplus", KEEPS_INPUT0},
    {"Softsign", KEEPS_INPUT0},    {"Sqrt", KEEPS_INPUT0},
    {"Sub", BROADCASTS},           {"Sum", BROADCASTS},
    {"Tan", KEEPS_INPUT0},         {"Tanh", KEEPS_INPUT0},
    {"ThresholdedRelu", KEEPS_INPUT0}, {"Where", BROADCASTS},
    {"Xor", BROADCASTS},
};

static int by_op_type(const void *key, const void *entry)
{
    return strcmp(key, ((const rank_entry *)entry)->op_type);
}

/* A chain of such operators is short in a symbolic's own nodes; the bound
 * keeps a long recorded chain from costing more than a few steps. */
enum { MAX_DEPTH = 8 };

static int rank_at(const ox_graph *g, const ox_value *v, int depth)
{
    if (!v)
        return -1;
    if (v->type.rank >= 0)
        return v->type.rank;
    const ox_node *n = v->producer;
    if (v->kind != OX_VAL_NODE || !n || v->producer_index != 0 || n->domain[0] ||
        n->n_inputs == 0 || depth >= MAX_DEPTH)
        return -1;
    const rank_entry *e = bsearch(n->op_type, RULES, sizeof RULES / sizeof RULES[0],
                                  sizeof RULES[0], by_op_type);
    if (!e)
        return -1;
    if (e->rule == KEEPS_INPUT0)
        return n->inputs[0] ? rank_at(g, ox_graph_value(g, n->inputs[0]), depth + 1) : -1;
    int rank = -1;
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        if (!n->inputs[i])
            return -1;
        int r = rank_at(g, ox_graph_value(g, n->inputs[i]), depth + 1);
        if (r < 0)
            return -1;
        if (r > rank)
            rank = r;
    }
    return rank;
}

int ox_rank_of(const ox_graph *g, const ox_value *v)
{
    return rank_at(g, v, 0);
}

bool ox_rank_rules_sorted(void)
{
    for (size_t i = 1; i < sizeof RULES / sizeof RULES[0]; i++)
        if (strcmp(RULES[i - 1].op_type, RULES[i].op_type) >= 0)
            return false;
    return true;
}
