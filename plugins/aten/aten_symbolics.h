/*
 * Symbolic functions of the aten pack, one group per source file; pack.c
 * lists them in the descriptor table with their parameters.
 */
#ifndef OX_ATEN_SYMBOLICS_H
#define OX_ATEN_SYMBOLICS_H

#include "oxport/plugin.h"

#define AT_SYM(name) int name(ox_sym *g, const ox_api *api)

/* math.c: a recorded number (int, float or bool argument). */
int at_is_number(ox_arg_kind k);
/* math.c: argument `name` as a value: a tensor, or a number as a rank-0
 * constant typed like `like`.  0 after api->fail. */
ox_vid at_operand(ox_sym *g, const ox_api *api, const char *name, ox_vid like);

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
/* reduce.c */
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
/* baddbmm.c */
/* reduce_more.c */
/* embedding.c */
/* triangle.c */
/* size.c */
/* resize.c */
AT_SYM(at_sym_upsample_nearest2d);
AT_SYM(at_sym_upsample_bilinear2d);
/* pad_mode.c */

#endif /* OX_ATEN_SYMBOLICS_H */
