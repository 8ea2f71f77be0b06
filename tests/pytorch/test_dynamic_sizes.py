#!/usr/bin/python3
"""Models that read sizes in Python, exported with dynamic axes and run at other shapes,
and exported without dynamic axes, where those sizes fold into constants.

Each case is exported once at its example shape with every input axis it names declared
dynamic, then run in ONNX Runtime at the example, on a second input of the same shape with
other values, and at three other shapes (one with size 1 on every dynamic axis, one
larger than the example), against eager.  A file that bakes a size read from the
example (a Reshape target, an arange length, a slice bound) fails at the other shapes.
The same cases exported with no dynamic axis must have no Shape or Size node left (every
shape in the file is fixed, so the size chains fold) and still match eager on two inputs.

    /usr/bin/python3 tests/pytorch/test_dynamic_sizes.py [unittest args]
"""

import math
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
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from oxport.models.decoder import Decoder  # noqa: E402


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1) * 2


class Heads(nn.Module):
    """Attention-style head reshapes: b, n from x.shape, heads fixed."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, 2, c // 2).permute(2, 0, 3, 1, 4).unbind(0)
        a = (q @ k.transpose(-2, -1)) * (c // 2) ** -0.5
        return (a.softmax(-1) @ v).transpose(1, 2).reshape(b, n, c)


class CausalMask(nn.Module):
    """torch.triu(torch.ones(s, s)) mask from a traced length."""

    def forward(self, x):
        s = x.size(1)
        mask = torch.triu(torch.ones(s, s), diagonal=1).bool()
        scores = x @ x.transpose(1, 2)
        return scores.masked_fill(mask, -1e4).softmax(-1)


class Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(64, 6)

    def forward(self, x):
        pos = torch.arange(x.size(1))
        return x + self.emb(pos).unsqueeze(0)


class FlattenMiddle(nn.Module):
    """flatten of a middle run: the dims after it keep their dynamic sizes."""
    def forward(self, x):
        return x.unsqueeze(1).expand(-1, 2, -1, -1).flatten(1, 2) * 2


class Unflatten(nn.Module):
    """unflatten (Tensor method, torch function, nn.Unflatten): the other dims follow."""
    def forward(self, x):
        heads = x.unflatten(-1, (2, x.size(-1) // 2))
        return heads.flip(-2).flatten(-2) + nn.Unflatten(1, (1, -1))(x).squeeze(1) + torch.unflatten(x, 0, (1, -1))[0]


class SizesInCpp(nn.Module):
    """diff, meshgrid, view_as and reshape_as: ATen computes them from sizes in C++,
    where a trace sees only numbers; recorded whole, they follow the dynamic dims."""
    def forward(self, x):
        d = torch.diff(x, dim=1, prepend=x[:, :1]) + torch.diff(x, n=2, dim=0, append=x[:2]) * 0.5
        gi, gj = torch.meshgrid(x[0], x[:, 0], indexing="ij")
        gx, _ = torch.meshgrid(x[0], x[:, 0], indexing="xy")
        flat = x.reshape(-1)
        return d + flat.view_as(x) + flat.reshape_as(x) + (gi * gj + gx.t()).t()


class FloatArange(nn.Module):
    """Float start and step with a traced end: they stay floats in the file."""
    def forward(self, x):
        n = x.size(1)
        return x * torch.arange(0.5, n) + torch.arange(0, n, 0.5)[::2] + torch.arange(-1.25, n - 1, 1.0)[1:]


class Zeros(nn.Module):
    def forward(self, x):
        z = torch.zeros(x.size(0), 3)
        return torch.cat([x, z], dim=1)


class HalfSlice(nn.Module):
    def forward(self, x):
        return x[:, : x.size(1) // 2] - x[:, x.size(1) // 2:]


class Interp(nn.Module):
    def forward(self, x):
        h, w = x.shape[2:]
        return F.interpolate(x, size=(2 * h, 2 * w), mode="nearest")


class InterpScale(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)


class Numel(nn.Module):
    def forward(self, x):
        return x / x.numel()


class PadToMultiple(nn.Module):
    def forward(self, x):
        n = x.size(-1)
        return F.pad(x, (0, (4 - n % 4) % 4))


class Expand(nn.Module):
    def forward(self, x):
        return x.mean(1, keepdim=True).expand(x.size(0), x.size(1)) + x.new_zeros(x.size(0), x.size(1))


class LikeOps(nn.Module):
    def forward(self, x):
        return torch.ones_like(x) * 3 + torch.zeros_like(x) + torch.full_like(x, 0.5) * x


class Chunk(nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        return a * b.sigmoid()


class Narrow(nn.Module):
    def forward(self, x):
        return x.narrow(1, 1, x.size(1) - 2) + x[:, -1:]


class Indexing(nn.Module):
    def forward(self, x):
        return x[0] + x[-1] + x[x.size(0) - 1] + x[None, 1:, 2][0].sum()


class Roll(nn.Module):
    """Swin's shifted windows: a roll along dims whose size is dynamic."""

    def forward(self, x):
        return torch.roll(x, shifts=(-1, 2), dims=(1, 2)) - x


class ClsToken(nn.Module):
    """A class token expanded to the batch (ViT): expand(x.size(0), -1, -1)."""

    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.randn(1, 1, 8))

    def forward(self, x):
        return torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, x):
        return self.enc(x)


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        return self.att(x, x, x, need_weights=False)[0]


class LSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(5, 7, num_layers=2, batch_first=True)

    def forward(self, x):
        h = torch.zeros(2, x.size(0), 7)
        out, _ = self.rnn(x, (h, h))
        return out


