/*
 * The model zoo: torchvision-shaped architectures with deterministic
 * weights, each runnable with or without a trace.
 */
#ifndef HC_ZOO_H
#define HC_ZOO_H

#include "../nn.h"

#define HC_ZOO_MAX_IO 4

typedef struct hc_zoo_input {
    ox_dtype dtype;
    uint32_t rank;
    int64_t sizes[4];  /* the batch axis holds the default batch (1) */
    int batch_axis;
    int64_t max_index; /* int64 inputs: values drawn from [0, max_index) */
} hc_zoo_input;

typedef struct hc_zoo_model {
    const char *name;        /* CLI name: "alexnet" */
    const char *trace_name;  /* root scope: "AlexNet" */
    const char *description;
    size_t n_inputs;
    hc_zoo_input inputs[HC_ZOO_MAX_IO];
    size_t n_outputs;
    /* Registers parameters (in state_dict order) and m->state. 0 on success. */
    int (*build)(hc_model *m);
    /* Runs the forward on rt; fills out[0..n_outputs).  0 on success. */
    int (*forward)(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out);
    /* The forward uses only ops that honour rt->shape_only (ops.h), so it
     * can be traced without weights (oxport export --shape-only). */
    int shape_only;
} hc_zoo_model;

const hc_zoo_model *const *hc_zoo_models(size_t *n);
const hc_zoo_model *hc_zoo_find(const char *name);

/* Build a model's weights (seed 0 is the zoo's default). 0 on success. */
int hc_zoo_build(const hc_zoo_model *z, hc_model *m, uint64_t seed, int shape_only);

/* Make the deterministic inputs for `batch` as rt temporaries, declare them
 * and the parameters when tracing, run the forward and mark the outputs.
 * Returns 0 on success (check rt->status for recording failures). */
int hc_zoo_run(const hc_zoo_model *z, hc_model *m, hc_rt *rt, int64_t batch,
               hc_tensor **inputs, hc_tensor **outputs);

/* The same with input set `input_set` (0 is hc_zoo_run's): the same shapes, other
 * values (float inputs other uniform draws, token inputs other valid tokens), so a
 * file can be checked on an input it was not traced with. */
int hc_zoo_run_set(const hc_zoo_model *z, hc_model *m, hc_rt *rt, int64_t batch,
                   unsigned input_set, hc_tensor **inputs, hc_tensor **outputs);

/* Architectures (zoo/<name>.c). */
extern const hc_zoo_model hc_zoo_alexnet;
extern const hc_zoo_model hc_zoo_vgg16;
extern const hc_zoo_model hc_zoo_resnet50;
extern const hc_zoo_model hc_zoo_densenet121;
extern const hc_zoo_model hc_zoo_inception_v3;
extern const hc_zoo_model hc_zoo_dcgan_generator;
extern const hc_zoo_model hc_zoo_dcgan_discriminator;
extern const hc_zoo_model hc_zoo_superresolution;
extern const hc_zoo_model hc_zoo_word_language_model;
/* Not const: hc_decoder_configure sets its input's sequence length and
 * token range. */
extern hc_zoo_model hc_zoo_decoder;

/* The decoder's size (zoo/decoder.c). */
typedef struct hc_decoder_config {
    int64_t layers, dim, hidden, heads, vocab, seq;
    int rope;   /* rotary position embedding on q and k */
    double eps; /* RMSNorm's */
} hc_decoder_config;

/* Set it from "layers=32,dim=4096,hidden=11008,heads=32,vocab=32000" (keys
 * not named keep their value; seq, rope=0|1, eps too).  0, or -1 with a
 * message in err and the configuration unchanged. */
int hc_decoder_configure(const char *spec, char *err, size_t n_err);
const hc_decoder_config *hc_decoder_current(void);

#endif /* HC_ZOO_H */
