"""Rows of the indexing, factory and random operators of issue #10 (helper "index"):
gather/scatter by index tensors, reordering views, repeat_interleave, factories, random
generators, unique/bucketize."""

import torch

from optable import Refuse, Row, T

I64, I32, BOOL, F64, F16 = torch.int64, torch.int32, torch.bool, torch.float64, torch.float16


def idx(*shape, n):
    """An index input into a dim of size n."""
    return T(*shape, dtype=I64, lo=0, hi=n - 1)


DISTINCT_3x2 = torch.tensor([[0, 3], [4, 1], [2, 0]])

ROWS = [
    # ---------------------------------------------------------------- gather (gather.c)
    Row("gather", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4), idx(3, 5, n=4)]),
    Row("gather.dim0", "aten::gather", lambda x, i: torch.gather(x, 0, i), [T(3, 4), idx(2, 4, n=3)]),
    Row("gather.negative_dim", "aten::gather", lambda x, i: torch.gather(x, -1, i), [T(2, 3, 4), idx(2, 3, 2, n=4)]),
    Row("gather.int64", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4, dtype=I64), idx(3, 2, n=4)]),
    Row("gather.bool", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4, dtype=BOOL), idx(3, 2, n=4)]),
    Row("gather.float64", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4, dtype=F64), idx(3, 2, n=4)]),
    Row("gather.smaller_index", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4), idx(2, 2, n=4)],
        refuse=Refuse("gather with an index smaller than self outside dim needs GatherElements, from opset 11; "
                      "supported from opset 11", below=11)),
    Row("gather.dynamic", "aten::gather", lambda x, i: torch.gather(x, 1, i), [T(3, 4), idx(3, 2, n=4)],
        dynamic={"in0": {0: "n"}, "in1": {0: "n"}}, since=11),
    Row("index_select", "aten::index_select", lambda x, i: torch.index_select(x, 1, i), [T(3, 4), idx(5, n=4)]),
    Row("index_select.negative_dim", "aten::index_select", lambda x, i: x.index_select(-2, i),
        [T(2, 3, 4), idx(2, n=3)]),
    Row("index_select.int32_index", "aten::index_select", lambda x, i: x.index_select(1, i.int()),
        [T(3, 4, dtype=I64), idx(3, n=4)]),
    Row("index_select.dynamic", "aten::index_select", lambda x, i: x.index_select(0, i), [T(3, 4), idx(5, n=3)],
        dynamic={"in1": {0: "k"}, "out0": {0: "k"}}),
    Row("take", "aten::take", lambda x, i: torch.take(x, i), [T(3, 4), idx(2, 3, n=12)]),
    Row("take.negative", "aten::take", lambda x, i: torch.take(x, i - 12), [T(3, 4, dtype=I32), idx(5, n=12)]),
    Row("masked_select", "aten::masked_select", lambda x, m: torch.masked_select(x, m), [T(3, 4), T(3, 4, dtype=BOOL)]),
    Row("masked_select.broadcast", "aten::masked_select", lambda x, m: torch.masked_select(x, m),
        [T(3, 4, dtype=I64), T(4, dtype=BOOL)]),
    Row("nonzero", "aten::nonzero", lambda x: torch.nonzero(x > 0), [T(3, 4)]),
    Row("nonzero.float", "aten::nonzero", lambda x: torch.nonzero(torch.relu(x)), [T(2, 3, 4)]),
    Row("nonzero.int32", "aten::nonzero", lambda x: torch.nonzero(x), [T(3, 4, dtype=I32, lo=-1, hi=1)]),
    Row("nonzero.float64", "aten::nonzero", lambda x: torch.nonzero(torch.relu(x)), [T(3, 4, dtype=F64)]),
    Row("as_strided", "aten::as_strided", lambda x: torch.as_strided(x, (2, 2), (1, 2), 1), [T(3, 4)]),
    Row("as_strided.overlapping", "aten::as_strided", lambda x: torch.as_strided(x * 1, (3, 3), (2, 1)),
        [T(12, dtype=I64)]),
    # a strided view past its input reads the base's storage, which the trace does not hold
    Row("as_strided.past_a_slice", "aten::as_strided", lambda x: torch.as_strided(x[:2], (3,), (4,)), [T(3, 4)],
        refuse=Refuse("as_strided reads position 8 of an input of 8 elements")),

    # ---------------------------------------------------------------- scatter (scatter.c)
    # overwriting scatters get distinct positions (with repeats, torch leaves the winner unspecified)
    Row("scatter", "aten::scatter", lambda x, s: x.scatter(1, DISTINCT_3x2, s), [T(3, 5), T(3, 2)]),
    Row("scatter.larger_src", "aten::scatter", lambda x, s: x.scatter(1, DISTINCT_3x2, s), [T(3, 5), T(3, 4)]),
    Row("scatter.value", "aten::scatter", lambda x, i: x.scatter(1, i, 2.5), [T(3, 5), idx(3, 2, n=5)]),
    Row("scatter.value_int64", "aten::scatter", lambda x, i: x.scatter(-1, i, 7), [T(3, 5, dtype=I64), idx(3, 2, n=5)]),
    Row("scatter.inplace", "aten::scatter", lambda x, s: (x * 1).scatter_(1, DISTINCT_3x2, s), [T(3, 5), T(3, 2)]),
    Row("scatter.traced_index", "aten::scatter", lambda x, i: x.scatter(1, i, torch.ones_like(x)), [T(3, 5), idx(3, 5, n=5)]),
    Row("scatter.reduce_add", "aten::scatter", lambda x, i, s: x.scatter(1, i, s, reduce="add"),
        [T(3, 5), idx(3, 4, n=5), T(3, 4)], opsets=(9, 13, 16, 17),
        refuse=Refuse("scatter with reduce='add' needs ScatterElements' reduction, from opset 16", below=16)),
    Row("scatter.reduce_multiply", "aten::scatter", lambda x, i, s: x.scatter(1, i, s, reduce="multiply"),
        [T(3, 5), idx(3, 4, n=5), T(3, 4)], since=16, opsets=(16, 17)),
    Row("scatter_add", "aten::scatter_add", lambda x, i, s: x.scatter_add(1, i, s),
        [T(3, 5), idx(3, 6, n=5), T(3, 6)], opsets=(9, 13, 16, 17)),
    Row("scatter_add.int64", "aten::scatter_add", lambda x, i, s: x.scatter_add(0, i, s),
        [T(3, 4, dtype=I64), idx(5, 4, n=3), T(5, 4, dtype=I64)], opsets=(9, 13, 16, 17)),
    Row("scatter_add.smaller_index", "aten::scatter_add", lambda x, i, s: x.scatter_add(1, i, s),
        [T(3, 5), idx(2, 3, n=5), T(3, 3)], opsets=(9, 13, 16, 17),
        refuse=Refuse("scatter_add with an index smaller than self outside dim needs ScatterElements with "
                      "reduction, from opset 16", below=16)),
    # scatter_reduce: ScatterElements' reduction (add/mul from 16, max/min from 18); repeated indices
    Row("scatter_reduce.sum", "aten::scatter_reduce", lambda x, i, s: x.scatter_reduce(1, i, s, "sum"),
        [T(3, 5), idx(3, 6, n=5), T(3, 6)], opsets=(16, 17)),
    Row("scatter_reduce.prod", "aten::scatter_reduce", lambda x, i, s: x.scatter_reduce(0, i, s, "prod"),
        [T(3, 4), idx(5, 4, n=3), T(5, 4)], opsets=(16, 17)),
    Row("scatter_reduce.amax", "aten::scatter_reduce", lambda x, i, s: x.scatter_reduce(1, i, s, "amax"),
        [T(3, 5), idx(3, 6, n=5), T(3, 6)], opsets=(17, 18, 21),
        refuse=Refuse("scatter_reduce with reduce='amax' needs ScatterElements' reduction 'max', from opset 18",
                      below=18)),
    Row("scatter_reduce.amin_int64", "aten::scatter_reduce", lambda x, i, s: x.scatter_reduce(0, i, s, "amin"),
        [T(3, 4, dtype=I64), idx(5, 4, n=3), T(5, 4, dtype=I64)], opsets=(18, 21)),
    Row("scatter_reduce.mean", "aten::scatter_reduce", lambda x, i, s: x.scatter_reduce(1, i, s, "mean"),
        [T(3, 5), idx(3, 6, n=5), T(3, 6)], opsets=(17, 21),
        refuse=Refuse("scatter_reduce with reduce='mean': ScatterElements reduces with sum, prod, amax and amin only")),
    Row("scatter_reduce.exclude_self", "aten::scatter_reduce",
        lambda x, i, s: x.scatter_reduce(1, i, s, "amax", include_self=False),
        [T(3, 5), idx(3, 6, n=5), T(3, 6)], opsets=(18,),
        refuse=Refuse("scatter_reduce with include_self=False: ScatterElements always combines")),
    Row("index_add", "aten::index_add", lambda x, i, s: x.index_add(1, i, s),
        [T(3, 4), idx(6, n=4), T(3, 6)], opsets=(9, 13, 16, 17)),
    Row("index_add.alpha", "aten::index_add", lambda x, i, s: x.index_add(0, i, s, alpha=2),
        [T(3, 4, dtype=I64), idx(2, n=3), T(2, 4, dtype=I64)], opsets=(9, 13, 16, 17)),
    Row("index_copy", "aten::index_copy", lambda x, s: x.index_copy(1, torch.tensor([3, 0]), s), [T(3, 4), T(3, 2)]),
    Row("index_copy.int64_dim0", "aten::index_copy", lambda x, s: x.index_copy(0, torch.tensor([2, 0]), s),
        [T(3, 4, dtype=I64), T(2, 4, dtype=I64)]),
    Row("index_fill", "aten::index_fill", lambda x, i: x.index_fill(1, i, -1.5), [T(3, 4), idx(2, n=4)]),
    Row("index_fill.int64_tensor_value", "aten::index_fill", lambda x, i: x.index_fill(0, i, x[0, 0]),
        [T(3, 4, dtype=I64), idx(2, n=3)]),
    # a size read in Python as the value: its rank-0 value, cast to x's type
    Row("index_fill.size_value", "aten::index_fill", lambda x, i: x.index_fill(1, i, x.size(0)),
        [T(3, 4), idx(2, n=4)], dynamic={"in0": {0: "n", 1: "m"}}),
    Row("masked_scatter", "aten::masked_scatter", lambda x, m, s: x.masked_scatter(m, s),
        [T(3, 4), T(3, 4, dtype=BOOL), T(3, 4)], since=11),
    Row("masked_scatter.broadcast", "aten::masked_scatter", lambda x, m, s: x.masked_scatter(m, s),
        [T(3, 4, dtype=I64), T(4, dtype=BOOL), T(20, dtype=I64)], since=11),

    # ---------------------------------------------------------------- flip, diagonal
    Row("flip", "aten::flip", lambda x: torch.flip(x, [0, -1]), [T(2, 3, 4)]),
    Row("flip.int64", "aten::flip", lambda x: torch.flip(x, [1]), [T(3, 4, dtype=I64)]),
    Row("flip.bool", "aten::flip", lambda x: torch.flip(x, [0]), [T(3, 4, dtype=BOOL)]),
    Row("flip.dynamic", "aten::flip", lambda x: torch.flip(x, [0]), [T(3, 4)], dynamic={"in0": {0: "n"}},
        opsets=(9, 10, 13, 17)),
    Row("diagonal", "aten::diagonal", lambda x: torch.diagonal(x), [T(3, 4)]),
    Row("diagonal.offset", "aten::diagonal", lambda x: torch.diagonal(x, 1), [T(3, 4)]),
    Row("diagonal.negative_offset_dims", "aten::diagonal", lambda x: torch.diagonal(x, -1, 2, 0),
        [T(4, 2, 3, dtype=I64)]),
    Row("diagonal.batched", "aten::diagonal", lambda x: torch.diagonal(x, 0, -2, -1), [T(2, 3, 3)],
        dynamic={"in0": {0: "b"}}),

    # ---------------------------------------------------------------- list-returning ATen ops
    # reached at the dispatcher level (the host records them like their public forms)
    Row("nonzero.as_tuple", "aten::unbind", lambda x: torch.nonzero(x > 0, as_tuple=True), [T(3, 4)]),
    Row("split.unsafe_split", "aten::split", lambda x: torch.unsafe_split(x, 2, 1), [T(3, 5)]),
    Row("split.unsafe_chunk", "aten::split", lambda x: torch.unsafe_chunk(x, 2, -1), [T(3, 4)]),
    Row("split_with_sizes.unsafe", "aten::split_with_sizes", lambda x: torch.unsafe_split_with_sizes(x, [1, 3], 1),
        [T(3, 4)]),

    # torch.narrow is recorded as the aten::slice it dispatches to; a traced start follows the input
    Row("slice.narrow", "aten::slice", lambda x: torch.narrow(x, 1, 1, 2), [T(3, 4)]),
    Row("slice.narrow_traced_start", "aten::slice", lambda x: torch.narrow(x, 1, x.size(1) - 2, 2), [T(3, 4)],
        dynamic={"in0": {1: "n"}}, since=10),
    Row("slice.narrow_traced_length", "aten::slice", lambda x: torch.narrow(x, 0, 1, x.size(0) - 1), [T(3, 4)],
        dynamic={"in0": {0: "n"}, "out0": {0: "m"}}, since=10),

    # ---------------------------------------------------------------- repeat_interleave
    # int repeats: the self form (Expand over the run-time sizes, so a dynamic axis follows)
    Row("repeat_interleave.int", "aten::repeat_interleave", lambda x: torch.repeat_interleave(x, 2, 1),
        [T(3, 4)], dynamic={"in0": {1: "n"}, "out0": {1: "m"}}),
    Row("repeat_interleave.int_negative_dim", "aten::repeat_interleave", lambda x: x.repeat_interleave(3, -2),
        [T(2, 3, 4, dtype=I64)], dynamic={"in0": {0: "b"}}),
    Row("repeat_interleave.int_flat", "aten::repeat_interleave", lambda x: x.repeat_interleave(3), [T(2, 3)]),
    Row("repeat_interleave.int_last_dim_bool", "aten::repeat_interleave", lambda x: x.repeat_interleave(2, -1),
        [T(2, 3, dtype=torch.bool)]),
    # a tensor of repeats: the positions form, then index_select
    Row("repeat_interleave", "aten::repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, 0),
        [T(4, 3), T(4, dtype=I64, lo=0, hi=3)]),
    Row("repeat_interleave.flat", "aten::repeat_interleave", lambda x, r: torch.repeat_interleave(x, r),
        [T(2, 2, dtype=I64), T(4, dtype=I64, lo=0, hi=3)]),
    Row("repeat_interleave.positions_one", "aten::repeat_interleave", lambda r: torch.repeat_interleave(r),
        [T(1, dtype=I64, lo=1, hi=4)]),
    Row("repeat_interleave.positions_static", "aten::repeat_interleave", lambda r: torch.repeat_interleave(r),
        [T(5, dtype=I64, lo=0, hi=3)]),
    # before opset 11 the positions form takes the number of repeats from the record
    # (docs/pytorch.md, known gaps), so a dynamic one starts at 11
    Row("repeat_interleave.positions", "aten::repeat_interleave", lambda r: torch.repeat_interleave(r),
        [T(5, dtype=I64, lo=0, hi=3)], dynamic={"in0": {0: "n"}, "out0": {0: "m"}}, since=11),

    # ---------------------------------------------------------------- factories of traced sizes
    Row("eye", "aten::eye", lambda x: torch.eye(x.size(0)) + x, [T(3, 3)], dynamic={"in0": {0: "n", 1: "n"}}),
    Row("eye.rectangular_int64", "aten::eye", lambda x: torch.eye(x.size(0), x.size(1), dtype=I64) * x,
        [T(3, 4, dtype=I64)], dynamic={"in0": {0: "n", 1: "m"}}),
    Row("eye.bool", "aten::eye", lambda x: torch.logical_and(torch.eye(x.size(1), dtype=BOOL), x > 0), [T(4, 4)]),
    Row("linspace", "aten::linspace", lambda x: torch.linspace(-1, 2, x.size(1)) * x, [T(3, 5)],
        dynamic={"in0": {1: "n"}}),
    Row("linspace.float64", "aten::linspace", lambda x: torch.linspace(0, 1, x.size(0), dtype=F64) + x, [T(4, dtype=F64)]),
    Row("linspace.int64", "aten::linspace", lambda x: torch.linspace(-3, 10, x.size(0), dtype=I64) + x,
        [T(7, dtype=I64)]),
    Row("linspace.one_step", "aten::linspace", lambda x: torch.linspace(2, 5, x.size(0)) + x, [T(1)]),
    Row("hann_window", "aten::hann_window", lambda x: torch.hann_window(x.size(0)) * x, [T(6)],
        dynamic={"in0": {0: "n"}}),
    Row("hann_window.symmetric", "aten::hann_window", lambda x: torch.hann_window(x.size(-1), periodic=False) * x,
        [T(2, 5)]),
    Row("hann_window.length_one", "aten::hann_window", lambda x: torch.hann_window(x.size(0), periodic=False) + x,
        [T(1)]),
    Row("_dim_arange", "aten::_dim_arange", lambda x: torch._dim_arange(x, 1) + x, [T(3, 4, dtype=I64)],
        dynamic={"in0": {1: "n"}}),
    Row("_shape_as_tensor", "aten::_shape_as_tensor", lambda x: x[:, :2] * torch._shape_as_tensor(x), [T(3, 2)],
        dynamic={"in0": {0: "n"}}),
    Row("_reshape_from_tensor", "aten::_reshape_from_tensor",
        lambda x: torch._reshape_from_tensor(x, torch._shape_as_tensor(x)[[1, 0]]), [T(3, 4)],
        dynamic={"in0": {0: "n"}, "out0": {1: "n"}}),
    Row("tensor", "aten::tensor", lambda x: x * torch.tensor(x.size(0)), [T(3, 4)], dynamic={"in0": {0: "n"}}),
    Row("tensor.list_float", "aten::tensor", lambda x: x[:, :2] * torch.tensor([x.size(0), x.size(1)], dtype=torch.float32),
        [T(3, 4)], dynamic={"in0": {0: "n"}}),
    Row("as_tensor", "aten::as_tensor", lambda x: x + torch.as_tensor(x.size(1)), [T(3, 4, dtype=I64)],
        dynamic={"in0": {1: "n"}}),
    Row("scalar_tensor", "aten::scalar_tensor", lambda x: x / torch.scalar_tensor(x.size(0)), [T(3, 4)],
        dynamic={"in0": {0: "n"}}),

    # ---------------------------------------------------------------- random generators (values differ from torch's)
    Row("rand", "aten::rand", lambda x: torch.rand(x.shape) + x, [T(3, 4)], tol="shape", dynamic={"in0": {0: "n"}}),
    Row("rand.float64", "aten::rand", lambda x: torch.rand(x.size(0), 2, dtype=F64), [T(3, 4)], tol="shape"),
    Row("randn", "aten::randn", lambda x: torch.randn(x.size(0), 2) * x[:, :2], [T(3, 4)], tol="shape"),
    Row("randn.float16", "aten::randn", lambda x: torch.randn(x.shape, dtype=F16), [T(2, 3)], tol="shape"),
    Row("rand_like.float16", "aten::rand_like", lambda x: torch.rand_like(x), [T(2, 3, dtype=F16)], tol="shape"),
    Row("randn_like.float16", "aten::randn_like", lambda x: torch.randn_like(x), [T(2, 3, dtype=F16)], tol="shape"),
    Row("randint", "aten::randint", lambda x: torch.randint(2, 7, x.shape) + x, [T(3, 4, dtype=I64)], tol="shape",
        dynamic={"in0": {1: "n"}}),
    Row("randint.high_only_int32", "aten::randint", lambda x: torch.randint(5, (x.size(0),), dtype=I32),
        [T(3, 4)], tol="shape"),
    Row("bernoulli", "aten::bernoulli", lambda x: torch.bernoulli(torch.sigmoid(x)), [T(3, 4)], tol="shape",
        opsets=(9, 13, 15, 17)),
    Row("bernoulli.p", "aten::bernoulli", lambda x: torch.zeros_like(x).bernoulli_(0.3) * x, [T(3, 4)], tol="shape"),
    Row("bernoulli.float64", "aten::bernoulli", lambda x: torch.bernoulli(x), [T(3, 4, dtype=F64, lo=0.0, hi=1.0)],
        tol="shape", opsets=(9, 13, 15, 17)),
    Row("normal", "aten::normal", lambda x: torch.normal(x, 0.5), [T(3, 4)], tol="shape"),
    Row("normal.tensor_std", "aten::normal", lambda x: torch.normal(1.0, x.abs()), [T(3, 4)], tol="shape"),
    Row("normal.both_tensors", "aten::normal", lambda m, s: torch.normal(m, s.abs()), [T(3, 4), T(4)], tol="shape"),
    Row("multinomial", "aten::multinomial", lambda x: torch.multinomial(x, 3, replacement=True),
        [T(2, 5, lo=0.1, hi=1.0)], tol="shape"),
    Row("multinomial.one_sample_1d", "aten::multinomial", lambda x: torch.multinomial(x, 1), [T(6, lo=0.1, hi=1.0)],
        tol="shape"),
    Row("multinomial.without_replacement", "aten::multinomial", lambda x: torch.multinomial(x, 2),
        [T(2, 5, lo=0.1, hi=1.0)], tol="shape",
        refuse=Refuse("multinomial without replacement of more than one sample is not exported (ONNX Multinomial "
                      "draws with replacement); pass replacement=True")),

    # ---------------------------------------------------------------- unique, bucketize
    Row("_unique2", "aten::_unique2", lambda x: torch.unique(x), [T(3, 4, dtype=I64, lo=0, hi=30)], since=11),
    Row("_unique2.inverse_counts", "aten::_unique2",
        lambda x: torch.unique(x, return_inverse=True, return_counts=True), [T(3, 4, dtype=I64, lo=0, hi=4)], since=11),
    Row("_unique2.float", "aten::_unique2", lambda x: torch.unique(torch.floor(x * 4), return_counts=True), [T(4, 5)],
        since=11),
    Row("_unique2.int32_inverse", "aten::_unique2", lambda x: torch.unique(x, return_inverse=True),
        [T(2, 5, dtype=I32, lo=0, hi=3)], since=11),
    # values and counts in one output: the values alone ([False, True]) would not vary
    Row("_unique2.bool", "aten::_unique2", lambda x: torch.cat([c.long() for c in torch.unique(x > 0, return_counts=True)]),
        [T(2, 5)], since=11),
    # torch leaves the order of sorted=False unspecified (its CPU kernel hashes): only the shapes compare
    Row("_unique2.unsorted", "aten::_unique2", lambda x: torch.unique(x, sorted=False),
        [T(3, 4, dtype=I64, lo=0, hi=4)], since=11, tol="shape"),
    Row("_unique", "aten::_unique", lambda x: torch._unique(x, True, True), [T(3, 4, dtype=I64, lo=0, hi=4)], since=11),
    Row("unique_dim", "aten::unique_dim", lambda x: torch.unique(x, dim=0, return_inverse=True, return_counts=True),
        [T(6, 2, dtype=I64, lo=0, hi=1)], since=11),
    Row("unique_dim.last", "aten::unique_dim", lambda x: torch.unique(x, dim=-1), [T(2, 6, dtype=I64, lo=0, hi=5)],
        since=11),
    Row("bucketize", "aten::bucketize", lambda x: torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5, 1.0])), [T(3, 4)]),
    Row("bucketize.right_int32", "aten::bucketize",
        lambda x: torch.bucketize(x, torch.tensor([-2, 0, 1, 3]), right=True, out_int32=True), [T(3, 4, dtype=I64)]),
    # Operands of two dtypes: the promoted one is a Cast the pack built, whose rank it needs.
    Row("bucketize.float64_values", "aten::bucketize",
        lambda x: torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5, 1.0])), [T(3, 4, dtype=F64)]),
    Row("bucketize.float_values_int_boundaries", "aten::bucketize",
        lambda x: torch.bucketize(x, torch.tensor([-2, 0, 1, 3])), [T(3, 4, lo=-3.0, hi=4.0)]),
    Row("bucketize.traced_boundaries", "aten::bucketize", lambda x, b: torch.bucketize(x, b.cumsum(0)),
        [T(5), T(4, lo=0.1, hi=1.0)], since=11),
    Row("searchsorted", "aten::searchsorted", lambda s, x: torch.searchsorted(s.cumsum(-1), x),
        [T(2, 5, lo=0.1, hi=1.0), T(2, 3, lo=0.0, hi=3.0)], since=11),
    Row("searchsorted.right_1d", "aten::searchsorted",
        lambda x: torch.searchsorted(torch.tensor([0, 1, 1, 3]), x, side="right"), [T(2, 3, dtype=I64, lo=-1, hi=4)]),
    Row("searchsorted.sorter", "aten::searchsorted",
        lambda x: torch.searchsorted(torch.tensor([3.0, 1.0, 2.0]), x, sorter=torch.tensor([1, 2, 0])), [T(4)],
        refuse=Refuse("searchsorted with a sorter is not exported; sort the sequence first")),

    # ---------------------------------------------------------------- empty and new_* (empty values: filled before use)
    Row("empty", "aten::empty", lambda x: torch.empty(x.shape).fill_(2.0) * x, [T(3, 4)], dynamic={"in0": {0: "n"}}),
    Row("empty.int64", "aten::empty", lambda x: torch.empty(x.size(0), dtype=I64).fill_(3) + x, [T(4, dtype=I64)]),
    Row("empty_like", "aten::empty_like", lambda x: torch.empty_like(x).fill_(1.5) - x, [T(3, 4)]),
    Row("empty_like.inplace_copy", "aten::empty_like", lambda x: torch.empty_like(x).copy_(x) * 2, [T(3, 4, dtype=I32)]),
    Row("new_zeros", "aten::new_zeros", lambda x: x.new_zeros(x.shape) + x, [T(3, 4)], dynamic={"in0": {1: "n"}}),
    Row("new_zeros.int64_constant_size", "aten::new_zeros", lambda x: x.new_zeros((3, 4)) + x, [T(3, 4, dtype=I64)]),
    Row("new_ones", "aten::new_ones", lambda x: x.new_ones(x.size(0), 1) * x, [T(3, 4, dtype=F64)]),
    Row("new_full", "aten::new_full", lambda x: x.new_full(x.shape, 2.5) * x, [T(3, 4)]),
    Row("new_full.dtype", "aten::new_full", lambda x: x.new_full((x.size(0),), 7, dtype=I64) + x[:, 0].long(), [T(3, 4)]),
    Row("new_empty", "aten::new_empty", lambda x: x.new_empty(x.shape).fill_(4) * x, [T(2, 3)]),
]
