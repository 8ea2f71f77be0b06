/* Declaration rows still waiting to move into their family's file. */
#include "aten_family.h"
#include "aten_symbolics.h"

#define T OX_ARG_TENSOR
#define TOPT OX_ARG_OPT_TENSOR
#define TLIST OX_ARG_TENSOR_LIST
#define INT OX_ARG_INT
#define FLOAT OX_ARG_FLOAT
#define BOOL OX_ARG_BOOL
#define INTS OX_ARG_INTS
#define DTYPE OX_ARG_DTYPE
#define SCALAR OX_ARG_SCALAR
#define TSCALAR OX_ARG_TENSOR_OR_SCALAR

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))
#define OP(name, since, params, outs, fn) OX_OP(name, since, params, outs, fn)

static const ox_param_decl p_conv[] = {
    OX_PARAM("input", T), OX_PARAM("weight", T), OX_PARAM("bias", TOPT), OX_PARAM("stride", INTS),
    OX_PARAM("padding", INTS), OX_PARAM("dilation", INTS), OX_PARAM("groups", INT)};
static const ox_param_decl p_convolution[] = {
    OX_PARAM("input", T), OX_PARAM("weight", T), OX_PARAM("bias", TOPT), OX_PARAM("stride", INTS), OX_PARAM("padding", INTS),
    OX_PARAM("dilation", INTS), OX_PARAM("transposed", BOOL), OX_PARAM("output_padding", INTS), OX_PARAM("groups", INT)};
static const ox_param_decl p_conv_transpose2d[] = {
    OX_PARAM("input", T), OX_PARAM("weight", T), OX_PARAM("bias", TOPT), OX_PARAM("stride", INTS),
    OX_PARAM("padding", INTS), OX_PARAM("output_padding", INTS), OX_PARAM("groups", INT), OX_PARAM("dilation", INTS)};
static const ox_param_decl p_batch_norm[] = {
    OX_PARAM("input", T), OX_PARAM("weight", TOPT), OX_PARAM("bias", TOPT), OX_PARAM("running_mean", TOPT),
    OX_PARAM("running_var", TOPT), OX_PARAM("training", BOOL), OX_PARAM("momentum", FLOAT), OX_PARAM("eps", FLOAT),
    OX_PARAM("cudnn_enabled", BOOL)};
static const ox_param_decl p_self[] = {OX_PARAM("self", T)};
static const ox_param_decl p_leaky_relu[] = {OX_PARAM("self", T), OX_PARAM("negative_slope", SCALAR)};
static const ox_param_decl p_hardtanh[] = {OX_PARAM("self", T), OX_PARAM("min_val", SCALAR), OX_PARAM("max_val", SCALAR)};
static const ox_param_decl p_max_pool2d[] = {
    OX_PARAM("self", T), OX_PARAM("kernel_size", INTS), OX_PARAM("stride", INTS),
    OX_PARAM("padding", INTS), OX_PARAM("dilation", INTS), OX_PARAM("ceil_mode", BOOL)};
static const ox_param_decl p_avg_pool2d[] = {
    OX_PARAM("self", T), OX_PARAM("kernel_size", INTS), OX_PARAM("stride", INTS), OX_PARAM("padding", INTS),
    OX_PARAM("ceil_mode", BOOL), OX_PARAM("count_include_pad", BOOL), OX_PARAM("divisor_override", INT)};
static const ox_param_decl p_adaptive_avg_pool2d[] = {OX_PARAM("self", T), OX_PARAM("output_size", INTS)};
static const ox_param_decl p_linear[] = {OX_PARAM("input", T), OX_PARAM("weight", T), OX_PARAM("bias", TOPT)};
static const ox_param_decl p_addmm[] = {
    OX_PARAM("self", T), OX_PARAM("mat1", T), OX_PARAM("mat2", T), OX_PARAM("beta", SCALAR), OX_PARAM("alpha", SCALAR)};
