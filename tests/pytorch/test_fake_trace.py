#!/usr/bin/python3
"""Execute-free export: trace='fake' runs the forward on the meta device (no kernel
computes) and must write the same file, byte for byte, as the eager trace; models that
read tensor values are refused with the call named.

    /usr/bin/python3 tests/pytorch/test_fake_trace.py [unittest args]
"""

import copy
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
import torchvision.models as tvm  # noqa: E402

import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from oxport.models import dcgan, super_resolution, word_language_model as wlm  # noqa: E402


def tv(name, size, **kw):
    return lambda: (getattr(tvm, name)(weights=None, **kw), (torch.randn(1, 3, size, size),))


def wlm_case(kind):
    def make():
        m = wlm.RNNModel(kind, ntoken=50, ninp=16, nhid=16, nlayers=2)
        return m, (torch.randint(0, 50, (6, 2)), m.init_hidden(2))
    return make


# The models of the zoo suites (test_models.py, test_zoo_extra.py), at small inputs.
MODELS = {
    "alexnet": tv("alexnet", 224),
    "resnet50": tv("resnet50", 64),
    "densenet121": tv("densenet121", 64),
    "inception_v3": tv("inception_v3", 75, aux_logits=False, transform_input=False),
    "mobilenet_v3_small": tv("mobilenet_v3_small", 64),
    "squeezenet1_1": tv("squeezenet1_1", 64),
    "shufflenet_v2_x0_5": tv("shufflenet_v2_x0_5", 64),
    "efficientnet_b0": tv("efficientnet_b0", 64),
    "regnet_y_400mf": tv("regnet_y_400mf", 64),
    "convnext_tiny": tv("convnext_tiny", 64),
    "vit_b_16": tv("vit_b_16", 224),
    "swin_t": tv("swin_t", 64),
    "super_resolution": lambda: (super_resolution.SuperResolutionNet(3), (torch.randn(1, 1, 32, 32),)),
    "dcgan_generator": lambda: (dcgan.Generator(), (torch.randn(1, 100, 1, 1),)),
    "wlm_lstm": wlm_case("LSTM"),
    "wlm_gru": wlm_case("GRU"),
}


