/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The external-data file names an ONNX model refers to, read from the wire
 * format without decoding the model (weights embedded in it are skipped, not
 * read).  The writer uses it to remove the data file of the model it replaced
 * once the new model is in place.
 */
#ifndef OXPORT_ONNX_LOCATIONS_H
#define OXPORT_ONNX_LOCATIONS_H

#include <stddef.h>

#define OX_LOCATIONS_MAX 16

/* Distinct `location` values of the main graph's initializers, malloc'd into
 * out[0..n).  0 when the file is missing, unreadable, not a model or refers
 * to none; a malformed file yields what was found before the damage. */
size_t ox_external_locations(const char *model_path, char *out[OX_LOCATIONS_MAX]);

#endif /* OXPORT_ONNX_LOCATIONS_H */
