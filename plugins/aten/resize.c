/* Spatial upsampling.  Interpolation: upsample_nearest2d -> Upsample (opset 9) / Resize;
 * upsample_bilinear2d -> Resize from opset 11, the first whose coordinate
 * transformation modes express torch's align_corners=True and =False
 * (pytorch_half_pixel), and Gathers with torch's weights before (below).  The recorded output_size is the spatial size: two
 * numbers, or a 1-D int64 tensor built from traced sizes; or, for a
 * scale_factor, `scales` (two floats), so the output follows the input's
 * size at run time.  The other spatial ranks and modes share one N-D
 * symbolic (below).  pixel_shuffle (sub-pixel upsampling) -> DepthToSpace;
 * pixel_unshuffle -> Reshape, Transpose, Reshape. */
#include <string.h>

#include <stdint.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int has_scales(ox_sym *g, const ox_api *api);

static int out_hw(ox_sym *g, const ox_api *api, ox_vid x, int64_t hw[2])
{
    const int64_t *os = NULL;
    if (api->rank(g, x) != 4)
        return api->fail(g, "2-D interpolation needs a rank-4 input, got rank %d",
                         api->rank(g, x));
    hw[0] = hw[1] = -1;
    if (has_scales(g, api))
        return 0;
    if (api->arg_kind(g, "output_size") == OX_ARG_TENSOR)
        return 0; /* from opset 11 (check_upsample) */
    if (api->arg_ints(g, "output_size", &os) != 2)
        return api->fail(g, "argument 'output_size' must hold 2 sizes (height, width)");
    hw[0] = os[0];
    hw[1] = os[1];
    return 0;
}

/* The float constant [1, 1, sh, sw]: Upsample's and Resize's scales. */
static ox_vid scales_const(ox_sym *g, const ox_api *api, double sh, double sw)
{
    float s[4] = {1.0f, 1.0f, (float)sh, (float)sw};
    int64_t four = 4;
    ox_vid v = api->constant(g, OX_FLOAT, 1, &four, s);
    if (!v)
        api->fail(g, "could not create the scales constant");
    return v;
}

/* Scales [1, 1, out_h/in_h, out_w/in_w] for the opset 9/10 forms. */
static ox_vid scales(ox_sym *g, const ox_api *api, ox_vid x, const int64_t hw[2])
{
    int64_t ih = oxu_fixed_size(g, api, x, 2), iw = oxu_fixed_size(g, api, x, 3);
    if (ih <= 0 || iw <= 0) {
        api->fail(g, "interpolation before opset 11 needs the input's spatial sizes, which "
                     "are unknown; record them or export with opset 11");
        return 0;
    }
    return scales_const(g, api, (double)hw[0] / (double)ih, (double)hw[1] / (double)iw);
}

/* [1, 1, sh, sw] from the recorded `scales`; 0 when none were recorded. */
static ox_vid recorded_scales(ox_sym *g, const ox_api *api)
{
    const double *sc = NULL;
    if (!api->arg_present(g, "scales") || api->arg_kind(g, "scales") == OX_ARG_NONE)
        return 0;
    if (api->arg_floats(g, "scales", &sc) != 2) {
        api->fail(g, "argument 'scales' must hold 2 factors (height, width)");
        return 0;
    }
    return scales_const(g, api, sc[0], sc[1]);
}

static int has_scales(ox_sym *g, const ox_api *api)
{
    return api->arg_present(g, "scales") && api->arg_kind(g, "scales") != OX_ARG_NONE;
}

/* Resize from opset 11 with explicit sizes Concat(Shape(x)[0:2], out_hw), so
 * the batch and channel dims stay whatever the input has; or with the
 * recorded scales. */
static ox_vid resize_11_aa(ox_sym *g, const ox_api *api, ox_vid x, const int64_t hw[2],
                           const char *mode, const char *coord, int antialias, double cubic_a);

static ox_vid resize_11(ox_sym *g, const ox_api *api, ox_vid x, const int64_t hw[2],
                        const char *mode, const char *coord)
{
    return resize_11_aa(g, api, x, hw, mode, coord, 0, 0.0);
}

/* antialias (Resize-18's attribute, 0 before) and, when nonzero, cubic_a
 * (cubic_coeff_a) as given. */
