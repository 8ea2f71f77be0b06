#!/usr/bin/python3
"""`oxport check` against onnx.checker.check_model(full_check=True) on a corpus: a
few small models exported by oxport at opsets 9, 13 and 17, and deliberate mutants
of each made here with the onnx package.  Every file is judged by both; the test
prints agreement per mutation kind and fails on any disagreement that is not listed
in docs/checking.md under "oxport stricter on purpose" (where oxport rejects a file
onnx.checker accepts, and why).  oxport never accepting what onnx.checker rejects is
not negotiable: no such list exists."""

import copy
import os
import re
import subprocess
import sys
import tempfile
import unittest

import onnx
import onnx.checker
import onnx.helper
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
import oxport.torch as oxt  # noqa: E402

OXPORT = os.path.join(os.environ.get("OXPORT_BUILDDIR", os.path.join(SRC, "build")), "tools",
                      "oxport")
DOC = os.path.join(SRC, "docs", "checking.md")
OPSETS = (9, 13, 17)


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class Mixer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = torch.tanh(self.a(x)) * 2.0 + x
        return torch.cat([h, x.transpose(0, 1).reshape(x.shape[0], -1)], dim=1)


MODELS = {
    "convnet": (ConvNet, (torch.randn(1, 3, 8, 8),)),
    "mixer": (Mixer, (torch.randn(4, 6),)),
}


# ------------------------------------------------------------------ mutations
# Each takes a ModelProto (a copy) and returns the mutant, or None when the
# model has nothing to mutate that way.

def _first(model, pred):
    for n in model.graph.node:
        if pred(n):
            return n
    return None


def duplicate_names(m):
    if len(m.graph.node) < 2:
        return None
    m.graph.node[1].output[0] = m.graph.node[0].output[0]
    return m


def unsorted_nodes(m):
    nodes = list(m.graph.node)
    if len(nodes) < 2:
        return None
    del m.graph.node[:]
    m.graph.node.extend(reversed(nodes))
    return m


def missing_input(m):
    n = _first(m, lambda n: len(n.input) > 0 and n.input[0])
    n.input[0] = "no_such_value"
    return m


def wrong_attribute_kind(m):
    """An INT attribute written as a FLOAT (type and payload agree)."""
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INT:
                v = a.i
                a.ClearField("i")
                a.type = onnx.AttributeProto.FLOAT
                a.f = float(v)
                return m
    return None


def payload_type_mismatch(m):
    """An INTS attribute whose payload is a string."""
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INTS:
                del a.ints[:]
                a.s = b"1"
                return m
    return None


def unknown_attribute(m):
    n = _first(m, lambda n: n.op_type != "Constant")
    n.attribute.append(onnx.helper.make_attribute("no_such_attribute", 1))
    return m


def missing_required_attribute(m):
    import onnx.defs
    version = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0]
    for n in m.graph.node:
        s = onnx.defs.get_schema(n.op_type, version, n.domain)
        required = {k for k, a in s.attributes.items() if a.required}
        for i, a in enumerate(n.attribute):
            if a.name in required:
                del n.attribute[i]
                return m
    return None


def no_default_opset(m):
    keep = [o for o in m.opset_import if o.domain not in ("", "ai.onnx")]
    del m.opset_import[:]
    m.opset_import.extend(keep)
    return m


def opset_version_zero(m):
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 0
    return m


def ir_version_2(m):
    m.ir_version = 2
    return m


def ir_version_99(m):
    m.ir_version = 99
    return m


def empty_graph_name(m):
    m.graph.name = ""
    return m


def unknown_op(m):
    n = _first(m, lambda n: n.op_type != "Constant")
    n.op_type = "NoSuchOp"
    return m


def too_many_inputs(m):
    n = _first(m, lambda n: n.op_type in ("Relu", "Tanh", "Softmax", "Flatten", "Transpose"))
    if n is None:
        return None
    n.input.append(n.input[0])
    return m


def too_few_inputs(m):
    n = _first(m, lambda n: n.op_type in ("Add", "Mul", "MatMul", "Gemm", "Conv", "Concat",
                                          "Reshape"))
    del n.input[1:]
    if n.op_type == "Concat":  # Concat takes one input: drop its only one instead
        del n.input[:]
    return m


def input_type_mismatch(m):
    m.graph.input[0].type.tensor_type.elem_type = onnx.TensorProto.INT64
    return m


def output_type_mismatch(m):
    """A graph output declared int64 where the model computes float."""
    m.graph.output[0].type.tensor_type.elem_type = onnx.TensorProto.INT64
    return m


def untyped_constant_mismatch(m):
    """No value_info, and a float Constant feeding arithmetic retyped int32 (same byte
    size, so the payload stays consistent): only type inference through the graph sees
    that the arithmetic mixes float and int32."""
    users = {i for n in m.graph.node if n.op_type in ("Add", "Sub", "Mul", "Div")
             for i in n.input}
    for n in m.graph.node:
        if n.op_type == "Constant" and n.output[0] in users:
            t = n.attribute[0].t
            if t.data_type == onnx.TensorProto.FLOAT and t.raw_data:
                t.data_type = onnx.TensorProto.INT32
                del m.graph.value_info[:]
                return m
    return None