class FakeTrace(unittest.TestCase):
    def same_file(self, name, opset=13, dynamic=False):
        torch.manual_seed(0)
        model, args = MODELS[name]()
        model.eval()
        with tempfile.TemporaryDirectory(prefix="oxport-fake-") as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore", oxt.TracerWarning)
            files = []
            for mode in ("eager", "fake"):
                path = os.path.join(tmp, f"{mode}.onnx")
                kw = {"dynamic_axes": {"in0": {0: "batch"}}} if dynamic else {}
                oxt.export(model, args, path, opset_version=opset, trace=mode,
                           input_names=[f"in{i}" for i in range(len(args))], **kw)
                with open(path, "rb") as f:
                    files.append(f.read())
        self.assertGreater(len(files[0]), 0)
        self.assertTrue(files[0] == files[1], f"{name}: trace='fake' wrote another file than trace='eager' "
                                              f"({len(files[1])} vs {len(files[0])} bytes)")

    def refused(self, model, args, *fragments, trace="fake", **kw):
        """The export raises ExportError saying each fragment, and writes nothing."""
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(model, args, os.path.join(tmp, "m.onnx"), trace=trace, **kw)
            for f in fragments:
                self.assertIn(f, str(cm.exception))
            self.assertEqual(os.listdir(tmp), [])
            return str(cm.exception)

    def test_dynamic_axes_give_the_same_file(self):
        self.same_file("resnet50", dynamic=True)

    def test_item_is_refused_naming_the_call(self):
        class Gate(nn.Module):
            def forward(self, x):
                return x * x.sum().item()
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Gate(), (torch.randn(3),), os.path.join(tmp, "g.onnx"), trace="fake")
            msg = str(cm.exception)
            self.assertIn("trace='fake' cannot run item()", msg)
            self.assertIn("test_fake_trace.py:", msg)
            self.assertIn("trace='eager'", msg)
            self.assertEqual(os.listdir(tmp), [])

    def test_constant_made_on_the_input_device_gives_the_same_file(self):
        """Factories given device=x.device, numbers stored into a tensor and ops on such
        constants run on meta and once more on their CPU twins, whose values the file holds."""
        class Table(nn.Module):
            def forward(self, x, idx):
                y = x.clone()
                y[idx] = 0.5
                y[y > 1.0] = 7.0
                t = torch.ones(4, device=x.device).cumsum(0) * torch.full((4,), 0.5, device=x.device)
                return y + t + torch.arange(4, device=x.device)
        self.same_file_and_runs(Table(), (torch.randn(3, 4), torch.tensor([0, 2])),
                                {"x": {0: "b"}, "idx": {0: "k"}},
                                [(torch.randn(5, 4) * 2, torch.tensor([1, 4, 3]))])

    def test_constants_made_from_data_on_the_input_device_give_the_same_file(self):
        """torch.tensor / torch.as_tensor with device=x.device and x.new_tensor make their
        meta tensor below any ATen op; the values come from a CPU twin made from the same
        data, so the file is the eager trace's."""
        class Table(nn.Module):
            def forward(self, x):
                a = torch.tensor([1.0, 2.0, 3.0], device=x.device)
                b = torch.as_tensor([[4, 5, 6]], dtype=torch.float32, device=x.device)
                c = x.new_tensor([0.5, -0.25, 0.125])
                d = x.new_tensor(3, dtype=torch.int64)
                e = torch.as_tensor(np.array([[0.5], [2.0]], dtype=np.float32), device=x.device)
                return x + a * b + c * d, torch.tensor(7, device=x.device) * x, x[:2] * e
        self.same_file_and_runs(Table(), torch.randn(2, 3), {"x": {0: "b"}}, [torch.randn(5, 3) * 4])

    def test_lists_of_numbers_in_index_keys_give_the_same_file(self):
        """torch makes the index tensor of x[:, [-1], :] (nanoGPT's last position) on x's
        device below any recorder; the trace makes it on the CPU first, so under
        trace='fake' its values are the eager trace's instead of lost on meta."""
        class Last(nn.Module):
            def forward(self, x):
                y = x[:, [-1], :] * 2 + x[[0, -1]].sum(0)
                z = x.clone()
                z[:, [0, 2]] = 1.5
                return y, z[[True, False]]
        self.same_file_and_runs(Last(), torch.randn(2, 3, 4), {"x": {1: "n"}}, [torch.randn(2, 5, 4)])

    def test_constant_made_below_the_dispatcher_is_refused(self):
        """torch.asarray(data, device=x.device) makes its meta tensor where neither
        recorder sees it (no function mode call, no ATen op): its values are lost, and the
        export says so."""
        class Table(nn.Module):
            def forward(self, x):
                return x + torch.asarray([1.0, 2.0, 3.0], device=x.device)
        self.refused(Table(), (torch.randn(3),), "computed on the meta device")

    def test_value_shaped_output_is_refused_naming_the_call(self):
        class Mask(nn.Module):
            def forward(self, x):
                return x[x > 0]
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Mask(), (torch.randn(3, 4),), os.path.join(tmp, "m.onnx"), trace="fake")
            msg = str(cm.exception)
            self.assertIn("trace='fake' cannot run aten::index at test_fake_trace.py:", msg)
            self.assertIn("no meta kernel for aten::nonzero", msg)
            self.assertNotIn("backends:", msg)  # torch's dispatch-key list stays out
            self.assertEqual(os.listdir(tmp), [])

    def same_file_and_runs(self, model, example, dynamic_axes, others, opset=None):
        """Eager and fake traces of `model` with dynamic axes write the same bytes, and
        the file matches eager on the example and on `others` (other shapes).  An example
        is a tensor or a tuple of them; `opset`: the export's default when None."""
        def as_args(a):
            return a if isinstance(a, tuple) else (a,)
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore", oxt.TracerWarning)
            files = []
            for mode in ("eager", "fake"):
                path = os.path.join(tmp, f"{mode}.onnx")
                oxt.export(model, as_args(example), path, input_names=list(dynamic_axes),
                           dynamic_axes=dynamic_axes, trace=mode, opset_version=opset)
                with open(path, "rb") as f:
                    files.append(f.read())
            self.assertTrue(files[0] == files[1], "trace='fake' wrote another file")
            for x in [example] + list(others):
                self.assertTrue(all(r[3] for r in oxt.verify(model, as_args(x), path)),
                                [tuple(t.shape) for t in as_args(x)])

    def test_one_hot_with_num_classes_gives_the_same_file(self):
        """torch 1.13's one_hot reads the values (non-negative classes) on the meta device
        too; with num_classes given the shapes give its result."""
        class Classes(nn.Module):
            def forward(self, t, x):
                return F.one_hot(t % 5, num_classes=5).float() @ x, F.one_hot(t.flatten(), 6)
        self.same_file_and_runs(Classes(), (torch.randint(0, 6, (3, 4)), torch.randn(5, 2)),
                                {"t": {0: "b", 1: "n"}, "x": {}},
                                [(torch.randint(0, 6, (2, 7)), torch.randn(5, 2))])

    def test_one_hot_without_num_classes_is_refused(self):
        class Classes(nn.Module):
            def forward(self, t):
                return F.one_hot(t)
        self.refused(Classes(), (torch.randint(0, 6, (3, 4)),), "cannot run on the meta device",
                     "Can not infer total number of classes")

    def test_bucketize_and_searchsorted_give_the_same_file(self):
        """No meta kernel in torch 1.13: the values' shape, int64 or int32 with out_int32."""
        class Buckets(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("edges", torch.tensor([-1.0, -0.2, 0.0, 0.5, 1.5]))

            def forward(self, x, rows):
                return (torch.bucketize(x, self.edges), torch.bucketize(x, self.edges, right=True, out_int32=True),
                        torch.searchsorted(self.edges, x), torch.searchsorted(rows, x, side="right"))
        rows = torch.sort(torch.randn(3, 6), -1).values
        self.same_file_and_runs(Buckets(), (torch.randn(3, 4), rows), {"x": {1: "n"}, "rows": {}},
                                [(torch.randn(3, 9) * 2, torch.sort(torch.randn(3, 6), -1).values)])

    def test_selections_and_scans_give_the_same_file(self):
        """No meta kernel in torch 1.13 for median, kthvalue, logcumsumexp, cummax or
        cummin: their results' shapes and dtypes come from self's (reduced along dim, or
        like self, with int64 indices)."""
        class Stats(nn.Module):
            def forward(self, x):
                m = x.median(1)
                return (x.median(), m.values, m.indices, torch.median(x, -1, keepdim=True).indices,
                        x.kthvalue(2, 0), x.kthvalue(3, 1, True).values, x.logcumsumexp(1),
                        x.cummax(1), torch.cummin(x, 0).indices, x.kthvalue((x.shape[1] + 1) // 2, 1).values)
        self.same_file_and_runs(Stats(), torch.randn(4, 6), {"x": {0: "b", 1: "n"}}, [torch.randn(5, 9)])

    def test_selection_stand_ins_are_torchs_results(self):
        """median, kthvalue, logcumsumexp, cummax, cummin: the stand-ins' shapes, dtypes
        and strides equal torch's CPU results over shapes, dims, k and keepdim, and they
        answer nothing where torch refuses (dim out of range, an empty dim, k past it,
        an integer logcumsumexp)."""
        from oxport.torch import _fake_results as FR
        import itertools
        checked = 0
        shapes = [(), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]
        for shape, dtype in itertools.product(shapes, (torch.float32, torch.int64)):
            cpu = torch.ones(shape, dtype=dtype)
            meta = torch.empty(shape, dtype=dtype, device="meta")
            calls = [("median.default", (), {})]
            for dim in range(-len(shape) - 2, len(shape) + 2):
                calls += [("logcumsumexp.default", (dim,), {}), ("cummax.default", (dim,), {}),
                          ("cummin.default", (dim,), {})]
                for keep in (False, True):
                    calls.append(("median.dim", (dim,), {"keepdim": keep}))
                    calls += [("kthvalue.default", (k, dim, keep), {}) for k in (0, 1, 3, 5)]
            for name, args, kwargs in calls:
                op = getattr(getattr(torch.ops.aten, name.split(".")[0]), name.split(".")[1])
                try:
                    want = op(cpu, *args, **kwargs)
                except (RuntimeError, IndexError):
                    want = None
                got = FR.meta_selection_result(name, (meta,) + args, kwargs)
                if got is None:
                    continue
                self.assertIsNotNone(want, (name, shape, dtype, args, kwargs))
                for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                    self.assertEqual((tuple(g.shape), g.dtype, g.stride()), (tuple(w.shape), w.dtype, w.stride()),
                                     (name, shape, dtype, args, kwargs))
                checked += 1
        self.assertGreater(checked, 100)

    def test_selection_out_of_range_is_refused_under_fake(self):
        """kthvalue's k past the dim's size: no stand-in, torch's meta path refuses it."""
        class Kth(nn.Module):
            def forward(self, x):
                return x.kthvalue(7, 1)
        self.refused(Kth(), (torch.randn(3, 4),), "cannot run aten::kthvalue")

    def test_weight_norm_gives_the_same_file(self):
        """torch._weight_norm has no meta kernel in torch 1.13 (its _weight_norm_interface)."""
        class Normed(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.utils.weight_norm(nn.Conv1d(3, 4, 3))
                self.up = nn.utils.weight_norm(nn.ConvTranspose1d(4, 2, 3), dim=1)
                self.lin = nn.utils.weight_norm(nn.Linear(2, 3), dim=None)

            def forward(self, x):
                return self.lin(self.up(self.conv(x)).transpose(1, 2))
        self.same_file_and_runs(Normed(), torch.randn(2, 3, 8), {"x": {0: "b", 2: "t"}}, [torch.randn(1, 3, 5)])

    def test_nms_is_refused_naming_it(self):
        """torchvision's nms keeps as many boxes as the values allow: no meta kernel can
        have one, and torch's list of backends stays out of the message."""
        import torchvision

        class Keep(nn.Module):
            def forward(self, boxes, scores):
                return torchvision.ops.nms(boxes, scores, 0.5)
        b = torch.rand(6, 2) * 10
        msg = self.refused(Keep(), (torch.cat([b, b + 4], 1), torch.rand(6)),
                           "no meta kernel for torchvision::nms (its output's shape depends on tensor values)")
        self.assertNotIn("backends:", msg)

    def test_int_repeat_interleave_gives_the_same_file(self):
        """torch 1.13's meta kernel wants output_size, which the shapes give."""
        class Repeat(nn.Module):
            def forward(self, x):
                return torch.repeat_interleave(x, 2, dim=1) * 3, torch.repeat_interleave(x, 3)
        self.same_file_and_runs(Repeat(), torch.randn(2, 5), {"x": {0: "b", 1: "n"}},
                                [torch.randn(4, 3)])

    def test_cpu_tensors_made_in_forward_give_the_same_file(self):
        """torch.arange(n) and a table built without a device are CPU tensors next to the
        meta ones: the kernels run them on meta, and their values are the eager trace's."""
        class Rotary(nn.Module):
            def forward(self, x):
                k = torch.arange(x.size(-1)).float()
                angles = x[..., None] * torch.exp(-k / x.size(-1))
                return torch.cat([angles.sin(), angles.cos()], -1) + torch.ones(2 * x.size(-1)).cumsum(0)
        self.same_file_and_runs(Rotary(), torch.randn(2, 5), {"x": {0: "b"}}, [torch.randn(3, 5)])

    def test_cpu_index_tensors_give_the_same_file(self):
        """index_copy with an index made on the CPU meets meta operands: torch says the
        devices differ in its own words, which the recorder knows too."""
        class Copy(nn.Module):
            def forward(self, x, s):
                return x.index_copy(1, torch.tensor([3, 0]), s) * 2
        self.same_file_and_runs(Copy(), (torch.randn(3, 4), torch.randn(3, 2)), {"x": {0: "b"}, "s": {0: "b"}},
                                [(torch.randn(5, 4), torch.randn(5, 2))])

    def test_stft_with_a_window_made_in_forward_gives_the_same_file(self):
        """torch.hann_window(n) without a device is a CPU tensor; stft checks its input and
        window share a device in its own words, which the recorder knows too."""
        class Magnitude(nn.Module):
            def forward(self, x):
                return torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=True).abs()
        self.same_file_and_runs(Magnitude(), torch.randn(1, 64), {"x": {0: "b", 1: "t"}},
                                [torch.randn(2, 80)], opset=17)

    def test_numbers_written_into_a_mask_give_the_same_file(self):
        """Swin's shifted-window mask: numbers written into slices of a tensor made in
        forward with x.new_zeros.  On the meta device torch writes a number by expand and
        copy_, not fill_: the recording was another (a constant the size of each slice)."""
        class Mask(nn.Module):
            def forward(self, x):
                m = x.new_zeros((4, 5))
                m[1:3, :] = 1.0
                m[:, 2] = -2
                m[0, 0] = True
                return x + m, (m == 1).float()
        self.same_file_and_runs(Mask(), torch.randn(2, 4, 5), {"x": {0: "b"}}, [torch.randn(3, 4, 5)])
        self.same_file("swin_t", opset=17, dynamic=True)

    def test_cpu_condition_with_meta_values_gives_the_same_file(self):
        """GPT-2's causal mask: a bool buffer torch keeps on the CPU (non-persistent,
        so a constant of the file) sliced to the sequence, then torch.where(mask, w,
        finfo.min); torch.where's kernel expects the condition's device for the values."""
        class Causal(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("bias", torch.tril(torch.ones(8, 8, dtype=torch.bool)), persistent=False)

            def forward(self, w):
                n = w.size(-1)
                low = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype).to(w.device)
                return torch.where(self.bias[:n, :n], w, low).softmax(-1)
        self.same_file_and_runs(Causal(), torch.randn(2, 4, 4), {"w": {0: "b", 1: "n", 2: "n"}}, [torch.randn(3, 6, 6)])

    def test_cpu_tensors_written_in_forward_give_the_same_file(self):
        """Ops that write a CPU tensor made in forward with meta operands (acc += x) or
        mix one into an out-of-place op (torch.where, masked_fill) run on meta copies;
        the CPU tensor takes the op's recorded output."""
        class Accumulate(nn.Module):
            def forward(self, x):
                acc = torch.zeros(x.shape[0], 4)
                for k in (1, 2):
                    acc += x * k
                c = torch.ones(4)
                y = x + c
                c.mul_(2)
                hit = torch.where(x > 0, torch.zeros(x.shape[0], 4), x)
                return acc, y + c, hit, torch.zeros(x.shape[0], 4).masked_fill(x > 0.5, 1.0)
        self.same_file_and_runs(Accumulate(), torch.randn(3, 4), {"x": {0: "b"}}, [torch.randn(5, 4)])

    def test_cpu_tensor_written_through_a_view_gives_the_same_file(self):
        """Farthest point sampling (PointNet++): a CPU index table made in forward gets a
        traced column per step (picked[:, i] = far), a copy_ of a meta value into a view of
        it, which runs on meta copies like the in-place ops above."""
        class Sample(nn.Module):
            def forward(self, x):
                b = x.shape[0]
                picked = torch.zeros(b, 3, dtype=torch.long)
                far = torch.zeros(b, dtype=torch.long)
                dist = torch.full((b, x.shape[1]), 1e10)
                for i in range(3):
                    picked[:, i] = far
                    c = x[torch.arange(b), far].unsqueeze(1)
                    dist = torch.min(dist, ((x - c) ** 2).sum(-1))
                    far = dist.max(-1)[1]
                return torch.gather(x, 1, picked.unsqueeze(-1).expand(-1, -1, x.shape[2])), picked
        self.same_file_and_runs(Sample(), torch.rand(2, 9, 3), {"x": {0: "b", 1: "n"}}, [torch.rand(3, 14, 3)])

    def test_value_of_a_written_cpu_tensor_is_refused(self):
        class Gate(nn.Module):
            def forward(self, x):
                acc = torch.zeros(3)
                acc += x
                return x * 2 if bool(acc.sum() > 0) else x
        self.refused(Gate(), (torch.randn(3),), "trace='fake' cannot run")

    def test_a_failing_meta_kernel_is_refused_naming_the_call(self):
        """torch 1.13's meta kernel for _cdist_forward raises a TypeError where eager runs
        (torch.cdist itself gets its result from the shapes)."""
        class Dist(nn.Module):
            def forward(self, a, b):
                return torch.ops.aten._cdist_forward(a, b, 2.0, None)
        self.refused(Dist(), (torch.randn(4, 6), torch.randn(5, 6)), "cannot run on the meta device (torch",
                     "meta kernel failed: TypeError", "test_fake_trace.py:")

    def test_an_assertion_in_a_meta_decomposition_is_refused_naming_the_call(self):
        """torch 1.13's prims assert with no message where a decomposition meets shapes it
        did not foresee: PReLU on a strided vector, which the shortcut from the shapes
        leaves to torch (eager runs it)."""
        class Bad(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.PReLU()

            def forward(self, v):
                return self.act(v[::2])
        msg = self.refused(Bad(), (torch.randn(5),), "cannot run on the meta device (torch",
                           "meta kernel failed: AssertionError", "test_fake_trace.py:", "in Bad/PReLU[act]")
        self.assertIn("trace='eager'", msg)

    def test_an_op_without_a_meta_backend_is_refused_naming_the_call(self):
        """torch._convolution on meta tensors reaches torch's backend-extension stub
        (convolution_overrideable), whose NotImplementedError names no device: it is
        refused like any op without a meta kernel, not passed through raw."""
        class Conv(nn.Module):
            def forward(self, x, w):
                return torch._convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                          False, False, True, True)
        self.refused(Conv(), (torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3)),
                     "cannot run on the meta device (torch", "no meta kernel for aten::convolution_overrideable",
                     "test_fake_trace.py:", "trace='eager'")

    def test_a_model_on_the_meta_device_is_refused_under_eager(self):
        msg = self.refused(nn.Linear(4, 3, device="meta"), (torch.randn(2, 4, device="meta"),),
                           "parameter weight is on the meta device, so its values are unknown (and the "
                           "eager trace cannot run such a model)", "trace='fake' and export_params=False",
                           trace="eager")
        self.assertNotIn("under trace='fake'", msg)

    def test_a_meta_constant_is_refused_under_eager(self):
        """A tensor the eager forward makes on the meta device has no values either."""
        class Table(nn.Module):
            def forward(self, x):
                return x + torch.ones(3, device="meta").cumsum(0)
        self.refused(Table(), (torch.randn(3, device="meta"),),
                     "is a tensor on the meta device, which holds no values to write", trace="eager")

    def test_shared_modules_and_tied_weights_give_the_same_file(self):
        """The meta swap reaches a module used under two names, and a weight two modules
        tie, once each; both come back to the real tensors."""
        class Tied(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(6, 6)
                self.dec = nn.Linear(6, 6)
                self.dec.weight = self.enc.weight
                self.again = self.enc
                self.register_buffer("scale", torch.full((6,), 1.5))

            def forward(self, x):
                return self.again(self.dec(self.enc(x))) * self.scale
        torch.manual_seed(0)
        model = Tied()
        before = {k: v for k, v in model.state_dict(keep_vars=True).items()}
        self.same_file_and_runs(model, torch.randn(2, 6), {"x": {0: "b"}}, [torch.randn(5, 6)])
        after = model.state_dict(keep_vars=True)
        self.assertEqual(list(before), list(after))
        for k in before:
            self.assertIs(after[k], before[k], k)
            self.assertEqual(after[k].device.type, "cpu", k)

    def test_state_beyond_parameters_and_buffers_gives_the_same_file(self):
        """A module that saves a plain tensor attribute in its state dict: no parameter or
        buffer slot holds it, so functional_call swaps the state, as before."""
        class Table(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)
                self.table = torch.linspace(-1.0, 1.0, 3)

            def _save_to_state_dict(self, destination, prefix, keep_vars):
                super()._save_to_state_dict(destination, prefix, keep_vars)
                destination[prefix + "table"] = self.table

            def forward(self, x):
                return torch.relu(self.fc(x)) + self.table
        torch.manual_seed(0)
        model = Table()
        self.assertIn("table", model.state_dict())
        self.same_file_and_runs(model, torch.randn(2, 4), {"x": {0: "b"}}, [torch.randn(3, 4)])
        self.assertEqual(model.table.device.type, "cpu")

    def test_parameters_come_back_after_a_refused_forward(self):
        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)

            def forward(self, x):
                return self.fc(x) * x.sum().item()
        model = Gate()
        weight = model.fc.weight
        self.refused(model, (torch.randn(3),), "trace='fake' cannot run item()")
        self.assertIs(model.fc.weight, weight)
        self.assertEqual(model.fc.weight.device.type, "cpu")
        self.assertEqual(model.fc.bias.device.type, "cpu")

    def test_batch_norm_variants_give_the_same_file(self):
        """Under trace='fake' batch_norm's result is taken as a tensor like its input
        instead of running torch's meta decomposition: every form of it (1-D, 2-D and 3-D,
        without affine parameters, with batch statistics in eval, in training) writes the
        eager trace's file, and the file computes what the model computes."""
        class Norms(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.BatchNorm1d(4)
                self.b = nn.BatchNorm1d(4, affine=False)
                self.c = nn.BatchNorm2d(4, track_running_stats=False)
                self.d = nn.BatchNorm3d(4)

            def forward(self, x):
                y = self.b(self.a(x))                        # (N, C)
                z = self.c(y[:, :, None, None] * x[:, None, :, None] + 1)   # (N, C, 4, 1)
                return y, z, self.d(z[..., None])
        torch.manual_seed(0)
        model = Norms()
        for m in (model.a, model.b, model.d):  # statistics that are not the identity
            m.running_mean.uniform_(-1, 1)
            m.running_var.uniform_(0.5, 2)
        model.eval()
        self.same_file_and_runs(model, torch.randn(3, 4), {"x": {0: "b"}}, [torch.randn(6, 4) * 3])

    def test_layer_norm_variants_give_the_same_file(self):
        """layer_norm's result is taken as a tensor like its input too: over one and two
        trailing dims, with and without affine parameters, the eager file."""
        class Norms(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.LayerNorm(6)
                self.b = nn.LayerNorm((4, 6), elementwise_affine=False)
                with torch.no_grad():
                    self.a.weight.uniform_(0.5, 2)
                    self.a.bias.uniform_(-1, 1)

            def forward(self, x):
                return self.a(x), self.b(x * 2) + F.layer_norm(x, (6,), eps=1e-3)
        self.same_file_and_runs(Norms(), torch.randn(2, 4, 6), {"x": {0: "b"}}, [torch.randn(5, 4, 6) * 3])

    def test_activations_and_norms_taken_like_their_input_give_the_same_file(self):
        """Out-of-place activations and group/instance norms are taken as tensors like
        their input under trace='fake' (torch 1.13's meta kernels for relu, hardswish,
        relu6, group_norm and instance_norm are slow Python decompositions): the eager file,
        and it runs at another batch size."""
        class Acts(nn.Module):
            def __init__(self):
                super().__init__()
                self.gn = nn.GroupNorm(2, 4)
                self.inn = nn.InstanceNorm2d(4, affine=True)
                self.inn2 = nn.InstanceNorm2d(4)
                with torch.no_grad():
                    self.gn.weight.uniform_(0.5, 2)
                    self.inn.bias.uniform_(-1, 1)

            def forward(self, x):
                a = torch.relu(x) + F.relu(x * 2) + nn.ReLU()(x - 1) + F.hardswish(x) + F.relu6(x * 4)
                a = a + F.hardtanh(x, -0.5, 0.5) + F.silu(x) + torch.sigmoid(x) + torch.tanh(x) + F.hardsigmoid(x)
                return a, self.gn(x), self.inn(x), self.inn2(x * 3), F.group_norm(x, 4)
        model = Acts().eval()
        self.same_file_and_runs(model, torch.randn(2, 4, 3, 5), {"x": {0: "b"}}, [torch.randn(5, 4, 3, 5) * 3])

    def test_predicates_on_floats_give_the_same_file(self):
        """torch.isfinite of a float tensor is bool: under trace='fake' its result is not
        taken like its input (it was, so the recorded float32 met the file's bool)."""
        class Finite(nn.Module):
            def forward(self, x):
                y = torch.log(x)
                return torch.isfinite(y), y.isfinite().sum(1)
        self.same_file_and_runs(Finite(), torch.randn(3, 4), {"x": {0: "b"}}, [torch.randn(6, 4)])

    def test_cdist_gives_the_same_file(self):
        """torch 1.13's meta kernel for cdist fails on calls eager runs (a TypeError on
        its compute_mode): the result is made from the shapes, batch dims broadcast."""
        class Dist(nn.Module):
            def forward(self, a, b, c):
                return torch.cdist(a, b), torch.cdist(a, c, p=1.0), torch.cdist(a[0], c)
        self.same_file_and_runs(Dist(), (torch.randn(2, 5, 3), torch.randn(2, 4, 3), torch.randn(6, 3)),
                                {"a": {0: "b", 1: "n"}, "b": {0: "b"}, "c": {0: "m"}},
                                [(torch.randn(3, 7, 3), torch.randn(3, 4, 3), torch.randn(2, 3))])

    def test_prelu_gives_the_same_file(self):
        """nn.PReLU() on a vector (or a 0-d tensor): torch 1.13's meta decomposition
        asserts with no message; the result is made from the shapes.  Per-channel PReLU
        on a batch is the eager file too."""
        class Acts(nn.Module):
            def __init__(self):
                super().__init__()
                self.shared, self.channels = nn.PReLU(init=0.1), nn.PReLU(3, init=0.2)
                with torch.no_grad():
                    self.channels.weight.uniform_(0.05, 0.5)

            def forward(self, v, x):
                return self.shared(v), self.shared(v.sum()), self.channels(x), F.prelu(x, self.shared.weight)
        self.same_file_and_runs(Acts(), (torch.randn(5), torch.randn(2, 3, 4)), {"v": {0: "n"}, "x": {0: "b"}},
                                [(torch.randn(8), torch.randn(4, 3, 4))])

    def test_3d_max_pooling_and_nearest_upsampling_give_the_same_file(self):
        """torch 1.13 has no meta kernel for max_pool3d_with_indices (every 3-D max
        pooling) nor upsample_nearest3d: their results are made from the shapes."""
        class Video(nn.Module):
            def forward(self, x):
                a = F.max_pool3d(x, 2)
                b, i = F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=1, ceil_mode=True, return_indices=True)
                return a.sum(), b, i, F.interpolate(x, scale_factor=2), F.interpolate(x, size=(4, 5, 6)), \
                    nn.MaxPool3d(2, dilation=2)(x)
        self.same_file_and_runs(Video(), torch.randn(2, 3, 5, 6, 7), {"x": {0: "b"}}, [torch.randn(1, 3, 5, 6, 7)])

    def test_3d_max_pool_shapes_from_the_shortcut_are_torchs(self):
        """The window counts the 3-D max pooling shortcut computes are torch's, and it
        declines every configuration torch refuses (then torch's kernel raises)."""
        from oxport.torch import _fake_results as FR
        gen = torch.Generator().manual_seed(7)

        def draw(lo, hi):
            return int(torch.randint(lo, hi + 1, (1,), generator=gen))
        checked = 0
        for _ in range(600):
            k, s, p, d = ([draw(lo, hi) for _ in range(3)] for lo, hi in ((1, 4), (1, 3), (0, 2), (1, 2)))
            ceil = bool(draw(0, 1))
            shape = (1, 2) + tuple(draw(1, 12) for _ in range(3))
            try:
                want = F.max_pool3d(torch.zeros(shape), k, s, p, d, ceil, True)
            except RuntimeError:
                want = None
            got = FR.meta_max_pool3d_result(torch.empty(shape, device="meta"), k, s, p, d, ceil, True)
            if want is None:
                self.assertIsNone(got, (shape, k, s, p, d, ceil))
            else:
                self.assertIsNotNone(got, (shape, k, s, p, d, ceil))
                self.assertEqual(got[0].shape, want[0].shape, (shape, k, s, p, d, ceil))
                self.assertEqual(got[1].dtype, want[1].dtype)
                checked += 1
        self.assertGreater(checked, 100)  # and the rest were refusals both ways

    def test_activations_and_norms_that_torch_refuses_fail_as_in_eager(self):
        cases = {
            "groups not dividing the channels": lambda x: F.group_norm(x, 3),
            "one value per group": lambda x: F.group_norm(x[:1, :, :1, :1], 4),
            "one spatial element": lambda x: F.instance_norm(x[:, :, :1, :1]),
            "per-channel parameters of another size": lambda x: F.group_norm(x, 2, weight=torch.ones(3)),
        }
        for what, fn in cases.items():
            class Wrong(nn.Module):
                def forward(self, x):
                    return fn(x)
            for trace in ("eager", "fake"):
                with self.subTest(what=what, trace=trace), tempfile.TemporaryDirectory() as tmp:
                    with self.assertRaises((oxt.ExportError, RuntimeError, ValueError)):
                        oxt.export(Wrong(), (torch.randn(2, 4, 3, 5),), os.path.join(tmp, "m.onnx"), trace=trace)
                    self.assertEqual(os.listdir(tmp), [])

    def test_convolutions_give_the_same_file(self):
        """Under trace='fake' a convolution's result is computed from the shapes (torch's
        meta convolution is Python): 1-D, 2-D and 3-D, strided, padded by number, tuple,
        'same' and 'valid', dilated, grouped, without bias, and channels-last or 1x1
        inputs (which run torch's kernel) all write the eager file."""
        class Convs(nn.Module):
            def __init__(self):
                super().__init__()
                self.c1 = nn.Conv1d(4, 6, 3, stride=2, padding=1)
                self.c2 = nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
                self.c3 = nn.Conv2d(4, 4, 3, padding="same", groups=4, bias=False)
                self.c4 = nn.Conv2d(4, 5, 2, padding="valid")
                self.c5 = nn.Conv3d(4, 2, (1, 3, 3), padding=(0, 1, 1))
                self.c6 = nn.Conv2d(4, 3, 1)

            def forward(self, x):
                y = x.mean(3)
                pooled = x.mean((2, 3), keepdim=True)
                return (self.c1(y), self.c2(x), self.c3(x), self.c4(x), self.c5(x[:, :, None]),
                        self.c6(pooled), self.c3(x.contiguous(memory_format=torch.channels_last)))
        torch.manual_seed(0)
        self.same_file_and_runs(Convs().eval(), torch.randn(2, 4, 6, 7), {"x": {0: "b"}}, [torch.randn(3, 4, 6, 7)])

    def test_conv_shapes_from_the_shortcut_are_torchs(self):
        """The shapes the shortcut computes equal torch's meta kernel's, over many
        configurations; and it declines what it does not cover."""
        from oxport.torch import _fake_results as FR
        from oxport.torch import _lowering as L
        import itertools
        checked = 0
        for n, k, s, p, d, g in itertools.product((1, 2, 3), (1, 2, 3), (1, 2, 3), (0, 1, 2, "same", "valid"),
                                                  (1, 2), (1, 2)):
            size = [9, 8, 7][:n]
            x = torch.empty(2, 4, *size, device="meta")
            w = torch.empty(6, 4 // g, *([k] * n), device="meta")
            b = {"input": x, "weight": w, "bias": None, "stride": s, "padding": p, "dilation": d, "groups": g}
            pad = p if isinstance(p, str) else L.ntuple(p, n)
            conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
            try:
                with warnings.catch_warnings():  # 'same' with an even kernel: torch pads a copy
                    warnings.simplefilter("ignore", UserWarning)
                    want = conv(x, w, None, s, p, d, g)
            except RuntimeError:
                want = None
            got = FR.meta_conv_result(b, n, L.ntuple(s, n), pad, L.ntuple(d, n))
            if got is None:
                continue
            self.assertIsNotNone(want, b)
            self.assertEqual(tuple(got.shape), tuple(want.shape), b)
            self.assertEqual(got.stride(), want.stride(), b)
            checked += 1
        self.assertGreater(checked, 100)  # and the rest were refusals both ways
        # operands with other strides: the shortcut declines, or agrees with torch
        for x, w in ((torch.empty(2, 4, 5, 5, device="meta").contiguous(memory_format=torch.channels_last),
                      torch.empty(6, 4, 1, 1, device="meta")),
                     (torch.empty(2, 4, 1, 1, device="meta").contiguous(memory_format=torch.channels_last),
                      torch.empty(6, 4, 1, 1, device="meta")),
                     (torch.empty(2, 4, 5, 5, device="meta"),
                      torch.empty(6, 4, 1, 1, device="meta").contiguous(memory_format=torch.channels_last)),
                     (torch.empty(2, 4, 5, 5, device="meta"), torch.empty(6, 4, 1, 1, device="meta"))):
            b = {"input": x, "weight": w, "bias": None, "stride": 1, "padding": [0, 0], "dilation": 1, "groups": 1}
            got, want = FR.meta_conv_result(b, 2, [1, 1], [0, 0], [1, 1]), F.conv2d(x, w)
            if got is not None:
                self.assertEqual((tuple(got.shape), got.stride()), (tuple(want.shape), want.stride()))
        x = torch.empty(2, 4, 5, 5, device="meta")
        self.assertIsNone(FR.meta_conv_result({"input": x, "weight": torch.empty(6, 3, 3, 3, device="meta"),
                                                "bias": None, "groups": 1}, 2, [1, 1], [0, 0], [1, 1]))  # torch's error

    def test_norms_with_mismatched_shapes_fail_as_in_eager(self):
        """A layer_norm whose normalized shape or parameters do not match the input is not
        taken as a tensor like the input: torch's kernel refuses it, under both traces."""
        class Wrong(nn.Module):
            def __init__(self, which):
                super().__init__()
                self.which = which
                self.ln = nn.LayerNorm(6)

            def forward(self, x):
                if self.which == "shape":
                    return F.layer_norm(x, (5,))
                return F.layer_norm(x, (6,), weight=self.ln.weight[:5])
        for which in ("shape", "weight"):
            for trace in ("eager", "fake"):
                with self.subTest(which=which, trace=trace), tempfile.TemporaryDirectory() as tmp:
                    with self.assertRaises((oxt.ExportError, RuntimeError)):
                        oxt.export(Wrong(which), (torch.randn(2, 6),), os.path.join(tmp, "m.onnx"), trace=trace)
                    self.assertEqual(os.listdir(tmp), [])

    def test_batch_norm_with_mismatched_channels_fails_as_in_eager(self):
        """A batch_norm whose statistics do not match the input's channels is not taken
        as a tensor like the input: torch's kernel runs and refuses it, under both traces."""
        class Wrong(nn.Module):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm2d(3).eval()

            def forward(self, x):
                return self.bn(x)
        for trace in ("eager", "fake"):
            with self.subTest(trace=trace), tempfile.TemporaryDirectory() as tmp:
                with self.assertRaises((oxt.ExportError, RuntimeError)) as cm:
                    oxt.export(Wrong(), (torch.randn(2, 5, 4, 4),), os.path.join(tmp, "m.onnx"), trace=trace)
                self.assertIn("5", str(cm.exception))
                self.assertEqual(os.listdir(tmp), [])

    def test_a_model_on_the_meta_device_exports_its_graph_without_weights(self):
        """A model built on the meta device (no weights anywhere) exports with
        trace='fake' and export_params=False: the same file as the same model on the CPU
        exported without weights, parameters and buffers as graph inputs, and it runs
        once given them.  With weights asked for, or under eager, it is refused saying
        how to export it."""
        def build(device):
            torch.manual_seed(0)
            return nn.Sequential(nn.Linear(4, 8, device=device), nn.BatchNorm1d(8, device=device), nn.ReLU(),
                                 nn.Linear(8, 2, device=device)).eval()
        cpu, meta = build("cpu"), build("meta")
        with torch.no_grad():
            cpu[1].running_mean.uniform_(-1, 1)
            cpu[1].running_var.uniform_(0.5, 2)
        x = torch.randn(3, 4)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, model in (("cpu", cpu), ("meta", meta)):
                paths.append(os.path.join(tmp, f"{name}.onnx"))
                oxt.export(model, (x,), paths[-1], trace="fake", export_params=False, input_names=["x"])
            with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
                self.assertTrue(a.read() == b.read(), "the meta model's graph differs from the CPU model's")
            import onnx
            g = onnx.load(paths[1]).graph
            self.assertEqual(len(g.initializer), 0)
            names = [i.name for i in g.input]
            self.assertEqual(names[0], "x")
            self.assertIn("1.running_var", names)
            # given the CPU model's weights, the weightless file computes what it computes
            state = {k: v.detach().numpy() for k, v in cpu.state_dict().items()}
            feeds = {"x": x.numpy(), **{n: state[n] for n in names[1:]}}
            got = onnxval.run_ort(paths[1], feeds)[0]
            with torch.no_grad():
                want = cpu(x).numpy()
            self.assertLess(float(np.abs(got - want).max()), 1e-5 * max(1.0, float(np.abs(want).max())))
        for kw in ({"trace": "fake"}, {"trace": "eager", "export_params": False}):
            msg = self.refused(meta, (x,), "parameter 0.weight is on the meta device", "export_params=False", **kw)
            self.assertNotIn("cannot run on the meta device", msg)

    def test_float16_model_exports_without_cpu_kernels(self):
        """torch 1.13 has no float16 CPU convolution: the eager trace fails with torch's own
        error, as torch.onnx.export does, plus a note naming the call and trace='fake', which
        exports the model; the file computes in float16 what the float32 model computes."""
        torch.manual_seed(0)
        net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
        net.train()
        with torch.no_grad():  # calibrate the BatchNorm statistics
            for _ in range(4):
                net(torch.randn(8, 3, 6, 6) * 2 + 0.5)
        net.eval()
        half = copy.deepcopy(net).half()
        x = torch.randn(2, 3, 6, 6)
        with tempfile.TemporaryDirectory(prefix="oxport-half-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            with self.assertRaises(RuntimeError) as caught:
                oxt.export(half, (x.half(),), path, input_names=["x"])
            self.assertIn("not implemented for 'Half'", str(caught.exception))
            note = "\n".join(getattr(caught.exception, "__notes__", []))
            self.assertIn("Sequential/Conv2d[0]", note)
            self.assertIn("trace='fake'", note)
            self.assertFalse(os.path.exists(path))

            oxt.export(half, (x.half(),), path, input_names=["x"], dynamic_axes={"x": {0: "b"}}, trace="fake")
            inputs = [x, torch.randn(2, 3, 6, 6), torch.randn(5, 3, 6, 6)]
            outs = onnxval.run_ort_many(path, [{"x": i.half().numpy()} for i in inputs])
            refs = []
            for i, got in zip(inputs, outs):
                self.assertEqual(got[0].dtype, np.float16)
                with torch.no_grad():
                    ref = net(i).numpy()
                refs.append(ref)
                # float16 keeps about 3 decimal digits: a few of its roundings per layer
                self.assertLess(float(np.abs(got[0].astype(np.float32) - ref).max()),
                                2e-2 * float(np.abs(ref).max()))
            self.assertFalse(np.allclose(refs[0], refs[1]), "the reference ignores its input")

    def test_bad_mode_is_refused(self):
        with self.assertRaises(ValueError):
            oxt.export(nn.ReLU(), (torch.randn(2),), os.devnull, trace="lazy")


def _make(name):
    return lambda self: self.same_file(name)


for _n in MODELS:
    setattr(FakeTrace, f"test_{_n}_same_bytes", _make(_n))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2)
