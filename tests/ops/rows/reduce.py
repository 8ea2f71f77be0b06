"""Rows of the reductions, sorting, norms, linear algebra and losses added for issue #10
(plugins/aten/reduce.c, norm.c, linalg.c, loss.c, and the type round trips of the older
reductions)."""

import torch
import torch.nn.functional as F

from optable import Refuse, Row, T

I64, I32, I16, U8, BOOL, F64, F16 = torch.int64, torch.int32, torch.int16, torch.uint8, torch.bool, torch.float64, torch.float16
INT_OPSETS = (9, 11, 13, 17)
BATCH = {"in0": {0: "batch"}, "out0": {0: "batch"}}
NAN = float("nan")

ROWS = [
    # ---- all / any: a count of nonzero values (ReduceSum of int64), any dtype in
    Row("all", "aten::all", lambda x: torch.all(x > -1), [T(2, 2)]),
    Row("all.dim_keepdim", "aten::all", lambda x: torch.all(x, 1, keepdim=True), [T(4, 2, dtype=BOOL)]),
    Row("all.negative_dim_float", "aten::all", lambda x: torch.all(torch.relu(x), -1), [T(4, 2)]),
    Row("all.int64", "aten::all", lambda x: x.all(0), [T(2, 4, lo=0, hi=4, dtype=I64)]),
    Row("all.uint8", "aten::all", lambda x: x.all(1), [T(4, 2, lo=0, hi=1, dtype=U8)]),
    Row("all.empty", "aten::all", lambda x: torch.all(x, 1), [T(3, 0, dtype=BOOL)], constant=(0,)),
    Row("any", "aten::any", lambda x: torch.any(x > 1), [T(2, 2)]),
    Row("any.dim", "aten::any", lambda x: x.any(-1), [T(4, 2, dtype=BOOL)]),
    Row("any.keepdim_int32", "aten::any", lambda x: torch.any(x, 1, keepdim=True), [T(4, 2, lo=-1, hi=1, dtype=I32)]),
    Row("any.float_dynamic", "aten::any", lambda x: torch.any(x > 1, 1), [T(3, 4)], dynamic=BATCH),
    # ---- prod: ReduceProd, bool and integers as int64
    Row("prod", "aten::prod", lambda x: x.prod(), [T(3, 4, lo=0.5, hi=1.5)]),
    Row("prod.dim", "aten::prod", lambda x: torch.prod(x, 1), [T(3, 4, 5)]),
    Row("prod.keepdim_negative", "aten::prod", lambda x: torch.prod(x, -1, keepdim=True), [T(3, 4)]),
    Row("prod.dtype", "aten::prod", lambda x: torch.prod(x, 1, dtype=torch.float64), [T(3, 4)]),
    Row("prod.int32", "aten::prod", lambda x: torch.prod(x, 0), [T(3, 4, dtype=I32)], opsets=INT_OPSETS),
    Row("prod.int64_all", "aten::prod", lambda x: torch.prod(x), [T(2, 3, lo=-3, hi=3, dtype=I64)], opsets=INT_OPSETS),
    Row("prod.bool", "aten::prod", lambda x: torch.prod(x, 1), [T(4, 2, dtype=BOOL)], opsets=INT_OPSETS),
    # ---- aminmax
    Row("aminmax", "aten::aminmax", lambda x: torch.aminmax(x), [T(3, 4)]),
    Row("aminmax.dim_keepdim", "aten::aminmax", lambda x: torch.aminmax(x, dim=-1, keepdim=True), [T(3, 4)]),
    Row("aminmax.int16", "aten::aminmax", lambda x: torch.aminmax(x, dim=0), [T(3, 4, dtype=I16)],
        opsets=INT_OPSETS),
    # ---- logsumexp
    Row("logsumexp", "aten::logsumexp", lambda x: torch.logsumexp(x, 1), [T(3, 4, 5)]),
    Row("logsumexp.dims_keepdim", "aten::logsumexp", lambda x: torch.logsumexp(x, (0, -1), keepdim=True),
        [T(3, 4, 5)]),
    Row("logsumexp.large", "aten::logsumexp", lambda x: torch.logsumexp(x * 100, -1), [T(3, 4)]),
    Row("logsumexp.int64", "aten::logsumexp", lambda x: torch.logsumexp(x, 1), [T(3, 4, dtype=I64)]),
    # ---- var / std / var_mean / std_mean
    Row("var", "aten::var", lambda x: x.var(), [T(3, 4)]),
    Row("var.dim_biased", "aten::var", lambda x: torch.var(x, 1, unbiased=False), [T(3, 4, 5)]),
    Row("var.correction_dims", "aten::var", lambda x: torch.var(x, (0, -1), correction=2, keepdim=True),
        [T(3, 4, 5)]),
    Row("var.float64", "aten::var", lambda x: torch.var(x, 0), [T(3, 4, dtype=F64)]),
    Row("var.dynamic", "aten::var", lambda x: torch.var(x, 0), [T(3, 4)],
        dynamic={"in0": {0: "batch"}}),
    Row("std", "aten::std", lambda x: x.std(), [T(3, 4)]),
    Row("std.dim_keepdim", "aten::std", lambda x: torch.std(x, -1, keepdim=True), [T(3, 4, 5)]),
    Row("std.unbiased_false", "aten::std", lambda x: torch.std(x, unbiased=False), [T(3, 4)]),
    Row("var_mean", "aten::var_mean", lambda x: torch.var_mean(x, 1), [T(3, 4, 5)]),
    Row("var_mean.all", "aten::var_mean", lambda x: torch.var_mean(x), [T(3, 4)]),
    Row("std_mean", "aten::std_mean", lambda x: torch.std_mean(x, (0, 2), keepdim=True), [T(3, 4, 5)]),
    Row("std_mean.correction", "aten::std_mean", lambda x: torch.std_mean(x, -1, correction=0), [T(3, 4)]),
    # ---- the older reductions on types their ONNX op lacks: a cast round trip
    Row("amax.bool", "aten::amax", lambda x: torch.amax(x, 1), [T(4, 2, dtype=BOOL)], opsets=INT_OPSETS),
    Row("amax.int16", "aten::amax", lambda x: torch.amax(x, 0), [T(3, 4, dtype=I16)], opsets=INT_OPSETS),
    Row("amin.int8", "aten::amin", lambda x: torch.amin(x, -1), [T(3, 4, dtype=torch.int8)],
        opsets=(9, 11, 12, 13, 17)),
    Row("amin.uint8_keepdim", "aten::amin", lambda x: torch.amin(x, 0, keepdim=True), [T(3, 4, lo=0, hi=9, dtype=U8)],
        opsets=(9, 11, 12, 13, 17)),
    Row("mean.dtype_from_int", "aten::mean", lambda x: torch.mean(x, 1, dtype=torch.float32), [T(3, 4, dtype=I64)]),
    Row("sum.uint8", "aten::sum", lambda x: torch.sum(x, 1), [T(3, 4, lo=0, hi=9, dtype=U8)], opsets=INT_OPSETS),
    Row("cumsum.bool", "aten::cumsum", lambda x: torch.cumsum(x, 1), [T(3, 4, dtype=BOOL)], since=11),
    Row("cumsum.int32", "aten::cumsum", lambda x: torch.cumsum(x, 0), [T(3, 4, dtype=I32)], since=11),
    # ---- sort / argsort: TopK over the whole dim
    Row("sort", "aten::sort", lambda x: torch.sort(x), [T(3, 5, distinct=True)]),
    Row("sort.descending_dim0", "aten::sort", lambda x: torch.sort(x, 0, descending=True), [T(4, 3, distinct=True)]),
    Row("sort.int64", "aten::sort", lambda x: torch.sort(x, -1), [T(3, 5, lo=0, hi=100, dtype=I64)]),
    Row("sort.int32_descending", "aten::sort", lambda x: torch.sort(x * 7 + torch.arange(5, dtype=I32), -1,
                                                                      descending=True),
        [T(3, 5, lo=0, hi=3, dtype=I32)], opsets=INT_OPSETS),
    Row("sort.stable_ties", "aten::sort", lambda x: torch.sort(x, stable=True), [T(3, 6, lo=0, hi=2, dtype=I64)],
        refuse=Refuse("a stable sort needs TopK's tie order", below=11), opsets=(9, 11, 13, 17)),
    Row("sort.stable_descending_ties", "aten::sort", lambda x: torch.sort(x.float(), dim=-1, descending=True, stable=True),
        [T(3, 6, lo=0, hi=2, dtype=I64)], since=11),
    Row("sort.dynamic", "aten::sort", lambda x: torch.sort(x, 1, descending=True), [T(2, 5, distinct=True)],
        dynamic={"in0": {1: "n"}, "out0": {1: "n"}},
        xfail={9: "TopK's k is an attribute at opset 9: the example's size is baked in"}),
    # ---- median / kthvalue: TopK of the k smallest, the last one gathered
    # (not distinct: those inputs are one set of values permuted, with one median)
    Row("median.all", "aten::median", lambda x: x.median(), [T(3, 5)]),
    Row("median.all_even", "aten::median", lambda x: torch.median(x), [T(2, 3, 2)]),
    # the position (n - 1) // 2 follows the run-time size (TopK's k input from opset 10)
    Row("median.all_dynamic", "aten::median", lambda x: x.median(), [T(3, 5)],
        dynamic={"in0": {0: "a", 1: "b"}}, opsets=(10, 11, 13, 17)),
    Row("median.dim", "aten::median", lambda x: x.median(1), [T(3, 5, distinct=True)]),
    Row("median.dim_keepdim_even", "aten::median", lambda x: x.median(0, keepdim=True), [T(4, 3, distinct=True)]),
    Row("median.dim_dynamic", "aten::median", lambda x: torch.median(x, -1), [T(3, 6, distinct=True)],
        dynamic={"in0": {0: "b", 1: "n"}, "out0": {0: "b"}, "out1": {0: "b"}}, opsets=(9, 10, 11, 13, 17),
        xfail={9: "TopK's k is an attribute at opset 9: the example's (n - 1) // 2 is baked in (the export warns)"}),
    # ties, and rows of one repeated value (the appended ones): the index of a stable sort,
    # which torch's median returns too; TopK orders ties so from opset 11
    Row("median.ties_all_equal_rows", "aten::median",
        lambda x: torch.cat([x.float(), x[:, :1].float().expand(-1, 7)]).median(1),
        [T(4, 7, dtype=I64, lo=0, hi=2)], opsets=(11, 13, 17)),
    # nan: a row's median is nan at its first nan's index (nan_to_num keeps the reference
    # finite); kthvalue orders nan last, so the k-th is nan when fewer than k are not (which
    # nan's index torch returns then is its partitioning's choice, as on ties: the values)
    Row("median.nan", "aten::median",
        lambda x: (lambda r: (r[0].nan_to_num(nan=9.0), r[1]))(torch.where(x.abs() < 0.1, NAN, x).median(1)),
        [T(6, 7, distinct=True)]),
    Row("median.all_nan_or_not", "aten::median",
        lambda x, y: torch.stack([x.median(), torch.where(y.abs() < 0.3, NAN, y).median()]).nan_to_num(nan=9.0),
        [T(3, 5), T(3, 5, distinct=True)]),
    Row("kthvalue.nan", "aten::kthvalue",
        lambda x: torch.where(x.abs() < 0.5, NAN, x).kthvalue(5, 1)[0].nan_to_num(nan=9.0),
        [T(6, 7, distinct=True)]),
    Row("median.int64", "aten::median", lambda x: (x * 16 + torch.arange(5)).median(1),
        [T(3, 5, dtype=I64, lo=-9, hi=9)]),
    Row("median.rank0", "aten::median", lambda x: x.median(0), [T()], constant=(1,)),
    Row("kthvalue", "aten::kthvalue", lambda x: x.kthvalue(2, 1), [T(3, 5, distinct=True)]),
    Row("kthvalue.default_dim", "aten::kthvalue", lambda x: torch.kthvalue(x, 4), [T(2, 3, 5, distinct=True)]),
    Row("kthvalue.keepdim_dim0", "aten::kthvalue", lambda x: x.kthvalue(3, 0, keepdim=True), [T(4, 3, distinct=True)]),
    # k is a constant, the dim dynamic: no size is read
    Row("kthvalue.dynamic", "aten::kthvalue", lambda x: x.kthvalue(2, 1), [T(3, 5, distinct=True)],
        dynamic={"in0": {0: "b", 1: "n"}, "out0": {0: "b"}, "out1": {0: "b"}}),
    # k computed from the size ((n + 1) // 2, a median by kthvalue): TopK's k input from
    # opset 10; at 9 the recorder keeps the example's k with a warning
    Row("kthvalue.traced_k", "aten::kthvalue", lambda x: x.kthvalue((x.shape[1] + 1) // 2, 1),
        [T(3, 5, distinct=True)], dynamic={"in0": {0: "b", 1: "n"}, "out0": {0: "b"}, "out1": {0: "b"}},
        opsets=(9, 10, 13, 17), xfail={9: "TopK's k is an attribute at opset 9: the example's k is kept (warned)"}),
    # on ties torch's kthvalue picks an index by its partitioning (the YAML says so): the values
    Row("kthvalue.ties_values", "aten::kthvalue", lambda x: x.float().kthvalue(3, 1)[0],
        [T(4, 6, dtype=I64, lo=0, hi=3)]),
    Row("kthvalue.int32", "aten::kthvalue", lambda x: (x * 16 + torch.arange(5, dtype=I32)).kthvalue(2, 1),
        [T(3, 5, dtype=I32, lo=-9, hi=9)]),
    Row("kthvalue.rank0", "aten::kthvalue", lambda x: x.kthvalue(1, 0), [T()], constant=(1,)),
    Row("argsort", "aten::argsort", lambda x: torch.argsort(x), [T(3, 5, distinct=True)]),
    Row("argsort.descending_dim0", "aten::argsort", lambda x: x.argsort(0, descending=True), [T(4, 3, distinct=True)]),
    Row("argsort.stable", "aten::argsort", lambda x: torch.argsort(x, stable=True), [T(3, 6, lo=0, hi=2, dtype=I64)],
        since=11),
]

ROWS += [
    # ---- norm / linalg_vector_norm: ReduceL1/L2, Max/Min of Abs, a nonzero count, Pow
    Row("norm", "aten::norm", lambda x: x.norm(2), [T(3, 4)]),
    Row("norm.p2_dim_keepdim", "aten::norm", lambda x: torch.norm(x, 2, dim=-1, keepdim=True), [T(3, 4, 5)]),
    Row("norm.p1_dim", "aten::norm", lambda x: torch.norm(x, p=1, dim=1), [T(3, 4, 5)]),
    # ---- frobenius_norm: torch.norm's default order -> ReduceL2
    Row("frobenius_norm", "aten::frobenius_norm", lambda x: x.norm(), [T(3, 4)]),
    Row("frobenius_norm.dim_keepdim", "aten::frobenius_norm", lambda x: torch.norm(x, dim=-1, keepdim=True), [T(3, 4, 5)]),
    Row("frobenius_norm.two_dims", "aten::frobenius_norm", lambda x: torch.norm(x, p="fro", dim=(0, -1)), [T(3, 4, 5)]),
    Row("frobenius_norm.dynamic", "aten::frobenius_norm", lambda x: torch.norm(x, dim=1), [T(2, 4)], dynamic=BATCH),
    Row("norm.inf", "aten::norm", lambda x: torch.norm(x, p=float("inf"), dim=-1), [T(3, 4)]),
    Row("norm.p3", "aten::norm", lambda x: torch.norm(x, p=3, dim=0), [T(3, 4)]),
    Row("norm.float64", "aten::norm", lambda x: torch.norm(x, 1, dim=1), [T(3, 4, dtype=F64)]),
    Row("norm.dynamic", "aten::norm", lambda x: torch.norm(x, 2, dim=1), [T(2, 4)], dynamic=BATCH),
    Row("linalg_vector_norm", "aten::linalg_vector_norm", lambda x: torch.linalg.vector_norm(x), [T(3, 4)]),
    Row("linalg_vector_norm.ord_neg_inf", "aten::linalg_vector_norm",
        lambda x: torch.linalg.vector_norm(x, float("-inf"), dim=1), [T(3, 4)]),
    Row("linalg_vector_norm.ord0", "aten::linalg_vector_norm", lambda x: torch.linalg.vector_norm(torch.relu(x), 0, dim=-1),
        [T(3, 4)]),
    Row("linalg_vector_norm.ord_half_keepdim", "aten::linalg_vector_norm",
        lambda x: torch.linalg.vector_norm(x, 0.5, dim=(1, 2), keepdim=True), [T(2, 3, 4)]),
    Row("linalg_vector_norm.dtype", "aten::linalg_vector_norm",
        lambda x: torch.linalg.vector_norm(x, 1, dim=0, dtype=torch.float64), [T(3, 4)]),
    # ---- linalg_matrix_norm / linalg_norm: the orders without singular values
    Row("linalg_matrix_norm", "aten::linalg_matrix_norm", lambda x: torch.linalg.matrix_norm(x), [T(2, 3, 4)]),
    Row("linalg_matrix_norm.ord1", "aten::linalg_matrix_norm", lambda x: torch.linalg.matrix_norm(x, ord=1), [T(2, 3, 4)]),
    Row("linalg_matrix_norm.ord_neg1_keepdim", "aten::linalg_matrix_norm",
        lambda x: torch.linalg.matrix_norm(x, ord=-1, keepdim=True), [T(2, 3, 4)]),
    Row("linalg_matrix_norm.inf_dims", "aten::linalg_matrix_norm",
        lambda x: torch.linalg.matrix_norm(x, ord=float("inf"), dim=(0, 2)), [T(3, 2, 4)]),
    Row("linalg_matrix_norm.neg_inf_reversed_dims", "aten::linalg_matrix_norm",
        lambda x: torch.linalg.matrix_norm(x, ord=float("-inf"), dim=(-1, -2)), [T(2, 3, 4)]),
    Row("linalg_matrix_norm.nuc", "aten::linalg_matrix_norm", lambda x: torch.linalg.matrix_norm(x, ord="nuc"),
        [T(3, 3)], refuse=Refuse("argument 'ord' is 'nuc': this matrix norm is a function of the singular values, "
                                 "and ONNX has no singular value decomposition")),
    Row("linalg_matrix_norm.ord2", "aten::linalg_matrix_norm", lambda x: torch.linalg.matrix_norm(x, ord=2),
        [T(3, 3)], refuse=Refuse("argument 'ord' is 2: this matrix norm is a function of the singular values")),
    Row("linalg_norm", "aten::linalg_norm", lambda x: torch.linalg.norm(x), [T(2, 3, 4)]),
    Row("linalg_norm.vector_inf", "aten::linalg_norm", lambda x: torch.linalg.norm(x, float("inf"), dim=-1), [T(3, 4)]),
    Row("linalg_norm.vector_ord3_keepdim", "aten::linalg_norm", lambda x: torch.linalg.norm(x, 3, dim=1, keepdim=True),
        [T(3, 4)]),
    Row("linalg_norm.matrix_fro_dims", "aten::linalg_norm", lambda x: torch.linalg.norm(x, dim=(0, 1)), [T(3, 4, 2)]),
    Row("linalg_norm.matrix_ord1", "aten::linalg_norm", lambda x: torch.linalg.norm(x, 1), [T(3, 4)]),
    Row("linalg_norm.matrix_nuc", "aten::linalg_norm", lambda x: torch.linalg.norm(x, "nuc"), [T(3, 4)],
        refuse=Refuse("argument 'ord' is 'nuc'")),
    # ---- pairwise_distance, cosine_similarity
    Row("pairwise_distance", "aten::pairwise_distance", lambda a, b: F.pairwise_distance(a, b), [T(3, 4), T(3, 4)]),
    # integer inputs: torch's distance is float32 (the eps it adds makes the difference float)
    Row("pairwise_distance.int32", "aten::pairwise_distance", lambda a, b: F.pairwise_distance(a, b),
        [T(3, 4, dtype=torch.int32), T(3, 4, dtype=torch.int32)]),
    Row("pairwise_distance.p1_keepdim_broadcast", "aten::pairwise_distance",
        lambda a, b: F.pairwise_distance(a, b, p=1, keepdim=True), [T(2, 3, 4), T(4)]),
    Row("pairwise_distance.inf_eps", "aten::pairwise_distance",
        lambda a, b: torch.pairwise_distance(a, b, float("inf"), 0.5), [T(3, 4), T(3, 4)]),
    Row("cosine_similarity", "aten::cosine_similarity", lambda a, b: F.cosine_similarity(a, b), [T(3, 4), T(3, 4)]),
    Row("cosine_similarity.dim_broadcast", "aten::cosine_similarity",
        lambda a, b: F.cosine_similarity(a, b, dim=-1), [T(2, 3, 4), T(3, 1)]),
    Row("cosine_similarity.dim0_eps", "aten::cosine_similarity",
        lambda a, b: torch.cosine_similarity(a * 1e-3, b, 0, 0.5), [T(3, 4), T(3, 4)]),
    Row("cosine_similarity.dynamic", "aten::cosine_similarity", lambda a, b: F.cosine_similarity(a, b),
        [T(3, 4), T(3, 4)], dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}, "out0": {0: "batch"}}),
    # ---- cdist: the norm of every pairwise difference
    Row("cdist", "aten::cdist", lambda a, b: torch.cdist(a, b), [T(2, 3, 4), T(2, 5, 4)]),
    Row("cdist.p1_2d", "aten::cdist", lambda a, b: torch.cdist(a, b, p=1.0), [T(3, 4), T(5, 4)]),
    Row("cdist.inf_broadcast", "aten::cdist", lambda a, b: torch.cdist(a, b, p=float("inf")), [T(2, 3, 4), T(5, 4)]),
    Row("cdist.dynamic", "aten::cdist", lambda a, b: torch.cdist(a, b), [T(3, 4), T(5, 4)],
        dynamic={"in0": {0: "p"}, "in1": {0: "r"}, "out0": {0: "p", 1: "r"}}),
    Row("_cdist_forward", "aten::_cdist_forward", lambda a, b: torch.ops.aten._cdist_forward(a, b, 2.0, None), [T(3, 4), T(5, 4)]),
]

