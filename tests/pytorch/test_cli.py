#!/usr/bin/python3
"""python3 -m oxport.torch export ... as a user runs it."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
PKG = os.path.join(SRC, "hosts", "pytorch")
sys.path.insert(0, PKG)
sys.path.insert(0, os.path.join(SRC, "tests", "py"))


def run(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "oxport.torch", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)


class Cli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-cli-")
        self.out = os.path.join(self.tmp.name, "m.onnx")

    def tearDown(self):
        self.tmp.cleanup()

    def test_module_callable_with_dynamic_batch_and_verify(self):
        p = run("export", "oxport.models.super_resolution:SuperResolutionNet", "-o", self.out,
                "--input-shape", "2,1,32,32", "--dynamic-batch", "--verify", "--opset", "11")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{self.out}: exported in ", p.stdout)
        self.assertRegex(p.stdout, r"output_0: max abs diff \S+, max rel diff \S+ ok")
        import onnx
        m = onnx.load(self.out)
        self.assertEqual(m.graph.input[0].name, "input_0")
        self.assertEqual(m.graph.input[0].type.tensor_type.shape.dim[0].dim_param, "batch")
        self.assertEqual([o.version for o in m.opset_import if o.domain == ""], [11])
        self.assertEqual(m.graph.output[0].type.tensor_type.shape.dim[0].dim_param, "batch")
        # The file is right at other batches: compare with the same weights in eager.
        import modelcheck
        import torch
        from onnx import numpy_helper
        from oxport.models.super_resolution import SuperResolutionNet
        net = SuperResolutionNet()
        net.load_state_dict({t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in m.graph.initializer})
        g = torch.Generator().manual_seed(1)
        xs = [torch.randn(b, 1, 32, 32, generator=g) for b in (1, 3, 5)]
        with torch.no_grad():
            wants = [[net.eval()(x).numpy()] for x in xs]
        modelcheck.assert_matches("cli dynamic batch", self.out, [{"input_0": x.numpy()} for x in xs], wants)

    def test_torchvision_model_verbose(self):
        p = run("export", "torchvision:resnet18", "-o", self.out, "--input-shape", "1,3,32,32", "--verbose")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("graph(%input_0 : Float(1, 3, 32, 32)\n"), p.stdout[:100])
        self.assertIn("scope: ResNet/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]", p.stdout)

    def test_unsupported_op_exits_1_with_the_report(self):
        # (fractional max pooling draws its windows at random: neither torch.onnx nor oxport exports it)
        p = run("export", "torch.nn:FractionalMaxPool2d", "--model-kwargs", '{"kernel_size": 2, "output_size": 2}',
                "-o", self.out, "--input-shape", "1,1,4,4", "--opset", "13")
        self.assertEqual(p.returncode, 1)
        self.assertIn("oxport.torch: export failed (OX_EUNSUPPORTED):\nCouldn't export operator(s): 1 problem(s) "
                      "at opset 13:\n  - ONNX export failed on fractional_max_pool2d because no symbolic for "
                      "aten::fractional_max_pool2d is registered (scope: FractionalMaxPool2d)", p.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_bad_model_spec(self):
        p = run("export", "torchvision:nosuchnet", "-o", self.out, "--input-shape", "1,3,8,8")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("oxport.torch: torchvision.models has no model 'nosuchnet'", p.stderr)


if __name__ == "__main__":
    unittest.main()
