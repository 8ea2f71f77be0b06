/*
 * Tensor lifetime and trace recording for the C reference host.
 */
#include "runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hc_rt_init(hc_rt *rt, ox_context *ctx, ox_trace *trace)
{
    memset(rt, 0, sizeof *rt);
    rt->ctx = ctx;
    rt->trace = trace;
    rt->status = OX_OK;
}

void hc_rt_release(hc_rt *rt)
{
    hc_tensor *t = rt->temps;
    while (t) {
        hc_tensor *next = t->next;
        if (t->flags & HC_OWNS_DATA)
            free(t->data);
        free(t);
        t = next;
    }
    rt->temps = NULL;
    rt->bytes_live = 0;
    free(rt->scratch);
    rt->scratch = NULL;
    rt->scratch_size = 0;
}

void *hc_scratch(hc_rt *rt, size_t bytes)
{
    if (bytes <= rt->scratch_size)
        return rt->scratch;
    free(rt->scratch);
    rt->scratch = malloc(bytes);
    rt->scratch_size = rt->scratch ? bytes : 0;
    if (!rt->scratch)
        hc_fail(rt, OX_ENOMEM, "out of memory for a kernel work buffer");
    return rt->scratch;
}

size_t hc_dtype_size(ox_dtype dt)
{
    switch (dt) {
    case OX_INT64:
    case OX_DOUBLE:
        return 8;
    case OX_FLOAT:
    case OX_INT32:
        return 4;
    case OX_FLOAT16:
        return 2;
    default:
        return 1;
    }
}

int64_t hc_numel(const hc_tensor *t)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n *= t->sizes[i];
    return n;
}

void hc_fail(hc_rt *rt, ox_status st, const char *what)
{
    if (rt->status != OX_OK)
        return;
    rt->status = st;
    const char *why = rt->ctx ? ox_errmsg(rt->ctx) : ox_strerror(st);
    if (why && why[0])
        snprintf(rt->errmsg, sizeof rt->errmsg, "%s: %s", what, why);
    else /* the host's own failure: the engine has nothing to add */
        snprintf(rt->errmsg, sizeof rt->errmsg, "%s", what);
}

static hc_tensor *link_new(hc_rt *rt, ox_dtype dt, uint32_t rank, const int64_t *sizes)
{
    hc_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        hc_fail(rt, OX_ENOMEM, "out of memory allocating a tensor");
        return NULL;
    }
    if (rank > HC_MAX_RANK)
        rank = HC_MAX_RANK;
    t->dtype = dt;
    t->rank = rank;
    if (rank)
        memcpy(t->sizes, sizes, rank * sizeof *sizes);
    t->flags = HC_ON_LIST;
    t->next = rt->temps;
    rt->temps = t;
    return t;
}

hc_tensor *hc_new(hc_rt *rt, ox_dtype dt, uint32_t rank, const int64_t *sizes)
{
    hc_tensor *t = link_new(rt, dt, rank, sizes);
    if (!t)
        return NULL;
    if (rt->shape_only)
        return t; /* a type without bytes */
    size_t bytes = (size_t)hc_numel(t) * hc_dtype_size(dt);
    t->data = calloc(bytes ? bytes : 1, 1);
    if (!t->data) {
        rt->status = OX_OK; /* let hc_fail record this one */
        char what[96];
        snprintf(what, sizeof what, "out of memory allocating %zu bytes of tensor data", bytes);
        hc_fail(rt, OX_ENOMEM, what);
        return NULL;
    }
    t->flags |= HC_OWNS_DATA;
    rt->bytes_live += bytes;
    if (rt->bytes_live > rt->bytes_peak)
        rt->bytes_peak = rt->bytes_live;
    return t;
}

hc_tensor *hc_alias(hc_rt *rt, const hc_tensor *x, uint32_t rank, const int64_t *sizes)
{
    hc_tensor *t = link_new(rt, x->dtype, rank, sizes);
    if (t)
        t->data = x->data;
    return t;
}

void hc_drop(hc_rt *rt, hc_tensor *t)
{
    if (!t || !(t->flags & HC_OWNS_DATA))
        return;
    rt->bytes_live -= (size_t)hc_numel(t) * hc_dtype_size(t->dtype);
    free(t->data);
    t->data = NULL;
    t->flags &= ~HC_OWNS_DATA;
}