class SplitTraced(nn.Module):
    """torch.split by a size read in Python: the pieces' bounds follow it."""

    def forward(self, x):
        a, b = torch.split(x, x.size(1) // 2, dim=1)
        return a * 2 + b


class RollTraced(nn.Module):
    """roll by shifts read in Python: the file rolls by what the input's size gives."""

    def forward(self, x):
        return x.roll(shifts=x.size(1) // 2, dims=1) * 2 + torch.roll(x, (x.size(0) - 1, -(x.size(1) // 3)), (0, 1))


class OneHotCount(nn.Module):
    """F.one_hot with the class count read from the input's size: OneHot's depth input."""

    def forward(self, x):
        return F.one_hot(x.argmax(-1), x.size(-1)).float() * x


class Classifier(nn.Module):
    """Conv, global pooling, a Linear head: only the batch dim follows the input."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(4, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


class ScatterFixedIndex(nn.Module):
    """scatter/scatter_add from a src whose dim 1 is dynamic, by a constant index that
    reads its first 3 columns: the file cuts src to the index's sizes at every size, not
    only where they differ on the example."""

    def forward(self, x):
        idx = torch.tensor([[0, 2, 1], [1, 0, 3]])
        return torch.zeros(2, 4).scatter(1, idx, x) + torch.zeros(2, 4).scatter_add(1, idx, 2 * x)


# name -> (module factory, example shape, dynamic axes of the input, opsets)
CASES = {
    "flatten_view": (Flatten, (2, 3, 4), [0], (9, 13, 17)),
    "attention_heads": (Heads, (2, 5, 8), [0, 1], (13, 17)),
    "causal_mask": (CausalMask, (2, 5, 4), [0, 1], (11, 13, 17)),
    "arange_positions": (Positions, (2, 7, 6), [0, 1], (11, 13, 17)),
    "flatten_middle_dims": (FlattenMiddle, (2, 3, 5), [0, 2], (9, 13, 17)),
    "unflatten": (Unflatten, (2, 3, 4), [0, 1], (9, 13, 17)),
    "sizes_in_cpp": (SizesInCpp, (4, 5), [0, 1], (11, 13, 17)),
    "arange_float_bounds": (FloatArange, (2, 7), [0, 1], (11, 13, 17)),
    "zeros_of_batch": (Zeros, (3, 4), [0], (9, 13, 17)),
    "half_slice": (HalfSlice, (2, 6), [0, 1], (10, 13, 17)),
    "interpolate_size": (Interp, (1, 2, 3, 5), [0, 2, 3], (11, 13, 17)),
    "interpolate_scale": (InterpScale, (1, 2, 3, 5), [0, 2, 3], (11, 13, 17)),
    "divide_by_numel": (Numel, (2, 3), [0, 1], (9, 13, 17)),
    "pad_to_multiple": (PadToMultiple, (2, 3, 5), [0, 2], (11, 13, 17)),
    "expand_new_zeros": (Expand, (3, 4), [0, 1], (9, 13, 17)),
    "like_factories": (LikeOps, (3, 4), [0, 1], (9, 13, 17)),
    "chunk_dynamic": (Chunk, (2, 6), [0, 1], (10, 13, 17)),
    "narrow": (Narrow, (2, 6), [0, 1], (10, 13, 17)),
    "indexing": (Indexing, (4, 5, 3), [0], (11, 13, 17)),
    "roll_dynamic_dims": (Roll, (2, 5, 6), [0, 1, 2], (9, 13, 17)),
    "cls_token_expand": (ClsToken, (2, 5, 8), [0, 1], (9, 13, 17)),
    "transformer_encoder": (Transformer, (2, 5, 16), [0, 1], (13, 17)),
    "multihead_attention": (MHA, (2, 5, 16), [0, 1], (13, 17)),
    "lstm": (LSTM, (2, 6, 5), [0, 1], (9, 13, 17)),
    "classifier": (Classifier, (2, 2, 8, 8), [0, 2, 3], (9, 13, 17)),
    "one_hot_of_size": (OneHotCount, (3, 5), [0, 1], (9, 13, 17)),
    "split_traced_size": (SplitTraced, (2, 6), [0, 1], (10, 13, 17)),
    "roll_traced_shift": (RollTraced, (2, 6), [0, 1], (10, 13, 17)),
    "scatter_fixed_index": (ScatterFixedIndex, (2, 3), [1], (9, 11, 16)),
}


# Models whose arithmetic needs sizes of a form (even, >= 3) run at these shapes instead.
SHAPES = {
    "half_slice": [(1, 2), (4, 10), (3, 4)],
    "chunk_dynamic": [(1, 2), (4, 10), (3, 8)],
    "narrow": [(1, 3), (4, 10), (3, 4)],
    "roll_dynamic_dims": [(1, 3, 3), (4, 8, 9), (3, 4, 7)],
    "classifier": [(1, 2, 3, 3), (4, 2, 11, 9), (3, 2, 5, 7)],
    "split_traced_size": [(1, 2), (4, 10), (3, 8)],
    "scatter_fixed_index": [(2, 4), (2, 9)],
}


def other_shapes(shape, axes, name=None):
    """Size 1 on every dynamic axis, the example + 3, and a mix."""
    if name in SHAPES:
        return SHAPES[name]
    ones = [1 if i in axes else s for i, s in enumerate(shape)]
    bigger = [s + 3 if i in axes else s for i, s in enumerate(shape)]
    mixed = [(s + 1 if k % 2 == 0 else max(s - 1, 1)) if i in axes else s
             for k, (i, s) in enumerate(enumerate(shape))]
    return [tuple(ones), tuple(bigger), tuple(mixed)]


# Cases whose lowering reads no size even with dynamic axes (a scale factor, a roll by
# fixed shifts): no Shape node to keep.
READS_NO_SIZE = {"interpolate_scale", "roll_dynamic_dims", "classifier", "scatter_fixed_index"}


def size_nodes(path):
    import onnx
    return [n.op_type for n in onnx.load(path).graph.node if n.op_type in ("Shape", "Size")]


def declared_output_dims(path):
    """Per graph output, its declared dims: an int where the file fixes the size, None
    where it leaves it open (unknown or named)."""
    import onnx
    out = []
    for o in onnx.load(path).graph.output:
        dims = o.type.tensor_type.shape.dim
        out.append([d.dim_value if d.HasField("dim_value") else None for d in dims])
    return out


def assert_declared_dims_hold(case, path, refs, what):
    """A size the file declares for an output is a promise to the runtime: it must be
    the output's size at every shape the file ran at."""
    for k, dims in enumerate(declared_output_dims(path)):
        for ref in refs:
            ref = ref[k] if isinstance(ref, (list, tuple)) else ref
            case.assertEqual(len(dims), ref.ndim, f"{what}: output {k}'s declared rank")
            for i, d in enumerate(dims):
                if d is not None:
                    case.assertEqual(d, ref.shape[i], f"{what}: output {k} declares dim {i} = {d}, "
                                                      f"but at input shape it is {ref.shape[i]}")


def tolerance(ref):
    """Float arithmetic differs between eager and ONNX Runtime in the last bits of each
    op; bound the difference by the output's own scale."""
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    return 1e-4 * max(scale, 1e-6) + 1e-6


class DynamicSizes(unittest.TestCase):
    def run_case(self, name, opset):
        factory, shape, axes, _ = CASES[name]
        torch.manual_seed(0)
        model = factory().eval()
        x = torch.randn(shape)
        with tempfile.TemporaryDirectory(prefix="oxport-dyn-") as tmp:
            path = os.path.join(tmp, f"{name}.onnx")
            # Static sizes used in Python arithmetic (head_dim ** -0.5) warn that they
            # are fixed; the runs at other shapes below show whether that matters.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(model, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"],
                           dynamic_axes={"x": {a: f"d{a}" for a in axes}})
            onnxval.check(path)
            if name not in READS_NO_SIZE:
                # a dynamic axis reaches the sizes read: they stay computed in the file
                self.assertTrue(size_nodes(path), f"{name} opset {opset}: no Shape node with dynamic axes")
            g = torch.Generator().manual_seed(1)
            inputs = [x, torch.randn(shape, generator=g)]
            inputs += [torch.randn(s, generator=g) for s in other_shapes(shape, axes, name)]
            refs = []
            outs = onnxval.run_ort_many(path, [{"x": inp.numpy()} for inp in inputs])
            for inp, got in zip(inputs, outs):
                got = got[0]
                with torch.no_grad():
                    ref = model(inp).numpy()
                self.assertEqual(got.shape, ref.shape, f"{name} at {tuple(inp.shape)}")
                err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
                self.assertLessEqual(err, tolerance(ref), f"{name} opset {opset} at {tuple(inp.shape)}")
                refs.append(ref)
            # The reference itself must move with the input (not a constant model).
            self.assertFalse(np.allclose(refs[0], refs[1]), f"{name}: eager output ignores its input")
            assert_declared_dims_hold(self, path, refs, f"{name} opset {opset}")


def dims_read_at_run_time(path):
    """The dims of its input each Shape in the file is read at (Gather and Slice of its
    output, with constant indices), as a sorted list; a Shape read any other way counts
    as reading every dim (None)."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in m.graph.node
              if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value"}
    consts.update({t.name: numpy_helper.to_array(t) for t in m.graph.initializer})
    shapes = {n.output[0] for n in m.graph.node if n.op_type == "Shape"}
    read = set()
    for n in m.graph.node:
        if not n.input or n.input[0] not in shapes:
            continue
        if n.op_type == "Gather" and n.input[1] in consts:
            read.update(int(i) for i in np.atleast_1d(consts[n.input[1]]))
        elif n.op_type == "Slice" and len(n.input) >= 3 and all(i in consts for i in n.input[1:3]):
            read.update(range(int(consts[n.input[1]][0]), int(consts[n.input[2]][0])))
        else:
            read.add(None)
    return sorted(read, key=lambda d: -1 if d is None else d)


class KnownSizes(unittest.TestCase):
    """Sizes no dynamic axis reaches are folded (src/fold_known_sizes.c): with only the
    batch dynamic, x.shape's other dims become constants, and only dim 0 is read at run
    time; the file still follows the batch.  With another axis dynamic, that one is read
    too."""

    class SplitHeads(nn.Module):
        """Every size from x.shape: b, n and c // 2 (Heads without its Python float)."""

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            b, n, c = x.shape
            h = self.proj(x).view(b, n, 2, c // 2).transpose(1, 2)
            return (h.softmax(-1) * h.sum(2, keepdim=True)).transpose(1, 2).reshape(b, n, c)

    def test_head_split_reads_only_the_dynamic_dims(self):
        with tempfile.TemporaryDirectory(prefix="oxport-known-") as tmp:
            for opset in (9, 13, 17):
                path = os.path.join(tmp, f"heads{opset}.onnx")
                torch.manual_seed(0)
                model = self.SplitHeads().eval()
                oxt.export(model, (torch.randn(2, 5, 8),), path, opset_version=opset, input_names=["x"],
                           dynamic_axes={"x": {0: "b"}})
                self.assertEqual(dims_read_at_run_time(path), [0], f"opset {opset}")
                oxt.export(model, (torch.randn(2, 5, 8),), path, opset_version=opset, input_names=["x"],
                           dynamic_axes={"x": {0: "b", 1: "n"}})
                self.assertEqual(dims_read_at_run_time(path), [0, 1], f"opset {opset}")
        torch.manual_seed(0)
        follows_input_sizes(self, self.SplitHeads(), torch.randn(2, 5, 8), [0], [(1, 5, 8), (4, 5, 8)],
                            (9, 13, 17))
        follows_input_sizes(self, self.SplitHeads(), torch.randn(2, 5, 8), [0, 1], [(1, 3, 8), (4, 7, 8)], (13,))

    def test_pixel_shuffle_below_opset_11_keeps_the_width_only_where_it_varies(self):
        class Shuffle(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(2, 8, 3, padding=1)

            def forward(self, x):
                return F.pixel_shuffle(self.conv(x), 2)
        torch.manual_seed(0)
        with tempfile.TemporaryDirectory(prefix="oxport-known-") as tmp:
            path = os.path.join(tmp, "ps.onnx")
            oxt.export(Shuffle().eval(), (torch.randn(1, 2, 4, 5),), path, opset_version=10,
                       input_names=["x"], dynamic_axes={"x": {0: "b"}})
            self.assertEqual(dims_read_at_run_time(path), [])
            self.assertEqual(size_nodes(path), [])
        follows_input_sizes(self, Shuffle(), torch.randn(1, 2, 4, 5), [0], [(3, 2, 4, 5)], (9, 10))
        follows_input_sizes(self, Shuffle(), torch.randn(1, 2, 4, 5), [0, 2, 3], [(3, 2, 6, 3)], (9, 10))


class DeclaredDims(unittest.TestCase):
    """Outputs' declared dims under dynamic input axes: open where an axis reaches
    them, the traced size where none does (run_case checks the sizes declared hold)."""

    def declared(self, model, shape, axes, opset=13):
        with tempfile.TemporaryDirectory(prefix="oxport-dims-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(model.eval(), (torch.randn(shape),), path, opset_version=opset,
                           input_names=["x"], dynamic_axes={"x": {a: f"d{a}" for a in axes}})
            return declared_output_dims(path)

    def test_classifier_keeps_its_class_count(self):
        self.assertEqual(self.declared(Classifier(), (2, 2, 8, 8), [0, 2, 3]), [[None, 10]])

    def test_attention_scores_are_open_in_both_sequence_dims(self):
        class Scores(nn.Module):
            def forward(self, x):
                return (x @ x.transpose(1, 2)).softmax(-1)
        self.assertEqual(self.declared(Scores(), (2, 5, 4), [0, 1]), [[None, None, None]])
        self.assertEqual(self.declared(Scores(), (2, 5, 4), [1]), [[2, None, None]])

    def test_segmentation_head_keeps_its_class_count(self):
        class Seg(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 5, 3, stride=2)

            def forward(self, x):
                return F.interpolate(self.conv(x), size=x.shape[-2:], mode="bilinear",
                                     align_corners=False)
        self.assertEqual(self.declared(Seg(), (1, 3, 16, 16), [0, 2, 3]), [[None, 5, None, None]])

    def test_reshape_keeps_the_dims_its_minus_one_takes_from_fixed_ones(self):
        """Reshape's -1 over a dynamic batch that a 0 copies (x.flatten(2)) is the
        product of fixed dims: declared, and a conversion that reads it (adaptive
        pooling's bins) does not warn."""
        class Flat(nn.Module):
            def forward(self, x):
                return (x.flatten(2), F.adaptive_avg_pool1d(x.flatten(2), 4),
                        F.adaptive_avg_pool1d(x.flatten(1, 2), 4), x.reshape(-1, 5))
        def export(axes):
            with tempfile.TemporaryDirectory(prefix="oxport-dims-") as tmp, \
                    warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", oxt.TracerWarning)
                path = os.path.join(tmp, "m.onnx")
                oxt.export(Flat(), (torch.randn(2, 3, 2, 5),), path, input_names=["x"],
                           dynamic_axes={"x": {a: f"d{a}" for a in axes}})
                return declared_output_dims(path), [str(w.message) for w in caught]
        dims, said = export([0])
        self.assertEqual(said, [])
        self.assertEqual(dims, [[None, 3, 10], [None, 3, 4], [None, 6, 4], [None, 5]])
        # with a second dynamic axis the -1 takes a varying factor: open, and the poolings warn
        dims, said = export([0, 3])
        self.assertEqual(dims[0], [None, 3, None])
        self.assertEqual(len([m for m in said if "adaptive_avg_pool1d" in m]), 2, said)

    def test_no_dynamic_axis_declares_every_traced_size(self):
        self.assertEqual(self.declared(Classifier(), (2, 2, 8, 8), []), [[2, 10]])


class FixedCounts(unittest.TestCase):
    """A Python list's length is the traced size: unbind over a dynamic dim makes a file
    with that many pieces at every size, and the export says so (ox_context_warnings)."""

    def export_warnings(self, model, shape, axes, opset=None):
        with tempfile.TemporaryDirectory(prefix="oxport-counts-") as tmp, \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            oxt.export(model.eval(), (torch.randn(shape),), os.path.join(tmp, "m.onnx"), opset_version=opset,
                       input_names=["x"], dynamic_axes={"x": {a: f"d{a}" for a in axes}})
        return [str(w.message) for w in caught
                if "number of pieces" in str(w.message) or "its conversion read" in str(w.message)]

    def test_unbind_over_a_dynamic_dim_warns_naming_the_scope(self):
        class Rows(nn.Module):
            def forward(self, x):
                return torch.stack(x.unbind(1), 0)
        got = self.export_warnings(Rows(), (3, 5, 4), [1])
        self.assertEqual(len(got), 1, got)
        self.assertIn("Split at Rows: dim 1 of its input follows a dynamic axis", got[0])
        self.assertIn("the file makes 5 pieces at every size", got[0])

    def test_the_reports_carry_the_warnings(self):
        import json

        class Rows(nn.Module):
            def forward(self, x):
                return torch.stack(x.unbind(1), 0)
        with tempfile.TemporaryDirectory(prefix="oxport-counts-") as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore", oxt.TracerWarning)
            for name in ("r.json", "r.html"):
                oxt.export(Rows(), (torch.randn(3, 5, 4),), os.path.join(tmp, "m.onnx"), input_names=["x"],
                           dynamic_axes={"x": {1: "n"}}, report=os.path.join(tmp, name))
            with open(os.path.join(tmp, "r.json")) as f:
                got = json.load(f)["warnings"]
            with open(os.path.join(tmp, "r.html")) as f:
                page = f.read()
        self.assertEqual(len(got), 1, got)
        self.assertIn("Split at Rows: dim 1 of its input follows a dynamic axis", got[0])
        self.assertIn('<pre id="warnings">Split at Rows: dim 1', page)

    def test_unbind_over_a_fixed_dim_is_quiet(self):
        # attention's qkv.unbind(0) over 3, the sequence dim dynamic
        self.assertEqual(self.export_warnings(Heads(), (2, 5, 8), [0, 1]), [])
        # and a warning of one export is not repeated by the next
        class Rows(nn.Module):
            def forward(self, x):
                return torch.stack(x.unbind(1), 0)
        self.assertEqual(len(self.export_warnings(Rows(), (3, 5, 4), [1])), 1)
        self.assertEqual(self.export_warnings(Rows(), (3, 5, 4), [0]), [])


class SizeReads(unittest.TestCase):
    """A symbolic that reads a size (Tensor.unfold's window count) builds the example's
    value into the file; under a dynamic axis that reaches it, the export says so."""

    def test_unfold_over_a_dynamic_dim_warns(self):
        class Windows(nn.Module):
            def forward(self, x):
                return x.unfold(1, 2, 1).sum(-1)
        got = FixedCounts.export_warnings(self, Windows(), (2, 6, 3), [0, 1])
        self.assertEqual(len(got), 1, got)
        self.assertIn("aten::unfold at Windows: its conversion read dim 1 of a value as 6", got[0])
        # over a fixed dim the window table is right at every batch size: quiet
        class Fixed(nn.Module):
            def forward(self, x):
                return x.unfold(2, 2, 1).sum(-1)
        self.assertEqual(FixedCounts.export_warnings(self, Fixed(), (2, 6, 3), [0, 1]), [])

    def test_conv_with_a_weight_the_dynamic_axes_reach_warns(self):
        class SelfCorrelation(nn.Module):
            def forward(self, x):
                return F.conv2d(x, x[:1])  # the kernel is the first image, as large as x
        got = FixedCounts.export_warnings(self, SelfCorrelation(), (2, 3, 5, 4), [0, 2, 3])
        self.assertEqual(len(got), 1, got)
        self.assertIn("its conversion read dim 2 of a value as 5", got[0])
        # a parameter's kernel is the same at every input size: quiet
        self.assertEqual(FixedCounts.export_warnings(self, nn.Conv2d(3, 4, 3), (2, 3, 5, 4), [0, 2, 3]), [])

    def test_roll_warns_only_where_it_takes_the_shift_modulo_the_recorded_size(self):
        class Roll(nn.Module):
            def __init__(self, shift):
                super().__init__()
                self.shift = shift

            def forward(self, x):
                return x.roll(self.shift, 1)
        # a shift of 1 or 2 is two slices at -shift: right at any size
        for opset in (9, 13):
            self.assertEqual(FixedCounts.export_warnings(self, Roll(2), (2, 5), [1], opset=opset), [])
        # another is taken modulo the run-time size from opset 10 (Slice's bounds are
        # inputs there; OpsOverDynamicDims.test_roll_by_more_than_the_example_size and
        # test_roll_by_three_or_more), and modulo the example's size below it, with a warning
        for shift in (7, 3):
            self.assertEqual(FixedCounts.export_warnings(self, Roll(shift), (2, 5), [1], opset=10), [])
            got = FixedCounts.export_warnings(self, Roll(shift), (2, 5), [1], opset=9)
            self.assertEqual(len(got), 1, got)
            self.assertIn("aten::roll at Roll: its conversion read dim 1 of a value as 5", got[0])


def follows_input_sizes(case, model, x, axes, shapes, opsets, make=None, fake=True):
    """Export `model` at `x` with `axes` of input x dynamic, with no TracerWarning at all
    (nothing is fixed to the example) and the same file from trace='fake' (unless `fake`
    is False: a model whose shapes depend on values, which trace='fake' refuses), then
    run the file in ONNX Runtime at the example, on other values of its shape and at each
    of `shapes`, against eager (values, shapes and dtypes).  `make(shape, generator)`
    draws an input (default: randn)."""
    make = make or (lambda shape, g: torch.randn(shape, generator=g))
    model = model.eval()
    g = torch.Generator().manual_seed(11)
    inputs = [x, make(tuple(x.shape), g)] + [make(s, g) for s in shapes]
    with torch.no_grad():
        refs = [model(inp) for inp in inputs]
    refs = [[r.numpy() for r in (ref if isinstance(ref, tuple) else (ref,))] for ref in refs]
    case.assertFalse(np.array_equal(refs[0][0], refs[1][0]), "eager output ignores its input")
    for opset in opsets:
        with tempfile.TemporaryDirectory(prefix="oxport-sizes-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                oxt.export(model, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"],
                           dynamic_axes={"x": {a: f"d{a}" for a in axes}})
            said = [str(w.message) for w in caught if issubclass(w.category, oxt.TracerWarning)]
            case.assertEqual(said, [], f"opset {opset}: a value was fixed to the example")
            onnxval.check(path)
            # trace='fake' (the forward on the meta device) writes the same file
            if fake:
                fake_path = os.path.join(tmp, "fake.onnx")
                oxt.export(model, (x,), fake_path, opset_version=opset, input_names=["x"], output_names=["y"],
                           dynamic_axes={"x": {a: f"d{a}" for a in axes}}, trace="fake")
                with open(path, "rb") as f1, open(fake_path, "rb") as f2:
                    case.assertTrue(f1.read() == f2.read(), f"opset {opset}: trace='fake' wrote another file")
            outs = onnxval.run_ort_many(path, [{"x": inp.numpy()} for inp in inputs])
            for inp, want, gots in zip(inputs, refs, outs):
                case.assertEqual(len(gots), len(want))
                for k, (ref, got) in enumerate(zip(want, gots)):
                    where = f"opset {opset} at {tuple(inp.shape)}, output {k}"
                    case.assertEqual(got.dtype, ref.dtype, where)
                    case.assertEqual(got.shape, ref.shape, where)
                    if ref.dtype.kind in "fc":
                        err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
                        # float16 rounds at 1e-3: one rounding more or less on either side
                        tol = tolerance(ref) if ref.dtype != np.float16 else 2e-3 * float(np.max(np.abs(ref)))
                        case.assertLessEqual(err, tol, where)
                    else:
                        np.testing.assert_array_equal(got, ref, err_msg=where)


class SizeArithmetic(nn.Module):
    """Sizes read in Python meeting a traced tensor in arithmetic, in both orders."""

    def forward(self, x):
        b, n = x.shape
        y = b * x - x / n + (x + n) + (b - x) + n / (x.abs() + 1)
        y = y + (n + x) * x.size(0) + b // (x.abs() + 0.5) + x % n + n % (x.abs() + 1)
        return y + x // b + x.sigmoid() ** b + n ** x.tanh()


class SizeIntArithmetic(nn.Module):
    """The same with integer tensors: the result keeps the tensor's integer type (a 0-d
    int32 tensor too), true division gives floats, a float16 tensor stays float16."""

    def forward(self, x):
        b, n = x.shape
        t = (x * 10).long()
        y = b * t - t // n + (t + n) + (b - t) + n % (t.abs() + 1) + t % b + (t > 0) * n
        z = (t[0, 0].int() * b - n) * (b - t.sum().int())
        return y + t.abs() ** b, z, t / n + b / (t.abs() + 1), x.half() * b - n


class SizeWithConstant(nn.Module):
    """Sizes meeting tensors the forward makes (constants of the file)."""

    def forward(self, x):
        c = torch.tensor([1.0, 2.0, 3.0])
        k = torch.arange(3)
        return x * (c * x.size(0)) + (x.size(0) - c) / x.size(0) + (x.size(0) + k) * x + x.size(0) ** (c / 4)


class SizeAsTensor(nn.Module):
    """Sizes made tensors: torch.tensor, torch.full / full_like / new_full and fill_ with a
    size as the value (int64 unless a dtype says otherwise)."""

    def forward(self, x):
        b, n = x.shape
        y = x * torch.tensor(b) + torch.tensor(n, dtype=torch.float32) + torch.scalar_tensor(b)
        y = y + torch.full((), b) * torch.full((1, 1), n, dtype=torch.float32) + torch.full_like(x, n)
        y = y + x.new_full((1, n), b) + torch.empty(()).fill_(b) + torch.zeros(1, n).fill_(n)
        return y, torch.full((2,), n), torch.full_like(x, b, dtype=torch.int32)


class Kron(nn.Module):
    """torch.kron of an input with a constant, with itself and with another rank."""

    def forward(self, x):
        return (torch.kron(x, torch.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]])), torch.kron(x[0], x),
                torch.kron(torch.tensor([[1, -1]]), (x * 4).long()))


