#!/usr/bin/python3
"""torchvision's detectors through oxport.torch: export, onnx.checker (full_check) and
ONNX Runtime against eager PyTorch on two images.

    /usr/bin/python3 tests/pytorch/test_detection.py [unittest args]
    OXPORT_SLOW=1 ...   also the slow cases (Mask/Keypoint R-CNN, RetinaNet, FCOS, opsets 13, 16)

At opset 10 every detector is refused with the report's 'supported from opset 11'
(bilinear resizing, writes into traced slices, GatherND), which each case asserts.

Random weights (weights=None, weights_backbone=None), 3 classes, 128x128 images (SSDlite
resizes to its 320x320).  Random weights make degenerate detectors, so each case sets
what gives scores that differ from box to box (ties would let the kernels order boxes
differently) and a score threshold inside the score range, so the number of detections
depends on the image: SSDlite and FCOS get BatchNorm statistics of random images (their
heads then spread the scores), Faster R-CNN's class logits are scaled down (unscaled they
saturate the softmax at 1.0).  Each case asserts detections on both images, distinct
scores, and counts that are not the model's cap.

Each model is wrapped to return (boxes, scores, labels) of its one image, and Mask R-CNN's
masks and Keypoint R-CNN's keypoints and their scores where it has them; counts must be
equal and values within the model tests' scale rule (tests/py/modelcheck.py): boxes are
in pixels, so their scale is the image's.
"""

import os
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "py"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torchvision.models import detection as D  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as ox  # noqa: E402

SLOW = os.environ.get("OXPORT_SLOW") == "1"
SIZE = 128
OPSETS = (11, 17)
SLOW_OPSETS = (13, 16)


# what a detector returns per image, in this order where it has it
OUTPUTS = ("boxes", "scores", "labels", "masks", "keypoints", "keypoints_scores")


class Detections(nn.Module):
    """(boxes, scores, labels) of one image, Mask R-CNN's masks (each detection's mask
    pasted into the image: [N, 1, H, W] probabilities) and Keypoint R-CNN's keypoints
    ([N, K, 3] x, y, visibility) and their scores ([N, K])."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image):
        d = self.model([image])[0]
        return tuple(d[k] for k in OUTPUTS if k in d)


def calibrate_backbone(model, size):
    """BatchNorm statistics of the backbone's activations on random images."""
    bns = [b for b in model.backbone.modules() if isinstance(b, nn.modules.batchnorm._BatchNorm)]
    for b in bns:
        b.reset_running_stats()
        b.momentum = None
    model.backbone.train()
    with torch.no_grad():
        model.backbone(torch.rand(4, 3, size, size))
    return model.eval()


def build(name, calibrate=False, cls_scale=None, **kw):
    torch.manual_seed(0)
    common = dict(weights=None, weights_backbone=None, num_classes=3)
    if not name.startswith("ssd"):
        common.update(min_size=SIZE, max_size=SIZE)
    model = getattr(D, name)(**common, **kw).eval()
    if calibrate:
        calibrate_backbone(model, 320 if name.startswith("ssd") else SIZE)
    if cls_scale is not None:
        with torch.no_grad():
            for p in model.roi_heads.box_predictor.cls_score.parameters():
                p.mul_(cls_scale)
    return Detections(model).eval()


def images():
    g = torch.Generator().manual_seed(1)
    return [torch.rand(3, SIZE, SIZE, generator=g) for _ in range(2)]


