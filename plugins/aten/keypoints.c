/* Keypoint R-CNN's heatmap decoding (torchvision's
 * roi_heads.heatmaps_to_keypoints), which the PyTorch host records as one
 * operator, oxport::heatmaps_to_keypoints(maps [N, K, H, W], rois [N, 4])
 * -> (keypoints [N, K, 3], scores [N, K]), instead of the Python loop over
 * detections a trace would unroll to the example's count.
 *
 * For detection i torchvision resizes its K heatmaps (bicubic, a = -0.75,
 * align_corners=False) to the box's size rounded up, ceil(max(x2 - x1, 1))
 * by ceil(max(y2 - y1, 1)), and takes each map's argmax: keypoint
 * x = (column + 0.5) * width / ceil(width) + x1 (y likewise), visibility 1,
 * score the resized map at the argmax.  The output size differs per
 * detection, so no fixed-shape tensor program computes it at once without
 * resizing every map to the largest box (N*K*H*W of memory); ONNX's Scan
 * runs the decode once per detection, slicing maps and rois along N.  One
 * padding row is scanned too and its result dropped, because ONNX Runtime's
 * Scan refuses zero iterations (an image without detections).
 *
 * Resize uses "half_pixel": torch's source coordinate (dst + 0.5) * in / out
 * - 0.5 for every output size, where "pytorch_half_pixel" maps a size-1
 * output to 0 (a box under one pixel wide).  Resize takes output sizes from
 * opset 11. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Element `index` of the 1-D value v as a rank-0 value. */
static ox_vid element(ox_sym *g, const ox_api *api, ox_vid v, int64_t index)
{
    ox_vid in[2] = {v, oxu_const_int(g, api, index)};
    if (!in[0] || !in[1])
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return oxu_out(g, api, n, "Gather");
}

/* One axis of the decode: the box's start and length on it (length at
 * least 1), its length rounded up as a float and as int64. */
typedef struct box_axis {
    ox_vid start, length, ceil_f, ceil_i;
} box_axis;

static box_axis axis_of(ox_sym *g, const ox_api *api, ox_vid roi, int64_t lo, int64_t hi)
{
    box_axis a;
    a.start = element(g, api, roi, lo);
    ox_vid extent = oxu_op2(g, api, "Sub", element(g, api, roi, hi), a.start);
    a.length = oxu_op2(g, api, "Max", extent, oxu_scalar_like(g, api, 1.0, extent));
    a.ceil_f = oxu_op1(g, api, "Ceil", a.length);
    a.ceil_i = oxu_cast(g, api, a.ceil_f, OX_INT64);
    return a;
}

/* (index + 0.5) * length / ceil(length) + start: torchvision's keypoint
 * coordinate, in its order of operations. */
static ox_vid coordinate(ox_sym *g, const ox_api *api, ox_vid index, const box_axis *a)
{
    ox_vid f = oxu_cast(g, api, index, api->dtype(g, a->length));
    ox_vid centre = oxu_op2(g, api, "Add", f, oxu_scalar_like(g, api, 0.5, f));
    ox_vid corr = oxu_op2(g, api, "Div", a->length, a->ceil_f);
    return oxu_op2(g, api, "Add", oxu_op2(g, api, "Mul", centre, corr), a->start);
}

/* The Scan body: one detection's maps [K, H, W] and roi [4] in, its
 * keypoints as rows x, y, 1 ([3, K]) and scores [K] out. */
static ox_obody *decode_body(ox_sym *g, const ox_api *api, ox_dtype dt)
{
    ox_dtype dts[2] = {dt, dt};
    int ranks[2] = {3, 1};
    ox_vid in[2];
    if (api->body_begin(g, 2, dts, ranks, in))
        return NULL;
    ox_vid maps = in[0], roi = in[1];
    box_axis x = axis_of(g, api, roi, 0, 2), y = axis_of(g, api, roi, 1, 3);
    int64_t zero = 0, one = 1;
    ox_vid k = oxu_shape_slice(g, api, maps, 0, 1);
    ox_vid size_parts[4] = {oxu_const_ints(g, api, &one, 1), k, oxu_unsqueeze(g, api, y.ceil_i, 0),
                            oxu_unsqueeze(g, api, x.ceil_i, 0)};
    ox_vid sizes = oxu_concat(g, api, size_parts, 4, 0);
    oxu_resize_opts cubic = {.mode = "cubic", .coordinate_transformation_mode = "half_pixel"};
    ox_vid resized = oxu_resize(g, api, oxu_unsqueeze(g, api, maps, 0), NULL, 4, sizes, &cubic);
    /* [K, h * w]: each map's pixels in row-major order, as torch's reshape */
    int64_t flat_shape[2] = {0, -1};
    ox_vid flat = oxu_reshape(g, api, oxu_squeeze(g, api, resized, &zero, 1), flat_shape, 2);
    ox_onode *am = flat ? api->op(g, "ArgMax", 1, &flat, 1) : NULL;
    if (am) {
        api->attr_int(am, "axis", 1);
        api->attr_int(am, "keepdims", 1);
    }
    ox_vid pos = oxu_out(g, api, am, "ArgMax"); /* [K, 1], the first maximum as torch's */
    ox_vid gin[2] = {flat, pos};
    ox_onode *ge = pos ? api->op(g, "GatherElements", 2, gin, 1) : NULL;
    if (ge)
        api->attr_int(ge, "axis", 1);
    ox_vid scores = oxu_squeeze(g, api, oxu_out(g, api, ge, "GatherElements"), &one, 1);
    ox_vid p = oxu_squeeze(g, api, pos, &one, 1);
    ox_vid col = oxu_op2(g, api, "Mod", p, x.ceil_i);
    ox_vid row = oxu_op2(g, api, "Div", oxu_op2(g, api, "Sub", p, col), x.ceil_i);
    ox_vid xs = coordinate(g, api, col, &x), ys = coordinate(g, api, row, &y);
    ox_vid ones = oxu_op2(g, api, "Expand", oxu_scalar_like(g, api, 1.0, xs), oxu_shape(g, api, xs));
    ox_vid rows[3] = {oxu_unsqueeze(g, api, xs, 0), oxu_unsqueeze(g, api, ys, 0),
                      oxu_unsqueeze(g, api, ones, 0)};
    ox_vid outs[2] = {oxu_concat(g, api, rows, 3, 0), scores};
    return api->body_end(g, 2, outs);
}

