#!/usr/bin/python3
"""What a trace keeps and what it says when it cannot: every use of a traced value that
becomes a Python constant warns (TracerWarning naming the call site and module scope);
everything else is recorded, so the file follows a second input.

    /usr/bin/python3 tests/pytorch/test_trace_fidelity.py [unittest args]
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

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Outer(nn.Module):
    """A submodule, so the scope in the warning has a path."""

    def __init__(self, fn):
        super().__init__()
        self.inner = Lambda(fn)

    def forward(self, x):
        return self.inner(x)


def export_warnings(model, x, opset=13, **kw):
    with tempfile.TemporaryDirectory(prefix="oxport-fid-") as tmp:
        path = os.path.join(tmp, "m.onnx")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            oxt.export(model, (x,), path, opset_version=opset, input_names=["x"], **kw)
        msgs = [str(m.message) for m in w if issubclass(m.category, oxt.TracerWarning)]
        return msgs


def matches_eager(test, model, shape, opset=13, dynamic=None):
    """Export at one input, compare ORT with eager on it and on a second input."""
    g = torch.Generator().manual_seed(3)
    x1, x2 = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
    with tempfile.TemporaryDirectory(prefix="oxport-fid-") as tmp:
        path = os.path.join(tmp, "m.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("error", oxt.TracerWarning)
            oxt.export(model, (x1,), path, opset_version=opset, input_names=["x"],
                       dynamic_axes={"x": dynamic} if dynamic else None)
        onnxval.check(path)
        for x in (x1, x2):
            with torch.no_grad():
                ref = model(x).numpy()
            got = onnxval.run_ort(path, {"x": x.numpy()})[0]
            scale = max(float(np.max(np.abs(ref))), 1e-6)
            test.assertLessEqual(float(np.max(np.abs(got - ref))), 1e-4 * scale + 1e-6)


def follows_second_input(test, exported, eager_model, shape):
    """A module torch.jit compiled (warnings about it ignored): ORT matches eager on the
    example and on a second input."""
    g = torch.Generator().manual_seed(5)
    x1, x2 = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", oxt.TracerWarning)
        path = os.path.join(tmp, "m.onnx")
        oxt.export(exported, (x1,), path, opset_version=13, input_names=["x"])
        for x in (x1, x2):
            got = onnxval.run_ort(path, {"x": x.numpy()})[0]
            np.testing.assert_allclose(got, eager_model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def every_dim_dynamic(shape):
    return {"x": {i: f"d{i}" for i in range(len(shape))}}


class Warnings(unittest.TestCase):
    """Each construct a trace cannot keep warns once, naming this file's line and the scope,
    where what it fixes can differ on another run (here every input dim is dynamic)."""

    def assert_warns(self, fn, fragment, shape=(3, 4)):
        msgs = export_warnings(Outer(fn), torch.randn(shape), dynamic_axes=every_dim_dynamic(shape))
        hits = [m for m in msgs if fragment in m]
        self.assertTrue(hits, f"no TracerWarning containing {fragment!r}; got {msgs}")
        self.assertIn("test_trace_fidelity.py:", hits[0])
        self.assertIn("Outer/Lambda[inner]", hits[0])
        self.assertIn("fixed to this input's value", hits[0])

    def test_int_of_a_size(self):
        self.assert_warns(lambda x: x.view(int(x.size(0)), -1), "int() on a traced size")

    def test_float_of_a_size(self):
        self.assert_warns(lambda x: x * float(x.size(0)), "float() on a traced size")

    def test_branch_on_a_size(self):
        self.assert_warns(lambda x: x * 2 if x.size(0) > 1 else x, "compared in Python")

    def test_float_arithmetic_on_a_size(self):
        self.assert_warns(lambda x: x * (x.size(1) ** -0.5), "pow of a traced size")

    def test_item(self):
        self.assert_warns(lambda x: x * x.sum().item(), "item() on a traced tensor")

    def test_tolist(self):
        self.assert_warns(lambda x: x * x[0, 0].tolist(), "tolist() on a traced tensor")

    def test_len(self):
        self.assert_warns(lambda x: x * len(x), "len() of a traced tensor")

    def test_size_into_a_call_that_takes_constants(self):
        # max_pool2d's kernel size is an attribute of the file.
        self.assert_warns(lambda x: nn.functional.max_pool2d(x, x.size(3)), "int() on a traced size",
                          shape=(1, 1, 4, 4))

    def test_scripted_module_says_how_to_keep_sizes(self):
        m = torch.jit.script(nn.Sequential(nn.Linear(4, 3), nn.ReLU()))
        msgs = export_warnings(m, torch.randn(2, 4))
        self.assertTrue(any("ScriptModule" in s and "eager nn.Module" in s for s in msgs), msgs)

    def test_traced_slice_bound_below_opset_10(self):
        fn = Outer(lambda x: x[:, : x.size(1) // 2])
        msgs = export_warnings(fn, torch.randn(2, 6), opset=9, dynamic_axes={"x": {1: "n"}})
        self.assertTrue(any("argument 'end' computed from traced sizes" in m and "from opset 10" in m
                            and "at opset 9" in m for m in msgs), msgs)
        # With no dynamic axes the file's input shapes fix every size: nothing to say.
        self.assertEqual(export_warnings(fn, torch.randn(2, 6), opset=9), [])

    def test_a_torchvision_line_is_the_call_site(self):
        # torchvision's code is the model's, though its directory name begins with torch's:
        # a size compared there is named by torchvision's own file and line.
        import torchvision
        vit = torchvision.models.VisionTransformer(image_size=32, patch_size=16, num_layers=1, num_heads=2,
                                                   hidden_dim=8, mlp_dim=16, num_classes=3).eval()
        # (its check of the image's height against image_size, with the height dynamic)
        msgs = export_warnings(vit, torch.randn(2, 3, 32, 32), dynamic_axes={"x": {0: "b", 2: "h"}})
        hits = [m for m in msgs if "compared in Python" in m]
        self.assertTrue(hits, msgs)
        self.assertTrue(all("at vision_transformer.py:" in m for m in hits), hits)

    def test_sizes_that_cannot_vary_are_quiet(self):
        # Fixing a size no dynamic axis reaches specialises nothing: the engine is handed
        # each such warning and gives it only when one of the sizes can vary.
        fns = [lambda x: x.view(int(x.size(0)), -1), lambda x: x * float(x.size(1)),
               lambda x: x * 2 if x.size(1) // 2 * 2 == x.size(1) else x,
               lambda x: x * (x.size(1) ** -0.5), lambda x: x * 2 if x.shape == (3, 4) else x]
        for fn in fns:
            self.assertEqual(export_warnings(Outer(fn), torch.randn(3, 4)), [])
        # axis 0 dynamic, the fixed size from axis 1: still quiet
        self.assertEqual(export_warnings(Outer(fns[1]), torch.randn(3, 4), dynamic_axes={"x": {0: "b"}}), [])
        # ... but a shape compared whole holds the dynamic axis too
        msgs = export_warnings(Outer(fns[-1]), torch.randn(3, 4), dynamic_axes={"x": {0: "b"}})
        self.assertTrue(any("a traced shape compared in Python" in m for m in msgs), msgs)

    def test_a_data_sized_size_warns_without_dynamic_axes(self):
        # x[x > 0] has as many elements as the input has positive values: no input shape
        # fixes its size, so a branch on it is a specialisation however the file is shaped.
        msgs = export_warnings(Outer(lambda x: x * 2 if x[x > 0].size(0) > 5 else x), torch.randn(3, 4))
        self.assertTrue(any("compared in Python" in m and "test_trace_fidelity.py:" in m for m in msgs), msgs)

    def test_one_site_warns_if_any_of_its_sizes_varies(self):
        # One line fixes a size that cannot vary (x's dim 1), then, called again, one that
        # can (the batch, as x.t()'s dim 1): the site warns.
        def scaled(t):
            return t * float(t.size(1))

        msgs = export_warnings(Outer(lambda x: scaled(x).sum() + scaled(x.t()).sum()), torch.randn(3, 4),
                               dynamic_axes={"x": {0: "b"}})
        self.assertEqual(len([m for m in msgs if "float() on a traced size" in m]), 1, msgs)

    def test_a_size_compared_with_itself_is_quiet(self):
        # nn.MultiheadAttention checks key.shape == value.shape; in self-attention key is
        # value, so the outcome is the same on every input however the batch varies.
        mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
        self_attention = Outer(lambda x: mha(x, x, x)[0])
        dyn = {"x": {0: "b", 1: "s"}}
        self.assertEqual(export_warnings(self_attention, torch.randn(2, 5, 8), dynamic_axes=dyn), [])
        # ... while two tensors' dynamic sizes compared still warn
        msgs = export_warnings(Outer(lambda x: x * 2 if x.shape == x[1:].shape else x), torch.randn(3, 4),
                               dynamic_axes={"x": {0: "b"}})
        self.assertTrue(any("a traced shape compared in Python" in m for m in msgs), msgs)
        msgs = export_warnings(Outer(lambda x: x * 2 if x.size(0) == x[1:].size(0) else x), torch.randn(3, 4),
                               dynamic_axes={"x": {0: "b"}})
        self.assertTrue(any("a traced size compared in Python" in m for m in msgs), msgs)

    def test_sizes_of_one_axis_name_compared_are_quiet(self):
        # torch's own checks compare sizes of two tensors: an RNN its state's batch with the
        # input's, nn.Transformer src's batch with tgt's.  Where both follow one dynamic axis
        # name the file declares them one size, so the outcome is the same on every run.
        def msgs_of(model, args, names, dyn):
            with tempfile.TemporaryDirectory(prefix="oxport-fid-") as tmp, \
                    warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                oxt.export(model.eval(), args, os.path.join(tmp, "m.onnx"), opset_version=14,
                           input_names=names, dynamic_axes=dyn)
            return [str(m.message) for m in w if issubclass(m.category, oxt.TracerWarning)]

        x, h = torch.randn(5, 3, 8), torch.randn(1, 3, 16)
        self.assertEqual(msgs_of(nn.GRU(8, 16), (x,), ["x"], {"x": {0: "t", 1: "b"}}), [])
        gru_with_state = Lambda(lambda x, h: nn.GRU(8, 16)(x, h)[0])
        self.assertEqual(msgs_of(gru_with_state, (x, h), ["x", "h"], {"x": {1: "b"}, "h": {1: "b"}}), [])
        # two names: nothing says the batches are equal, and the check fixed that they were
        msgs = msgs_of(gru_with_state, (x, h), ["x", "h"], {"x": {1: "b"}, "h": {1: "hb"}})
        self.assertTrue(any("a traced shape compared in Python" in m for m in msgs), msgs)
        tr = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                            batch_first=True)
        src, tgt = torch.randn(2, 5, 8), torch.randn(2, 4, 8)
        self.assertEqual(msgs_of(tr, (src, tgt), ["src", "tgt"], {"src": {0: "b", 1: "s"}, "tgt": {0: "b", 1: "t"}}),
                         [])
        msgs = msgs_of(tr, (src, tgt), ["src", "tgt"], {"src": {0: "b1"}, "tgt": {0: "b2"}})
        self.assertTrue(any("a traced size compared in Python" in m for m in msgs), msgs)

    def test_recorded_sizes_do_not_warn(self):
        msgs = export_warnings(Outer(lambda x: x.view(x.size(0), -1)[:, : x.size(1) // 2]),
                               torch.randn(4, 6), dynamic_axes={"x": {0: "b", 1: "n"}})
        self.assertEqual(msgs, [])


class Recorded(unittest.TestCase):
    """Forms that used to come out as constants holding the example's values."""

    def test_integer_index_without_a_tuple(self):
        matches_eager(self, Lambda(lambda x: x[0] * 2 + x[-1]), (3, 4))

    def test_index_inside_an_expression(self):
        v = torch.randn(4, 5)
        matches_eager(self, Lambda(lambda b: b[0] @ v), (2, 3, 4))

    def test_slice_and_none_without_a_tuple(self):
        matches_eager(self, Lambda(lambda x: x[:2][None] + 1), (3, 4))

    def test_slice_with_a_traced_bound(self):
        matches_eager(self, Lambda(lambda x: x[: x.size(0) - 1]), (4, 3), dynamic={0: "n"})

    def test_jit_traced_module_is_recorded_not_a_constant(self):
        m = nn.Sequential(nn.Linear(4, 3), nn.Tanh()).eval()
        follows_second_input(self, torch.jit.trace(m, torch.randn(2, 4)), m, (2, 4))

    def test_scripted_submodule_inside_an_eager_model(self):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pre = nn.Linear(4, 4)
                self.body = torch.jit.script(nn.Sequential(nn.Linear(4, 3), nn.ReLU()))

            def forward(self, x):
                return self.body(self.pre(x))
        m = Net().eval()
        follows_second_input(self, m, m, (2, 4))

    def test_tensor_made_in_forward_then_written_in_place(self):
        """A tensor the forward makes is a constant holding its value at first use; the
        in-place ops after that are recorded on top of it, and must not apply twice."""
        def fn(x):
            acc = torch.zeros(4)
            for k in (1, 2):
                acc += x * k
            c = torch.ones(4)
            y = x + c
            c.mul_(2)
            return torch.cat([acc, y, x + c, torch.zeros(4).index_add_(0, torch.tensor([1, 0, 1, 3]), x)])
        matches_eager(self, Lambda(fn), (4,))

    def test_buffer_updated_in_forward_starts_from_the_models_state(self):
        """A forward that updates a buffer: the file computes what that forward computed on
        the model as handed to the export (the update recorded once), in both traces."""
        class Counter(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("count", torch.tensor(2.0))
                self.register_buffer("ema", torch.zeros(3))

            def forward(self, x):
                self.count += 1
                self.ema.mul_(0.5).add_(x.mean(0) * 0.5)
                return x * self.count + self.ema
        g = torch.Generator().manual_seed(7)
        x1, x2 = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
        for mode in ("eager", "fake"):
            with tempfile.TemporaryDirectory(prefix="oxport-fid-") as tmp:
                path = os.path.join(tmp, "m.onnx")
                oxt.export(Counter(), (x1,), path, input_names=["x"], trace=mode)
                for x in (x1, x2):
                    with torch.no_grad():
                        want = Counter()(x).numpy()  # a fresh model: its first call
                    got = onnxval.run_ort(path, {"x": x.numpy()})[0]
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=mode)

    def test_is_in_onnx_export_is_true_while_tracing(self):
        seen = []

        def fn(x):
            seen.append(torch.onnx.is_in_onnx_export())
            return x * 3 if torch.onnx.is_in_onnx_export() else x
        export_warnings(Lambda(fn), torch.randn(2, 2))
        self.assertEqual(seen, [True])
        self.assertFalse(torch.onnx.is_in_onnx_export())


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
