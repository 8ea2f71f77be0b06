#!/usr/bin/python3
"""Integer and bool operands of the aten ops whose ONNX lowering takes floats only at
early opsets (Relu before 14, Pow/Max/Min/Clip before 12, Pad before 11, ReduceSum
never on bool).  The schema checks at conversion found these writing files
onnx.checker and ONNX Runtime reject; each case is now exported (checked) at opsets
9, 11 and 13 and must match eager PyTorch exactly in ONNX Runtime."""

import os
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "hosts", "pytorch"))
import oxport.torch as oxt  # noqa: E402

OPSETS = (9, 11, 13)  # each side of the opsets (11, 12) where integer support starts


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def ints(dtype=torch.int64):
    return (torch.arange(12) - 5).reshape(3, 4).to(dtype)


CASES = {
    "relu_int64": (torch.relu, lambda: (ints(),)),
    "relu_int32": (torch.relu, lambda: (ints(torch.int32),)),
    "pow_int64": (lambda x: x ** 2, lambda: (ints(),)),
    "maximum_int64": (torch.maximum, lambda: (ints(), ints().flip(0))),
    "minimum_int64": (torch.minimum, lambda: (ints(), ints().flip(1))),
    "clamp_int64": (lambda x: torch.clamp(x, -2, 3), lambda: (ints(),)),
    "clamp_max_int64": (lambda x: torch.clamp(x, max=1), lambda: (ints(),)),
    "sum_bool": (lambda x: torch.sum(x > 0, 1), lambda: (ints(),)),
    "sum_int32": (lambda x: torch.sum(x, 0), lambda: (ints(torch.int32),)),
    "pad_int64": (lambda x: torch.nn.functional.pad(x, (1, 2), value=7), lambda: (ints(),)),
}


class IntegerOperands(unittest.TestCase):
    def test_cases_at_every_opset(self):
        with tempfile.TemporaryDirectory(prefix="oxport-int-") as tmp:
            for name, (fn, make_args) in CASES.items():
                for opset in OPSETS:
                    with self.subTest(case=name, opset=opset):
                        args = make_args()
                        path = os.path.join(tmp, f"{name}-{opset}.onnx")
                        oxt.export(Fn(fn), args, path, opset_version=opset)
                        # integers: exact
                        res = oxt.verify(Fn(fn), args, path, rtol=0, atol=0)
                        self.assertTrue(res.ok, f"{name} at opset {opset}: {res}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
