/*
 * The tracer: hosts record inputs, parameters, constants and every executed
 * operator.  Every call validates what crosses the boundary and answers with a
 * status and a message on the context; a failed call leaves the trace usable.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "param_source.h"
#include "strmap.h"

#define OX_MAX_RANK 64

struct ox_trace {
    ox_context *ctx;
    ox_graph *g;
    const char **scopes; /* stack of full scope strings; [0] = model name */
    size_t n_scopes, cap_scopes;
    /* names of inputs/params, for duplicate detection */
    ox_strset names;
};

/*
 * Ids a host holds are offset per trace (ox_graph.host_base): the id of
 * value i is i + slot * 2^20, with slot 1..2047 taken in turn by each new
 * trace of the process.  An id of another live trace then lands 2^20 or
 * more away from this trace's values and is refused as "not produced by
 * this trace" instead of silently naming one of this trace's values (ids
 * were bare indices, valid in every trace with as many values), and so is
 * a small number a host made up.  It holds while both traces have fewer
 * than 2^20 values and fewer than 2047 traces began in between; past that
 * the check is only the range check it was before.  The ids stay plain
 * uint32 values (no ABI change), 0 stays None, and no id wraps to 0: the
 * base is below 2^31 and a graph cannot hold 2^31 values.
 */
#define OX_HOST_SLOT_SHIFT 20
#define OX_HOST_SLOTS 2047u

static uint32_t next_host_base(void)
{
    static _Atomic uint32_t next;
    uint32_t slot = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % OX_HOST_SLOTS + 1;
    return slot << OX_HOST_SLOT_SHIFT;
}

static void trace_release(ox_trace *t)
{
    free(t->scopes);
    ox_strset_free(&t->names);
    free(t);
}

ox_status ox_trace_begin(ox_context *ctx, const char *model_name, ox_trace **out)
{
    if (!ctx)
        return OX_EINVAL;
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_trace_begin: out is NULL");
    *out = NULL;
    if (!model_name || !*model_name)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_trace_begin: model_name is empty; give the model's class name "
                       "(it becomes the root scope, e.g. \"AlexNet\")");
    ox_trace *t = calloc(1, sizeof(*t));
    if (!t)
        return ox_fail(ctx, OX_ENOMEM, "out of memory beginning trace");
    t->ctx = ctx;
    t->g = ox_graph_new(model_name);
    t->cap_scopes = 16;
    t->scopes = malloc(t->cap_scopes * sizeof(*t->scopes));
    if (!t->g || !t->scopes) {
        ox_graph_free(t->g);
        trace_release(t);
        return ox_fail(ctx, OX_ENOMEM, "out of memory beginning trace");
    }
    t->g->host_base = next_host_base();
    t->scopes[0] = t->g->name;
    t->n_scopes = 1;
    *out = t;
    return OX_OK;
}

void ox_trace_abort(ox_trace *t)
{
    if (!t)
        return;
    ox_graph_free(t->g);
    trace_release(t);
}

static ox_status check_type(ox_trace *t, const char *what, ox_dtype dtype, uint32_t rank,
                            const int64_t *sizes, bool sizes_known)
{
    if (ox_dtype_complex((int)dtype))
        return ox_fail(t->ctx, OX_EINVAL, "%s: dtype %s cannot be recorded; record a complex "
                       "tensor in ONNX's float form (a trailing dimension of 2: real, imaginary)",
                       what, ox_dtype_name(dtype));
    if (!ox_dtype_valid((int)dtype))
        return ox_fail(t->ctx, OX_EINVAL, "%s: dtype %d is not an ONNX element type", what,
                       (int)dtype);
    if (rank > OX_MAX_RANK)
        return ox_fail(t->ctx, OX_EINVAL, "%s: rank %u exceeds the maximum %d", what, rank,
                       OX_MAX_RANK);
    if (rank > 0 && !sizes)
        return ox_fail(t->ctx, OX_EINVAL, "%s: rank is %u but sizes is NULL", what, rank);
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] < -1 || (sizes_known && sizes[i] < 0))
            return ox_fail(t->ctx, OX_EINVAL, "%s: size %lld at axis %u is invalid (%s)", what,
                           (long long)sizes[i], i,
                           sizes_known ? "tensor data needs every size >= 0"
                                       : "use -1 for an unknown size");
    }
    return OX_OK;
}

