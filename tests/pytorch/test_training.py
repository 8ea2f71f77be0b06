#!/usr/bin/python3
"""Training-mode export (issue #11): `training=TrainingMode.TRAINING` and `PRESERVE` with
torch.onnx 1.13's meaning.

- TRAINING traces the model in train mode (and restores its mode afterwards); EVAL in eval
  mode; PRESERVE in whatever mode the module is in.
- batch_norm in training mode normalises with the batch's statistics: BatchNormalization
  with training_mode=1 and the running mean/variance outputs from opset 14, the four
  optional outputs below (what torch.onnx writes).  The file's outputs are still the
  model's; the running statistics it computes are left unused.
- dropout in training mode is Dropout(ratio, training_mode=true) from opset 12; ONNX Runtime
  draws the masks, so the comparison with torch uses p=0 and a separate check looks at
  what a p=0.5 mask leaves (zeros and x / (1 - p), about half each).  Below 12 Dropout has
  no training switch: refused, naming opset 12.

Each file is compared with torch in train mode on two inputs (tests/py/modelcheck.py)."""

import os
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

TrainingMode = torch.onnx.TrainingMode
OPSETS = (9, 13, 14, 17)


class Net(nn.Module):
    """Conv, BatchNorm2d, Dropout, Linear, BatchNorm1d without running statistics."""

    def __init__(self, p=0.0):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4, momentum=0.2)
        self.drop = nn.Dropout(p)
        self.fc = nn.Linear(4 * 6 * 6, 5)
        self.bn1d = nn.BatchNorm1d(5, track_running_stats=False)

    def forward(self, x):
        y = self.drop(torch.relu(self.bn(self.conv(x))))
        return self.bn1d(self.fc(y.flatten(1)))


def make_net(p=0.0):
    torch.manual_seed(0)
    net = Net(p)
    with torch.no_grad():  # running statistics and affine terms away from 0/1
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 2.0)
        net.bn.weight.uniform_(0.5, 1.5)
        net.bn.bias.uniform_(-0.5, 0.5)
    return net


def batch_norms(path):
    return [n for n in onnx.load(path).graph.node if n.op_type == "BatchNormalization"]


def training_mode_attr(node):
    return next((a.i for a in node.attribute if a.name == "training_mode"), 0)


def in_training_form(node, opset):
    if opset >= 14:
        return training_mode_attr(node) == 1 and len(node.output) == 3
    return len(node.output) == 5


def train_outputs(net, xs):
    """torch's outputs in train mode, without touching net's running statistics."""
    state = {k: v.clone() for k, v in net.state_dict().items()}
    was = net.training
    net.train()
    with torch.no_grad():
        outs = [net(x).numpy() for x in xs]
    net.load_state_dict(state)
    net.train(was)
    return outs


