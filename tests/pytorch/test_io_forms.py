#!/usr/bin/python3
"""The forms of args and of a model's outputs, through oxport.torch.export and
torch.onnx.export (1.13) alike: the file's inputs and outputs must be torch.onnx's (count,
order, names given, dtypes), and the file must compute the model in ONNX Runtime on the
example and on other values (tests/py/modelcheck.py's rule), so an input fed under a name
reaches the argument torch.onnx gives that name."""
import os
import sys
import tempfile
import unittest
import warnings

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import modelcheck  # noqa: E402
import oxport.torch as oxt  # noqa: E402

ONNX_TYPES = {v: k for k, v in onnx.TensorProto.DataType.items()}


def io_facts(path):
    g = onnx.load(path).graph
    inits = {t.name for t in g.initializer}

    def one(v):
        tt = v.type.tensor_type
        return v.name, ONNX_TYPES[tt.elem_type], [d.dim_param or d.dim_value for d in tt.shape.dim]
    return [one(i) for i in g.input if i.name not in inits], [one(o) for o in g.output]


class Keywords(nn.Module):
    def forward(self, x, y=None, z=None):
        return x * 2 + y - 3 * z


class Pair(nn.Module):
    def forward(self, a, b):
        return a * 2 - b


class WithSize(nn.Module):
    def forward(self, x):
        return x + 1, x.shape[0]


class WithNumber(nn.Module):
    def forward(self, x):
        return x + 1, 2.5