static ox_vid resize_11_aa(ox_sym *g, const ox_api *api, ox_vid x, const int64_t hw[2],
                           const char *mode, const char *coord, int antialias, double cubic_a)
{
    ox_vid sizes = 0, sc = 0;
    if (has_scales(g, api)) {
        if (!(sc = recorded_scales(g, api)))
            return 0;
    } else {
        ox_vid nc = at_slice(g, api, at_op1(g, api, "Shape", x), 0, 0, 2, 1);
        ox_vid tail = api->arg_kind(g, "output_size") == OX_ARG_TENSOR
                          ? api->arg_tensor(g, "output_size")
                          : api->const_ints(g, hw, 2);
        ox_vid parts[2] = {nc, tail};
        sizes = at_concat(g, api, parts, 2, 0);
        if (!sizes)
            return 0;
    }
    ox_vid in[4] = {x, 0, sc, sizes};
    if (sc) {
        /* roi is required before 13 even with scales; an empty one means unused */
        if (api->opset(g) < 13) {
            int64_t zero = 0;
            in[1] = at_op1(g, api, "ConstantOfShape", api->const_ints(g, &zero, 1));
            if (!in[1])
                return 0;
        }
    } else if (api->opset(g) < 13) {
        /* roi and scales are required inputs before 13; empty means unused.
         * ConstantOfShape([0]) makes the empty float tensor at run time (the
         * writer is not handed a zero-byte constant). */
        int64_t zero = 0;
        ox_vid empty = at_op1(g, api, "ConstantOfShape", api->const_ints(g, &zero, 1));
        if (!empty)
            return 0;
        in[1] = in[2] = empty;
    }
    ox_onode *r = api->op(g, "Resize", sc ? 3 : 4, in, 1);
    if (r) {
        api->attr_string(r, "mode", mode);
        api->attr_string(r, "coordinate_transformation_mode", coord);
        if (strcmp(mode, "nearest") == 0)
            api->attr_string(r, "nearest_mode", "floor");
        if (antialias) {
            api->attr_int(r, "antialias", 1);
            /* torch's filter weights only the taps inside the input */
            api->attr_int(r, "exclude_outside", 1);
        }
        if (cubic_a != 0.0)
            api->attr_float(r, "cubic_coeff_a", cubic_a);
    }
    return at_out(g, api, r, "Resize");
}

/* Resize takes its output sizes as an input from opset 11 only, so before
 * that an output size computed from traced sizes has no form. */
static int check_upsample(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 11 && api->arg_kind(g, "output_size") == OX_ARG_TENSOR)
        return api->limit(g, 11, "an output size computed from traced sizes needs Resize's "
                                 "sizes input");
    return 0;
}

static int sym_upsample_nearest2d(ox_sym *g, const ox_api *api)
{
    ox_vid src = api->arg_tensor(g, "self");
    int64_t hw[2];
    if (out_hw(g, api, src, hw))
        return 1;
    ox_vid x = at_float64_as_float(g, api, src);
    int opset = api->opset(g);
    ox_vid y;
    if (opset >= 11) {
        y = resize_11(g, api, x, hw, "nearest", "asymmetric");
    } else {
        ox_vid in[2] = {x, has_scales(g, api) ? recorded_scales(g, api) : scales(g, api, src, hw)};
        if (!in[1])
            return 1;
        const char *type = opset < 10 ? "Upsample" : "Resize";
        ox_onode *n = api->op(g, type, 2, in, 1);
        if (n)
            api->attr_string(n, "mode", "nearest");
        y = at_out(g, api, n, type);
    }
    return oxu_set_result_recorded(g, api, 0, y);
}

static int sym_upsample_bilinear2d(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t hw[2];
    if (out_hw(g, api, x, hw))
        return 1;
    int align = api->arg_int(g, "align_corners", 0) != 0;
    ox_vid y = resize_11(g, api, at_float64_as_float(g, api, x), hw, "linear",
                         align ? "align_corners" : "pytorch_half_pixel");
    return oxu_set_result_recorded(g, api, 0, y);
}

/* F.interpolate(antialias=True), bilinear or bicubic: Resize-18 with
 * antialias, which widens the filter by the downscaling factor as torch
 * does, and exclude_outside (torch weighs only the taps inside the input);
 * torch's antialiased bicubic uses the coefficient a = -0.5 (its plain
 * bicubic -0.75).  With align_corners=True no coordinate mode of Resize
 * gives torch's numbers (measured with ONNX Runtime 1.30: errors of the
 * output's own size), so that is a limitation. */
static int check_upsample_aa(ox_sym *g, const ox_api *api)
{
    if (api->arg_int(g, "align_corners", 0))
        return api->limit(g, 0, "F.interpolate(antialias=True, align_corners=True): Resize's "
                                "antialiased filter maps align_corners coordinates unlike torch");
    return 0;
}

static int sym_upsample_aa(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t hw[2];
    if (out_hw(g, api, x, hw))
        return 1;
    int cubic = strstr(api->op_name(g), "bicubic") != NULL;
    int align = api->arg_int(g, "align_corners", 0) != 0;
    ox_vid y = resize_11_aa(g, api, at_float64_as_float(g, api, x), hw, cubic ? "cubic" : "linear",
                            align ? "align_corners" : "pytorch_half_pixel", 1, cubic ? -0.5 : 0.0);
    return oxu_set_result_recorded(g, api, 0, y);
}

