#!/usr/bin/python3
"""Every ONNX file reads and checks: the models of Debian's libonnx-testdata
(the ONNX backend tests) each dump, and `oxport check` accepts or rejects
each as onnx.checker.check_model does; plus hand-made files with the types
the corpus lacks (string tensors, maps, sparse tensors)."""
import glob
import json
import os
import unittest

import onnx
from onnx import TensorProto, helper

from toolcase import ToolCase, oxport

CORPUS = "/usr/share/libonnx-testdata/data"


def reference_accepts(path):
    # full_check: onnx's type inference too, as tests/pytorch/test_check_agreement.py
    # judges (it holds a Constant's value type to the schema's constraint)
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True
    except Exception:  # onnx raises ValidationError and others alike
        return False


class Corpus(ToolCase):
    @unittest.skipUnless(os.path.isdir(CORPUS), "libonnx-testdata is not installed")
    def test_backend_models_dump_and_check_like_onnx_checker(self):
        files = sorted(glob.glob(os.path.join(CORPUS, "**", "*.onnx"), recursive=True))
        self.assertGreater(len(files), 0)
        unreadable = [f for f in files if oxport("dump", f).returncode != 0]
        self.assertEqual(unreadable, [])
        d = json.loads(oxport("check", "--format", "json", *files).stdout)
        ours = {e["file"]: e["valid"] for e in d["files"]}
        disagree = [f for f in files if ours[f] != reference_accepts(f)]
        print(f"\nlibonnx-testdata: {len(files)} models, oxport check agrees with onnx.checker "
              f"on {len(files) - len(disagree)}")
        self.assertEqual(disagree, [])

    def write(self, name, graph, opset=13, **kw):
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kw)
        p = self.path(name)
        onnx.save(m, p)
        return p

    def assert_agrees(self, path):
        r = oxport("check", path)
        self.assertEqual(r.returncode == 0, reference_accepts(path), r.stdout)

    def test_constant_value_type_against_constraint(self):
        # Constant-1 (opsets 1-8) allows float16/float/double only; the corpus's
        # test_PixelShuffle (opset 6) holds an int64 one. Its output is untyped, so
        # only the type the value attribute gives can break the rule.
        def graph(dtype, vals):
            c = helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", dtype, [2], vals))
            r = helper.make_node("Reshape", ["x", "c"], ["y"])
            return helper.make_graph([c, r], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
        bad = self.write("const_int64_opset8.onnx", graph(TensorProto.INT64, [2, 2]), opset=8)
        r = oxport("check", bad, check_rc=1)
        self.assertIn("output 0 (output) of Constant is int64", r.stdout)
        self.assertIn("type constraint T does not allow", r.stdout)
        self.assert_agrees(bad)
        good = self.write("const_int64_opset9.onnx", graph(TensorProto.INT64, [2, 2]), opset=9)
        oxport("check", good, check_rc=0)
        self.assert_agrees(good)

    def test_control_flow_bodies(self):
        # If/Loop/Scan bodies are checked like the graph: reads by name against the body
        # and the enclosing graphs (lexical scope), schemas, each value produced once.
        def model(name, then_nodes, outer_then=True):
            x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
            c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
            y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
            neg = helper.make_node("Neg", ["x"], ["n"])  # outer value the bodies read
            then_g = helper.make_graph(then_nodes, "then_body", [],
                                       [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
            else_g = helper.make_graph([helper.make_node("Identity", ["n"], ["e"])], "else_body", [],
                                       [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
            if_n = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
            return self.write(name, helper.make_graph([neg, if_n], "g", [x, c], [y]))
        good = model("if_good.onnx", [helper.make_node("Relu", ["n"], ["t"])])
        oxport("check", good, check_rc=0)
        self.assert_agrees(good)
        cases = {
            "if_ghost.onnx": ([helper.make_node("Relu", ["ghost"], ["t"])],
                              "node #0 (Relu) of body 'then_branch' of node #1 (If): input 'ghost' is not"),
            "if_attr.onnx": ([helper.make_node("Relu", ["n"], ["t"], zz=1)], "Relu (opset 13) has no attribute 'zz'"),
            "if_ssa.onnx": ([helper.make_node("Relu", ["n"], ["t"]), helper.make_node("Neg", ["n"], ["t"])],
                            "output 't' is already defined"),
            "if_later.onnx": ([helper.make_node("Relu", ["u"], ["t"]), helper.make_node("Neg", ["n"], ["u"])],
                              "input 'u' is not"),
        }
        for name, (nodes, want) in cases.items():
            p = model(name, nodes)
            r = oxport("check", p, check_rc=1)
            self.assertIn(want, r.stdout)
            self.assert_agrees(p)

    def test_string_tensors(self):
        words = helper.make_tensor("words", TensorProto.STRING, [3], [b"a", b"b\"c", b"\xff"])
        node = helper.make_node("Identity", ["words"], ["y"])
        g = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", TensorProto.STRING, [3])],
                              initializer=[words])
        p = self.write("strings.onnx", g)
        r = oxport("dump", p, "--no-header", check_rc=0)
        self.assertIn("%words : String(3)", r.stdout)
        const = helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.STRING, [2], [b"x", b"y"]))
        g = helper.make_graph([const], "g", [], [helper.make_tensor_value_info("c", TensorProto.STRING, [2])])
        p2 = self.write("string_const.onnx", g)
        r = oxport("dump", p2, "--no-header", check_rc=0)
        self.assertIn('onnx::Constant[value={"x", "y"}]()', r.stdout)
        self.assert_agrees(p)
        self.assert_agrees(p2)

    def test_sequence_optional_map_sparse_types(self):
        seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2, "N"])
        opt = helper.make_value_info("o", helper.make_optional_type_proto(
            helper.make_tensor_type_proto(TensorProto.INT64, [1])))
        map_type = onnx.TypeProto()  # onnx 1.12's helper has no make_map_type_proto
        map_type.map_type.key_type = TensorProto.STRING
        map_type.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
        mp = helper.make_value_info("m", map_type)
        nodes = [helper.make_node("SequenceLength", ["s"], ["n"]),
                 helper.make_node("OptionalHasElement", ["o"], ["h"])]
        g = helper.make_graph(nodes, "g", [seq, opt, mp],
                              [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                               helper.make_tensor_value_info("h", TensorProto.BOOL, [])])
        p = self.write("types.onnx", g, opset=18 if onnx.defs.onnx_opset_version() >= 18 else 17)
        r = oxport("dump", p, "--no-header", check_rc=0)
        self.assertIn("%s : Sequence(Float(2, N))", r.stdout)
        self.assertIn("%o : Optional(Long(1))", r.stdout)
        self.assertIn("%m : Map(String, Float)", r.stdout)
        d = json.loads(oxport("dump", p, "--format", "json", check_rc=0).stdout)
        self.assertEqual(d["model"]["graph"]["inputs"][0]["type"],
                         {"dtype": None, "shape": None, "other": "Sequence(Float(2, N))"})
        self.assert_agrees(p)
        sparse = helper.make_sparse_tensor(helper.make_tensor("v", TensorProto.FLOAT, [2], [1.0, 2.0]),
                                           helper.make_tensor("i", TensorProto.INT64, [2], [0, 5]), [3, 4])
        const = helper.make_node("Constant", [], ["c"], sparse_value=sparse)
        g = helper.make_graph([const], "g", [], [helper.make_tensor_value_info("c", TensorProto.FLOAT, [3, 4])])
        p = self.write("sparse.onnx", g)
        r = oxport("dump", p, "--no-header", check_rc=0)
        self.assertIn("onnx::Constant[sparse_value=SparseTensor(Float(3, 4), 2 values)]()", r.stdout)
        self.assert_agrees(p)

    def test_non_tensor_value_where_only_tensors_are_allowed(self):
        # onnx's type inference refuses a sequence or a sparse tensor fed to
        # an operand whose constraint allows tensors only
        seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        refused = [helper.make_graph([helper.make_node("Relu", ["s"], ["y"])], "g", [seq], [y])]
        sparse = helper.make_sparse_tensor(helper.make_tensor("sp", TensorProto.FLOAT, [2], [1.0, 2.0]),
                                           helper.make_tensor("i", TensorProto.INT64, [2], [0, 5]), [3, 4])
        refused.append(helper.make_graph([helper.make_node("Identity", ["sp"], ["y"])], "g", [],
                                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
                                         sparse_initializer=[sparse]))
        for k, g in enumerate(refused):
            p = self.write(f"nontensor_{k}.onnx", g)
            self.assertFalse(reference_accepts(p))
            r = oxport("check", p, check_rc=1)
            self.assertIn("which type constraint T does not allow", r.stdout)
        # where the constraint takes sequences, they pass
        n = helper.make_tensor_value_info("n", TensorProto.INT64, [])
        g = helper.make_graph([helper.make_node("SequenceLength", ["s"], ["n"])], "g", [seq], [n])
        p = self.write("nontensor_ok.onnx", g)
        self.assertTrue(reference_accepts(p))
        oxport("check", p, check_rc=0)

    def test_wide_files_check_and_dump(self):
        # a node's attribute names are held unique, a node's domain needs an
        # import: each one lookup, not a scan of the others
        # (benchmarks/cli_scaling.py shows the growth)
        for case in ("check-attributes", "check-domains"):
            r, path = self.run_wide(case)
            self.assertEqual((r.returncode, r.stdout), (0, f"{path}: OK\n"), case)
        r, _ = self.run_wide("dump-json-domains")
        self.assertEqual(len(json.loads(r.stdout)["model"]["opset_imports"]), 16001)
        for case in ("dump-text-domains", "dump-dot-domains"):
            r, _ = self.run_wide(case)
            self.assertEqual(r.returncode, 0, case)
            self.assertIn("d15999", r.stdout, case)

    def test_training_domain_needs_no_default_import(self):
        node = helper.make_node("Adagrad", ["R", "T", "X", "G", "H"], ["X2", "H2"],
                                domain="ai.onnx.preview.training")
        ins = [helper.make_tensor_value_info(n, t, s) for n, t, s in
               [("R", TensorProto.FLOAT, []), ("T", TensorProto.INT64, []), ("X", TensorProto.FLOAT, [1]),
                ("G", TensorProto.FLOAT, [1]), ("H", TensorProto.FLOAT, [1])]]
        outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in ("X2", "H2")]
        g = helper.make_graph([node], "g", ins, outs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("ai.onnx.preview.training", 1)])
        p = self.path("adagrad.onnx")
        onnx.save(m, p)
        self.assertEqual(oxport("check", p).stdout, f"{p}: OK\n")
        # a default-domain node still needs the import
        g = helper.make_graph([helper.make_node("Relu", ["X"], ["Y"])], "g", [ins[2]],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("ai.onnx.preview.training", 1)])
        onnx.save(m, p)
        r = oxport("check", p)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"{p}: model: no opset_import for the default domain (ai.onnx)\n", r.stdout)


if __name__ == "__main__":
    unittest.main()
