#!/usr/bin/python3
"""`oxport diff A B [--run]`: the structure of two files and their outputs
in ONNX Runtime, on oxport's and torch.onnx's export of one model."""
import collections
import json
import os
import re
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from toolcase import ToolCase, oxport

try:
    import torch
    import oxport.torch as oxt
except ImportError:  # Debian's python3 without torch: the torch case is skipped
    torch = None


def histogram(m):
    return collections.Counter(n.op_type for n in m.graph.node)


class Diff(ToolCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.mlp_ox = cls.mlp_torch = None
        if torch is None:
            return

        class MLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(6, 16)
                self.fc2 = torch.nn.Linear(16, 3)

            def forward(self, x):
                return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)

        torch.manual_seed(0)
        m = MLP().eval()
        x = torch.randn(2, 6)
        cls.mlp_ox = os.path.join(cls.tmp, "mlp_oxport.onnx")
        cls.mlp_torch = os.path.join(cls.tmp, "mlp_torch.onnx")
        kw = dict(input_names=["x"], output_names=["y"], opset_version=13)
        oxt.export(m, (x,), cls.mlp_ox, **kw)
        torch.onnx.export(m, (x,), cls.mlp_torch, **kw)

    def test_same_file(self):
        r = oxport("diff", self.small, self.small, "--run", check_rc=0)
        self.assertIn("structure: same\n", r.stdout)
        self.assertRegex(r.stdout, r"  = output #0 \S+: float32\[1, 1, 672, 672\], max \|A - B\| = 0,")
        self.assertTrue(r.stdout.endswith("outputs: agree\n"))

    def test_opsets_differ_in_structure_not_in_numbers(self):
        sr9 = self.path("sr9.onnx")
        oxport("export", "superresolution", "-o", sr9, "--opset", "9", check_rc=0)
        a, b = onnx.load(self.small), onnx.load(sr9)
        r = oxport("diff", self.small, sr9)
        self.assertEqual(r.returncode, 1)
        ha, hb = histogram(a), histogram(b)
        want = sorted(f"{op} A {ha[op]}, B {hb[op]}" for op in set(ha) | set(hb) if ha[op] != hb[op])
        got = sorted(re.sub(r"\s+", " ", l[4:]) for l in
                     r.stdout.split("ops:\n")[1].split("nodes (")[0].splitlines())
        self.assertEqual(got, [re.sub(r"\s+", " ", w) for w in want])
        r = oxport("diff", self.small, sr9, "--run", check_rc=0)
        self.assertIn("outputs: agree", r.stdout)

    def test_changed_weight_is_found_by_run(self):
        m = onnx.load(self.small)
        init = m.graph.initializer[0]
        w = numpy_helper.to_array(init).copy()
        w.flat[0] += 1.0
        init.CopyFrom(numpy_helper.from_array(w, init.name))
        changed = self.path("changed.onnx")
        onnx.save(m, changed)
        r = oxport("diff", self.small, changed, check_rc=0)
        self.assertIn("structure: same\n", r.stdout)
        r = oxport("diff", self.small, changed, "--run")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"  ! output #0 ")
        self.assertTrue(r.stdout.endswith("outputs: differ\n"))

    @unittest.skipIf(torch is None, "torch is not installed")
    def test_oxport_vs_torch_onnx(self):
        a, b = onnx.load(self.mlp_ox), onnx.load(self.mlp_torch)
        r = oxport("diff", self.mlp_ox, self.mlp_torch)
        ha, hb = histogram(a), histogram(b)
        ia = {t.name for t in a.graph.initializer}
        ib = {t.name for t in b.graph.initializer}
        for name in sorted(ia - ib):
            self.assertIn(f"  ! only in A: {name} : ", r.stdout)
        for name in sorted(ib - ia):
            self.assertIn(f"  ! only in B: {name} : ", r.stdout)
        for op in set(ha) | set(hb):
            if ha[op] != hb[op]:
                self.assertRegex(r.stdout, rf"  ! {op}\s+A {ha[op]}, B {hb[op]}\n")
        # same op sequence: every node pair whose attributes differ is listed
        ops_a, ops_b = [n.op_type for n in a.graph.node], [n.op_type for n in b.graph.node]
        attrs_differ = False
        if ops_a == ops_b:
            for i, (x, y) in enumerate(zip(a.graph.node, b.graph.node)):
                if {t.name: t for t in x.attribute} != {t.name: t for t in y.attribute}:
                    attrs_differ = True
                    self.assertIn(f"  ! A #{i} {x.op_type} ", r.stdout)
        self.assertEqual(r.returncode, 1 if ha != hb or ia != ib or ops_a != ops_b or attrs_differ else 0)
        self.assertIn("inputs:\n  = 1, same names and types\n", r.stdout)
        self.assertIn("outputs:\n  = 1, same names and types\n", r.stdout)
        r = oxport("diff", self.mlp_ox, self.mlp_torch, "--run", "--seed", "7", check_rc=0)
        self.assertRegex(r.stdout, r"  = output #0 y: float32\[2, 3\], max \|A - B\| = ")
        self.assertTrue(r.stdout.endswith("outputs: agree\n"))

    def test_errors(self):
        r = oxport("diff", self.small)
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("oxport diff: give two files: A.onnx B.onnx\n"))
        r = oxport("diff", self.small, self.small, "--rtol", "-1")
        self.assertEqual((r.returncode, r.stderr), (2, "oxport diff: --rtol expects a non-negative number, got '-1'\n"))
        r = oxport("diff", self.small, self.small, "--seed", "x")
        self.assertEqual((r.returncode, r.stderr), (2, "oxport diff: --seed expects a non-negative integer, got 'x'\n"))
        r = oxport("diff", self.small, self.path("absent.onnx"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, f"oxport diff: {self.path('absent.onnx')}: cannot open: No such file or directory\n")
        env = dict(os.environ, OXPORT_ORT_RUNNER="")
        r = oxport("diff", self.small, self.small, "--run", env=env)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stderr, "oxport diff: --run needs the ONNX Runtime runner: set OXPORT_ORT_RUNNER to "
                                   "tools/ort/run.js of an oxport source tree (with onnxruntime-node installed "
                                   "by tools/install-deps)\n")

    def test_runtime_rejection_is_reported(self):
        m = onnx.load(self.small)
        m.graph.node[-1].op_type = "NoSuchOp"
        broken = self.path("broken.onnx")
        onnx.save(m, broken)
        r = oxport("diff", self.small, broken, "--run")
        self.assertEqual(r.returncode, 3)
        self.assertTrue(r.stderr.startswith(f"oxport diff: --run: {broken}: ONNX Runtime could not run it: "
                                            f"{broken}: ONNX Runtime rejected the model: "), r.stderr)

    # ---------------------------------------------------------------- --format json

    def diff_json(self, *args, rc):
        r = oxport("diff", *args, "--format", "json")
        self.assertEqual(r.returncode, rc, r.stdout + r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual((d["schema_version"], d["command"]), (1, "diff"))
        return d, r

    def test_json_lists_what_text_lists(self):
        sr9 = self.path("sr9j.onnx")
        oxport("export", "superresolution", "-o", sr9, "--opset", "9", check_rc=0)
        d, _ = self.diff_json(self.small, sr9, rc=1)
        text = oxport("diff", self.small, sr9).stdout
        s = d["structure"]
        self.assertEqual([x["name"] for x in s["sections"]], ["inputs", "outputs", "initializers", "ops", "nodes"])
        self.assertEqual(s["differences"], int(re.search(r"structure: (\d+) differences", text).group(1)))
        self.assertEqual(s["differences"], sum(len(x["differences"]) for x in s["sections"]))
        self.assertIs(d["same"], False)
        self.assertIsNone(d["run"])
        # every message is a line of the text form (fewer than 20 per section here)
        for sec in s["sections"]:
            for x in sec["differences"]:
                self.assertIn(f"  ! {x['message']}\n", text)
        a, b = onnx.load(self.small), onnx.load(sr9)
        self.assertEqual(s["a"]["nodes"], len(a.graph.node))
        self.assertEqual(s["b"]["opset_imports"], [{"domain": "", "version": 9}])
        ha, hb = histogram(a), histogram(b)
        ops = {x["name"]: (x["count_a"], x["count_b"]) for x in s["sections"][3]["differences"]}
        self.assertEqual(ops, {op: (ha[op], hb[op]) for op in set(ha) | set(hb) if ha[op] != hb[op]})
        self.assertTrue(all(x["what"] == "op count" for x in s["sections"][3]["differences"]))
        nodes = s["sections"][4]
        self.assertEqual(nodes["alignment"], "op type")
        only_a = [x["index_a"] for x in nodes["differences"] if x["what"] == "only in A"]
        self.assertTrue(only_a and all(a.graph.node[i].op_type == x["name"] for i, x in
                                       zip(only_a, [x for x in nodes["differences"] if x["what"] == "only in A"])))

    def test_json_same_file_with_run(self):
        d, _ = self.diff_json(self.small, self.small, "--run", "--seed", "3", rc=0)
        self.assertIs(d["same"], True)
        self.assertEqual(d["structure"]["differences"], 0)
        self.assertTrue(all(sec["differences"] == [] and sec["summary"] for sec in d["structure"]["sections"]))
        run = d["run"]
        self.assertEqual((run["seed"], run["agree"], run["outputs_a"], run["outputs_b"]), (3, True, 1, 1))
        out = run["outputs"][0]
        self.assertEqual((out["comparison"], out["max_abs_diff"], out["a"]["shape"]), ("scaled", 0.0, [1, 1, 672, 672]))
        self.assertGreater(out["max_abs_a"], 0)

    def test_json_changed_weight(self):
        m = onnx.load(self.small)
        init = m.graph.initializer[0]
        w = numpy_helper.to_array(init).copy()
        w.flat[0] += 1.0
        init.CopyFrom(numpy_helper.from_array(w, init.name))
        changed = self.path("changedj.onnx")
        onnx.save(m, changed)
        d, _ = self.diff_json(self.small, changed, "--run", rc=1)
        out = d["run"]["outputs"][0]
        self.assertIs(out["agree"], False)
        self.assertGreater(out["max_abs_diff"], out["bound"])
        self.assertIs(d["same"], False)

    def test_json_renamed_input(self):
        m = onnx.load(self.small)
        old = m.graph.input[0].name
        for n in m.graph.node:
            n.input[:] = ["renamed" if i == old else i for i in n.input]
        m.graph.input[0].name = "renamed"
        renamed = self.path("renamed.onnx")
        onnx.save(m, renamed)
        d, _ = self.diff_json(self.small, renamed, rc=1)
        x = d["structure"]["sections"][0]["differences"]
        self.assertEqual([(e["what"], e["name"], e["name_b"], e["index_a"], e["index_b"]) for e in x],
                         [("name differs", old, "renamed", 0, 0)])

    def test_json_run_that_cannot_run_still_closes(self):
        env = dict(os.environ, OXPORT_ORT_RUNNER="")
        r = oxport("diff", self.small, self.small, "--run", "--format", "json", env=env)
        self.assertEqual(r.returncode, 3)
        d = json.loads(r.stdout)
        self.assertEqual((d["run"], d["same"]), (None, None))
        self.assertTrue(r.stderr.startswith("oxport diff: --run needs the ONNX Runtime runner"))

    def test_wide_files_compare(self):
        # many initializers, op types and attributes: each looked up in the other
        # file through a map (benchmarks/cli_scaling.py shows the growth)
        for case, what in (("diff-initializers", "= 40000, same names and types"),
                           ("diff-op-types", "= 16000 nodes, same count of each op type"),
                           ("diff-attributes", "same op types in the same order, same attributes")):
            r, _ = self.run_wide(case)
            self.assertEqual(r.returncode, 0, case)
            self.assertIn(what, r.stdout, case)
            self.assertIn("structure: same", r.stdout, case)

    def test_json_format_errors(self):
        r = oxport("diff", self.small, self.small, "--format", "xml")
        self.assertEqual((r.returncode, r.stderr), (2, "oxport diff: --format expects text or json, got 'xml'\n"))
        r = oxport("diff", self.small, self.small, "--format")
        self.assertEqual((r.returncode, r.stderr), (2, "oxport diff: --format needs a value\n"))


if __name__ == "__main__":
    unittest.main()
