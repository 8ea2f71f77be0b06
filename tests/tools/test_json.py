#!/usr/bin/python3
"""`--format json` (dump, check, ops, plugins) and `export --report FILE.json`:
each document parses, carries schema_version 1 and the command, and agrees
with the file or the text output it describes."""
import json
import os
import unittest

import onnx
from onnx import helper, TensorProto

from toolcase import SRCDIR, ToolCase, oxport

PLUGINS = os.environ.get("OXPORT_PLUGIN_PATH")


def doc(r, command):
    d = json.loads(r.stdout)
    assert d["schema_version"] == 1, d
    assert d["command"] == command, d
    return d


class Json(ToolCase):
    def test_dump_matches_onnx(self):
        d = doc(oxport("dump", self.small, "--format", "json", check_rc=0), "dump")
        m = onnx.load(self.small)
        g = d["model"]["graph"]
        self.assertEqual(d["model"]["ir_version"], m.ir_version)
        self.assertEqual([(o["domain"], o["version"]) for o in d["model"]["opset_imports"]],
                         [(o.domain, o.version) for o in m.opset_import])
        self.assertEqual([n["op_type"] for n in g["nodes"]], [n.op_type for n in m.graph.node])
        self.assertEqual([n["inputs"] for n in g["nodes"]], [list(n.input) for n in m.graph.node])
        self.assertEqual([n["scope"] for n in g["nodes"]], [n.doc_string for n in m.graph.node])
        self.assertEqual({i["name"]: i["type"]["shape"] for i in g["initializers"]},
                         {t.name: list(t.dims) for t in m.graph.initializer})
        conv = next(n for n in g["nodes"] if n["op_type"] == "Conv")
        attrs = {a["name"]: (a["kind"], a["value"]) for a in conv["attributes"]}
        want = {a.name: list(a.ints) for a in next(n for n in m.graph.node if n.op_type == "Conv").attribute}
        self.assertEqual(attrs["kernel_shape"], ("ints", want["kernel_shape"]))

    def test_dump_escapes_any_name(self):
        # a name with a quote, a control character and invalid UTF-8 still gives valid JSON
        odd = 'x"\\\n\x01'
        node = helper.make_node("Relu", [odd], ["y"], name="r")
        g = helper.make_graph([node], "g", [helper.make_tensor_value_info(odd, TensorProto.FLOAT, [1, "N"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        p = self.path("odd.onnx")
        data = m.SerializeToString().replace(b"x\"\\\n\x01", b"x\"\\\n\xff")
        with open(p, "wb") as f:
            f.write(data)
        d = doc(oxport("dump", p, "--format", "json", check_rc=0), "dump")
        inp = d["model"]["graph"]["inputs"][0]
        self.assertEqual(inp["name"], 'x"\\\n\ufffd')
        self.assertEqual(inp["type"], {"dtype": "float32", "shape": [1, "N"], "other": None})

    def test_dump_escapes_control_characters(self):
        # producer, graph name and domains with C0, DEL and C1 controls: the document reads
        # back the same strings, and holds no control byte but its final newline
        odd = "a\nb\x1b[31m\r\t\\\x7f\u0085\u009bz"
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], odd,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        m = helper.make_model(g, producer_name=odd, producer_version=odd,
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(odd, 1)])
        p = self.path("ctl.onnx")
        onnx.save(m, p)
        r = oxport("dump", p, "--format", "json", check_rc=0)
        d = doc(r, "dump")
        self.assertEqual((d["model"]["producer_name"], d["model"]["producer_version"]), (odd, odd))
        self.assertEqual(d["model"]["graph"]["name"], odd)
        self.assertEqual(d["model"]["opset_imports"][1]["domain"], odd)
        raw = r.stdout.encode()
        self.assertTrue(raw.endswith(b"\n"))
        self.assertEqual([c for c in raw[:-1] if c < 0x20 or c == 0x7f], [])
        self.assertNotIn("\u0085", r.stdout)
        self.assertNotIn("\u009b", r.stdout)

    def test_dump_lists_sparse_initializers(self):
        # GraphProto.sparse_initializer: each with its element type, dense shape and NNZ,
        # apart from the dense initializers; a node reading one names it in its inputs
        vals = helper.make_tensor("emb", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
        idx = helper.make_tensor("", TensorProto.INT64, [3], [0, 5, 11])
        emb = helper.make_sparse_tensor(vals, idx, [3, 4])
        vals = helper.make_tensor("mask", TensorProto.INT64, [2], [7, 9])
        idx = helper.make_tensor("", TensorProto.INT64, [2, 2], [0, 1, 1, 0])
        mask = helper.make_sparse_tensor(vals, idx, [2, 2])
        w = helper.make_tensor("w", TensorProto.FLOAT, [1], [0.5])
        nodes = [helper.make_node("Identity", ["emb"], ["y"]), helper.make_node("Identity", ["w"], ["z"])]
        g = helper.make_graph(nodes, "g", [], [helper.make_sparse_tensor_value_info("y", TensorProto.FLOAT, [3, 4]),
                                               helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
                              [w], sparse_initializer=[emb, mask])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        onnx.checker.check_model(m)
        p = self.path("sparse.onnx")
        onnx.save(m, p)
        d = doc(oxport("dump", p, "--format", "json", check_rc=0), "dump")
        g = d["model"]["graph"]
        self.assertEqual([i["name"] for i in g["initializers"]], ["w"])
        self.assertEqual(g["sparse_initializers"],
                         [{"name": "emb", "dtype": "float32", "shape": [3, 4], "nnz": 3},
                          {"name": "mask", "dtype": "int64", "shape": [2, 2], "nnz": 2}])
        self.assertEqual(g["nodes"][0]["inputs"], ["emb"])
        # a file without any: an empty list, never an absent key
        d = doc(oxport("dump", self.small, "--format", "json", check_rc=0), "dump")
        self.assertEqual(d["model"]["graph"]["sparse_initializers"], [])

    def test_dump_says_which_initializers_are_inputs_too(self):
        # An initializer the file also lists as a graph input (IR 3's layout, or
        # keep_initializers_as_inputs) is a default a runtime may be given a value for:
        # the reader keeps it out of `inputs`, so the initializer entry says so.
        w = helper.make_tensor("w", TensorProto.FLOAT, [1], [0.5])
        b = helper.make_tensor("b", TensorProto.FLOAT, [1], [1.0])
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
        node = helper.make_node("Add", ["x", "w"], ["s"])
        node2 = helper.make_node("Add", ["s", "b"], ["y"])
        g = helper.make_graph([node, node2], "g", [x, helper.make_tensor_value_info("w", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], [w, b])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        onnx.checker.check_model(m)
        p = self.path("also_input.onnx")
        onnx.save(m, p)
        g = doc(oxport("dump", p, "--format", "json", check_rc=0), "dump")["model"]["graph"]
        self.assertEqual([i["name"] for i in g["inputs"]], ["x"])
        self.assertEqual([(i["name"], i["also_input"]) for i in g["initializers"]], [("w", True), ("b", False)])

    def test_check_per_file(self):
        bad = self.path("bad.onnx")
        node = helper.make_node("Relu", ["missing"], ["y"])
        g = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        with open(bad, "wb") as f:
            f.write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
        text = oxport("check", bad)
        r = oxport("check", "--format", "json", self.small, bad, self.path("absent.onnx"))
        self.assertEqual(r.returncode, 2)
        d = doc(r, "check")
        self.assertEqual(d["exit_status"], 2)
        good, wrong, absent = d["files"]
        self.assertEqual((good["valid"], good["violations"]), (True, []))
        self.assertFalse(wrong["valid"])
        self.assertEqual([f"{bad}: {v}" for v in wrong["violations"]], text.stdout.splitlines()[:-1])
        self.assertEqual((absent["readable"], absent["error"]), (False, "cannot open: No such file or directory"))

    def test_ops_agrees_with_text(self):
        d = doc(oxport("ops", "--opset", "9", "--format", "json", check_rc=0), "ops")
        text = oxport("ops", "--opset", "9", check_rc=0).stdout
        self.assertEqual(d["opset"], 9)
        names = [o["name"] for o in d["operators"]]
        self.assertEqual(names, sorted(names))
        for o in d["operators"]:
            self.assertIn("\n" + o["name"], text)
        limited = [o for o in d["operators"] if o["limitations"]]
        self.assertTrue(limited)
        l = limited[0]["limitations"][0]
        self.assertIn(f"limitation: {l['when']}: {l['message']}", text)

    def test_plugins_list_and_checks(self):
        d = doc(oxport("plugins", "--format", "json", check_rc=0), "plugins")
        self.assertEqual(d["mode"], "list")
        names = {p["name"] for p in d["packs"]}
        self.assertLessEqual({"aten", "nn_functions"}, names)
        aten = next(p for p in d["packs"] if p["name"] == "aten")
        self.assertIn("aten::conv2d", [o["name"] for o in aten["operators"]])
        d = doc(oxport("plugins", "--check", "--format", "json", check_rc=0), "plugins")
        self.assertEqual((d["mode"], d["ok"], d["problems"]), ("check_all", True, []))
        notso = self.path("not-a-pack.so")
        with open(notso, "w") as f:
            f.write("text")
        r = oxport("plugins", "--check", notso, "--format", "json")
        self.assertEqual(r.returncode, 1)
        d = doc(r, "plugins")
        self.assertFalse(d["ok"])
        self.assertEqual(len(d["problems"]), 1)
        self.assertTrue(d["problems"][0].startswith(f"plugin {notso}: cannot open: "))

    def test_format_errors(self):
        for cmd, msg in [("check", "oxport check: --format expects text or json, got 'xml'\n"),
                         ("plugins", "oxport plugins: --format expects text or json, got 'xml'\n")]:
            r = oxport(cmd, "--format", "xml", self.small)
            self.assertEqual((r.returncode, r.stderr), (2, msg))
        r = oxport("ops", "--format", "xml")
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("oxport ops: --format expects text, markdown or json, got 'xml'\n"))

    def test_export_report_success(self):
        out, rep = self.path("sr.onnx"), self.path("sr.json")
        oxport("export", "superresolution", "-o", out, "--report", rep, check_rc=0)
        with open(rep) as f:
            d = json.load(f)
        self.assertEqual((d["schema_version"], d["command"], d["ok"], d["opset"]), (1, "export", True, 13))
        m = onnx.load(out)
        hist = {}
        for n in m.graph.node:
            hist[n.op_type] = hist.get(n.op_type, 0) + 1
        self.assertEqual(d["summary"]["ops"], hist)
        self.assertEqual(d["summary"]["nodes"], len(m.graph.node))
        self.assertEqual([st["name"] for st in d["stages"]], ["build weights", "run and trace", "convert and write"])
        self.assertTrue(all(st["seconds"] >= 0 for st in d["stages"]))

    def test_export_report_groups_problems(self):
        cfg = self.path("cfg.yaml")
        with open(cfg, "w") as f:
            f.write("disabled_operators: [aten::relu]\n")
        r = oxport("export", "superresolution", "-o", self.path("x.onnx"), "--config", cfg, "--report", "-")
        self.assertEqual(r.returncode, 1)
        d = doc(r, "export")
        self.assertEqual((d["ok"], d["status"], d["problem_count"]), (False, "OX_EUNSUPPORTED", 3))
        self.assertEqual(len(d["problems"]), 1)
        p = d["problems"][0]
        self.assertEqual(p["count"], 3)
        self.assertEqual(sum(s["count"] for s in p["scopes"]), 3)
        self.assertIn(p["message"], d["message"])
        # the model applies its one ReLU module three times
        self.assertEqual(p["scopes"], [{"scope": "SuperResolutionNet/ReLU[relu]", "count": 3}])
        self.assertIn("(3 times in 1 scope: SuperResolutionNet/ReLU[relu] (3))", r.stderr)
        self.assertFalse(os.path.exists(self.path("x.onnx")))

    def test_export_report_name(self):
        r = oxport("export", "superresolution", "-o", self.path("y.onnx"), "--report", "r.txt")
        self.assertEqual((r.returncode, r.stderr), (2, "oxport export: --report writes JSON or HTML: name the "
                                                       "file *.json or *.html (or '-' for JSON on standard "
                                                       "output), got 'r.txt'\n"))


if __name__ == "__main__":
    unittest.main()
