/*
 * Constant folding (torch.onnx's do_constant_folding): a node whose inputs
 * are all onnx::Constant outputs becomes a Constant holding its result.
 *
 * Only small constant tensors are folded (shape arithmetic, index lists):
 * parameters stay initializers, because folding through them would copy the
 * host's weights, which the engine never does.  Operators folded here are the
 * ones symbolics build from constants: data-preserving reshapes (Identity,
 * Reshape, Unsqueeze, Squeeze, Flatten), Cast between numeric types, Concat,
 * and elementwise Add/Sub/Mul/Neg on int64.  Anything else is left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

/* Folded results larger than this stay computed at run time. */
#define FOLD_MAX_BYTES 65536u

static const ox_attr_tensor *const_of(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    if (!x || !x->producer || strcmp(x->producer->kind, "onnx::Constant") != 0)
        return NULL;
    const ox_attr *a = ox_node_attr(x->producer, "value");
    if (!a || a->kind != OX_ATTR_TENSOR || !a->u.t)
        return NULL;
    const ox_attr_tensor *t = a->u.t;
    if (t->data.nbytes > FOLD_MAX_BYTES || (t->data.nbytes && !t->data.data))
        return NULL;
    return t;
}

static uint64_t count_of(uint32_t rank, const int64_t *dims)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= (uint64_t)(dims[i] < 0 ? 0 : dims[i]);
    return n;
}

/* Turn node n into a Constant with the given result; its inputs lose a use. */
static int become_constant(ox_graph *g, ox_node *n, ox_dtype dtype, uint32_t rank,
                           const int64_t *dims, const void *data, uint64_t nbytes)
{
    ox_attr_tensor *t = ox_arena_alloc(&g->arena, sizeof(*t));
    int64_t *d = rank ? ox_arena_memdup(&g->arena, dims, rank * sizeof(int64_t)) : NULL;
    void *bytes = nbytes ? ox_arena_memdup(&g->arena, data, nbytes) : ox_arena_alloc(&g->arena, 1);
    if (!t || (rank && !d) || !bytes)
        return -1;
    t->dtype = dtype;
    t->rank = rank;
    t->dims = d;
    t->data.data = bytes;
    t->data.nbytes = nbytes;
    t->data.owned = true;
    return ox_node_become_constant(g, n, t);
}

static int64_t norm_axis(int64_t axis, int64_t rank)
{
    return axis < 0 ? axis + rank : axis;
}

/* Axes from the attribute (opset < 13) or the second input (>= 13). */
static size_t axes_of(const ox_graph *g, const ox_node *n, const int64_t **out)
{
    const ox_attr *a = ox_node_attr(n, "axes");
    if (a && a->kind == OX_ATTR_INTS) {
        *out = a->u.ints.p;
        return a->u.ints.n;
    }
    if (n->n_inputs >= 2) {
        const ox_attr_tensor *t = const_of(g, n->inputs[1]);
        if (t && t->dtype == OX_INT64) {
            *out = t->data.data;
            return (size_t)count_of(t->rank, t->dims);
        }
    }
    *out = NULL;
    return 0;
}

