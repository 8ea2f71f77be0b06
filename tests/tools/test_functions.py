"""Model-local functions (ModelProto.functions) in `oxport check` and `oxport dump`.

Files built with onnx.helper.make_function, valid and not: `oxport check` gives the
verdict onnx.checker.check_model(full_check=True) gives, except on the rules onnx 1.12's
checker does not enforce (listed in STRICTER, each with the exact line oxport prints).
onnx.checker runs in a child process: on a recursive function it crashes.
"""
import json
import os
import subprocess
import sys
import unittest

import onnx
from onnx import TensorProto
from onnx import helper as h

from toolcase import ToolCase, oxport

ONNX15 = h.make_opsetid("", 15)
LOCAL1 = h.make_opsetid("local", 1)


def fn(name="Double", nodes=None, ins=("x",), outs=("y",), opsets=(ONNX15,), attrs=()):
    nodes = nodes if nodes is not None else [h.make_node("Add", ["x", "x"], ["y"])]
    return h.make_function("local", name, list(ins), list(outs), nodes, list(opsets), list(attrs))


def model(funcs, calls=None):
    calls = calls if calls is not None else [h.make_node("Double", ["a"], ["b"], domain="local")]
    g = h.make_graph(calls, "g", [h.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
                     [h.make_tensor_value_info("b", TensorProto.FLOAT, [2])])
    return h.make_model(g, opset_imports=[ONNX15, LOCAL1], functions=funcs)


def leaky_with_ref():
    """A function whose body takes LeakyRelu's alpha from the caller (ref_attr_name)."""
    alpha = h.make_attribute("alpha", 0.0)
    alpha.ClearField("f")
    alpha.ref_attr_name = "slope"
    body = h.make_node("LeakyRelu", ["x"], ["y"])
    body.attribute.append(alpha)
    return model([fn(name="Leaky", nodes=[body], attrs=["slope"])],
                 calls=[h.make_node("Leaky", ["a"], ["b"], domain="local", slope=0.5)])


def cast_and_constant_from_the_caller():
    """Required attributes (Cast's `to`, Constant's `value`) given by reference only."""
    def ref(name, kind, to):
        a = onnx.AttributeProto()
        a.name, a.type, a.ref_attr_name = name, kind, to
        return a
    cast = h.make_node("Cast", ["x"], ["y"])
    cast.attribute.append(ref("to", onnx.AttributeProto.INT, "dtype"))
    const = h.make_node("Constant", [], ["z"])
    const.attribute.append(ref("value", onnx.AttributeProto.TENSOR, "v"))
    f = fn(name="F", nodes=[cast, const, h.make_node("Add", ["y", "z"], ["w"])], outs=("w",),
           attrs=["dtype", "v"])
    call = h.make_node("F", ["a"], ["b"], domain="local", dtype=TensorProto.FLOAT,
                       v=h.make_tensor("t", TensorProto.FLOAT, [1], [2.0]))
    return model([f], calls=[call])


# name -> model; onnx.checker's verdict is oxport's
AGREE = {
    "valid": model([fn()]),
    "calls_another_function": model(
        [fn(), fn(name="Quad", nodes=[h.make_node("Double", ["x"], ["t"], domain="local"),
                                      h.make_node("Double", ["t"], ["y"], domain="local")],
                  opsets=(ONNX15, LOCAL1))],
        calls=[h.make_node("Quad", ["a"], ["b"], domain="local")]),
    "attribute_reference": leaky_with_ref(),
    "required_attributes_by_reference": cast_and_constant_from_the_caller(),
    "other_opset_than_the_model": model([fn(opsets=(h.make_opsetid("", 14),))]),
    "value_used_before_defined": model([fn(nodes=[h.make_node("Add", ["x", "z"], ["y"])])]),
    "domain_not_imported_by_the_function": model([fn(opsets=(h.make_opsetid("foo", 1),))]),
    "unknown_operator_in_body": model([fn(nodes=[h.make_node("Frob", ["x"], ["y"])])]),
    "empty_name": model([fn(name="")]),
    "schema_broken_in_body": model([fn(nodes=[h.make_node("Add", ["x"], ["y"])])]),
}

# name -> (model, oxport's line); onnx 1.12 accepts (or, for recursion, crashes on) these,
# ONNX Runtime refuses them
STRICTER = {
    "defined_twice": (model([fn(), fn()]),
                      "function 'Double' (domain 'local') is defined more than once"),
    "called_with_too_many_inputs": (
        model([fn()], calls=[h.make_node("Double", ["a", "a"], ["b"], domain="local")]),
        "node #0 (Double): calls function 'Double' (domain 'local') with 2 inputs, but it takes 1"),
    "output_never_produced": (
        model([fn(nodes=[h.make_node("Relu", ["x"], ["z"])])]),
        "function 'Double' (domain 'local'): output 'y' is not an input of the function or an "
        "output of any node"),
    "recursive": (
        model([fn(nodes=[h.make_node("Double", ["x"], ["y"], domain="local")],
                  opsets=(ONNX15, LOCAL1))]),
        "function 'Double' (domain 'local') calls itself, directly or through other functions "
        "(recursion is not allowed)"),
}

CHECKER = ("import sys, onnx\n"
           "try:\n"
           "    onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)\n"
           "except onnx.checker.ValidationError as e:\n"
           "    print(e); sys.exit(1)\n")


def onnx_checker_accepts(path):
    r = subprocess.run([sys.executable, "-c", CHECKER, path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise AssertionError(f"onnx.checker crashed on {path} (exit {r.returncode})")
    return r.returncode == 0


class FunctionsCheck(ToolCase):
    def save(self, name, m):
        path = self.path(name + ".onnx")
        onnx.save(m, path)
        return path

    def test_check_agrees_with_onnx_checker(self):
        for name, m in AGREE.items():
            with self.subTest(name):
                path = self.save(name, m)
                ours = oxport("check", path)
                self.assertIn(ours.returncode, (0, 1), ours.stderr)
                self.assertEqual(ours.returncode == 0, onnx_checker_accepts(path), ours.stdout)

    def test_rules_onnx_checker_leaves_out(self):
        for name, (m, line) in STRICTER.items():
            with self.subTest(name):
                path = self.save(name, m)
                ours = oxport("check", path, check_rc=1)
                self.assertEqual(ours.stdout, f"{path}: {line}\n{path}: 1 violation\n")
                if name != "recursive":  # onnx 1.12's checker recurses until it crashes
                    self.assertTrue(onnx_checker_accepts(path), name)

    def test_dump_lists_the_functions(self):
        path = self.save("ref", leaky_with_ref())
        text = oxport("dump", path, check_rc=0).stdout
        self.assertIn(" functions=1\n", text.splitlines()[0] + "\n")
        self.assertIn("function local::Leaky(%x) attributes=[slope] opsets=[ai.onnx:15] {\n"
                      "  %y : Tensor = onnx::LeakyRelu[alpha=@slope](%x)\n"
                      "  return (%y);\n}\n", text)
        doc = json.loads(oxport("dump", path, "--format", "json", check_rc=0).stdout)
        f, = doc["model"]["functions"]
        self.assertEqual((f["name"], f["domain"], f["inputs"], f["outputs"], f["attributes"]),
                         ("Leaky", "local", ["x"], ["y"], ["slope"]))
        self.assertEqual(f["opset_imports"], [{"domain": "", "version": 15}])
        node, = f["nodes"]
        self.assertEqual(node["attributes"], [{"name": "alpha", "kind": "float", "value": None,
                                               "ref": "slope"}])
        call, = doc["model"]["graph"]["nodes"]
        self.assertEqual(call["attributes"][0]["ref"], None)

    def test_torch_onnx_export_reads_and_checks(self):
        """torch.onnx 1.13's own export_modules_as_functions file."""
        script = ("import sys, torch\n"
                  "class Block(torch.nn.Module):\n"
                  "    def __init__(s):\n"
                  "        super().__init__(); s.lin = torch.nn.Linear(4, 4)\n"
                  "    def forward(s, x): return torch.relu(s.lin(x)) + x\n"
                  "class M(torch.nn.Module):\n"
                  "    def __init__(s):\n"
                  "        super().__init__(); s.a = Block(); s.b = Block()\n"
                  "    def forward(s, x): return s.b(s.a(x))\n"
                  "torch.onnx.export(M().eval(), torch.randn(2, 4), sys.argv[1], opset_version=15,\n"
                  "                  export_modules_as_functions=True)\n")
        path = self.path("torch_functions.onnx")
        subprocess.run([sys.executable, "-c", script, path], check=True, capture_output=True)
        self.assertTrue(onnx_checker_accepts(path))
        self.assertEqual(oxport("check", path, check_rc=0).stdout, f"{path}: OK\n")
        text = oxport("dump", path, check_rc=0).stdout
        self.assertIn("function __main__::Block(", text)
        self.assertIn("function torch.nn.modules.linear::Linear(", text)


if __name__ == "__main__":
    unittest.main()
