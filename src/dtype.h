/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Element types: their sizes and names, and the engine's one element codec
 * (raw little-endian tensor bytes <-> numbers), used by the symbolic API's
 * constants, constant folding and the printer.
 */
#ifndef OXPORT_DTYPE_H
#define OXPORT_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oxport/oxport.h"

/* Element size in bytes (a complex64 element is 8: two floats), 0 for
 * OX_STRING / unknown. */
size_t ox_dtype_size(ox_dtype t);
/* "Float", "Long", ... as torch prints them (the seed's format). */
const char *ox_dtype_torch_name(ox_dtype t);
/* "float", "int64", ... (ONNX names, for messages). */
const char *ox_dtype_name(ox_dtype t);
/* The element types the engine traces, converts and writes: every ONNX
 * element type but the complex ones. */
bool ox_dtype_valid(int t);
/* Every ONNX element type the reader takes (ox_dtype_valid's and
 * OX_COMPLEX64, OX_COMPLEX128). */
bool ox_dtype_known(int t);
bool ox_dtype_complex(int t);

/* One decoded element, exact: floating types as a double, signed integers
 * as int64, unsigned ones and bool (0 or 1) as uint64. */
typedef struct ox_elem {
    enum { OX_ELEM_FLOAT, OX_ELEM_INT, OX_ELEM_UINT } kind;
    union {
        double f;
        int64_t i;
        uint64_t u;
    } v;
} ox_elem;

/* The element of type t at p; false when t has no numeric encoding as one
 * number (OX_STRING, OX_UNDEFINED, the complex types). */
bool ox_elem_decode(ox_dtype t, const void *p, ox_elem *out);
/* The element as a double (large 64-bit integers round); *ok (may be NULL)
 * is cleared when t has no numeric encoding. */
double ox_elem_load(ox_dtype t, const void *p, bool *ok);
/* Store v as one element of type t at p (integers truncate toward zero,
 * float16/bfloat16 round to nearest); false when t has no numeric encoding. */
bool ox_elem_store(ox_dtype t, double v, void *p);

#endif /* OXPORT_DTYPE_H */
