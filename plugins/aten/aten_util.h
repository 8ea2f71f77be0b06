/*
 * Helpers shared by the symbolic functions of the aten and nn_functions
 * packs.  They hide the lowerings that change with the target opset (axes as
 * attributes or inputs, Slice/Pad/Clip attribute-vs-input forms) so each
 * symbolic reads like the operator it converts.
 *
 * Error convention: a helper that returns an ox_vid returns 0 after calling
 * api->fail, so a symbolic only needs `if (!v) return 1;`.
 */
#ifndef OX_ATEN_UTIL_H
#define OX_ATEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "oxport/plugin.h"

/* Spatial ranks go up to 3 (conv3d); tensor ranks handled here up to 8. */
#define AT_MAX_RANK 8

/* Output 0 of a freshly created node, failing the conversion if the engine
 * could not create it. */
ox_vid at_out(ox_sym *g, const ox_api *api, ox_onode *n, const char *op_type);

ox_vid at_op1(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a);
ox_vid at_op2(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a, ox_vid b);

/* Normalise a possibly negative axis against a rank (rank+extra for
 * Unsqueeze-like ops).  Fails when the axis is out of range or negative with
 * an unknown rank. */
int at_axis(ox_sym *g, const ox_api *api, const char *arg, int64_t axis, int rank, int64_t *out);

/* Read an int-list argument for n positions: absent -> dflt everywhere, a
 * lone value -> broadcast, n values -> copied; other counts fail. */
int at_ints_n(ox_sym *g, const ox_api *api, const char *arg, size_t n, int64_t dflt,
              int64_t *out);

ox_vid at_transpose(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *perm, size_t n);
ox_vid at_reshape(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *shape, size_t n);
ox_vid at_concat(ox_sym *g, const ox_api *api, const ox_vid *xs, size_t n, int64_t axis);
/* Axes as an attribute before opset 13, as an input from 13. */
ox_vid at_unsqueeze(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis);
ox_vid at_squeeze(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes, size_t n);
/* x[start:end:step] along axis: attributes at opset 9 (step must be 1),
 * inputs from opset 10. */
ox_vid at_slice(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, int64_t start, int64_t end,
                int64_t step);
ox_vid at_cast(ox_sym *g, const ox_api *api, ox_vid x, ox_dtype to);
/* float16/float/double/bfloat16: the types every early-opset arithmetic op
 * takes.  An unknown dtype counts as floating (the common case). */
int at_is_floating(ox_dtype t);

/* Integer or bool element types (ONNX Div truncates them; torch's div does not). */
int at_is_integer(ox_dtype t);

/* Cast *a or *b so both have the type torch's promotion gives them: a float
 * beats an integer, a tensor with dims beats a rank-0 one of its category,
 * otherwise the wider type wins.  Returns nonzero after api->fail. */
int at_promote2(ox_sym *g, const ox_api *api, ox_vid *a, ox_vid *b);

/* The one lowering both packs share: torch's constant padding, whose pad list
 * is (begin, end) pairs starting from the last dimension. */
int at_constant_pad(ox_sym *g, const ox_api *api, const char *input_arg, const char *value_arg);

#endif /* OX_ATEN_UTIL_H */
