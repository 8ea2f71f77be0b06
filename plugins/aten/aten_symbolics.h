/*
 * What the aten pack's family files share beyond aten_util.h: the number
 * operand of the pointwise families (math.c defines it; arithmetic.c and
 * compare.c use it), Erf with its float64 form (math.c; activation.c's gelu)
 * and atan2 (atan2.c; math.c's float64 inverse trigonometry).  Symbolic functions themselves are static in their
 * family's file, declared there next to their rows.
 */
#ifndef OX_ATEN_SYMBOLICS_H
#define OX_ATEN_SYMBOLICS_H

#include "oxport/plugin.h"

/* A recorded number (an int, float or bool argument). */
int at_is_number(ox_arg_kind k);
/* Argument `name` as a value: a tensor, or a recorded number as a rank-0
 * constant typed like `like`.  0 after api->fail. */
ox_vid at_operand(ox_sym *g, const ox_api *api, const char *name, ox_vid like);

/* Erf of x; in float64 (no ONNX Runtime kernel) a float64 series (math.c). */
ox_vid at_erf(ox_sym *g, const ox_api *api, ox_vid x);

/* atan2(y, x) of two values of one floating type, torch's in every quadrant
 * (signed zeros, infinities); float64 without Atan, which ONNX Runtime runs
 * in float32 only (atan2.c; math.c's float64 atan, asin, acos). */
ox_vid at_atan2(ox_sym *g, const ox_api *api, ox_vid y, ox_vid x);

/* The elementwise Max (max != 0) or Min of `self` and `other` as result 0,
 * a symbolic's return value (math.c, maximum's lowering; reduce.c's
 * max.other/min.other). */
int at_elementwise_max_min(ox_sym *g, const ox_api *api, int max);

#endif /* OX_ATEN_SYMBOLICS_H */