ROWS += [
    # ---- dot / mv -> MatMul
    Row("dot", "aten::dot", lambda a, b: torch.dot(a, b), [T(4), T(4)]),
    Row("dot.int64", "aten::dot", lambda a, b: torch.dot(a, b), [T(6, dtype=I64), T(6, dtype=I64)]),
    Row("linalg_cross.dim_middle", "aten::linalg_cross", lambda a, b: torch.linalg.cross(a, b, dim=-2),
        [T(2, 3, 4), T(2, 3, 4)]),
    Row("mv", "aten::mv", lambda a, b: torch.mv(a, b), [T(3, 4), T(4)]),
    Row("mv.float64", "aten::mv", lambda a, b: a.mv(b), [T(3, 4, dtype=F64), T(4, dtype=F64)]),
    # torch.outer, tensordot and einsum reach the dispatcher as views, mul, permutes and (b)mm
    Row("outer", "aten::outer", lambda a, b: torch.outer(a, b), [T(4), T(3)]),
    Row("outer.ger_int64_float", "aten::outer", lambda a, b: a.ger(b), [T(4, dtype=I64), T(3)]),
    Row("mm.tensordot_opset11", "aten::mm", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])),
        [T(2, 3, 4), T(3, 4, 5)], opsets=(9, 11)),
    Row("tensordot", "aten::tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])),
        [T(2, 3, 4), T(3, 4, 5)], since=12),
    Row("tensordot.int_dims", "aten::tensordot", lambda a, b: torch.tensordot(a, b, 1), [T(2, 3), T(3, 4, 2)], since=12),
    Row("tensordot.crossed_negative_dims", "aten::tensordot",
        lambda a, b: torch.tensordot(a, b, dims=([0, -1], [1, 0])), [T(4, 3, 2), T(2, 4, 5)], since=12),
    Row("tensordot.dynamic", "aten::tensordot", lambda a, b: torch.tensordot(a, b, dims=([1], [0])),
        [T(2, 3), T(3, 4)], since=12, dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("bmm.einsum_opset11", "aten::bmm", lambda a, b: torch.einsum("bij,bjk->bik", a, b), [T(2, 3, 4), T(2, 4, 5)],
        opsets=(9, 11)),
    # ---- linalg_cross (torch.cross): two Gathers per operand
    Row("linalg_cross", "aten::linalg_cross", lambda a, b: torch.linalg.cross(a, b), [T(4, 3), T(4, 3)]),
    Row("linalg_cross.dim0_broadcast", "aten::linalg_cross", lambda a, b: torch.linalg.cross(a, b, dim=0),
        [T(3, 4), T(3, 1)]),
    Row("cross", "aten::cross", lambda a, b: torch.cross(a, b, dim=1), [T(4, 3), T(4, 3)]),
    Row("cross.no_dim_first_of_size_3", "aten::cross", lambda a, b: a.cross(b), [T(2, 3, 3), T(2, 3, 3)]),
    Row("linalg_cross.int64", "aten::linalg_cross", lambda a, b: torch.linalg.cross(a, b), [T(2, 3, dtype=I64), T(2, 3, dtype=I64)]),
    # ---- determinants: Det from opset 11
    Row("linalg_det", "aten::linalg_det", lambda a: torch.linalg.det(a), [T(4, 4)], since=11),
    Row("linalg_det.batched", "aten::linalg_det", lambda a: torch.det(a), [T(2, 3, 3)], since=11),
    Row("linalg_det.method_float64", "aten::linalg_det", lambda a: a.det(), [T(3, 3, dtype=F64)], since=11),
    Row("linalg_det.opset9", "aten::linalg_det", lambda a: torch.linalg.det(a), [T(3, 3)], opsets=(9, 10),
        refuse=Refuse("aten::linalg_det")),
    Row("logdet", "aten::logdet", lambda a: torch.logdet(a @ a.transpose(-1, -2) + 0.5), [T(2, 3, 3)], since=11),
    Row("logdet.opset9", "aten::logdet", lambda a: torch.logdet(a), [T(3, 3)], opsets=(9,), refuse=Refuse("aten::logdet")),
]


