#!/usr/bin/python3
"""oxport.torch.export against torch.onnx.export (1.13), argument by argument.

The signature must be torch's, in torch's order with torch's defaults (oxport's own
keywords come after).  Then each argument is given a non-default value — valid ones and
invalid ones — on the same small model, and both exporters are called the same way: both
must succeed or both must refuse, and when both write a file the facts that argument
controls must agree.  Where oxport differs on purpose, DIFFERENCES says how and why, and
the test asserts that difference instead, so it cannot drift silently."""
import inspect
import io
import os
import sys
import tempfile
import unittest
import warnings

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import oxport.torch as oxt  # noqa: E402

TorchExport = torch.onnx.export
OXPORT_ONLY = ("config", "graph_picture", "report", "check", "sync", "trace", "direct_io")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.b(self.a(x))) * 2


def facts(path):
    m = onnx.load(path)
    g = m.graph
    inits = {t.name for t in g.initializer}

    def dims(v):
        return [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
    return {
        "opsets": sorted((o.domain, o.version) for o in m.opset_import),
        "inputs": [i.name for i in g.input if i.name not in inits],
        "inputs_incl_initializers": len(g.input),
        "initializers": len(inits),
        "initializer_names": [t.name for t in g.initializer],
        "outputs": [o.name for o in g.output],
        "input_dims": [dims(i) for i in g.input if i.name not in inits],
        "output_dims": [dims(o) for o in g.output],
        "functions": sorted(f.name for f in getattr(m, "functions", [])),
    }


# (case, kwargs, the facts the argument controls)
X = torch.randn(3, 4)
CASES = [
    ("export_params=False", dict(export_params=False, opset_version=13), ["inputs_incl_initializers", "initializers"]),
    ("verbose=True", dict(verbose=True, opset_version=13), ["outputs"]),
    ("training=PRESERVE", dict(training=torch.onnx.TrainingMode.PRESERVE, opset_version=13), ["outputs"]),
    ("training=TRAINING", dict(training=torch.onnx.TrainingMode.TRAINING, opset_version=13), ["outputs"]),
    ("training=bad", dict(training="train", opset_version=13), []),
    ("input_names", dict(input_names=["features"], opset_version=13), ["inputs"]),
    # the caller's name wins over the model's own; torch.onnx renames the parameter
    ("input_names taking a parameter's name", dict(input_names=["a.fc.weight"], opset_version=13),
     ["inputs", "initializers"]),
    # names past the inputs name the parameters, kept as inputs or not (the seed's AlexNet
    # example names its weights so)
    ("input_names naming the parameters", dict(input_names=["x", "w0", "b0"], opset_version=13),
     ["inputs", "inputs_incl_initializers", "initializer_names"]),
    ("input_names naming every parameter and one more",
     dict(input_names=["x"] + [f"p{i}" for i in range(7)], opset_version=13), []),
    ("output_names", dict(output_names=["logits"], opset_version=13), ["outputs"]),
    ("output_names too many", dict(output_names=["a", "b"], opset_version=13), []),
    ("operator_export_type=ONNX_ATEN_FALLBACK",
     dict(operator_export_type=torch.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK, opset_version=13),
     ["opsets", "inputs_incl_initializers"]),
    ("operator_export_type=ONNX_FALLTHROUGH",
     dict(operator_export_type=torch.onnx.OperatorExportTypes.ONNX_FALLTHROUGH, opset_version=13),
     ["opsets", "inputs_incl_initializers"]),
    # torch.onnx keeps initializers as inputs by default for every type but ONNX
    ("operator_export_type=ONNX_ATEN_FALLBACK, keep_initializers_as_inputs=False",
     dict(operator_export_type=torch.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK, opset_version=13,
          keep_initializers_as_inputs=False), ["opsets", "inputs_incl_initializers"]),
    ("opset_version=None", dict(), ["opsets"]),
    ("opset_version=7", dict(opset_version=7), ["opsets"]),
    ("opset_version=8", dict(opset_version=8), ["opsets"]),
    ("opset_version=11", dict(opset_version=11), ["opsets"]),
    ("opset_version=17", dict(opset_version=17), ["opsets"]),
    ("opset_version=6", dict(opset_version=6), []),
    ("opset_version=99", dict(opset_version=99), []),
    ("do_constant_folding=False", dict(do_constant_folding=False, opset_version=13), ["outputs"]),
    ("dynamic_axes by name", dict(input_names=["x"], output_names=["y"], opset_version=13,
                                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}), ["input_dims", "output_dims"]),
    ("dynamic_axes as a list", dict(input_names=["x"], output_names=["y"], opset_version=13,
                                    dynamic_axes={"x": [0], "y": [0]}), ["inputs", "outputs"]),
    # torch.onnx warns about the repeated axis and names it once, x_dynamic_axes_1
    ("dynamic_axes as a list naming an axis twice", dict(input_names=["x"], opset_version=13,
                                                         dynamic_axes={"x": [0, 0]}), ["input_dims"]),
    ("dynamic_axes naming no input", dict(input_names=["x"], opset_version=13, dynamic_axes={"nope": {0: "b"}}),
     ["inputs"]),
    ("keep_initializers_as_inputs=True", dict(keep_initializers_as_inputs=True, opset_version=13),
     ["inputs_incl_initializers"]),
    ("keep_initializers_as_inputs=False", dict(keep_initializers_as_inputs=False, opset_version=13),
     ["inputs_incl_initializers"]),
    # IR 3 requires initializers to be inputs: torch.onnx ignores False there, with a warning
    ("keep_initializers_as_inputs=False at 8", dict(keep_initializers_as_inputs=False, opset_version=8),
     ["inputs_incl_initializers", "initializers"]),
    ("custom_opsets", dict(custom_opsets={"com.example": 2}, opset_version=13), []),
    ("export_modules_as_functions=True at 13", dict(export_modules_as_functions=True, opset_version=13), []),
    ("export_modules_as_functions=True at 15", dict(export_modules_as_functions=True, opset_version=15),
     ["functions"]),
    ("export_modules_as_functions={Block} at 15", dict(export_modules_as_functions={Block}, opset_version=15),
     ["functions"]),
]

