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
} hc_param;

typedef struct hc_model {
    uint64_t seed;
    int shape_only;   /* count parameters without allocating them */
    int failed;       /* an allocation failed while building */
    hc_param **params;
    size_t n_params, cap;
    size_t n_elements; /* learnable parameter elements (torchvision's count) */
    size_t n_buffer_elements; /* batch-norm running statistics */
    void *state;       /* the architecture's own struct of modules */
    void (*free_state)(void *state);
} hc_model;

void hc_model_init(hc_model *m, uint64_t seed, int shape_only);
void hc_model_free(hc_model *m);

/* Register a float parameter filled from U(lo, hi), seeded by its name. */
hc_tensor *hc_param_uniform(hc_model *m, uint32_t rank, const int64_t *sizes, float lo, float hi,
                            const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Declare every parameter to rt's trace (no-op when not tracing). */
void hc_model_trace_params(hc_model *m, hc_rt *rt);

/* Deterministic stream for inputs: splitmix64. */
typedef struct hc_rng { uint64_t s; } hc_rng;
void hc_rng_seed(hc_rng *r, uint64_t seed);
uint64_t hc_rng_next(hc_rng *r);
float hc_rng_uniform(hc_rng *r, float lo, float hi);
uint64_t hc_hash_str(const char *s);

#endif /* HC_MODEL_H */