/* Element count, or UINT64_MAX on overflow. */
static uint64_t elem_count(uint32_t rank, const int64_t *sizes)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        uint64_t s = (uint64_t)sizes[i];
        if (s && n > UINT64_MAX / s)
            return UINT64_MAX;
        n *= s;
    }
    return n;
}

static void name_owner(const ox_trace *t, const char *name, char *buf, size_t cap);

static ox_status claim_name(ox_trace *t, const char *what, const char *name)
{
    int r = ox_strset_add(&t->names, name);
    if (r < 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    if (r == 0) {
        /* outputs' names are in the set too: say which value holds it */
        char owner[64];
        name_owner(t, name, owner, sizeof owner);
        return ox_fail(t->ctx, OX_EINVAL,
                       "%s: name \"%s\" is already used in this trace (by %s); names must be "
                       "unique",
                       what, name, owner);
    }
    return OX_OK;
}

ox_status ox_trace_input(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                         const int64_t *sizes, ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    if (!out)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_input: out is NULL");
    ox_status st = check_type(t, "ox_trace_input", dtype, rank, sizes, false);
    if (st != OX_OK)
        return st;
    char *nm = NULL;
    if (name) {
        if (!*name)
            return ox_fail(t->ctx, OX_EINVAL, "ox_trace_input: name is empty (pass NULL to let the exporter number it)");
        if (!(nm = ox_arena_strdup(&t->g->arena, name)))
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        if ((st = claim_name(t, "ox_trace_input", nm)) != OX_OK)
            return st;
    }
    ox_value *v = ox_graph_add_value(t->g, OX_VAL_INPUT, dtype, (int32_t)rank, sizes);
    if (!v || ox_graph_add_input(t->g, v->id) != 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    v->name = nm;
    *out = ox_graph_host_id(t->g, v->id);
    return OX_OK;
}

static ox_status add_tensor_value(ox_trace *t, const char *what, ox_value_kind kind,
                                  const char *name, ox_dtype dtype, uint32_t rank,
                                  const int64_t *sizes, const void *data, ox_ownership own,
                                  ox_vid *out)
{
    if (!out)
        return ox_fail(t->ctx, OX_EINVAL, "%s: out is NULL", what);
    ox_status st = check_type(t, what, dtype, rank, sizes, true);
    if (st != OX_OK)
        return st;
    if (dtype == OX_STRING)
        return ox_fail(t->ctx, OX_EINVAL, "%s: string tensors cannot be recorded as data", what);
    if (own != OX_BORROW && own != OX_COPY)
        return ox_fail(t->ctx, OX_EINVAL, "%s: ownership %d is neither OX_BORROW nor OX_COPY",
                       what, (int)own);
    uint64_t n = elem_count(rank, sizes);
    uint64_t esz = ox_dtype_size(dtype);
    if (n == UINT64_MAX || n > UINT64_MAX / esz)
        return ox_fail(t->ctx, OX_EINVAL, "%s: tensor size overflows", what);
    uint64_t nbytes = n * esz;
    if (nbytes && !data)
        return ox_fail(t->ctx, OX_EINVAL, "%s%s%s%s: data is NULL for a tensor of %llu bytes",
                       what, name ? " \"" : "", name ? name : "", name ? "\"" : "",
                       (unsigned long long)nbytes);
    char *nm = NULL;
    if (name) {
        if (!*name)
            return ox_fail(t->ctx, OX_EINVAL, "%s: name is empty", what);
        if (!(nm = ox_arena_strdup(&t->g->arena, name)))
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        if ((st = claim_name(t, what, nm)) != OX_OK)
            return st;
    }
    ox_value *v = ox_graph_add_value(t->g, kind, dtype, (int32_t)rank, sizes);
    if (!v)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    v->name = nm;
    if (own == OX_COPY) {
        if (ox_tensor_own(t->g, &v->tensor, data, nbytes) != 0)
            return ox_fail(t->ctx, OX_ENOMEM, "%s: out of memory copying %llu bytes", what,
                           (unsigned long long)nbytes);
    } else {
        v->tensor.data = data;
        v->tensor.nbytes = nbytes;
        v->tensor.owned = false;
    }
    if (kind == OX_VAL_PARAM && ox_graph_add_param(t->g, v->id) != 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    *out = ox_graph_host_id(t->g, v->id);
    return OX_OK;
}

ox_status ox_trace_param(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                         const int64_t *sizes, const void *data, ox_ownership own, ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    if (!name || !*name)
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_param: a parameter needs a name (its state_dict key, e.g. "
                       "\"features.0.weight\")");
    return add_tensor_value(t, "ox_trace_param", OX_VAL_PARAM, name, dtype, rank, sizes, data,
                            own, out);
}

/* A parameter whose bytes stay with the host: checked like ox_trace_param's,
 * with `src` (copied) in place of a data pointer.  `length` is the region's
 * declared size (UINT64_MAX for a callback, which has none). */
static ox_status add_source_param(ox_trace *t, const char *what, const char *name,
                                  ox_dtype dtype, uint32_t rank, const int64_t *sizes,
                                  const ox_tensor_source *src, uint64_t length, ox_vid *out)
{
    if (!name || !*name)
        return ox_fail(t->ctx, OX_EINVAL,
                       "%s: a parameter needs a name (its state_dict key, e.g. "
                       "\"features.0.weight\")", what);
    if (!out)
        return ox_fail(t->ctx, OX_EINVAL, "%s(\"%s\"): out is NULL", what, name);
    ox_status st = check_type(t, what, dtype, rank, sizes, true);
    if (st != OX_OK)
        return st;
    if (dtype == OX_STRING)
        return ox_fail(t->ctx, OX_EINVAL, "%s(\"%s\"): string tensors cannot be read as raw "
                       "bytes", what, name);
    uint64_t n = elem_count(rank, sizes);
    uint64_t esz = ox_dtype_size(dtype);
    if (n == UINT64_MAX || n > UINT64_MAX / esz)
        return ox_fail(t->ctx, OX_EINVAL, "%s(\"%s\"): tensor size overflows", what, name);
    uint64_t nbytes = n * esz;
    if (length != UINT64_MAX && length != nbytes)
        return ox_fail(t->ctx, OX_EINVAL,
                       "%s(\"%s\"): the region holds %llu bytes but %s with %llu elements "
                       "needs %llu; give the region of this tensor's bytes",
                       what, name, (unsigned long long)length, ox_dtype_name(dtype),
                       (unsigned long long)n, (unsigned long long)nbytes);
    if (src->kind != OX_SOURCE_CALLBACK && src->offset > UINT64_MAX - nbytes)
        return ox_fail(t->ctx, OX_EINVAL, "%s(\"%s\"): offset + length overflows", what, name);
    if ((st = ox_source_check(t->ctx, what, name, src, nbytes)) != OX_OK)
        return st;
    ox_tensor_source *copy = ox_arena_memdup(&t->g->arena, src, sizeof *src);
    char *nm = ox_arena_strdup(&t->g->arena, name);
    if (!copy || !nm || (src->path && !(copy->path = ox_arena_strdup(&t->g->arena, src->path))))
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    if ((st = claim_name(t, what, nm)) != OX_OK)
        return st;
    ox_value *v = ox_graph_add_value(t->g, OX_VAL_PARAM, dtype, (int32_t)rank, sizes);
    if (!v || ox_graph_add_param(t->g, v->id) != 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    v->name = nm;
    v->tensor.data = NULL;
    v->tensor.nbytes = nbytes;
    v->tensor.owned = false;
    v->source = copy;
    *out = ox_graph_host_id(t->g, v->id);
    return OX_OK;
}

ox_status ox_trace_param_reader(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                                const int64_t *sizes, ox_param_read_fn read, void *user,
                                ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    if (!read)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_param_reader(\"%s\"): read is NULL",
                       name ? name : "");
    ox_tensor_source s = {.kind = OX_SOURCE_CALLBACK, .read = read, .user = user, .fd = -1};
    return add_source_param(t, "ox_trace_param_reader", name, dtype, rank, sizes, &s,
                            UINT64_MAX, out);
}

ox_status ox_trace_param_file(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                              const int64_t *sizes, const char *path, uint64_t offset,
                              uint64_t length, ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    if (!path || !*path)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_param_file(\"%s\"): path is empty",
                       name ? name : "");
    ox_tensor_source s = {.kind = OX_SOURCE_PATH, .path = path, .fd = -1, .offset = offset};
    return add_source_param(t, "ox_trace_param_file", name, dtype, rank, sizes, &s, length, out);
}

ox_status ox_trace_param_fd(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                            const int64_t *sizes, int fd, uint64_t offset, uint64_t length,
                            ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    if (fd < 0)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_param_fd(\"%s\"): fd %d is not open",
                       name ? name : "", fd);
    ox_tensor_source s = {.kind = OX_SOURCE_FD, .fd = fd, .offset = offset};
    return add_source_param(t, "ox_trace_param_fd", name, dtype, rank, sizes, &s, length, out);
}

ox_status ox_trace_const(ox_trace *t, ox_dtype dtype, uint32_t rank, const int64_t *sizes,
                         const void *data, ox_ownership own, ox_vid *out)
{
    if (!t)
        return OX_EINVAL;
    return add_tensor_value(t, "ox_trace_const", OX_VAL_CONST, NULL, dtype, rank, sizes, data,
                            own, out);
}

static bool valid_kind(const char *kind)
{
    const char *sep = strstr(kind, "::");
    return sep && sep != kind && sep[2] != '\0' && !strstr(sep + 2, "::");
}

static ox_status check_vid(ox_trace *t, const char *kind, const char *arg, ox_vid v, bool allow_none)
{
    if (v == 0) {
        if (allow_none)
            return OX_OK;
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_op(%s): argument '%s' refers to value 0; record a missing "
                       "optional tensor with ox_arg_none",
                       kind, arg);
    }
    if (!ox_graph_host_value(t->g, v))
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_op(%s): argument '%s' refers to value %u, which this trace has "
                       "not produced (%u values so far; an id of another trace, or of none)",
                       kind, arg, v, t->g->n_values - 1);
    return OX_OK;
}

static ox_status check_args(ox_trace *t, const char *kind, size_t n_args, const ox_arg *args,
                            size_t *n_tensors)
{
    *n_tensors = 0;
    for (size_t i = 0; i < n_args; i++) {
        const ox_arg *a = &args[i];
        if (!a->name || !*a->name)
            return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): argument %zu has no name", kind, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(args[j].name, a->name) == 0)
                return ox_fail(t->ctx, OX_EINVAL,
                               "ox_trace_op(%s): argument '%s' is recorded twice (positions %zu "
                               "and %zu)",
                               kind, a->name, j, i);
        ox_status st;
        switch (a->kind) {
        case OX_ARG_NONE:
        case OX_ARG_INT:
        case OX_ARG_FLOAT:
            break;
        case OX_ARG_BOOL:
            if (a->u.i != 0 && a->u.i != 1)
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): bool argument '%s' is %lld (expected 0 or 1)",
                               kind, a->name, (long long)a->u.i);
            break;
        case OX_ARG_DTYPE:
            if (!ox_dtype_valid((int)a->u.i))
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): dtype argument '%s' is %lld, %s",
                               kind, a->name, (long long)a->u.i,
                               ox_dtype_complex((int)a->u.i)
                                   ? "a complex type, which ONNX operators do not compute in"
                                   : "not an ONNX element type");
            break;
        case OX_ARG_TENSOR:
            if ((st = check_vid(t, kind, a->name, a->u.tensor, false)) != OX_OK)
                return st;
            (*n_tensors)++;
            break;
        case OX_ARG_TENSOR_LIST:
            if (a->u.tensors.n && !a->u.tensors.data)
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): tensor list '%s' has %zu entries but data is NULL",
                               kind, a->name, a->u.tensors.n);
            for (size_t k = 0; k < a->u.tensors.n; k++)
                if ((st = check_vid(t, kind, a->name, a->u.tensors.data[k], true)) != OX_OK)
                    return st;
            *n_tensors += a->u.tensors.n;
            break;
        case OX_ARG_STRING:
            if (!a->u.s)
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): string argument '%s' is NULL", kind, a->name);
            break;
        case OX_ARG_INTS:
            if (a->u.ints.n && !a->u.ints.data)
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): int list '%s' has %zu entries but data is NULL",
                               kind, a->name, a->u.ints.n);
            break;
        case OX_ARG_FLOATS:
            if (a->u.floats.n && !a->u.floats.data)
                return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): float list '%s' has %zu entries but data is NULL",
                               kind, a->name, a->u.floats.n);
            break;
        default:
            return ox_fail(t->ctx, OX_EINVAL,
                           "ox_trace_op(%s): argument '%s' has kind %d, which cannot be recorded "
                           "(use OX_ARG_NONE..OX_ARG_DTYPE)",
                           kind, a->name, (int)a->kind);
        }
    }
    return OX_OK;
}

