/* torchvision.ops: the detection operators torchvision registers with the
 * dispatcher under its own namespace (torch.ops.torchvision.*), which a host
 * records like any ATen operator, with the schema's argument names.
 *
 * nms is NonMaxSuppression (opset 10) on one batch and one class; its
 * [n, 3] (batch, class, box) triples are narrowed to the box column.
 * batched_nms is Python over nms (boxes offset per class), so it needs no
 * row of its own.
 *
 * roi_align is RoiAlign (opset 10).  torchvision's rois are [K, 5] rows
 * (batch index, x1, y1, x2, y2); ONNX takes the boxes and the batch indices
 * as two inputs.  `aligned` is torchvision's pixel model:
 *   aligned=False: box corners scaled as they are, each box at least one
 *     feature pixel wide and high -- RoiAlign-10's only model, and
 *     coordinate_transformation_mode "output_half_pixel" from opset 16;
 *   aligned=True: corners scaled and shifted by -0.5 (pixel centres), no
 *     minimum size -- "half_pixel" from opset 16 (the attribute's default,
 *     which is why opset 16 must write the mode for aligned=False too).
 *   Before opset 16 the shift is applied to the boxes (x - 0.5/scale), so the
 *   sampled points are torchvision's; RoiAlign-10 still widens a box under
 *   one feature pixel to one pixel, where torchvision's aligned=True keeps
 *   it: boxes that small pool over a larger area below opset 16 (docs/pytorch.md).
 * sampling_ratio <= 0 is torchvision's adaptive count, ceil(box size / bins)
 * per bin; ONNX spells the same rule sampling_ratio=0.
 *
 * roi_pool is MaxRoiPool (every opset): the same rois rows and rounding.
 * Its second output, torchvision's argmax (for its backward), has no ONNX
 * equivalent; it is left as a node that fails the export's check if a model
 * reads it (an unread output is dropped).
 *
 * ps_roi_align (position-sensitive RoIAlign) is RoiAlign over every channel
 * followed by a Gather of the channel each bin reads ((c*ph + i)*pw + j for
 * bin (i, j) of output channel c); torchvision's sampling is aligned=True's
 * with boxes held at least 0.1 pixel wide, so it uses the same pixel model as
 * roi_align(aligned=True).
 *
 * deform_conv2d is DeformConv, which ONNX added at opset 19 (with torchvision's
 * offset and mask layouts); below 19 the check hook says where it is lifted. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The box columns x1, y1, x2, y2 of [K, 5] rois and the batch index column
 * as int64 [K]. */
static int split_rois(ox_sym *g, const ox_api *api, ox_vid rois, ox_vid *boxes, ox_vid *batch)
{
    *boxes = oxu_slice(g, api, rois, 1, 1, 5, 1);
    int64_t one = 1;
    ox_vid col0 = oxu_slice(g, api, rois, 1, 0, 1, 1);
    *batch = oxu_cast(g, api, oxu_squeeze(g, api, col0, &one, 1), OX_INT64);
    return *boxes && *batch ? 0 : 1;
}

/* RoiAlign of x over boxes [K, 4] with batch indices [K]; aligned: the
 * half-pixel model (see the file comment). */
static ox_vid roi_align_node(ox_sym *g, const ox_api *api, ox_vid x, ox_vid rois, double scale,
                             int64_t ph, int64_t pw, int64_t sampling, int aligned)
{
    ox_vid boxes, batch;
    if (split_rois(g, api, rois, &boxes, &batch))
        return 0;
    int modes = api->opset(g) >= 16;
    if (aligned && !modes)
        boxes = oxu_op2(g, api, "Sub", boxes, oxu_scalar_like(g, api, 0.5 / scale, boxes));
    ox_vid in[3] = {x, boxes, batch};
    for (int i = 0; i < 3; i++)
        if (!in[i])
            return 0;
    ox_onode *n = api->op(g, "RoiAlign", 3, in, 1);
    if (n) {
        api->attr_string(n, "mode", "avg");
        api->attr_int(n, "output_height", ph);
        api->attr_int(n, "output_width", pw);
        api->attr_int(n, "sampling_ratio", sampling > 0 ? sampling : 0);
        api->attr_float(n, "spatial_scale", scale);
        if (modes)
            api->attr_string(n, "coordinate_transformation_mode",
                             aligned ? "half_pixel" : "output_half_pixel");
    }
    return oxu_out(g, api, n, "RoiAlign");
}