/* ---------------------------------------------------------------- N-D interpolation
 *
 * upsample_nearest1d/3d, upsample_linear1d, upsample_bicubic2d and
 * upsample_trilinear3d: one symbolic over oxu_resize.  The spatial rank is
 * the operator name's digit; the mode its word.  Nearest maps coordinates
 * as torch does (asymmetric, floor) at every opset; linear and cubic need
 * Resize-11's pytorch_half_pixel / align_corners (cubic starts at 11, as in
 * torch.onnx; linear has the Gather form before, below). */

#define UPSAMPLE_MAX_DIMS 3

static int upsample_dims(ox_sym *g, const ox_api *api)
{
    const char *name = api->op_name(g);
    size_t n = strlen(name);
    for (size_t i = n; i > 0; i--)
        if (name[i - 1] >= '1' && name[i - 1] <= '3')
            return name[i - 1] - '0';
    return 2;
}

static int sym_upsample(ox_sym *g, const ox_api *api)
{
    ox_vid src = api->arg_tensor(g, "self");
    int nd = upsample_dims(g, api);
    const char *name = api->op_name(g);
    int nearest = strstr(name, "nearest") != NULL, cubic = strstr(name, "bicubic") != NULL;
    if (api->rank(g, src) != nd + 2)
        return api->fail(g, "%s needs a rank-%d input (batch, channels, %d spatial), got rank %d",
                         name, nd + 2, nd, api->rank(g, src));
    ox_vid x = at_float64_as_float(g, api, src);
    int align = !nearest && api->arg_int(g, "align_corners", 0) != 0;
    oxu_resize_opts o = {
        .mode = nearest ? "nearest" : cubic ? "cubic" : "linear",
        .coordinate_transformation_mode = nearest ? "asymmetric"
                                          : align ? "align_corners"
                                                  : "pytorch_half_pixel",
        .nearest_mode = nearest && api->opset(g) >= 11 ? "floor" : NULL};
    if (nearest && api->opset(g) < 11)
        o.coordinate_transformation_mode = NULL; /* Upsample's only mapping: asymmetric */
    float sc[UPSAMPLE_MAX_DIMS + 2] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    size_t n = (size_t)nd + 2;
    if (has_scales(g, api)) {
        const double *f = NULL;
        if (api->arg_floats(g, "scales", &f) != (size_t)nd)
            return api->fail(g, "argument 'scales' must hold %d factors", nd);
        for (int i = 0; i < nd; i++)
            sc[2 + i] = (float)f[i];
        return oxu_set_result_recorded(g, api, 0, oxu_resize(g, api, x, sc, n, 0, &o));
    }
    if (api->arg_kind(g, "output_size") == OX_ARG_TENSOR) {
        /* traced sizes: from opset 11 (check_upsample) */
        ox_vid parts[2] = {oxu_shape_slice(g, api, x, 0, 2), api->arg_tensor(g, "output_size")};
        return oxu_set_result_recorded(
            g, api, 0, oxu_resize(g, api, x, NULL, n, oxu_concat(g, api, parts, 2, 0), &o));
    }
    const int64_t *os = NULL;
    if (api->arg_ints(g, "output_size", &os) != (size_t)nd)
        return api->fail(g, "argument 'output_size' must hold %d sizes", nd);
    if (api->opset(g) < 11) {
        /* Upsample-9 / Resize-10 take scales only: out / in from the
         * recorded sizes */
        for (int i = 0; i < nd; i++) {
            int64_t len = oxu_fixed_size(g, api, src, 2 + i);
            if (len <= 0)
                return api->fail(g, "interpolation before opset 11 needs the input's spatial "
                                    "sizes, which are unknown; record them or export with "
                                    "opset 11");
            sc[2 + i] = (float)((double)os[i] / (double)len);
        }
        return oxu_set_result_recorded(g, api, 0, oxu_resize(g, api, x, sc, n, 0, &o));
    }
    ox_vid parts[2] = {oxu_shape_slice(g, api, x, 0, 2), oxu_const_ints(g, api, os, (size_t)nd)};
    return oxu_set_result_recorded(
        g, api, 0, oxu_resize(g, api, x, NULL, n, oxu_concat(g, api, parts, 2, 0), &o));
}

