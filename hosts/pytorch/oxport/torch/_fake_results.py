"""Results computed from shapes under trace='fake'.

On the meta device torch 1.13 runs some kernels as Python decompositions or Python meta
functions, tens of microseconds a call where the recorder only needs the result's shape
and dtype: batch_norm and layer_norm (a decomposition of a dozen ATen ops), relu out of
place, hardswish, relu6, group_norm, instance_norm, convolution.  The handlers in
_lowering ask here for a stand-in: either a predicate saying the result is a tensor like
the input (then `like_input` makes it), or the result itself.  Each answers only where
torch's own checks would pass and torch would make the same tensor (shape, dtype,
strides); anywhere else it declines, torch's kernel runs, and raises what it raises in
eager.  The file is the same either way (tests/pytorch/test_fake_trace.py)."""

import torch


def like_input(x):
    """The stand-in result of an op whose result is a tensor like its input."""
    return torch.empty_like(x)


def fake_like(rec, x, inplace=False):
    """Under trace='fake', whether an out-of-place activation on floats (a tensor like
    its input: same shape, same dtype) takes empty_like(input) as its result instead of
    torch's meta kernel.  torch 1.13 computes some of these on the meta device with
    Python decompositions: relu about 85 us a call, hardswish 22 us, relu6 13 us,
    against 1 us for empty_like."""
    return rec.fake and not inplace and isinstance(x, torch.Tensor) and x.is_meta and x.is_floating_point()


def meta_batch_norm_shapes_agree(b):
    """batch_norm's result is a tensor like its input, which torch 1.13 computes on the
    meta device with a Python decomposition of a dozen ATen ops (a tenth of ResNet-50's
    fake trace; layer_norm's meta kernel runs it too).  True when the input is a meta
    tensor whose channels match the statistics and the affine parameters."""
    x = b["input"]
    if not isinstance(x, torch.Tensor) or not x.is_meta or x.dim() < 2:
        return False
    if not b["training"] and (b["running_mean"] is None or b["running_var"] is None):
        return False  # eval without statistics: torch's error
    return channel_params_agree(x, b, ("running_mean", "running_var", "weight", "bias"))


def meta_layer_norm_shapes_agree(b):
    """layer_norm's counterpart of meta_batch_norm_shapes_agree: torch 1.13's meta
    layer_norm is the same Python decomposition.  The input's trailing dims must be the
    normalized shape, and the affine parameters must have that shape."""
    x = b["input"]
    if not isinstance(x, torch.Tensor) or not x.is_meta:
        return False
    try:
        norm = tuple(int(v) for v in b["normalized_shape"])
    except (TypeError, ValueError):
        return False
    if not norm or len(norm) > x.dim() or tuple(x.shape[x.dim() - len(norm):]) != norm:
        return False
    for name in ("weight", "bias"):
        t = b[name]
        if t is not None and (not isinstance(t, torch.Tensor) or not t.is_meta or tuple(t.shape) != norm):
            return False
    return True


def channel_params_agree(x, b, names):
    """Each of b[names] is None or a meta tensor of shape (C,), C being x's dim 1."""
    c = x.shape[1]
    for name in names:
        t = b[name]
        if t is not None and (not isinstance(t, torch.Tensor) or not t.is_meta or t.dim() != 1 or t.shape[0] != c):
            return False
    return True


def meta_cdist_result(b):
    """Under trace='fake', cdist's result from the shapes: torch 1.13's meta kernel for
    _cdist_forward fails (a TypeError on its compute_mode) for calls eager runs.  Float
    operands of one dtype, rank 2 or more, the same feature count and batch dims that
    broadcast, p >= 0: [*batch, x1's rows, x2's rows], contiguous.  None otherwise
    (torch's kernel runs and raises what it raises)."""
    x1, x2, p = b["x1"], b["x2"], b["p"]
    if not (isinstance(x1, torch.Tensor) and isinstance(x2, torch.Tensor) and x1.is_meta and x2.is_meta):
        return None
    if x1.dtype != x2.dtype or x1.dtype not in (torch.float32, torch.float64) or x1.dim() < 2 or x2.dim() < 2:
        return None
    if x1.shape[-1] != x2.shape[-1] or not isinstance(p, (int, float)) or p < 0:
        return None
    try:
        batch = torch.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except RuntimeError:
        return None
    return torch.empty(tuple(batch) + (x1.shape[-2], x2.shape[-2]), dtype=x1.dtype, device="meta")