/* Pooled sizes and the scale every RoI operator takes. */
static int roi_args(ox_sym *g, const ox_api *api, double *scale, int64_t *ph, int64_t *pw)
{
    *scale = api->arg_float(g, "spatial_scale", 1.0);
    *ph = api->arg_int(g, "pooled_height", 1);
    *pw = api->arg_int(g, "pooled_width", 1);
    if (*ph < 1 || *pw < 1)
        return api->fail(g, "pooled_height and pooled_width must be positive (got %lld, %lld)",
                         (long long)*ph, (long long)*pw);
    if (!(*scale > 0))
        return api->fail(g, "spatial_scale must be positive (got %g)", *scale);
    return 0;
}

/* ONNX Runtime's RoiAlign and MaxRoiPool compute in float (and double for
 * RoiAlign); rois follow the input's type. */
static ox_vid rois_as_input(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_vid rois = api->arg_tensor(g, "rois");
    return oxu_cast_to(g, api, rois, api->dtype(g, x));
}

/* roi_align(input, rois, spatial_scale, pooled_height, pooled_width,
 * sampling_ratio, aligned) */
static int sym_roi_align(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    double scale;
    int64_t ph, pw;
    if (roi_args(g, api, &scale, &ph, &pw))
        return 1;
    int64_t sampling = api->arg_int(g, "sampling_ratio", -1);
    int aligned = (int)api->arg_int(g, "aligned", 0);
    return oxu_set_result(g, api, 0,
                          roi_align_node(g, api, x, rois_as_input(g, api, x), scale, ph, pw,
                                         sampling, aligned));
}

/* An output no ONNX operator computes: a node of a domain no runtime
 * knows, named after what it stands for, so a model that reads it fails the
 * export's check with that name; dead-code elimination drops it otherwise. */
static ox_vid unexpressible(ox_sym *g, const ox_api *api, ox_vid like, const char *what)
{
    ox_onode *n = api->op_domain(g, "oxport.unexpressible", 1, what, 1, &like, 1);
    return oxu_out(g, api, n, what);
}

/* roi_pool(input, rois, spatial_scale, pooled_height, pooled_width) ->
 * (output, argmax) */
static int sym_roi_pool(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    double scale;
    int64_t ph, pw;
    if (roi_args(g, api, &scale, &ph, &pw))
        return 1;
    ox_vid in[2] = {x, rois_as_input(g, api, x)};
    if (!in[0] || !in[1])
        return 1;
    ox_onode *n = api->op(g, "MaxRoiPool", 2, in, 1);
    if (n) {
        int64_t shape[2] = {ph, pw};
        api->attr_ints(n, "pooled_shape", shape, 2);
        api->attr_float(n, "spatial_scale", scale);
    }
    ox_vid y = oxu_out(g, api, n, "MaxRoiPool");
    if (oxu_set_result(g, api, 0, y))
        return 1;
    return oxu_set_result(g, api, 1, unexpressible(g, api, y, "roi_pool_argmax"));
}

/* ps_roi_align(input, rois, spatial_scale, pooled_height, pooled_width,
 * sampling_ratio) -> (output, channel_mapping) */
static int sym_ps_roi_align(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    double scale;
    int64_t ph, pw;
    if (roi_args(g, api, &scale, &ph, &pw))
        return 1;
    int64_t channels = api->size(g, x, 1);
    int64_t bins = ph * pw;
    if (channels < 0)
        return api->fail(g, "the input's channel count must be known");
    if (channels % bins)
        return api->fail(g, "the input's %lld channels are not a multiple of pooled_height * "
                            "pooled_width = %lld",
                         (long long)channels, (long long)bins);
    int64_t diag[64];
    if (bins > 64)
        return api->fail(g, "pooled_height * pooled_width = %lld bins: at most 64 are supported",
                         (long long)bins);
    int64_t sampling = api->arg_int(g, "sampling_ratio", -1);
    ox_vid y = roi_align_node(g, api, x, rois_as_input(g, api, x), scale, ph, pw, sampling, 1);
    /* [K, C, ph, pw] -> [K, C/bins, bins * bins]: bin b of output channel c
     * is element b * bins + b of row c (input channel c * bins + b) */
    int64_t shape3[3] = {0, channels / bins, bins * bins};
    y = oxu_reshape(g, api, y, shape3, 3);
    for (int64_t b = 0; b < bins; b++)
        diag[b] = b * bins + b;
    ox_vid in[2] = {y, oxu_const_ints(g, api, diag, (size_t)bins)};
    if (!in[0] || !in[1])
        return 1;
    ox_onode *gn = api->op(g, "Gather", 2, in, 1);
    if (gn)
        api->attr_int(gn, "axis", 2);
    ox_vid picked = oxu_out(g, api, gn, "Gather");
    int64_t shape4[4] = {0, channels / bins, ph, pw};
    ox_vid out = oxu_reshape(g, api, picked, shape4, 4);
    if (oxu_set_result(g, api, 0, out))
        return 1;
    return oxu_set_result(g, api, 1, unexpressible(g, api, out, "ps_roi_align_channel_mapping"));
}