void hc_tensor_set(hc_tensor *t, ox_dtype dt, uint32_t rank, const int64_t *sizes, void *data)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    if (rank)
        memcpy(t->sizes, sizes, rank * sizeof *sizes);
    t->data = data;
}

void hc_trace_input(hc_rt *rt, hc_tensor *x, const char *name)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_input(rt->trace, name, x->dtype, x->rank, x->sizes, &x->vid);
    if (st != OX_OK)
        hc_fail(rt, st, "ox_trace_input");
}

void hc_trace_output(hc_rt *rt, const hc_tensor *x, const char *name)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_output(rt->trace, x->vid, name);
    if (st != OX_OK)
        hc_fail(rt, st, "ox_trace_output");
}

void hc_trace_param(hc_rt *rt, hc_tensor *p, const char *name)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_param(rt->trace, name, p->dtype, p->rank, p->sizes, p->data,
                                  OX_BORROW, &p->vid);
    if (st != OX_OK) {
        char what[300];
        snprintf(what, sizeof what, "ox_trace_param(%s)", name);
        hc_fail(rt, st, what);
    }
}

void hc_trace_param_file(hc_rt *rt, hc_tensor *p, const char *name, const char *path,
                         uint64_t offset, uint64_t length)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_param_file(rt->trace, name, p->dtype, p->rank, p->sizes, path,
                                       offset, length, &p->vid);
    if (st != OX_OK) {
        char what[300];
        snprintf(what, sizeof what, "ox_trace_param_file(%s)", name);
        hc_fail(rt, st, what);
    }
}

static ox_status no_bytes(void *user, uint64_t offset, void *dst, size_t len)
{
    (void)user, (void)offset, (void)dst, (void)len;
    return OX_EINVAL;
}

void hc_trace_param_absent(hc_rt *rt, hc_tensor *p, const char *name)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_param_reader(rt->trace, name, p->dtype, p->rank, p->sizes, no_bytes,
                                         NULL, &p->vid);
    if (st != OX_OK) {
        char what[300];
        snprintf(what, sizeof what, "ox_trace_param_reader(%s)", name);
        hc_fail(rt, st, what);
    }
}

void hc_trace_const(hc_rt *rt, hc_tensor *c)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_const(rt->trace, c->dtype, c->rank, c->sizes, c->data, OX_COPY,
                                  &c->vid);
    if (st != OX_OK)
        hc_fail(rt, st, "ox_trace_const");
}

void hc_record(hc_rt *rt, const char *kind, size_t n_args, const ox_arg *args,
               size_t n_out, hc_tensor *const *outs)
{
    if (!hc_tracing(rt))
        return;
    ox_tensor_desc desc[4];
    memset(desc, 0, sizeof desc);
    ox_vid ids[4];
    if (n_out > 4) {
        rt->status = OX_EINVAL;
        snprintf(rt->errmsg, sizeof rt->errmsg, "%s: host records at most 4 outputs", kind);
        return;
    }
    for (size_t i = 0; i < n_out; i++) {
        desc[i].dtype = outs[i]->dtype;
        desc[i].rank = outs[i]->rank;
        desc[i].sizes = outs[i]->sizes;
    }
    ox_status st = ox_trace_op(rt->trace, kind, n_args, args, n_out, desc, ids);
    if (st != OX_OK) {
        char what[200];
        snprintf(what, sizeof what, "ox_trace_op(%s)", kind);
        hc_fail(rt, st, what);
        return;
    }
    for (size_t i = 0; i < n_out; i++)
        outs[i]->vid = ids[i];
}

void hc_scope_push(hc_rt *rt, const char *fmt, ...)
{
    if (!hc_tracing(rt))
        return;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    ox_status st = ox_trace_push_scope(rt->trace, name);
    if (st != OX_OK)
        hc_fail(rt, st, "ox_trace_push_scope");
}

void hc_scope_pop(hc_rt *rt)
{
    if (!hc_tracing(rt))
        return;
    ox_status st = ox_trace_pop_scope(rt->trace);
    if (st != OX_OK)
        hc_fail(rt, st, "ox_trace_pop_scope");
}