def meta_prelu_result(b):
    """Under trace='fake', prelu's result: a tensor like its input.  torch 1.13's meta
    decomposition asserts (with no message) for a rank-0 or rank-1 input, nn.PReLU()'s
    on a vector.  Float input and weight of one dtype, the weight one value or one per
    channel (dim 1), the input with standard strides; None otherwise (torch runs)."""
    x, w = b["input"], b["weight"]
    if not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor) and x.is_meta and w.is_meta):
        return None
    if not x.is_floating_point() or x.dtype != w.dtype or w.dim() > 1 or not standard_strides(x):
        return None
    if w.numel() != 1 and (x.dim() < 2 or w.numel() != x.shape[1]):
        return None
    return torch.empty_like(x)


def pooled_size(size, k, s, p, d, ceil):
    """A pooling window count along one dim, as torch computes it (pooling_output_shape):
    a last window in ceil mode must start inside the input or its left padding."""
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = span // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def meta_max_pool3d_result(x, k, s, p, d, ceil, with_indices):
    """Under trace='fake', max_pool3d's result from the shapes: torch 1.13 has no meta
    kernel for max_pool3d_with_indices, which every 3-D max pooling runs (S3D, 3-D
    U-Nets).  A float input of rank 4 or 5 with standard strides, and windows torch
    accepts (positive sizes, padding at most half the window, at least one window);
    the values, or (values, int64 indices).  None otherwise (torch runs)."""
    if not isinstance(x, torch.Tensor) or not x.is_meta or not x.is_floating_point() or x.dim() not in (4, 5):
        return None
    if not standard_strides(x) or not all(len(v) == 3 for v in (k, s, p, d)):
        return None
    out = []
    for i in range(3):
        if k[i] <= 0 or s[i] <= 0 or d[i] <= 0 or p[i] < 0 or 2 * p[i] > k[i]:
            return None
        o = pooled_size(x.shape[x.dim() - 3 + i], k[i], s[i], p[i], d[i], ceil)
        if o < 1:
            return None
        out.append(o)
    shape = tuple(x.shape[:x.dim() - 3]) + tuple(out)
    values = torch.empty(shape, dtype=x.dtype, device="meta")
    return (values, torch.empty(shape, dtype=torch.int64, device="meta")) if with_indices else values


def meta_nearest3d_result(x, size):
    """Under trace='fake', a 3-D nearest interpolation's result: torch 1.13 has no meta
    kernel for upsample_nearest3d.  size is the output's spatial size (given, or the
    floor of input size times scale, as torch computes it); a float rank-5 input with
    standard strides.  None otherwise (torch runs)."""
    if not isinstance(x, torch.Tensor) or not x.is_meta or not x.is_floating_point() or x.dim() != 5:
        return None
    if not standard_strides(x) or len(size) != 3 or any(int(v) < 1 for v in size):
        return None
    return torch.empty(tuple(x.shape[:2]) + tuple(int(v) for v in size), dtype=x.dtype, device="meta")


def meta_group_norm_shapes_agree(b):
    """group_norm's counterpart of meta_batch_norm_shapes_agree (torch 1.13's meta
    group_norm takes about 90 us a call): the groups divide the channels, the affine
    parameters have one value per channel, and F.group_norm's own check of more than
    one value per group and sample would pass."""
    x, g = b["input"], b["num_groups"]
    if not isinstance(x, torch.Tensor) or not x.is_meta or not x.is_floating_point() or x.dim() < 2:
        return False
    if not isinstance(g, int) or g <= 0 or x.shape[1] % g:
        return False
    per = x.shape[0] * x.shape[1] // g
    for d in x.shape[2:]:
        per *= d
    return per != 1 and channel_params_agree(x, b, ("weight", "bias"))


def meta_instance_norm_shapes_agree(b):
    """instance_norm's (about 105 us a call on meta in torch 1.13): the statistics and
    affine parameters have one value per channel, and F.instance_norm's check of more
    than one spatial element would pass."""
    x = b["input"]
    if not isinstance(x, torch.Tensor) or not x.is_meta or not x.is_floating_point() or x.dim() < 3:
        return False
    spatial = 1
    for d in x.shape[2:]:
        spatial *= d
    if b["use_input_stats"] and spatial == 1:
        return False
    if not b["use_input_stats"] and (b["running_mean"] is None or b["running_var"] is None):
        return False  # torch's error: no statistics to normalize with
    return channel_params_agree(x, b, ("running_mean", "running_var", "weight", "bias"))