ox_status ox_trace_op(ox_trace *t, const char *kind, size_t n_args, const ox_arg *args,
                      size_t n_outputs, const ox_tensor_desc *outputs, ox_vid *out_ids)
{
    if (!t)
        return OX_EINVAL;
    if (!kind || !valid_kind(kind))
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_op: kind \"%s\" is not a qualified operator name like "
                       "\"aten::conv2d\" or \"fn::ConstantPadNd\"",
                       kind ? kind : "(null)");
    if (n_args && !args)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): n_args is %zu but args is NULL", kind, n_args);
    if (n_outputs == 0)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): an operator must produce at least one output", kind);
    if (!outputs || !out_ids)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): outputs and out_ids must not be NULL", kind);
    if (n_args > UINT32_MAX / 2 || n_outputs > UINT32_MAX / 2)
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_op(%s): too many arguments or outputs", kind);
    size_t n_tensors;
    ox_status st = check_args(t, kind, n_args, args, &n_tensors);
    if (st != OX_OK)
        return st;
    for (size_t i = 0; i < n_outputs; i++) {
        char what[96];
        snprintf(what, sizeof what, "ox_trace_op(%.40s): output %zu", kind, i);
        if ((st = check_type(t, what, outputs[i].dtype, outputs[i].rank, outputs[i].sizes, false)) != OX_OK)
            return st;
    }

    ox_graph *g = t->g;
    ox_vid *inputs = NULL;
    if (n_tensors) {
        inputs = ox_arena_alloc(&g->arena, n_tensors * sizeof(*inputs));
        if (!inputs)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    }
    ox_targ *targs = n_args ? ox_arena_alloc(&g->arena, n_args * sizeof(*targs)) : NULL;
    if (n_args && !targs)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n_args; i++) {
        const ox_arg *a = &args[i];
        ox_targ *d = &targs[i];
        d->name = ox_graph_arg_name(g, a->name);
        d->kind = a->kind;
        bool ok = d->name != NULL;
        switch (a->kind) {
        case OX_ARG_TENSOR:
            d->u.tensor = a->u.tensor - g->host_base; /* checked: a value of this trace */
            inputs[k++] = d->u.tensor;
            break;
        case OX_ARG_TENSOR_LIST:
            d->u.tensors.n = a->u.tensors.n;
            if (a->u.tensors.n) {
                ox_vid *ids = ox_arena_memdup(&g->arena, a->u.tensors.data, a->u.tensors.n * sizeof(ox_vid));
                d->u.tensors.p = ids;
                ok = ok && ids;
                for (size_t j = 0; ok && j < a->u.tensors.n; j++) {
                    if (ids[j]) /* 0 is None */
                        ids[j] -= g->host_base;
                    inputs[k++] = ids[j];
                }
            }
            break;
        case OX_ARG_STRING:
            d->u.s = ox_arena_strdup(&g->arena, a->u.s);
            ok = ok && d->u.s;
            break;
        case OX_ARG_INTS:
            d->u.ints.n = a->u.ints.n;
            if (a->u.ints.n) {
                d->u.ints.p = ox_arena_memdup(&g->arena, a->u.ints.data, a->u.ints.n * sizeof(int64_t));
                ok = ok && d->u.ints.p;
            }
            break;
        case OX_ARG_FLOATS:
            d->u.floats.n = a->u.floats.n;
            if (a->u.floats.n) {
                d->u.floats.p = ox_arena_memdup(&g->arena, a->u.floats.data, a->u.floats.n * sizeof(double));
                ok = ok && d->u.floats.p;
            }
            break;
        case OX_ARG_FLOAT:
            d->u.f = a->u.f;
            break;
        default:
            d->u.i = a->u.i;
            break;
        }
        if (!ok)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    }
    ox_node *n = ox_graph_add_node(g, kind, (uint32_t)n_tensors, inputs, (uint32_t)n_outputs);
    if (!n)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    n->args = targs;
    n->n_args = (uint32_t)n_args;
    n->scope = t->scopes[t->n_scopes - 1];
    for (size_t i = 0; i < n_outputs; i++) {
        ox_value *v = ox_graph_value(g, n->outputs[i]);
        if (ox_value_set_type(g, v, outputs[i].dtype, (int32_t)outputs[i].rank, outputs[i].sizes) != 0)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        out_ids[i] = ox_graph_host_id(g, v->id);
    }
    return OX_OK;
}

