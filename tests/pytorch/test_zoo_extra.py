#!/usr/bin/python3
"""More torchvision models through oxport.torch: export, onnx.checker (full_check) and
ONNX Runtime against PyTorch's eager outputs.

    /usr/bin/python3 tests/pytorch/test_zoo_extra.py GROUP [unittest args]

GROUP is one of the names in GROUPS; meson runs one test per group so they run in
parallel.  Random weights (fixed seed), batch 1, small inputs where the architecture
allows (ViT's position embedding needs 224).  What a random init leaves degenerate is
re-drawn (see redraw_degenerate): Linear weights get std 0.05 so logits are O(1) (ViT's
head starts at zero, which would compare nothing), ConvNeXt's layer scales (1e-6, which
would hide every block) and ViT's zero class token are drawn too; BatchNorm statistics
are calibrated on a separate random batch.  Each export is compared on the example input
and on a second one under the rule of tests/py/modelcheck.py (non-trivial references,
tolerance from the output's scale or torch.onnx's own error).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision.models as tvm  # noqa: E402

import oxport.torch as oxt  # noqa: E402
import test_models  # noqa: E402
from test_models import calibrate_bn, randn_inputs  # noqa: E402


def redraw_degenerate(m):
    """Re-draw what torchvision initialises to zero or near zero: every Linear weight
    (classifier heads, ViT's zero-initialised heads.head), ConvNeXt's layer scales (1e-6)
    and ViT's class token (zeros)."""
    for mod in m.modules():
        if isinstance(mod, torch.nn.Linear):
            torch.nn.init.normal_(mod.weight, std=0.05)
    with torch.no_grad():
        for name, p in m.named_parameters():
            leaf = name.rsplit(".", 1)[-1]
            if leaf == "layer_scale":
                p.uniform_(0.1, 1.0)
            elif leaf == "class_token":
                p.normal_(std=0.02)
    return m


def tv(name, size, **kw):
    def make():
        shape = (1, 3, size, size)
        return calibrate_bn(redraw_degenerate(getattr(tvm, name)(weights=None, **kw)), shape), randn_inputs(shape)
    return make


# ---------------------------------------------------------------- a user's own models
# Each exercises one group of functional ops, with several call forms per op.


class Acts(nn.Module):
    def forward(self, x):
        return (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.hardswish(x), F.hardsigmoid(x),
                F.relu6(x * 4), torch.clamp(x, min=-0.5), x.clamp(-0.2, 0.3))


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm([4, 5]); self.gn = nn.GroupNorm(2, 6); self.inn = nn.InstanceNorm2d(6, affine=True)
        self.inn2 = nn.InstanceNorm2d(6)
        for p in self.parameters(): nn.init.normal_(p)
    def forward(self, x):  # x: [2, 6, 4, 5]
        return self.ln(x), self.gn(x), self.inn(x), self.inn2(x), F.layer_norm(x, [5], eps=1e-3)


class Shapes(nn.Module):
    def forward(self, x):  # [2, 6, 4, 5]
        a, b, c = torch.split(x, [1, 2, 3], dim=1)
        p, q = x.chunk(2, dim=-1)
        u = torch.unbind(x, 0)
        s = torch.stack([a, a * 2], dim=2)
        e = a.expand(2, 3, 4, 5) + a.expand(-1, 3, -1, -1)
        r = c.repeat(1, 2, 1, 1) + x.repeat(2, 1, 1, 1)[:2]
        ro = torch.roll(x, shifts=(1, -2), dims=(2, 3))
        return a, b, c, p, q, u[0], u[1], s, e, r, ro


class Maths(nn.Module):
    def forward(self, x):  # [2, 6, 4, 5]
        y = x.abs() + 0.1
        return (torch.exp(x), torch.log(y), y.sqrt(), torch.rsqrt(y), -x, torch.pow(y, 2.5), x ** 2,
                torch.maximum(x, x * 0.5), torch.max(x, x * 0.5), torch.min(x, -x),
                torch.where(x > 0, x, 0.0), torch.where(x < 0.1, x, x * 2), x.masked_fill(x == 0.5, 1.0),
                (x >= 0).float(), (x <= 0).float(), (x != x * 2).float(), (x == x).float(),
                1 - x, 2.5 - x * 2, 1 / y, torch.erf(x), torch.floor(x * 3), torch.ceil(x * 3),
                torch.sin(x), torch.cos(x), torch.sign(x), torch.clip(x, -0.3, 0.3), x.clamp_min(0.1),
                x.clamp_max(-0.1), torch.logical_not(x > 0).long())


class Reduce(nn.Module):
    def forward(self, x):
        v, i = torch.max(x, dim=1)
        v2, i2 = x.min(-1, keepdim=True)
        return (x.sum(), x.sum(dim=(1, 2)), x.sum(-1, keepdim=True), x.mean((2, 3)), torch.amax(x, 1),
                torch.max(x), torch.min(x), v, i, v2, i2, x.argmax(dim=1), x.argmax(), torch.amin(x, (0, 3)))


class TopK(nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 3, dim=1)
        return v, i


class TopKSmall(nn.Module):
    def forward(self, x):
        return torch.topk(x, 2, dim=-1, largest=False)


class CumSum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=2), x.cumsum(-1)