def duplicate_initializer(m):
    if not m.graph.initializer:
        return None
    m.graph.initializer.append(copy.deepcopy(m.graph.initializer[0]))
    return m


MUTATIONS = [
    ("valid", lambda m: m),
    ("duplicate_names", duplicate_names),
    ("unsorted_nodes", unsorted_nodes),
    ("missing_input", missing_input),
    ("wrong_attribute_kind", wrong_attribute_kind),
    ("payload_type_mismatch", payload_type_mismatch),
    ("unknown_attribute", unknown_attribute),
    ("missing_required_attribute", missing_required_attribute),
    ("no_default_opset", no_default_opset),
    ("opset_version_zero", opset_version_zero),
    ("ir_version_2", ir_version_2),
    ("ir_version_99", ir_version_99),
    ("empty_graph_name", empty_graph_name),
    ("unknown_op", unknown_op),
    ("too_many_inputs", too_many_inputs),
    ("too_few_inputs", too_few_inputs),
    ("input_type_mismatch", input_type_mismatch),
    ("output_type_mismatch", output_type_mismatch),
    ("untyped_constant_mismatch", untyped_constant_mismatch),
    ("duplicate_initializer", duplicate_initializer),
]


def stricter_on_purpose():
    """Mutation kinds docs/checking.md lists where oxport rejects and onnx accepts."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## oxport stricter on purpose\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        raise AssertionError(f"{DOC} has no '## oxport stricter on purpose' section")
    return set(re.findall(r"^- `([a-z0-9_]+)`", m.group(1), re.M))


def onnx_accepts(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True, ""
    except Exception as e:  # the checker raises several exception types
        return False, str(e).splitlines()[0] if str(e) else type(e).__name__


def oxport_accepts(path):
    p = subprocess.run([OXPORT, "check", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode not in (0, 1, 2):
        raise AssertionError(f"oxport check {path} exited {p.returncode}: {p.stderr}")
    return p.returncode == 0, p.stdout.strip().splitlines()[0] if p.stdout.strip() else p.stderr


class Agreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="oxport-agree-")
        cls.bases = []
        torch.manual_seed(0)
        for name, (cls_, args) in MODELS.items():
            model = cls_().eval()
            for opset in OPSETS:
                path = os.path.join(cls.tmp.name, f"{name}-{opset}.onnx")
                oxt.export(model, args, path, opset_version=opset)
                cls.bases.append((f"{name}@{opset}", path))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_agreement_per_mutation_kind(self):
        stricter = stricter_on_purpose()
        rows, failures, seen_stricter = [], [], set()
        for kind, mutate in MUTATIONS:
            agree = total = rejected = 0
            for base, path in self.bases:
                mutant = mutate(onnx.load(path))
                if mutant is None:
                    continue
                mpath = os.path.join(self.tmp.name, f"{kind}-{base}.onnx")
                # onnx.save would refuse nothing: write the bytes as they are
                with open(mpath, "wb") as f:
                    f.write(mutant.SerializeToString())
                total += 1
                ok_onnx, why_onnx = onnx_accepts(mpath)
                ok_ox, why_ox = oxport_accepts(mpath)
                rejected += not ok_onnx
                if ok_onnx == ok_ox:
                    agree += 1
                elif ok_ox and not ok_onnx:
                    failures.append(f"{kind} {base}: oxport accepts what onnx.checker rejects "
                                    f"({why_onnx})")
                elif kind in stricter:
                    seen_stricter.add(kind)
                else:
                    failures.append(f"{kind} {base}: oxport rejects ({why_ox}) what onnx.checker "
                                    f"accepts, and {DOC} does not list {kind}")
            self.assertGreater(total, 0, f"mutation {kind} applied to no model")
            rows.append(f"{kind:28s} {agree:3d}/{total:<3d} agree  (onnx.checker rejects "
                        f"{rejected}/{total})")
            # a mutant both checkers accept tests nothing: every mutation must break a rule
            if kind != "valid":
                self.assertEqual(rejected, total, f"{kind}: onnx.checker accepts some mutants")
        print("\n" + "\n".join(rows), file=sys.stderr)
        self.assertEqual(failures, [])
        # A listed difference that no longer happens is a stale document.
        self.assertEqual(sorted(k for k in stricter if k not in seen_stricter
                                and k in dict(MUTATIONS)), [])

    def test_valid_exports_pass_both(self):
        for base, path in self.bases:
            self.assertEqual(onnx_accepts(path), (True, ""), base)
            self.assertEqual(oxport_accepts(path)[0], True, base)

    def test_payload_mismatch_message(self):
        base, path = self.bases[0]
        mpath = os.path.join(self.tmp.name, "payload.onnx")
        m = payload_type_mismatch(onnx.load(path))
        with open(mpath, "wb") as f:
            f.write(m.SerializeToString())
        p = subprocess.run([OXPORT, "check", mpath], stdout=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        node = [n for n in m.graph.node if any(a.s == b"1" for a in n.attribute)][0]
        attr = [a for a in node.attribute if a.s == b"1"][0]
        self.assertEqual(p.stdout, f"{mpath}: unreadable: not an ONNX model: node '{node.name}' "
                                   f"attribute '{attr.name}' has type INTS but holds a STRING "
                                   f"value\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