def standard_strides(t):
    """Whether t has exactly the strides of a fresh contiguous tensor of its shape, size-1
    dims included: such operands are never "like channels last" to torch 1.13's meta
    convolution (_prims_common.are_strides_like_channels_last), so its result is
    contiguous."""
    acc = 1
    shape, strides = t.shape, t.stride()
    for i in range(len(shape) - 1, -1, -1):
        if strides[i] != acc:
            return False
        acc *= shape[i]
    return True


def meta_conv_result(b, n, stride, pad, dilation):
    """Under trace='fake', conv{n}d's result computed from the shapes (stride, pad and
    dilation as lists of n ints, pad possibly 'same' or 'valid'): torch 1.13's meta
    convolution is Python (about 20 us a call, against 2 us here).  Only for float
    operands with standard contiguous strides and shapes torch would accept, so the
    result is the contiguous tensor torch's meta kernel makes; None otherwise (the
    kernel runs, and raises torch's own error where the call is wrong)."""
    x, w, bias = b["input"], b["weight"], b["bias"]
    if not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor) and x.is_meta and w.is_meta):
        return None
    if x.dim() != n + 2 or w.dim() != n + 2 or x.dtype != w.dtype or not x.is_floating_point():
        return None
    if not standard_strides(x) or not standard_strides(w):
        return None  # torch may pick channels-last (or keep odd strides) for the result: let it
    g = b["groups"]
    cout = w.shape[0]
    if type(g) is not int or g <= 0 or w.shape[1] * g != x.shape[1] or cout % g:
        return None
    if bias is not None and (not isinstance(bias, torch.Tensor) or not bias.is_meta or bias.dtype != x.dtype
                             or tuple(bias.shape) != (cout,)):
        return None
    if len(stride) != n or len(dilation) != n or min(stride) <= 0 or min(dilation) <= 0:
        return None
    if isinstance(pad, str):
        if pad == "same" and max(stride) == 1:
            return torch.empty(x.shape[:1] + (cout,) + x.shape[2:], dtype=x.dtype, device="meta")
        if pad != "valid":
            return None
        pad = [0] * n
    if len(pad) != n or min(pad) < 0:
        return None
    out = []
    for i in range(n):
        o = (x.shape[2 + i] + 2 * pad[i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
        if o <= 0:
            return None
        out.append(o)
    return torch.empty((x.shape[0], cout, *out), dtype=x.dtype, device="meta")


# ---------------------------------------------------------------- ops without a meta kernel
#
# torch 1.13 has no meta kernel for some ops whose result's shape and dtype the shapes
# alone give (and one_hot's meta path raises even when num_classes is given).  Each
# function below answers with that result where torch's own checks would pass, and
# None anywhere else: torch's kernel then runs and the export is refused naming the
# call, as before.


def _meta_tensors(*ts):
    return all(isinstance(t, torch.Tensor) and t.is_meta for t in ts)


def meta_one_hot_result(x, num_classes):
    """F.one_hot(x, num_classes) with num_classes given: x's shape plus a dim of
    num_classes, int64.  torch 1.13 reads x's values on every device (the class values
    must be non-negative), which the meta device has none of; without num_classes the
    count is read from the values, and stays refused."""
    if not _meta_tensors(x) or x.dtype != torch.int64 or type(num_classes) is not int or num_classes < 0:
        return None
    if num_classes == 0 and x.numel():
        return None  # torch's error: no class for any value
    return torch.empty(tuple(x.shape) + (num_classes,), dtype=torch.int64, device="meta")


def _bucket_result(values, boundaries, out_int32):
    if not _meta_tensors(values, boundaries) or values.is_complex() or boundaries.is_complex() \
            or values.dtype == torch.bool or boundaries.dtype == torch.bool or boundaries.dim() == 0:
        return None
    if boundaries.dim() != 1 and tuple(boundaries.shape[:-1]) != tuple(values.shape[:-1]):
        return None  # torch's error: the leading dims must match
    return torch.empty(values.shape, dtype=torch.int32 if out_int32 else torch.int64, device="meta")


def meta_bucket_result(overload, args, kwargs):
    """aten::bucketize.Tensor(self, boundaries) and aten::searchsorted.Tensor
    (sorted_sequence, self) without a sorter: one index per value, the values' shape,
    int64 (int32 with out_int32).  `overload` is the OpOverload's name."""
    if overload == "bucketize.Tensor":
        names = ("self", "boundaries", "out_int32", "right")
    elif overload == "searchsorted.Tensor":
        names = ("sorted_sequence", "self", "out_int32", "right", "side", "sorter")
    else:
        return None
    b = dict(zip(names, args))
    b.update(kwargs)
    if b.get("sorter") is not None or (b.get("side") == "left" and b.get("right")) \
            or b.get("side") not in (None, "left", "right"):
        return None
    seq = b.get("boundaries", b.get("sorted_sequence"))
    return _bucket_result(b.get("self"), seq, bool(b.get("out_int32", False)))


def meta_weight_norm_result(v, g, dim):
    """torch._weight_norm(v, g, dim): a tensor like v (v's direction times g's norm).
    g holds one value per slice of v along dim (all of v for dim -1)."""
    if not _meta_tensors(v, g) or not v.is_floating_point() or g.dtype != v.dtype or v.dim() == 0:
        return None
    if type(dim) is not int or not -1 <= dim < v.dim():
        return None
    if dim != -1 and g.numel() != v.shape[dim]:
        return None
    return torch.empty_like(v)


def _dim_of(x, dim):
    """dim normalised against x's rank (a 0-dim tensor takes 0 and -1), or None when
    torch would refuse it."""
    if type(dim) is not int:
        return None
    n = max(x.dim(), 1)
    return (dim + n if dim < 0 else dim) if -n <= dim < n else None


def _reduced(x, dim, keepdim):
    """x's shape with dim removed (kept as 1 with keepdim); a 0-dim tensor stays 0-dim."""
    if x.dim() == 0:
        return ()
    shape = list(x.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    return tuple(shape)


def _selection_result(x, dim, keepdim, k=None):
    """median.dim / kthvalue: (values like x reduced over dim, int64 indices) where the
    dim holds an element to select (torch refuses an empty one, and k outside 1..size)."""
    if not _meta_tensors(x) or x.is_complex() or x.dtype == torch.bool or type(keepdim) is not bool:
        return None
    d = _dim_of(x, dim)
    if d is None:
        return None
    size = x.shape[d] if x.dim() else 1
    if size == 0 or (k is not None and (type(k) is not int or not 1 <= k <= size)):
        return None
    shape = _reduced(x, d, keepdim)
    return (torch.empty(shape, dtype=x.dtype, device="meta"),
            torch.empty(shape, dtype=torch.int64, device="meta"))


def _bind(names, defaults, args, kwargs):
    b = dict(defaults)
    b.update(zip(names, args))
    b.update(kwargs)
    return b if set(b) == set(names) else None


def meta_selection_result(overload, args, kwargs):
    """torch 1.13 has no meta kernel for median, kthvalue, logcumsumexp, cummax or cummin
    (their CPU kernels run helpers that the meta device lacks).  median(self): a 0-dim
    tensor of self's dtype (self not empty); median.dim and kthvalue: values and int64
    indices over self reduced along dim; logcumsumexp (floating self), cummax and
    cummin: results like self (and int64 indices).  `overload` is the OpOverload's
    name; None where torch's own checks might fail."""
    if overload == "median.default":
        b = _bind(("self",), {}, args, kwargs)
        x = b and b["self"]
        if not b or not _meta_tensors(x) or x.is_complex() or x.dtype == torch.bool or x.numel() == 0:
            return None
        return torch.empty((), dtype=x.dtype, device="meta")
    if overload == "median.dim":
        b = _bind(("self", "dim", "keepdim"), {"keepdim": False}, args, kwargs)
        return b and _selection_result(b["self"], b["dim"], b["keepdim"])
    if overload == "kthvalue.default":
        b = _bind(("self", "k", "dim", "keepdim"), {"dim": -1, "keepdim": False}, args, kwargs)
        return b and _selection_result(b["self"], b["dim"], b["keepdim"], b["k"])
    if overload in ("logcumsumexp.default", "cummax.default", "cummin.default"):
        b = _bind(("self", "dim"), {}, args, kwargs)
        x = b and b["self"]
        if not b or not _meta_tensors(x) or x.is_complex() or _dim_of(x, b["dim"]) is None:
            return None
        if overload == "logcumsumexp.default":
            return torch.empty_like(x, memory_format=torch.contiguous_format) if x.is_floating_point() else None
        return (torch.empty_like(x, memory_format=torch.contiguous_format),
                torch.empty(x.shape, dtype=torch.int64, device="meta"))
    return None