class Resize(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(7, 9)),
                F.interpolate(x, scale_factor=3), F.interpolate(x, scale_factor=(1.5, 2.0)))


class Bilinear(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(9, 11), mode="bilinear", align_corners=False),
                F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))


class Pads(nn.Module):
    def forward(self, x):
        return (F.pad(x, (1, 2, 2, 1), mode="reflect"), F.pad(x, (1, 2, 0, 3), mode="replicate"),
                F.pad(x[0], (2, 1), mode="reflect"), nn.ReflectionPad2d(1)(x), nn.ReplicationPad2d((0, 1, 2, 3))(x))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2)
        self.mha_bf = nn.MultiheadAttention(8, 4, batch_first=True)
    def forward(self, x):  # [L=5, N=2, E=8]
        a, w = self.mha(x, x, x)
        xb = x.transpose(0, 1)
        b, _ = self.mha_bf(xb, xb, xb, need_weights=False)
        return a, w, b


class Transformer(nn.Module):
    """nn.TransformerEncoder, then cross attention with a key padding mask (an input) and a
    causal mask: the dispatcher-level path of F.multi_head_attention_forward with baddbmm,
    logical_or of the masks and masked_fill with -inf."""

    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x, key_padding_mask):
        y = self.enc(x)
        causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
        return self.mha(y, x, x, key_padding_mask=key_padding_mask, attn_mask=causal)


class Indexing(nn.Module):
    """Every form of a read through __getitem__ on a traced tensor (issue 8, section 3)."""
    def forward(self, x):  # [4, 5, 6]
        idx = torch.tensor([2, 0])
        return (x[0], x[:2], x[None], x[..., 1], x[-1, 1:, ::2], x[idx], x[0] @ x[1].t(), x[x > 0.5],
                x[:, None, 1] * 2)


class AdvancedIndexing(nn.Module):
    """Several index tensors, adjacent and not."""
    def forward(self, x):  # [4, 5, 6]
        i, j = torch.tensor([2, 0]), torch.tensor([1, 4])
        return x[i, j], x[i, :, j]


class IndexAssign(nn.Module):
    """Writes through views: the mutated base and its aliases read the new values."""
    def forward(self, x):  # [4, 5, 6]
        y = x * 1
        y[:, 0] = x[:, 1]
        y[torch.tensor([1, 3])] += 1
        y[y > 1.0] = 0.0
        z = x * 1
        z[1:3].fill_(2.0)
        return y, z


def transformer():
    def inputs(seed):
        # Each sequence keeps at least its first key: a row of all-padding is NaN in eager.
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(2, 5, 16, generator=g)
        lengths = torch.randint(1, 6, (2,), generator=g)
        return x, torch.arange(5)[None, :] >= lengths[:, None]
    return Transformer(), inputs


def fn(cls, *shape):
    return lambda: (cls(), randn_inputs(shape))


def unsupported(op, scope, lift):
    return (f"ONNX export failed on {op} because aten::{op} has no symbolic at this opset "
            f"(scope: {scope}); supported from opset {lift}")


# ---------------------------------------------------------------- torchvision

# SqueezeNet and GoogLeNet pool with ceil_mode, which MaxPool gains at opset 10: at opset 9
# it is exported as extra end padding computed from the traced sizes.
# Swin's patch merging slices with step 2 (x[..., 0::2, 1::2, :]): Slice gains steps at opset 10.
SWIN_9 = ("aten::slice(step=2) at SwinTransformer/Sequential[features]/PatchMerging[2]: Slice has no steps "
          "before opset 10; supported from opset 10")

