"""Rows of the running products, extrema and log-sum-exps (plugins/aten/cumulative.c): a Scan
along the dim carrying torch's own recurrence.  Format: docs/testing-operators.md."""

import torch

from optable import Row, T

I64, I32, I8, BOOL, F64 = torch.int64, torch.int32, torch.int8, torch.bool, torch.float64
# the scanned dim and another one dynamic: the Scan's length comes from the run-time shape
DYN = {"in0": {0: "batch", 1: "n"}, "out0": {0: "batch", 1: "n"}}
DYN_2 = {"in0": {0: "batch", 1: "n"}, "out0": {0: "batch", 1: "n"}, "out1": {0: "batch", 1: "n"}}
NAN, INF = float("nan"), float("inf")

ROWS = [
    # ---- cumprod
    Row("cumprod", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 5)], dynamic=DYN),
    # small integers as floats: zeros and negative values at input-dependent places (a zero
    # zeroes the rest of its row, signs alternate), where exp(cumsum(log x)) is wrong
    Row("cumprod.zeros_negatives", "aten::cumprod", lambda x: x.float().cumprod(-1),
        [T(4, 6, dtype=I64, lo=-3, hi=3)], dynamic={"in0": {1: "n"}, "out0": {1: "n"}}),
    Row("cumprod.dim0_rank3", "aten::cumprod", lambda x: torch.cumprod(x, 0), [T(4, 2, 3)]),
    # integers multiply exactly, as int64 (torch's type for bool and integer products)
    Row("cumprod.int64", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 6, dtype=I64, lo=-4, hi=4)]),
    Row("cumprod.int32", "aten::cumprod", lambda x: x.cumprod(0), [T(5, 3, dtype=I32, lo=-3, hi=3)]),
    Row("cumprod.bool", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 5, dtype=BOOL)]),
    Row("cumprod.dtype_float64", "aten::cumprod", lambda x: x.cumprod(1, dtype=F64), [T(3, 5)]),
    # int8 products wrap at 8 bits in torch, and so in the file
    Row("cumprod.dtype_int8_wraps", "aten::cumprod", lambda x: x.cumprod(1, dtype=I8),
        [T(3, 6, dtype=I64, lo=-9, hi=9)], opsets=(9, 13, 14, 17)),
    Row("cumprod.rank1", "aten::cumprod", lambda x: x.cumprod(0), [T(7)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("cumprod.rank0", "aten::cumprod", lambda x: x.cumprod(0), [T()]),
    Row("cumprod.empty_dim", "aten::cumprod", lambda x: x.cumprod(1), [T(3, 0)], constant=(0,)),

    # ---- cummax / cummin: values and indices
    Row("cummax", "aten::cummax", lambda x: x.cummax(1), [T(3, 6, distinct=True)], dynamic=DYN_2),
    Row("cummin.dim0", "aten::cummin", lambda x: torch.cummin(x, 0), [T(5, 3, distinct=True)]),
    # equal values move the index to the latest one, as torch's >= (<=)
    Row("cummax.ties", "aten::cummax", lambda x: x.float().cummax(-1), [T(4, 7, dtype=I64, lo=0, hi=2)]),
    Row("cummin.ties_int64", "aten::cummin", lambda x: x.cummin(1), [T(4, 7, dtype=I64, lo=0, hi=2)]),
    Row("cummax.int32", "aten::cummax", lambda x: x.cummax(0), [T(5, 3, dtype=I32, lo=-50, hi=50)]),
    Row("cummin.bool", "aten::cummin", lambda x: x.cummin(1), [T(3, 6, dtype=BOOL)]),
    # a nan is taken and kept (torch's order); nan_to_num makes the reference finite
    Row("cummax.nan", "aten::cummax",
        lambda x: (lambda r: (r[0].nan_to_num(nan=9.0), r[1]))(torch.where(x.abs() < 0.3, NAN, x).cummax(1)),
        [T(4, 7)]),
    Row("cummin.nan", "aten::cummin",
        lambda x: (lambda r: (r[0].nan_to_num(nan=9.0), r[1]))(torch.where(x.abs() < 0.3, NAN, x).cummin(1)),
        [T(4, 7)]),
    Row("cummax.rank1_dynamic", "aten::cummax", lambda x: x.cummax(0), [T(7, distinct=True)],
        dynamic={"in0": {0: "n"}, "out0": {0: "n"}, "out1": {0: "n"}}),
    Row("cummax.empty_dim", "aten::cummax", lambda x: x.cummax(1), [T(3, 0)], constant=(0, 1)),
    # ---- logcumsumexp
    Row("logcumsumexp", "aten::logcumsumexp", lambda x: torch.logcumsumexp(x, 1), [T(3, 6)], dynamic=DYN),
    # values far apart: a small term ahead of a large one, and sums past float32's exp range
    Row("logcumsumexp.wide_range", "aten::logcumsumexp", lambda x: x.logcumsumexp(-1), [T(4, 6, lo=-120, hi=120)]),
    # equal infinities (log(e^-inf + e^-inf) is -inf, not nan), clamped for a finite reference
    Row("logcumsumexp.infinities", "aten::logcumsumexp",
        lambda x: torch.where(x > 1.2, INF, torch.where(x < -1.2, -INF, x)).logcumsumexp(1).clamp(-50, 50),
        [T(4, 7)]),
    Row("logcumsumexp.float64_dim0", "aten::logcumsumexp", lambda x: x.logcumsumexp(0), [T(5, 3, dtype=F64)]),
]
