/* The rank of a value from its producer's operator (rank_of.h).  Which
 * operators keep or broadcast their inputs' dims is the varying-dims
 * analysis's operator table (varying_dims.h), read here, not restated. */
#include "rank_of.h"

#include "varying_dims.h"

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
    if (v->kind != OX_VAL_NODE || !n || v->producer_index != 0 || n->n_inputs == 0 ||
        depth >= MAX_DEPTH)
        return -1;
    switch (ox_varying_dims_rank_rule(n)) {
    case OX_RANK_OF_INPUT0:
        return n->inputs[0] ? rank_at(g, ox_graph_value(g, n->inputs[0]), depth + 1) : -1;
    case OX_RANK_OF_WIDEST: {
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
    case OX_RANK_NOT_RULED:
        break;
    }
    return -1;
}

int ox_rank_of(const ox_graph *g, const ox_value *v)
{
    return rank_at(g, v, 0);
}
