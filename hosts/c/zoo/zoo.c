/*
 * Zoo registry and the common run sequence: inputs, parameters, forward,
 * outputs — the order torch.onnx lists them in.
 */
#include "zoo.h"

#include <string.h>

static const hc_zoo_model *const all[] = {
    &hc_zoo_alexnet,         &hc_zoo_vgg16,          &hc_zoo_resnet50,
    &hc_zoo_densenet121,     &hc_zoo_inception_v3,   &hc_zoo_dcgan_generator,
    &hc_zoo_dcgan_discriminator, &hc_zoo_superresolution, &hc_zoo_word_language_model,
    &hc_zoo_decoder,
};

const hc_zoo_model *const *hc_zoo_models(size_t *n)
{
    *n = sizeof all / sizeof all[0];
    return all;
}

const hc_zoo_model *hc_zoo_find(const char *name)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

int hc_zoo_build(const hc_zoo_model *z, hc_model *m, uint64_t seed, int shape_only)
{
    hc_model_init(m, seed, shape_only);
    if (z->build(m) != 0 || m->failed) {
        hc_model_free(m);
        return -1;
    }
    return 0;
}

int hc_zoo_run(const hc_zoo_model *z, hc_model *m, hc_rt *rt, int64_t batch,
               hc_tensor **inputs, hc_tensor **outputs)
{
    return hc_zoo_run_set(z, m, rt, batch, 0, inputs, outputs);
}

int hc_zoo_run_set(const hc_zoo_model *z, hc_model *m, hc_rt *rt, int64_t batch,
                   unsigned input_set, hc_tensor **inputs, hc_tensor **outputs)
{
    for (size_t i = 0; i < z->n_inputs; i++) {
        const hc_zoo_input *spec = &z->inputs[i];
        int64_t sz[4];
        memcpy(sz, spec->sizes, sizeof sz);
        sz[spec->batch_axis] = batch;
        hc_tensor *t = hc_new(rt, spec->dtype, spec->rank, sz);
        if (!t)
            return -1;
        hc_rng r;
        hc_rng_seed(&r, 0x5eed0000u + 0x100u * input_set + i);
        int64_t n = rt->shape_only ? 0 : hc_numel(t); /* shape-only: a type, no values */
        for (int64_t k = 0; k < n; k++) {
            if (spec->dtype == OX_INT64)
                hc_i64(t)[k] = (int64_t)(hc_rng_next(&r) % (uint64_t)spec->max_index);
            else
                hc_f32(t)[k] = hc_rng_uniform(&r, -1.0f, 1.0f);
        }
        inputs[i] = t;
        hc_trace_input(rt, t, NULL);
    }
    hc_model_trace_params(m, rt);
    if (z->forward(m, rt, inputs, outputs) != 0)
        return -1;
    for (size_t i = 0; i < z->n_outputs; i++) {
        if (!outputs[i])
            return -1;
        hc_trace_output(rt, outputs[i], NULL);
    }
    return 0;
}
