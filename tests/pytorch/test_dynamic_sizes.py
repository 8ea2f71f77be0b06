#!/usr/bin/python3
"""Small models that read their input's sizes, exported with dynamic axes and run at other
shapes: the file must compute what the model computes at every shape the axes allow.

    /usr/bin/python3 tests/pytorch/test_dynamic_sizes.py [unittest args]

Each case is traced at one size (batch 2, sequence 5, 6x6 images ...) and run in ONNX
Runtime at three others, including size 1 and a larger one, against eager PyTorch under
tests/py/modelcheck.py's rule.  A file that baked a size read from the example into a
Reshape/Expand/Slice/Range fails here (issue 8, "sizes as traced values").
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

OPSET = 13


class FlattenView(nn.Module):
    """x.view(x.size(0), -1) before a Linear."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 4)

    def forward(self, x):  # [b, 3, 4]
        return self.fc(x.view(x.size(0), -1))


class Heads(nn.Module):
    """Self-attention with the head split and merge as reshapes of the traced sizes."""
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):  # [b, l, 8]
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5).softmax(-1)
        return (att @ v).transpose(1, 2).reshape(b, n, c)


class CausalHeads(Heads):
    """The same with a causal mask built from the sequence length."""
    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        att = (q @ k.transpose(-2, -1)).masked_fill(mask, float("-inf")).softmax(-1)
        return (att @ v).transpose(1, 2).reshape(b, n, c)


class Positions(nn.Module):
    """Learned positions picked with torch.arange(x.size(1))."""
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(16, 8)

    def forward(self, x):  # [b, l, 8]
        return x + self.pos(torch.arange(x.size(1)))


class ZerosCat(nn.Module):
    """torch.zeros(x.size(0), k) concatenated to the input."""
    def forward(self, x):  # [b, 6]
        return torch.cat([x, torch.zeros(x.size(0), 3)], 1) * 2


class ClsToken(nn.Module):
    """A class token expanded to the batch (ViT): expand(x.size(0), -1, -1)."""
    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.randn(1, 1, 8))

    def forward(self, x):  # [b, l, 8]
        return torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1)


class HalfSlice(nn.Module):
    """x[:, :x.size(1) // 2] — a slice bound computed from a size."""
    def forward(self, x):  # [b, l]
        return x[:, : x.size(1) // 2] * 3


class MeanByNumel(nn.Module):
    """x / x.numel()."""
    def forward(self, x):  # [b, 6]
        return x.sum() / x.numel() + x


class Upsample2x(nn.Module):
    """F.interpolate to twice the traced height and width."""
    def forward(self, x):  # [b, 2, h, w]
        h, w = x.shape[2:]
        return F.interpolate(x, size=(2 * h, 2 * w), mode="nearest")


class PadToMultiple(nn.Module):
    """F.pad the width up to a multiple of 4."""
    def forward(self, x):  # [b, 2, h, w]
        return F.pad(x, (0, (-x.size(3)) % 4)) + 1


class Encoder(nn.Module):
    """nn.TransformerEncoder, batch first."""
    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)

    def forward(self, x):  # [b, l, 8]
        return self.enc(x)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2)

    def forward(self, x):  # [l, b, 4]
        return self.lstm(x)[0]


def seq(b, n):
    return (b, n, 8)


# name -> (module class, input shape from the sizes, axes of x, axes of y, traced sizes, run sizes)
CASES = {
    "flatten_view": (FlattenView, lambda s: (s["b"], 3, 4), {0: "b"}, {0: "b"},
                     {"b": 2}, [{"b": 1}, {"b": 3}, {"b": 5}]),
    "attention_heads": (Heads, lambda s: seq(s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "l"},
                        {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
    "causal_attention": (CausalHeads, lambda s: seq(s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "l"},
                         {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
    "arange_positions": (Positions, lambda s: seq(s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "l"},
                         {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
    "zeros_of_batch": (ZerosCat, lambda s: (s["b"], 6), {0: "b"}, {0: "b"},
                       {"b": 2}, [{"b": 1}, {"b": 3}, {"b": 5}]),
    "cls_token_expand": (ClsToken, lambda s: seq(s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "l1"},
                         {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
    "half_slice": (HalfSlice, lambda s: (s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "half"},
                   {"b": 2, "l": 6}, [{"b": 1, "l": 2}, {"b": 3, "l": 4}, {"b": 5, "l": 10}]),
    "divide_by_numel": (MeanByNumel, lambda s: (s["b"], 6), {0: "b"}, {0: "b"},
                        {"b": 2}, [{"b": 1}, {"b": 3}, {"b": 5}]),
    "interpolate_size": (Upsample2x, lambda s: (s["b"], 2, s["h"], s["w"]), {0: "b", 2: "h", 3: "w"},
                         {0: "b", 2: "h2", 3: "w2"}, {"b": 2, "h": 6, "w": 6},
                         [{"b": 1, "h": 1, "w": 1}, {"b": 3, "h": 4, "w": 7}, {"b": 5, "h": 9, "w": 8}]),
    "pad_to_multiple": (PadToMultiple, lambda s: (s["b"], 2, s["h"], s["w"]), {0: "b", 2: "h", 3: "w"},
                        {0: "b", 2: "h", 3: "w4"}, {"b": 2, "h": 3, "w": 6},
                        [{"b": 1, "h": 1, "w": 1}, {"b": 3, "h": 4, "w": 8}, {"b": 5, "h": 6, "w": 11}]),
    "transformer_encoder": (Encoder, lambda s: seq(s["b"], s["l"]), {0: "b", 1: "l"}, {0: "b", 1: "l"},
                            {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
    "lstm": (Lstm, lambda s: (s["l"], s["b"], 4), {0: "l", 1: "b"}, {0: "l", 1: "b"},
             {"b": 2, "l": 5}, [{"b": 1, "l": 1}, {"b": 3, "l": 4}, {"b": 5, "l": 9}]),
}


class DynamicSizes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="oxport-dynamic-")

    def tearDown(self):
        self.tmp.cleanup()

    def run_case(self, name):
        cls, shape, x_axes, y_axes, traced, runs = CASES[name]
        torch.manual_seed(0)
        model = cls().eval()
        g = torch.Generator().manual_seed(0)
        example = torch.randn(shape(traced), generator=g)
        path = os.path.join(self.tmp.name, f"{name}.onnx")
        axes = {"x": x_axes, "y": y_axes}
        oxt.export(model, (example,), path, opset_version=OPSET, input_names=["x"], output_names=["y"],
                   dynamic_axes=axes)
        onnxval.check(path)
        m = onnx.load(path, load_external_data=False)
        for value, want in ((m.graph.input[0], x_axes), (m.graph.output[0], y_axes)):
            dims = value.type.tensor_type.shape.dim
            self.assertEqual({a: dims[a].dim_param for a in want}, want)
        g = torch.Generator().manual_seed(1)
        xs = [torch.randn(shape(sizes), generator=g) for sizes in runs]
        with torch.no_grad():
            wants = [[model(x).numpy()] for x in xs]
        for sizes, w in zip(runs, wants):
            print(f"{name}: run at {sizes}, output {list(w[0].shape)}")
        modelcheck.assert_nontrivial(name, wants)
        modelcheck.assert_matches(name, path, [{"x": x.numpy()} for x in xs], wants,
                                  modelcheck.torch_onnx_reference(model, (example,), OPSET, ["x"], ["y"], axes))


for _name in CASES:
    setattr(DynamicSizes, f"test_{_name}", (lambda n: lambda self: self.run_case(n))(_name))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