ox_status ox_trace_push_scope(ox_trace *t, const char *name)
{
    if (!t)
        return OX_EINVAL;
    if (!name || !*name)
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_push_scope: name is empty; use the module's \"Class[attribute]\", "
                       "e.g. \"Conv2d[conv1]\"");
    if (strchr(name, '/'))
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_push_scope(\"%s\"): a scope segment cannot contain '/'; push "
                       "one segment per module", name);
    if (t->n_scopes == t->cap_scopes) {
        size_t ncap = t->cap_scopes * 2;
        const char **ns = realloc(t->scopes, ncap * sizeof(*ns));
        if (!ns)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        t->scopes = ns;
        t->cap_scopes = ncap;
    }
    const char *full = ox_arena_printf(&t->g->arena, "%s/%s", t->scopes[t->n_scopes - 1], name);
    if (!full)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    t->scopes[t->n_scopes++] = full;
    return OX_OK;
}

ox_status ox_trace_pop_scope(ox_trace *t)
{
    if (!t)
        return OX_EINVAL;
    if (t->n_scopes <= 1)
        return ox_fail(t->ctx, OX_ESTATE,
                       "ox_trace_pop_scope: no scope is pushed (every pop needs an earlier push)");
    t->n_scopes--;
    return OX_OK;
}

