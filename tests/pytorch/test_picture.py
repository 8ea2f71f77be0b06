#!/usr/bin/python3
"""oxport.torch.export(..., graph_picture=...) and draw_graph: the same
drawing as `oxport dump --format svg`, from Python."""
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


if __name__ == "__main__":
    unittest.main()