/* nms(dets, scores, iou_threshold): NonMaxSuppression on [1, n, 4] boxes
 * (corners) and [1, 1, n] scores, no score threshold and no cap on the
 * count; the selected triples' box column, in decreasing score as torch
 * returns it. */
static int sym_nms(ox_sym *g, const ox_api *api)
{
    ox_vid boxes = api->arg_tensor(g, "dets");
    ox_vid scores = api->arg_tensor(g, "scores");
    double iou = api->arg_float(g, "iou_threshold", 0.5);
    /* ONNX Runtime's kernel takes float32 boxes and scores */
    boxes = oxu_unsqueeze(g, api, oxu_cast_to(g, api, boxes, OX_FLOAT), 0);
    const int64_t axes01[2] = {0, 1};
    scores = oxu_unsqueeze_axes(g, api, oxu_cast_to(g, api, scores, OX_FLOAT), axes01, 2);
    int64_t one = 1, most = INT64_MAX;
    float thr = (float)iou;
    ox_vid in[4] = {boxes, scores, oxu_const_ints(g, api, &most, 1),
                    oxu_const_floats(g, api, &thr, 1)};
    ox_vid sel = oxu_opn(g, api, "NonMaxSuppression", 4, in);
    if (!sel)
        return 1;
    ox_vid col = oxu_slice(g, api, sel, 1, 2, 3, 1);
    return oxu_set_result(g, api, 0, oxu_squeeze(g, api, col, &one, 1));
}

/* deform_conv2d: DeformConv joins ONNX at opset 19. */
static int check_deform_conv2d(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 19)
        return 0;
    return api->limit(g, 19, "deformable convolution is ONNX's DeformConv, which joins ONNX at "
                             "opset 19");
}

/* deform_conv2d(input, weight, offset, mask, bias, stride_h, stride_w,
 * pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask):
 * DeformConv(X, W, offset, B, mask).  torchvision's offset is
 * [N, offset_groups * kh * kw * 2, oh, ow] with the (y, x) pair of each kernel
 * position, positions row-major inside each offset group, and its mask
 * [N, offset_groups * kh * kw, oh, ow]: ONNX's layouts, so both pass as they
 * are.  torchvision.ops.deform_conv2d hands the op a zero bias when there is
 * none and a placeholder mask with use_mask=False; the placeholder is not
 * passed (an absent mask is all ones in ONNX, which is torchvision's
 * unmodulated sampling). */
