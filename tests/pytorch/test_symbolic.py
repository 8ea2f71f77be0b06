#!/usr/bin/python3
"""Python symbolics: the seed's autograd-Function `symbolic` staticmethod and
register_custom_op_symbolic, converted through in-process packs and run in ONNX Runtime
against eager on two inputs; the graph object's interface; every error path's message."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.onnx import symbolic_helper as torch_helper  # noqa: E402

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from oxport.torch import symbolic_helper as sh  # noqa: E402


class MyRelu(torch.autograd.Function):
    """The seed's example: forward in PyTorch, symbolic for ONNX."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def symbolic(g, input):
        return g.op("Relu", input)


SEEN = {}


class LeakyAndFlat(torch.autograd.Function):
    """Two outputs, a float argument, an int list argument, attributes of every suffix,
    a tensor attribute, the value's type, and the seed's scalar helpers."""

    @staticmethod
    def forward(ctx, x, alpha, perm):
        return torch.nn.functional.leaky_relu(x, alpha) + 0.5, x.permute(*perm).reshape(-1)

    @staticmethod
    def symbolic(g, x, alpha, perm):
        t = x.type()
        SEEN["sizes"], SEEN["scalar_type"], SEEN["alpha"], SEEN["perm"] = t.sizes(), t.scalarType(), alpha, perm
        leaky = g.op("LeakyRelu", x, alpha_f=alpha)
        half = g.op("Constant", value_t=torch.tensor(0.5))
        SEEN["half"] = sh._scalar(half)
        shifted = g.op("Add", leaky, sh._if_scalar_type_as(g, torch.tensor(0.5), x))
        moved = g.op("Transpose", x, perm_i=perm)
        n = 1
        for s in t.sizes():
            n *= s
        flat = g.op("Reshape", moved, g.op("Constant", value_t=torch.tensor([n])))
        return shifted, flat


class Broken(torch.autograd.Function):
    """forward returns one tensor; MODE picks what the symbolic does wrong."""
    MODE = "arity"

    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def symbolic(g, x):
        mode = Broken.MODE
        if mode == "arity":
            return g.op("Relu", x), g.op("Relu", x)
        if mode == "none":
            return None
        if mode == "suffix":
            return g.op("LeakyRelu", x, alpha=0.1)
        if mode == "badint":
            return g.op("Transpose", x, perm_i=[1.5, 0])
        if mode == "raise":
            raise KeyError("no such thing")
        return "not a value"


def apply_model(fn, *extra):
    class M(nn.Module):
        def forward(self, x):
            return fn.apply(x, *extra)
    return M()


def ort_matches_eager(test, model, path, inputs):
    """Run the file on each input in ONNX Runtime; each output must equal eager within
    float32 rounding of the output's own scale."""
    names = [i.name for i in onnx.load(path).graph.input]
    for x in inputs:
        with torch.no_grad():
            want = model(x)
        want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
        got = onnxval.run_ort(path, {names[0]: x.numpy()})
        test.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            test.assertEqual(g.shape, w.shape)
            scale = max(float(np.abs(w).max()), 1.0)
            test.assertLessEqual(float(np.abs(g - w).max()), 4 * np.finfo(np.float32).eps * scale)