class CartesianProd(nn.Module):
    """torch.cartesian_prod of two and three vectors of dynamic length."""

    def forward(self, x):
        return torch.cartesian_prod(x[0], x[1]), torch.cartesian_prod(x[1], torch.tensor([1.0, 2.0]), x[0] * 2)


class PixelUnshuffle(nn.Module):
    """F.pixel_unshuffle / nn.PixelUnshuffle over dynamic batch, channels, height, width."""

    def __init__(self):
        super().__init__()
        self.down = nn.PixelUnshuffle(2)

    def forward(self, x):
        return self.down(x), F.pixel_unshuffle((x * 4).long(), 2)


class RollLong(nn.Module):
    """torch.roll by shifts at least as long as the example's dims (7 and -9 over 5 and 2)."""

    def forward(self, x):
        return x.roll(7, 1) - torch.roll(x, (-9, 5), (0, 1)), torch.roll((x * 4).long(), -5, -1)


class Sort(nn.Module):
    """sort, argsort and a descending sort over dims a dynamic axis reaches: TopK's k is
    the run-time size from opset 10."""

    def forward(self, x):
        v, i = torch.sort(x, dim=-1, descending=True)
        return v, i, torch.argsort(x, dim=0), torch.sort(x, dim=0).values * 2


class SizedArguments(nn.Module):
    """Sizes of a dim no dynamic axis reaches passed where an operator takes constants
    (unfold's window, topk's k at opset 9, tril's diagonal): right at every batch size."""

    def __init__(self, tril):
        super().__init__()
        self.tril = tril

    def forward(self, x):
        n = x.size(1)
        y = x.unfold(1, n // 2 + 1, 1).sum(-1) + x.topk(n // 2)[0]
        return y * 2 if not self.tril else (y, x.tril(n // 4 - 3))


class RollShort(nn.Module):
    """torch.roll by shifts shorter than the example's dims (8) but longer than sizes the
    file meets at run time (2, 3): two slices at -3 would leave a size of 2 unrolled."""

    def forward(self, x):
        return x.roll(3, 1) * 2 - torch.roll(x, -4, 1) + x.roll((5, 2), (0, 1))


class SizeMaskedFill(nn.Module):
    """Sizes read in Python as masked_fill's value, on float and integer tensors (the
    result keeps the tensor's type), by the method, the function and in place."""

    def forward(self, x):
        b, n = x.shape
        y = x.masked_fill(x > 0, n) + torch.masked_fill(x, x < -0.5, b * 2)
        k = (x * 10).to(torch.int32).masked_fill(x < 0, n)
        z = x.clone()
        z.masked_fill_(x.abs() < 0.3, x.size(0))
        return y + k + z


class SizeCompare(nn.Module):
    """Sizes read in Python compared with tensors: a position mask from arange, each
    operator as method, function and operator, an int32 tensor, a constant tensor."""

    def forward(self, x):
        b, n = x.shape
        pos = torch.arange(n)
        keep = (pos < n - 1) & torch.ge(pos, n // 3) & pos.le(n - 1) & (n - 2 > pos) | pos.eq(b)
        k = (x * 4).to(torch.int32)
        ints = (k.gt(b) * 1 + (k != n) * 2 + torch.ne(k, b) * 4 + (torch.tensor([0, 1, 2, 3]).lt(b).sum()))
        return x * keep, ints


class SizeClamp(nn.Module):
    """Sizes read in Python as clamp's bounds: one or both, by keyword, positionally, by
    clamp_min/clamp_max/clip and in place, on float and integer tensors (the result keeps
    the tensor's type)."""

    def forward(self, x):
        b, n = x.shape
        y = (x * n).clamp(max=n) + (x * b).clamp(min=-b) + torch.clamp(x * n, 0, n)
        y = y + torch.clamp(x * b, -1.5, b) + (x * n).clamp_min(n - 2) + torch.clamp_max(x * 9, b)
        k = (x * 10).to(torch.int32).clamp(-n, b)
        z = x * 10
        z.clamp_(max=n)
        return y + k + z.clip(min=-n)


class SizeIndexFill(nn.Module):
    """Sizes read in Python as index_fill's value, on float and integer tensors, by the
    method, the function and in place."""

    def forward(self, x):
        b, n = x.shape
        i = torch.tensor([0])
        y = x.index_fill(1, i, n) + torch.index_fill(x, 0, i, b)
        k = (x * 10).to(torch.int32).index_fill(1, i, n)
        z = x.clone()
        z.index_fill_(1, i, x.size(0))
        return y + k + z


class SizeSetItem(nn.Module):
    """Sizes read in Python written into a tensor: by a basic key (a fill of the view)
    and by index tensors (index_put), on float and integer tensors, through masks of
    rank 1 and 2, alone and after a slice."""

    def forward(self, x):
        b, n = x.shape
        y = x * 1
        y[..., torch.tensor([0])] = n
        y[:, 1:2] = b
        y[x[:, 0] > 0.5] = x.size(0) + 1
        y[x < -0.5] = n
        k = (x * 10).to(torch.int32)
        k[torch.tensor([0]), ...] = n
        k[x > 1.0] = b
        z = x.unsqueeze(0).repeat(2, 1, 1)
        z[:, x < 0] = b
        return y + k + z.sum(0)


class MaskReadWithTracedBounds(nn.Module):
    """Rank-2 masks after a slice whose bound is a traced size, read and written, and
    after an Ellipsis (which spans the dims left after both of the mask's)."""

    def forward(self, x):
        b = x.size(0)
        picked = x[: b - 1, x[0] > 0]
        y = x.clone()
        y[1:b, x[-1] < 0] = 0.5
        return picked.sum(1) * 2 + y[: b - 1].sum((1, 2)) + x[..., x[0] > 0.5].sum(-1)[: b - 1]


class SizedOpsOnConstants(nn.Module):
    """Traced sizes given to ops on tensors the input does not reach: a non-persistent
    buffer (a constant of the file) expanded to the batch, as rotary embeddings do
    (`inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)`), a constant sliced,
    repeated, tiled, narrowed, rolled and unflattened by sizes, new_zeros of a constant."""

    def __init__(self):
        super().__init__()
        self.register_buffer("inv_freq", torch.linspace(0.5, 2.0, 4), persistent=False)
        self.register_buffer("table", torch.randn(1, 9), persistent=False)

    def forward(self, x):
        b, n = x.shape
        freqs = self.inv_freq[None, :, None].float().expand(b, -1, 1) @ x[:, None, :]   # [b, 4, n]
        table = self.table[:, : n + 1] - self.table[:, 1:].narrow(1, 0, n + 1)          # [1, n + 1]
        rows = table.repeat(b, 1)[:, 1:] + table.tile((b, 1))[:, :n] + self.table.roll(n, 1)[:, :n]
        unfl = torch.arange(2 * b).float().unflatten(0, (b, 2)).sum(1, keepdim=True)    # [b, 1]
        return freqs.sum(1) + rows * x + unfl + self.table.new_zeros(b, n)


class SizesMeetTensors(unittest.TestCase):
    """A size read in Python combined with a tensor (`x.size(0) * t`, `t / x.shape[-1]`,
    `n - t`) is recorded on the size's rank-0 value, so the file computes with the
    input's size (torch.onnx's trace holds sizes as 0-d tensors); before, Python computed
    the example's number and the file held it, with a warning."""

    def test_float_tensor_both_orders(self):
        follows_input_sizes(self, SizeArithmetic(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_integer_tensors_keep_their_type(self):
        follows_input_sizes(self, SizeIntArithmetic(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_constant_tensor(self):
        follows_input_sizes(self, SizeWithConstant(), torch.randn(4, 3), [0],
                            [(1, 3), (7, 3)], (9, 13, 17))

    def test_sizes_made_tensors(self):
        follows_input_sizes(self, SizeAsTensor(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_sized_ops_on_constants(self):
        # before, each op on a constant passed the example's sizes, with a warning (and the
        # slice of a constant by a traced bound without one)
        follows_input_sizes(self, SizedOpsOnConstants(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 7), (2, 3)], (11, 13, 17))

    def test_masked_fill_value(self):
        follows_input_sizes(self, SizeMaskedFill(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_comparisons(self):
        # a comparison with a size passed the plain int: fixed to the example, with a warning
        follows_input_sizes(self, SizeCompare(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_clamp_bounds(self):
        follows_input_sizes(self, SizeClamp(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 11, 13, 17))

    def test_index_fill_value(self):
        follows_input_sizes(self, SizeIndexFill(), torch.randn(3, 4), [0, 1],
                            [(1, 1), (6, 9), (2, 3)], (9, 13, 17))

    def test_setitem_value(self):
        follows_input_sizes(self, SizeSetItem(), torch.randn(3, 4), [0, 1],
                            [(1, 2), (6, 9), (2, 3)], (11, 13, 17))

    def test_mask_of_rank_two_with_traced_bounds(self):
        # reading x[mask] has a shape that depends on values: trace='fake' refuses it
        follows_input_sizes(self, MaskReadWithTracedBounds(), torch.randn(3, 4, 5), [0, 1, 2],
                            [(2, 2, 2), (6, 9, 4), (2, 3, 7)], (11, 13, 17), fake=False)


class OpsOverDynamicDims(unittest.TestCase):
    """Operators whose ATen form (or whose conversion) used the example's sizes of a dim
    a dynamic axis reaches: the file now computes those sizes from the input."""

    def test_kron(self):
        # ATen's kron views both operands with the example's sizes (_unsafe_view)
        follows_input_sizes(self, Kron(), torch.randn(3, 4), [0, 1], [(1, 1), (5, 2), (2, 6)], (9, 13, 17))

    def test_cartesian_prod(self):
        # ATen flattens the meshgrid's grids with the example's sizes
        follows_input_sizes(self, CartesianProd(), torch.randn(2, 4), [1], [(2, 1), (2, 7)], (9, 13, 17))

    def test_roll_by_more_than_the_example_size(self):
        # the shift was taken modulo the example's size
        follows_input_sizes(self, RollLong(), torch.randn(2, 5), [0, 1],
                            [(1, 1), (3, 8), (4, 2), (5, 3), (2, 7)], (10, 13, 17))

    def test_roll_by_three_or_more(self):
        # two slices at -k are right only while the run-time size is larger than k
        follows_input_sizes(self, RollShort(), torch.randn(8, 8), [0, 1],
                            [(2, 2), (3, 3), (1, 5), (6, 11), (8, 8)], (10, 13, 17))
        # with fixed sizes the run-time modulo folds into constants
        with tempfile.TemporaryDirectory(prefix="oxport-sizes-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            oxt.export(RollShort(), (torch.randn(8, 8),), path, opset_version=13)
            self.assertEqual(size_nodes(path), [])

    def test_slice_bounds_from_a_fixed_dim_below_opset_10(self):
        # Slice's bounds are attributes before opset 10, so a bound computed from a size is
        # fixed: quiet (and right at every batch) when no dynamic axis reaches that size
        follows_input_sizes(self, HalfSlice(), torch.randn(2, 6), [0], [(1, 6), (5, 6)], (9,))

    def test_sizes_of_fixed_dims_as_constant_arguments(self):
        # such a size warned that the file was fixed to the example, although only the
        # batch is dynamic and the file is right at every batch size
        follows_input_sizes(self, SizedArguments(False), torch.randn(3, 8), [0], [(1, 8), (6, 8)], (9, 13, 17))
        follows_input_sizes(self, SizedArguments(True), torch.randn(3, 8), [0], [(1, 8), (6, 8)], (11, 17))

    def test_sort_and_argsort(self):
        # the conversion read the example's size for TopK's k at every opset, which warned
        # although k was the run-time size from opset 10
        follows_input_sizes(self, Sort(), torch.randn(3, 5), [0, 1], [(1, 1), (6, 8), (4, 2)], (10, 13, 17))

    def test_pixel_unshuffle(self):
        # its conversion built the example's channel and spatial sizes into Reshape targets
        follows_input_sizes(self, PixelUnshuffle(), torch.randn(1, 3, 4, 6), [0, 1, 2, 3],
                            [(1, 1, 2, 2), (3, 2, 8, 10), (2, 5, 6, 4)], (9, 13, 17))
        # with no dynamic axis the sizes the conversion computes fold into constants
        with tempfile.TemporaryDirectory(prefix="oxport-sizes-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            oxt.export(PixelUnshuffle(), (torch.randn(1, 3, 4, 6),), path, opset_version=13)
            self.assertEqual(size_nodes(path), [])


class MaskedSize(nn.Module):
    """A size of x[mask]: it depends on x's values, not on its shape."""

    def forward(self, x):
        y = x[x > 0]
        return y * y.size(0)


class StaticSizes(unittest.TestCase):
    """No dynamic axes: the file runs only at the example's shapes (ONNX Runtime refuses
    other dims), so every size read in Python is a constant and its Shape chain folds."""

    def test_size_of_a_data_dependent_shape_stays(self):
        model = MaskedSize()
        x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]])  # 4 positives
        x2 = torch.tensor([[-1.0, -2.0, 3.0], [-4.0, -5.0, 6.0]])  # 2 positives
        with tempfile.TemporaryDirectory(prefix="oxport-static-") as tmp:
            path = os.path.join(tmp, "masked.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(model, (x,), path, opset_version=13, input_names=["x"])
            self.assertIn("Shape", size_nodes(path))
            outs = onnxval.run_ort_many(path, [{"x": x.numpy()}, {"x": x2.numpy()}])
            for inp, got in zip((x, x2), outs):
                ref = model(inp).numpy()
                # a traced size pinned anywhere in the file (value_info too) gives 4 * y here
                np.testing.assert_allclose(got[0], ref, rtol=1e-6)

    def run_case(self, name, opset):
        factory, shape, _axes, _ = CASES[name]
        torch.manual_seed(0)
        model = factory().eval()
        x = torch.randn(shape)
        with tempfile.TemporaryDirectory(prefix="oxport-static-") as tmp:
            path = os.path.join(tmp, f"{name}.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(model, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"])
            onnxval.check(path)
            self.assertEqual(size_nodes(path), [], f"{name} opset {opset}: sizes left computed")
            inputs = [x, torch.randn(shape, generator=torch.Generator().manual_seed(1))]
            outs = onnxval.run_ort_many(path, [{"x": inp.numpy()} for inp in inputs])
            refs = []
            for inp, got in zip(inputs, outs):
                with torch.no_grad():
                    ref = model(inp).numpy()
                self.assertEqual(got[0].shape, ref.shape, name)
                err = float(np.max(np.abs(got[0] - ref))) if ref.size else 0.0
                self.assertLessEqual(err, tolerance(ref), f"{name} opset {opset}")
                refs.append(ref)
            self.assertFalse(np.allclose(refs[0], refs[1]), f"{name}: eager output ignores its input")


class DecoderLM(unittest.TestCase):
    """A LLaMA-style decoder (rotary positions from arange(s), a triu causal mask, head
    reshapes from x.shape) with dynamic batch and sequence length."""

    def test_decoder_dynamic_batch_and_sequence(self):
        torch.manual_seed(0)
        model = Decoder(vocab=97, dim=32, layers=2, heads=4).eval()
        g = torch.Generator().manual_seed(2)
        tokens = torch.randint(0, 97, (2, 7), generator=g)
        with tempfile.TemporaryDirectory(prefix="oxport-dyn-") as tmp:
            path = os.path.join(tmp, "decoder.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(model, (tokens,), path, opset_version=17, input_names=["tokens"],
                           dynamic_axes={"tokens": {0: "batch", 1: "seq"}})
            onnxval.check(path)
            shapes = [(2, 7), (2, 7), (1, 1), (3, 12), (1, 5)]
            toks = [tokens if i == 0 else torch.randint(0, 97, shape, generator=g) for i, shape in enumerate(shapes)]
            outs = onnxval.run_ort_many(path, [{"tokens": t.numpy()} for t in toks])
            for t, shape, got in zip(toks, shapes, outs):
                got = got[0]
                with torch.no_grad():
                    ref = model(t).numpy()
                self.assertEqual(got.shape, ref.shape)
                self.assertLessEqual(float(np.max(np.abs(got - ref))), tolerance(ref), f"at {shape}")
                self.assertGreater(float(np.std(ref)), 1e-3)


def _make(name, opset):
    return lambda self: self.run_case(name, opset)


for _name, (_f, _s, _a, _opsets) in CASES.items():
    for _o in _opsets:
        setattr(DynamicSizes, f"test_{_name}_opset{_o}", _make(_name, _o))
        setattr(StaticSizes, f"test_{_name}_opset{_o}", _make(_name, _o))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
