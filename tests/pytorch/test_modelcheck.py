#!/usr/bin/python3
"""tests/py/modelcheck.py, the model tests' rule, on hand-made ONNX files: each check must
fail on the file it exists to catch (a constant file, a trivial reference, an error above
the output's scale) and pass within its bounds."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "py")))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import modelcheck  # noqa: E402


def write_model(path, nodes, inits=()):
    """x: float[2, 3] -> y: float[2, 3] through `nodes`."""
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [numpy_helper.from_array(np.asarray(a, dtype=np.float32), name) for name, a in inits])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def scaled(path, k):
    """y = x * k."""
    write_model(path, [helper.make_node("Mul", ["x", "k"], ["y"])], [("k", k)])


class ModelCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-modelcheck-")
        rng = np.random.default_rng(0)
        self.xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]
        self.feeds = [{"x": x} for x in self.xs]

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_a_file_holding_the_example_output_fails_on_the_second_input(self):
        # The file ignores x and returns the example's output: right on input set 0 only.
        write_model(self.path("c.onnx"), [helper.make_node("Add", ["x", "zero"], ["x0"]),
                                          helper.make_node("Mul", ["x0", "zero"], ["x1"]),
                                          helper.make_node("Add", ["x1", "example"], ["y"])],
                    [("zero", 0.0), ("example", self.xs[0] * 2)])
        wants = [[x * 2] for x in self.xs]
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("const", self.path("c.onnx"), self.feeds, wants)
        self.assertIn("const: input set 1 output 0: max abs diff", str(cm.exception))
        self.assertNotIn("input set 0", str(cm.exception))

    def test_the_scale_rule(self):
        wants = [[x * 2] for x in self.xs]
        scaled(self.path("ok.onnx"), 2 * (1 + 1e-4))     # within rtol 1e-3
        modelcheck.assert_matches("ok", self.path("ok.onnx"), self.feeds, wants)
        scaled(self.path("bad.onnx"), 2 * (1 + 1e-2))    # 1e-2 of every element: outside
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("bad", self.path("bad.onnx"), self.feeds, wants)
        self.assertIn("bad: input set 0 output 0: max abs diff", str(cm.exception))

    def test_torch_onnx_error_is_the_fallback_bound(self):
        wants = [[x * 2] for x in self.xs]
        scaled(self.path("ox.onnx"), 2 * (1 + 1e-2))
        # A reference as far off: the difference is taken as the runtime's, oxport passes.
        modelcheck.assert_matches("ox", self.path("ox.onnx"), self.feeds, wants,
                                  reference=lambda p: scaled(p, 2 * (1 + 1e-2)))
        # A reference far closer to eager: oxport's error is its own.
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("ox", self.path("ox.onnx"), self.feeds, wants,
                                      reference=lambda p: scaled(p, 2 * (1 + 1e-3)))
        self.assertIn("torch.onnx.export's file is off by", str(cm.exception))

        def cannot_export(p):
            raise RuntimeError("Exporting the operator foo to ONNX opset version 9 is not supported")
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("ox", self.path("ox.onnx"), self.feeds, wants, reference=cannot_export)
        self.assertIn("(torch.onnx.export gives no reference: RuntimeError: Exporting the operator foo to ONNX "
                      "opset version 9 is not supported)", str(cm.exception))

    def test_a_wrong_shape_is_never_excused_by_torch_onnx(self):
        # eager's output is [1, 2, 3]; both files give [2, 3] (error inf): a reference as
        # wrong says nothing about oxport's (inf <= 2 * inf must not pass)
        wants = [[(x * 2)[None]] for x in self.xs]
        scaled(self.path("ox.onnx"), 2.0)
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("ox", self.path("ox.onnx"), self.feeds, wants,
                                      reference=lambda p: scaled(p, 2.0))
        self.assertIn("shape [2, 3] but eager gives [1, 2, 3]", str(cm.exception))

    def test_a_reference_of_another_shape_excuses_nothing(self):
        # oxport's file is off by 5% (outside the scale bound); torch.onnx's gives another
        # shape (error inf, allowance inf): no reference, so the 5% stands
        wants = [[x * 2] for x in self.xs]
        scaled(self.path("ox.onnx"), 2.1)

        def reshaped(p):
            graph = helper.make_graph(
                [helper.make_node("Reshape", ["x", "s"], ["y"])], "m",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                [numpy_helper.from_array(np.asarray([3, 2], dtype=np.int64), "s")])
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), p)
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_matches("ox", self.path("ox.onnx"), self.feeds, wants, reference=reshaped)
        self.assertIn("torch.onnx.export's file is off by inf", str(cm.exception))

    def test_a_zero_dim_input_stays_zero_dim(self):
        # np.ascontiguousarray would feed it as [1], and ONNX Runtime answer [1]
        graph = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "m",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.path("s.onnx"))
        xs = [np.float32(1.5), np.float32(-0.25)]
        modelcheck.assert_matches("scalar", self.path("s.onnx"), [{"x": np.asarray(x)} for x in xs],
                                  [[np.asarray(-x)] for x in xs])

    def test_trivial_references_are_refused(self):
        x0, x1 = self.xs
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_nontrivial("zeros", [[np.zeros((2, 3), np.float32)], [np.zeros((2, 3), np.float32)]])
        self.assertIn("output 0: reference is near-constant (std 0, max|ref| 0)", str(cm.exception))
        with self.assertRaises(modelcheck.Mismatch) as cm:
            modelcheck.assert_nontrivial("same", [[x0], [x0.copy()]])
        self.assertIn("output 0: the two inputs give the same reference", str(cm.exception))
        with self.assertRaises(modelcheck.Mismatch):
            modelcheck.assert_nontrivial("ints", [[np.arange(3)], [np.arange(3)]])
        modelcheck.assert_nontrivial("fine", [[x0, np.arange(3)], [x1, np.arange(1, 4)]])
        modelcheck.assert_nontrivial("declared", [[x0, np.ones(3)], [x1, np.ones(3)]], constant_outputs={1})

    def test_integer_outputs_must_be_equal(self):
        ok, bad = modelcheck._error(np.arange(4), np.arange(4)), modelcheck._error(np.arange(4), np.arange(1, 5))
        self.assertEqual(ok[:2], (0, True))
        self.assertEqual(bad[:2], (4, False))


if __name__ == "__main__":
    unittest.main()
