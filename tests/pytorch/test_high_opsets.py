#!/usr/bin/python3
"""A ViT and a ResNet (torchvision, random init) through oxport.torch at opsets 18-21:
export, validation and ONNX Runtime against eager PyTorch on two inputs.

    /usr/bin/python3 tests/pytorch/test_high_opsets.py GROUP [unittest args]

The rules of test_zoo_extra.py: random weights with what torchvision leaves degenerate
re-drawn (ViT's zero-initialised head and class token), BatchNorm statistics calibrated
on a separate batch, non-trivial references, tolerance from the output's scale.  Above
opset 17 Debian's onnx.checker does not know the opset: onnxval.check validates the
files with `oxport check` (docs/checking.md), ONNX Runtime runs them.  torch.onnx 1.13
exports up to opset 17 only, so the torch.onnx error an output may be allowed is its
file at opset 17 (the fallback of modelcheck.assert_matches; only consulted when an
output is outside the scale bound).

The ViT is torchvision's VisionTransformer at a small size (32x32 images, 8x8 patches,
two layers) so the suite stays fast; its lowering at each opset (LayerNormalization,
Gelu from 20, ReduceMean with axes as an input from 18, Split's num_outputs) is the same
as vit_b_16's.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))
sys.path.insert(0, HERE)

import onnx  # noqa: E402
import torch  # noqa: E402
from torchvision.models.vision_transformer import VisionTransformer  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
import test_models  # noqa: E402
from test_models import arrays, calibrate_bn, eager, randn_inputs, SEEDS  # noqa: E402
from test_zoo_extra import redraw_degenerate, tv  # noqa: E402

HIGH_OPSETS = (18, 19, 20, 21)
# the IR version ONNX's versioning table gives each opset (ONNX Runtime 1.30 takes them)
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10}


def small_vit():
    shape = (1, 3, 32, 32)
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                          mlp_dim=64, num_classes=10)
    return calibrate_bn(redraw_degenerate(m), shape), randn_inputs(shape)


GROUPS = {
    "vit": [("vit_small", small_vit)],
    "resnet": [("resnet18", tv("resnet18", 64))],
}


class HighOpsetCase(unittest.TestCase):
    label = None
    factory = None

    def setUp(self):
        torch.manual_seed(0)
        self.model, self.inputs = type(self).factory()
        self.model.eval()
        self.args = self.inputs(SEEDS[0])

    def export_check_run(self, opset):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="oxport-high-opsets-") as tmp:
            path = os.path.join(tmp, f"{self.label}_{opset}.onnx")
            names = [f"in{i}" for i in range(len(arrays(self.args)))]
            oxt.export(self.model, self.args, path, opset_version=opset, input_names=names)
            m = onnx.load(path, load_external_data=False)
            self.assertEqual([(o.domain, o.version) for o in m.opset_import], [("", opset)])
            self.assertEqual(m.ir_version, IR_VERSION[opset])
            onnxval.check(path)  # oxport check: above the installed onnx.checker's opsets
            ops = {n.op_type for n in m.graph.node}
            print(f"{self.label} opset {opset}: {len(m.graph.node)} nodes, {', '.join(sorted(ops))}")
            arg_sets = [self.args] + [self.inputs(seed) for seed in SEEDS[1:]]
            wants = [eager(self.model, a) for a in arg_sets]
            modelcheck.assert_nontrivial(self.label, wants)
            modelcheck.assert_matches(f"{self.label} opset {opset}", path,
                                      [dict(zip(names, arrays(a))) for a in arg_sets], wants,
                                      modelcheck.torch_onnx_reference(self.model, self.args, opset, names))


def make_suite(group):
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for label, factory in GROUPS[group]:
        attrs = {"label": label, "factory": staticmethod(factory)}
        for opset in HIGH_OPSETS:
            attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        suite.addTests(loader.loadTestsFromTestCase(type(f"Test_{label}", (HighOpsetCase,), attrs)))
    return suite


if __name__ == "__main__":
    sys.exit(test_models.run_main(GROUPS, make_suite, "GROUP"))
