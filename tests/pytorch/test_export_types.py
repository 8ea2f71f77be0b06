#!/usr/bin/python3
"""operator_export_type and custom_opsets: ATen fallback nodes as torch.onnx writes them,
fall-through nodes, modes no operator needs leave the file unchanged, domain versions."""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.onnx import OperatorExportTypes as O  # noqa: E402

import oxport.torch as oxt  # noqa: E402


class Erfinv(nn.Module):
    def forward(self, x):
        return torch.erfinv(torch.relu(x)) + 1


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.relu(self.conv(x)).flatten(1)


def nodes(path):
    m = onnx.load(path)
    return ([(n.domain, n.op_type, [(a.name, onnx.helper.get_attribute_value(a)) for a in n.attribute
                                    if a.name != "value"]) for n in m.graph.node],
            {o.domain: o.version for o in m.opset_import})


class ExportTypes(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-et-")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_aten_fallback_writes_the_node_torch_onnx_writes(self):
        x = torch.rand(2, 3)
        out = io.StringIO()
        with redirect_stdout(out):
            oxt.export(Erfinv(), x, self.path("ox.onnx"), opset_version=9,
                       operator_export_type=O.ONNX_ATEN_FALLBACK, verbose=True)
        self.assertIn("oxport: aten::erfinv at Erfinv: no symbolic at opset 9; exported as an ATen node in "
                      "domain org.pytorch.aten (ONNX_ATEN_FALLBACK)\n", out.getvalue())
        torch.onnx.export(Erfinv(), x, self.path("torch.onnx"), opset_version=9,
                          operator_export_type=O.ONNX_ATEN_FALLBACK)
        self.assertEqual(nodes(self.path("ox.onnx")), nodes(self.path("torch.onnx")))
        self.assertIn(("org.pytorch.aten", "ATen", [("operator", b"erfinv"), ("overload_name", b"")]),
                      nodes(self.path("ox.onnx"))[0])
        onnx.checker.check_model(onnx.load(self.path("ox.onnx")), full_check=True)

    def test_without_fallback_the_op_is_an_error(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(Erfinv(), torch.rand(2, 3), self.path("e.onnx"), opset_version=9)
        self.assertEqual(cm.exception.report, "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                                              "  - ONNX export failed on erfinv because no symbolic for "
                                              "aten::erfinv is registered (scope: Erfinv)")

    def test_fallthrough_keeps_the_op_in_its_domain(self):
        oxt.export(Erfinv(), torch.rand(2, 3), self.path("f.onnx"), opset_version=9,
                   operator_export_type=O.ONNX_FALLTHROUGH, custom_opsets={"aten": 2})
        got, opsets = nodes(self.path("f.onnx"))
        self.assertIn(("aten", "erfinv", []), got)
        self.assertEqual(opsets, {"": 9, "aten": 2})

    def test_modes_no_operator_needs_change_nothing(self):
        x = torch.randn(1, 3, 8, 8)
        model = Small().eval()
        oxt.export(model, x, self.path("onnx.onnx"))
        with open(self.path("onnx.onnx"), "rb") as f:
            want = f.read()
        for et in (O.ONNX_ATEN_FALLBACK, O.ONNX_FALLTHROUGH):
            # (their default, like torch.onnx's, lists the initializers as inputs too)
            oxt.export(model, x, self.path("m.onnx"), operator_export_type=et, keep_initializers_as_inputs=False)
            with open(self.path("m.onnx"), "rb") as f:
                self.assertEqual(f.read(), want, et)
        res = oxt.verify(model, x, self.path("m.onnx"))
        self.assertTrue(res.ok, str(res))

    def test_custom_opsets_version_the_domains_symbolics_use(self):
        lib = torch.library.Library("oxet", "DEF")
        lib.define("twice(Tensor x) -> Tensor")
        impl = torch.library.Library("oxet", "IMPL", "CPU")
        impl.impl("twice", lambda x: x * 2)

        class M(nn.Module):
            def forward(self, x):
                return torch.ops.oxet.twice(x)

        oxt.register_custom_op_symbolic("oxet::twice", lambda g, x: g.op("com.example::Twice", x), 9)
        try:
            oxt.export(M(), torch.rand(2), self.path("c.onnx"), custom_opsets={"com.example": 4})
            self.assertEqual(nodes(self.path("c.onnx")), ([("com.example", "Twice", [])],
                                                          {"": 13, "com.example": 4}))
            oxt.export(M(), torch.rand(2), self.path("c.onnx"))
            self.assertEqual(nodes(self.path("c.onnx"))[1], {"": 13, "com.example": 1})
        finally:
            oxt.unregister_custom_op_symbolic("oxet::twice", 9)

    def test_out_of_range_dynamic_axis_says_which(self):
        # _validate checks the axes against the traced ranks before anything is converted.
        with self.assertRaises(ValueError) as cm:
            oxt.export(Small(), torch.randn(1, 3, 8, 8), self.path("d.onnx"), input_names=["x"],
                       output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {2: "n"}})
        self.assertEqual(str(cm.exception), "oxport.torch.export: dynamic_axes['y'] names axis 2, but output 'y' "
                                            "has rank 2 (axes 0 to 1)")
        self.assertFalse(os.path.exists(self.path("d.onnx")))

    def test_bad_values_are_refused_with_what_to_pass(self):
        with self.assertRaises(ValueError) as cm:
            oxt.export(Small(), torch.randn(1, 3, 8, 8), self.path("b.onnx"), custom_opsets={"x": 0})
        self.assertEqual(str(cm.exception), "oxport.torch.export: custom_opsets={'x': 0} must map domain names "
                                            "to opset versions >= 1, e.g. {'mydomain': 1}")
        with self.assertRaises(ValueError) as cm:
            oxt.export(Small(), torch.randn(1, 3, 8, 8), self.path("b.onnx"), operator_export_type=5)
        self.assertEqual(str(cm.exception), "oxport.torch.export: operator_export_type=5 is not a "
                                            "torch.onnx.OperatorExportTypes value")
        self.assertFalse(os.path.exists(self.path("b.onnx")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