class AutogradFunctionSymbolic(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-sym-")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_seed_myrelu_exports_and_runs_at_every_opset(self):
        model = apply_model(MyRelu)
        for opset in (9, 13, 17):
            p = self.path(f"relu{opset}.onnx")
            oxt.export(model, torch.randn(3, 4), p, opset_version=opset)
            onnxval.check(p)
            m = onnx.load(p)
            self.assertEqual([n.op_type for n in m.graph.node], ["Relu"])
            self.assertEqual(m.opset_import[0].version, opset)
            ort_matches_eager(self, model, p, [torch.randn(3, 4), torch.randn(3, 4) * 10])

    def test_graph_object_interface(self):
        model = apply_model(LeakyAndFlat, 0.2, [1, 0])
        p = self.path("leaky.onnx")
        oxt.export(model, torch.randn(2, 3), p, opset_version=13, output_names=["act", "flat"])
        onnxval.check(p)
        self.assertEqual(SEEN, {"sizes": [2, 3], "scalar_type": "Float", "alpha": 0.2, "perm": [1, 0],
                                "half": 0.5})
        m = onnx.load(p)
        ops = [n.op_type for n in m.graph.node]
        self.assertEqual(ops.count("LeakyRelu"), 1)
        leaky = next(n for n in m.graph.node if n.op_type == "LeakyRelu")
        self.assertAlmostEqual(onnx.helper.get_attribute_value(leaky.attribute[0]), 0.2, places=6)
        perm = next(n for n in m.graph.node if n.op_type == "Transpose")
        self.assertEqual(list(onnx.helper.get_attribute_value(perm.attribute[0])), [1, 0])
        self.assertEqual([o.name for o in m.graph.output], ["act", "flat"])
        ort_matches_eager(self, model, p, [torch.randn(2, 3), torch.randn(2, 3) * 7])

    def test_symbolic_mistakes_are_reported_with_the_function(self):
        model = apply_model(Broken)
        cases = {
            "arity": "Broken.symbolic returned 2 value(s), but forward returns 1 (the symbolic's outputs "
                     "match forward's)",
            "none": "Broken.symbolic returned None: the symbolic does not support this call",
            "suffix": "Broken.symbolic: g.op('LeakyRelu'): attribute 'alpha' has no type suffix: name it "
                      "<name>_f (float), _i (int), _s (string) or _t (tensor), e.g. 'alpha_f' or 'dims_i'",
            "badint": "Broken.symbolic: g.op('Transpose'): attribute 'perm_i' = [1.5, 0] is not an int list",
            "other": "Broken.symbolic returned a str as output 0; return values made with g.op(...)",
        }
        origin = f"python:{__name__}.Broken.symbolic"
        for mode, why in cases.items():
            Broken.MODE = mode
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(model, torch.randn(2, 3), self.path("b.onnx"))
            self.assertEqual(cm.exception.report,
                             "Couldn't export operator(s): 1 problem(s) at opset 13:\n"
                             f"  - fn::Broken at M: {why} (symbolic in {origin})", mode)
            self.assertFalse(os.path.exists(self.path("b.onnx")))
        Broken.MODE = "raise"
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(model, torch.randn(2, 3), self.path("b.onnx"))
        self.assertRegex(cm.exception.report,
                         r"  - fn::Broken at M: Broken.symbolic raised KeyError: 'no such thing' "
                         r"\(.*test_symbolic.py:\d+\) \(symbolic in " + origin.replace(".", r"\.") + r"\)$")


# A custom operator, defined the torch.library way.
_lib = torch.library.Library("oxtest", "DEF")
_lib.define("scaled_relu(Tensor x, float alpha) -> Tensor")
_impl = torch.library.Library("oxtest", "IMPL", "CPU")
_impl.impl("scaled_relu", lambda x, alpha: torch.relu(x) * alpha)


@torch_helper.parse_args("v", "f")
def scaled_relu_symbolic(g, x, alpha):
    return g.op("Mul", g.op("Relu", x), g.op("Constant", value_t=torch.tensor(alpha)))


def relu_as_max(g, self):
    return g.op("Max", self, sh._if_scalar_type_as(g, 0.0, self))


class CustomOp(nn.Module):
    def forward(self, x):
        return torch.ops.oxtest.scaled_relu(x, 1.5) + 1


class Relu(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


class RegisterCustomOpSymbolic(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-custom-")

    def tearDown(self):
        oxt.unregister_custom_op_symbolic("oxtest::scaled_relu", 9)
        oxt.unregister_custom_op_symbolic("::relu", 9)
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_custom_op_exports_then_unregisters(self):
        p = self.path("c.onnx")
        oxt.register_custom_op_symbolic("oxtest::scaled_relu", scaled_relu_symbolic, 9)
        for opset in (9, 13):
            oxt.export(CustomOp(), torch.randn(2, 3), p, opset_version=opset)
            onnxval.check(p)
            ort_matches_eager(self, CustomOp(), p, [torch.randn(2, 3), torch.randn(2, 3) * 5])
        oxt.unregister_custom_op_symbolic("oxtest::scaled_relu", 9)
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(CustomOp(), torch.randn(2, 3), p)
        self.assertEqual(cm.exception.report,
                         "Couldn't export operator(s): 1 problem(s) at opset 13:\n"
                         "  - ONNX export failed on scaled_relu because no symbolic for oxtest::scaled_relu "
                         "is registered (scope: CustomOp)")

    def test_registered_opset_is_the_lowest_it_serves(self):
        oxt.register_custom_op_symbolic("oxtest::scaled_relu", scaled_relu_symbolic, 11)
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(CustomOp(), torch.randn(2, 3), self.path("c.onnx"), opset_version=9)
        self.assertEqual(cm.exception.report,
                         "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                         "  - ONNX export failed on scaled_relu because oxtest::scaled_relu has no symbolic "
                         "at this opset (scope: CustomOp); supported from opset 11")
        oxt.unregister_custom_op_symbolic("oxtest::scaled_relu", 11)

    def test_override_of_a_builtin_aten_symbolic(self):
        p = self.path("r.onnx")
        oxt.export(Relu(), torch.randn(2, 3), p)
        self.assertEqual([n.op_type for n in onnx.load(p).graph.node][0], "Relu")
        oxt.register_custom_op_symbolic("::relu", relu_as_max, 9)
        oxt.export(Relu(), torch.randn(2, 3), p)
        onnxval.check(p)
        ops = [n.op_type for n in onnx.load(p).graph.node]
        self.assertIn("Max", ops)
        self.assertNotIn("Relu", ops)
        ort_matches_eager(self, Relu(), p, [torch.randn(2, 3), torch.randn(2, 3) * 3])
        # the override is listed with its source and what it replaced
        lines = oxt.overrides()
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^aten::relu: python:register_custom_op_symbolic: "
                                   r"__main__\.relu_as_max \(opset 9\) overrides .*libox_aten\.so$")
        oxt.unregister_custom_op_symbolic("::relu", 9)
        oxt.export(Relu(), torch.randn(2, 3), p)
        self.assertEqual([n.op_type for n in onnx.load(p).graph.node][0], "Relu")
        self.assertEqual(oxt.overrides(), [])

    def test_an_override_serves_the_opsets_torch_onnx_gives_it(self):
        # torch.onnx 1.13's dispatch: registered at 11, the built-in symbolic still serves
        # opsets below 11; registered at 9 (its base opset), the function serves 7 and 8 too.
        p = self.path("r.onnx")

        def ops_at(opset):
            oxt.export(Relu(), torch.randn(2, 3), p, opset_version=opset)
            onnxval.check(p)
            return [n.op_type for n in onnx.load(p).graph.node]

        try:
            oxt.register_custom_op_symbolic("::relu", relu_as_max, 11)
            for opset in (8, 9, 10):
                ops = ops_at(opset)
                self.assertIn("Relu", ops, opset)
                self.assertNotIn("Max", ops, opset)
            for opset in (11, 13):
                self.assertIn("Max", ops_at(opset))
            ort_matches_eager(self, Relu(), p, [torch.randn(2, 3), torch.randn(2, 3) * 3])
            oxt.unregister_custom_op_symbolic("::relu", 11)
            oxt.register_custom_op_symbolic("::relu", relu_as_max, 9)
            for opset in (7, 8, 9, 13):
                self.assertIn("Max", ops_at(opset), opset)
        finally:
            oxt.unregister_custom_op_symbolic("::relu", 11)
            oxt.unregister_custom_op_symbolic("::relu", 9)

    def test_overrides_of_common_aten_ops_agree_with_the_descriptors(self):
        # the declaration comes from torch's schema; the engine checks its kinds against the
        # opset YAML (a dtype typed int in the JIT schema, Scalar vs Tensor overloads ...)
        names = ["::add", "::leaky_relu", "::softmax", "::conv2d", "::linear", "::max_pool2d", "::cat",
                 "::mean", "::flatten", "::view", "::batch_norm", "::layer_norm", "::gelu", "::slice"]
        try:
            for n in names:
                oxt.register_custom_op_symbolic(n, relu_as_max, 9)
            lines = oxt.overrides()
            self.assertEqual(len(lines), len(names), lines)
        finally:
            for n in names:
                oxt.unregister_custom_op_symbolic(n, 9)

    def test_plugins_command_lists_registrations_and_overrides(self):
        mod = os.path.join(self.tmp.name, "myregs.py")
        with open(mod, "w") as f:
            f.write("import oxport.torch\n"
                    "def relu(g, x):\n    return g.op('Relu', x)\n"
                    "oxport.torch.register_custom_op_symbolic('::relu', relu, 11)\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([self.tmp.name, os.path.join(SRC, "hosts", "pytorch")]))
        out = subprocess.run([sys.executable, "-m", "oxport.torch", "plugins", "--import", "myregs"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout
        lines = out.splitlines()
        self.assertEqual(lines[:3], ["register_custom_op_symbolic: 1 operator(s)",
                                     "  aten::relu                       since 11: myregs.relu",
                                     "overrides: 1"])
        self.assertRegex(lines[3], r"^  aten::relu: python:register_custom_op_symbolic: myregs\.relu \(opset 11\) "
                                   r"overrides .*libox_aten\.so$")

    def test_name_and_argument_errors_match_torch_onnx(self):
        with self.assertRaises(ValueError) as cm:
            oxt.register_custom_op_symbolic("relu", relu_as_max, 9)
        self.assertEqual(str(cm.exception), "Failed to register operator relu. The symbolic name must match "
                                            "the format domain::name, and should start with a letter and "
                                            "contain only alphanumerical characters")
        with self.assertRaises(ValueError) as cm:
            oxt.register_custom_op_symbolic("onnx::Relu", relu_as_max, 9)
        self.assertEqual(str(cm.exception), "Failed to register operator onnx::Relu. onnx domain cannot be "
                                            "modified.")
        with self.assertRaises(ValueError) as cm:
            oxt.register_custom_op_symbolic("mylib::foo", relu_as_max, 0)
        self.assertEqual(str(cm.exception), "register_custom_op_symbolic('mylib::foo'): opset_version must be "
                                            "an integer >= 1, not 0")
        oxt.register_custom_op_symbolic("nolib::missing", relu_as_max, 9)
        try:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Relu(), torch.randn(2, 3), self.path("m.onnx"))
            self.assertEqual(cm.exception.report, "register_custom_op_symbolic: torch has no operator "
                                                  "nolib::missing (define it with torch.library before "
                                                  "exporting)")
        finally:
            oxt.unregister_custom_op_symbolic("nolib::missing", 9)
        # unregistering what is not registered is silent, as in torch.onnx
        oxt.unregister_custom_op_symbolic("mylib::never", 9)


if __name__ == "__main__":
    unittest.main(verbosity=2)