/* ---------------------------------------------------------------- linear before opset 11
 *
 * Upsample-9 and Resize-10 map output coordinates asymmetrically (src = dst /
 * scale), which is neither of torch's mappings: their linear files compute
 * other values than PyTorch (torch.onnx exports them anyway, with a
 * warning).  So before opset 11 linear interpolation is spelled out, one
 * spatial axis at a time, with torch's own arithmetic
 * (area_pixel_compute_source_index): for output position j,
 *
 *   align_corners:  src = j * (in - 1) / max(out - 1, 1)
 *   otherwise:      src = max((j + 0.5) * scale - 0.5, 0), scale = 1 / the
 *                   recorded scale factor, or in / out
 *
 *   y[j] = x[floor(src)] * (1 - l) + x[min(floor(src) + 1, in - 1)] * l,
 *   l = src - floor(src)
 *
 * in float32 as torch does for float inputs, from sizes read at run time
 * (Shape; the positions j are NonZero of a ConstantOfShape, since Range is
 * opset 11), so dynamic axes follow: Gather, Mul and Add per axis. */

/* 0, 1, ..., n - 1 as float, n a 1-D int64 of one element. */
static ox_vid positions_f(ox_sym *g, const ox_api *api, ox_vid n)
{
    const int64_t axis0 = 0;
    ox_vid nz = oxu_op1(g, api, "NonZero", oxu_full(g, api, n, 1.0, OX_INT64));
    return oxu_cast(g, api, oxu_squeeze(g, api, nz, &axis0, 1), OX_FLOAT);
}

static ox_vid fconst(ox_sym *g, const ox_api *api, double v)
{
    float f = (float)v;
    return oxu_const_floats(g, api, &f, 1);
}

/* One axis of linear interpolation of x (rank `rank`) along `axis` to the
 * output size out_i (1-D int64 of one element); scale > 0 is the recorded
 * factor. */
static ox_vid linear_axis(ox_sym *g, const ox_api *api, ox_vid x, int rank, int axis, ox_vid out_i,
                          double scale, int align)
{
    ox_vid in_f = oxu_cast(g, api, oxu_shape_slice(g, api, x, axis, axis + 1), OX_FLOAT);
    ox_vid out_f = oxu_cast(g, api, out_i, OX_FLOAT);
    ox_vid j = positions_f(g, api, out_i), one = fconst(g, api, 1.0), src;
    if (align) {
        ox_vid den = oxu_op2(g, api, "Max", oxu_op2(g, api, "Sub", out_f, one), one);
        src = oxu_op2(g, api, "Mul", j, oxu_op2(g, api, "Div", oxu_op2(g, api, "Sub", in_f, one), den));
    } else {
        ox_vid step = scale > 0 ? fconst(g, api, 1.0 / scale) : oxu_op2(g, api, "Div", in_f, out_f);
        ox_vid half = fconst(g, api, 0.5);
        src = oxu_op1(g, api, "Relu", oxu_op2(g, api, "Sub", oxu_op2(g, api, "Mul", oxu_op2(g, api, "Add", j, half),
                                                                      step), half));
    }
    ox_vid lo_f = oxu_op1(g, api, "Floor", src);
    ox_vid hi_f = oxu_op2(g, api, "Min", oxu_op2(g, api, "Add", lo_f, one), oxu_op2(g, api, "Sub", in_f, one));
    ox_vid w1 = oxu_op2(g, api, "Sub", src, lo_f);
    ox_vid w0 = oxu_op2(g, api, "Sub", one, w1);
    ox_dtype t = api->dtype(g, x);
    if (t != OX_FLOAT) {
        w0 = oxu_cast(g, api, w0, t);
        w1 = oxu_cast(g, api, w1, t);
    }
    /* the weights along `axis`, broadcast over the axes after it */
    int64_t trailing[UPSAMPLE_MAX_DIMS];
    size_t nt = 0;
    for (int a = axis + 1; a < rank; a++)
        trailing[nt++] = a - axis;
    if (nt) {
        w0 = oxu_unsqueeze_axes(g, api, w0, trailing, nt);
        w1 = oxu_unsqueeze_axes(g, api, w1, trailing, nt);
    }
    ox_vid idx[2] = {oxu_cast(g, api, lo_f, OX_INT64), oxu_cast(g, api, hi_f, OX_INT64)};
    ox_vid taken[2];
    for (int k = 0; k < 2; k++) {
        ox_vid in[2] = {x, idx[k]};
        if (!idx[k])
            return 0;
        ox_onode *n = api->op(g, "Gather", 2, in, 1);
        if (n)
            api->attr_int(n, "axis", axis);
        taken[k] = oxu_out(g, api, n, "Gather");
    }
    return oxu_op2(g, api, "Add", oxu_op2(g, api, "Mul", taken[0], w0), oxu_op2(g, api, "Mul", taken[1], w1));
}