class Detectors(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="oxport-detection-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def check_model(self, name, cap, opsets=OPSETS, **kw):
        model = build(name, **kw)
        xs = images()
        with torch.no_grad():
            want = [[t.numpy() for t in model(x)] for x in xs]
        for k, (boxes, scores, *_rest) in enumerate(want):
            self.assertGreater(len(boxes), 0, f"{name}: no detections on image {k}")
            self.assertLess(len(boxes), cap, f"{name}: image {k} has the cap's {cap} detections")
            self.assertEqual(len(set(scores.tolist())), len(scores), f"{name}: tied scores on image {k}")
        modelcheck.assert_nontrivial(name, want)
        with torch.no_grad():
            names = [k for k in OUTPUTS if k in model.model([xs[0]])[0]]
        # opset 10 has RoiAlign and NonMaxSuppression, but not what the image transform and
        # the box selection need: the report says so, as torch.onnx needs 11 too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ox.TracerWarning)
            with self.assertRaisesRegex(ox.ExportError, "supported from opset 11"):
                ox.export(model, (xs[0],), os.path.join(self.tmp, "10.onnx"), opset_version=10)
        for opset in opsets + (SLOW_OPSETS if SLOW else ()):
            with self.subTest(opset=opset):
                path = os.path.join(self.tmp, f"{name}-{opset}.onnx")
                with warnings.catch_warnings():
                    # the image-size arithmetic read in Python (GeneralizedRCNNTransform): the
                    # tests' images keep their size
                    warnings.simplefilter("ignore", ox.TracerWarning)
                    ox.export(model, (xs[0],), path, opset_version=opset, input_names=["image"],
                              output_names=names)
                onnxval.check(path)

                # torch.onnx 1.13's RoiAlign is wrong from opset 16 (aligned=False, which the
                # R-CNN heads use: benchmarks/roi_align_vs_torch_onnx.py), which changes which
                # boxes its file keeps (another shape): its opset-15 file is the reference there
                ref_opset = 15 if "rcnn" in name and opset >= 16 else opset

                def reference(p, opset=ref_opset):
                    torch.onnx.export(model, (xs[0],), p, opset_version=opset, input_names=["image"],
                                      output_names=names)

                modelcheck.assert_matches(f"{name} opset {opset}", path, [{"image": x.numpy()} for x in xs],
                                          want, reference)

    def test_keypoint_decode_any_detection_count(self):
        """Keypoint R-CNN's heatmap decoding alone, one file with a dynamic detection count:
        run on 0, 7, 20 and 40 detections, boxes from under a pixel to 320 pixels (maps
        shrunk and grown), against torchvision's Python loop."""
        from torchvision.models.detection import roi_heads

        class Decode(nn.Module):
            def forward(self, maps, boxes):
                return roi_heads.heatmaps_to_keypoints(maps, boxes)

        g = torch.Generator().manual_seed(3)

        def case(n, img):
            maps = torch.randn(n, 17, 56, 56, generator=g) * 5
            corner = torch.rand(n, 2, generator=g) * img
            side = torch.rand(n, 2, generator=g) * img * 0.8 + 0.3
            return maps, torch.cat([corner, corner + side], 1)

        cases = [case(20, 128), case(20, 128), case(7, 400), case(0, 100), case(40, 300)]
        want = [[t.numpy() for t in Decode()(*c)] for c in cases]
        modelcheck.assert_nontrivial("heatmaps_to_keypoints", [w for w in want if len(w[0])],
                                     constant_outputs=())
        for opset in (11, 17):
            with self.subTest(opset=opset):
                path = os.path.join(self.tmp, f"decode-{opset}.onnx")
                ox.export(Decode(), cases[0], path, opset_version=opset,
                          input_names=["maps", "boxes"], output_names=["keypoints", "scores"],
                          dynamic_axes={"maps": {0: "n"}, "boxes": {0: "n"}})
                onnxval.check(path)
                modelcheck.assert_matches(f"heatmaps_to_keypoints opset {opset}", path,
                                          [{"maps": m.numpy(), "boxes": b.numpy()} for m, b in cases],
                                          want)

    def slow(self):
        if not SLOW:
            self.skipTest("slow (OXPORT_SLOW=1)")

    def test_fasterrcnn_resnet50_fpn(self):
        self.check_model("fasterrcnn_resnet50_fpn", 100, cls_scale=0.05, box_score_thresh=0.47)

    def test_ssdlite320_mobilenet_v3_large(self):
        self.check_model("ssdlite320_mobilenet_v3_large", 300, calibrate=True, score_thresh=0.45)

    def test_maskrcnn_resnet50_fpn(self):
        self.slow()
        self.check_model("maskrcnn_resnet50_fpn", 100, box_score_thresh=0.06)

    def test_keypointrcnn_resnet50_fpn(self):
        self.slow()
        self.check_model("keypointrcnn_resnet50_fpn", 100, box_score_thresh=0.96)

    def test_retinanet_resnet50_fpn(self):
        self.slow()
        self.check_model("retinanet_resnet50_fpn", 300, score_thresh=0.02)

    def test_fcos_resnet50_fpn(self):
        self.slow()
        self.check_model("fcos_resnet50_fpn", 100, calibrate=True, score_thresh=0.09)


if __name__ == "__main__":
    unittest.main()
