#!/usr/bin/python3
"""Models outside torchvision's zoo, as a user writes them: a UNet and an FPN neck,
convolution variants, grid sampling, pixel shuffles, adaptive pooling to any size,
point-cloud kNN and PointNet++ sampling, message passing over an edge list, a recommender
with embeddings and buckets, hand-written detection post-processing and normalisation
variants.

    /usr/bin/python3 tests/pytorch/test_zoo_misc.py [unittest args]

Each case is exported by oxport.torch with its dynamic axes at each of its opsets,
checked with onnx.checker (full_check) and run in ONNX Runtime on the example input, a
second input of the same shapes and inputs of other shapes along the dynamic axes,
under the rule of tests/py/modelcheck.py (non-trivial references, tolerance from the
output's scale or torch.onnx's own error).  The export must not warn unless the case
names the warning: a model that follows every shape has nothing to warn about.  At the
last opset trace='fake' must write the eager trace's bytes, or be refused with the
message the case names.
"""

import os
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402


def calibrate(model, x):
    """Running statistics of real activations (one training-mode pass over x, cumulative
    for BatchNorm), as a trained network has, so the file must use them."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
        elif isinstance(m, nn.modules.batchnorm._NormBase) and m.track_running_stats:
            m.momentum = 0.5
    model.train()
    with torch.no_grad():
        model(x)
    return model.eval()


def floats(*shapes, scale=1.0):
    """An input maker: make(seed, k) draws randn tensors of shapes[k] (k=0 the example)."""
    def make(seed, k):
        g = torch.Generator().manual_seed(seed)
        return tuple(torch.randn(s, generator=g) * scale for s in shapes[k])
    return make


# ---------------------------------------------------------------- dense prediction


def cbr(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())


class UNet(nn.Module):
    """Two poolings and two upsamplings with skips.  "size": bilinear to the skip's size,
    then nearest x2 padded to the skip (odd sizes); "transposed": ConvTranspose padded to
    the skip, then nearest to the skip's size."""

    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.e1, self.e2, self.e3 = cbr(3, 8), cbr(8, 16), cbr(16, 16)
        self.up = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.d2, self.d1 = cbr(32, 8), cbr(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    @staticmethod
    def pad_to(u, skip):
        dh, dw = skip.size(2) - u.size(2), skip.size(3) - u.size(3)
        return F.pad(u, [dw // 2, dw - dw // 2, dh // 2, dh - dh // 2])

    def forward(self, x):
        s1 = self.e1(x)
        s2 = self.e2(F.max_pool2d(s1, 2))
        b = self.e3(F.max_pool2d(s2, 2))
        if self.mode == "size":
            u = F.interpolate(b, size=s2.shape[-2:], mode="bilinear", align_corners=False)
        else:
            u = self.pad_to(self.up(b), s2)
        d2 = self.d2(torch.cat([u, s2], 1))
        if self.mode == "size":
            u1 = self.pad_to(F.interpolate(d2, scale_factor=2, mode="nearest"), s1)
        else:
            u1 = F.interpolate(d2, size=s1.shape[2:], mode="nearest")
        return self.head(self.d1(torch.cat([u1, s1], 1)))


def unet(mode):
    def make():
        shapes = [((2, 3, 19, 23),), ((1, 3, 13, 17),), ((3, 3, 20, 22),), ((1, 3, 5, 7),)]
        return calibrate(UNet(mode), torch.randn(4, 3, 19, 23)), floats(*shapes)
    return make


class FPN(nn.Module):
    """A backbone of strided and dilated convs, a top-down neck (nearest and bilinear to
    the lateral's size, added), a depthwise-separable and a grouped conv, global pooling."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(16, 32, 3, stride=2, padding=2, dilation=2)
        self.l1, self.l2, self.l3 = nn.Conv2d(8, 8, 1), nn.Conv2d(16, 8, 1), nn.Conv2d(32, 8, 1)
        self.dw, self.pw = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Conv2d(8, 8, 1)
        self.grouped = nn.Conv2d(8, 12, 3, padding=1, groups=4)

    def forward(self, x):
        a = F.relu(self.c1(x))
        b = F.relu(self.c2(a))
        c = F.relu(self.c3(b))
        p3 = self.l3(c)
        p2 = self.l2(b) + F.interpolate(p3, size=b.shape[-2:], mode="nearest")
        p1 = self.l1(a) + F.interpolate(p2, size=a.shape[-2:], mode="bilinear", align_corners=True)
        return self.pw(self.dw(p1)), self.grouped(p2), F.adaptive_avg_pool2d(p3, 1)


class Convs(nn.Module):
    """ConvTranspose with output_padding (grouped and dilated too, and 1-D), a dilated
    conv over reflect padding, padding='same' with dilation, circular padding."""

    def __init__(self):
        super().__init__()
        self.t1 = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2)
        self.t3 = nn.ConvTranspose1d(4, 3, 4, stride=3, padding=1, output_padding=2)
        self.reflect = nn.Conv2d(4, 4, 3, padding=2, dilation=2, padding_mode="reflect")
        self.same = nn.Conv2d(4, 4, 3, padding="same", dilation=3)
        self.circular = nn.Conv2d(4, 4, 3, padding=1, padding_mode="circular")

    def forward(self, x):
        return (self.t1(x), self.t2(x), self.t3(x.flatten(2)), self.reflect(x), self.same(x),
                self.circular(x))


class Shuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 16, 3, padding=1)

    def forward(self, x):
        y = F.pixel_shuffle(self.conv(x), 2)
        return y, F.pixel_unshuffle(y, 2), nn.PixelShuffle(2)(x)


class Sampler(nn.Module):
    """F.grid_sample in each mode, padding mode and corner convention (GridSample, 16)."""

    def forward(self, x, grid):
        return (F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True),
                F.grid_sample(x, grid, mode="bicubic", padding_mode="reflection", align_corners=False))


def sampler_inputs(seed, k):
    g = torch.Generator().manual_seed(seed)
    n, h, w, gh, gw = [(2, 7, 9, 6, 5), (1, 5, 12, 3, 4), (3, 10, 4, 7, 2), (1, 1, 3, 1, 8)][k]
    # grid points out to 1.2 reach every padding mode's outside
    return torch.randn(n, 3, h, w, generator=g), torch.rand(n, gh, gw, 2, generator=g) * 2.4 - 1.2


class Fold(nn.Module):
    """F.unfold and F.fold back (Col2Im, opset 18)."""

    def forward(self, x):
        p = F.unfold(x, kernel_size=3, padding=1, stride=2)
        return p, F.unfold(x, kernel_size=(2, 3), dilation=(1, 2)), F.fold(p, (7, 8), 3, padding=1, stride=2)


class AdaptiveHeads(nn.Module):
    """Adaptive pooling to sizes that do not tile the input (overlapping bins), and to a
    size larger than the input."""

    def forward(self, x):
        return (F.adaptive_avg_pool2d(x, (3, 5)), F.adaptive_max_pool2d(x, (4, 3)),
                F.adaptive_avg_pool2d(x[:, :, :2, :3], (5, 7)), F.adaptive_avg_pool1d(x.flatten(2), 7))


# ---------------------------------------------------------------- points and graphs


class EdgeConv(nn.Module):
    """DGCNN's edge convolution: squared distances by broadcasting, kNN by topk, the
    neighbours gathered with an expanded index, an MLP over (x, neighbour - x), max."""

    def __init__(self, k=4):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16))

    def forward(self, x):  # [B, N, 3]
        d = (x.unsqueeze(2) - x.unsqueeze(1)).pow(2).sum(-1)
        idx = d.topk(self.k, dim=-1, largest=False).indices
        b, n, c = x.shape
        nb = torch.gather(x.unsqueeze(1).expand(b, n, n, c), 2, idx.unsqueeze(-1).expand(-1, -1, -1, c))
        feat = torch.cat([x.unsqueeze(2).expand(-1, -1, self.k, -1), nb - x.unsqueeze(2)], -1)
        return self.mlp(feat).max(dim=2).values, idx


class NeighbourMean(nn.Module):
    """kNN by argsort of torch.cdist, the neighbours read by flat indices."""

    def forward(self, x):
        d = torch.cdist(x, x)
        idx = d.argsort(dim=-1)[..., 1:4]
        flat = idx + torch.arange(x.shape[0]).view(-1, 1, 1) * x.shape[1]
        nb = x.reshape(-1, x.shape[-1])[flat.reshape(-1)].reshape(x.shape[0], x.shape[1], 3, x.shape[2])
        return nb.mean(2), d


class SetAbstraction(nn.Module):
    """PointNet++'s set abstraction: farthest point sampling (a loop of 4 steps writing a
    CPU index table made in forward), a ball query by masking and sorting indices,
    grouping by gather, a shared MLP and max over each group."""

    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Conv2d(6, 16, 1), nn.ReLU(), nn.Conv2d(16, 16, 1))

    def forward(self, xyz):  # [B, N, 3]
        b, n, _ = xyz.shape
        centroids = torch.zeros(b, 4, dtype=torch.long)
        distance = torch.ones(b, n) * 1e10
        farthest = torch.zeros(b, dtype=torch.long)
        for i in range(4):
            centroids[:, i] = farthest
            c = xyz[torch.arange(b), farthest, :].view(b, 1, 3)
            distance = torch.min(distance, ((xyz - c) ** 2).sum(-1))
            farthest = distance.max(-1)[1]
        centres = torch.gather(xyz, 1, centroids.unsqueeze(-1).expand(-1, -1, 3))
        sqr = ((centres.unsqueeze(2) - xyz.unsqueeze(1)) ** 2).sum(-1)
        idx = torch.arange(n).view(1, 1, n).repeat(b, 4, 1)
        idx[sqr > 0.8] = n
        idx = idx.sort(dim=-1)[0][:, :, :5]
        idx = torch.where(idx == n, idx[:, :, :1].repeat(1, 1, 5), idx)
        grouped = torch.gather(xyz.unsqueeze(1).expand(b, 4, n, 3), 2, idx.unsqueeze(-1).expand(-1, -1, -1, 3))
        feat = torch.cat([grouped - centres.unsqueeze(2), grouped], -1).permute(0, 3, 1, 2)
        return self.mlp(feat).max(-1)[0], centres


def cloud(seed, k):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand([(2, 16, 3), (1, 9, 3), (3, 20, 3), (2, 7, 3)][k], generator=g),)


def points(seed, k):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn([(2, 8, 3), (1, 5, 3), (3, 12, 3), (2, 20, 3)][k], generator=g),)


class GCN(nn.Module):
    """Two graph convolutions over an edge list of any length: self loops from arange,
    degrees by index_add_, symmetric normalisation, messages summed with index_add_."""

    def __init__(self):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(5, 8), nn.Linear(8, 3)

    def forward(self, x, edge_index):
        n = x.size(0)
        ei = torch.cat([edge_index, torch.arange(n).unsqueeze(0).repeat(2, 1)], 1)
        src, dst = ei
        deg = torch.zeros(n, dtype=x.dtype).index_add_(0, dst, torch.ones(ei.size(1)))
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        h = self.lin1(x)
        h = torch.zeros_like(h).index_add_(0, dst, h[src] * norm.unsqueeze(-1)).relu()
        h = self.lin2(h)
        return torch.zeros_like(h).index_add_(0, dst, h[src] * norm[:, None]).log_softmax(-1)


class Aggregate(nn.Module):
    """Message aggregations: scatter_add_, scatter_reduce mean and amax without self
    (untouched nodes keep their features), with self, F.one_hot degrees."""

    def forward(self, x, edge_index):
        src, dst = edge_index[0], edge_index[1]
        msg = x[src] * 2 + 1
        idx = dst.unsqueeze(-1).expand_as(msg)
        return (torch.zeros_like(x).scatter_add_(0, idx, msg),
                x.scatter_reduce(0, idx, msg, reduce="mean", include_self=False),
                x.scatter_reduce(0, idx, msg, reduce="amax", include_self=False),
                x.scatter_reduce(0, idx, msg, reduce="mean"),
                F.one_hot(dst, x.shape[0]).sum(0))


def graph(features):
    def make(seed, k):
        g = torch.Generator().manual_seed(seed)
        n, e = [(6, 12), (3, 5), (9, 20), (1, 1)][k]
        return torch.randn(n, features, generator=g), torch.randint(0, n, (2, e), generator=g)
    return make


class Bags(nn.Module):
    """EmbeddingBag over a flat token list with offsets (mean with padding_idx, sum with
    the last offset included, max), and one-hot tokens."""

    def __init__(self):
        super().__init__()
        self.mean = nn.EmbeddingBag(20, 6, mode="mean", padding_idx=0)
        self.sum = nn.EmbeddingBag(20, 6, mode="sum", include_last_offset=True)
        self.max = nn.EmbeddingBag(20, 6, mode="max")

    def forward(self, tokens, offsets):
        return (self.mean(tokens, offsets), self.sum(tokens, offsets), self.max(tokens, offsets),
                F.one_hot(tokens % 7, 7))


def bags(seed, k):
    g = torch.Generator().manual_seed(seed)
    n_tokens, n_bags = [(10, 4), (4, 2), (15, 6), (3, 1)][k]
    tokens = torch.randint(0, 20, (n_tokens,), generator=g)
    starts = torch.sort(torch.randint(1, n_tokens, (n_bags - 1,), generator=g)).values
    return tokens, torch.cat([torch.zeros(1, dtype=torch.long), starts])


# ---------------------------------------------------------------- recommender


class DLRM(nn.Module):
    """Dense features through an MLP, three categorical embeddings, pairwise feature
    crosses by bmm (the lower triangle by tril_indices), a bucketized feature, masks by
    comparisons, searchsorted."""

    def __init__(self):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(n, 8) for n in (10, 7, 13)])
        self.bottom = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.top = nn.Sequential(nn.Linear(8 + 6 + 1, 8), nn.ReLU(), nn.Linear(8, 1))
        self.register_buffer("edges", torch.tensor([-1.0, -0.3, 0.0, 0.4, 1.2]))

    def forward(self, dense, cats):  # [B, 4] float, [B, 3] int64
        d = self.bottom(dense)
        t = torch.stack([d] + [e(cats[:, i]) for i, e in enumerate(self.embs)], 1)
        z = torch.bmm(t, t.transpose(1, 2))
        li, lj = torch.tril_indices(4, 4, offset=-1)
        bucket = torch.bucketize(dense[:, 0].contiguous(), self.edges).float().unsqueeze(1)
        out = self.top(torch.cat([d, z[:, li, lj], bucket], 1))
        mask = (dense > 0.5) & (cats[:, :1] != 3)
        return torch.sigmoid(out), mask, torch.searchsorted(self.edges, dense.contiguous(), right=True)


def dlrm_inputs(seed, k):
    g = torch.Generator().manual_seed(seed)
    b = [4, 1, 7, 2][k]
    return (torch.randn(b, 4, generator=g),
            torch.stack([torch.randint(0, n, (b,), generator=g) for n in (10, 7, 13)], 1))


# ---------------------------------------------------------------- detection post-processing


def decode(anchors, deltas):
    wa, ha = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    cxa, cya = anchors[:, 0] + 0.5 * wa, anchors[:, 1] + 0.5 * ha
    dx, dy, dw, dh = deltas.unbind(-1)
    cx, cy = dx * wa + cxa, dy * ha + cya
    w, h = dw.clamp(max=4.0).exp() * wa, dh.clamp(max=4.0).exp() * ha
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


class Detect(nn.Module):
    """Box decoding against anchors, clamping to the image, a fixed top-k, nms (how many
    boxes it keeps depends on the values), per-class nms by batched_nms, a score
    threshold by where."""

    def __init__(self):
        super().__init__()
        self.register_buffer("anchors", torch.tensor(
            [[x, y, x + s, y + s] for x in range(0, 32, 8) for y in range(0, 32, 8) for s in (6.0, 12.0)]))

    def forward(self, deltas, logits, labels):
        boxes = decode(self.anchors, deltas).clamp(0, 32)
        scores = logits.sigmoid()
        s, i = scores.topk(10)
        keep = torchvision.ops.nms(boxes[i], s, 0.5)
        kept = torchvision.ops.batched_nms(boxes, scores, labels, 0.3)
        return (boxes[i][keep], s[keep], kept, torch.where(scores > 0.5, scores, torch.zeros_like(scores)))


def detect_inputs(seed, k):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(32, 4, generator=g) * 0.3, torch.randn(32, generator=g),
            torch.randint(0, 3, (32,), generator=g))


# ---------------------------------------------------------------- normalisation


class Norms(nn.Module):
    """GroupNorm with 3 groups of 3, one group (no affine) and one per channel; LayerNorm
    over three and two trailing dims; InstanceNorm with running statistics (eval), with
    and without affine; BatchNorm 2d and 1d in eval; F.normalize."""

    def __init__(self):
        super().__init__()
        self.gn, self.gn1, self.gn9 = nn.GroupNorm(3, 9), nn.GroupNorm(1, 9, affine=False), nn.GroupNorm(9, 9, 1e-3)
        self.ln, self.ln2 = nn.LayerNorm([9, 5, 6]), nn.LayerNorm([5, 6], elementwise_affine=False)
        self.inr = nn.InstanceNorm2d(9, affine=True, track_running_stats=True)
        self.inr2 = nn.InstanceNorm2d(9, track_running_stats=True)
        self.bn, self.bn1 = nn.BatchNorm2d(9), nn.BatchNorm1d(9, affine=False)
        with torch.no_grad():
            for m in (self.gn, self.gn9, self.ln, self.inr):
                m.weight.normal_()
                m.bias.normal_()

    def forward(self, x):
        return (self.gn(x), self.gn1(x), self.gn9(x), self.ln(x), self.ln2(x), self.inr(x), self.inr2(x),
                self.bn(x), self.bn1(x.flatten(2)), F.normalize(x, dim=1))


class SpatialNorms(Norms):
    """The norms whose parameters do not fix the spatial size, with it dynamic."""

    def forward(self, x):
        return self.gn(x), self.gn1(x), self.inr(x), self.inr2(x), self.bn(x), F.normalize(x, dim=1)


class Reparametrized(nn.Module):
    """weight_norm (per output channel, per ConvTranspose input channel, whole tensor),
    spectral_norm (old and parametrization forms) and a user parametrization."""

    class Scale(nn.Module):
        def forward(self, w):
            return w * 2.0 / w.norm()

    def __init__(self):
        super().__init__()
        P = nn.utils.parametrizations
        self.conv = nn.utils.weight_norm(nn.Conv2d(3, 4, 3))
        self.up = nn.utils.weight_norm(nn.ConvTranspose2d(4, 2, 3), dim=1)
        self.lin = nn.utils.weight_norm(nn.Linear(4, 5), dim=None)
        self.sn = nn.utils.spectral_norm(nn.Conv2d(4, 4, 1))
        self.psn = P.spectral_norm(nn.Linear(4, 3))
        self.scaled = nn.utils.parametrize.register_parametrization(nn.Conv2d(4, 4, 1), "weight", self.Scale())

    def forward(self, x):
        y = self.sn(self.conv(x))
        pooled = self.scaled(y).mean((2, 3))
        return self.lin(pooled), self.up(y), self.psn(pooled)


def norms():
    shapes = [((2, 9, 5, 6),), ((1, 9, 5, 6),), ((4, 9, 5, 6),), ((7, 9, 5, 6),)]
    return calibrate(Norms(), torch.randn(4, 9, 5, 6) * 2 + 0.5), floats(*shapes)


def spatial_norms():
    shapes = [((2, 9, 5, 6),), ((1, 9, 3, 4),), ((4, 9, 7, 9),), ((1, 9, 1, 2),)]
    return calibrate(SpatialNorms(), torch.randn(4, 9, 5, 6) * 2 + 0.5), floats(*shapes)


BHW = {0: "b", 2: "h", 3: "w"}
# fake: None when trace='fake' must write the eager trace's bytes, else a fragment of the
# message it is refused with.  warns: fragments of the TracerWarnings the export gives.
CASES = {
    "unet_bilinear_pad": dict(make=unet("size"), axes={"in0": BHW}, opsets=(11, 13, 17)),
    "unet_transposed": dict(make=unet("transposed"), axes={"in0": BHW}, opsets=(11, 13, 17)),
    "fpn_neck": dict(make=lambda: (FPN(), floats(((2, 3, 25, 30),), ((1, 3, 17, 23),), ((2, 3, 32, 32),),
                                                  ((1, 3, 9, 11),))), axes={"in0": BHW}, opsets=(11, 13, 17)),
    "conv_variants": dict(make=lambda: (Convs(), floats(((2, 4, 6, 7),), ((1, 4, 3, 5),), ((3, 4, 8, 4),), ((1, 4, 9, 11),))),
                          axes={"in0": BHW}, opsets=(11, 13, 17)),
    "pixel_shuffle": dict(make=lambda: (Shuffle(), floats(((2, 4, 6, 7),), ((1, 4, 3, 5),), ((3, 4, 8, 2),), ((1, 4, 1, 9),))),
                          axes={"in0": BHW}, opsets=(11, 13, 17)),
    "grid_sample": dict(make=lambda: (Sampler(), sampler_inputs), axes={"in0": BHW, "in1": {0: "b", 1: "gh", 2: "gw"}},
                        opsets=(16, 17)),
    # the bins are the example's: only the batch is dynamic
    "adaptive_pool_bins": dict(make=lambda: (AdaptiveHeads(), floats(((2, 3, 10, 11),), ((1, 3, 10, 11),),
                                                                     ((4, 3, 10, 11),), ((3, 3, 10, 11),))),
                               axes={"in0": {0: "b"}}, opsets=(11, 13, 17)),
    "unfold_fold": dict(make=lambda: (Fold(), floats(((2, 3, 7, 8),))), axes={}, opsets=(18,)),
    "edge_conv_knn": dict(make=lambda: (EdgeConv(), points), axes={"in0": {0: "b", 1: "n"}}, opsets=(11, 13, 17)),
    "cdist_argsort": dict(make=lambda: (NeighbourMean(), points), axes={"in0": {0: "b", 1: "n"}},
                          opsets=(11, 17)),
    "pointnet2_set_abstraction": dict(make=lambda: (SetAbstraction(), cloud), axes={"in0": {0: "b", 1: "n"}},
                                      opsets=(11, 13, 17)),
    "gcn_edge_list": dict(make=lambda: (GCN(), graph(5)), axes={"in0": {0: "n"}, "in1": {1: "e"}},
                          opsets=(11, 13, 17)),
    "scatter_aggregate": dict(make=lambda: (Aggregate(), graph(4)), axes={"in0": {0: "n"}, "in1": {1: "e"}},
                              opsets=(18,)),
    "embedding_bags": dict(make=lambda: (Bags(), bags), axes={"in0": {0: "tokens"}, "in1": {0: "bags"}},
                           opsets=(11, 13, 17)),
    "dlrm": dict(make=lambda: (DLRM(), dlrm_inputs), axes={"in0": {0: "b"}, "in1": {0: "b"}}, opsets=(11, 13, 17)),
    "detect_post": dict(make=lambda: (Detect(), detect_inputs), axes={}, opsets=(11, 17),
                        fake="no meta kernel for torchvision::nms",
                        # torchvision's offset form returns early for no boxes, which the file
                        # cannot (its count is the input's); batched_nms's own choice of form by
                        # the count is not a branch during a trace and must not warn
                        warns=("boxes.py:89",)),
    "norms": dict(make=norms, axes={"in0": {0: "b"}}, opsets=(11, 13, 17)),
    "norms_spatial": dict(make=spatial_norms, axes={"in0": BHW}, opsets=(11, 13, 17)),
    "reparametrized": dict(make=lambda: (Reparametrized(), floats(((2, 3, 8, 8),), ((1, 3, 6, 7),),
                                                                  ((4, 3, 9, 5),), ((1, 3, 3, 3),))),
                           axes={"in0": BHW}, opsets=(11, 13, 17)),
}


def arrays(args):
    return [t.numpy() for t in args]


def eager(model, args):
    with torch.no_grad():
        out = model(*args)
    return [t.numpy() for t in oxt._recorder.tensors_in(out)]


class MiscModels(unittest.TestCase):
    def run_case(self, name):
        case = CASES[name]
        torch.manual_seed(0)
        model, make = case["make"]()
        model.eval()
        axes, warns = case["axes"], case.get("warns", ())
        example = make(0, 0)
        names = [f"in{i}" for i in range(len(example))]
        # the example, a second input of its shapes, then one input per other shape
        sets = [example, make(1, 0)] + [make(2 + k, k) for k in range(1, 4) if axes]
        wants = [eager(model, a) for a in sets]
        modelcheck.assert_nontrivial(name, wants)
        feeds = [dict(zip(names, arrays(a))) for a in sets]
        with tempfile.TemporaryDirectory(prefix="oxport-misc-") as tmp:
            for opset in case["opsets"]:
                path = os.path.join(tmp, f"{name}_{opset}.onnx")
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", oxt.TracerWarning)
                    oxt.export(model, example, path, opset_version=opset, input_names=names, dynamic_axes=axes)
                said = [str(w.message) for w in caught if issubclass(w.category, oxt.TracerWarning)]
                for text in said:
                    self.assertTrue(any(f in text for f in warns), f"{name} opset {opset}: unexpected warning: {text}")
                for f in warns:
                    self.assertTrue(any(f in text for text in said), f"{name} opset {opset}: no warning at {f}")
                onnxval.check(path)
                reference = (modelcheck.torch_onnx_reference(model, example, opset, names, dynamic_axes=axes)
                             if opset <= 17 else None)
                modelcheck.assert_matches(f"{name} opset {opset}", path, feeds, wants, reference)
            self.fake_trace(name, model, example, names, axes, case["opsets"][-1], case.get("fake"), tmp)

    def fake_trace(self, name, model, example, names, axes, opset, refusal, tmp):
        eager_path = os.path.join(tmp, f"{name}_{opset}.onnx")
        fake_path = os.path.join(tmp, f"{name}_{opset}_fake.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", oxt.TracerWarning)
            if refusal:
                with self.assertRaises(oxt.ExportError) as cm:
                    oxt.export(model, example, fake_path, opset_version=opset, input_names=names,
                               dynamic_axes=axes, trace="fake")
                self.assertIn(refusal, str(cm.exception))
                self.assertFalse(os.path.exists(fake_path))
                return
            oxt.export(model, example, fake_path, opset_version=opset, input_names=names, dynamic_axes=axes,
                       trace="fake")
        with open(eager_path, "rb") as a, open(fake_path, "rb") as b:
            self.assertTrue(a.read() == b.read(), f"{name}: trace='fake' wrote another file than the eager trace")


for _name in CASES:
    setattr(MiscModels, f"test_{_name}", (lambda n: lambda self: self.run_case(n))(_name))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