static int sym_upsample_linear_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int nd = upsample_dims(g, api), rank = nd + 2;
    if (api->rank(g, x) != rank)
        return api->fail(g, "%s needs a rank-%d input (batch, channels, %d spatial), got rank %d",
                         api->op_name(g), rank, nd, api->rank(g, x));
    int align = api->arg_int(g, "align_corners", 0) != 0;
    const double *sc = NULL;
    const int64_t *os = NULL;
    int scaled = has_scales(g, api), traced = api->arg_kind(g, "output_size") == OX_ARG_TENSOR;
    if (scaled && api->arg_floats(g, "scales", &sc) != (size_t)nd)
        return api->fail(g, "argument 'scales' must hold %d factors", nd);
    if (!scaled && !traced && api->arg_ints(g, "output_size", &os) != (size_t)nd)
        return api->fail(g, "argument 'output_size' must hold %d sizes", nd);
    ox_vid y = x;
    for (int i = 0; i < nd && y; i++) {
        int axis = 2 + i;
        ox_vid out_i;
        if (scaled) /* torch's output size: floor(in * scale) */
            out_i = oxu_cast(g, api, oxu_op1(g, api, "Floor", oxu_op2(g, api, "Mul",
                             oxu_cast(g, api, oxu_shape_slice(g, api, x, axis, axis + 1), OX_FLOAT),
                             fconst(g, api, sc[i]))), OX_INT64);
        else if (traced)
            out_i = oxu_slice(g, api, oxu_cast_to(g, api, api->arg_tensor(g, "output_size"), OX_INT64), 0, i,
                              i + 1, 1);
        else
            out_i = oxu_const_ints(g, api, &os[i], 1);
        y = linear_axis(g, api, y, rank, axis, out_i, scaled ? sc[i] : 0.0, align);
    }
    return oxu_set_result_recorded(g, api, 0, y);
}

/* pixel_unshuffle (space to depth in torch's channel order, which is
 * SpaceToDepth's transposed): [N, C, H, W] -> [N, C, H/r, r, W/r, r] ->
 * permute(0, 1, 3, 5, 2, 4) -> [N, C*r*r, H/r, W/r].  Both Reshape targets
 * are computed from Shape(x), so every dim follows the input at run time (a
 * dynamic batch, height or width; DepthToSpace does the same for
 * pixel_shuffle from opset 11).  Where the input's shape is fixed the chain
 * folds into constants.  Reshape/Transpose take every element type, which
 * SpaceToDepth in ONNX Runtime does not. */
static int sym_pixel_unshuffle(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r = api->arg_int(g, "downscale_factor", 1);
    if (api->rank(g, x) != 4)
        return api->fail(g, "pixel_unshuffle is exported for rank-4 inputs only (got rank %d)",
                         api->rank(g, x));
    /* the example's sizes only check the call (torch refuses the same) */
    int64_t h = api->size(g, x, 2), w = api->size(g, x, 3);
    if (r < 1 || (h >= 0 && h % r != 0) || (w >= 0 && w % r != 0))
        return api->fail(g, "pixel_unshuffle: spatial size %lldx%lld is not divisible by "
                            "downscale_factor %lld",
                         (long long)h, (long long)w, (long long)r);
    int64_t rr = r * r;
    ox_vid shape = oxu_shape(g, api, x);
    ox_vid r1 = oxu_const_ints(g, api, &r, 1);
    ox_vid hw = at_op2(g, api, "Div", oxu_slice(g, api, shape, 0, 2, 4, 1), r1); /* H/r, W/r */
    ox_vid s1[5] = {oxu_slice(g, api, shape, 0, 0, 2, 1), oxu_slice(g, api, hw, 0, 0, 1, 1), r1,
                    oxu_slice(g, api, hw, 0, 1, 2, 1), r1};
    ox_vid s2[3] = {oxu_slice(g, api, shape, 0, 0, 1, 1),
                    at_op2(g, api, "Mul", oxu_slice(g, api, shape, 0, 1, 2, 1),
                           oxu_const_ints(g, api, &rr, 1)),
                    hw};
    static const int64_t perm[6] = {0, 1, 3, 5, 2, 4};
    ox_vid y = at_op2(g, api, "Reshape", x, oxu_concat(g, api, s1, 5, 0));
    y = at_transpose(g, api, y, perm, 6);
    return oxu_set_result(g, api, 0, at_op2(g, api, "Reshape", y, oxu_concat(g, api, s2, 3, 0)));
}

/* grid_sampler (F.grid_sample) -> GridSample, from opset 16; torch's mode
 * and padding numbers name GridSample's strings.  GridSample-16 samples 2-D
 * (rank-4) inputs only; GridSample-20 samples N-D ones (torch: 2-D and 3-D)
 * and renames the modes bilinear/bicubic to linear/cubic. */
static const char *const grid_modes_16[] = {"bilinear", "nearest", "bicubic"};
static const char *const grid_modes_20[] = {"linear", "nearest", "cubic"};
static const char *const grid_paddings[] = {"zeros", "border", "reflection"};