# group -> list of (label, factory, opsets, outputs that are input-independent by
# construction); an opset given as (opset, message) must fail with that line in the report.
GROUPS = {
    "mobile": [
        ("mobilenet_v2", tv("mobilenet_v2", 64), (9, 13, 17), None),
        ("mobilenet_v3_small", tv("mobilenet_v3_small", 64), (9, 13, 17), None),
        ("squeezenet1_1", tv("squeezenet1_1", 64), (9, 13, 17), None),
        ("shufflenet_v2_x0_5", tv("shufflenet_v2_x0_5", 64), (9, 13, 17), None),
        ("mnasnet0_5", tv("mnasnet0_5", 64), (9, 13, 17), None),
    ],
    "efficient": [
        ("efficientnet_b0", tv("efficientnet_b0", 64), (9, 13, 17), None),
        ("regnet_y_400mf", tv("regnet_y_400mf", 64), (13, 17), None),
        ("googlenet", tv("googlenet", 64, aux_logits=False, init_weights=True), (9, 13, 17), None),
    ],
    "resnext_convnext": [
        ("resnext50_32x4d", tv("resnext50_32x4d", 64), (13, 17), None),
        ("convnext_tiny", tv("convnext_tiny", 64), (13, 17), None),
    ],
    "vit": [("vit_b_16", tv("vit_b_16", 224), (13, 17), None)],
    "swin": [("swin_t", tv("swin_t", 64), ((9, SWIN_9), 13, 17), None)],
    "functional": [
        ("activations", fn(Acts, 2, 6, 4, 5), (9, 13, 14, 17), None),
        ("norms", fn(Norms, 2, 6, 4, 5), (9, 13, 17), None),
        ("shapes", fn(Shapes, 2, 6, 4, 5), (9, 13, 17), None),
        # (x != x * 2) and (x == x) are all ones for any finite nonzero x.
        ("maths", fn(Maths, 2, 6, 4, 5), (9, 11, 13, 17), {15, 16}),
        ("reduce", fn(Reduce, 2, 6, 4, 5), (9, 13, 17), None),
        ("topk", fn(TopK, 2, 6, 4, 5), (9, 10, 13, 17), None),
        ("topk_smallest", fn(TopKSmall, 2, 6, 4, 5),
         ((10, "aten::topk(largest=False) at TopKSmall: TopK has no largest attribute before opset 11 "
               "(it always returns the largest); supported from opset 11"), 11, 17), None),
        ("cumsum", fn(CumSum, 2, 6, 4, 5), ((9, unsupported("cumsum", "CumSum", 11)), 11, 17), None),
        ("nearest", fn(Resize, 2, 3, 4, 5), (9, 10, 11, 13, 17), None),
        ("bilinear", fn(Bilinear, 2, 3, 4, 5),
         (9, 10, 11, 13, 17), None),
        ("pads", fn(Pads, 2, 3, 4, 5), (9, 11, 17), None),
        ("attention", fn(Attention, 5, 2, 8), (9, 13, 17), None),
        ("transformer", transformer, (9, 13, 17), None),
        ("indexing", fn(Indexing, 4, 5, 6), (13, 17), None),
        ("advanced_indexing", fn(AdvancedIndexing, 4, 5, 6), (13, 17), None),
        ("index_assign", fn(IndexAssign, 4, 5, 6), (13, 17), None),
    ],
}


class ModelCase(test_models.ModelCase):
    """The seed models' export/check/ORT case, plus expected pre-scan failures."""
    tmp_prefix = "oxport-zoo-extra-"

    def export_fails(self, opset, message):
        path = os.path.join(self.tmp.name, f"{self.label}_{opset}.onnx")
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(self.model, self.args, path, opset_version=opset)
        self.assertIn(f"problem(s) at opset {opset}:", str(cm.exception))
        self.assertIn("\n  - " + message, str(cm.exception))
        self.assertFalse(os.path.exists(path))


def make_suite(group, groups=GROUPS):
    """One test case per model of groups[group], one test per opset (test_zoo_arch.py
    passes its own table)."""
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for label, factory, opsets, constant_outputs in groups[group]:
        attrs = {"label": label, "factory": staticmethod(factory), "constant_outputs": constant_outputs or ()}
        for opset in opsets:
            if isinstance(opset, tuple):
                attrs[f"test_opset_{opset[0]}_fails"] = (lambda o, m: lambda self: self.export_fails(o, m))(*opset)
            else:
                attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        suite.addTests(loader.loadTestsFromTestCase(type(f"Test_{label}", (ModelCase,), attrs)))
    return suite


if __name__ == "__main__":
    sys.exit(test_models.run_main(GROUPS, make_suite, "GROUP"))
