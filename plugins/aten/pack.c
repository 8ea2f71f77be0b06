/* The aten pack's descriptor: every operator of docs/recording-conventions.md
 * with its parameters in schema order, its forward arity and, where the
 * lowering changes with the opset, one entry per since-opset. */
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
#define OP(name, since, params, outs, fn) {name, since, params, N(params), outs, fn}

static const ox_param_decl p_conv[] = {
    {"input", T}, {"weight", T}, {"bias", TOPT}, {"stride", INTS},
    {"padding", INTS}, {"dilation", INTS}, {"groups", INT}};
static const ox_param_decl p_convolution[] = {
    {"input", T}, {"weight", T}, {"bias", TOPT}, {"stride", INTS}, {"padding", INTS},
    {"dilation", INTS}, {"transposed", BOOL}, {"output_padding", INTS}, {"groups", INT}};
static const ox_param_decl p_conv_transpose2d[] = {
    {"input", T}, {"weight", T}, {"bias", TOPT}, {"stride", INTS},
    {"padding", INTS}, {"output_padding", INTS}, {"groups", INT}, {"dilation", INTS}};
static const ox_param_decl p_batch_norm[] = {
    {"input", T}, {"weight", TOPT}, {"bias", TOPT}, {"running_mean", TOPT},
    {"running_var", TOPT}, {"training", BOOL}, {"momentum", FLOAT}, {"eps", FLOAT},
    {"cudnn_enabled", BOOL}};
static const ox_param_decl p_self[] = {{"self", T}};
static const ox_param_decl p_leaky_relu[] = {{"self", T}, {"negative_slope", SCALAR}};
static const ox_param_decl p_hardtanh[] = {{"self", T}, {"min_val", SCALAR}, {"max_val", SCALAR}};
static const ox_param_decl p_max_pool2d[] = {
    {"self", T}, {"kernel_size", INTS}, {"stride", INTS},
    {"padding", INTS}, {"dilation", INTS}, {"ceil_mode", BOOL}};
static const ox_param_decl p_avg_pool2d[] = {
    {"self", T}, {"kernel_size", INTS}, {"stride", INTS}, {"padding", INTS},
    {"ceil_mode", BOOL}, {"count_include_pad", BOOL}, {"divisor_override", INT}};
static const ox_param_decl p_adaptive_avg_pool2d[] = {{"self", T}, {"output_size", INTS}};
static const ox_param_decl p_linear[] = {{"input", T}, {"weight", T}, {"bias", TOPT}};
static const ox_param_decl p_addmm[] = {
    {"self", T}, {"mat1", T}, {"mat2", T}, {"beta", SCALAR}, {"alpha", SCALAR}};
static const ox_param_decl p_matmul[] = {{"self", T}, {"other", T}};
static const ox_param_decl p_mm[] = {{"self", T}, {"mat2", T}};
static const ox_param_decl p_dropout[] = {{"input", T}, {"p", FLOAT}, {"train", BOOL}};
static const ox_param_decl p_cat[] = {{"tensors", TLIST}, {"dim", INT}};
static const ox_param_decl p_flatten[] = {{"self", T}, {"start_dim", INT}, {"end_dim", INT}};
static const ox_param_decl p_view[] = {{"self", T}, {"size", INTS}};
static const ox_param_decl p_reshape[] = {{"self", T}, {"shape", INTS}};
static const ox_param_decl p_softmax[] = {{"self", T}, {"dim", INT}, {"dtype", DTYPE}};
static const ox_param_decl p_embedding[] = {
    {"weight", T}, {"indices", T}, {"padding_idx", INT},
    {"scale_grad_by_freq", BOOL}, {"sparse", BOOL}};
static const ox_param_decl p_lstm[] = {
    {"input", T}, {"hx", TLIST}, {"params", TLIST}, {"has_biases", BOOL},
    {"num_layers", INT}, {"dropout", FLOAT}, {"train", BOOL}, {"bidirectional", BOOL},
    {"batch_first", BOOL}};
static const ox_param_decl p_rnn[] = {
    {"input", T}, {"hx", T}, {"params", TLIST}, {"has_biases", BOOL},
    {"num_layers", INT}, {"dropout", FLOAT}, {"train", BOOL}, {"bidirectional", BOOL},
    {"batch_first", BOOL}};
static const ox_param_decl p_pixel_shuffle[] = {{"self", T}, {"upscale_factor", INT}};
static const ox_param_decl p_add[] = {{"self", T}, {"other", TSCALAR}, {"alpha", SCALAR}};
static const ox_param_decl p_mul[] = {{"self", T}, {"other", TSCALAR}};
static const ox_param_decl p_constant_pad_nd[] = {{"self", T}, {"pad", INTS}, {"value", SCALAR}};
static const ox_param_decl p_transpose[] = {{"self", T}, {"dim0", INT}, {"dim1", INT}};
static const ox_param_decl p_permute[] = {{"self", T}, {"dims", INTS}};
static const ox_param_decl p_unsqueeze[] = {{"self", T}, {"dim", INT}};
static const ox_param_decl p_squeeze[] = {{"self", T}, {"dim", INT}};
static const ox_param_decl p_mean[] = {
    {"self", T}, {"dim", INTS}, {"keepdim", BOOL}, {"dtype", DTYPE}};
static const ox_param_decl p_select[] = {{"self", T}, {"dim", INT}, {"index", INT}};
static const ox_param_decl p_slice[] = {
    {"self", T}, {"dim", INT}, {"start", INT}, {"end", INT}, {"step", INT}};

static const ox_op_decl ops[] = {
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
};

static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "aten",
    "0.1.0",
    "ATen operators: convolution, pooling, linear algebra, activations, shape ops, RNNs",
    ops,
    N(ops),
    NULL,
    NULL,
};

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    return &desc;
}
