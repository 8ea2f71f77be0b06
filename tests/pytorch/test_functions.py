#!/usr/bin/python3
"""export_modules_as_functions: repeated modules become ONNX local functions.

Each file passes onnx.checker (full_check) and `oxport check`, runs in ONNX Runtime and
matches eager PyTorch on two inputs, within torch.onnx's own error on the same model in
the same run (or a few float32 ulps of the output's scale when torch.onnx's is smaller)."""

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

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

OXPORT = os.path.join(os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build")), "tools", "oxport")

BELOW_15 = ("`export_modules_as_functions` is not supported for `opset_version` < 15.This is because "
            "`opset_version` < 15 implies IR version < 8, which means no local function support. ")


class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.scale = d ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        w = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)
        return self.out(w @ v)


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """Two identical layers (same structure, their own weights)."""

    def __init__(self, d=16):
        super().__init__()
        self.embed = nn.Linear(8, d)
        self.layers = nn.ModuleList([Layer(d), Layer(d)])
        self.head = nn.Linear(d, 4)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


class Block(nn.Module):
    """One type, two structures: the activation is chosen at construction."""

    def __init__(self, act):
        super().__init__()
        self.lin = nn.Linear(6, 6)
        self.act = act

    def forward(self, x):
        y = self.lin(x)
        return torch.relu(y) if self.act == "relu" else torch.tanh(y) * 2


class TwoBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block("relu")
        self.b = Block("tanh")
        self.c = Block("relu")

    def forward(self, x):
        return self.c(self.b(self.a(x)))


def call_ops(path):
    m = onnx.load(path)
    return [(n.domain, n.op_type) for n in m.graph.node], {(f.domain, f.name): f for f in m.functions}


