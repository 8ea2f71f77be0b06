/*
 * Constants opset 7 and 8 cannot hold become initializers (lift_constants.h).
 */
#include "lift_constants.h"

#include <string.h>

/* Constant's type constraint before opset 9. */
static bool float_type(ox_dtype t)
{
    return t == OX_FLOAT || t == OX_FLOAT16 || t == OX_DOUBLE;
}

static const ox_attr_tensor *value_of(const ox_node *n)
{
    if (n->domain[0] || strcmp(n->op_type, "Constant") != 0)
        return NULL;
    const ox_attr *a = ox_node_attr(n, "value");
    return a && a->kind == OX_ATTR_TENSOR ? a->u.t : NULL;
}

bool ox_constant_needs_lifting(const ox_node *n, int64_t opset)
{
    const ox_attr_tensor *t = opset < 9 ? value_of(n) : NULL;
    return t && !float_type(t->dtype);
}

ox_status ox_pass_lift_constants(ox_context *ctx, ox_graph *g, int64_t opset, size_t *n_lifted)
{
    size_t lifted = 0;
    /* From opset 9 on a Constant holds every type (ox_constant_needs_lifting
     * says no to all), so a large graph is not walked for nothing. */
    for (ox_node *n = opset < 9 ? g->first : NULL, *next; n; n = next) {
        next = n->next;
        if (!ox_constant_needs_lifting(n, opset) || n->n_outputs != 1)
            continue;
        /* the value keeps its id, name and uses; only its producer changes */
        if (ox_constant_node_become_param(g, n) != 0)
            return ox_fail(ctx, OX_ENOMEM, "out of memory lifting a constant into an initializer");
        lifted++;
    }
    if (n_lifted)
        *n_lifted = lifted;
    return OX_OK;
}
