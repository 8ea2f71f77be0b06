#!/usr/bin/python3
"""The rest of torchvision 0.14's architectures, and two text classifiers, through
oxport.torch: export, onnx.checker (full_check) and ONNX Runtime against eager PyTorch.

    /usr/bin/python3 tests/pytorch/test_zoo_arch.py GROUP [unittest args]

The same cases and rules as test_zoo_extra.py (random weights with degenerate parts
re-drawn, BatchNorm calibrated, two inputs, tests/py/modelcheck.py's tolerance), with the
smallest inputs each architecture takes: segmentation at 64x64 (their 'out' map), video
clips of 4 frames at 32x32.  The text classifiers take their lengths / offsets as inputs,
so the second input set also changes how the sequences are cut.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision.models as tvm  # noqa: E402
import torchvision.models.segmentation as tvseg  # noqa: E402
import torchvision.models.video as tvvideo  # noqa: E402

import test_models  # noqa: E402
import test_zoo_extra  # noqa: E402
from test_models import calibrate_bn, randn_inputs  # noqa: E402
from test_zoo_extra import redraw_degenerate, tv, unsupported  # noqa: E402


class OutMap(nn.Module):
    """A segmentation model's 'out' map (torchvision returns an OrderedDict)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def seg(name, size, **kw):
    def make():
        shape = (1, 3, size, size)
        m = redraw_degenerate(getattr(tvseg, name)(weights=None, weights_backbone=None, **kw))
        return calibrate_bn(OutMap(m), shape), randn_inputs(shape)
    return make


def video(name, frames, size):
    def make():
        shape = (1, 3, frames, size, size)
        return calibrate_bn(redraw_degenerate(getattr(tvvideo, name)(weights=None)), shape), randn_inputs(shape)
    return make


class LastFlow(nn.Module):
    """RAFT's last flow estimate after `updates` refinement steps (torchvision returns one
    per step)."""

    def __init__(self, model, updates):
        super().__init__()
        self.model, self.updates = model, updates

    def forward(self, image1, image2):
        return self.model(image1, image2, num_flow_updates=self.updates)[-1]


def raft_small(size, updates):
    def make():
        shape = (1, 3, size, size)
        m = redraw_degenerate(tvm.optical_flow.raft_small(weights=None))
        # calibrate_bn feeds one batch; RAFT takes two frames
        bns = [b for b in m.modules() if isinstance(b, nn.modules.batchnorm._BatchNorm)]
        for b in bns:
            b.reset_running_stats()
            b.momentum = None
        m.train()
        with torch.no_grad():
            m(torch.randn((4,) + shape[1:]), torch.randn((4,) + shape[1:]), num_flow_updates=updates)
        return LastFlow(m.eval(), updates), randn_inputs(shape, shape)
    return make


class LSTMTextClassifier(nn.Module):
    """Embedding, LSTM over pack_padded_sequence (enforce_sorted=True), the last hidden
    state of each sequence into a Linear head.  tokens: (T, B) int64; lengths: (B,) int64,
    sorted, non-increasing."""

    def __init__(self, vocab=50, emb=16, hidden=24, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, tokens, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.emb(tokens), lengths, enforce_sorted=True)
        _, (h, _) = self.lstm(packed)
        return self.fc(h[-1])


def lstm_text():
    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        tokens = torch.randint(0, 50, (7, 3), generator=g)
        # sorted lengths, the longest one the padded length (pack_padded_sequence's rule)
        rest = torch.sort(torch.randint(1, 8, (2,), generator=g), descending=True).values
        return tokens, torch.cat([torch.tensor([7]), rest])
    return LSTMTextClassifier(), inputs


class BagTextClassifier(nn.Module):
    """EmbeddingBag (mean of each bag) into a Linear head.  tokens: (N,) int64, all bags
    concatenated; offsets: (B,) int64, where each bag starts."""

    def __init__(self, vocab=50, emb=16, classes=4):
        super().__init__()
        self.bag = nn.EmbeddingBag(vocab, emb, mode="mean")
        self.fc = nn.Linear(emb, classes)

    def forward(self, tokens, offsets):
        return self.fc(self.bag(tokens, offsets))


def bag_text():
    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        tokens = torch.randint(0, 50, (12,), generator=g)
        # three non-empty bags: offsets 0 < a < b < 12
        cuts = torch.sort(torch.randperm(11, generator=g)[:2] + 1).values
        return tokens, torch.cat([torch.tensor([0]), cuts])
    return BagTextClassifier(), inputs


# RAFT samples its correlation pyramid with grid_sample: ONNX's GridSample is opset 16.
RAFT_13 = unsupported("grid_sampler", "LastFlow/RAFT[model]", 16)

# group -> list of (label, factory, opsets, constant outputs), as in test_zoo_extra.GROUPS.
GROUPS = {
    "segmentation": [
        ("fcn_resnet50", seg("fcn_resnet50", 64), (13, 17), None),
        ("deeplabv3_mobilenet_v3_large", seg("deeplabv3_mobilenet_v3_large", 64), (13, 17), None),
        ("lraspp_mobilenet_v3_large", seg("lraspp_mobilenet_v3_large", 64), (13, 17), None),
    ],
    "video": [
        ("r3d_18", video("r3d_18", 4, 32), (13, 17), None),
        ("mc3_18", video("mc3_18", 4, 32), (13, 17), None),
        ("r2plus1d_18", video("r2plus1d_18", 4, 32), (13, 17), None),
    ],
    "classification": [
        ("resnet18", tv("resnet18", 64), (13, 17), None),
        ("mobilenet_v3_large", tv("mobilenet_v3_large", 64), (13, 17), None),
        ("squeezenet1_0", tv("squeezenet1_0", 64), (13, 17), None),
        ("swin_v2_t", tv("swin_v2_t", 64), (13, 17), None),
    ],
    # the larger ones, a group of their own to keep each near a minute
    "classification_large": [
        ("efficientnet_v2_s", tv("efficientnet_v2_s", 64), (13, 17), None),
        ("regnet_x_400mf", tv("regnet_x_400mf", 64), (13, 17), None),
        ("wide_resnet50_2", tv("wide_resnet50_2", 64), (13, 17), None),
    ],
    # one model each: these take 224x224 (MaxViT's 7x7 partitions of the last stage, S3D's
    # final 2x7x7 pooling) or run a refinement loop (RAFT)
    "maxvit": [("maxvit_t", tv("maxvit_t", 224), (13, 17), None)],
    # S3D at 16x224x224 takes over a minute per opset here: opset 17 only (13 passes too,
    # docs/pytorch.md)
    "s3d": [("s3d", video("s3d", 16, 224), (17,), None)],
    # At 64x64 RAFT's coarsest correlation level is 1x1, where eager's grid_sample is NaN.
    "raft": [("raft_small", raft_small(128, 2), ((13, RAFT_13), 17), None)],
    # At 32x32 VGG's features are 1x1, which its AdaptiveAvgPool2d((7, 7)) spreads over 7x7:
    # not a pooling that tiles the input, so one reduction per output bin.
    "vgg11": [("vgg11_32", tv("vgg11", 32), (17,), None),
              # at 224 a minute per opset here; VGG-16 runs at 9, 13, 17 in test_models.py
              ("vgg11", tv("vgg11", 224), (17,), None)],
    "text": [
        ("lstm_packed_classifier", lstm_text, (13, 17), None),
        ("embedding_bag_classifier", bag_text, (13, 17), None),
    ],
}


if __name__ == "__main__":
    sys.exit(test_models.run_main(GROUPS, lambda group: test_zoo_extra.make_suite(group, GROUPS), "GROUP"))
