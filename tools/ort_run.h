/*
 * Running ONNX files in ONNX Runtime from the CLI (`oxport diff --run`),
 * through the node runner tools/ort/run.js: raw little-endian tensors in a
 * directory, described by inputs.json / outputs.json.
 */
#ifndef OXPORT_TOOLS_ORT_RUN_H
#define OXPORT_TOOLS_ORT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <oxport/oxport.h>

#define OX_ORT_MAX_RANK 16

typedef struct ox_ort_tensor {
    char *name;
    ox_dtype dtype;
    int rank;
    int64_t dims[OX_ORT_MAX_RANK];
    unsigned char *data;
    size_t nbytes;
} ox_ort_tensor;

typedef struct ox_ort_tensors {
    ox_ort_tensor *t;
    size_t n;
} ox_ort_tensors;

void ox_ort_tensors_free(ox_ort_tensors *ts);

/* The runner: $OXPORT_ORT_RUNNER (set to the source tree's tools/ort/run.js
 * when the CLI runs from its build directory); NULL when unset. */
const char *ox_ort_runner(void);

/* Random inputs for the graph inputs of `g` (seeded; floats uniform in
 * [-1, 1), integers in [0, 10), bools 0/1; an unknown or symbolic dim is 1).
 * -1 with a message in err when an input has a type the runner cannot feed. */
int ox_ort_random_inputs(const ox_graph *g, uint64_t seed, ox_ort_tensors *out, char *err,
                         size_t errcap);

/* Run `model` on `inputs` (fed positionally under the names in `names`,
 * the model's own input names) in scratch directory `dir`.  0, or -1 with a
 * message in err (ONNX Runtime's own when it rejected the model). */
int ox_ort_run(const char *runner, const char *model, const ox_ort_tensors *inputs,
               const char *const *names, const char *dir, ox_ort_tensors *outputs, char *err,
               size_t errcap);

#endif /* OXPORT_TOOLS_ORT_RUN_H */