/* New dims for the data-preserving ops; returns the rank or -1 to skip. */
static int reshaped_dims(const ox_graph *g, const ox_node *n, const ox_attr_tensor *x,
                         int64_t *dims)
{
    const char *op = n->op_type;
    int64_t r = x->rank;
    if (strcmp(op, "Identity") == 0) {
        if (r)
            memcpy(dims, x->dims, (size_t)r * sizeof(int64_t));
        return (int)r;
    }
    if (strcmp(op, "Unsqueeze") == 0) {
        const int64_t *axes;
        size_t na = axes_of(g, n, &axes);
        int64_t out_r = r + (int64_t)na;
        if (!axes || out_r > OX_FOLD_MAX_RANK)
            return -1;
        bool mark[OX_FOLD_MAX_RANK] = {false};
        for (size_t i = 0; i < na; i++) {
            int64_t ax = norm_axis(axes[i], out_r);
            if (ax < 0 || ax >= out_r || mark[ax])
                return -1;
            mark[ax] = true;
        }
        for (int64_t i = 0, k = 0; i < out_r; i++)
            dims[i] = mark[i] ? 1 : x->dims[k++];
        return (int)out_r;
    }
    if (strcmp(op, "Squeeze") == 0) {
        const int64_t *axes;
        size_t na = axes_of(g, n, &axes);
        bool drop[OX_FOLD_MAX_RANK] = {false};
        for (size_t i = 0; i < na; i++) {
            int64_t ax = norm_axis(axes[i], r);
            if (ax < 0 || ax >= r || x->dims[ax] != 1)
                return -1;
            drop[ax] = true;
        }
        int k = 0;
        for (int64_t i = 0; i < r; i++)
            if (!(na ? drop[i] : x->dims[i] == 1))
                dims[k++] = x->dims[i];
        return k;
    }
    if (strcmp(op, "Reshape") == 0 && n->n_inputs == 2) {
        const ox_attr_tensor *s = const_of(g, n->inputs[1]);
        if (!s || s->dtype != OX_INT64 || s->rank != 1 || s->dims[0] > OX_FOLD_MAX_RANK)
            return -1;
        const int64_t *want = s->data.data;
        int64_t out_r = s->dims[0], known = 1, infer = -1;
        for (int64_t i = 0; i < out_r; i++) {
            int64_t d = want[i] == 0 && i < r ? x->dims[i] : want[i];
            if (d == -1) {
                if (infer >= 0)
                    return -1;
                infer = i;
            } else if (d < 0) {
                return -1;
            } else {
                known *= d;
            }
            dims[i] = d;
        }
        uint64_t total = count_of(x->rank, x->dims);
        if (infer >= 0) {
            if (known == 0 || total % (uint64_t)known)
                return -1;
            dims[infer] = (int64_t)(total / (uint64_t)known);
        } else if ((uint64_t)known != total) {
            return -1;
        }
        return (int)out_r;
    }
    return -1;
}

static bool cast_supported(ox_dtype t)
{
    return t == OX_INT64 || t == OX_INT32 || t == OX_FLOAT || t == OX_DOUBLE;
}