class Functions(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-fn-")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def assert_valid_and_matches(self, model, shape, path, opset):
        onnxval.check(path)
        r = subprocess.run([OXPORT, "check", path], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, f"{path}: OK\n"), r.stderr)
        ref = self.path("torch_onnx.onnx")
        xs = [torch.randn(*shape), torch.randn(*shape)]
        torch.onnx.export(model, xs[0], ref, opset_version=opset)
        name = onnx.load(path).graph.input[0].name
        ref_name = onnx.load(ref).graph.input[0].name
        with torch.no_grad():
            eager = [model(x).numpy() for x in xs]
        ours = onnxval.run_ort_many(path, [{name: x.numpy()} for x in xs])
        theirs = onnxval.run_ort_many(ref, [{ref_name: x.numpy()} for x in xs])
        for want, got, ref_got in zip(eager, ours, theirs):
            scale = float(np.abs(want).max())
            bound = max(float(np.abs(ref_got[0] - want).max()), 8 * np.finfo(np.float32).eps * scale)
            self.assertLessEqual(float(np.abs(got[0] - want).max()), bound)

    def test_repeated_layers_share_one_function(self):
        model = TinyTransformer().eval()
        path = self.path("tiny.onnx")
        oxt.export(model, torch.randn(1, 5, 8), path, opset_version=17, export_modules_as_functions=True)
        calls, functions = call_ops(path)
        main = __name__
        self.assertEqual(calls, [("torch.nn.modules.linear", "Linear"), (main, "Layer"), (main, "Layer"),
                                 ("torch.nn.modules.linear", "Linear")])
        names = sorted(n for _, n in functions)
        self.assertEqual(names.count("Layer"), 1)
        self.assertNotIn("Layer_1", names)
        self.assertIn("Attention", names)
        self.assertIn("LayerNorm", names)
        layer = functions[(main, "Layer")]
        # the parameters come in as inputs, as torch.onnx passes them
        self.assertIn("layers.0.attn.qkv.weight", list(layer.input))
        ops = {o.domain: o.version for o in onnx.load(path).opset_import}
        self.assertEqual((ops[""], ops[main], ops["torch.nn.modules.linear"]), (17, 1, 1))
        self.assert_valid_and_matches(model, (1, 5, 8), path, 17)

    def test_a_set_of_types(self):
        model = TinyTransformer().eval()
        path = self.path("tiny_set.onnx")
        oxt.export(model, torch.randn(1, 5, 8), path, opset_version=15, export_modules_as_functions={Layer})
        calls, functions = call_ops(path)
        self.assertEqual(list(functions), [(__name__, "Layer")])
        self.assertEqual([c for c in calls if c[1] == "Layer"], [(__name__, "Layer")] * 2)
        body_ops = {n.op_type for n in functions[(__name__, "Layer")].node}
        self.assertIn("Softmax", body_ops)
        self.assert_valid_and_matches(model, (1, 5, 8), path, 15)

    def test_instances_that_differ_get_their_own_functions(self):
        model = TwoBlocks().eval()
        path = self.path("blocks.onnx")
        oxt.export(model, torch.randn(3, 6), path, opset_version=15, export_modules_as_functions={Block})
        calls, functions = call_ops(path)
        self.assertEqual([n for _, n in calls], ["Block", "Block_1", "Block"])
        self.assertEqual(sorted(n for _, n in functions), ["Block", "Block_1"])
        self.assertIn("Tanh", {n.op_type for n in functions[(__name__, "Block_1")].node})
        self.assert_valid_and_matches(model, (3, 6), path, 15)

    def test_a_module_called_twice_is_two_calls(self):
        class Twice(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = Block("relu")

            def forward(self, x):
                return self.b(torch.neg(self.b(x)))

        model = Twice().eval()
        path = self.path("twice.onnx")
        oxt.export(model, torch.randn(3, 6), path, opset_version=15, export_modules_as_functions={Block})
        calls, functions = call_ops(path)
        self.assertEqual([n for _, n in calls], ["Block", "Neg", "Block"])
        self.assertEqual(list(functions), [(__name__, "Block")])
        self.assert_valid_and_matches(model, (3, 6), path, 15)

    def test_below_opset_15_torch_onnx_error(self):
        model = TwoBlocks().eval()
        x = torch.randn(3, 6)
        with self.assertRaises(ValueError) as theirs:
            torch.onnx.export(model, x, self.path("t.onnx"), opset_version=14, export_modules_as_functions=True)
        for value in (True, {Block}):
            with self.assertRaises(ValueError) as ours:
                oxt.export(model, x, self.path("o.onnx"), opset_version=14, export_modules_as_functions=value)
            self.assertEqual(str(ours.exception), BELOW_15)
            self.assertEqual(str(ours.exception), str(theirs.exception))
        self.assertFalse(os.path.exists(self.path("o.onnx")))
        # an empty set or False asks for nothing: any opset
        oxt.export(model, x, self.path("o.onnx"), opset_version=14, export_modules_as_functions=set())
        self.assertEqual(call_ops(self.path("o.onnx"))[1], {})

    def test_values_that_are_not_a_set_of_module_types(self):
        model = TwoBlocks().eval()
        x = torch.randn(3, 6)
        with self.assertRaises(RuntimeError) as e:
            oxt.export(model, x, self.path("o.onnx"), opset_version=15, export_modules_as_functions={Block, 3})
        self.assertEqual(str(e.exception), "Only type of the `nn.Module` should be passed in the set for argument "
                                           "`export_modules_as_functions`. Got `int`.")
        with self.assertRaises(ValueError) as e:
            oxt.export(model, x, self.path("o.onnx"), opset_version=15, export_modules_as_functions=[Block])
        self.assertEqual(str(e.exception), "oxport.torch.export: export_modules_as_functions=[<class '__main__.Block'>] "
                                           "must be True, False or a set of torch.nn.Module subclasses, e.g. "
                                           "{torch.nn.TransformerEncoderLayer}")
        with self.assertRaises(ValueError) as e:
            oxt.export(torch.tanh, x, self.path("o.onnx"), opset_version=15, export_modules_as_functions=True)
        self.assertEqual(str(e.exception), "oxport.torch.export: export_modules_as_functions needs the model to "
                                           "be a torch.nn.Module (its submodules become functions), not "
                                           "builtin_function_or_method")

    def test_two_selected_classes_with_one_name_are_refused(self):
        Other = type("Block", (nn.Module,), {"__module__": "elsewhere", "forward": lambda self, x: x})
        with self.assertRaises(ValueError) as e:
            oxt.export(TwoBlocks().eval(), torch.randn(3, 6), self.path("o.onnx"), opset_version=15,
                       export_modules_as_functions={Block, Other})
        self.assertEqual(str(e.exception), "oxport.torch.export: export_modules_as_functions selects two module "
                                           "types named 'Block' (__main__.Block and elsewhere.Block); oxport tells "
                                           "modules apart by class name, so select only one of them")


if __name__ == "__main__":
    unittest.main()
