#!/usr/bin/python3
"""torchvision.ops.roi_align exported by oxport and by torch.onnx 1.13, side by side: the
largest error against eager torchvision, in ONNX Runtime, per opset and `aligned`.

    PYTHONPATH=hosts/pytorch:tests/py OXPORT_...=... /usr/bin/python3 benchmarks/roi_align_vs_torch_onnx.py

(the environment of tests/pytorch/meson.build).  Boxes cross the image border and are at
least one feature pixel wide (below opset 16 RoiAlign widens smaller ones)."""

import os
import sys
import tempfile
import warnings

import numpy as np
import torch
import torchvision.ops as tvops

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "py"))
import onnxval  # noqa: E402
import oxport.torch as ox  # noqa: E402


class Pool(torch.nn.Module):
    def __init__(self, aligned):
        super().__init__()
        self.aligned = aligned

    def forward(self, x, rois):
        return tvops.roi_align(x, rois, (3, 3), spatial_scale=0.5, sampling_ratio=2, aligned=self.aligned)


def main():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(2, 4, 8, 8, generator=g) * 4 - 2
    r = torch.rand(8, 4, generator=g)
    corner = r[:, :2] * 19.2 - 3.2
    boxes = torch.cat([corner, corner + 2 + r[:, 2:] * 12], 1)
    rois = torch.cat([(torch.arange(8) % 2).float()[:, None], boxes], 1)
    print(f"{'opset':>5} {'aligned':>7} {'oxport max err':>15} {'torch.onnx max err':>19}")
    with tempfile.TemporaryDirectory() as tmp:
        for opset in (11, 13, 16, 17):
            for aligned in (False, True):
                m = Pool(aligned)
                want = m(x, rois).numpy()
                feeds = [{"x": x.numpy(), "rois": rois.numpy()}]
                errs = []
                for who in ("oxport", "torch.onnx"):
                    p = os.path.join(tmp, f"{who}-{opset}-{aligned}.onnx")
                    exp = ox.export if who == "oxport" else torch.onnx.export
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        exp(m, (x, rois), p, opset_version=opset, input_names=["x", "rois"])
                    got = onnxval.run_ort_many(p, feeds)[0][0]
                    errs.append(float(np.abs(got - want).max()))
                print(f"{opset:>5} {str(aligned):>7} {errs[0]:>15.3g} {errs[1]:>19.3g}")


if __name__ == "__main__":
    main()
