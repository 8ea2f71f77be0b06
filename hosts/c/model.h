/*
 * A model's parameters: named like a torchvision state_dict, allocated and
 * initialised deterministically, and declared to a trace in registration
 * order (which is state_dict order, so exported initializers line up with
 * torch.onnx's learned_0, learned_1, ...).
 */
#ifndef HC_MODEL_H
#define HC_MODEL_H

#include "runtime.h"

typedef struct hc_param {
    char *name;
    hc_tensor t; /* t.data owned by the model */
    float lo, hi; /* its U(lo, hi) initialisation, so a weights file can be made without it */
    /* Bytes in a weights file instead of t.data (hc_weights_bind): t.dtype
     * is the file's, and the trace declares them with ox_trace_param_file. */
    const char *file;
    uint64_t file_offset;
} hc_param;

typedef struct hc_model {
    uint64_t seed;
    int shape_only;   /* count parameters without allocating them */
    int failed;       /* an allocation failed while building */
    hc_param **params;
    size_t n_params, cap;
    size_t n_elements; /* learnable parameter elements (torchvision's count) */
    size_t n_buffer_elements; /* batch-norm running statistics */
    char *weights_file; /* hc_weights_bind's file, which params' `file` point into */
    void *state;       /* the architecture's own struct of modules */
    void (*free_state)(void *state);
} hc_model;

void hc_model_init(hc_model *m, uint64_t seed, int shape_only);
void hc_model_free(hc_model *m);

/* Register a float parameter filled from U(lo, hi), seeded by its name
 * (hc_param_fill); with m->shape_only, registered without bytes. */
hc_tensor *hc_param_uniform(hc_model *m, uint32_t rank, const int64_t *sizes, float lo, float hi,
                            const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The values hc_param_uniform gives elements [first, first + n) of p. */
void hc_param_fill(const hc_model *m, const hc_param *p, int64_t first, int64_t n, float *out);

/* Declare every parameter to rt's trace (no-op when not tracing). */
void hc_model_trace_params(hc_model *m, hc_rt *rt);

/* Deterministic stream for inputs: splitmix64. */
typedef struct hc_rng { uint64_t s; } hc_rng;
void hc_rng_seed(hc_rng *r, uint64_t seed);
uint64_t hc_rng_next(hc_rng *r);
float hc_rng_uniform(hc_rng *r, float lo, float hi);
uint64_t hc_hash_str(const char *s);

#endif /* HC_MODEL_H */
