/* The one-hot form of an elementwise gather or scatter-add, shared by
 * gather.c and scatter.c: before ONNX has GatherElements (opset 11) or
 * ScatterElements with reduction (opset 16), OneHot(index) along a new axis
 * turns "the element at index" into a product summed over a dim. */
#ifndef OX_ATEN_ONE_HOT_SUM_H
#define OX_ATEN_ONE_HOT_SUM_H

#include "oxport/plugin.h"

/* OneHot(index, depth = self's size along dim) along `axis`, with the values
 * [0, 1] of type values_type (OX_FLOAT or OX_INT64). */
ox_vid at_one_hot_of(ox_sym *g, const ox_api *api, ox_vid index, ox_vid self, int64_t dim,
                     int64_t axis, ox_dtype values_type);

/* The type the one-hot sums compute in for elements of type t: float32 for
 * floating types, int64 for integers and bool (both exact for the pick). */
ox_dtype at_one_hot_type(ox_dtype t);

#endif
