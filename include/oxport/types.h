/*
 * Types shared by the host API (oxport.h) and the plugin API (plugin.h).
 */
#ifndef OXPORT_TYPES_H
#define OXPORT_TYPES_H

#include <stdint.h>

#if defined(OXPORT_BUILDING_LIBRARY) && defined(__GNUC__)
#define OX_API __attribute__((visibility("default")))
#else
#define OX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A value (tensor) in a graph.  0 means "no value" (None / absent input).
 * An id is a token, not an index: it names a value only in the trace that
 * returned it and in the graph that trace becomes; another trace refuses it
 * (OX_EINVAL, "... not produced by this trace"), as it refuses a number no
 * trace returned. */
typedef uint32_t ox_vid;

/* Element types: the numbers are ONNX TensorProto.DataType's. */
typedef enum ox_dtype {
    OX_UNDEFINED = 0,
    OX_FLOAT = 1,
    OX_UINT8 = 2,
    OX_INT8 = 3,
    OX_UINT16 = 4,
    OX_INT16 = 5,
    OX_INT32 = 6,
    OX_INT64 = 7,
    OX_STRING = 8,
    OX_BOOL = 9,
    OX_FLOAT16 = 10,
    OX_DOUBLE = 11,
    OX_UINT32 = 12,
    OX_UINT64 = 13,
    /* Complex numbers, as pairs (real, imaginary) of float / double.  Read
     * from files (oxport dump, check); hosts record a complex tensor in
     * ONNX's float form (a trailing dimension of 2), so the tracer and the
     * symbolic API refuse these two. */
    OX_COMPLEX64 = 14,
    OX_COMPLEX128 = 15,
    OX_BFLOAT16 = 16
} ox_dtype;

/* Kinds of recorded operator arguments and of declared symbolic parameters. */
typedef enum ox_arg_kind {
    OX_ARG_NONE = 0,        /* an absent optional (Python None) */
    OX_ARG_TENSOR = 1,
    OX_ARG_TENSOR_LIST = 2,
    OX_ARG_INT = 3,
    OX_ARG_FLOAT = 4,
    OX_ARG_BOOL = 5,
    OX_ARG_STRING = 6,
    OX_ARG_INTS = 7,
    OX_ARG_FLOATS = 8,
    OX_ARG_DTYPE = 9,
    /* Only in parameter declarations: */
    OX_ARG_OPT_TENSOR = 10, /* tensor or None */
    OX_ARG_SCALAR = 11,     /* int, float or bool */
    OX_ARG_TENSOR_OR_SCALAR = 12 /* e.g. aten::add's `other`: a tensor or a number */
} ox_arg_kind;

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_TYPES_H */
