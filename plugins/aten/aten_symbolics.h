/*
 * Symbolic functions of the aten pack, one group per source file; pack.c
 * lists them in the descriptor table with their parameters.
 */
#ifndef OX_ATEN_SYMBOLICS_H
#define OX_ATEN_SYMBOLICS_H

#include "oxport/plugin.h"

#define AT_SYM(name) int name(ox_sym *g, const ox_api *api)

/* conv.c */
/* normalization.c */
/* activation.c */
/* pool.c */
/* linear.c */
/* dropout.c */
/* shape.c */
AT_SYM(at_sym_cat);
AT_SYM(at_sym_flatten);
AT_SYM(at_sym_view);
AT_SYM(at_sym_reshape);
AT_SYM(at_sym_t);
AT_SYM(at_sym_transpose);
AT_SYM(at_sym_permute);
AT_SYM(at_sym_contiguous);
AT_SYM(at_sym_unsqueeze);
AT_SYM(at_sym_squeeze);
AT_SYM(at_sym_select);
AT_SYM(at_sym_slice);
AT_SYM(at_sym_pixel_shuffle_9);
AT_SYM(at_sym_pixel_shuffle_11);
/* softmax.c */
/* embedding.c */
/* rnn.c */
/* elementwise.c */
AT_SYM(at_sym_add);
AT_SYM(at_sym_sub);
AT_SYM(at_sym_mul);
AT_SYM(at_sym_div);
/* reduce.c */
AT_SYM(at_sym_mean);
/* pad.c */

/* activation_more.c */
/* norm_layer.c */
/* index.c */
AT_SYM(at_sym_index);
AT_SYM(at_sym_index_put);
AT_SYM(at_sym_slice_scatter);
AT_SYM(at_sym_copy);
AT_SYM(at_sym_fill);
AT_SYM(at_sym_zero);
/* roll.c */
/* expand.c */
AT_SYM(at_sym_expand);
AT_SYM(at_sym_repeat);
AT_SYM(at_sym_stack);
/* math.c */
AT_SYM(at_sym_exp);
AT_SYM(at_sym_log);
AT_SYM(at_sym_sqrt);
AT_SYM(at_sym_rsqrt);
AT_SYM(at_sym_reciprocal);
AT_SYM(at_sym_erf);
AT_SYM(at_sym_floor);
AT_SYM(at_sym_ceil);
AT_SYM(at_sym_sin);
AT_SYM(at_sym_cos);
AT_SYM(at_sym_sign);
AT_SYM(at_sym_rsub);
AT_SYM(at_sym_neg);
AT_SYM(at_sym_abs);
AT_SYM(at_sym_pow);
AT_SYM(at_sym_maximum);
AT_SYM(at_sym_minimum);
AT_SYM(at_sym_clamp_9);
AT_SYM(at_sym_clamp_11);
AT_SYM(at_sym_eq);
AT_SYM(at_sym_ne);
AT_SYM(at_sym_gt);
AT_SYM(at_sym_lt);
AT_SYM(at_sym_ge);
AT_SYM(at_sym_le);
AT_SYM(at_sym_where);
AT_SYM(at_sym_masked_fill);
AT_SYM(at_sym_to);
AT_SYM(at_sym_logical_or);
AT_SYM(at_sym_logical_and);
AT_SYM(at_sym_logical_xor);
AT_SYM(at_sym_logical_not);
/* baddbmm.c */
/* reduce_more.c */
AT_SYM(at_sym_sum_9);
AT_SYM(at_sym_sum_13);
AT_SYM(at_sym_amax);
AT_SYM(at_sym_amin);
AT_SYM(at_sym_argmax);
AT_SYM(at_sym_argmin);
AT_SYM(at_sym_cumsum);
AT_SYM(at_sym_topk);
/* embedding.c */
/* triangle.c */
/* size.c */
AT_SYM(at_sym_size);
AT_SYM(at_sym_numel);
AT_SYM(at_sym_floor_divide);
AT_SYM(at_sym_remainder);
AT_SYM(at_sym_zeros);
AT_SYM(at_sym_ones);
AT_SYM(at_sym_full);
AT_SYM(at_sym_zeros_like);
AT_SYM(at_sym_ones_like);
AT_SYM(at_sym_full_like);
AT_SYM(at_sym_rand_like);
AT_SYM(at_sym_randn_like);
AT_SYM(at_sym_arange);
/* resize.c */
AT_SYM(at_sym_upsample_nearest2d);
AT_SYM(at_sym_upsample_bilinear2d);
/* pad_mode.c */

#endif /* OX_ATEN_SYMBOLICS_H */