static const ox_param_decl p_matmul[] = {OX_PARAM("self", T), OX_PARAM("other", T)};
static const ox_param_decl p_mm[] = {OX_PARAM("self", T), OX_PARAM("mat2", T)};
static const ox_param_decl p_dropout[] = {OX_PARAM("input", T), OX_PARAM("p", FLOAT), OX_PARAM("train", BOOL)};
static const ox_param_decl p_cat[] = {OX_PARAM("tensors", TLIST), OX_PARAM("dim", INT)};
static const ox_param_decl p_flatten[] = {OX_PARAM("self", T), OX_PARAM("start_dim", INT), OX_PARAM("end_dim", INT)};
static const ox_param_decl p_view[] = {OX_PARAM("self", T), OX_PARAM("size", INTS)};
static const ox_param_decl p_reshape[] = {OX_PARAM("self", T), OX_PARAM("shape", INTS)};
static const ox_param_decl p_softmax[] = {OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_embedding[] = {
    OX_PARAM("weight", T), OX_PARAM("indices", T), OX_PARAM("padding_idx", INT),
    OX_PARAM("scale_grad_by_freq", BOOL), OX_PARAM("sparse", BOOL)};
static const ox_param_decl p_lstm[] = {
    OX_PARAM("input", T), OX_PARAM("hx", TLIST), OX_PARAM("params", TLIST), OX_PARAM("has_biases", BOOL),
    OX_PARAM("num_layers", INT), OX_PARAM("dropout", FLOAT), OX_PARAM("train", BOOL), OX_PARAM("bidirectional", BOOL),
    OX_PARAM("batch_first", BOOL)};
static const ox_param_decl p_rnn[] = {
    OX_PARAM("input", T), OX_PARAM("hx", T), OX_PARAM("params", TLIST), OX_PARAM("has_biases", BOOL),
    OX_PARAM("num_layers", INT), OX_PARAM("dropout", FLOAT), OX_PARAM("train", BOOL), OX_PARAM("bidirectional", BOOL),
    OX_PARAM("batch_first", BOOL)};
static const ox_param_decl p_pixel_shuffle[] = {OX_PARAM("self", T), OX_PARAM("upscale_factor", INT)};
static const ox_param_decl p_add[] = {OX_PARAM("self", T), OX_PARAM("other", TSCALAR), OX_PARAM("alpha", SCALAR)};
static const ox_param_decl p_mul[] = {OX_PARAM("self", T), OX_PARAM("other", TSCALAR)};
static const ox_param_decl p_constant_pad_nd[] = {OX_PARAM("self", T), OX_PARAM("pad", INTS), OX_PARAM("value", SCALAR)};
static const ox_param_decl p_transpose[] = {OX_PARAM("self", T), OX_PARAM("dim0", INT), OX_PARAM("dim1", INT)};
static const ox_param_decl p_permute[] = {OX_PARAM("self", T), OX_PARAM("dims", INTS)};
static const ox_param_decl p_unsqueeze[] = {OX_PARAM("self", T), OX_PARAM("dim", INT)};
static const ox_param_decl p_squeeze[] = {OX_PARAM("self", T), OX_PARAM("dim", INT)};
static const ox_param_decl p_mean[] = {
    OX_PARAM("self", T), OX_PARAM("dim", INTS), OX_PARAM("keepdim", BOOL), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_select[] = {OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("index", INT)};
static const ox_param_decl p_slice[] = {
    OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("start", INT), OX_PARAM("end", INT), OX_PARAM("step", INT)};

static const ox_param_decl p_gelu[] = {OX_PARAM("self", T), OX_PARAM("approximate", OX_ARG_STRING)};
static const ox_param_decl p_layer_norm[] = {
    OX_PARAM("input", T), OX_PARAM("normalized_shape", INTS), OX_PARAM("weight", TOPT), OX_PARAM("bias", TOPT),
    OX_PARAM("eps", FLOAT), OX_PARAM("cudnn_enable", BOOL)};
static const ox_param_decl p_group_norm[] = {
    OX_PARAM("input", T), OX_PARAM("num_groups", INT), OX_PARAM("weight", TOPT), OX_PARAM("bias", TOPT),
    OX_PARAM("eps", FLOAT), OX_PARAM("cudnn_enabled", BOOL)};
static const ox_param_decl p_instance_norm[] = {
    OX_PARAM("input", T), OX_PARAM("weight", TOPT), OX_PARAM("bias", TOPT), OX_PARAM("running_mean", TOPT),
    OX_PARAM("running_var", TOPT), OX_PARAM("use_input_stats", BOOL), OX_PARAM("momentum", FLOAT), OX_PARAM("eps", FLOAT),
    OX_PARAM("cudnn_enabled", BOOL)};
static const ox_param_decl p_index[] = {OX_PARAM("self", T), OX_PARAM("indices", TLIST)};
static const ox_param_decl p_index_put[] = {
    OX_PARAM("self", T), OX_PARAM("indices", TLIST), OX_PARAM("values", TSCALAR), OX_PARAM("accumulate", BOOL)};
static const ox_param_decl p_slice_scatter[] = {
    OX_PARAM("self", T), OX_PARAM("src", T), OX_PARAM("dim", INT), OX_PARAM("start", INT), OX_PARAM("end", INT), OX_PARAM("step", INT)};
static const ox_param_decl p_copy[] = {OX_PARAM("self", T), OX_PARAM("src", TSCALAR), OX_PARAM("non_blocking", BOOL)};
static const ox_param_decl p_fill[] = {OX_PARAM("self", T), OX_PARAM("value", TSCALAR)};
static const ox_param_decl p_roll[] = {OX_PARAM("self", T), OX_PARAM("shifts", INTS), OX_PARAM("dims", INTS)};
static const ox_param_decl p_expand[] = {OX_PARAM("self", T), OX_PARAM("size", INTS)};
static const ox_param_decl p_repeat[] = {OX_PARAM("self", T), OX_PARAM("repeats", INTS)};
static const ox_param_decl p_stack[] = {OX_PARAM("tensors", TLIST), OX_PARAM("dim", INT)};

static const ox_param_decl p_to[] = {OX_PARAM("self", T), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_logical[] = {OX_PARAM("self", T), OX_PARAM("other", T)};
static const ox_param_decl p_baddbmm[] = {
    OX_PARAM("self", T), OX_PARAM("batch1", T), OX_PARAM("batch2", T), OX_PARAM("beta", SCALAR), OX_PARAM("alpha", SCALAR)};
static const ox_param_decl p_pow[] = {OX_PARAM("self", T), OX_PARAM("exponent", TSCALAR)};
static const ox_param_decl p_clamp[] = {OX_PARAM("self", T), OX_PARAM("min", SCALAR), OX_PARAM("max", SCALAR)};
static const ox_param_decl p_where[] = {OX_PARAM("condition", T), OX_PARAM("self", TSCALAR), OX_PARAM("other", TSCALAR)};
static const ox_param_decl p_masked_fill[] = {OX_PARAM("self", T), OX_PARAM("mask", T), OX_PARAM("value", TSCALAR)};
static const ox_param_decl p_sum[] = {
    OX_PARAM("self", T), OX_PARAM("dim", INTS), OX_PARAM("keepdim", BOOL), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_amax[] = {OX_PARAM("self", T), OX_PARAM("dim", INTS), OX_PARAM("keepdim", BOOL)};
static const ox_param_decl p_argmax[] = {OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("keepdim", BOOL)};
static const ox_param_decl p_cumsum[] = {OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_topk[] = {
    OX_PARAM("self", T), OX_PARAM("k", INT), OX_PARAM("dim", INT), OX_PARAM("largest", BOOL), OX_PARAM("sorted", BOOL)};

static const ox_param_decl p_one_hot[] = {OX_PARAM("self", T), OX_PARAM("num_classes", INT)};
static const ox_param_decl p_triangle[] = {OX_PARAM("self", T), OX_PARAM("diagonal", INT)};
static const ox_param_decl p_size[] = {OX_PARAM("self", T), OX_PARAM("dim", INT)};
static const ox_param_decl p_factory[] = {OX_PARAM("size", INTS), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_full[] = {OX_PARAM("size", INTS), OX_PARAM("fill_value", SCALAR), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_like[] = {OX_PARAM("self", T), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_full_like[] = {OX_PARAM("self", T), OX_PARAM("fill_value", SCALAR), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_arange[] = {
    OX_PARAM("start", SCALAR), OX_PARAM("end", SCALAR), OX_PARAM("step", SCALAR), OX_PARAM("dtype", DTYPE)};
static const ox_param_decl p_upsample_nearest[] = {
    OX_PARAM("self", T), OX_PARAM("output_size", INTS), OX_PARAM("scales", OX_ARG_FLOATS)};
static const ox_param_decl p_upsample_bilinear[] = {
    OX_PARAM("self", T), OX_PARAM("output_size", INTS), OX_PARAM("align_corners", BOOL), OX_PARAM("scales", OX_ARG_FLOATS)};
static const ox_param_decl p_pad_mode[] = {OX_PARAM("self", T), OX_PARAM("padding", INTS)};

/* Rows not yet moved next to their symbolics (each family file will carry its own). */
const ox_op_decl at_ops_unsorted[] = {
    OP("aten::conv1d", 9, p_conv, 1, at_sym_conv),
    OP("aten::conv2d", 9, p_conv, 1, at_sym_conv),
    OP("aten::conv3d", 9, p_conv, 1, at_sym_conv),
    OP("aten::convolution", 9, p_convolution, 1, at_sym_convolution),
    OP("aten::conv_transpose2d", 9, p_conv_transpose2d, 1, at_sym_conv_transpose2d),
    OP("aten::batch_norm", 9, p_batch_norm, 1, at_sym_batch_norm),
    OP("aten::relu", 9, p_self, 1, at_sym_relu),
    OP("aten::tanh", 9, p_self, 1, at_sym_tanh),
    OP("aten::sigmoid", 9, p_self, 1, at_sym_sigmoid),
    OP("aten::leaky_relu", 9, p_leaky_relu, 1, at_sym_leaky_relu),
    OP("aten::hardtanh", 9, p_hardtanh, 1, at_sym_hardtanh_9),
    OP("aten::hardtanh", 11, p_hardtanh, 1, at_sym_hardtanh_11),
    OP("aten::max_pool2d", 9, p_max_pool2d, 1, at_sym_max_pool2d_9),
    OP("aten::max_pool2d", 10, p_max_pool2d, 1, at_sym_max_pool2d_10),
    OP("aten::avg_pool2d", 9, p_avg_pool2d, 1, at_sym_avg_pool2d_9),
    OP("aten::avg_pool2d", 10, p_avg_pool2d, 1, at_sym_avg_pool2d_10),
    OP("aten::adaptive_avg_pool2d", 9, p_adaptive_avg_pool2d, 1, at_sym_adaptive_avg_pool2d),
    OP("aten::linear", 9, p_linear, 1, at_sym_linear),
    OP("aten::addmm", 9, p_addmm, 1, at_sym_addmm),
    OP("aten::matmul", 9, p_matmul, 1, at_sym_matmul),
    OP("aten::mm", 9, p_mm, 1, at_sym_mm),
    OP("aten::bmm", 9, p_mm, 1, at_sym_mm),
    OP("aten::dropout", 9, p_dropout, 1, at_sym_dropout),
    OP("aten::feature_dropout", 9, p_dropout, 1, at_sym_dropout),
    OP("aten::cat", 9, p_cat, 1, at_sym_cat),
    OP("aten::flatten", 9, p_flatten, 1, at_sym_flatten),
    OP("aten::view", 9, p_view, 1, at_sym_view),
    OP("aten::reshape", 9, p_reshape, 1, at_sym_reshape),
    OP("aten::softmax", 9, p_softmax, 1, at_sym_softmax_9),
    OP("aten::softmax", 13, p_softmax, 1, at_sym_softmax_13),
    OP("aten::log_softmax", 9, p_softmax, 1, at_sym_log_softmax_9),
    OP("aten::log_softmax", 13, p_softmax, 1, at_sym_log_softmax_13),
    OP("aten::embedding", 9, p_embedding, 1, at_sym_embedding),
    OP("aten::lstm", 9, p_lstm, 3, at_sym_lstm),
    OP("aten::gru", 9, p_rnn, 2, at_sym_gru),
    OP("aten::rnn_tanh", 9, p_rnn, 2, at_sym_rnn_tanh),
    OP("aten::rnn_relu", 9, p_rnn, 2, at_sym_rnn_relu),
    OP("aten::pixel_shuffle", 9, p_pixel_shuffle, 1, at_sym_pixel_shuffle_9),
    OP("aten::pixel_shuffle", 11, p_pixel_shuffle, 1, at_sym_pixel_shuffle_11),
    OP("aten::add", 9, p_add, 1, at_sym_add),
    OP("aten::sub", 9, p_add, 1, at_sym_sub),
    OP("aten::mul", 9, p_mul, 1, at_sym_mul),
    OP("aten::div", 9, p_mul, 1, at_sym_div),
    OP("aten::constant_pad_nd", 9, p_constant_pad_nd, 1, at_sym_constant_pad_nd),
    OP("aten::t", 9, p_self, 1, at_sym_t),
    OP("aten::transpose", 9, p_transpose, 1, at_sym_transpose),
    OP("aten::permute", 9, p_permute, 1, at_sym_permute),
    OP("aten::contiguous", 9, p_self, 1, at_sym_contiguous),
    OP("aten::unsqueeze", 9, p_unsqueeze, 1, at_sym_unsqueeze),
    OP("aten::squeeze", 9, p_squeeze, 1, at_sym_squeeze),
    OP("aten::mean", 9, p_mean, 1, at_sym_mean),
    OP("aten::select", 9, p_select, 1, at_sym_select),
    OP("aten::slice", 9, p_slice, 1, at_sym_slice),
    OP("aten::gelu", 9, p_gelu, 1, at_sym_gelu),
    OP("aten::silu", 9, p_self, 1, at_sym_silu),
    OP("aten::hardsigmoid", 9, p_self, 1, at_sym_hardsigmoid),
    OP("aten::hardswish", 9, p_self, 1, at_sym_hardswish_9),
    OP("aten::hardswish", 14, p_self, 1, at_sym_hardswish_14),
    OP("aten::layer_norm", 9, p_layer_norm, 1, at_sym_layer_norm_9),
    OP("aten::layer_norm", 17, p_layer_norm, 1, at_sym_layer_norm_17),
    OP("aten::group_norm", 9, p_group_norm, 1, at_sym_group_norm),
    OP("aten::instance_norm", 9, p_instance_norm, 1, at_sym_instance_norm),
    OP("aten::index", 9, p_index, 1, at_sym_index),
    OP("aten::index_put", 9, p_index_put, 1, at_sym_index_put),
    OP("aten::slice_scatter", 9, p_slice_scatter, 1, at_sym_slice_scatter),
    OP("aten::copy", 9, p_copy, 1, at_sym_copy),
    OP("aten::fill", 9, p_fill, 1, at_sym_fill),
    OP("aten::zero", 9, p_self, 1, at_sym_zero),
    OP("aten::roll", 9, p_roll, 1, at_sym_roll),
    OP("aten::expand", 9, p_expand, 1, at_sym_expand),
    OP("aten::repeat", 9, p_repeat, 1, at_sym_repeat),
    OP("aten::stack", 9, p_stack, 1, at_sym_stack),
    OP("aten::to", 9, p_to, 1, at_sym_to),
    OP("aten::logical_or", 9, p_logical, 1, at_sym_logical_or),
    OP("aten::logical_and", 9, p_logical, 1, at_sym_logical_and),
    OP("aten::logical_xor", 9, p_logical, 1, at_sym_logical_xor),
    OP("aten::logical_not", 9, p_self, 1, at_sym_logical_not),
    OP("aten::baddbmm", 9, p_baddbmm, 1, at_sym_baddbmm),
    OP("aten::exp", 9, p_self, 1, at_sym_exp),
    OP("aten::log", 9, p_self, 1, at_sym_log),
    OP("aten::sqrt", 9, p_self, 1, at_sym_sqrt),
    OP("aten::rsqrt", 9, p_self, 1, at_sym_rsqrt),
    OP("aten::reciprocal", 9, p_self, 1, at_sym_reciprocal),
    OP("aten::erf", 9, p_self, 1, at_sym_erf),
    OP("aten::floor", 9, p_self, 1, at_sym_floor),
    OP("aten::ceil", 9, p_self, 1, at_sym_ceil),
    OP("aten::sin", 9, p_self, 1, at_sym_sin),
    OP("aten::cos", 9, p_self, 1, at_sym_cos),
    OP("aten::sign", 9, p_self, 1, at_sym_sign),
    OP("aten::rsub", 9, p_add, 1, at_sym_rsub),
    OP("aten::neg", 9, p_self, 1, at_sym_neg),
    OP("aten::abs", 9, p_self, 1, at_sym_abs),
    OP("aten::pow", 9, p_pow, 1, at_sym_pow),
    OP("aten::maximum", 9, p_mul, 1, at_sym_maximum),
    OP("aten::minimum", 9, p_mul, 1, at_sym_minimum),
    OP("aten::clamp", 9, p_clamp, 1, at_sym_clamp_9),
    OP("aten::clamp", 11, p_clamp, 1, at_sym_clamp_11),
    OP("aten::eq", 9, p_mul, 1, at_sym_eq),
    OP("aten::ne", 9, p_mul, 1, at_sym_ne),
    OP("aten::gt", 9, p_mul, 1, at_sym_gt),
    OP("aten::lt", 9, p_mul, 1, at_sym_lt),
    OP("aten::ge", 9, p_mul, 1, at_sym_ge),
    OP("aten::le", 9, p_mul, 1, at_sym_le),
    OP("aten::where", 9, p_where, 1, at_sym_where),
    OP("aten::masked_fill", 9, p_masked_fill, 1, at_sym_masked_fill),
    OP("aten::sum", 9, p_sum, 1, at_sym_sum_9),
    OP("aten::sum", 13, p_sum, 1, at_sym_sum_13),
    OP("aten::amax", 9, p_amax, 1, at_sym_amax),
    OP("aten::amin", 9, p_amax, 1, at_sym_amin),
    OP("aten::argmax", 9, p_argmax, 1, at_sym_argmax),
    OP("aten::argmin", 9, p_argmax, 1, at_sym_argmin),
    OP("aten::cumsum", 11, p_cumsum, 1, at_sym_cumsum),
    OP("aten::topk", 9, p_topk, 2, at_sym_topk),
    OP("aten::one_hot", 9, p_one_hot, 1, at_sym_one_hot),
    OP("aten::triu", 11, p_triangle, 1, at_sym_triu),
    OP("aten::tril", 11, p_triangle, 1, at_sym_tril),
    OP("aten::size", 9, p_size, 1, at_sym_size),
    OP("aten::numel", 9, p_self, 1, at_sym_numel),
    OP("aten::floor_divide", 9, p_mul, 1, at_sym_floor_divide),
    OP("aten::remainder", 9, p_mul, 1, at_sym_remainder),
    OP("aten::zeros", 9, p_factory, 1, at_sym_zeros),
    OP("aten::ones", 9, p_factory, 1, at_sym_ones),
    OP("aten::full", 9, p_full, 1, at_sym_full),
    OP("aten::zeros_like", 9, p_like, 1, at_sym_zeros_like),
    OP("aten::ones_like", 9, p_like, 1, at_sym_ones_like),
    OP("aten::full_like", 9, p_full_like, 1, at_sym_full_like),
    OP("aten::rand_like", 9, p_like, 1, at_sym_rand_like),
    OP("aten::randn_like", 9, p_like, 1, at_sym_randn_like),
    OP("aten::arange", 9, p_arange, 1, at_sym_arange),
    OP("aten::upsample_nearest2d", 9, p_upsample_nearest, 1, at_sym_upsample_nearest2d),
    OP("aten::upsample_bilinear2d", 11, p_upsample_bilinear, 1, at_sym_upsample_bilinear2d),
    OP("aten::reflection_pad1d", 9, p_pad_mode, 1, at_sym_reflection_pad),
    OP("aten::reflection_pad2d", 9, p_pad_mode, 1, at_sym_reflection_pad),
    OP("aten::replication_pad1d", 9, p_pad_mode, 1, at_sym_replication_pad),
    OP("aten::replication_pad2d", 9, p_pad_mode, 1, at_sym_replication_pad),
    OP("aten::replication_pad3d", 9, p_pad_mode, 1, at_sym_replication_pad),
};

AT_FAMILY_SIZE(at_ops_unsorted);
