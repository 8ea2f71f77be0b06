#!/usr/bin/python3
"""Opsets 7 and 8 (IR version 3): whole models export, pass onnx.checker, and match eager
in ONNX Runtime on the example and a second input; what needs opset 9 says so."""
import os
import sys
import tempfile
import unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402


class SmallCnn(nn.Module):
    """Conv, BatchNorm, ReLU, pooling, a view by traced size and a Linear head: the shape
    vector of the view is an int64 constant, which opsets 7 and 8 hold as an initializer."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.pool(torch.sigmoid(self.conv2(x)))
        x = F.avg_pool2d(x, 1)
        return torch.log_softmax(self.head(x.view(x.size(0), -1)), dim=1)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.tanh(self.fc1(x)) + F.leaky_relu(self.fc1(x), 0.1)
        return torch.softmax(self.fc2(h).transpose(0, 1), dim=0)


def calibrated(model, x):
    """BatchNorm running statistics away from 0/1, so the comparison is not trivial."""
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(x * 1.5 + 0.3)
    return model.eval()


class LowOpsets(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def export_and_compare(self, name, model, x, opset):
        path = os.path.join(self.tmp.name, f"{name}-{opset}.onnx")
        oxt.export(model, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"])
        m = onnx.load(path)
        self.assertEqual(m.ir_version, 3)
        self.assertEqual([(o.domain, o.version) for o in m.opset_import], [("", opset)])
        # IR 3: every initializer is a graph input too
        inputs = {i.name for i in m.graph.input}
        self.assertTrue(m.graph.initializer)
        self.assertTrue(all(t.name in inputs for t in m.graph.initializer))
        # Constant-1 holds floats only: no Constant of another type is left
        for n in m.graph.node:
            if n.op_type == "Constant":
                self.assertIn(n.attribute[0].t.data_type, (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
                                                           onnx.TensorProto.DOUBLE), n.name)
        onnxval.check(path)
        onnx.checker.check_model(m, full_check=True)
        sets = [x, modelcheck.other_values(x)]
        with torch.no_grad():
            wants = [[model(a).numpy()] for a in sets]
        modelcheck.assert_nontrivial(name, wants)
        # initializers are inputs at IR 3, but ONNX Runtime takes them from the file
        modelcheck.assert_matches(f"{name}@{opset}", path, [{"x": a.numpy()} for a in sets], wants,
                                  reference=modelcheck.torch_onnx_reference(model, (x,), opset, ["x"], ["y"]))
        return m

    def test_cnn(self):
        torch.manual_seed(0)
        x = torch.randn(2, 3, 16, 16)
        model = calibrated(SmallCnn(), x)
        for opset in (7, 8):
            with self.subTest(opset=opset):
                m = self.export_and_compare("cnn", model, x, opset)
                self.assertIn("Conv", {n.op_type for n in m.graph.node})
                # the view's shape vector came from a Constant and is now an initializer
                int_inits = [t for t in m.graph.initializer if t.data_type == onnx.TensorProto.INT64]
                self.assertTrue(int_inits)

    def test_mlp(self):
        torch.manual_seed(1)
        x = torch.randn(3, 6)
        for opset in (7, 8):
            with self.subTest(opset=opset):
                self.export_and_compare("mlp", Mlp().eval(), x, opset)

    def test_operator_from_opset_9_says_so(self):
        class UsesWhere(nn.Module):
            def forward(self, x):
                return torch.where(x > 0, x, torch.zeros_like(x))

        path = os.path.join(self.tmp.name, "where.onnx")
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(UsesWhere(), (torch.randn(3),), path, opset_version=8)
        self.assertIn("aten::where", str(cm.exception))
        self.assertIn("supported from opset 9", str(cm.exception))
        self.assertFalse(os.path.exists(path))

    def test_opset_6_is_refused(self):
        path = os.path.join(self.tmp.name, "m.onnx")
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(Mlp().eval(), (torch.randn(3, 6),), path, opset_version=6)
        self.assertIn("opset 6 is outside the enabled range 7..21", str(cm.exception))
        self.assertFalse(os.path.exists(path))


if __name__ == "__main__":
    unittest.main()