/* What already holds `name` in this trace, for a message: "input 0",
 * "parameter 3", "output 1" (a scan, on the error path only). */
static void name_owner(const ox_trace *t, const char *name, char *buf, size_t cap)
{
    const ox_graph *g = t->g;
    const struct { const char *what; const ox_vid *ids; uint32_t n; } lists[] = {
        {"input", g->inputs, g->n_inputs},
        {"parameter", g->params, g->n_params},
        {"output", g->outputs, g->n_outputs},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (uint32_t i = 0; i < lists[l].n; i++) {
            const ox_value *x = g->values[lists[l].ids[i]];
            if (x->name && strcmp(x->name, name) == 0) {
                snprintf(buf, cap, "%s %u", lists[l].what, i);
                return;
            }
        }
    snprintf(buf, cap, "another value");
}

ox_status ox_trace_fixed_values(ox_trace *t, size_t n, const ox_vid *values, const char *warning)
{
    if (!t)
        return OX_EINVAL;
    if (!warning || !*warning || strchr(warning, '\n'))
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_fixed_values: the warning must be one "
                                          "non-empty line");
    if (n > UINT32_MAX || (n && !values))
        return ox_fail(t->ctx, OX_EINVAL, "ox_trace_fixed_values: %zu values at %p", n,
                       (const void *)values);
    ox_vid *ids = n ? malloc(n * sizeof *ids) : NULL;
    if (n && !ids)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const ox_value *v = ox_graph_host_value(t->g, values[i]);
        if (!v) {
            free(ids);
            return ox_fail(t->ctx, OX_EINVAL,
                           "ox_trace_fixed_values: value %u was not produced by this trace",
                           values[i]);
        }
        ids[i] = v->id;
    }
    int r = ox_graph_add_observed(t->g, ids, (uint32_t)n, warning);
    free(ids);
    if (r != 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    return OX_OK;
}

