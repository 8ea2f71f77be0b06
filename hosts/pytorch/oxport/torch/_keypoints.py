"""Keypoint R-CNN's heatmap decoding as one recorded operator.

torchvision's `roi_heads.heatmaps_to_keypoints` decodes each detection in a Python loop:
resize its K heatmaps (bicubic) to the box's size rounded up, take each map's argmax.  A
trace would unroll the loop to the example's detection count and bake every box size, so
the file would decode that many detections at those sizes whatever the image.  During an
oxport trace the function is `torch.ops.oxport.heatmaps_to_keypoints` instead: the same
computation (torchvision's own code runs as its kernel, so eager's numbers are unchanged),
recorded as one node, which the ATen pack turns into a Scan over the detections
(plugins/aten/keypoints.c).
"""

import torch

from ._imported import module_if_imported

_lib = None
_impls = []


def _define():
    """The operator oxport::heatmaps_to_keypoints(maps, rois) -> (keypoints, scores),
    defined once per process."""
    global _lib
    if _lib is not None:
        return
    from torchvision.models.detection import roi_heads
    decode = roi_heads.heatmaps_to_keypoints  # torchvision's own, captured before patching

    lib = torch.library.Library("oxport", "DEF")
    lib.define("heatmaps_to_keypoints(Tensor maps, Tensor rois) -> (Tensor, Tensor)")

    def eager(maps, rois):
        xy, scores = decode(maps, rois)
        return xy.contiguous(), scores

    def meta(maps, rois):
        n, k = maps.shape[0], maps.shape[1]
        return (maps.new_empty((n, k, 3), dtype=torch.float32),
                maps.new_empty((n, k), dtype=torch.float32))

    for key, fn in (("CPU", eager), ("Meta", meta)):
        impl = torch.library.Library("oxport", "IMPL", key)
        impl.impl("heatmaps_to_keypoints", fn)
        _impls.append(impl)
    _lib = lib


def heatmaps_to_keypoints(maps, rois):
    """torchvision.models.detection.roi_heads.heatmaps_to_keypoints, as one operator."""
    return torch.ops.oxport.heatmaps_to_keypoints(maps, rois)


class keypoints_decoded_as_one_op:
    """During an oxport trace torchvision's heatmaps_to_keypoints is the one-operator
    form (keypointrcnn_inference looks it up in roi_heads at each call)."""

    def __enter__(self):
        self.roi_heads = roi_heads = module_if_imported("torchvision.models.detection.roi_heads")
        if roi_heads is None:
            return self
        _define()
        self.saved = roi_heads.heatmaps_to_keypoints
        roi_heads.heatmaps_to_keypoints = heatmaps_to_keypoints
        return self

    def __exit__(self, *exc):
        if self.roi_heads is not None:
            self.roi_heads.heatmaps_to_keypoints = self.saved
