/*
 * Constant folding (torch.onnx's do_constant_folding): a node whose inputs
 * are all onnx::Constant outputs becomes a Constant holding its result.
 *
 * Only small constant tensors are folded (shape arithmetic, index lists):
 * parameters stay initializers, because folding through them would copy the
 * host's weights, which the engine never does.  Operators folded here are the
 * ones symbolics build from constants and sizes: data-preserving reshapes
 * (Identity, Reshape, Unsqueeze, Squeeze), Cast between numeric types and
 * bool, Concat, Gather, Slice of a rank-1 tensor, elementwise
 * Add/Sub/Mul/Div/Neg and comparisons on int64, And/Or/Xor/Not on bool.
 * Anything else is left alone, and so is a result that is not defined
 * (a division by zero, an overflow, an index out of range): the runtime
 * reports those.
 *
 * A Shape or Size whose input's shape the file fixes (no dynamic axis
 * reaches it, static_shapes.c) is a constant too, so the size arithmetic
 * recorded from Python folds away when nothing is dynamic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "static_shapes.h"

/* Folded results larger than this stay computed at run time. */
#define FOLD_MAX_BYTES 65536u

static const ox_attr_tensor *const_of(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    /* the op_type's first letter first: the fold asks this of most nodes'
     * inputs, and few are constants */
    if (!x || !x->producer || x->producer->op_type[0] != 'C' ||
        strcmp(x->producer->kind, "onnx::Constant") != 0)
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
    return ox_node_become_constant_copy(g, n, dtype, rank, dims, data, nbytes);
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
    return t == OX_INT64 || t == OX_INT32 || t == OX_FLOAT || t == OX_DOUBLE || t == OX_BOOL;
}

/* One element of a Cast, exact for integers; false when the value has no
 * representation in t (out of an integer type's range, NaN to an integer),
 * where the run-time result is the runtime's business, not the folder's. */
static bool cast_elem(ox_dtype from, const unsigned char *src, ox_dtype to, unsigned char *dst)
{
    ox_elem e;
    if (!ox_elem_decode(from, src, &e))
        return false;
    if (to == OX_BOOL) {
        dst[0] = e.kind == OX_ELEM_FLOAT ? e.v.f != 0
                 : e.kind == OX_ELEM_INT ? e.v.i != 0
                                         : e.v.u != 0;
        return true;
    }
    if (to == OX_FLOAT || to == OX_DOUBLE) {
        double d = e.kind == OX_ELEM_FLOAT ? e.v.f : e.kind == OX_ELEM_INT ? (double)e.v.i
                                                                           : (double)e.v.u;
        return ox_elem_store(to, d, dst);
    }
    int64_t i;
    if (e.kind == OX_ELEM_INT) {
        i = e.v.i;
    } else if (e.kind == OX_ELEM_UINT) {
        if (e.v.u > (uint64_t)INT64_MAX)
            return false;
        i = (int64_t)e.v.u;
    } else {
        /* float to integer truncates toward zero; 2^63 itself is out of range */
        if (!(e.v.f >= -9223372036854775808.0 && e.v.f < 9223372036854775808.0))
            return false;
        i = (int64_t)e.v.f;
    }
    if (to == OX_INT32) {
        if (i < INT32_MIN || i > INT32_MAX)
            return false;
        int32_t v = (int32_t)i;
        memcpy(dst, &v, sizeof v);
        return true;
    }
    memcpy(dst, &i, sizeof i);
    return true;
}

