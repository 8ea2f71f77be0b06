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

static const ox_param_decl p_self[] = {OX_PARAM("self", T)};
static const ox_param_decl p_cat[] = {OX_PARAM("tensors", TLIST), OX_PARAM("dim", INT)};
static const ox_param_decl p_flatten[] = {OX_PARAM("self", T), OX_PARAM("start_dim", INT), OX_PARAM("end_dim", INT)};
static const ox_param_decl p_view[] = {OX_PARAM("self", T), OX_PARAM("size", INTS)};
static const ox_param_decl p_reshape[] = {OX_PARAM("self", T), OX_PARAM("shape", INTS)};
static const ox_param_decl p_pixel_shuffle[] = {OX_PARAM("self", T), OX_PARAM("upscale_factor", INT)};
static const ox_param_decl p_transpose[] = {OX_PARAM("self", T), OX_PARAM("dim0", INT), OX_PARAM("dim1", INT)};
static const ox_param_decl p_permute[] = {OX_PARAM("self", T), OX_PARAM("dims", INTS)};
static const ox_param_decl p_unsqueeze[] = {OX_PARAM("self", T), OX_PARAM("dim", INT)};
static const ox_param_decl p_squeeze[] = {OX_PARAM("self", T), OX_PARAM("dim", INT)};
static const ox_param_decl p_select[] = {OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("index", INT)};
static const ox_param_decl p_slice[] = {
    OX_PARAM("self", T), OX_PARAM("dim", INT), OX_PARAM("start", INT), OX_PARAM("end", INT), OX_PARAM("step", INT)};

static const ox_param_decl p_index[] = {OX_PARAM("self", T), OX_PARAM("indices", TLIST)};
static const ox_param_decl p_index_put[] = {
    OX_PARAM("self", T), OX_PARAM("indices", TLIST), OX_PARAM("values", TSCALAR), OX_PARAM("accumulate", BOOL)};
static const ox_param_decl p_slice_scatter[] = {
    OX_PARAM("self", T), OX_PARAM("src", T), OX_PARAM("dim", INT), OX_PARAM("start", INT), OX_PARAM("end", INT), OX_PARAM("step", INT)};
static const ox_param_decl p_copy[] = {OX_PARAM("self", T), OX_PARAM("src", TSCALAR), OX_PARAM("non_blocking", BOOL)};
static const ox_param_decl p_fill[] = {OX_PARAM("self", T), OX_PARAM("value", TSCALAR)};
static const ox_param_decl p_expand[] = {OX_PARAM("self", T), OX_PARAM("size", INTS)};
static const ox_param_decl p_repeat[] = {OX_PARAM("self", T), OX_PARAM("repeats", INTS)};
static const ox_param_decl p_stack[] = {OX_PARAM("tensors", TLIST), OX_PARAM("dim", INT)};


static const ox_param_decl p_upsample_nearest[] = {
    OX_PARAM("self", T), OX_PARAM("output_size", INTS), OX_PARAM("scales", OX_ARG_FLOATS)};
static const ox_param_decl p_upsample_bilinear[] = {
    OX_PARAM("self", T), OX_PARAM("output_size", INTS), OX_PARAM("align_corners", BOOL), OX_PARAM("scales", OX_ARG_FLOATS)};

/* Rows not yet moved next to their symbolics (each family file will carry its own). */
const ox_op_decl at_ops_unsorted[] = {
    OP("aten::cat", 9, p_cat, 1, at_sym_cat),
    OP("aten::flatten", 9, p_flatten, 1, at_sym_flatten),
    OP("aten::view", 9, p_view, 1, at_sym_view),
    OP("aten::reshape", 9, p_reshape, 1, at_sym_reshape),
    OP("aten::pixel_shuffle", 9, p_pixel_shuffle, 1, at_sym_pixel_shuffle_9),
    OP("aten::pixel_shuffle", 11, p_pixel_shuffle, 1, at_sym_pixel_shuffle_11),
    OP("aten::t", 9, p_self, 1, at_sym_t),
    OP("aten::transpose", 9, p_transpose, 1, at_sym_transpose),
    OP("aten::permute", 9, p_permute, 1, at_sym_permute),
    OP("aten::contiguous", 9, p_self, 1, at_sym_contiguous),
    OP("aten::unsqueeze", 9, p_unsqueeze, 1, at_sym_unsqueeze),
    OP("aten::squeeze", 9, p_squeeze, 1, at_sym_squeeze),
    OP("aten::select", 9, p_select, 1, at_sym_select),
    OP("aten::slice", 9, p_slice, 1, at_sym_slice),
    OP("aten::index", 9, p_index, 1, at_sym_index),
    OP("aten::index_put", 9, p_index_put, 1, at_sym_index_put),
    OP("aten::slice_scatter", 9, p_slice_scatter, 1, at_sym_slice_scatter),
    OP("aten::copy", 9, p_copy, 1, at_sym_copy),
    OP("aten::fill", 9, p_fill, 1, at_sym_fill),
    OP("aten::zero", 9, p_self, 1, at_sym_zero),
    OP("aten::expand", 9, p_expand, 1, at_sym_expand),
    OP("aten::repeat", 9, p_repeat, 1, at_sym_repeat),
    OP("aten::stack", 9, p_stack, 1, at_sym_stack),
    OP("aten::upsample_nearest2d", 9, p_upsample_nearest, 1, at_sym_upsample_nearest2d),
    OP("aten::upsample_bilinear2d", 11, p_upsample_bilinear, 1, at_sym_upsample_bilinear2d),
};

AT_FAMILY_SIZE(at_ops_unsorted);
