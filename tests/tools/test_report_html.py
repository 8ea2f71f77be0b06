#!/usr/bin/python3
"""`oxport export --report FILE.html`: one offline page with the summary,
the grouped problems, the time per stage, the recorded operators and the
ONNX nodes they became by module, and the graph; loaded in headless
Chromium (Debian chromium) to check the text and that the SVG is laid out
visibly."""
import html.parser
import os
import re
import shutil
import subprocess
import unittest

import onnx

from toolcase import ToolCase, oxport

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HAVE_DOT = shutil.which("dot") is not None


def rendered_dom(path):
    """The page's DOM after its scripts ran, as headless Chromium sees it."""
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                        "file://" + os.path.abspath(path)], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


class Tables(html.parser.HTMLParser):
    """Rows of every <table class=NAME>, as lists of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.current, self.cell = {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.current = self.tables.setdefault(a.get("class"), [])
        elif tag == "tr" and self.current is not None:
            self.current.append([])
        elif tag in ("td", "th") and self.current is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.current[-1].append(self.cell.strip())
            self.cell = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def tables_of(text):
    p = Tables()
    p.feed(text)
    return p.tables


class HtmlReport(ToolCase):
    def test_written_export(self):
        out, page = self.path("sr.onnx"), self.path("sr.html")
        oxport("export", "superresolution", "-o", out, "--report", page, check_rc=0)
        with open(page) as f:
            text = f.read()
        self.assertNotRegex(text, r'(src|href)="(https?:)?//')  # nothing fetched: reads offline
        t = tables_of(text)
        summary = dict(r for r in t["summary"] if len(r) == 2)
        m = onnx.load(out)
        self.assertEqual((summary["result"], summary["ONNX nodes"]), ("written", str(len(m.graph.node))))
        self.assertEqual([r[0] for r in t["stages"][1:]], ["build weights", "run and trace", "convert and write"])
        ops = {r[0]: (r[1], r[2]) for r in t["ops"][1:]}
        self.assertEqual(ops["SuperResolutionNet/Conv2d[conv1]"], ("aten::conv2d", "Conv"))
        self.assertIn('<p id="problem-count">0 problems, 0 distinct.</p>', text)
        if HAVE_DOT:
            drawn = re.findall(r'<g id="op_(\d+)" class="node"', text)
            self.assertEqual(sorted(map(int, drawn)), list(range(len(m.graph.node))))
        if CHROMIUM and HAVE_DOT:
            dom = rendered_dom(page)
            self.assertIn('data-svg-visible="true"', dom)
            self.assertIn("Export report: superresolution", dom)

    def test_failed_export_groups_problems(self):
        cfg = self.path("cfg.yaml")
        with open(cfg, "w") as f:
            f.write("disabled_operators: [aten::relu]\n")
        page = self.path("failed.html")
        r = oxport("export", "superresolution", "-o", self.path("x.onnx"), "--config", cfg, "--report", page)
        self.assertEqual(r.returncode, 1)
        with open(page) as f:
            text = f.read()
        t = tables_of(text)
        self.assertEqual(dict(r for r in t["summary"] if len(r) == 2)["result"], "not written")
        (head, row), = [t["problems"][:2]]
        self.assertEqual(row[1:], ["3", "SuperResolutionNet/ReLU[relu] (3)"])
        self.assertIn("aten::relu is disabled by", row[0])
        self.assertIn('<p id="problem-count">3 problems, 1 distinct.</p>', text)
        self.assertIn("No file was written, so there is no graph to draw.", text)
        if CHROMIUM:
            dom = rendered_dom(page)
            self.assertIn('data-svg-visible="false"', dom)
            self.assertIn("3 problems, 1 distinct.", dom)


if __name__ == "__main__":
    unittest.main()
