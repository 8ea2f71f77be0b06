#!/usr/bin/python3
"""`oxport dump --format dot|svg|png`: the picture draws every node once,
modules as clusters, and renders through Graphviz when it is installed."""
import os
import re
import shutil
import unittest
import xml.etree.ElementTree as ET

import onnx

from toolcase import ToolCase, oxport

SVG = "{http://www.w3.org/2000/svg}"
HAVE_DOT = shutil.which("dot") is not None


def svg_nodes(path):
    """The ids of the <g class="node"> groups Graphviz drew."""
    root = ET.parse(path).getroot()  # raises on invalid XML
    return [g.get("id") for g in root.iter(SVG + "g") if g.get("class") == "node"]


class Picture(ToolCase):
    def test_dot_has_one_box_per_node_and_folds_initializers(self):
        r = oxport("dump", self.small, "--format", "dot", check_rc=0)
        model = onnx.load(self.small)
        ops = re.findall(r'^\s*"op_(\d+)" \[', r.stdout, re.M)
        self.assertEqual(sorted(map(int, ops)), list(range(len(model.graph.node))))
        # no initializer is an endpoint of its own; each is named in its consumer's label
        for init in model.graph.initializer:
            self.assertIn(f"\\n{init.name} : ", r.stdout)
            self.assertNotIn(f'"{init.name}" ->', r.stdout)
        # each scope component is a cluster, shapes label the edges
        self.assertIn("subgraph cluster_", r.stdout)
        self.assertRegex(r.stdout, r'-> "op_\d+" \[label="Float\(1, \d+, 224, 224\)"\]')

    @unittest.skipUnless(HAVE_DOT, "Graphviz's dot is not installed")
    def test_svg_is_valid_xml_with_one_node_per_onnx_node(self):
        out = self.path("sr.svg")
        oxport("dump", self.small, "-o", out, check_rc=0)
        model = onnx.load(self.small)
        ids = svg_nodes(out)
        ops = sorted(int(i[3:]) for i in ids if i.startswith("op_"))
        self.assertEqual(ops, list(range(len(model.graph.node))))
        self.assertEqual(sum(i.startswith("input_") for i in ids), len(model.graph.input))
        self.assertEqual(sum(i.startswith("output_") for i in ids), len(model.graph.output))
        self.assertEqual(oct(os.stat(out).st_mode & 0o777), oct(0o666 & ~current_umask()))

    @unittest.skipUnless(HAVE_DOT, "Graphviz's dot is not installed")
    def test_node_reading_many_initializers_lists_the_first_ones(self):
        # a Sum of 30,000 parameters: a box 30,000 lines tall is not a
        # picture (Graphviz's dot crashed on it); the box names the first
        # ones and counts the others
        from onnx import TensorProto, helper
        k = 30000
        inits = [helper.make_tensor(f"p{i}", TensorProto.FLOAT, [1], [1.0]) for i in range(k)]
        g = helper.make_graph([helper.make_node("Sum", [f"p{i}" for i in range(k)], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], initializer=inits)
        path = self.path("many_inits.onnx")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
        dot = oxport("dump", path, "--format", "dot", check_rc=0).stdout
        label = re.search(r'"op_0" \[id="op_0", label="([^"]*)"', dot).group(1)
        lines = label.split("\\n")
        self.assertEqual(lines[0], "Sum")
        self.assertEqual(lines[1:3], ["p0 : Float(1)", "p1 : Float(1)"])
        self.assertLess(len(lines), 100)
        self.assertEqual(lines[-1], f"... and {k - (len(lines) - 2)} more")
        out = self.path("many_inits.svg")
        oxport("dump", path, "-o", out, check_rc=0)
        self.assertIn("op_0", svg_nodes(out))

    @unittest.skipUnless(HAVE_DOT, "Graphviz's dot is not installed")
    def test_png(self):
        out = self.path("sr.png")
        oxport("dump", self.small, "--format", "png", "-o", out, check_rc=0)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_depth_collapses_modules_and_scope_selects_one(self):
        model = onnx.load(self.small)
        scopes = [n.doc_string for n in model.graph.node]
        root = scopes[0].split("/")[0]
        r = oxport("dump", self.small, "--format", "dot", "--depth", "0", check_rc=0)
        # everything lives under the model's root module: one box for all nodes
        self.assertEqual(re.findall(r'^\s*"op_', r.stdout, re.M), [])
        self.assertIn(f'label="{root}\\n{len(scopes)} nodes"', r.stdout)

        inner = sorted({s for s in scopes if s.count("/") >= 1})[0]
        picked = [i for i, s in enumerate(scopes) if s == inner or s.startswith(inner + "/")]
        r = oxport("dump", self.small, "--format", "dot", "--scope", inner, check_rc=0)
        ops = sorted(int(i) for i in re.findall(r'^\s*"op_(\d+)" \[', r.stdout, re.M))
        self.assertEqual(ops, picked)

    def test_module_paths_in_node_names_are_scopes(self):
        # torch.onnx 1.13 leaves doc_string empty and names each node by its module path:
        # such files draw in clusters and take --scope by that path.
        from onnx import helper, TensorProto
        names = ["/layer1/layer1.0/conv1/Relu", "/layer1/layer1.0/Relu_1", "/layer1/layer1.1/Relu",
                 "/fc/Relu", "/Relu", "Relu_5"]
        nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name=n) for i, n in enumerate(names)]
        info = [helper.make_tensor_value_info(f"t{i}", TensorProto.FLOAT, [2]) for i in (0, len(names))]
        m = helper.make_model(helper.make_graph(nodes, "g", info[:1], info[1:]),
                              opset_imports=[helper.make_opsetid("", 13)])
        p = self.path("named.onnx")
        onnx.save(m, p)
        r = oxport("dump", p, "--format", "dot", check_rc=0)
        self.assertEqual(len(re.findall(r"subgraph cluster_", r.stdout)), 5, r.stdout)  # layer1, its 1.0 and 1.1, conv1, fc
        r = oxport("dump", p, "--format", "dot", "--scope", "layer1/layer1.0", check_rc=0)
        self.assertEqual(sorted(int(i) for i in re.findall(r'^\s*"op_(\d+)" \[', r.stdout, re.M)), [0, 1])
        r = oxport("dump", p, "--format", "dot", "--depth", "0", check_rc=0)
        self.assertIn('label="layer1\\n3 nodes"', r.stdout)
        self.assertIn('label="fc\\n1 node"', r.stdout)
        self.assertEqual(oxport("dump", p, "--format", "dot", "--scope", "layer2").returncode, 2)

    def test_scope_matching_nothing(self):
        r = oxport("dump", self.small, "--format", "dot", "--scope", "NoSuchModule")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, f"oxport dump: {self.small}: no node of graph 'SuperResolutionNet' "
                                   "is in scope 'NoSuchModule'\n")
        # -o: the same message, naming the model read (not the picture), and no file
        out = self.path("nothing.svg")
        r = oxport("dump", self.small, "-o", out, "--scope", "NoSuchModule")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, f"oxport dump: {self.small}: no node of graph 'SuperResolutionNet' "
                                   "is in scope 'NoSuchModule'\n")
        self.assertFalse(os.path.exists(out))

    def test_many_collapsed_modules_draw(self):
        # --depth collapses each module into one box, found by its path: one
        # lookup per node, not a scan of the boxes made so far
        # (benchmarks/cli_scaling.py shows the growth)
        r, _ = self.run_wide("dump-dot-depth-modules")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(len(re.findall(r'^\s*"module_\d+" \[', r.stdout, re.M)), 16000)

    def test_usage_errors(self):
        cases = [
            (["--format", "gif"], "oxport dump: --format expects text, json, dot, svg or png, got 'gif'\n"),
            (["--format", "svg"], "oxport dump: --format svg writes a file: give -o PICTURE\n"),
            (["-o", "x.jpeg"], "oxport dump: cannot tell the picture format from 'x.jpeg': name it "
                               "*.dot, *.svg or *.png, or give --format\n"),
            (["--scope", "A"], "oxport dump: --scope applies to pictures (--format dot, svg or png)\n"),
            (["--format", "dot", "--depth", "-1"],
             "oxport dump: --depth expects a number of module levels (0 or more), got '-1'\n"),
            (["--format", "json", "-o", "x.json"],
             "oxport dump: -o writes pictures (--format dot, svg or png); json goes to standard output\n"),
        ]
        for args, msg in cases:
            r = oxport("dump", self.small, *args)
            self.assertEqual((r.returncode, r.stderr), (2, msg), args)

    def test_missing_graphviz_is_a_clear_error_and_leaves_no_file(self):
        out = self.path("nodot.svg")
        env = dict(os.environ, PATH=self.path("empty-path"))
        r = oxport("dump", self.small, "-o", out, env=env)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stderr, f"oxport dump: {out}: drawing svg needs Graphviz's 'dot' program, "
                                   "which is not on PATH; install Graphviz (Debian: apt-get install "
                                   "graphviz) or write DOT (--format dot) and render it elsewhere\n")
        self.assertEqual([f for f in os.listdir(self.tmp) if "nodot" in f], [])


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == "__main__":
    unittest.main()
