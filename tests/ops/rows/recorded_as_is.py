"""Rows of operators that the PyTorch host records under other names (or never sees, as
PyTorch decomposes them first) while other hosts record them by name: clamp_min/max,
relu6, type_as, the _cast_* family, max/min, _log_softmax, the *_as reshapes,
movedim, numpy_T, narrow, the unsafe_ splits, tensor_split, meshgrid, broadcast_tensors,
nonzero_numpy, _pad_circular and the identities (clone, detach, alias, resolve_*,
conj_physical).  Each row records the operator as is through `aten(...)`
(tests/ops/as_is.py) and compares against torch.ops.aten.<op> run eagerly.
Format: docs/testing-operators.md."""

import torch

from as_is import aten
from optable import Refuse, Row, T

I64, I32, BOOL, F64, F16, U8 = torch.int64, torch.int32, torch.bool, torch.float64, torch.float16, torch.uint8

# Clip's bounds become inputs at 11, where clamp_min/clamp_max and relu6 change lowering.
CLIP_OPSETS = (9, 11, 13, 17)

ROWS = [
    # ---------------------------------------------------------------- math.c
    Row("clamp_min", "aten::clamp_min", lambda x: aten("clamp_min", x, 0.5), [T(3, 4)], opsets=CLIP_OPSETS),
    Row("clamp_min.tensor", "aten::clamp_min", lambda x, m: aten("clamp_min.Tensor", x, m), [T(3, 4), T(4)],
        opsets=CLIP_OPSETS),
    Row("clamp_min.int64", "aten::clamp_min", lambda x: aten("clamp_min", x, -1), [T(3, 4, dtype=I64)],
        opsets=CLIP_OPSETS),
    Row("clamp_max", "aten::clamp_max", lambda x: aten("clamp_max", x, -0.25), [T(3, 4)], opsets=CLIP_OPSETS),
    Row("clamp_max.tensor", "aten::clamp_max", lambda x, m: aten("clamp_max.Tensor", x, m), [T(2, 3, 4), T(3, 1)],
        opsets=CLIP_OPSETS),
    Row("clamp_max.int32", "aten::clamp_max", lambda x: aten("clamp_max", x, 2), [T(3, 4, dtype=I32)],
        opsets=CLIP_OPSETS),
    Row("type_as", "aten::type_as", lambda x, o: aten("type_as", x, o), [T(3, 4, lo=-50, hi=50), T(2, dtype=I64)]),
    Row("type_as.to_float64", "aten::type_as", lambda x, o: aten("type_as", x, o),
        [T(3, 4, dtype=I32), T(2, dtype=F64)]),
    Row("_cast_Byte", "aten::_cast_Byte", lambda x: aten("_cast_Byte", x), [T(3, 4, lo=0, hi=250)]),
    Row("_cast_Char", "aten::_cast_Char", lambda x: aten("_cast_Char", x), [T(3, 4, lo=-120, hi=120)]),
    Row("_cast_Double", "aten::_cast_Double", lambda x: aten("_cast_Double", x), [T(3, 4)]),
    Row("_cast_Float", "aten::_cast_Float", lambda x: aten("_cast_Float", x, True), [T(3, 4, dtype=I64)]),
    Row("_cast_Half", "aten::_cast_Half", lambda x: aten("_cast_Half", x), [T(3, 4)]),
    Row("_cast_Int", "aten::_cast_Int", lambda x: aten("_cast_Int", x), [T(3, 4, lo=-1000, hi=1000)]),
    Row("_cast_Long", "aten::_cast_Long", lambda x: aten("_cast_Long", x), [T(3, 4, dtype=BOOL)]),
    Row("_cast_Short", "aten::_cast_Short", lambda x: aten("_cast_Short", x), [T(3, 4, lo=-3000, hi=3000)]),
    # ---------------------------------------------------------------- activation.c, softmax.c
    Row("relu6", "aten::relu6", lambda x: aten("relu6", x), [T(3, 4, lo=-9, hi=9)], opsets=CLIP_OPSETS),
    Row("_log_softmax", "aten::_log_softmax", lambda x: aten("_log_softmax", x, 1, False), [T(3, 4)]),
    Row("_log_softmax.dim0", "aten::_log_softmax", lambda x: aten("_log_softmax", x, 0, False), [T(3, 4, 2)]),
    Row("_log_softmax.float64", "aten::_log_softmax", lambda x: aten("_log_softmax", x, -1, False),
        [T(3, 4, dtype=F64)]),
    # ---------------------------------------------------------------- reduce.c: max / min, every overload
    Row("max", "aten::max", lambda x: aten("max", x), [T(3, 4)]),
    Row("max.dim", "aten::max", lambda x: aten("max.dim", x, 1), [T(3, 4, distinct=True)]),
    Row("max.dim_keepdim_negative", "aten::max", lambda x: aten("max.dim", x, -1, True), [T(2, 3, 4, distinct=True)]),
    Row("max.dim_int64", "aten::max", lambda x: aten("max.dim", x, 0), [T(5, 4, dtype=I64, lo=-1000, hi=1000)]),
    Row("max.other", "aten::max", lambda x, y: aten("max.other", x, y), [T(3, 4), T(4)]),
    Row("max.other_int64", "aten::max", lambda x, y: aten("max.other", x, y), [T(3, 4, dtype=I64), T(3, 4, dtype=I64)]),
    Row("max.int32", "aten::max", lambda x: aten("max", x), [T(3, 4, dtype=I32)]),
    Row("min", "aten::min", lambda x: aten("min", x), [T(3, 4)]),
    Row("min.dim", "aten::min", lambda x: aten("min.dim", x, 0), [T(3, 4, distinct=True)]),
    Row("min.dim_keepdim", "aten::min", lambda x: aten("min.dim", x, 1, keepdim=True), [T(3, 4, distinct=True)]),
    Row("min.other", "aten::min", lambda x, y: aten("min.other", x, y), [T(2, 1, 4), T(3, 4)]),
    Row("min.int64", "aten::min", lambda x: aten("min", x), [T(3, 4, dtype=I64)]),
    # ---------------------------------------------------------------- shape.c
    Row("view_as", "aten::view_as", lambda x, o: aten("view_as", x, o), [T(2, 6), T(3, 4)]),
    Row("reshape_as", "aten::reshape_as", lambda x, o: aten("reshape_as", x, o), [T(2, 3, 4), T(6, 4, dtype=I64)]),
    Row("reshape_as.dynamic", "aten::reshape_as", lambda x, o: aten("reshape_as", x, o), [T(2, 6), T(2, 3, 2)],
        dynamic={"in0": {0: "n"}, "in1": {0: "n"}, "out0": {0: "n"}}),
    Row("movedim", "aten::movedim", lambda x: aten("movedim.int", x, 0, 2), [T(2, 3, 4)]),
    Row("movedim.negative", "aten::movedim", lambda x: aten("movedim.int", x, -1, 0), [T(2, 3, 4)]),
    Row("movedim.intlist", "aten::movedim", lambda x: aten("movedim.intlist", x, [0, 1], [3, 0]), [T(2, 3, 4, 5)]),
    Row("numpy_T", "aten::numpy_T", lambda x: aten("numpy_T", x), [T(2, 3, 4)]),
    Row("numpy_T.1d", "aten::numpy_T", lambda x: aten("numpy_T", x), [T(5)]),
    Row("clone", "aten::clone", lambda x: aten("clone", x), [T(3, 4)]),
    Row("clone.int64", "aten::clone", lambda x: aten("clone", x), [T(3, 4, dtype=I64)]),
    Row("detach", "aten::detach", lambda x: aten("detach", x), [T(3, 4)]),
    Row("alias", "aten::alias", lambda x: aten("alias", x), [T(3, 4, dtype=BOOL)]),
    Row("resolve_conj", "aten::resolve_conj", lambda x: aten("resolve_conj", x), [T(3, 4)]),
    Row("resolve_neg", "aten::resolve_neg", lambda x: aten("resolve_neg", x), [T(3, 4, dtype=I32)]),
    Row("conj_physical", "aten::conj_physical", lambda x: aten("conj_physical", x), [T(3, 4)]),
    # ---------------------------------------------------------------- expand.c
    Row("expand_as", "aten::expand_as", lambda x, o: aten("expand_as", x, o), [T(3, 1), T(2, 3, 4)]),
    Row("expand_as.bool", "aten::expand_as", lambda x, o: aten("expand_as", x, o), [T(4, dtype=BOOL), T(3, 4)]),
    Row("broadcast_tensors", "aten::broadcast_tensors", lambda x, y, z: aten("broadcast_tensors", [x, y, z]),
        [T(3, 1), T(4, dtype=I64), T(2, 1, 1)]),
    Row("meshgrid", "aten::meshgrid", lambda x, y, z: aten("meshgrid", [x, y, z]), [T(3), T(4), T(2)]),
    Row("meshgrid.ij", "aten::meshgrid", lambda x, y: aten("meshgrid.indexing", [x, y], indexing="ij"),
        [T(3, dtype=I64), T(4, dtype=I64)]),
    Row("meshgrid.xy", "aten::meshgrid", lambda x, y, z: aten("meshgrid.indexing", [x, y, z], indexing="xy"),
        [T(3), T(4), T(2)]),
    Row("meshgrid.xy_two", "aten::meshgrid", lambda x, y: aten("meshgrid.indexing", [x, y], indexing="xy"),
        [T(3), T(4)]),
    # ---------------------------------------------------------------- join.c
    Row("unsafe_chunk", "aten::unsafe_chunk", lambda x: aten("unsafe_chunk", x, 2), [T(5, 4)]),
    Row("unsafe_split", "aten::unsafe_split", lambda x: aten("unsafe_split.Tensor", x, 2, 1), [T(3, 4)]),
    Row("unsafe_split.uneven", "aten::unsafe_split", lambda x: aten("unsafe_split.Tensor", x, 2, -1), [T(3, 5)]),
    Row("unsafe_split_with_sizes", "aten::unsafe_split_with_sizes",
        lambda x: aten("unsafe_split_with_sizes", x, [1, 3], 1), [T(3, 4)]),
    Row("tensor_split.sections", "aten::tensor_split", lambda x: aten("tensor_split.sections", x, 3), [T(7, 3)]),
    Row("tensor_split.sections_dim", "aten::tensor_split", lambda x: aten("tensor_split.sections", x, 2, -1),
        [T(2, 5, dtype=I64)]),
    Row("tensor_split.indices", "aten::tensor_split", lambda x: aten("tensor_split.indices", x, [1, 5]), [T(7, 3)]),
    Row("tensor_split.indices_back_and_out", "aten::tensor_split",
        lambda x: aten("tensor_split.indices", x, [4, 2, -2, 9], 1), [T(3, 7)], constant=(1, 4)),
    # ---------------------------------------------------------------- index.c, gather.c, pad.c
    Row("narrow", "aten::narrow", lambda x: aten("narrow", x, 1, 1, 2), [T(3, 5)]),
    Row("narrow.negative_start", "aten::narrow", lambda x: aten("narrow", x, -1, -3, 3), [T(2, 3, 5)]),
    Row("narrow.negative_start_middle", "aten::narrow", lambda x: aten("narrow", x, 0, -4, 2), [T(5, 2)]),
    # the start read from the data at run time: each input set picks its own
    Row("narrow.traced_start", "aten::narrow", lambda x: aten("narrow.Tensor", x, 1, (x[0, 0] > 0).long(), 3),
        [T(3, 5)], refuse=Refuse("narrow with a start computed from traced sizes", below=10),
        opsets=(9, 10, 13, 17)),
    Row("nonzero_numpy", "aten::nonzero_numpy", lambda x: aten("nonzero_numpy", x), [T(3, 4, dtype=I64, lo=0, hi=1)]),
    Row("nonzero_numpy.float_3d", "aten::nonzero_numpy", lambda x: aten("nonzero_numpy", torch.relu(x)),
        [T(2, 3, 4)]),
    Row("nonzero_numpy.1d", "aten::nonzero_numpy", lambda x: aten("nonzero_numpy", x), [T(6, dtype=BOOL)]),
    Row("_pad_circular", "aten::_pad_circular", lambda x: aten("_pad_circular", x, [2, 1]), [T(1, 2, 5)]),
    Row("_pad_circular.2d", "aten::_pad_circular", lambda x: aten("_pad_circular", x, [1, 1, 2, 0]), [T(1, 2, 3, 4)]),
]