/* Gather(data, indices, axis) on constants: rows of data picked by index. */
static int fold_gather(ox_graph *g, ox_node *n, const ox_attr_tensor *x, const ox_attr_tensor *idx)
{
    size_t es = ox_dtype_size(x->dtype);
    if (x->dtype == OX_STRING || es == 0 || x->rank == 0 ||
        (idx->dtype != OX_INT64 && idx->dtype != OX_INT32) ||
        x->rank + idx->rank > OX_FOLD_MAX_RANK + 1)
        return 0;
    const ox_attr *a = ox_node_attr(n, "axis");
    int64_t axis = a && a->kind == OX_ATTR_INT ? norm_axis(a->u.i, x->rank) : 0;
    if (axis < 0 || axis >= (int64_t)x->rank)
        return 0;
    uint64_t outer = count_of((uint32_t)axis, x->dims);
    uint64_t inner = count_of(x->rank - (uint32_t)axis - 1, x->dims + axis + 1) * es;
    uint64_t n_idx = count_of(idx->rank, idx->dims), along = (uint64_t)x->dims[axis];
    uint64_t total = outer * n_idx * inner;
    if (total > FOLD_MAX_BYTES || x->data.nbytes != outer * along * inner)
        return 0;
    unsigned char *buf = malloc(total + 1);
    if (!buf)
        return -1;
    const unsigned char *src = x->data.data;
    for (uint64_t j = 0; j < n_idx; j++) {
        int64_t k;
        if (idx->dtype == OX_INT64) {
            memcpy(&k, (const unsigned char *)idx->data.data + j * 8, 8);
        } else {
            int32_t k32;
            memcpy(&k32, (const unsigned char *)idx->data.data + j * 4, 4);
            k = k32;
        }
        if (k < 0)
            k += (int64_t)along;
        if (k < 0 || (uint64_t)k >= along) { /* out of range: the runtime reports it */
            free(buf);
            return 0;
        }
        for (uint64_t o = 0; o < outer; o++)
            memcpy(buf + (o * n_idx + j) * inner, src + (o * along + (uint64_t)k) * inner, inner);
    }
    int64_t dims[2 * OX_FOLD_MAX_RANK];
    uint32_t r = 0;
    for (int64_t i = 0; i < axis; i++)
        dims[r++] = x->dims[i];
    for (uint32_t i = 0; i < idx->rank; i++)
        dims[r++] = idx->dims[i];
    for (uint32_t i = (uint32_t)axis + 1; i < x->rank; i++)
        dims[r++] = x->dims[i];
    int rc = become_constant(g, n, x->dtype, r, dims, buf, total);
    free(buf);
    return rc ? -1 : 1;
}

/* Slice of a rank-1 constant with constant starts/ends (and axes, steps):
 * the shape pieces `x.shape[1:]` makes. */
static int fold_slice(ox_graph *g, ox_node *n, const ox_attr_tensor *const *in)
{
    const ox_attr_tensor *x = in[0];
    size_t es = ox_dtype_size(x->dtype);
    if (x->rank != 1 || x->dtype == OX_STRING || es == 0)
        return 0;
    int64_t start, end, step = 1;
    if (n->n_inputs == 1) { /* opset < 10: attributes */
        const ox_attr *s = ox_node_attr(n, "starts"), *e = ox_node_attr(n, "ends");
        const ox_attr *ax = ox_node_attr(n, "axes");
        if (!s || !e || s->kind != OX_ATTR_INTS || e->kind != OX_ATTR_INTS || s->u.ints.n != 1 ||
            e->u.ints.n != 1 || (ax && (ax->kind != OX_ATTR_INTS || ax->u.ints.n != 1 ||
                                        norm_axis(ax->u.ints.p[0], 1) != 0)))
            return 0;
        start = s->u.ints.p[0];
        end = e->u.ints.p[0];
    } else {
        if (n->n_inputs < 3)
            return 0;
        int64_t v[4] = {0, 0, 0, 1};
        for (uint32_t i = 1; i < n->n_inputs && i <= 4; i++) {
            const ox_attr_tensor *t = in[i];
            if (t->dtype != OX_INT64 || count_of(t->rank, t->dims) != 1)
                return 0;
            memcpy(&v[i - 1], t->data.data, sizeof(int64_t));
        }
        if (n->n_inputs >= 4 && norm_axis(v[2], 1) != 0)
            return 0;
        start = v[0];
        end = v[1];
        step = v[3];
    }
    int64_t len = x->dims[0];
    if (step == 0)
        return 0;
    /* ONNX's clamping: negative from the end, then into [0, len] ([-1, len-1] stepping back) */
    if (start < 0)
        start = start < -len ? 0 : start + len;
    if (end < 0)
        end = end < -len ? (step > 0 ? 0 : -1) : end + len;
    if (step > 0) {
        start = start > len ? len : start;
        end = end > len ? len : end;
    } else {
        start = start > len - 1 ? len - 1 : start;
        end = end > len - 1 ? len - 1 : end;
    }
    unsigned char out[FOLD_MAX_BYTES];
    int64_t k = 0;
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step) {
        if ((uint64_t)(k + 1) * es > sizeof out)
            return 0;
        memcpy(out + (uint64_t)k * es, (const unsigned char *)x->data.data + (uint64_t)i * es, es);
        k++;
    }
    return become_constant(g, n, x->dtype, 1, &k, out, (uint64_t)k * es) ? -1 : 1;
}