def logp(x):
    return torch.log_softmax(x, 1)


ROWS += [
    # ---- nll_loss (NegativeLogLikelihoodLoss from opset 12): F.nll_loss records nll_loss_nd
    Row("nll_loss_nd", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t), [T(4, 5), T(4, lo=0, hi=4, dtype=I64)],
        since=12),
    Row("nll_loss_nd.none_weight", "aten::nll_loss_nd", lambda x, t, w: F.nll_loss(logp(x), t, w, reduction="none"),
        [T(4, 5), T(4, lo=0, hi=4, dtype=I64), T(5, lo=0.1, hi=1.0)], since=12),
    Row("nll_loss_nd.sum_ignore", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t, ignore_index=2, reduction="sum"),
        [T(6, 3), T(6, lo=0, hi=2, dtype=I64)], since=12),
    Row("nll_loss_nd.mean_weight_ignore", "aten::nll_loss_nd",
        lambda x, t, w: F.nll_loss(logp(x), t, w, ignore_index=0), [T(6, 3), T(6, lo=0, hi=2, dtype=I64), T(3, lo=0.1, hi=1.0)],
        since=12),
    Row("nll_loss_nd.3d_none", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t, reduction="none"),
        [T(2, 3, 4), T(2, 4, lo=0, hi=2, dtype=I64)], since=12),
    # the target is made rank 0 in the graph: ONNX Runtime's node binding feeds a rank-0 input as [1]
    Row("nll_loss_nd.unbatched_none", "aten::nll_loss_nd",
        lambda x, t: F.nll_loss(torch.log_softmax(x, 0), t[0], reduction="none", ignore_index=3),
        [T(5), T(1, lo=0, hi=4, dtype=I64)], since=12),
    Row("nll_loss_nd.unbatched_mean_weight", "aten::nll_loss_nd",
        lambda x, t, w: F.nll_loss(torch.log_softmax(x, 0), t[0], w),
        [T(3), T(1, lo=0, hi=2, dtype=I64), T(3, lo=0.1, hi=1.0)], since=12),
    Row("nll_loss_nd.float64", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t), [T(4, 5, dtype=F64), T(4, lo=0, hi=4, dtype=I64)],
        since=12),
    Row("nll_loss_nd.dynamic", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t, reduction="none"),
        [T(4, 5), T(4, lo=0, hi=4, dtype=I64)], since=12,
        dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}, "out0": {0: "batch"}}),
    Row("nll_loss_nd.opset11", "aten::nll_loss_nd", lambda x, t: F.nll_loss(logp(x), t), [T(4, 5), T(4, lo=0, hi=4, dtype=I64)],
        opsets=(9, 11), refuse=Refuse("aten::nll_loss_nd")),
    Row("nll_loss", "aten::nll_loss", lambda x, t: torch._C._nn.nll_loss(logp(x), t, None, 1), [T(4, 5), T(4, lo=0, hi=4, dtype=I64)],
        since=12),
    Row("nll_loss2d", "aten::nll_loss2d", lambda x, t: torch._C._nn.nll_loss2d(logp(x), t, None, 2),
        [T(2, 3, 4, 4), T(2, 4, 4, lo=0, hi=2, dtype=I64)], since=12),
    # ---- cross_entropy_loss (SoftmaxCrossEntropyLoss from opset 12)
    Row("cross_entropy_loss", "aten::cross_entropy_loss", lambda x, t: F.cross_entropy(x, t),
        [T(4, 5), T(4, lo=0, hi=4, dtype=I64)], since=12),
    Row("cross_entropy_loss.none_weight_ignore", "aten::cross_entropy_loss",
        lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=1, reduction="none"),
        [T(6, 3), T(6, lo=0, hi=2, dtype=I64), T(3, lo=0.1, hi=1.0)], since=12),
    Row("cross_entropy_loss.4d_sum", "aten::cross_entropy_loss", lambda x, t: F.cross_entropy(x, t, reduction="sum"),
        [T(2, 3, 4, 4), T(2, 4, 4, lo=0, hi=2, dtype=I64)], since=12),
    Row("cross_entropy_loss.unbatched_sum_weight", "aten::cross_entropy_loss",
        lambda x, t, w: F.cross_entropy(x, t[0], w, reduction="sum"), [T(5), T(1, lo=0, hi=4, dtype=I64), T(5, lo=0.1, hi=1.0)],
        since=12),
    Row("cross_entropy_loss.probabilities", "aten::cross_entropy_loss", lambda x, p: F.cross_entropy(x, p.softmax(1)),
        [T(4, 5), T(4, 5)], since=12),
    Row("cross_entropy_loss.probabilities_smoothing_weight", "aten::cross_entropy_loss",
        lambda x, p, w: F.cross_entropy(x, p.softmax(1), w, label_smoothing=0.2, reduction="none"),
        [T(2, 3, 4), T(2, 3, 4), T(3, lo=0.1, hi=1.0)], since=12),
    Row("cross_entropy_loss.label_smoothing", "aten::cross_entropy_loss",
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), [T(4, 5), T(4, lo=0, hi=4, dtype=I64)], since=12,
        refuse=Refuse("argument 'label_smoothing' is 0.1 with class-index targets; SoftmaxCrossEntropyLoss has no "
                      "label smoothing")),
    Row("cross_entropy_loss.opset11", "aten::cross_entropy_loss", lambda x, t: F.cross_entropy(x, t),
        [T(4, 5), T(4, lo=0, hi=4, dtype=I64)], opsets=(9, 11), refuse=Refuse("aten::cross_entropy_loss")),
    # ---- binary_cross_entropy_with_logits: the stable softplus form
    Row("binary_cross_entropy_with_logits", "aten::binary_cross_entropy_with_logits",
        lambda x, y: F.binary_cross_entropy_with_logits(x, y), [T(3, 4), T(3, 4, lo=0, hi=1)]),
    Row("binary_cross_entropy_with_logits.weights_none", "aten::binary_cross_entropy_with_logits",
        lambda x, y, w, pw: F.binary_cross_entropy_with_logits(x * 4, y, w, reduction="none", pos_weight=pw),
        [T(3, 4), T(3, 4, lo=0, hi=1), T(4, lo=0.1, hi=1), T(4, lo=0.5, hi=3)]),
    Row("binary_cross_entropy_with_logits.sum_float64", "aten::binary_cross_entropy_with_logits",
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="sum"), [T(5, dtype=F64), T(5, lo=0, hi=1, dtype=F64)]),
    # ---- kl_div
    Row("kl_div", "aten::kl_div", lambda x, t: F.kl_div(logp(x), t.softmax(1), reduction="sum"), [T(3, 4), T(3, 4)]),
    Row("kl_div.batchmean_zero_target", "aten::kl_div", lambda x, t: F.kl_div(logp(x), torch.relu(t), reduction="batchmean"),
        [T(3, 4), T(3, 4)]),
    Row("kl_div.none_log_target", "aten::kl_div",
        lambda x, t: F.kl_div(logp(x), logp(t), reduction="none", log_target=True), [T(3, 4), T(3, 4)]),
    Row("kl_div.mean", "aten::kl_div", lambda x, t: F.kl_div(logp(x), t.softmax(1)), [T(3, 4), T(3, 4)]),
]