/*
 * A named output must carry its own name into the file.  An unnamed node
 * value simply takes it.  A value that already has a name of its own (a
 * graph input, a parameter, an earlier output) or is a constant gets an
 * onnx::Identity, as torch.onnx inserts one where an output is an input:
 * the Identity's output is the graph output and carries the name, and the
 * input, parameter or earlier output keeps its own.
 */
ox_status ox_trace_output(ox_trace *t, ox_vid v, const char *name)
{
    if (!t)
        return OX_EINVAL;
    ox_value *val = ox_graph_host_value(t->g, v);
    if (!val)
        return ox_fail(t->ctx, OX_EINVAL,
                       "ox_trace_output: value %u was not produced by this trace", v);
    if (name && *name) {
        if (ox_strset_has(&t->names, name)) {
            char owner[64];
            name_owner(t, name, owner, sizeof owner);
            return ox_fail(t->ctx, OX_EINVAL,
                           "ox_trace_output: name \"%s\" is already used in this trace (by %s); "
                           "give output %u a name of its own",
                           name, owner, t->g->n_outputs);
        }
        char *nm = ox_arena_strdup(&t->g->arena, name);
        if (!nm)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        if (val->kind != OX_VAL_NODE || val->name || val->is_output) {
            /* the Identity at the root scope, as convert.c's map_outputs
             * places its own */
            ox_arg in = ox_arg_tensor("input", v);
            ox_tensor_desc d = {val->type.dtype, (uint32_t)val->type.rank, val->type.dims};
            ox_vid id;
            ox_status st = ox_trace_op(t, "onnx::Identity", 1, &in, 1, &d, &id);
            if (st != OX_OK)
                return st;
            t->g->last->scope = t->scopes[0];
            val = ox_graph_host_value(t->g, id);
        }
        if (ox_strset_add(&t->names, nm) < 0)
            return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
        val->name = nm;
    }
    if (ox_graph_add_output(t->g, val->id) != 0)
        return ox_fail(t->ctx, OX_ENOMEM, "out of memory");
    return OX_OK;
}

ox_status ox_trace_finish(ox_trace *t, ox_graph **out)
{
    if (!t)
        return OX_EINVAL;
    ox_context *ctx = t->ctx;
    if (!out) {
        ox_trace_abort(t);
        return ox_fail(ctx, OX_EINVAL, "ox_trace_finish: out is NULL (the trace was freed)");
    }
    *out = NULL;
    if (t->n_scopes > 1) {
        size_t open = t->n_scopes - 1;
        const char *inner = t->scopes[t->n_scopes - 1];
        ox_status st = ox_fail(ctx, OX_ESTATE,
                               "ox_trace_finish: %zu scope(s) still pushed (innermost: %s); "
                               "every push needs a pop",
                               open, inner);
        ox_trace_abort(t);
        return st;
    }
    if (t->g->n_outputs == 0) {
        ox_trace_abort(t);
        return ox_fail(ctx, OX_ESTATE,
                       "ox_trace_finish: no graph output was marked; call ox_trace_output for "
                       "each model output");
    }
    t->g->is_trace = true;
    *out = t->g;
    trace_release(t);
    return OX_OK;
}
