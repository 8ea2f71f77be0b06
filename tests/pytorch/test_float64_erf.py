#!/usr/bin/python3
"""erf and gelu in float64: ONNX Runtime has no float64 Erf kernel, so the aten pack spells
erf out in float64 (a series and a continued fraction, plugins/aten/math.c).  The operator
table compares at its usual 1e-4 scale; this test holds the float64 form to float64
precision: within 64 units in the last place of the output's scale, over [-8, 8], at the
opsets where its ops change (9, 13) and the newest (17)."""

import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

ULPS = 64
EPS = torch.finfo(torch.float64).eps


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


class Float64Erf(unittest.TestCase):
    def check(self, f, exact):
        x = torch.linspace(-8, 8, 20001, dtype=torch.float64)
        ref = [exact(v) for v in x.tolist()]
        with tempfile.TemporaryDirectory() as tmp:
            for opset in (9, 13, 17):
                path = os.path.join(tmp, f"m{opset}.onnx")
                oxt.export(Fn(f), (x,), path, opset_version=opset, input_names=["x"])
                got = onnxval.run_ort(path, {"x": x.numpy()})[0].tolist()
                bound = ULPS * EPS * max(abs(r) for r in ref)
                worst = max(abs(a - b) for a, b in zip(got, ref))
                self.assertLessEqual(worst, bound, f"opset {opset}: off by {worst:.3g}, bound {bound:.3g}")

    def test_erf(self):
        self.check(torch.erf, math.erf)

    def test_gelu(self):
        self.check(F.gelu, lambda v: v / 2 * (1 + math.erf(v / math.sqrt(2))))


if __name__ == "__main__":
    unittest.main()