ROWS += [
    # ---- topk on integers: TopK takes floats only before opset 11
    Row("topk.int64", "aten::topk", lambda x: torch.topk(x * 16 + torch.arange(5), 2, dim=1),
        [T(3, 5, lo=0, hi=3, dtype=I64)], opsets=INT_OPSETS),
    Row("topk.int32_smallest", "aten::topk", lambda x: torch.topk(x * 16 + torch.arange(5, dtype=I32), 2, largest=False),
        [T(3, 5, lo=0, hi=3, dtype=I32)], since=11),
    Row("topk.uint8", "aten::topk", lambda x: torch.topk(x * 16 + torch.arange(5, dtype=U8), 3),
        [T(2, 5, lo=0, hi=3, dtype=U8)], opsets=INT_OPSETS),
    Row("var.float16", "aten::var", lambda x: torch.var(x, 1), [T(3, 4, dtype=F16)]),
]

ROWS += [
    # ---- einsum -> Einsum from opset 12 (below it: the products above)
    Row("einsum", "aten::einsum", lambda a, b: torch.einsum("bij,bjk->bik", a, b), [T(2, 3, 4), T(2, 4, 5)], since=12),
    Row("einsum.spaces_implicit", "aten::einsum", lambda a, b: torch.einsum("ij, jk", a, b), [T(3, 4), T(4, 5)], since=12),
    Row("einsum.ellipsis_trace", "aten::einsum", lambda a: torch.einsum("...ii->...", a), [T(2, 3, 3)], since=12),
    # torch sums an int32 operand's diagonal as int64
    Row("einsum.ellipsis_trace_int32", "aten::einsum", lambda a: torch.einsum("...ii->...", a),
        [T(2, 3, 3, dtype=torch.int32)], since=12),
    Row("einsum.list_three_operands", "aten::einsum", lambda a, b, c: torch.einsum("i,j,k->ijk", [a, b, c]),
        [T(2), T(3), T(4)], since=12),
    Row("einsum.int64", "aten::einsum", lambda a, b: torch.einsum("ij,j->i", a, b), [T(3, 4, dtype=I64), T(4, dtype=I64)],
        since=12),
    Row("einsum.dynamic", "aten::einsum", lambda a, b: torch.einsum("bi,bi->b", a, b), [T(3, 4), T(3, 4)], since=12,
        dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}, "out0": {0: "batch"}}),
]

ROWS += [
    # ---- float16 and empty inputs
    Row("norm.float16", "aten::norm", lambda x: torch.norm(x, 2, dim=1), [T(3, 4, dtype=F16)]),
    Row("sort.empty", "aten::sort", lambda x: torch.sort(x, 0), [T(0, 3)], constant=(0, 1), since=10),
    Row("any.empty_dim", "aten::any", lambda x: torch.any(x, 0), [T(0, 3, dtype=BOOL)], constant=(0,)),
]

ROWS += [
    Row("linalg_slogdet", "aten::linalg_slogdet", lambda a: torch.linalg.slogdet(a), [T(8, 3, 3)], since=11),
    Row("linalg_slogdet.torch_slogdet_float64", "aten::linalg_slogdet", lambda a: torch.slogdet(a), [T(6, 3, 3, dtype=F64)],
        since=11),
    Row("linalg_slogdet.method_logabsdet", "aten::linalg_slogdet", lambda a: a.slogdet()[1], [T(4, 4)], since=11),
    Row("linalg_slogdet.opset9", "aten::linalg_slogdet", lambda a: torch.linalg.slogdet(a), [T(8, 3, 3)], opsets=(9,),
        refuse=Refuse("aten::linalg_slogdet")),
]