/* maps and rois with one more row (zero maps, the box 0, 0, 1, 1) into
 * scanned[0..1]: ONNX Runtime's Scan fails on a sequence of length 0, and an
 * image may have no detections; the extra row's results are sliced off. */
static int with_padding_row(ox_sym *g, const ox_api *api, ox_vid maps, ox_vid rois, ox_dtype dt,
                            ox_vid *scanned)
{
    int64_t one = 1;
    ox_vid shape_parts[2] = {oxu_const_ints(g, api, &one, 1), oxu_shape_slice(g, api, maps, 1, 4)};
    ox_vid map_parts[2] = {maps, oxu_full(g, api, oxu_concat(g, api, shape_parts, 2, 0), 0.0, dt)};
    static const int64_t box_shape[2] = {1, 4};
    ox_vid box = oxu_cast_to(g, api, api->constant(g, OX_FLOAT, 2, box_shape,
                                                (const float[4]){0.f, 0.f, 1.f, 1.f}), dt);
    ox_vid roi_parts[2] = {rois, box};
    scanned[0] = oxu_concat(g, api, map_parts, 2, 0);
    scanned[1] = oxu_concat(g, api, roi_parts, 2, 0);
    return scanned[0] && scanned[1] ? 0 : 1;
}

static int sym_heatmaps_to_keypoints(ox_sym *g, const ox_api *api)
{
    if (api->abi_minor < 2)
        return api->fail(g, "the keypoint decode needs plugin ABI 1.2 (subgraphs)");
    ox_vid maps = api->arg_tensor(g, "maps");
    ox_dtype dt = api->dtype(g, maps);
    if (!oxu_is_floating(dt))
        return api->fail(g, "maps must be a floating-point tensor (got %s)",
                         dt == OX_UNDEFINED ? "an unknown type" : "an integer or bool one");
    if (api->rank(g, maps) != 4)
        return api->fail(g, "maps must be [N, K, H, W] (rank %d)", api->rank(g, maps));
    ox_vid rois = oxu_cast_to(g, api, api->arg_tensor(g, "rois"), dt);
    ox_obody *body = decode_body(g, api, dt);
    if (!body || !rois)
        return 1;
    ox_vid in[2];
    if (with_padding_row(g, api, maps, rois, dt, in))
        return 1;
    ox_onode *scan = api->op(g, "Scan", 2, in, 2);
    if (!scan)
        return 1;
    api->attr_graph(scan, "body", body);
    api->attr_int(scan, "num_scan_inputs", 2);
    ox_vid xy = api->node_output(scan, 0), scores = api->node_output(scan, 1);
    api->set_type(g, xy, dt, 3, NULL);
    api->set_type(g, scores, dt, 2, NULL);
    xy = oxu_slice(g, api, xy, 0, 0, -1, 1); /* the padding row's decode dropped */
    scores = oxu_slice(g, api, scores, 0, 0, -1, 1);
    static const int64_t perm[3] = {0, 2, 1}; /* [N, 3, K] -> torchvision's [N, K, 3] */
    ox_vid keypoints = oxu_transpose(g, api, xy, perm, 3);
    /* torchvision fills float32 buffers whatever the maps' type */
    if (oxu_set_result_recorded(g, api, 0, keypoints))
        return 1;
    return oxu_set_result_recorded(g, api, 1, scores);
}

static const ox_param_decl p_heatmaps_to_keypoints[] = {
    OX_PARAM("maps", OX_ARG_TENSOR),
    OX_PARAM("rois", OX_ARG_TENSOR),
};

const ox_op_decl at_ops_keypoints[] = {
    OX_OP("oxport::heatmaps_to_keypoints", 11, p_heatmaps_to_keypoints, 2,
          sym_heatmaps_to_keypoints),
};
AT_FAMILY_SIZE(at_ops_keypoints);