/* Try to fold one node; 1 folded, 0 left alone, -1 out of memory. */
static int fold_node(ox_graph *g, ox_node *n)
{
    if (n->domain[0] != '\0' || n->n_outputs != 1 || n->n_inputs == 0)
        return 0;
    const ox_attr_tensor *in[8];
    if (n->n_inputs > 8)
        return 0;
    for (uint32_t i = 0; i < n->n_inputs; i++)
        if (!(in[i] = const_of(g, n->inputs[i])))
            return 0;
    const ox_attr_tensor *x = in[0];
    if (x->rank > OX_FOLD_MAX_RANK)
        return 0;
    const char *op = n->op_type;
    int64_t dims[OX_FOLD_MAX_RANK];

    int r = reshaped_dims(g, n, x, dims);
    if (r >= 0)
        return become_constant(g, n, x->dtype, (uint32_t)r, dims, x->data.data, x->data.nbytes)
                   ? -1 : 1;

    if (strcmp(op, "Cast") == 0) {
        const ox_attr *to = ox_node_attr(n, "to");
        if (!to || to->kind != OX_ATTR_INT || !cast_supported(x->dtype) ||
            !cast_supported((ox_dtype)to->u.i))
            return 0;
        ox_dtype t = (ox_dtype)to->u.i;
        uint64_t cnt = count_of(x->rank, x->dims);
        void *buf = malloc(cnt * ox_dtype_size(t) + 1);
        if (!buf)
            return -1;
        size_t in_size = ox_dtype_size(x->dtype), out_size = ox_dtype_size(t);
        const unsigned char *src = x->data.data;
        for (uint64_t i = 0; i < cnt; i++)
            ox_elem_store(t, ox_elem_load(x->dtype, src + i * in_size, NULL),
                          (unsigned char *)buf + i * out_size);
        int rc = become_constant(g, n, t, x->rank, x->dims, buf, cnt * ox_dtype_size(t));
        free(buf);
        return rc ? -1 : 1;
    }

    if (strcmp(op, "Concat") == 0) {
        /* along axis 0 only: the parts are then contiguous byte ranges */
        const ox_attr *axis = ox_node_attr(n, "axis");
        if (!axis || axis->kind != OX_ATTR_INT || x->rank == 0 ||
            norm_axis(axis->u.i, x->rank) != 0)
            return 0;
        uint64_t total = 0;
        int64_t rows = 0;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            if (in[i]->dtype != x->dtype || in[i]->rank != x->rank)
                return 0;
            for (uint32_t d = 1; d < x->rank; d++)
                if (in[i]->dims[d] != x->dims[d])
                    return 0;
            total += in[i]->data.nbytes;
            rows += in[i]->dims[0];
        }
        if (total > FOLD_MAX_BYTES)
            return 0;
        unsigned char *buf = malloc(total + 1);
        if (!buf)
            return -1;
        uint64_t off = 0;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            if (in[i]->data.nbytes)
                memcpy(buf + off, in[i]->data.data, in[i]->data.nbytes);
            off += in[i]->data.nbytes;
        }
        memcpy(dims, x->dims, x->rank * sizeof(int64_t));
        dims[0] = rows;
        int rc = become_constant(g, n, x->dtype, x->rank, dims, buf, total);
        free(buf);
        return rc ? -1 : 1;
    }

    bool neg = strcmp(op, "Neg") == 0;
    bool binary = strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0 || strcmp(op, "Mul") == 0;
    if ((neg && n->n_inputs == 1) || (binary && n->n_inputs == 2)) {
        /* int64 shape arithmetic: same shapes, or one side a single element */
        const ox_attr_tensor *y = binary ? in[1] : x;
        if (x->dtype != OX_INT64 || y->dtype != OX_INT64)
            return 0;
        uint64_t cx = count_of(x->rank, x->dims), cy = count_of(y->rank, y->dims);
        const ox_attr_tensor *shape = cx >= cy ? x : y;
        if (binary && cx != cy) {
            if (cx != 1 && cy != 1)
                return 0;
            if (x->rank != y->rank && (cx == 1 ? x->rank : y->rank) != 0)
                return 0;
        } else if (binary && (x->rank != y->rank ||
                              (x->rank && memcmp(x->dims, y->dims,
                                                 x->rank * sizeof(int64_t)) != 0))) {
            return 0;
        }
        uint64_t cnt = cx >= cy ? cx : cy;
        int64_t *buf = malloc(cnt * sizeof(int64_t) + 1);
        if (!buf)
            return -1;
        const int64_t *a = x->data.data, *b = y->data.data;
        for (uint64_t i = 0; i < cnt; i++) {
            int64_t va = a[cx == 1 ? 0 : i], vb = b[cy == 1 ? 0 : i];
            buf[i] = neg ? -va : op[0] == 'A' ? va + vb : op[0] == 'S' ? va - vb : va * vb;
        }
        int rc = become_constant(g, n, OX_INT64, shape->rank, shape->dims, buf,
                                 cnt * sizeof(int64_t));
        free(buf);
        return rc ? -1 : 1;
    }
    return 0;
}

ox_status ox_pass_fold_constants(ox_context *ctx, ox_graph *g, size_t *n_folded)
{
    size_t folded = 0;
    /* Nodes are in topological order, so one sweep folds whole chains. */
    for (ox_node *n = g->first; n; n = n->next) {
        int r = fold_node(g, n);
        if (r < 0)
            return ox_fail(ctx, OX_ENOMEM, "constant folding: out of memory at node %s",
                           n->name ? n->name : n->op_type);
        folded += (size_t)r;
    }
    if (n_folded)
        *n_folded = folded;
    return OX_OK;
}
