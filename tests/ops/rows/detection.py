"""Rows of the detect helper's family (issue 11): torchvision.ops (plugins/aten/detection.c).
Format: docs/testing-operators.md.

RoI operators take their boxes from a random [K, 4] input in [0, 1), turned into boxes of
an image of IMG x IMG pixels inside the call: corners from -20% to 100% of the image and
sizes from `least` pixels to 90% of it, so some boxes cross the image border (torchvision
and ONNX Runtime both sample zero outside the feature map) and the second input set moves
every box.  The batch index column alternates between the two images of the batch."""

import torch
import torch.nn as nn
import torchvision
import torchvision.models.detection._utils as det_utils
from torchvision.models.detection import roi_heads
import torchvision.ops as tvops

from optable import Refuse, Row, T

IMG = 16                       # image side, in pixels
K = 6                          # boxes per call
OPSETS = (10, 11, 13, 16, 17)  # RoiAlign and NonMaxSuppression join at 10; RoiAlign's modes at 16
DEFORM_ONNX = (19, 21)         # DeformConv joins ONNX at 19
DEFORM_OPSETS = (9, 13, 17) + DEFORM_ONNX  # the refusal where it is declared (and 7, 8)


def _boxes(r, least):
    """[K, 4] corners from r in [0, 1): x1, y1 in [-0.2, 1) * IMG, sides in [least, 0.9 IMG)."""
    corner = r[:, :2] * (1.2 * IMG) - 0.2 * IMG
    side = least + r[:, 2:] * (0.9 * IMG - least)
    return torch.cat([corner, corner + side], 1)


def _rois(r, least):
    batch = (torch.arange(r.shape[0]) % 2).to(r.dtype)[:, None]
    return torch.cat([batch, _boxes(r, least)], 1)


def _roi_align(out, scale, sampling, aligned, least):
    return lambda x, r: tvops.roi_align(x, _rois(r, least), out, spatial_scale=scale,
                                        sampling_ratio=sampling, aligned=aligned)


def _nms_inputs(n):
    return [T(n, 4, lo=0.0, hi=1.0), T(n, distinct=True, lo=0.0, hi=1.0)]


