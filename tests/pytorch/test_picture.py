#!/usr/bin/python3
"""oxport.torch.export(..., graph_picture=...), draw_graph and export(...,
report=...): the same drawing as `oxport dump --format svg` and the same
report as `oxport export --report`, from Python."""
import json
import os
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

import onnx
import torch

import oxport.torch as ox

HAVE_DOT = shutil.which("dot") is not None


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))

    def forward(self, x):
        return torch.softmax(self.body(x), dim=-1)


class Picture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="oxport-picture-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @unittest.skipUnless(HAVE_DOT, "Graphviz's dot is not installed")
    def test_export_draws_svg_with_one_node_per_onnx_node(self):
        onnx_path = os.path.join(self.tmp, "small.onnx")
        svg = os.path.join(self.tmp, "small.svg")
        ox.export(Small().eval(), (torch.randn(1, 4),), onnx_path, graph_picture=svg)
        n_nodes = len(onnx.load(onnx_path).graph.node)
        root = ET.parse(svg).getroot()
        ids = [g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g")
               if g.get("class") == "node"]
        self.assertEqual(sorted(int(i[3:]) for i in ids if i.startswith("op_")), list(range(n_nodes)))

    def test_draw_graph_dot_by_module(self):
        onnx_path = os.path.join(self.tmp, "small.onnx")
        ox.export(Small().eval(), (torch.randn(1, 4),), onnx_path)
        dot = os.path.join(self.tmp, "small.dot")
        ox.draw_graph(onnx_path, dot, depth=1)
        with open(dot) as f:
            text = f.read()
        self.assertIn('label="Sequential[body]\\n3 nodes"', text)

    def test_draw_graph_errors_name_the_cause(self):
        onnx_path = os.path.join(self.tmp, "small.onnx")
        ox.export(Small().eval(), (torch.randn(1, 4),), onnx_path)
        bad = os.path.join(self.tmp, "small.gif")
        with self.assertRaises(ox.ExportError) as cm:
            ox.draw_graph(onnx_path, bad)
        self.assertEqual(str(cm.exception), f"{bad}: cannot tell the picture format from the name: "
                                            "name it *.svg, *.png or *.dot, or give the format")
        self.assertFalse(os.path.exists(bad))
        with self.assertRaises(ox.ExportError) as cm:
            ox.draw_graph(onnx_path, bad, format="gif")
        self.assertEqual(str(cm.exception), f"{bad}: picture format 'gif' is not one of dot, svg, png")
        with self.assertRaises(ox.ExportError) as cm:
            ox.draw_graph(onnx_path, os.path.join(self.tmp, "x.dot"), scope="Nope")
        self.assertEqual(str(cm.exception), f"{os.path.join(self.tmp, 'x.dot')}: no node of graph "
                                            "'Small' is in scope 'Nope'")


class CumSum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 1) + torch.cumsum(x, 0)


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="oxport-report-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_html_report_of_a_written_export(self):
        onnx_path, page = os.path.join(self.tmp, "small.onnx"), os.path.join(self.tmp, "small.html")
        ox.export(Small().eval(), (torch.randn(1, 4),), onnx_path, report=page)
        with open(page) as f:
            text = f.read()
        self.assertIn("<h1>Export report: Small</h1>", text)
        self.assertIn('<td id="result" class="ok">written</td>', text)
        self.assertIn("<tr><td>Small/Sequential[body]/Linear[0]</td><td>aten::linear</td><td>Gemm</td></tr>", text)
        self.assertIn("<tr><td>run and trace</td>", text)

    def test_json_report_of_a_failed_export(self):
        onnx_path, doc = os.path.join(self.tmp, "c.onnx"), os.path.join(self.tmp, "c.json")
        with self.assertRaises(ox.ExportError) as cm:
            ox.export(CumSum(), (torch.randn(2, 3),), onnx_path, opset_version=9, report=doc)
        with open(doc) as f:
            d = json.load(f)
        self.assertEqual((d["command"], d["ok"], d["status"], d["opset"]), ("export", False, "OX_EUNSUPPORTED", 9))
        self.assertEqual(d["message"], cm.exception.report)
        self.assertEqual(d["problem_count"], 2)
        (p,) = d["problems"]
        self.assertEqual(p["count"], 2)
        self.assertIn("aten::cumsum has no symbolic at this opset", p["message"])
        self.assertFalse(os.path.exists(onnx_path))

    def test_report_name_is_checked(self):
        with self.assertRaises(ox.ExportError) as cm:
            ox.export(Small().eval(), (torch.randn(1, 4),), os.path.join(self.tmp, "s.onnx"),
                      report=os.path.join(self.tmp, "r.txt"))
        self.assertEqual(str(cm.exception), f"report {os.path.join(self.tmp, 'r.txt')}: name the file "
                                            "*.json or *.html (or '-' for JSON on standard output)")


if __name__ == "__main__":
    unittest.main()