# Deliberate differences: case -> (what oxport does instead, why, the check that it does).
DIFFERENCES = {
    "opset_version=None": (
        "the config's target opset (13 unless configured), not torch 1.13's default 14",
        "one default for every oxport host and the CLI, set in oxport.yaml (docs/configuring-opsets.md)",
        lambda fa, fb, ea, eb: fa["opsets"] == [("", 13)] and fb["opsets"] == [("", 14)]),
    "export_modules_as_functions=True at 15": (
        "every submodule type becomes a function, as in torch.onnx, but the root model stays the graph",
        "a file whose graph is one call of the model's function says nothing more; docs/pytorch.md",
        lambda fa, fb, ea, eb: fa and fb and set(fb["functions"]) - set(fa["functions"]) == {"Net"}
        and set(fa["functions"]) <= set(fb["functions"])),
}


def call(exporter, path, kwargs):
    model = Net().eval()
    before = model.training
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exporter(model, (X,), path, **kwargs)
    except Exception as e:  # noqa: BLE001 - any refusal is the fact compared
        return None, e
    finally:
        assert model.training == before, "the model's training mode was not restored"
    return facts(path), None


class Signature(unittest.TestCase):
    def test_parameters_are_torch_onnx_export_s(self):
        ours = list(inspect.signature(oxt.export).parameters.values())
        theirs = list(inspect.signature(TorchExport).parameters.values())
        self.assertEqual([p.name for p in ours[:len(theirs)]], [p.name for p in theirs])
        for a, b in zip(ours, theirs):
            self.assertEqual(a.default, b.default, a.name)
            self.assertEqual(a.kind, b.kind, a.name)
        self.assertEqual(tuple(p.name for p in ours[len(theirs):]), OXPORT_ONLY)

    def test_every_argument_is_covered(self):
        named = {k for _, kw, _ in CASES for k in kw}
        torch_args = list(inspect.signature(TorchExport).parameters)[3:]
        self.assertEqual(sorted(set(torch_args) - named), [])

    def test_each_argument_behaves_like_torch_onnx(self):
        with tempfile.TemporaryDirectory() as tmp:
            for case, kwargs, keys in CASES:
                with self.subTest(case=case):
                    torch.manual_seed(0)
                    fa, ea = call(oxt.export, os.path.join(tmp, "ox.onnx"), kwargs)
                    torch.manual_seed(0)
                    fb, eb = call(TorchExport, os.path.join(tmp, "torch.onnx"), kwargs)
                    if case in DIFFERENCES:
                        what, _why, holds = DIFFERENCES[case]
                        self.assertTrue(holds(fa, fb, ea, eb), f"{case}: documented as '{what}', which no longer "
                                                               f"holds (oxport: {ea or fa}, torch.onnx: {eb or fb})")
                        continue
                    self.assertEqual(ea is None, eb is None,
                                     f"{case}: oxport {'refused: ' + str(ea) if ea else 'exported'}, torch.onnx "
                                     f"{'refused: ' + str(eb) if eb else 'exported'}")
                    if ea is not None:
                        self.assertTrue(str(ea).strip(), f"{case}: oxport's refusal has no message")
                        continue
                    for k in keys:
                        self.assertEqual(fa[k], fb[k], f"{case}: {k}")

    def test_file_objects_like_torch(self):
        buf = io.BytesIO()
        oxt.export(Net().eval(), (X,), buf, opset_version=13)
        self.assertEqual(onnx.load_from_string(buf.getvalue()).opset_import[0].version, 13)


if __name__ == "__main__":
    unittest.main()