FEAT = [T(2, 3, IMG // 2, IMG // 2), T(K, 4, lo=0.0, hi=1.0)]  # a stride-2 feature map of the image


def _keypoints(zoom):
    """Keypoint R-CNN's heatmap decoding of [K, 5, 14, 14] maps over boxes of the image
    scaled by zoom: looked up in roi_heads at the call, as keypointrcnn_inference does, so
    an oxport trace records its one-operator form (hosts/pytorch/oxport/torch/_keypoints.py)."""
    return lambda maps, r: roi_heads.heatmaps_to_keypoints(maps, _boxes(r, 0.5) * zoom)


HEATMAPS = [T(K, 5, 14, 14), T(K, 4, lo=0.0, hi=1.0)]
KEYPOINT_OPSETS = (10, 11, 13, 16, 17, 21)  # Resize to output sizes joins at 11

ROWS = [
    # nms: boxes drawn over a small area so that many overlap; scores distinct (the
    # order of equal scores is the kernel's)
    Row("torchvision.nms", "torchvision::nms",
        lambda b, s: tvops.nms(_boxes(b, 2.0), s, 0.3), _nms_inputs(40), opsets=OPSETS),
    Row("torchvision.nms.iou_high", "torchvision::nms",
        lambda b, s: tvops.nms(_boxes(b, 2.0), s, 0.7), _nms_inputs(40), opsets=OPSETS),
    Row("torchvision.nms.empty", "torchvision::nms",
        lambda b, s: tvops.nms(_boxes(b, 2.0), s, 0.5), _nms_inputs(0), opsets=OPSETS, constant=(0,)),
    # batched_nms is Python over nms: boxes of each class offset apart
    Row("torchvision.batched_nms", "torchvision::nms",
        lambda b, s, c: tvops.batched_nms(_boxes(b, 2.0), s, c, 0.3),
        _nms_inputs(40) + [T(40, dtype=torch.int64, lo=0, hi=3)], opsets=OPSETS),
    # roi_align, aligned=False: torchvision's and RoiAlign-10's one model at every opset
    # (and, from opset 16, coordinate_transformation_mode='output_half_pixel': torch.onnx
    # 1.13 leaves the default 'half_pixel' there and is off by up to a pixel)
    Row("torchvision.roi_align", "torchvision::roi_align",
        _roi_align((3, 3), 0.5, 2, False, 0.5), FEAT, opsets=OPSETS),
    Row("torchvision.roi_align.adaptive", "torchvision::roi_align",
        _roi_align((2, 3), 0.5, -1, False, 0.5), FEAT, opsets=OPSETS),
    Row("torchvision.roi_align.scale1", "torchvision::roi_align",
        lambda x, r: tvops.roi_align(x, _rois(r, 0.5) * torch.tensor([1.0, 0.5, 0.5, 0.5, 0.5]), 2,
                                     spatial_scale=1.0, sampling_ratio=1),
        FEAT, opsets=OPSETS),
    # aligned=True: the half-pixel shift on the boxes below opset 16, 'half_pixel' from 16.
    # Boxes at least one feature pixel wide (2 image pixels at scale 0.5): below opset 16
    # RoiAlign widens smaller ones to one pixel (docs/pytorch.md)
    Row("torchvision.roi_align.aligned", "torchvision::roi_align",
        _roi_align((3, 3), 0.5, 2, True, 2.0), FEAT, opsets=OPSETS),
    Row("torchvision.roi_align.aligned_adaptive", "torchvision::roi_align",
        _roi_align((2, 2), 0.5, 0, True, 2.0), FEAT, opsets=OPSETS),
    # boxes under a feature pixel: exact only with opset 16's modes
    Row("torchvision.roi_align.aligned_tiny", "torchvision::roi_align",
        _roi_align((2, 2), 0.5, 2, True, 0.2), FEAT, opsets=(16, 17)),
    # the list-of-boxes form: torchvision concatenates the rois in Python
    Row("torchvision.roi_align.box_list", "torchvision::roi_align",
        lambda x, r: tvops.roi_align(x, [_boxes(r[:3], 1.0), _boxes(r[3:], 1.0)], (2, 2), 0.5, 2, False),
        FEAT, opsets=OPSETS),
    Row("torchvision.roi_align.module", "torchvision::roi_align",
        module=lambda: _WithRois(tvops.RoIAlign((2, 2), 0.5, 2, aligned=True)), inputs=FEAT, opsets=OPSETS),
    # roi_pool: MaxRoiPool at every opset
    Row("torchvision.roi_pool", "torchvision::roi_pool",
        lambda x, r: tvops.roi_pool(x, _rois(r, 0.5), (3, 3), 0.5),
        [T(2, 3, IMG // 2, IMG // 2, distinct=True), T(K, 4, lo=0.0, hi=1.0)]),
    Row("torchvision.roi_pool.scale1", "torchvision::roi_pool",
        lambda x, r: tvops.roi_pool(x, _rois(r, 0.5) * torch.tensor([1.0, 0.5, 0.5, 0.5, 0.5]), 2, 1.0),
        [T(2, 3, IMG // 2, IMG // 2, distinct=True), T(K, 4, lo=0.0, hi=1.0)]),
    # torchvision's argmax output (for its backward) has no ONNX equivalent
    Row("torchvision.roi_pool.argmax", "torchvision::roi_pool",
        lambda x, r: torch.ops.torchvision.roi_pool(x, _rois(r, 0.5), 0.5, 2, 2)[1],
        [T(2, 3, IMG // 2, IMG // 2, distinct=True), T(K, 4, lo=0.0, hi=1.0)],
        refuse=Refuse("roi_pool_argmax")),
    # ps_roi_align: 2x2 bins of 2 output channels from 8 input channels; boxes at least a
    # feature pixel wide below opset 16, as for roi_align(aligned=True)
    Row("torchvision.ps_roi_align", "torchvision::ps_roi_align",
        lambda x, r: tvops.ps_roi_align(x, _rois(r, 2.0), (2, 2), 0.5, 2),
        [T(2, 8, IMG // 2, IMG // 2), T(K, 4, lo=0.0, hi=1.0)], opsets=OPSETS),
    Row("torchvision.ps_roi_align.adaptive", "torchvision::ps_roi_align",
        lambda x, r: tvops.ps_roi_align(x, _rois(r, 2.0), (1, 3), 0.5, -1),
        [T(2, 6, IMG // 2, IMG // 2), T(K, 4, lo=0.0, hi=1.0)], opsets=OPSETS),
    # ps_roi_pool: excluded (opset/opset_7.yaml says why)
    Row("torchvision.ps_roi_pool", "torchvision::ps_roi_pool",
        lambda x, r: tvops.ps_roi_pool(x, _rois(r, 2.0), (2, 2), 0.5),
        [T(2, 8, IMG // 2, IMG // 2), T(K, 4, lo=0.0, hi=1.0)], opsets=(11, 17),
        refuse=Refuse("averages whole feature pixels")),
    # topk with k computed from a traced size (torchvision's detectors: topk(min(k, n))),
    # k following the input's size: TopK's K input, from opset 10
    Row("topk.traced_k", "aten::topk", lambda x: torch.topk(x, x.shape[0] - 2, dim=0),
        [T(6, 3, distinct=True)], opsets=(10, 13, 17),
        dynamic={"in0": {0: "n"}, "out0": {0: "k"}, "out1": {0: "k"}}),
    Row("topk.topk_min", "aten::topk", lambda x: x.topk(det_utils._topk_min(x, 7, 0))[1],
        [T(6, distinct=True)], opsets=(10, 13, 17), dynamic={"in0": {0: "n"}, "out0": {0: "k"}}),
    # heatmaps_to_keypoints: a Scan over the detections.  Boxes of 0.5 to 14 pixels (the
    # maps shrink; a box under one pixel decodes at size 1) and, zoomed, of 2 to 58 (they
    # grow); no detections at all
    Row("oxport.heatmaps_to_keypoints", "oxport::heatmaps_to_keypoints", _keypoints(1.0),
        HEATMAPS, opsets=KEYPOINT_OPSETS, refuse=Refuse("supported from opset 11", below=11)),
    Row("oxport.heatmaps_to_keypoints.large_boxes", "oxport::heatmaps_to_keypoints",
        _keypoints(4.0), HEATMAPS, opsets=KEYPOINT_OPSETS[1:]),
    Row("oxport.heatmaps_to_keypoints.none", "oxport::heatmaps_to_keypoints", _keypoints(1.0),
        [T(0, 5, 14, 14), T(0, 4, lo=0.0, hi=1.0)], opsets=KEYPOINT_OPSETS[1:], constant=(0, 1)),
    # deform_conv2d: DeformConv from opset 19, refused below.  Offsets of up to 3 pixels
    # either way, so kernel taps land between pixels and across the border (zeros there in
    # torchvision and ONNX alike); masks in [0, 1); weights and bias drawn as inputs
    Row("torchvision.deform_conv2d", "torchvision::deform_conv2d",
        module=lambda: _Deform(), inputs=[T(2, 2, 5, 5), T(2, 18, 5, 5, lo=-3.0, hi=3.0)],
        opsets=DEFORM_OPSETS, refuse=Refuse("supported from opset 19", below=19)),
    Row("torchvision.deform_conv2d.mask", "torchvision::deform_conv2d",
        lambda x, o, w, b, m: tvops.deform_conv2d(x, o, w, b, padding=1, mask=m),
        [T(2, 3, 6, 6), T(2, 18, 6, 6, lo=-3.0, hi=3.0), T(4, 3, 3, 3), T(4),
         T(2, 9, 6, 6, lo=0.0, hi=1.0)], opsets=DEFORM_ONNX),
    # the dispatcher's op called directly records nothing else, so its refusal also runs at
    # opsets 7 and 8 (the module's placeholder mask and bias record zeros, declared from 9)
    Row("torchvision.deform_conv2d.op", "torchvision::deform_conv2d",
        lambda x, w, o, m, b: torch.ops.torchvision.deform_conv2d(x, w, o, m, b, 1, 1, 1, 1, 1, 1,
                                                                  1, 1, True),
        [T(2, 3, 6, 6), T(4, 3, 3, 3), T(2, 18, 6, 6, lo=-3.0, hi=3.0),
         T(2, 9, 6, 6, lo=0.0, hi=1.0), T(4)],
        opsets=DEFORM_OPSETS, refuse=Refuse("supported from opset 19", below=19)),
    Row("torchvision.deform_conv2d.no_bias", "torchvision::deform_conv2d",
        lambda x, o, w: tvops.deform_conv2d(x, o, w),
        [T(2, 3, 6, 6), T(2, 18, 4, 4, lo=-3.0, hi=3.0), T(4, 3, 3, 3)], opsets=DEFORM_ONNX),
    # groups=2 over the channels and offset_groups=2 (each half of the input channels
    # sampled at its own offsets and mask)
    Row("torchvision.deform_conv2d.groups", "torchvision::deform_conv2d",
        lambda x, o, w, b, m: tvops.deform_conv2d(x, o, w, b, padding=1, mask=m),
        [T(2, 4, 7, 7), T(2, 36, 7, 7, lo=-3.0, hi=3.0), T(6, 2, 3, 3), T(6),
         T(2, 18, 7, 7, lo=0.0, hi=1.0)], opsets=DEFORM_ONNX),
    Row("torchvision.deform_conv2d.offset_groups", "torchvision::deform_conv2d",
        lambda x, o, w, b: tvops.deform_conv2d(x, o, w, b, padding=1),
        [T(2, 6, 7, 7), T(2, 54, 7, 7, lo=-3.0, hi=3.0), T(4, 6, 3, 3), T(4)], opsets=DEFORM_ONNX),
    # a 3x2 kernel with stride (2, 1), padding (2, 1), dilation (2, 1): out 5 x 9
    Row("torchvision.deform_conv2d.stride_pad_dilation", "torchvision::deform_conv2d",
        lambda x, o, w, b, m: tvops.deform_conv2d(x, o, w, b, stride=(2, 1), padding=(2, 1),
                                                  dilation=(2, 1), mask=m),
        [T(2, 3, 9, 8), T(2, 12, 5, 9, lo=-3.0, hi=3.0), T(4, 3, 3, 2), T(4),
         T(2, 6, 5, 9, lo=0.0, hi=1.0)], opsets=DEFORM_ONNX),
]


class _WithRois(nn.Module):
    """An RoI module called on (features, [K, 4] randoms) as the rows' inputs come."""

    def __init__(self, pool):
        super().__init__()
        self.pool = pool

    def forward(self, x, r):
        return self.pool(x, _rois(r, 2.0))


class _Deform(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tvops.DeformConv2d(2, 3, 3, padding=1)

    def forward(self, x, offset):
        return self.conv(x, offset)


assert torchvision  # the ops register with torch.ops.torchvision on import