static int check_grid_sampler(ox_sym *g, const ox_api *api)
{
    int64_t m = api->arg_int(g, "interpolation_mode", 0), p = api->arg_int(g, "padding_mode", 0);
    int rank = api->rank(g, api->arg_tensor(g, "input"));
    if (m < 0 || m > 2 || p < 0 || p > 2)
        return api->limit(g, 0, "grid_sampler with interpolation_mode %lld / padding_mode %lld: "
                                "expected 0 to 2 each (bilinear, nearest, bicubic / zeros, border, "
                                "reflection)",
                          (long long)m, (long long)p);
    if (rank >= 0 && rank != 4 && api->opset(g) < 20)
        return api->limit(g, 20, "grid_sampler of a rank-%d input: GridSample samples rank-4 "
                                 "(2-D) inputs only before opset 20",
                          rank);
    return 0;
}

static int sym_grid_sampler(ox_sym *g, const ox_api *api)
{
    int64_t m = api->arg_int(g, "interpolation_mode", 0), p = api->arg_int(g, "padding_mode", 0);
    if (m < 0 || m > 2 || p < 0 || p > 2) /* the check hook states it; never index past */
        return api->fail(g, "grid_sampler: interpolation_mode %lld / padding_mode %lld out of "
                            "range",
                         (long long)m, (long long)p);
    ox_vid in[2] = {at_float64_as_float(g, api, api->arg_tensor(g, "input")),
                    api->arg_tensor(g, "grid")};
    in[1] = oxu_cast_to(g, api, in[1], api->dtype(g, in[0]));
    ox_onode *n = in[0] && in[1] ? api->op(g, "GridSample", 2, in, 1) : NULL;
    if (n) {
        api->attr_int(n, "align_corners", api->arg_int(g, "align_corners", 0) != 0);
        api->attr_string(n, "mode", (api->opset(g) >= 20 ? grid_modes_20 : grid_modes_16)[m]);
        api->attr_string(n, "padding_mode", grid_paddings[p]);
    }
    return oxu_set_result_recorded(g, api, 0, at_out(g, api, n, "GridSample"));
}

/* affine_grid_generator's recorded output size: its count, 4 (N, C, H, W) or
 * 5 (N, C, D, H, W), or 0 after the api's failure. */
static size_t affine_grid_size(ox_sym *g, const ox_api *api, const int64_t **size)
{
    size_t n = api->arg_ints(g, "size", size);
    if (n != 4 && n != 5) {
        api->fail(g, "affine_grid_generator: argument 'size' has %zu values; expected 4 "
                     "(N, C, H, W) or 5 (N, C, D, H, W)",
                  n);
        return 0;
    }
    return n;
}

/* affine_grid_generator (F.affine_grid): AffineGrid from opset 20, with the
 * recorded output size as a constant; theta is (N, 2, 3) for a 2-D size
 * (N, C, H, W), (N, 3, 4) for a 3-D one. */
static int sym_affine_grid(ox_sym *g, const ox_api *api)
{
    const int64_t *size = NULL;
    size_t n = affine_grid_size(g, api, &size);
    if (!n)
        return 1;
    ox_vid in[2] = {api->arg_tensor(g, "theta"), oxu_const_ints(g, api, size, n)};
    ox_onode *a = in[0] && in[1] ? api->op(g, "AffineGrid", 2, in, 1) : NULL;
    if (a)
        api->attr_int(a, "align_corners", api->arg_int(g, "align_corners", 0) != 0);
    return oxu_set_result(g, api, 0, at_out(g, api, a, "AffineGrid"));
}

/* torch's normalised coordinates of `steps` sample points along a dim:
 * -1..1 (align_corners), or the pixel centres -1 + (2i + 1)/steps; one
 * point is 0 either way. */
static double grid_coord(int64_t i, int64_t steps, int align_corners)
{
    if (steps <= 1)
        return 0.0;
    return align_corners ? -1.0 + 2.0 * (double)i / (double)(steps - 1)
                         : (-1.0 + 2.0 * (double)i / (double)(steps - 1)) * (double)(steps - 1) /
                               (double)steps;
}

/* affine_grid_generator before AffineGrid (opset 20): torch's own form, the
 * base grid of the recorded output size -- rows (x, y[, z], 1), x running
 * fastest -- as a [1, points, k + 1] constant, times theta transposed
 * (MatMul broadcasts it over theta's batch), reshaped to (N, [D,] H, W, k)
 * with the batch copied from theta's. */
