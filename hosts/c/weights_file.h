/*
 * Weights files in the safetensors layout: an 8-byte little-endian header
 * length, a JSON header {"name": {"dtype": "F16", "shape": [..],
 * "data_offsets": [begin, end]}, ...} (offsets relative to the end of the
 * header), then the raw little-endian bytes.  The host writes one from a
 * model's deterministic initialisation without holding it (hc_weights_save)
 * and exports a model from one without reading it (hc_weights_bind: every
 * parameter becomes a file region the engine reads while it writes).
 */
#ifndef HC_WEIGHTS_FILE_H
#define HC_WEIGHTS_FILE_H

#include "model.h"

/* Write m's parameters (registered, shape_only or not) as `dtype` (OX_FLOAT
 * or OX_FLOAT16), values from hc_param_fill, in registration order, a chunk
 * at a time.  0, or -1 with a message in err (and no file left). */
int hc_weights_save(const hc_model *m, const char *path, ox_dtype dtype, char *err, size_t n_err);

/* Point every parameter of m (built shape_only) at its bytes in `path`:
 * names must match one to one and shapes exactly; each parameter takes the
 * file's dtype (F32 or F16).  0, or -1 with a message in err. */
int hc_weights_bind(hc_model *m, const char *path, char *err, size_t n_err);

/* IEEE binary16 of a float, rounded to nearest even. */
uint16_t hc_f32_to_f16(float f);

#endif /* HC_WEIGHTS_FILE_H */
