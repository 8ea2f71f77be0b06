/*
 * The C reference host's runtime: float32/int64 NCHW tensors, a forward-pass
 * scope that owns every tensor the forward creates, and the glue that records
 * each executed operator through oxport's public tracer API.
 *
 * Tracing is optional: with rt->trace == NULL the runtime only computes, which
 * is what the kernel tests and the forward benchmarks use.
 *
 * Trace failures do not stop the computation: the first failure is kept in
 * rt->status / rt->errmsg ("sticky error", like stdio's ferror) and later
 * recording calls are skipped, so a model's forward code needs no error
 * plumbing at every op.
 */
#ifndef HC_RUNTIME_H
#define HC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <oxport/oxport.h>

#define HC_MAX_RANK 6

enum {
    HC_OWNS_DATA = 0x1u, /* data is freed with the tensor */
    HC_ON_LIST = 0x2u    /* tensor struct belongs to rt's temporaries */
};

typedef struct hc_tensor {
    ox_dtype dtype;   /* OX_FLOAT or OX_INT64 */
    uint32_t rank;
    int64_t sizes[HC_MAX_RANK];
    void *data;       /* contiguous, row-major */
    ox_vid vid;       /* value id in the current trace, 0 when not traced */
    unsigned flags;
    struct hc_tensor *next;
} hc_tensor;

typedef struct hc_rt {
    ox_context *ctx;  /* for ox_errmsg; may be NULL when not tracing */
    ox_trace *trace;  /* NULL: compute only */
    /* Shape functions only: ops work out and record their outputs' types but
     * compute nothing, and new tensors get no bytes (data NULL).  Lets a host
     * trace a model whose weights it never loads (oxport export --shape-only);
     * only the ops that check it (ops.h says which) may run this way. */
    int shape_only;
    ox_status status; /* first recording failure, OX_OK otherwise */
    char errmsg[1024];
    hc_tensor *temps; /* tensors created during the forward */
    size_t bytes_live;
    size_t bytes_peak;
    void *scratch;    /* kernels' work buffer (im2col), reused across ops */
    size_t scratch_size;
} hc_rt;

void hc_rt_init(hc_rt *rt, ox_context *ctx, ox_trace *trace);
/* Free every temporary tensor (the forward's activations and outputs). */
void hc_rt_release(hc_rt *rt);

static inline float *hc_f32(const hc_tensor *t) { return (float *)t->data; }
static inline int64_t *hc_i64(const hc_tensor *t) { return (int64_t *)t->data; }
int64_t hc_numel(const hc_tensor *t);
size_t hc_dtype_size(ox_dtype dt);

/* A new zero-filled temporary owned by rt (no bytes when rt->shape_only).
 * Returns NULL only when memory is exhausted (rt->status is then OX_ENOMEM). */
hc_tensor *hc_new(hc_rt *rt, ox_dtype dt, uint32_t rank, const int64_t *sizes);
/* A temporary that shares `x`'s bytes with other sizes (a view). */
hc_tensor *hc_alias(hc_rt *rt, const hc_tensor *x, uint32_t rank, const int64_t *sizes);
/* A work buffer of at least `bytes`, valid until the next call; reusing it
 * saves a fresh mmap and its page faults for every convolution. */
void *hc_scratch(hc_rt *rt, size_t bytes);
/* Free a temporary's bytes early (the struct stays until hc_rt_release). */
void hc_drop(hc_rt *rt, hc_tensor *t);

/* Tensors outside rt (parameters, host-provided inputs). */
void hc_tensor_set(hc_tensor *t, ox_dtype dt, uint32_t rank, const int64_t *sizes, void *data);

/* ------------------------------------------------------------ recording */

static inline int hc_tracing(const hc_rt *rt) { return rt->trace != NULL && rt->status == OX_OK; }

/* Keep the first failure; `what` names the call that failed. */
void hc_fail(hc_rt *rt, ox_status st, const char *what);

/* Declare a graph input / mark a graph output (no-ops when not tracing). */
void hc_trace_input(hc_rt *rt, hc_tensor *x, const char *name);
void hc_trace_output(hc_rt *rt, const hc_tensor *x, const char *name);
/* Declare a parameter (borrowed bytes). */
void hc_trace_param(hc_rt *rt, hc_tensor *p, const char *name);
/* Declare a parameter whose bytes are `length` bytes at `offset` of the file
 * `path` (the engine reads them while writing: ox_trace_param_file). */
void hc_trace_param_file(hc_rt *rt, hc_tensor *p, const char *name, const char *path,
                         uint64_t offset, uint64_t length);
/* Declare a parameter the host has no bytes for (a shape-only model without
 * a weights file): an export without weights (--no-params) needs none, and
 * one that asks for them fails naming it. */
void hc_trace_param_absent(hc_rt *rt, hc_tensor *p, const char *name);
/* Record a constant the forward creates (copied), e.g. a causal mask. */
void hc_trace_const(hc_rt *rt, hc_tensor *c);

/* Record one executed op whose outputs the kernel already computed; gives
 * each output its new value id. */
void hc_record(hc_rt *rt, const char *kind, size_t n_args, const ox_arg *args,
               size_t n_out, hc_tensor *const *outs);

/* Module scopes, printf-style: hc_scope_push(rt, "Conv2d[%d]", i). */
void hc_scope_push(hc_rt *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hc_scope_pop(hc_rt *rt);

#endif /* HC_RUNTIME_H */