static int sym_affine_grid_9(ox_sym *g, const ox_api *api)
{
    const int64_t *size = NULL;
    size_t n = affine_grid_size(g, api, &size);
    if (!n)
        return 1;
    ox_vid theta = api->arg_tensor(g, "theta");
    ox_dtype t = api->dtype(g, theta);
    if (t != OX_FLOAT && t != OX_DOUBLE)
        return api->fail(g, "affine_grid_generator needs a float or double theta before opset 20");
    int k = (int)n - 2, align = api->arg_int(g, "align_corners", 0) != 0;
    int64_t d = k == 3 ? size[2] : 1, h = size[n - 2], w = size[n - 1];
    if (d <= 0 || h <= 0 || w <= 0 || d * h > INT64_MAX / w / (k + 1))
        return api->fail(g, "affine_grid_generator: size %lld x %lld x %lld has no grid", (long long)d,
                         (long long)h, (long long)w);
    int64_t points = d * h * w, dims[3] = {1, points, k + 1};
    double *base = malloc((size_t)(points * (k + 1)) * sizeof *base);
    if (!base)
        return api->fail(g, "out of memory building the base grid");
    for (int64_t z = 0, row = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++, row++) {
                double *r = base + row * (k + 1);
                r[0] = grid_coord(x, w, align);
                r[1] = grid_coord(y, h, align);
                if (k == 3)
                    r[2] = grid_coord(z, d, align);
                r[k] = 1.0;
            }
    float *narrow = t == OX_FLOAT ? malloc((size_t)(points * (k + 1)) * sizeof *narrow) : NULL;
    if (t == OX_FLOAT && !narrow) {
        free(base);
        return api->fail(g, "out of memory building the base grid");
    }
    for (int64_t i = 0; narrow && i < points * (k + 1); i++)
        narrow[i] = (float)base[i];
    ox_vid grid = api->constant(g, t, 3, dims, narrow ? (const void *)narrow : (const void *)base);
    free(base);
    free(narrow);
    if (!grid)
        return api->fail(g, "could not create the base grid constant");
    const int64_t perm[3] = {0, 2, 1};
    ox_vid y = at_op2(g, api, "MatMul", grid, oxu_transpose(g, api, theta, perm, 3));
    int64_t shape[5] = {0, d, h, w, k};
    if (k == 2) {
        shape[1] = h;
        shape[2] = w;
        shape[3] = k;
    }
    return oxu_set_result(g, api, 0, at_reshape(g, api, y, shape, (size_t)k + 2));
}

/* DepthToSpace (and the opset-9 spelling) take rank-4 inputs: another
 * recorded rank is stated before conversion. */
static int check_pixel_shuffle(ox_sym *g, const ox_api *api)
{
    int rank = api->rank(g, api->arg_tensor(g, "self"));
    if (rank >= 0 && rank != 4)
        return api->limit(g, 0, "pixel_shuffle is exported for rank-4 inputs only (got rank %d)",
                          rank);
    return 0;
}

/* pixel_shuffle from opset 11: DepthToSpace's CRD mode is torch's order. */
static int sym_pixel_shuffle_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r = api->arg_int(g, "upscale_factor", 1);
    if (api->rank(g, x) != 4) /* the check hook states a known other rank */
        return api->fail(g, "pixel_shuffle needs the input's rank, which is unknown; record it");
    ox_onode *n = api->op(g, "DepthToSpace", 1, &x, 1);
    if (n) {
        api->attr_int(n, "blocksize", r);
        api->attr_string(n, "mode", "CRD");
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "DepthToSpace"));
}

/* Before opset 11 DepthToSpace only has DCR order: spell CRD out as
 * [N, C, H, W] -> [N, C/r^2, r, r, H, W] -> permute(0, 1, 4, 2, 5, 3) ->
 * [N, C/r^2, H*r, W*r], with every size that may vary taken from the input
 * at run time (a dynamic batch, height or width).  The first target needs no
 * size: with x unsqueezed to [N, C, 1, 1, H, W], Reshape [0, -1, r, r, 0, 0]
 * copies N, H and W (0 copies the input's dim at that position).  The second
 * names one size, W*r, from Shape(x); where the shape is fixed that folds
 * into a constant. */
static int sym_pixel_shuffle_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r = api->arg_int(g, "upscale_factor", 1);
    if (api->rank(g, x) != 4) /* the check hook states a known other rank */
        return api->fail(g, "pixel_shuffle needs the input's rank, which is unknown; record it");
    /* the example's channel count only checks the call (torch refuses the same) */
    int64_t c = api->size(g, x, 1);
    if (r < 1 || (c >= 0 && c % (r * r) != 0))
        return api->fail(g, "pixel_shuffle: %lld channels are not divisible by "
                            "upscale_factor^2 = %lld",
                         (long long)c, (long long)(r * r));
    static const int64_t unsq[2] = {2, 3}, perm[6] = {0, 1, 4, 2, 5, 3}, head[3] = {0, 0, -1};
    int64_t s1[6] = {0, -1, r, r, 0, 0};
    ox_vid y = at_reshape(g, api, oxu_unsqueeze_axes(g, api, x, unsq, 2), s1, 6);
    y = at_transpose(g, api, y, perm, 6);
    /* [N, C/r^2, H, r, W, r] -> [0, 0, -1, W*r]: the -1 is H*r */
    ox_vid wr = at_op2(g, api, "Mul", oxu_shape_slice(g, api, x, 3, 4), oxu_const_ints(g, api, &r, 1));
    ox_vid s2[2] = {oxu_const_ints(g, api, head, 3), wr};
    return oxu_set_result(g, api, 0, at_op2(g, api, "Reshape", y, oxu_concat(g, api, s2, 2, 0)));
}