/* Elementwise ops on int64 (arithmetic, comparisons) and bool (logic). */
typedef enum { EW_NONE, EW_ADD, EW_SUB, EW_MUL, EW_DIV, EW_NEG, EW_EQ, EW_LT, EW_GT, EW_LE,
               EW_GE, EW_AND, EW_OR, EW_XOR, EW_NOT } ew_op;

static ew_op ew_of(const char *op)
{
    static const struct { const char *name; ew_op op; } t[] = {
        {"Add", EW_ADD}, {"Sub", EW_SUB}, {"Mul", EW_MUL}, {"Div", EW_DIV}, {"Neg", EW_NEG},
        {"Equal", EW_EQ}, {"Less", EW_LT}, {"Greater", EW_GT}, {"LessOrEqual", EW_LE},
        {"GreaterOrEqual", EW_GE}, {"And", EW_AND}, {"Or", EW_OR}, {"Xor", EW_XOR},
        {"Not", EW_NOT},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(op, t[i].name) == 0)
            return t[i].op;
    return EW_NONE;
}

/* One element; false when the result is not defined (division by zero,
 * overflow), which is then left to run time. */
static bool ew_apply(ew_op op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case EW_ADD: return !__builtin_add_overflow(a, b, out);
    case EW_SUB: return !__builtin_sub_overflow(a, b, out);
    case EW_MUL: return !__builtin_mul_overflow(a, b, out);
    case EW_NEG: return !__builtin_sub_overflow((int64_t)0, a, out);
    case EW_DIV: /* integer Div truncates toward zero, as C's does */
        if (b == 0 || (a == INT64_MIN && b == -1))
            return false;
        *out = a / b;
        return true;
    case EW_EQ: *out = a == b; return true;
    case EW_LT: *out = a < b; return true;
    case EW_GT: *out = a > b; return true;
    case EW_LE: *out = a <= b; return true;
    case EW_GE: *out = a >= b; return true;
    case EW_AND: *out = a && b; return true;
    case EW_OR: *out = a || b; return true;
    case EW_XOR: *out = !a != !b; return true;
    case EW_NOT: *out = !a; return true;
    case EW_NONE: break;
    }
    return false;
}

