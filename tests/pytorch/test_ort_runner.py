#!/usr/bin/python3
"""verify()'s ONNX Runtime: Python's onnxruntime when importable (here a stand-in module
that records the session calls and computes through the Node runner, since Debian has no
python3-onnxruntime), else run.js from wherever it is installed, finding onnxruntime-node
through OXPORT_ORT_NODE_MODULES."""

import os
import shutil
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))

import torch  # noqa: E402

import oxport.torch as oxt  # noqa: E402
from oxport.torch import _ort  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


class OrtRunner(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.mkdtemp(prefix="oxport-ort-")
        self.path = os.path.join(self.tmp, "n.onnx")
        self.model = Net().eval()
        self.x = torch.randn(2, 4)
        oxt.export(self.model, self.x, self.path)

    def tearDown(self):
        sys.modules.pop("onnxruntime", None)
        for k in ("OXPORT_ORT_RUNJS", "OXPORT_ORT_NODE_MODULES"):
            os.environ.pop(k, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_python_onnxruntime_is_preferred(self):
        calls = []
        names = _ort.input_names(self.path)

        class InferenceSession:
            def __init__(self, path, providers):
                calls.append(("session", path, tuple(providers)))
                self.path = path

            def get_outputs(self):
                return [types.SimpleNamespace(name="4")]

            def run(self, outs, feeds):
                calls.append(("run", tuple(outs), tuple(feeds)))
                return _ort._run_node(self.path, names, [feeds[n] for n in names])[1]

        sys.modules["onnxruntime"] = types.SimpleNamespace(InferenceSession=InferenceSession)
        res = oxt.verify(self.model, self.x, self.path)
        self.assertTrue(res.ok, str(res))
        self.assertEqual(calls, [("session", self.path, ("CPUExecutionProvider",)),
                                 ("run", ("4",), tuple(names))])

    def test_installed_run_js_finds_onnxruntime_node(self):
        lonely = os.path.join(self.tmp, "installed", "_ort")
        os.makedirs(lonely)
        shutil.copy(os.path.join(SRC, "tools", "ort", "run.js"), lonely)
        os.environ["OXPORT_ORT_RUNJS"] = os.path.join(lonely, "run.js")
        os.environ["OXPORT_ORT_NODE_MODULES"] = os.path.join(SRC, "tools", "ort", "node_modules")
        self.assertEqual(_ort.node_path(os.environ["OXPORT_ORT_RUNJS"])[0],
                         os.environ["OXPORT_ORT_NODE_MODULES"])
        res = oxt.verify(self.model, self.x, self.path)
        self.assertTrue(res.ok, str(res))


if __name__ == "__main__":
    unittest.main(verbosity=2)