/* output_size is None when the host records scale factors (scales). */
static const ox_param_decl p_upsample_nearest[] = {
    OX_PARAM("self", OX_ARG_TENSOR), AT_PARAM_OR_NULL("output_size", OX_ARG_INTS, OX_ARG_TENSOR),
    OX_PARAM_NULL("scales", OX_ARG_FLOATS)};
/* align_corners has no default in torch's schema; False is F.interpolate's. */
static const ox_param_decl p_upsample_bilinear[] = {
    OX_PARAM("self", OX_ARG_TENSOR), AT_PARAM_OR_NULL("output_size", OX_ARG_INTS, OX_ARG_TENSOR),
    OX_PARAM_BOOL("align_corners", 0), OX_PARAM_NULL("scales", OX_ARG_FLOATS)};
static const ox_param_decl p_grid_sampler[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("grid", OX_ARG_TENSOR),
    OX_PARAM("interpolation_mode", OX_ARG_INT), OX_PARAM("padding_mode", OX_ARG_INT),
    OX_PARAM("align_corners", OX_ARG_BOOL)};
static const ox_param_decl p_affine_grid[] = {OX_PARAM("theta", OX_ARG_TENSOR),
                                              OX_PARAM("size", OX_ARG_INTS),
                                              OX_PARAM("align_corners", OX_ARG_BOOL)};
static const ox_param_decl p_pixel_unshuffle[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                  OX_PARAM("downscale_factor", OX_ARG_INT)};
static const ox_param_decl p_pixel_shuffle[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                OX_PARAM("upscale_factor", OX_ARG_INT)};

const ox_op_decl at_ops_resize[] = {
    OX_OP_EX("aten::upsample_nearest2d", 9, p_upsample_nearest, 1, sym_upsample_nearest2d, 0u,
             check_upsample),
    OX_OP("aten::upsample_bilinear2d", 9, p_upsample_bilinear, 1, sym_upsample_linear_9),
    OX_OP("aten::upsample_bilinear2d", 11, p_upsample_bilinear, 1, sym_upsample_bilinear2d),
    OX_OP_EX("aten::upsample_nearest1d", 9, p_upsample_nearest, 1, sym_upsample, 0u,
             check_upsample),
    OX_OP_EX("aten::upsample_nearest3d", 9, p_upsample_nearest, 1, sym_upsample, 0u,
             check_upsample),
    OX_OP("aten::upsample_linear1d", 9, p_upsample_bilinear, 1, sym_upsample_linear_9),
    OX_OP("aten::upsample_linear1d", 11, p_upsample_bilinear, 1, sym_upsample),
    OX_OP("aten::upsample_bicubic2d", 11, p_upsample_bilinear, 1, sym_upsample),
    OX_OP("aten::upsample_trilinear3d", 9, p_upsample_bilinear, 1, sym_upsample_linear_9),
    OX_OP("aten::upsample_trilinear3d", 11, p_upsample_bilinear, 1, sym_upsample),
    OX_OP_EX("aten::_upsample_bilinear2d_aa", 18, p_upsample_bilinear, 1, sym_upsample_aa, 0,
             check_upsample_aa),
    OX_OP_EX("aten::_upsample_bicubic2d_aa", 18, p_upsample_bilinear, 1, sym_upsample_aa, 0,
             check_upsample_aa),
    OX_OP_EX("aten::grid_sampler", 16, p_grid_sampler, 1, sym_grid_sampler, 0,
             check_grid_sampler),
    OX_OP("aten::affine_grid_generator", 9, p_affine_grid, 1, sym_affine_grid_9),
    OX_OP("aten::affine_grid_generator", 20, p_affine_grid, 1, sym_affine_grid),
    OX_OP("aten::pixel_unshuffle", 9, p_pixel_unshuffle, 1, sym_pixel_unshuffle),
    OX_OP_EX("aten::pixel_shuffle", 7, p_pixel_shuffle, 1, sym_pixel_shuffle_9, 0,
             check_pixel_shuffle),
    OX_OP_EX("aten::pixel_shuffle", 11, p_pixel_shuffle, 1, sym_pixel_shuffle_11, 0,
             check_pixel_shuffle),
};
AT_FAMILY_SIZE(at_ops_resize);