static int fold_elementwise(ox_graph *g, ox_node *n, ew_op op, const ox_attr_tensor *x,
                            const ox_attr_tensor *y)
{
    bool unary = op == EW_NEG || op == EW_NOT;
    bool logic = op == EW_AND || op == EW_OR || op == EW_XOR || op == EW_NOT;
    bool compare = op == EW_EQ || op == EW_LT || op == EW_GT || op == EW_LE || op == EW_GE;
    if (unary != (n->n_inputs == 1))
        return 0;
    if (unary)
        y = x;
    ox_dtype in_t = logic ? OX_BOOL : OX_INT64;
    if (op == EW_EQ && x->dtype == OX_BOOL)
        in_t = OX_BOOL;
    if (x->dtype != in_t || y->dtype != in_t)
        return 0;
    ox_dtype out_t = logic || compare ? OX_BOOL : OX_INT64;
    /* same shapes, or one side a single element */
    uint64_t cx = count_of(x->rank, x->dims), cy = count_of(y->rank, y->dims);
    const ox_attr_tensor *shape = cx >= cy ? x : y;
    if (!unary && cx != cy) {
        if (cx != 1 && cy != 1)
            return 0;
        if (x->rank != y->rank && (cx == 1 ? x->rank : y->rank) != 0)
            return 0;
    } else if (!unary && (x->rank != y->rank ||
                          (x->rank && memcmp(x->dims, y->dims, x->rank * sizeof(int64_t)) != 0))) {
        return 0;
    }
    uint64_t cnt = cx >= cy ? cx : cy;
    size_t ies = ox_dtype_size(in_t), oes = ox_dtype_size(out_t);
    unsigned char *buf = malloc(cnt * oes + 1);
    if (!buf)
        return -1;
    const unsigned char *a = x->data.data, *b = y->data.data;
    for (uint64_t i = 0; i < cnt; i++) {
        int64_t va, vb, r;
        if (in_t == OX_BOOL) {
            va = a[cx == 1 ? 0 : i] != 0;
            vb = b[cy == 1 ? 0 : i] != 0;
        } else {
            memcpy(&va, a + (cx == 1 ? 0 : i) * ies, sizeof va);
            memcpy(&vb, b + (cy == 1 ? 0 : i) * ies, sizeof vb);
        }
        if (!ew_apply(op, va, vb, &r)) {
            free(buf);
            return 0;
        }
        if (out_t == OX_BOOL)
            buf[i] = r != 0;
        else
            memcpy(buf + i * oes, &r, sizeof r);
    }
    int rc = become_constant(g, n, out_t, shape->rank, shape->dims, buf, cnt * oes);
    free(buf);
    return rc ? -1 : 1;
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
            if (!cast_elem(x->dtype, src + i * in_size, t, (unsigned char *)buf + i * out_size)) {
                free(buf);
                return 0;
            }
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

    if (strcmp(op, "Gather") == 0 && n->n_inputs == 2)
        return fold_gather(g, n, x, in[1]);
    if (strcmp(op, "Slice") == 0)
        return fold_slice(g, n, in);
    ew_op ew = ew_of(op);
    if (ew != EW_NONE && n->n_inputs <= 2)
        return fold_elementwise(g, n, ew, x, n->n_inputs == 2 ? in[1] : NULL);
    return 0;
}

ox_status ox_pass_fold_constants_keeping_shapes(ox_context *ctx, ox_graph *g, size_t *n_folded,
                                                ox_static_shapes *shapes)
{
    size_t folded = 0;
    if (ox_static_shapes_init(g, shapes) != 0)
        return ox_fail(ctx, OX_ENOMEM, "constant folding: out of memory");
    /* Nodes are in topological order, so one sweep folds whole chains: a
     * Shape of a fixed shape becomes a constant, then what reads it. */
    for (ox_node *n = g->first; n; n = n->next) {
        int r = ox_static_shapes_fold(g, shapes, n);
        if (r == 0)
            r = fold_node(g, n);
        if (r < 0) {
            ox_static_shapes_free(shapes);
            return ox_fail(ctx, OX_ENOMEM, "constant folding: out of memory at node %s",
                           n->name ? n->name : n->op_type);
        }
        folded += (size_t)r;
        ox_static_shapes_note(g, shapes, n);
    }
    if (n_folded)
        *n_folded = folded;
    return OX_OK;
}

ox_status ox_pass_fold_constants(ox_context *ctx, ox_graph *g, size_t *n_folded)
{
    ox_static_shapes shapes;
    ox_status st = ox_pass_fold_constants_keeping_shapes(ctx, g, n_folded, &shapes);
    if (st == OX_OK)
        ox_static_shapes_free(&shapes);
    return st;
}
