#!/usr/bin/python3
"""Faster R-CNN and SSDlite (tests/pytorch/test_detection.py's random-weight cases) exported
by oxport and by torch.onnx 1.13, side by side: detections per image in ONNX Runtime
against eager, and the largest box error when the counts agree.

    (environment of tests/pytorch/meson.build) /usr/bin/python3 benchmarks/detectors_vs_torch_onnx.py
"""

import os
import sys
import tempfile
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "pytorch"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "py"))

import onnxval  # noqa: E402
import oxport.torch as ox  # noqa: E402
import test_detection as td  # noqa: E402

CASES = [("fasterrcnn_resnet50_fpn", dict(cls_scale=0.05, box_score_thresh=0.47)),
         ("ssdlite320_mobilenet_v3_large", dict(calibrate=True, score_thresh=0.45))]


def describe(got, want):
    parts = []
    for g, w in zip(got, want):
        if g[0].shape != w[0].shape:
            parts.append(f"{len(g[0])} vs {len(w[0])} boxes")
        else:
            parts.append(f"{len(w[0])} boxes, err {float(np.abs(g[0] - w[0]).max()) if len(w[0]) else 0:.3g}")
    return "; ".join(parts)


def main():
    xs = td.images()
    print(f"{'model':<32} {'opset':>5}  {'oxport (image 1; image 2)':<40} torch.onnx 1.13")
    with tempfile.TemporaryDirectory() as tmp:
        for name, kw in CASES:
            model = td.build(name, **kw)
            with torch.no_grad():
                want = [[t.numpy() for t in model(x)] for x in xs]
            for opset in (11, 17):
                row = []
                for who, exp in (("oxport", ox.export), ("torch.onnx", torch.onnx.export)):
                    p = os.path.join(tmp, f"{name}-{opset}-{who}.onnx")
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            exp(model, (xs[0],), p, opset_version=opset, input_names=["image"])
                        got = onnxval.run_ort_many(p, [{"image": x.numpy()} for x in xs])
                        row.append(describe(got, want))
                    except Exception as e:  # noqa: BLE001  (a side-by-side report, not a test)
                        row.append(f"failed: {str(e).splitlines()[0][:60]}")
                print(f"{name:<32} {opset:>5}  {row[0]:<40} {row[1]}")


if __name__ == "__main__":
    main()