static int sym_deform_conv2d(ox_sym *g, const ox_api *api)
{
    if (check_deform_conv2d(g, api))
        return 1;
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid w = api->arg_tensor(g, "weight");
    ox_vid offset = api->arg_tensor(g, "offset");
    ox_vid bias = api->arg_tensor(g, "bias");
    int use_mask = (int)api->arg_int(g, "use_mask", 0);
    ox_vid mask = use_mask ? api->arg_tensor(g, "mask") : 0;
    if (!x || !w || !offset || !bias || (use_mask && !mask))
        return 1;
    int64_t strides[2] = {api->arg_int(g, "stride_h", 1), api->arg_int(g, "stride_w", 1)};
    int64_t pad_h = api->arg_int(g, "pad_h", 0), pad_w = api->arg_int(g, "pad_w", 0);
    int64_t pads[4] = {pad_h, pad_w, pad_h, pad_w};
    int64_t dilations[2] = {api->arg_int(g, "dilation_h", 1), api->arg_int(g, "dilation_w", 1)};
    int64_t groups = api->arg_int(g, "groups", 1);
    int64_t offset_groups = api->arg_int(g, "offset_groups", 1);
    for (int i = 0; i < 2; i++)
        if (strides[i] < 1 || dilations[i] < 1)
            return api->fail(g, "strides and dilations must be positive (got %lld, %lld and "
                                "%lld, %lld)",
                             (long long)strides[0], (long long)strides[1],
                             (long long)dilations[0], (long long)dilations[1]);
    if (pad_h < 0 || pad_w < 0)
        return api->fail(g, "padding must not be negative (got %lld, %lld)", (long long)pad_h,
                         (long long)pad_w);
    if (groups < 1 || offset_groups < 1)
        return api->fail(g, "groups and offset_groups must be positive (got %lld, %lld)",
                         (long long)groups, (long long)offset_groups);
    ox_vid in[5] = {x, w, offset, bias, mask};
    ox_onode *n = api->op(g, "DeformConv", use_mask ? 5 : 4, in, 1);
    if (n) {
        int64_t kh = api->size(g, w, 2), kw = api->size(g, w, 3);
        if (kh > 0 && kw > 0) {
            int64_t kernel[2] = {kh, kw};
            api->attr_ints(n, "kernel_shape", kernel, 2);
        }
        api->attr_ints(n, "strides", strides, 2);
        api->attr_ints(n, "pads", pads, 4);
        api->attr_ints(n, "dilations", dilations, 2);
        api->attr_int(n, "group", groups);
        api->attr_int(n, "offset_group", offset_groups);
    }
    return oxu_set_result(g, api, 0, oxu_out(g, api, n, "DeformConv"));
}

static const ox_param_decl p_nms[] = {
    OX_PARAM("dets", OX_ARG_TENSOR),
    OX_PARAM("scores", OX_ARG_TENSOR),
    OX_PARAM("iou_threshold", OX_ARG_FLOAT),
};

static const ox_param_decl p_roi_align[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("rois", OX_ARG_TENSOR),
    OX_PARAM("spatial_scale", OX_ARG_FLOAT),
    OX_PARAM("pooled_height", OX_ARG_INT),
    OX_PARAM("pooled_width", OX_ARG_INT),
    OX_PARAM("sampling_ratio", OX_ARG_INT),
    OX_PARAM("aligned", OX_ARG_BOOL),
};

static const ox_param_decl p_roi_pool[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("rois", OX_ARG_TENSOR),
    OX_PARAM("spatial_scale", OX_ARG_FLOAT),
    OX_PARAM("pooled_height", OX_ARG_INT),
    OX_PARAM("pooled_width", OX_ARG_INT),
};

static const ox_param_decl p_ps_roi_align[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("rois", OX_ARG_TENSOR),
    OX_PARAM("spatial_scale", OX_ARG_FLOAT),
    OX_PARAM("pooled_height", OX_ARG_INT),
    OX_PARAM("pooled_width", OX_ARG_INT),
    OX_PARAM("sampling_ratio", OX_ARG_INT),
};

static const ox_param_decl p_deform_conv2d[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("offset", OX_ARG_TENSOR),
    OX_PARAM("mask", OX_ARG_TENSOR),
    OX_PARAM("bias", OX_ARG_TENSOR),
    OX_PARAM("stride_h", OX_ARG_INT),
    OX_PARAM("stride_w", OX_ARG_INT),
    OX_PARAM("pad_h", OX_ARG_INT),
    OX_PARAM("pad_w", OX_ARG_INT),
    OX_PARAM("dilation_h", OX_ARG_INT),
    OX_PARAM("dilation_w", OX_ARG_INT),
    OX_PARAM("groups", OX_ARG_INT),
    OX_PARAM("offset_groups", OX_ARG_INT),
    OX_PARAM("use_mask", OX_ARG_BOOL),
};

const ox_op_decl at_ops_detection[] = {
    OX_OP("torchvision::nms", 10, p_nms, 1, sym_nms),
    OX_OP("torchvision::roi_align", 10, p_roi_align, 1, sym_roi_align),
    OX_OP("torchvision::roi_pool", 7, p_roi_pool, 2, sym_roi_pool),
    OX_OP("torchvision::ps_roi_align", 10, p_ps_roi_align, 2, sym_ps_roi_align),
    OX_OP_EX("torchvision::deform_conv2d", 7, p_deform_conv2d, 1, sym_deform_conv2d, 0u,
             check_deform_conv2d),
};
AT_FAMILY_SIZE(at_ops_detection);