class TrainingExport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.x = torch.randn(3, 3, 6, 6, generator=torch.Generator().manual_seed(1)) * 2 + 0.5
        self.x2 = modelcheck.other_values((self.x,), seed=2)[0]

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_training_matches_torch_in_train_mode(self):
        for opset in OPSETS:
            net = make_net().eval()
            want = train_outputs(net, [self.x, self.x2])
            modelcheck.assert_nontrivial(f"train-mode Net opset {opset}", [[w] for w in want])
            p = self.path(f"train{opset}.onnx")
            oxt.export(net, (self.x,), p, opset_version=opset, training=TrainingMode.TRAINING, input_names=["x"])
            self.assertFalse(net.training, "TRAINING must restore the module's eval mode")
            onnxval.check(p)
            bns = batch_norms(p)
            self.assertEqual(len(bns), 2, [n.op_type for n in onnx.load(p).graph.node])
            for n in bns:
                self.assertTrue(in_training_form(n, opset), f"opset {opset}: {n}")
            self.assertEqual(len(onnx.load(p).graph.output), 1, "running statistics are not graph outputs")

            def reference(ref_path, net=net, opset=opset):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.onnx.export(net, (self.x,), ref_path, opset_version=opset, input_names=["x"],
                                      training=TrainingMode.TRAINING, do_constant_folding=False)
            modelcheck.assert_matches(f"train-mode Net opset {opset}", p, [{"x": self.x.numpy()},
                                      {"x": self.x2.numpy()}], [[w] for w in want], reference)

    def test_training_export_takes_one_training_step_like_torch_onnx(self):
        """Tracing runs one train-mode forward, which updates BatchNorm's running statistics
        and num_batches_tracked in the module, as torch.onnx's does.  The file holds the
        statistics from before that step (buffers are copied at their first use), as
        trace='fake' writes them; torch.onnx's file holds the stepped ones."""
        net, twin = make_net(), make_net()
        before = net.bn.running_mean.clone()
        oxt.export(net, (self.x,), self.path("step.onnx"), opset_version=14, training=TrainingMode.TRAINING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(twin, (self.x,), self.path("step_torch.onnx"), opset_version=14,
                              training=TrainingMode.TRAINING, do_constant_folding=False)
        self.assertEqual(int(net.bn.num_batches_tracked), int(twin.bn.num_batches_tracked))
        self.assertEqual(int(net.bn.num_batches_tracked), 1)
        torch.testing.assert_close(net.bn.running_mean, twin.bn.running_mean)
        inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(self.path("step.onnx")).graph.initializer}
        mean = [a for n, a in inits.items() if n.endswith("running_mean")]
        self.assertEqual(len(mean), 1, sorted(inits))
        np.testing.assert_array_equal(mean[0], before.numpy())
        self.assertFalse(torch.equal(before, net.bn.running_mean))  # the step did happen

    def test_preserve_keeps_the_modules_mode(self):
        for mode in ("eval", "train"):
            net = make_net()
            net.train(mode == "train")
            want = train_outputs(net, [self.x, self.x2]) if mode == "train" else \
                [net(x).detach().numpy() for x in (self.x, self.x2)]
            p = self.path(f"preserve_{mode}.onnx")
            oxt.export(net, (self.x,), p, opset_version=17, training=TrainingMode.PRESERVE, input_names=["x"])
            self.assertEqual(net.training, mode == "train")
            bn2d = batch_norms(p)[0]  # the tracked BatchNorm2d follows the mode
            self.assertEqual(in_training_form(bn2d, 17), mode == "train", str(bn2d))
            if mode == "eval":
                self.assertEqual(len(bn2d.output), 1)
            modelcheck.assert_matches(f"PRESERVE {mode}", p, [{"x": self.x.numpy()}, {"x": self.x2.numpy()}],
                                      [[w] for w in want])

    def test_eval_on_a_train_mode_module(self):
        net = make_net().train()
        p = self.path("eval.onnx")
        oxt.export(net, (self.x,), p, opset_version=17, training=TrainingMode.EVAL, input_names=["x"])
        self.assertTrue(net.training, "EVAL must restore the module's train mode")
        self.assertEqual(len(batch_norms(p)[0].output), 1)
        net.eval()
        want = [net(x).detach().numpy() for x in (self.x, self.x2)]
        modelcheck.assert_matches("EVAL", p, [{"x": self.x.numpy()}, {"x": self.x2.numpy()}], [[w] for w in want])

    def test_dropout_masks_are_drawn_by_the_runtime(self):
        p_drop = 0.5
        model = nn.Dropout(p_drop)
        x = torch.rand(40, 100) + 0.5  # positive, so a kept element is never 0
        for opset in (12, 17):
            p = self.path(f"drop{opset}.onnx")
            oxt.export(model, (x,), p, opset_version=opset, training=TrainingMode.TRAINING, input_names=["x"])
            ops = [n.op_type for n in onnx.load(p).graph.node]
            self.assertIn("Dropout", ops)
            runs = onnxval.run_ort_many(p, [{"x": x.numpy()}, {"x": x.numpy()}])
            for (y,) in runs:
                kept = y != 0
                np.testing.assert_allclose(y[kept], x.numpy()[kept] / (1 - p_drop), rtol=1e-6)
                frac = float(kept.mean())
                # 4000 fair draws: the kept fraction's standard deviation is 0.008
                self.assertTrue(0.4 < frac < 0.6, f"opset {opset}: kept fraction {frac}")
            self.assertFalse(np.array_equal(runs[0][0], runs[1][0]), "each run draws its own mask")

    def test_dropout_before_opset_12_is_refused(self):
        model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
        for opset in (9, 11):
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(model, (torch.randn(2, 4),), self.path("d.onnx"), opset_version=opset,
                           training=TrainingMode.TRAINING)
            self.assertIn("aten::dropout(train=True) at Sequential/Dropout[1]: dropout in training mode needs "
                          "Dropout's training_mode input (opset 12); before it Dropout is the identity; "
                          "supported from opset 12", str(cm.exception))
            self.assertFalse(os.path.exists(self.path("d.onnx")))

    def test_torch_onnx_below_opset_12_writes_the_identity(self):
        """Why oxport refuses: torch.onnx 1.13 exports training-mode dropout at opset 9 as a
        Dropout without a training switch, which ONNX Runtime runs as the identity (only a
        warning says so)."""
        x = torch.rand(40, 100) + 0.5
        p = self.path("torch9.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(nn.Dropout(0.5), (x,), p, opset_version=9, training=TrainingMode.TRAINING,
                              input_names=["x"])
        (y,) = onnxval.run_ort(p, {"x": x.numpy()})
        np.testing.assert_array_equal(y, x.numpy())

    def test_channel_dropout_in_training_is_refused(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(nn.Dropout2d(0.5), (torch.randn(1, 3, 4, 4),), self.path("d2.onnx"), opset_version=17,
                       training=TrainingMode.TRAINING)
        self.assertIn("channel dropout (dropout2d/3d) in training mode has no ONNX operator", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
