#!/usr/bin/python3
"""Indexing and assignment, every form: each row is exported at the opsets the form
supports, checked with onnx.checker, and run in ONNX Runtime against eager on the
example and on a second input with other values (other index values where the index
is an input; other shapes where axes are dynamic).  Integer and bool outputs are
compared exactly.  Plus torchvision's swin_t, whose attention mask is built by slice
assignments into new_zeros.

    /usr/bin/python3 tests/pytorch/test_indexing.py [unittest args]
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


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _assert_close(test, got, ref, what):
    ref = ref.detach().numpy()
    test.assertEqual(tuple(got.shape), tuple(ref.shape), what)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-6)
    test.assertLessEqual(float(np.max(np.abs(got - ref))) if ref.size else 0.0, 1e-5 * scale, what)


def check_form(test, fn, inputs, opsets, others, dynamic=None):
    """Export fn at `inputs`; compare ORT with eager on them and on each of `others`."""
    model = Fn(fn)
    names = [f"in{i}" for i in range(len(inputs))]
    for opset in opsets:
        with tempfile.TemporaryDirectory(prefix="oxport-idx-") as tmp:
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("error", oxt.TracerWarning)
                oxt.export(model, tuple(t.clone() for t in inputs), path, opset_version=opset,
                           input_names=names, dynamic_axes=dynamic)
            onnxval.check(path)
            for xs in [inputs] + list(others):
                with torch.no_grad():
                    ref = model(*[t.clone() for t in xs])
                got = onnxval.run_ort(path, {n: t.numpy() for n, t in zip(names, xs)})[0]
                _assert_close(test, got, ref, f"opset {opset}, inputs {[tuple(t.shape) for t in xs]}")


def rnd(*shape, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


def written(fn):
    """The form applied to a copy of x, returned with a view read afterwards."""
    def f(x, *rest):
        y = x * 1
        v = y[0]
        fn(y, *rest)
        return torch.cat([y.reshape(-1), v.reshape(-1) * 2])
    f.__name__ = fn.__name__
    return f


ALL = (9, 11, 13, 17)
ND = (11, 13, 17)            # GatherND / ScatterND / Range


class Reading(unittest.TestCase):
    def test_one_index_tensor_input(self):
        idx = torch.tensor([2, 0, -1])
        check_form(self, lambda x, i: x[i], [rnd(4, 3), idx], ALL,
                   [[rnd(4, 3, seed=1), torch.tensor([-4, 3, 1])]])

    def test_index_tensor_on_a_later_dim_with_slices(self):
        check_form(self, lambda x, i: x[:, i, 1:], [rnd(2, 5, 4), torch.tensor([[4, 0], [1, -2]])], ALL,
                   [[rnd(2, 5, 4, seed=1), torch.tensor([[3, 3], [-5, 2]])]])

    def test_several_adjacent_index_tensors_broadcast(self):
        check_form(self, lambda x, i, j: x[:, i, j], [rnd(2, 4, 5), torch.tensor([[0], [3]]),
                                                      torch.tensor([1, -1, 2])], ND,
                   [[rnd(2, 4, 5, seed=1), torch.tensor([[2], [-1]]), torch.tensor([0, 4, -5])]])

    def test_non_adjacent_index_tensors_go_first(self):
        check_form(self, lambda x, i, j: x[i, :, j], [rnd(3, 4, 5), torch.tensor([0, 2]), torch.tensor([4, -1])],
                   ND, [[rnd(3, 4, 5, seed=1), torch.tensor([1, -3]), torch.tensor([0, 2])]])

    def test_index_tensors_mixed_with_int_none_ellipsis(self):
        check_form(self, lambda x, i: x[1, None, ..., i], [rnd(3, 4, 5), torch.tensor([0, -2])], ALL,
                   [[rnd(3, 4, 5, seed=1), torch.tensor([4, 1])]])

    def test_list_of_ints(self):
        check_form(self, lambda x: x[[0, 2, -1]] + x[:, [1, 1]].sum(), [rnd(4, 3)], ALL, [[rnd(4, 3, seed=1)]])

    def test_list_holding_sequences_or_slices_is_a_tuple_of_indices(self):
        # torch 1.13 reads x[[[0, 2], [1, -1]]] as x[[0, 2], [1, -1]] and x[[1, slice(None, 2)]] as
        # x[1, :2]; the trace's own __getitem__ passed each as one index (a 2-D index tensor)
        check_form(self, lambda x: x[[[0, 2], [1, -1]]] + x[[1, slice(None, 2)]][0], [rnd(4, 3)], ND,
                   [[rnd(4, 3, seed=1)]])

    def test_boolean_mask_full(self):
        check_form(self, lambda x: x[x > 0], [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_boolean_mask_with_fewer_dims(self):
        check_form(self, lambda x: x[x[:, 0] > 0], [rnd(5, 3)], ALL, [[rnd(5, 3, seed=1)]])

    def test_boolean_mask_after_a_slice(self):
        check_form(self, lambda x, m: x[:, m], [rnd(2, 4, 3), torch.tensor([True, False, True, True])], ALL,
                   [[rnd(2, 4, 3, seed=1), torch.tensor([False, True, False, False])]])

    def test_mask_next_to_an_index_tensor(self):
        check_form(self, lambda x, i: x[i[:, None], x[0] > 0], [rnd(3, 4), torch.tensor([2, 0])], ND,
                   [[rnd(3, 4, seed=1), torch.tensor([1, -1])]])

    def test_integer_output_exact(self):
        check_form(self, lambda x, i: (x * 10).long()[i], [rnd(4, 3), torch.tensor([1, 3])], ALL,
                   [[rnd(4, 3, seed=1), torch.tensor([0, -1])]])

    def test_traced_slice_bounds_at_other_shapes(self):
        check_form(self, lambda x: x[:, : x.size(1) // 2][x.size(0) - 1], [rnd(3, 6)], (11, 13, 17),
                   [[rnd(3, 6, seed=1)], [rnd(1, 2)], [rnd(5, 9)]], dynamic={"in0": {0: "b", 1: "n"}})

    def test_index_tensor_with_traced_slice_bounds_at_other_shapes(self):
        check_form(self, lambda x, i: x[i, : x.size(1) - 1], [rnd(4, 6), torch.tensor([3, -1, 0])], (11, 13, 17),
                   [[rnd(4, 6, seed=1), torch.tensor([0, 1, -4])], [rnd(4, 2), torch.tensor([2, 2, 2])],
                    [rnd(4, 9), torch.tensor([1, 0, 3])]], dynamic={"in0": {1: "n"}})

    def test_several_index_tensors_before_opset_11_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Fn(lambda x, i: x[i, i]), (rnd(3, 3), torch.tensor([0, 1])),
                           os.path.join(tmp, "m.onnx"), opset_version=9)
        self.assertIn("indexing with several index tensors (or a boolean mask next to an index tensor) "
                      "needs GatherND; supported from opset 11", str(cm.exception))


    def test_result_rank_past_the_packs_limit_is_a_clear_error(self):
        i = torch.zeros((1,) * 8, dtype=torch.long)
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Fn(lambda x, i: x[i, i]), (rnd(2, 2, 2), i), os.path.join(tmp, "m.onnx"),
                           opset_version=13)
        self.assertIn("indexing gives a rank-9 result; at most 8 is supported", str(cm.exception))


class Writing(unittest.TestCase):
    def test_int_key_scalar(self):
        def f(y):
            y[1] = 2.5
        check_form(self, written(f), [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_slice_key_tensor_value_broadcast(self):
        def f(y, v):
            y[:, 1:3] = v
        check_form(self, written(f), [rnd(3, 4), rnd(2)], ALL, [[rnd(3, 4, seed=1), rnd(2, seed=2)]])

    def test_column_and_none_and_ellipsis(self):
        def f(y):
            y[:, 0] = 0
            y[None, ..., -1] = 7
        check_form(self, written(f), [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_traced_slice_bounds_at_other_shapes(self):
        def f(y):
            n = y.size(1)
            y[:, n // 2:] = -1.0
            y[:, : n - 1] += 1
        check_form(self, written(f), [rnd(3, 6)], (11, 13, 17),
                   [[rnd(3, 6, seed=1)], [rnd(1, 3)], [rnd(5, 8)]], dynamic={"in0": {0: "b", 1: "n"}})

    def test_index_tensor_with_traced_slice_bounds_written(self):
        def f(y, i):
            n = y.size(1)
            y[i, : n // 2] = 0.0
            y[i, n // 2:] += torch.ones(1)
        check_form(self, written(f), [rnd(4, 6), torch.tensor([3, 0])], (11, 13, 17),
                   [[rnd(4, 6, seed=1), torch.tensor([-1, 2])], [rnd(4, 3), torch.tensor([1, 1])],
                    [rnd(4, 10), torch.tensor([0, -4])]], dynamic={"in0": {1: "n"}})

    def test_writes_before_opset_11_say_what_they_need(self):
        def by_index(x, i):
            y = x * 1
            y[i] = 0
            return y

        def traced_bound(x, i):
            y = x * 1
            y[:, : y.size(1) - 1] = 0
            return y
        for fn, opset, msg in (
                (by_index, 9, "writing through index tensors (x[idx] = v, index_put_) needs ScatterND; "
                              "supported from opset 11"),
                (traced_bound, 10, "writing into a slice whose bounds are traced needs Range; supported from "
                                   "opset 11")):
            with tempfile.TemporaryDirectory() as tmp:
                with self.assertRaises(oxt.ExportError) as cm:
                    oxt.export(Fn(fn), (rnd(4, 3), torch.tensor([1, 2])), os.path.join(tmp, "m.onnx"),
                               opset_version=opset)
            self.assertIn(msg, str(cm.exception))

    def test_empty_slice_written_before_opset_11(self):
        def f(y):
            y[:, 5:] = 1.0
        check_form(self, written(f), [rnd(3, 4)], (9, 10), [[rnd(3, 4, seed=1)]])

    def test_list_holding_sequences_is_a_tuple_of_indices(self):
        check_form(self, written(lambda y: y.__setitem__([[0, 2], [1, -1]], 5.0)), [rnd(4, 3)], ND,
                   [[rnd(4, 3, seed=1)]])

    def test_index_tensor_key_and_augmented(self):
        def f(y, i):
            y[i] += 1
            y[i, 0] *= 2
        check_form(self, written(f), [rnd(4, 3), torch.tensor([3, 1])], ND,
                   [[rnd(4, 3, seed=1), torch.tensor([-1, 2])]])

    def test_bool_mask_key_scalar_and_tensor(self):
        def f(y):
            y[y > 0] = 0.5
            y[y[:, 0] < 0] = torch.arange(4.0)
        check_form(self, written(f), [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_bool_mask_key_per_element_values(self):
        def f(y):
            m = y > 0
            y[m] = y[m] * 3
        check_form(self, written(f), [rnd(3, 4)], ND, [[rnd(3, 4, seed=1)]])

    def test_copy_into_a_slice_and_a_transposed_view(self):
        def f(y, s):
            y[1:].copy_(s)
            y.t()[0].copy_(torch.ones(3))
        check_form(self, written(f), [rnd(3, 4), rnd(2, 4)], ALL, [[rnd(3, 4, seed=1), rnd(2, 4, seed=2)]])

    def test_fill_zero_masked_fill_on_views(self):
        def f(y):
            y[0].fill_(3)
            y[:, 1:2].zero_()
            y.view(-1)[2:5].masked_fill_(torch.tensor([True, False, True]), -2)
        check_form(self, written(f), [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_index_put_on_a_view(self):
        def f(y, i, v):
            y[1:].index_put_((i,), v)
        check_form(self, written(f), [rnd(4, 3), torch.tensor([2, 0]), rnd(2, 3)], ND,
                   [[rnd(4, 3, seed=1), torch.tensor([1, -1]), rnd(2, 3, seed=2)]])

    def test_index_put_accumulate(self):
        def f(y, i):
            y.index_put_((i,), torch.ones(3), accumulate=True)
        check_form(self, written(f), [rnd(4, 3), torch.tensor([2, 2])], (16, 17),
                   [[rnd(4, 3, seed=1), torch.tensor([0, -1])]])

    def test_index_put_accumulate_before_16_is_a_clear_error(self):
        def f(x, i):
            y = x * 1
            y.index_put_((i,), torch.ones(3), accumulate=True)
            return y
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(Fn(f), (rnd(4, 3), torch.tensor([2, 2])), os.path.join(tmp, "m.onnx"), opset_version=13)
        self.assertIn("index_put_ with accumulate=True sums repeated indices, which needs ScatterND's "
                      "reduction; supported from opset 16", str(cm.exception))

    def test_write_through_a_view_of_a_view_updates_all_aliases(self):
        def f(x):
            y = x * 1
            a = y[1:]
            b = a[:, 2]
            c = y.view(-1)
            b.add_(10)
            return torch.cat([y.reshape(-1), a.reshape(-1), c, b])
        check_form(self, f, [rnd(3, 4)], ALL, [[rnd(3, 4, seed=1)]])

    def test_write_into_a_slice_of_a_constant_buffer(self):
        # The buffer's slice is not recorded (nothing traced yet): written by positions.
        def f(x):
            buf = torch.zeros(4, 3)
            buf[1:3] = x
            return buf * 2
        check_form(self, f, [rnd(2, 3)], ND, [[rnd(2, 3, seed=1)]])

    def test_write_through_a_view_with_no_inverse_goes_by_positions_and_warns(self):
        def f(x):
            y = x * 1
            v = y.expand(3, 4)  # same shape: a view oxport can replay but not invert
            v.mul_(2)
            y[0] = 5.0
            return torch.cat([y, v * 1])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                oxt.export(Fn(f), (rnd(3, 4),), path, opset_version=13, input_names=["x"])
            msgs = [str(m.message) for m in w if issubclass(m.category, oxt.TracerWarning)]
            self.assertTrue(any("a view made by aten::expand shares its base's storage; oxport follows the "
                                "write or read through the view's storage positions" in m for m in msgs), msgs)
            onnxval.check(path)
            for x in (rnd(3, 4), rnd(3, 4, seed=1)):
                _assert_close(self, onnxval.run_ort(path, {"x": x.numpy()})[0], f(x.clone()), "expand view")

    def test_in_place_op_on_a_linear_output_is_a_reshape_at_every_opset(self):
        # nn.Linear's 3-D output is a view of the matmul inside F.linear, which the trace
        # never sees: covering it whole, the write is the new value reshaped (no ScatterND)
        torch.manual_seed(0)
        lin = nn.Linear(3, 4)

        def f(x):
            y = lin(x)
            y.relu_()
            return y * 2
        with torch.no_grad():
            check_form(self, f, [rnd(2, 5, 3)], ALL, [[rnd(2, 5, 3, seed=1)]])

    def test_partial_write_into_a_linear_output_reads_its_current_value(self):
        # a slice of the output written in place: the base is the output's value (traced),
        # not the bytes of the example's matmul
        torch.manual_seed(0)
        lin = nn.Linear(3, 4)

        def f(x):
            y = lin(x)
            y[..., :2].relu_()
            return y * 1
        with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                oxt.export(Fn(f), (rnd(2, 5, 3),), path, opset_version=13, input_names=["x"])
            onnxval.check(path)
            for x in (rnd(2, 5, 3), rnd(2, 5, 3, seed=1)):
                _assert_close(self, onnxval.run_ort(path, {"x": x.numpy()})[0], f(x), "slice of a linear output")

    def test_write_through_an_as_strided_view_goes_by_positions(self):
        # as_strided converts (a Gather of its flat positions); the write through it
        # is scattered back by the view's storage positions.
        def f(x):
            y = x * 1
            torch.as_strided(y, (3,), (5,)).mul_(0)  # the diagonal, by strides
            return y
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                oxt.export(Fn(f), (rnd(3, 4),), path, opset_version=13, input_names=["x"])
            onnxval.check(path)
            for x in (rnd(3, 4), rnd(3, 4, seed=1)):
                _assert_close(self, onnxval.run_ort(path, {"x": x.numpy()})[0], f(x.clone()), "as_strided view")


class SwinT(unittest.TestCase):
    def test_swin_t_matches_eager_on_two_inputs(self):
        import torchvision
        torch.manual_seed(0)
        m = torchvision.models.swin_t(weights=None).eval()
        x1, x2 = rnd(1, 3, 64, 64), rnd(1, 3, 64, 64, seed=1)
        with tempfile.TemporaryDirectory(prefix="oxport-swin-") as tmp:
            path = os.path.join(tmp, "swin.onnx")
            oxt.export(m, (x1,), path, opset_version=13, input_names=["x"])
            onnxval.check(path)
            for x in (x1, x2):
                with torch.no_grad():
                    ref = m(x).numpy()
                self.assertGreater(float(ref.std()), 1e-3 * float(np.abs(ref).max()), "reference is near-constant")
                got = onnxval.run_ort(path, {"x": x.numpy()})[0]
                scale = float(np.abs(ref).max())
                self.assertLessEqual(float(np.abs(got - ref).max()), 1e-4 * scale)


if __name__ == "__main__":
    unittest.main()
