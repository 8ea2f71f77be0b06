/*
 * Symbolic functions of the aten pack, one group per source file; pack.c
 * lists them in the descriptor table with their parameters.
 */
#ifndef OX_ATEN_SYMBOLICS_H
#define OX_ATEN_SYMBOLICS_H

#include "oxport/plugin.h"

#define AT_SYM(name) int name(ox_sym *g, const ox_api *api)

/* conv.c */
AT_SYM(at_sym_conv);
AT_SYM(at_sym_convolution);
AT_SYM(at_sym_conv_transpose2d);
/* normalization.c */
AT_SYM(at_sym_batch_norm);
/* activation.c */
AT_SYM(at_sym_relu);
AT_SYM(at_sym_tanh);
AT_SYM(at_sym_sigmoid);
AT_SYM(at_sym_leaky_relu);
AT_SYM(at_sym_hardtanh_9);
AT_SYM(at_sym_hardtanh_11);
/* pool.c */
AT_SYM(at_sym_max_pool2d_9);
AT_SYM(at_sym_max_pool2d_10);
AT_SYM(at_sym_avg_pool2d_9);
AT_SYM(at_sym_avg_pool2d_10);
AT_SYM(at_sym_adaptive_avg_pool2d);
/* linear.c */
AT_SYM(at_sym_linear);
AT_SYM(at_sym_addmm);
AT_SYM(at_sym_matmul);
AT_SYM(at_sym_mm);
/* dropout.c */
AT_SYM(at_sym_dropout);
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
AT_SYM(at_sym_softmax_9);
AT_SYM(at_sym_softmax_13);
AT_SYM(at_sym_log_softmax_9);
AT_SYM(at_sym_log_softmax_13);
/* embedding.c */
AT_SYM(at_sym_embedding);
/* rnn.c */
AT_SYM(at_sym_lstm);
AT_SYM(at_sym_gru);
AT_SYM(at_sym_rnn_tanh);
AT_SYM(at_sym_rnn_relu);
/* elementwise.c */
AT_SYM(at_sym_add);
AT_SYM(at_sym_sub);
AT_SYM(at_sym_mul);
AT_SYM(at_sym_div);
/* reduce.c */
AT_SYM(at_sym_mean);
/* pad.c */
AT_SYM(at_sym_constant_pad_nd);

#endif /* OX_ATEN_SYMBOLICS_H */