class Reversed(nn.Module):
    """Uses its parameters in the reverse of their state_dict order, and one not at all."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 3)
        self.unused = nn.Linear(3, 3)

    def forward(self, x):
        return self.a(torch.relu(self.b(x)))


class Scaled(nn.Module):
    def forward(self, x, k, unused):
        return x * k


class Forms(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-io-")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def export_both(self, model, args, **kw):
        """oxport's file and torch.onnx's, with the same call; asserts their inputs and
        outputs agree (torch.onnx at the same opset, 13)."""
        ours, theirs = self.path("ox.onnx"), self.path("torch.onnx")
        oxt.export(model, args, ours, opset_version=13, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, args, theirs, opset_version=13, **kw)
        self.assertEqual(io_facts(ours), io_facts(theirs))
        return ours

    def assert_computes(self, path, feed_sets, want_sets):
        """feed_sets: per run, {input name: tensor}; want_sets: per run, eager's outputs."""
        feeds = [{k: v.numpy() for k, v in f.items()} for f in feed_sets]
        wants = [[torch.as_tensor(w).detach().numpy() for w in ws] for ws in want_sets]
        modelcheck.assert_nontrivial(os.path.basename(path), wants)
        modelcheck.assert_matches(os.path.basename(path), path, feeds, wants)

    def test_keyword_arguments_are_inputs_in_the_forwards_order(self):
        # torch.onnx passes the dict's entries by position in the signature's order, so
        # the graph's second input is y however the dict is ordered
        model = Keywords()
        x, y, z = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
        path = self.export_both(model, (x, {"z": z, "y": y}), input_names=["x", "y", "z"])
        sets = [(x, y, z), tuple(modelcheck.other_values((x, y, z)))]
        self.assert_computes(path, [dict(zip("xyz", s)) for s in sets],
                             [[model(a, y=b, z=c)] for a, b, c in sets])

    def test_a_tensor_passed_twice_is_two_inputs(self):
        # "any Tensor arguments will become inputs of the exported model, in the order
        # they occur in the tuple" (torch.onnx.export's docstring): (x, x) is two
        model = Pair()
        x = torch.randn(2, 3)
        path = self.export_both(model, (x, x), input_names=["a", "b"])
        sets = [(x, x), tuple(modelcheck.other_values((x, torch.randn(2, 3))))]
        self.assertFalse(torch.equal(*sets[1]))
        self.assert_computes(path, [dict(zip("ab", s)) for s in sets], [[model(*s)] for s in sets])
        # and verify() feeds it as two inputs too
        self.assertTrue(oxt.verify(model, (x, x), path).ok)

    def test_a_tensor_passed_twice_takes_dynamic_axes_under_each_name(self):
        model = Pair()
        x = torch.randn(2, 3)
        path = self.export_both(model, (x, x), input_names=["a", "b"], output_names=["y"],
                                dynamic_axes={"a": {0: "n"}, "b": {0: "n"}, "y": {0: "n"}})
        a, b = torch.randn(4, 3), torch.randn(4, 3)
        self.assert_computes(path, [{"a": x, "b": x}, {"a": a, "b": b}], [[model(x, x)], [model(a, b)]])

    def test_parameters_are_ordered_as_the_state_dict_orders_them(self):
        # "the exported model will first take all of its parameters as arguments, with the
        # ordering as specified by model.state_dict().values()" (export_params=False)
        model = Reversed()
        x = torch.randn(2, 3)
        path = self.export_both(model, x, export_params=False, input_names=["x"], output_names=["y"])
        names = [n for n, _, _ in io_facts(path)[0]]
        self.assertEqual(names[1:], ["a.weight", "a.bias", "b.weight", "b.bias"])
        state = model.state_dict()
        sets = [x, torch.randn(2, 3)]
        self.assert_computes(path, [{names[0]: s, **{n: state[n] for n in names[1:]}} for s in sets],
                             [[model(s)] for s in sets])
        # input_names past the input name them in that order too
        ours = self.path("named.onnx")
        oxt.export(model, x, ours, opset_version=13, input_names=["x", "w_a", "b_a"])
        inits = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(ours).graph.initializer}
        self.assertEqual(sorted(inits), ["b.bias", "b.weight", "b_a", "w_a"])
        self.assertTrue((inits["w_a"] == model.a.weight.detach().numpy()).all())

    def test_a_size_returned_is_an_int64_output(self):
        model = WithSize()
        x = torch.randn(2, 3)
        path = self.export_both(model, x, input_names=["x"], output_names=["y", "n"],
                                dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        self.assertEqual(io_facts(path)[1][1], ("n", "INT64", []))
        sets = [x, torch.randn(5, 3)]
        self.assert_computes(path, [{"x": s} for s in sets], [list(model(s)) for s in sets])
        self.assertTrue(oxt.verify(model, x, path).ok)

    def test_a_python_number_returned_is_refused_like_torch_onnx(self):
        x = torch.randn(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with self.assertRaisesRegex(RuntimeError, "observable data dependence"):
                torch.onnx.export(WithNumber(), x, self.path("torch.onnx"), opset_version=13)
        with self.assertRaisesRegex(oxt.ExportError, r"WithNumber: output 1 is the Python float 2\.5, which no "
                                                     r"input determines"):
            oxt.export(WithNumber(), x, self.path("ox.onnx"), opset_version=13)
        self.assertFalse(os.path.exists(self.path("ox.onnx")))

    def test_documented_differences_hold(self):
        """docs/pytorch.md, "Differences from torch.onnx.export": a Python number in args is
        a constant (torch.onnx 1.13 makes it a 0-d input), and a tensor the forward never
        reads stays an input (torch.onnx 1.13 drops it with its name)."""
        model = Scaled()
        x, u = torch.randn(2, 3), torch.randn(2, 3)
        ours, theirs = self.path("ox.onnx"), self.path("torch.onnx")
        oxt.export(model, (x, 3, u), ours, opset_version=13, input_names=["x", "u"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x, 3, u), theirs, opset_version=13, input_names=["x", "k", "u"])
        self.assertEqual(io_facts(ours)[0], [("x", "FLOAT", [2, 3]), ("u", "FLOAT", [2, 3])])
        self.assertEqual(io_facts(theirs)[0], [("x", "FLOAT", [2, 3]), ("k", "INT64", [])])
        sets = [(x, u), (torch.randn(2, 3), torch.randn(2, 3))]
        self.assert_computes(ours, [{"x": a, "u": b} for a, b in sets], [[model(a, 3, b)] for a, b in sets])

        # one name for two values: refused, where torch.onnx renames one to 'a.1'
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(Pair(), (x, u), theirs, opset_version=13, input_names=["a", "a"])
        self.assertEqual([n for n, _, _ in io_facts(theirs)[0]], ["a.1", "a"])
        with self.assertRaisesRegex(oxt.ExportError, r'name "a" is already used in this trace \(by input 0\)'):
            oxt.export(Pair(), (x, u), ours, opset_version=13, input_names=["a", "a"])


if __name__ == "__main__":
    unittest.main()
