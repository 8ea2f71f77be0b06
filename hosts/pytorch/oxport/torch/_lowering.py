"""Which PyTorch calls are recorded as which oxport kinds, with which argument names.

The table in docs/recording-conventions.md is the contract with the symbolic packs:
each handler here binds the Python call's arguments (positional or keyword, with
PyTorch's defaults), normalizes them to the schema's form (int[] sizes expanded,
None stride -> kernel_size, F.batch_norm's order -> aten::batch_norm's) and records
the call as one node.  A handler returns NotImplemented for a form it cannot express
(max_pool2d with return_indices, embedding with max_norm, a non-constant pad mode ...);
the call is then recorded at the dispatcher level instead, so the engine reports the
ATen op it does not support rather than the trace silently losing it.
"""

import math
import sys
import weakref

import torch
import torch.nn.functional as F

from .. import _engine as E
from . import _fake_results as FR
from . import _sizes as S
from ._sizes import Dyn

T = torch.Tensor

HANDLERS = {}


def handles(*funcs):
    def deco(h):
        for f in funcs:
            HANDLERS[f] = h
        return h
    return deco


def bind(args, kwargs, names, **defaults):
    b = dict(defaults)
    b.update(zip(names, args))
    b.update(kwargs)
    return b


def ntuple(v, n):
    if isinstance(v, (list, tuple, torch.Size)):
        v = [int(x) for x in v]
        return v * n if len(v) == 1 and n > 1 else v
    return [int(v)] * n


def _getter(cls, name):
    return getattr(cls, name).__get__


# Calls that read metadata only: run them, record nothing.
# (Sizes are not metadata here: T.size, T.shape, T.numel return traced ints, below.)
PASSTHROUGH = {
    T.dim, T.ndimension, T.is_contiguous, T.stride,
    T.data_ptr, T.element_size, T.is_floating_point, T.is_complex, T.get_device,
    T.storage_offset, T.__format__, T.__repr__, T.requires_grad_, T.__hash__,
    _getter(T, "dtype"), _getter(T, "device"), _getter(T, "ndim"),
    _getter(T, "requires_grad"), _getter(T, "is_cuda"), _getter(T, "layout"), _getter(T, "is_leaf"),
    _getter(T, "grad_fn"), _getter(T, "grad"), _getter(T, "is_sparse"), _getter(T, "is_quantized"),
    _getter(T, "is_meta"), _getter(T, "names"),
}


# ---------------------------------------------------------------- sizes

@handles(T.size)
def _size(rec, func, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        return rec.traced_shape(x)
    if isinstance(dim, str):
        return NotImplemented
    return rec.traced_size(x, S.plain(dim))


@handles(_getter(T, "shape"))
def _shape(rec, func, args, kwargs):
    return rec.traced_shape(args[0])


@handles(T.numel, T.nelement, torch.numel)
def _numel(rec, func, args, kwargs):
    return rec.traced_numel(args[0])


@handles(T.__len__)
def _len(rec, func, args, kwargs):
    # Python's len() turns whatever __len__ returns into a plain int.
    n = func(*args, **kwargs)
    S.warn_fixed(rec, "len() of a traced tensor (Python makes it a plain int; x.size(0) or "
                      "x.shape[0] stays traced)", n)
    return n


def _size_factory(kind, fill=None):
    def h(rec, func, args, kwargs):
        size = S.size_list(args) if args else kwargs.get("size")
        if isinstance(size, torch.Tensor):
            return NotImplemented
        arglist = [("size", Dyn(list(size)))]
        if fill is not None:
            arglist.append(("fill_value", fill(kwargs)))
        arglist.append(("dtype", kwargs.get("dtype") or torch.get_default_dtype()))
        return rec.record(kind, arglist, func, args, kwargs)
    return h


for _f, _k in ((torch.zeros, "aten::zeros"), (torch.ones, "aten::ones"), (torch.empty, "aten::empty")):
    HANDLERS[_f] = _size_factory(_k)


def _fill_value(v):
    """A fill value: a traced size (torch.full((), x.size(0))) is recorded as its rank-0
    value, which the pack casts and expands; anything else as given."""
    return Dyn(v) if isinstance(v, S.TracedInt) else v


def _plain_call(args, kwargs):
    """The call's arguments with traced sizes as plain ints (torch reads a fill value of
    a float dtype with float(), which would warn about a value the file computes)."""
    return tuple(S.plain(a) for a in args), {k: S.plain(v) for k, v in kwargs.items()}


@handles(torch.full)
def _full(rec, func, args, kwargs):
    b = bind(args, kwargs, ("size", "fill_value"))
    fill = b["fill_value"]
    dtype = b.get("dtype")
    if dtype is None:
        # torch reads a tensor fill as a number of its kind: a float tensor of any width
        # gives the default dtype, an integer one int64, as a plain number would.
        plain = torch.zeros((), dtype=fill.dtype) if isinstance(fill, torch.Tensor) else S.plain(fill)
        dtype = torch.full((), plain).dtype
    return rec.record("aten::full", [("size", Dyn(list(b["size"]))), ("fill_value", _fill_value(fill)),
                                     ("dtype", dtype)], func, *_plain_call(args, kwargs))


@handles(torch.arange)
def _arange(rec, func, args, kwargs):
    b = dict(kwargs)
    pos = list(args)
    if len(pos) == 1:
        b.setdefault("end", pos[0])
    elif len(pos) >= 2:
        b["start"], b["end"] = pos[0], pos[1]
        if len(pos) > 2:
            b["step"] = pos[2]
    if any(isinstance(b.get(k), torch.Tensor) for k in ("start", "end", "step")):
        return NotImplemented
    out = func(*args, **kwargs)
    need = 11 if out.dtype.is_floating_point else None  # integer ranges: NonZero before 11
    return rec.emit("aten::arange", rec.resolve([
        ("start", Dyn(b.get("start", 0), need=need)), ("end", Dyn(b["end"], need=need)),
        ("step", Dyn(b.get("step", 1), need=need)), ("dtype", out.dtype)]), out)


# Factories whose values follow a traced size (torch.eye(x.size(0)), torch.rand(x.shape)):
# recorded with the size as a traced value, so the file computes them from the input's
# shape.  With constant sizes they stay constants of the file, like the other factories.

def _record_factory(rec, kind, arglist, out):
    return rec.emit(kind, rec.resolve(arglist + [("dtype", out.dtype)]), out)


def _random_factory(kind):
    def h(rec, func, args, kwargs):
        size = S.size_list(args) if args else kwargs.get("size")
        if isinstance(size, torch.Tensor):
            return NotImplemented
        return _record_factory(rec, kind, [("size", Dyn(list(size)))], func(*args, **kwargs))
    return h


for _f, _k in ((torch.rand, "aten::rand"), (torch.randn, "aten::randn")):
    HANDLERS[_f] = _random_factory(_k)


@handles(torch.randint)
def _randint(rec, func, args, kwargs):
    pos = list(args)
    b = dict(kwargs)
    if len(pos) >= 3:
        b["low"], b["high"], b["size"] = pos[:3]
    elif len(pos) == 2:
        b["high"], b["size"] = pos
    if isinstance(b.get("size"), torch.Tensor) or "high" not in b:
        return NotImplemented
    return _record_factory(rec, "aten::randint", [("low", int(b.get("low", 0))), ("high", int(b["high"])),
                                                  ("size", Dyn(list(b["size"])))], func(*args, **kwargs))


@handles(torch.eye)
def _eye(rec, func, args, kwargs):
    b = bind(args, kwargs, ("n", "m"), m=None)
    arglist = [("n", Dyn(b["n"]))]
    if b["m"] is not None:
        arglist.append(("m", Dyn(b["m"])))
    return _record_factory(rec, "aten::eye", arglist, func(*args, **kwargs))


@handles(torch.linspace)
def _linspace(rec, func, args, kwargs):
    b = bind(args, kwargs, ("start", "end", "steps"))
    if any(isinstance(b[k], torch.Tensor) for k in ("start", "end", "steps")):
        return NotImplemented
    return _record_factory(rec, "aten::linspace", [("start", b["start"]), ("end", b["end"]),
                                                   ("steps", Dyn(b["steps"]))], func(*args, **kwargs))


@handles(torch.hann_window)
def _hann_window(rec, func, args, kwargs):
    b = bind(args, kwargs, ("window_length", "periodic"), periodic=True)
    return _record_factory(rec, "aten::hann_window", [("window_length", Dyn(b["window_length"])),
                                                      ("periodic", bool(b["periodic"]))], func(*args, **kwargs))


def _data_factory(kind, arg):
    """torch.tensor(x.size(0)), torch.as_tensor([n, m]), torch.scalar_tensor(n): the
    traced size(s) as a tensor of the result's dtype."""
    def h(rec, func, args, kwargs):
        data = args[0] if args else kwargs.get(arg)
        if not isinstance(data, (int, list, tuple)) or \
                (isinstance(data, (list, tuple)) and not all(isinstance(v, int) for v in data)):
            return NotImplemented
        value = list(data) if isinstance(data, (list, tuple)) else data
        # The call gets plain ints: with a float dtype torch reads each with float(),
        # which would warn that a value the file computes is fixed.
        plain = [S.plain(v) for v in value] if isinstance(value, list) else S.plain(value)
        call_args, call_kwargs = ((plain,) + tuple(args[1:]), kwargs) if args else (args, {**kwargs, arg: plain})
        return _record_factory(rec, kind, [(arg, Dyn(value))], func(*call_args, **call_kwargs))
    return h


for _f, _k, _a in ((torch.tensor, "aten::tensor", "data"), (torch.as_tensor, "aten::as_tensor", "data"),
                   (torch.scalar_tensor, "aten::scalar_tensor", "s")):
    HANDLERS[_f] = _data_factory(_k, _a)


# torch.onnx's internal helpers of traced shapes, recorded as themselves.
@handles(torch._shape_as_tensor)
def _shape_as_tensor(rec, func, args, kwargs):
    return rec.record("aten::_shape_as_tensor", [("self", args[0])], func, args, kwargs)


@handles(torch._dim_arange)
def _dim_arange(rec, func, args, kwargs):
    b = bind(args, kwargs, ("like", "dim"))
    return rec.record("aten::_dim_arange", [("like", b["like"]), ("dim", int(b["dim"]))], func, args, kwargs)


@handles(torch._reshape_from_tensor)
def _reshape_from_tensor(rec, func, args, kwargs):
    b = bind(args, kwargs, ("self", "shape"))
    return rec.record("aten::_reshape_from_tensor", [("self", b["self"]), ("shape", b["shape"])],
                      func, args, kwargs)


def _emit_like(rec, kind, x, fill, out):
    """Record a *_like factory of `x` whose (already computed) result is `out`;
    `fill` is the fill value for full_like, None otherwise."""
    arglist = [("self", x)]
    if fill is not None:
        arglist.append(("fill_value", fill))
    arglist.append(("dtype", out.dtype))
    return rec.emit(kind, rec.resolve(arglist), out)


def _like(kind, fill=None):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input",) + (("fill_value",) if fill else ()), dtype=None)
        if kwargs.get("memory_format") not in (None, torch.preserve_format):
            return NotImplemented
        call_args, call_kwargs = _plain_call(args, kwargs)
        out = func(*call_args, **call_kwargs)
        return _emit_like(rec, kind, b["input"], _fill_value(b["fill_value"]) if fill else None, out)
    return h


HANDLERS[torch.zeros_like] = _like("aten::zeros_like")
HANDLERS[torch.empty_like] = _like("aten::empty_like")
HANDLERS[torch.ones_like] = _like("aten::ones_like")
HANDLERS[torch.full_like] = _like("aten::full_like", fill=True)
HANDLERS[torch.rand_like] = _like("aten::rand_like")
HANDLERS[torch.randn_like] = _like("aten::randn_like")


def _new(kind, fill=False):
    def h(rec, func, args, kwargs):
        x = args[0]
        rest = list(args[1:])
        fv = None
        if fill:
            fv = rest.pop() if len(rest) >= 2 else kwargs.get("fill_value")
            size = rest[0] if rest else kwargs["size"]
        else:
            size = S.size_list(rest) if rest else kwargs["size"]
        if isinstance(size, torch.Tensor):
            return NotImplemented
        call_args, call_kwargs = _plain_call(args, kwargs)
        out = func(*call_args, **call_kwargs)
        arglist = [("self", x), ("size", Dyn(list(size)))]
        if fill:
            arglist.append(("fill_value", _fill_value(fv)))
        arglist.append(("dtype", out.dtype))
        return rec.emit(kind, rec.resolve(arglist), out)
    return h


HANDLERS[T.new_zeros] = _new("aten::new_zeros")
HANDLERS[T.new_empty] = _new("aten::new_empty")
HANDLERS[T.new_ones] = _new("aten::new_ones")
HANDLERS[T.new_full] = _new("aten::new_full", fill=True)


@handles(T.fill_)
def _fill_(rec, func, args, kwargs):
    """t.fill_(x.size(0)): the size's rank-0 value, expanded to t's shape by the pack.
    Other values are left to the dispatcher (aten::fill_ with the number)."""
    b = bind(args, kwargs, ("input", "value"))
    if not isinstance(b.get("value"), S.TracedInt):
        return NotImplemented
    return rec.record("aten::fill_", [("self", b["input"]), ("value", Dyn(b["value"]))], func,
                      *_plain_call(args, kwargs))


def _masked_fill(kind):
    """x.masked_fill(mask, x.size(0)) (torch.masked_fill, masked_fill_): the size's rank-0
    value, which the pack casts to x's type, so the file fills with the input's size.
    Other values are left to the dispatcher (aten::masked_fill with the number)."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "mask", "value"))
        if not isinstance(b.get("value"), S.TracedInt):
            return NotImplemented
        return rec.record(kind, [("self", b["input"]), ("mask", b["mask"]), ("value", Dyn(b["value"]))],
                          func, *_plain_call(args, kwargs))
    return h


HANDLERS[T.masked_fill] = HANDLERS[torch.masked_fill] = _masked_fill("aten::masked_fill")
HANDLERS[T.masked_fill_] = _masked_fill("aten::masked_fill_")


def _index_fill(kind):
    """x.index_fill(d, idx, x.size(0)) (torch.index_fill, index_fill_): the size's rank-0
    value, which the pack casts to x's type and expands over the slices.  Other values
    are left to the dispatcher."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "dim", "index", "value"))
        if not isinstance(b.get("value"), S.TracedInt) or not isinstance(b.get("dim"), int) \
                or isinstance(b["dim"], S.TracedInt):
            return NotImplemented
        return rec.record(kind, [("self", b["input"]), ("dim", b["dim"]), ("index", b["index"]),
                                 ("value", Dyn(b["value"]))], func, *_plain_call(args, kwargs))
    return h


HANDLERS[T.index_fill] = HANDLERS[torch.index_fill] = _index_fill("aten::index_fill")
HANDLERS[T.index_fill_] = _index_fill("aten::index_fill_")

# Calls that turn a tensor into Python values: the trace is specialized to them.
SPECIALIZING = {
    T.item: "item()", T.__int__: "int()", T.__float__: "float()", T.__bool__: "bool()",
    T.__index__: "index()", T.tolist: "tolist()", T.numpy: "numpy()",
}

# Dispatcher-level ops that are the same value as their input.
ATEN_ALIASES = {"aten::detach", "aten::alias", "aten::lift_fresh", "aten::clone"}


@handles(T.detach, _getter(T, "data"))
def _detach(rec, func, args, kwargs):
    out = func(*args, **kwargs)
    rec.alias(args[0], out)
    return out


# ---------------------------------------------------------------- convolution

def _conv(n):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
                 bias=None, stride=1, padding=0, dilation=1, groups=1)
        pad = b["padding"] if isinstance(b["padding"], str) else ntuple(b["padding"], n)
        stride, dilation = ntuple(b["stride"], n), ntuple(b["dilation"], n)
        result = FR.meta_conv_result(b, n, stride, pad, dilation) if rec.fake else None
        if result is not None:
            func, args, kwargs = (lambda: result), (), {}
        return rec.record(f"aten::conv{n}d", [
            ("input", b["input"]), ("weight", b["weight"]), ("bias", b["bias"]),
            ("stride", stride), ("padding", pad),
            ("dilation", dilation), ("groups", int(b["groups"]))], func, args, kwargs)
    return h


HANDLERS[torch.conv1d] = _conv(1)
HANDLERS[torch.conv2d] = _conv(2)
HANDLERS[torch.conv3d] = _conv(3)


def _conv_transpose(n):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "weight", "bias", "stride", "padding", "output_padding", "groups",
                                "dilation"), bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)
        return rec.record(f"aten::conv_transpose{n}d", [
            ("input", b["input"]), ("weight", b["weight"]), ("bias", b["bias"]),
            ("stride", ntuple(b["stride"], n)), ("padding", ntuple(b["padding"], n)),
            ("output_padding", ntuple(b["output_padding"], n)), ("groups", int(b["groups"])),
            ("dilation", ntuple(b["dilation"], n))], func, args, kwargs)
    return h


HANDLERS[torch.conv_transpose1d] = _conv_transpose(1)
HANDLERS[torch.conv_transpose2d] = _conv_transpose(2)
HANDLERS[torch.conv_transpose3d] = _conv_transpose(3)


@handles(F.batch_norm)
def _batch_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "running_mean", "running_var", "weight", "bias", "training",
                            "momentum", "eps"), weight=None, bias=None, training=False, momentum=0.1, eps=1e-5)
    if rec.fake and FR.meta_batch_norm_shapes_agree(b):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::batch_norm", [
        ("input", b["input"]), ("weight", b["weight"]), ("bias", b["bias"]),
        ("running_mean", b["running_mean"]), ("running_var", b["running_var"]),
        ("training", bool(b["training"])), ("momentum", float(b["momentum"] or 0.0)),
        ("eps", float(b["eps"])), ("cudnn_enabled", bool(torch.backends.cudnn.enabled))], func, args, kwargs)


# ---------------------------------------------------------------- activations

def _unary(kind, inplace_always=False, like_input=True):
    """like_input: the result is a tensor like the input (same dtype), so trace='fake'
    may make it with empty_like; not for a predicate such as isfinite (bool)."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "inplace"), inplace=False)
        inplace = inplace_always or b["inplace"]
        k = kind + "_" if inplace else kind
        if like_input and FR.fake_like(rec, b["input"], inplace):
            func, args, kwargs = FR.like_input, (b["input"],), {}
        return rec.record(k, [("self", b["input"])], func, args, kwargs)
    return h


for _name in ("relu", "tanh", "sigmoid"):
    HANDLERS[getattr(torch, _name)] = _unary(f"aten::{_name}")
    HANDLERS[getattr(T, _name)] = _unary(f"aten::{_name}")
    HANDLERS[getattr(torch, _name + "_")] = _unary(f"aten::{_name}", True)
    HANDLERS[getattr(T, _name + "_")] = _unary(f"aten::{_name}", True)
HANDLERS[F.relu] = _unary("aten::relu")
HANDLERS[F.relu_] = _unary("aten::relu", True)


@handles(F.leaky_relu)
def _leaky_relu(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "negative_slope", "inplace"), negative_slope=0.01, inplace=False)
    return rec.record("aten::leaky_relu_" if b["inplace"] else "aten::leaky_relu",
                      [("self", b["input"]), ("negative_slope", float(b["negative_slope"]))], func, args, kwargs)


@handles(F.prelu, torch.prelu, T.prelu)
def _prelu(rec, func, args, kwargs):
    """Only under trace='fake', where torch 1.13's meta prelu fails for rank-0 and rank-1
    inputs: the result from the shapes, recorded as the dispatcher-level recorder records
    aten::prelu (so the file is the eager trace's)."""
    if not rec.fake:
        return NotImplemented
    b = bind(args, kwargs, ("input", "weight"))
    stand_in = FR.meta_prelu_result(b)
    if stand_in is None:
        return NotImplemented
    return rec.record("aten::prelu", [("self", b["input"]), ("weight", b["weight"])], lambda: stand_in, (), {})


@handles(torch.topk, T.topk)
def _topk(rec, func, args, kwargs):
    """topk with a traced k (the minimum of a constant and a traced size): k recorded as
    the size's value.  A constant k is left to the dispatcher-level recorder."""
    b = bind(args, kwargs, ("input", "k", "dim", "largest", "sorted"), dim=-1, largest=True, sorted=True)
    k = b["k"]
    if not isinstance(k, S.TracedInt) or not rec.live or not isinstance(b["input"], torch.Tensor):
        return NotImplemented
    if rec.opset is not None and rec.opset < 10:
        return NotImplemented  # TopK's k is an attribute there: the size is fixed, with a warning
    dim, largest, srt = int(b["dim"]), bool(b["largest"]), bool(b["sorted"])
    resolved = rec.resolve([("self", b["input"])]) + [("k", E.ARG_TENSOR, k._ox_vid)] + \
        rec.resolve([("dim", dim), ("largest", largest), ("sorted", srt)])
    result = torch.topk(b["input"], S.plain(k), dim, largest, srt)
    return rec.emit("aten::topk", resolved, result)


@handles(torch.kthvalue, T.kthvalue)
def _kthvalue(rec, func, args, kwargs):
    """kthvalue with a traced k (a position computed from a size, as (n + 1) // 2): k
    recorded as the size's value, TopK's k input from opset 10.  A constant k is left to
    the dispatcher-level recorder, and so is a traced one below opset 10 (fixed, with a
    warning).  Under trace='fake' the result comes from the shapes (no meta kernel in
    torch 1.13)."""
    b = bind(args, kwargs, ("input", "k", "dim", "keepdim"), dim=-1, keepdim=False)
    k, x = b["k"], b["input"]
    if not isinstance(k, S.TracedInt) or not rec.live or not isinstance(x, torch.Tensor):
        return NotImplemented
    if rec.opset is not None and rec.opset < 10:
        return NotImplemented
    dim, keep = int(b["dim"]), bool(b["keepdim"])
    resolved = rec.resolve([("self", x)]) + [("k", E.ARG_TENSOR, k._ox_vid)] + \
        rec.resolve([("dim", dim), ("keepdim", keep)])
    stand_in = FR.meta_selection_result("kthvalue.default", (x, S.plain(k), dim, keep), {}) if rec.fake else None
    result = torch.return_types.kthvalue(stand_in) if stand_in is not None else \
        torch.kthvalue(x, S.plain(k), dim, keep)
    return rec.emit("aten::kthvalue", resolved, result)


@handles(F.hardtanh)
def _hardtanh(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "min_val", "max_val", "inplace"), min_val=-1.0, max_val=1.0, inplace=False)
    if FR.fake_like(rec, b["input"], b["inplace"]):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::hardtanh_" if b["inplace"] else "aten::hardtanh",
                      [("self", b["input"]), ("min_val", float(b["min_val"])), ("max_val", float(b["max_val"]))],
                      func, args, kwargs)


@handles(F.relu6)
def _relu6(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "inplace"), inplace=False)
    if FR.fake_like(rec, b["input"], b["inplace"]):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::hardtanh_" if b["inplace"] else "aten::hardtanh",
                      [("self", b["input"]), ("min_val", 0.0), ("max_val", 6.0)], func, args, kwargs)


# Activations and math that ATen decomposes (selu into elu, rrelu into
# rrelu_with_noise, logsigmoid into log_sigmoid_forward, tanhshrink into tanh and
# sub): recorded under the name torch.onnx converts, as the model called them.

@handles(F.selu, torch.selu)
def _selu(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "inplace"), inplace=False)
    return rec.record("aten::selu_" if b["inplace"] else "aten::selu", [("self", b["input"])], func, args, kwargs)


@handles(F.rrelu)
def _rrelu(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "lower", "upper", "training", "inplace"), lower=1.0 / 8, upper=1.0 / 3,
             training=False, inplace=False)
    return rec.record("aten::rrelu_" if b["inplace"] else "aten::rrelu", [
        ("self", b["input"]), ("lower", float(b["lower"])), ("upper", float(b["upper"])),
        ("training", bool(b["training"]))], func, args, kwargs)


HANDLERS[F.logsigmoid] = _unary("aten::log_sigmoid")
HANDLERS[F.tanhshrink] = _unary("aten::tanhshrink")
# isfinite (abs, ne, eq, mul in ATen) and square (pow) likewise.
HANDLERS[torch.isfinite] = HANDLERS[T.isfinite] = _unary("aten::isfinite", like_input=False)
HANDLERS[torch.square] = HANDLERS[T.square] = _unary("aten::square")
HANDLERS[torch.square_] = HANDLERS[T.square_] = _unary("aten::square", True)


# ---------------------------------------------------------------- pooling
#
# Recorded with the dimensionality the model asked for (aten::max_pool1d, not the
# unsqueezed 2-D op ATen runs it as), as torch.onnx names them.

def _pool_stride(b, k, n):
    return ntuple(b["stride"], n) if b["stride"] not in (None, [], ()) else k


def _max_pool(n, with_indices):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                                "return_indices"), stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=with_indices)
        if bool(b["return_indices"]) != with_indices:
            return NotImplemented
        k = ntuple(b["kernel_size"], n)
        kind = f"aten::max_pool{n}d_with_indices" if with_indices else f"aten::max_pool{n}d"
        arglist = [("self", b["input"]), ("kernel_size", k), ("stride", _pool_stride(b, k, n)),
                   ("padding", ntuple(b["padding"], n)), ("dilation", ntuple(b["dilation"], n)),
                   ("ceil_mode", bool(b["ceil_mode"]))]
        stand_in = FR.meta_max_pool3d_result(b["input"], *(v for _, v in arglist[1:]), with_indices) \
            if rec.fake and n == 3 else None
        if stand_in is not None:
            func, args, kwargs = (lambda: stand_in), (), {}
        return rec.record(kind, arglist, func, args, kwargs)
    return h


for _n in (1, 2, 3):
    HANDLERS[getattr(F, f"max_pool{_n}d")] = _max_pool(_n, False)
    HANDLERS[getattr(F, f"max_pool{_n}d_with_indices")] = _max_pool(_n, True)
HANDLERS[torch.max_pool1d] = _max_pool(1, False)
HANDLERS[torch.max_pool2d] = _max_pool(2, False)
HANDLERS[torch.max_pool3d] = _max_pool(3, False)


def _avg_pool(n):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                "divisor_override"), stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None)
        k = ntuple(b["kernel_size"], n)
        arglist = [("self", b["input"]), ("kernel_size", k), ("stride", _pool_stride(b, k, n)),
                   ("padding", ntuple(b["padding"], n)), ("ceil_mode", bool(b["ceil_mode"])),
                   ("count_include_pad", bool(b["count_include_pad"]))]
        if n > 1:  # aten::avg_pool1d has no divisor_override
            arglist.append(("divisor_override", b["divisor_override"]))
        return rec.record(f"aten::avg_pool{n}d", arglist, func, args, kwargs)
    return h


HANDLERS[F.avg_pool1d] = _avg_pool(1)
HANDLERS[F.avg_pool2d] = _avg_pool(2)
HANDLERS[F.avg_pool3d] = _avg_pool(3)


def _adaptive_size(x, os_, n):
    os_ = list(os_) if isinstance(os_, (list, tuple, torch.Size)) else [os_] * n
    return [int(x.shape[-n + i]) if v is None else int(v) for i, v in enumerate(os_)]


def _adaptive_avg_pool(n):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "output_size"))
        x = b["input"]
        return rec.record(f"aten::adaptive_avg_pool{n}d",
                          [("self", x), ("output_size", _adaptive_size(x, b["output_size"], n))],
                          func, args, kwargs)
    return h


HANDLERS[F.adaptive_avg_pool1d] = _adaptive_avg_pool(1)
HANDLERS[F.adaptive_avg_pool2d] = HANDLERS[torch._C._nn.adaptive_avg_pool2d] = _adaptive_avg_pool(2)
HANDLERS[F.adaptive_avg_pool3d] = HANDLERS[torch._C._nn.adaptive_avg_pool3d] = _adaptive_avg_pool(3)


def _adaptive_max_pool(n, with_indices):
    # aten::adaptive_max_pool<n>d always computes (values, indices); without
    # return_indices the model sees the values only.
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "output_size", "return_indices"), return_indices=with_indices)
        x = b["input"]
        resolved = rec.resolve([("self", x), ("output_size", _adaptive_size(x, b["output_size"], n))])
        both = getattr(F, f"adaptive_max_pool{n}d_with_indices")(x, b["output_size"])
        rec.emit(f"aten::adaptive_max_pool{n}d", resolved, both)
        return both if b["return_indices"] else both[0]
    return h


for _n in (1, 2, 3):
    HANDLERS[getattr(F, f"adaptive_max_pool{_n}d")] = _adaptive_max_pool(_n, False)
    HANDLERS[getattr(F, f"adaptive_max_pool{_n}d_with_indices")] = _adaptive_max_pool(_n, True)


# ---------------------------------------------------------------- linear algebra

@handles(F.linear)
def _linear(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "weight", "bias"), bias=None)
    return rec.record("aten::linear", [("input", b["input"]), ("weight", b["weight"]), ("bias", b["bias"])],
                      func, args, kwargs)


@handles(torch.addmm, T.addmm)
def _addmm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "mat1", "mat2"), beta=1, alpha=1)
    return rec.record("aten::addmm", [("self", b["input"]), ("mat1", b["mat1"]), ("mat2", b["mat2"]),
                                      ("beta", b["beta"]), ("alpha", b["alpha"])], func, args, kwargs)


@handles(torch.matmul, T.matmul, T.__matmul__)
def _matmul(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "other"))
    return rec.record("aten::matmul", [("self", b["input"]), ("other", b["other"])], func, args, kwargs)


def _mm(kind):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "mat2"))
        return rec.record(kind, [("self", b["input"]), ("mat2", b["mat2"])], func, args, kwargs)
    return h


HANDLERS[torch.mm] = HANDLERS[T.mm] = _mm("aten::mm")
HANDLERS[torch.bmm] = HANDLERS[T.bmm] = _mm("aten::bmm")


# ---------------------------------------------------------------- dropout

def _dropout(kind):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "p", "training", "inplace"), p=0.5, training=True, inplace=False)
        # p=0 is the identity in either mode; torchvision's swin calls
        # F.dropout(attn, p=0.0) with the default training=True even in eval.
        train = bool(b["training"]) and float(b["p"]) != 0.0
        return rec.record(kind + "_" if b["inplace"] else kind,
                          [("input", b["input"]), ("p", float(b["p"])), ("train", train)],
                          func, args, kwargs)
    return h


HANDLERS[F.dropout] = _dropout("aten::dropout")
HANDLERS[F.dropout2d] = _dropout("aten::feature_dropout")
HANDLERS[F.dropout3d] = _dropout("aten::feature_dropout")
HANDLERS[F.alpha_dropout] = _dropout("aten::alpha_dropout")
HANDLERS[F.feature_alpha_dropout] = _dropout("aten::feature_alpha_dropout")


@handles(torch.dropout)
def _torch_dropout(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "p", "train"))
    return rec.record("aten::dropout", [("input", b["input"]), ("p", float(b["p"])), ("train", bool(b["train"]))],
                      func, args, kwargs)


# ---------------------------------------------------------------- shapes

@handles(torch.cat, torch.concat)
def _cat(rec, func, args, kwargs):
    b = bind(args, kwargs, ("tensors", "dim"), dim=0)
    return rec.record("aten::cat", [("tensors", list(b["tensors"])), ("dim", int(b["dim"]))], func, args, kwargs)


@handles(torch.flatten, T.flatten)
def _flatten(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "start_dim", "end_dim"), start_dim=0, end_dim=-1)
    if isinstance(b["start_dim"], str) or isinstance(b["end_dim"], str):
        return NotImplemented
    return rec.record("aten::flatten", [("self", b["input"]), ("start_dim", int(b["start_dim"])),
                                        ("end_dim", int(b["end_dim"]))], func, args, kwargs)


@handles(torch.unflatten, T.unflatten)
def _unflatten(rec, func, args, kwargs):
    b = bind(args, {("input" if k == "self" else k): v for k, v in kwargs.items()}, ("input", "dim", "sizes"))
    sizes = b["sizes"]
    if isinstance(b["dim"], str) or not isinstance(sizes, (list, tuple, torch.Size)) or \
            any(isinstance(v, (list, tuple)) for v in sizes):
        return NotImplemented  # named dims
    return rec.record("aten::unflatten", [("self", b["input"]), ("dim", int(b["dim"])),
                                          ("sizes", _sizes_arg((sizes,)))], func, args, kwargs)


def _sizes_arg(rest, kind=None):
    """A size list that may hold traced sizes (recorded as a 1-D int64 tensor then)."""
    if len(rest) == 1 and isinstance(rest[0], (list, tuple, torch.Size)):
        rest = rest[0]
    return Dyn([v if isinstance(v, S.TracedInt) else int(v) for v in rest], kind)


def _ints(rest):
    """An int list that is a constant of the operator (dims, not sizes)."""
    if len(rest) == 1 and isinstance(rest[0], (list, tuple, torch.Size)):
        rest = rest[0]
    return [int(v) for v in rest]


@handles(T.view)
def _view(rec, func, args, kwargs):
    rest = args[1:] or (kwargs.get("size", kwargs.get("dtype")),)
    if len(rest) == 1 and isinstance(rest[0], torch.dtype):
        return NotImplemented
    return rec.record("aten::view", [("self", args[0]), ("size", _sizes_arg(rest))], func, args, kwargs)


@handles(T.reshape)
def _tensor_reshape(rec, func, args, kwargs):
    rest = args[1:] or (kwargs["shape"],)
    return rec.record("aten::reshape", [("self", args[0]), ("shape", _sizes_arg(rest))], func, args, kwargs)


@handles(torch.reshape)
def _reshape(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "shape"))
    return rec.record("aten::reshape", [("self", b["input"]), ("shape", _sizes_arg((b["shape"],)))],
                      func, args, kwargs)


def _softmax(kind, fn_style):
    def h(rec, func, args, kwargs):
        if fn_style:
            b = bind(args, kwargs, ("input", "dim", "_stacklevel", "dtype"), dim=None, dtype=None)
        else:
            b = bind(args, kwargs, ("input", "dim", "dtype"), dtype=None)
        x = b["input"]
        dim = b["dim"]
        if dim is None:
            # F.softmax's legacy implicit dim.
            dim = 0 if x.dim() in (0, 1, 3) else 1
        if isinstance(dim, str):
            return NotImplemented
        return rec.record(kind, [("self", x), ("dim", int(dim)), ("dtype", b["dtype"])], func, args, kwargs)
    return h


HANDLERS[F.softmax] = _softmax("aten::softmax", True)
HANDLERS[F.log_softmax] = _softmax("aten::log_softmax", True)
HANDLERS[torch.softmax] = HANDLERS[T.softmax] = _softmax("aten::softmax", False)
HANDLERS[torch.log_softmax] = HANDLERS[T.log_softmax] = _softmax("aten::log_softmax", False)


@handles(torch.t, T.t)
def _t(rec, func, args, kwargs):
    return rec.record("aten::t", [("self", args[0])], func, args, kwargs)


@handles(torch.transpose, T.transpose)
def _transpose(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim0", "dim1"))
    if isinstance(b["dim0"], str) or isinstance(b["dim1"], str):
        return NotImplemented
    return rec.record("aten::transpose", [("self", b["input"]), ("dim0", int(b["dim0"])), ("dim1", int(b["dim1"]))],
                      func, args, kwargs)


@handles(T.permute)
def _tensor_permute(rec, func, args, kwargs):
    rest = args[1:] or (kwargs["dims"],)
    return rec.record("aten::permute", [("self", args[0]), ("dims", _ints(rest))], func, args, kwargs)


@handles(torch.permute)
def _permute(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dims"))
    return rec.record("aten::permute", [("self", b["input"]), ("dims", _ints((b["dims"],)))], func, args, kwargs)


@handles(T.contiguous)
def _contiguous(rec, func, args, kwargs):
    return rec.record("aten::contiguous", [("self", args[0])], func, args, kwargs)


@handles(torch.unsqueeze, T.unsqueeze)
def _unsqueeze(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim"))
    return rec.record("aten::unsqueeze", [("self", b["input"]), ("dim", int(b["dim"]))], func, args, kwargs)


@handles(torch.squeeze, T.squeeze)
def _squeeze(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim"), dim=None)
    if isinstance(b["dim"], str):
        return NotImplemented
    arglist = [("self", b["input"])]
    if b["dim"] is not None:
        arglist.append(("dim", int(b["dim"])))
    return rec.record("aten::squeeze", arglist, func, args, kwargs)


@handles(torch.mean, T.mean)
def _mean(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim", "keepdim"), dim=None, keepdim=False, dtype=None)
    x = b["input"]
    dim = b["dim"]
    if dim is None:
        dim = list(range(x.dim()))
    elif isinstance(dim, int):
        dim = [dim]
    if any(isinstance(d, str) for d in dim):
        return NotImplemented
    return rec.record("aten::mean", [("self", x), ("dim", [int(d) for d in dim]), ("keepdim", bool(b["keepdim"])),
                                     ("dtype", b["dtype"])], func, args, kwargs)


@handles(torch.einsum)
def _einsum(rec, func, args, kwargs):
    # torch.onnx's aten::einsum -> Einsum, from opset 12; below it (or when the
    # caller does not say) the views and products einsum dispatches to
    if rec.opset is None or rec.opset < 12 or not args or not isinstance(args[0], str):
        return NotImplemented
    ops = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
    if not all(isinstance(t, torch.Tensor) for t in ops):
        return NotImplemented  # the sublist form einsum(x, [0, 1], ...)
    return rec.record("aten::einsum", [("equation", args[0]), ("tensors", list(ops))], func, args, kwargs)


@handles(torch.outer, T.outer, torch.ger, T.ger)
def _outer(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "vec2"))
    return rec.record("aten::outer", [("self", b["input"]), ("vec2", b["vec2"])], func, args, kwargs)


@handles(torch.tensordot)
def _tensordot(rec, func, args, kwargs):
    # torch.onnx's aten::tensordot -> Einsum from opset 12; below it the permutes
    # and mm it dispatches to, as for einsum
    b = bind(args, kwargs, ("a", "b", "dims"), dims=2)
    a, o, dims = b["a"], b["b"], b["dims"]
    if rec.opset is None or rec.opset < 12 or isinstance(dims, torch.Tensor):
        return NotImplemented
    if isinstance(dims, int):
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = ([int(dims[0])], [int(dims[1])]) if isinstance(dims[0], int) else \
            ([int(d) for d in dims[0]], [int(d) for d in dims[1]])
    return rec.record("aten::tensordot", [("self", a), ("other", o), ("dims_self", da), ("dims_other", db)],
                      func, args, kwargs)


@handles(torch.argsort, T.argsort)
def _argsort(rec, func, args, kwargs):
    # torch.onnx's aten::argsort: recorded as one node rather than the sort it calls
    b = bind(args, kwargs, ("input", "dim", "descending"), dim=-1, descending=False, stable=False)
    if isinstance(b["dim"], str):
        return NotImplemented
    arglist = [("self", b["input"])] + ([("stable", True)] if b["stable"] else [])
    return rec.record("aten::argsort", arglist + [("dim", int(b["dim"])), ("descending", bool(b["descending"]))],
                      func, args, kwargs)


@handles(F.pairwise_distance, torch.pairwise_distance)
def _pairwise_distance(rec, func, args, kwargs):
    b = bind(args, kwargs, ("x1", "x2", "p", "eps", "keepdim"), p=2.0, eps=1e-6, keepdim=False)
    return rec.record("aten::pairwise_distance", [("x1", b["x1"]), ("x2", b["x2"]), ("p", float(b["p"])),
                                                  ("eps", float(b["eps"])), ("keepdim", bool(b["keepdim"]))],
                      func, args, kwargs)


@handles(F.cosine_similarity, torch.cosine_similarity)
def _cosine_similarity(rec, func, args, kwargs):
    b = bind(args, kwargs, ("x1", "x2", "dim", "eps"), dim=1, eps=1e-8)
    return rec.record("aten::cosine_similarity", [("x1", b["x1"]), ("x2", b["x2"]), ("dim", int(b["dim"])),
                                                  ("eps", float(b["eps"]))], func, args, kwargs)


@handles(torch.norm, T.norm)
def _norm(rec, func, args, kwargs):
    # torch.norm's default order 'fro' is torch.onnx's aten::frobenius_norm (what
    # torch.norm calls); numeric orders go on to the dispatcher's aten::norm
    b = bind(args, kwargs, ("input", "p", "dim", "keepdim", "out", "dtype"), p="fro", dim=None, keepdim=False,
             out=None, dtype=None)
    if not isinstance(b["p"], str) or b["p"] != "fro" or b["out"] is not None or b["dtype"] is not None:
        return NotImplemented
    d = b["dim"]
    d = [] if d is None else [int(d)] if isinstance(d, int) else [int(v) for v in d]
    return rec.record("aten::frobenius_norm", [("self", b["input"]), ("dim", d), ("keepdim", bool(b["keepdim"]))],
                      func, args, kwargs)


@handles(torch.linalg.matrix_norm)
def _matrix_norm(rec, func, args, kwargs):
    # torch.onnx's aten::linalg_matrix_norm: one node, so the orders ONNX cannot
    # express (singular values) are refused by name rather than as an SVD
    b = bind(args, kwargs, ("A", "ord", "dim", "keepdim"), ord="fro", dim=(-2, -1), keepdim=False, dtype=None)
    o = b["ord"] if isinstance(b["ord"], str) else float(b["ord"])
    return rec.record("aten::linalg_matrix_norm", [
        ("self", b["A"]), ("ord", o), ("dim", [int(d) for d in b["dim"]]), ("keepdim", bool(b["keepdim"])),
        ("dtype", b["dtype"])], func, args, kwargs)


@handles(torch.linalg.norm)
def _linalg_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("A", "ord", "dim", "keepdim"), ord=None, dim=None, keepdim=False, dtype=None)
    o = b["ord"] if b["ord"] is None or isinstance(b["ord"], str) else float(b["ord"])
    d = b["dim"]
    d = None if d is None else [int(d)] if isinstance(d, int) else [int(v) for v in d]
    return rec.record("aten::linalg_norm", [("self", b["A"]), ("ord", o), ("dim", d), ("keepdim", bool(b["keepdim"])),
                                            ("dtype", b["dtype"])], func, args, kwargs)


@handles(torch.cdist)
def _cdist(rec, func, args, kwargs):
    # torch.onnx's aten::cdist (torch.cdist dispatches to aten::_cdist_forward);
    # compute_mode picks torch's arithmetic only, not the result
    b = bind(args, kwargs, ("x1", "x2", "p"), p=2.0)
    stand_in = FR.meta_cdist_result(b) if rec.fake else None
    if stand_in is not None:
        func, args, kwargs = (lambda: stand_in), (), {}
    return rec.record("aten::cdist", [("x1", b["x1"]), ("x2", b["x2"]), ("p", float(b["p"]))], func, args, kwargs)


@handles(torch.cross, T.cross)
def _cross(rec, func, args, kwargs):
    # torch.onnx's aten::cross (the dispatcher names it linalg_cross, with the dim resolved)
    b = bind(args, kwargs, ("input", "other", "dim"), dim=None)
    arglist = [("self", b["input"]), ("other", b["other"])]
    return rec.record("aten::cross", arglist + ([] if b["dim"] is None else [("dim", int(b["dim"]))]),
                      func, args, kwargs)


@handles(torch.linalg.det, torch.det, T.det)
def _det(rec, func, args, kwargs):
    # torch.onnx's aten::linalg_det: one output (aten::_linalg_det, what it
    # dispatches to, adds the LU factors)
    b = bind(args, kwargs, ("A",))
    return rec.record("aten::linalg_det", [("A", b["A"])], func, args, kwargs)


@handles(torch.linalg.slogdet, torch.slogdet, T.slogdet)
def _slogdet(rec, func, args, kwargs):
    # (sign, logabsdet) as aten::linalg_slogdet; the dispatcher's _linalg_slogdet adds LU factors
    b = bind(args, kwargs, ("A",))
    return rec.record("aten::linalg_slogdet", [("A", b["A"])], func, args, kwargs)


@handles(torch.logdet, T.logdet)
def _logdet(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input",))
    return rec.record("aten::logdet", [("self", b["input"])], func, args, kwargs)


# ---------------------------------------------------------------- losses
# F.nll_loss, F.cross_entropy and F.kl_div run in Python and reach these with
# the reduction as ATen's enum (0 none, 1 mean, 2 sum); recorded as torch.onnx's
# operators, not the log_softmax/nll_loss_forward ... they dispatch to.

# The torch._C._nn bindings' own default reduction is not the schema's (torch
# 1.13 reduces nothing when it is left out): a call without one is left to the
# dispatcher-level recorder.

def _nll(kind):
    def handler(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "target", "weight", "reduction", "ignore_index"), weight=None,
                 ignore_index=-100)
        if "reduction" not in b:
            return NotImplemented
        return rec.record(kind, [("self", b["input"]), ("target", b["target"]), ("weight", b["weight"]),
                                 ("reduction", int(b["reduction"])), ("ignore_index", int(b["ignore_index"]))],
                          func, args, kwargs)
    return handler


HANDLERS[torch._C._nn.nll_loss_nd] = _nll("aten::nll_loss_nd")
HANDLERS[torch._C._nn.nll_loss] = _nll("aten::nll_loss")
HANDLERS[torch._C._nn.nll_loss2d] = _nll("aten::nll_loss2d")


@handles(torch._C._nn.cross_entropy_loss)
def _cross_entropy(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "target", "weight", "reduction", "ignore_index", "label_smoothing"),
             weight=None, ignore_index=-100, label_smoothing=0.0)
    if "reduction" not in b:
        return NotImplemented
    return rec.record("aten::cross_entropy_loss", [
        ("self", b["input"]), ("target", b["target"]), ("weight", b["weight"]), ("reduction", int(b["reduction"])),
        ("ignore_index", int(b["ignore_index"])), ("label_smoothing", float(b["label_smoothing"]))],
        func, args, kwargs)


@handles(torch.kl_div)
def _kl_div(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "target", "reduction"), reduction=1, log_target=False)
    return rec.record("aten::kl_div", [("self", b["input"]), ("target", b["target"]),
                                       ("reduction", int(b["reduction"])), ("log_target", bool(b["log_target"]))],
                      func, args, kwargs)


@handles(torch.select, T.select)
def _select(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim", "index"))
    if isinstance(b["dim"], str):
        return NotImplemented
    # a traced index (x.select(0, x.size(0) - 1)) stays a value of the file, as in x[i]
    index = b["index"] if isinstance(b["index"], S.TracedInt) else int(b["index"])
    return rec.record("aten::select", [("self", b["input"]), ("dim", int(b["dim"])), ("index", Dyn(index))],
                      func, args, kwargs)


def _is_int(k):
    return isinstance(k, int) and not isinstance(k, bool)


@handles(T.__getitem__)
def _getitem(rec, func, args, kwargs):
    """Basic indexing (ints, slices with constant or traced bounds, None, ...) as a chain
    of aten::select / aten::slice / aten::unsqueeze.  Tensor, bool and list keys
    (advanced indexing) are left to the dispatcher, which records aten::index."""
    x, key = args
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if not (k is Ellipsis or k is None or isinstance(k, slice) or _is_int(k)):
            return NotImplemented
        if isinstance(k, slice) and not all(v is None or _is_int(v) for v in (k.start, k.stop, k.step)):
            return NotImplemented
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        return NotImplemented
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_ell:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (x.dim() - n_real) + key[i + 1:]
    cur = x
    d = 0
    for k in key:
        if k is None:
            cur = rec.emit("aten::unsqueeze", rec.resolve([("self", cur), ("dim", d)]),
                           torch.ops.aten.unsqueeze.default(cur, d))
            d += 1
            continue
        if _is_int(k):
            cur = rec.emit("aten::select", rec.resolve([("self", cur), ("dim", d), ("index", Dyn(k))]),
                           torch.ops.aten.select.int(cur, d, S.plain(k)))
            continue
        step = 1 if k.step is None else k.step
        if k.start is None and k.stop is None and S.plain(step) == 1:
            d += 1
            continue
        if isinstance(step, S.TracedInt):
            step = int(step)  # warns: a traced step is fixed
        if step <= 0:
            return NotImplemented
        start, stop = k.start, k.stop
        cur = rec.emit("aten::slice", rec.resolve([("self", cur), ("dim", d), ("start", Dyn(start, need=10)),
                                                   ("end", Dyn(stop, need=10)), ("step", step)]),
                       torch.ops.aten.slice.Tensor(cur, d, S.plain(start), S.plain(stop), step))
        d += 1
    if cur is x:
        out = func(*args, **kwargs)
        rec.alias(x, out)
        return out
    return cur


@handles(torch.narrow, T.narrow)
def _narrow(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim", "start", "length"))
    x, dim, start, length = b["input"], b["dim"], b["start"], b["length"]
    if isinstance(start, torch.Tensor) or isinstance(dim, str):
        return NotImplemented
    dim = int(dim)
    if S.plain(start) < 0:
        start = start + (rec.traced_size(x, dim) if rec.is_traced(x) else x.shape[dim])
    out = func(*args, **kwargs)
    return rec.emit("aten::slice", rec.resolve([("self", x), ("dim", dim), ("start", Dyn(start, need=10)),
                                                ("end", Dyn(start + length, need=10)), ("step", 1)]), out)


# ---------------------------------------------------------------- arithmetic

def _size_operand(rec, n, like):
    """A traced size `n` meeting the tensor `like` in arithmetic (`t * x.size(0)`,
    `x.size(0) - t`): a 0-d tensor standing for the size's recorded rank-0 int64 value,
    as torch.onnx's trace holds sizes, so the file computes with the input's size.
    torch promotes the Python int as a number: with a floating tensor the result is the
    tensor's type, which the pack's promotion of a rank-0 int64 value gives too; with an
    integer tensor it is the tensor's type (a 0-d int32 tensor stays int32), so the size
    is cast to it here (aten::to) instead of promoting the tensor to int64."""
    v = S.plain(n)
    s = torch.tensor(v, device=like.device)
    rec.set_vid(s, n._ox_vid)
    rt = torch.result_type(like, v)
    if rt.is_floating_point or rt.is_complex or rt == torch.int64:
        return s
    out = s.to(rt)  # inside a handler: not recorded again
    rec.emit("aten::to", rec.resolve([("self", s), ("dtype", rt)]), out)
    return out


def _binary(kind, alpha):
    def h(rec, func, args, kwargs):
        if alpha:
            b = bind(args, kwargs, ("input", "other", "alpha"), alpha=1)
        else:
            b = bind(args, kwargs, ("input", "other"))
            if b.get("rounding_mode") is not None:
                return NotImplemented
        other = b["other"]
        if not isinstance(other, (torch.Tensor, int, float, bool)):
            return NotImplemented
        if isinstance(other, S.TracedInt) and isinstance(b["input"], torch.Tensor):
            other = _size_operand(rec, other, b["input"])
        elif isinstance(other, S.TracedInt):
            other = Dyn(other)  # a rank-0 int64 value; the pack promotes it
        arglist = [("self", b["input"]), ("other", other)]
        if alpha:
            arglist.append(("alpha", b["alpha"]))
        return rec.record(kind, arglist, func, args, kwargs)
    return h


for _op, _alpha in (("add", True), ("sub", True), ("mul", False), ("div", False)):
    _k = f"aten::{_op}"
    HANDLERS[getattr(torch, _op)] = HANDLERS[getattr(T, _op)] = _binary(_k, _alpha)
    HANDLERS[getattr(T, _op + "_")] = _binary(_k + "_", _alpha)
_py = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv"}
for _op, _dunder in _py.items():
    _alpha = _op in ("add", "sub")
    HANDLERS[getattr(T, f"__{_dunder}__")] = _binary(f"aten::{_op}", _alpha)
    HANDLERS[getattr(T, f"__i{_dunder}__")] = _binary(f"aten::{_op}_", _alpha)
# true_divide, div's alias, under its own name (torch.onnx converts it by name).
HANDLERS[torch.true_divide] = HANDLERS[T.true_divide] = _binary("aten::true_divide", False)
HANDLERS[T.true_divide_] = _binary("aten::true_divide_", False)
# Commutative reflected forms: `2 * x` is mul(x, 2).
HANDLERS[T.__radd__] = _binary("aten::add", True)
HANDLERS[T.__rmul__] = _binary("aten::mul", False)


def _sized(kind, second="other", reflected=False, alpha=False):
    """`t // n`, `t % n`, `t ** n` and the reflected `n - t`, `n / t`, `n // t`, `n % t`,
    `n ** t` (Tensor.__rsub__ ... get the tensor first) where n is a traced size: recorded
    as kind on the size's rank-0 value (_size_operand), so the file computes with the
    input's size.  Any other operands: NotImplemented, recorded as before."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", second), alpha=1)
        x, n = b.get("input"), b.get(second)
        if not isinstance(x, torch.Tensor) or not isinstance(n, S.TracedInt):
            return NotImplemented
        s = _size_operand(rec, n, x)
        arglist = [("self", s), (second, x)] if reflected else [("self", x), (second, s)]
        if alpha:
            arglist.append(("alpha", b["alpha"]))
        # the call itself gets the plain int: Tensor.__rpow__ makes it a float tensor,
        # which would read it as a Python float (a warning for a value the file computes)
        return rec.record(kind, arglist, func, tuple(S.plain(a) for a in args),
                          {k: S.plain(v) for k, v in kwargs.items()})
    return h


HANDLERS[T.__rsub__] = HANDLERS[torch.rsub] = _sized("aten::rsub", alpha=True)
HANDLERS[T.__rtruediv__] = _sized("aten::div", reflected=True)
HANDLERS[T.__rfloordiv__] = _sized("aten::floor_divide", reflected=True)
HANDLERS[T.__rmod__] = _sized("aten::remainder", reflected=True)
HANDLERS[T.__rpow__] = _sized("aten::pow", "exponent", reflected=True)
for _fs, _k, _second in (((T.__floordiv__, T.floor_divide, torch.floor_divide), "aten::floor_divide", "other"),
                         ((T.__mod__, T.remainder, torch.remainder), "aten::remainder", "other"),
                         ((T.__pow__, T.pow, torch.pow), "aten::pow", "exponent")):
    for _f in _fs:
        HANDLERS[_f] = _sized(_k, _second)
for _fs, _k, _second in (((T.__ifloordiv__, T.floor_divide_), "aten::floor_divide_", "other"),
                         ((T.__imod__, T.remainder_), "aten::remainder_", "other"),
                         ((T.pow_,), "aten::pow_", "exponent")):
    for _f in _fs:
        HANDLERS[_f] = _sized(_k, _second)
# Comparisons with a size (`torch.arange(n) < x.size(1) - 1`, `t >= x.size(0)`; `n < t` is
# t.__gt__(n)): the file compares with the input's size, as it computes with it above.
for _op in ("lt", "le", "gt", "ge", "eq", "ne"):
    for _f in (getattr(T, f"__{_op}__"), getattr(T, _op), getattr(torch, _op)):
        HANDLERS[_f] = _sized(f"aten::{_op}")


def _sized_clamp(kind, bounds=("min", "max")):
    """x.clamp(max=x.size(1)), torch.clamp(x, 0, n), clamp_min/clamp_max/clip and the
    in-place forms, where a bound is a traced size: recorded as aten::clamp with that
    bound as the size's rank-0 value (_size_operand, in torch's result type for an
    integer x), so the file clamps at the input's size.  Other bounds: NotImplemented,
    recorded at the dispatcher as before."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input",) + bounds)
        x = b.get("input")
        if not isinstance(x, torch.Tensor) or not any(isinstance(b.get(k), S.TracedInt) for k in bounds):
            return NotImplemented
        lo, hi = (_size_operand(rec, v, x) if isinstance(v, S.TracedInt) else v
                  for v in (b.get("min"), b.get("max")))
        return rec.record(kind, [("self", x), ("min", lo), ("max", hi)], func, *_plain_call(args, kwargs))
    return h


for _fs, _k, _b in (((T.clamp, torch.clamp, T.clip, torch.clip), "aten::clamp", ("min", "max")),
                    ((T.clamp_, T.clip_, torch.clamp_, torch.clip_), "aten::clamp_", ("min", "max")),
                    ((T.clamp_min, torch.clamp_min), "aten::clamp", ("min",)),
                    ((T.clamp_max, torch.clamp_max), "aten::clamp", ("max",)),
                    ((T.clamp_min_, torch.clamp_min_), "aten::clamp_", ("min",)),
                    ((T.clamp_max_, torch.clamp_max_), "aten::clamp_", ("max",))):
    for _f in _fs:
        HANDLERS[_f] = _sized_clamp(_k, _b)
# Bitwise logic: `mask & True` reaches the dispatcher as bitwise_and.Tensor with
# the number wrapped in a tensor, which torch 1.13's Python dispatch hands on as a
# plain number the .Tensor overload rejects.  Recorded here with the number as a
# number; the real call gets it as a 0-dim tensor, which promotes exactly as the
# number does (both only lift a lower category).  & | ^ commute, so the
# reflected forms are the same op.
def _bitwise(kind):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "other"))
        x, other = b["input"], b["other"]
        if isinstance(other, S.TracedInt) or not isinstance(other, (torch.Tensor, int, bool)):
            return NotImplemented
        if isinstance(other, torch.Tensor):
            return rec.record(kind, [("self", x), ("other", other)], func, args, kwargs)
        return rec.record(kind, [("self", x), ("other", other)], func, (x, torch.tensor(other)), {})
    return h


for _op in ("and", "or", "xor"):
    _k = f"aten::bitwise_{_op}"
    for _f in (getattr(torch, f"bitwise_{_op}"), getattr(T, f"bitwise_{_op}"), getattr(T, f"__{_op}__"),
               getattr(T, f"__r{_op}__")):
        HANDLERS[_f] = _bitwise(_k)
    HANDLERS[getattr(T, f"bitwise_{_op}_")] = HANDLERS[getattr(T, f"__i{_op}__")] = _bitwise(_k + "_")


# ---------------------------------------------------------------- padding, embedding, pixel shuffle

_PAD_MODES = {"reflect": "aten::reflection_pad", "replicate": "aten::replication_pad"}


@handles(F.pad)
def _pad(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "pad", "mode", "value"), mode="constant", value=None)
    if b["mode"] in _PAD_MODES:
        n = len(b["pad"]) // 2
        return rec.record(f"{_PAD_MODES[b['mode']]}{n}d",
                          [("self", b["input"]), ("padding", [int(p) for p in b["pad"]])], func, args, kwargs)
    if b["mode"] == "circular":
        return rec.record("aten::pad", [("self", b["input"]), ("pad", [int(p) for p in b["pad"]]),
                                        ("mode", "circular"), ("value", None)], func, args, kwargs)
    if b["mode"] != "constant":
        return NotImplemented
    v = b["value"]
    return rec.record("aten::constant_pad_nd", [("self", b["input"]), ("pad", Dyn(list(b["pad"]), need=11)),
                                                ("value", 0 if v is None else v)], func, args, kwargs)


@handles(torch.constant_pad_nd)
def _constant_pad_nd(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "pad", "value"), value=0)
    return rec.record("aten::constant_pad_nd", [("self", b["input"]), ("pad", [int(p) for p in b["pad"]]),
                                                ("value", b["value"])], func, args, kwargs)


@handles(F.embedding)
def _embedding(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
                            "sparse"), padding_idx=None, max_norm=None, norm_type=2.0,
             scale_grad_by_freq=False, sparse=False)
    if b["max_norm"] is not None:
        return NotImplemented
    w = b["weight"]
    pi = b["padding_idx"]
    pi = -1 if pi is None else (int(pi) if pi >= 0 else w.size(0) + int(pi))
    return rec.record("aten::embedding", [("weight", w), ("indices", b["input"]), ("padding_idx", pi),
                                          ("scale_grad_by_freq", bool(b["scale_grad_by_freq"])),
                                          ("sparse", bool(b["sparse"]))], func, args, kwargs)


# ---------------------------------------------------------------- fake quantization
# Recorded as the call the model makes: below it ATen runs the *_cachemask
# variants, whose second output (the gradient mask) only backward reads.

@handles(torch.fake_quantize_per_tensor_affine)
def _fake_quantize_per_tensor(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "scale", "zero_point", "quant_min", "quant_max"))
    scale, zp = b["scale"], b["zero_point"]
    return rec.record("aten::fake_quantize_per_tensor_affine", [
        ("self", b["input"]), ("scale", scale if isinstance(scale, torch.Tensor) else float(scale)),
        ("zero_point", zp if isinstance(zp, torch.Tensor) else int(zp)),
        ("quant_min", int(b["quant_min"])), ("quant_max", int(b["quant_max"]))], func, args, kwargs)


@handles(torch.fake_quantize_per_channel_affine)
def _fake_quantize_per_channel(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "scale", "zero_point", "axis", "quant_min", "quant_max"))
    return rec.record("aten::fake_quantize_per_channel_affine", [
        ("self", b["input"]), ("scale", b["scale"]), ("zero_point", b["zero_point"]),
        ("axis", int(b["axis"])), ("quant_min", int(b["quant_min"])), ("quant_max", int(b["quant_max"]))],
        func, args, kwargs)


@handles(torch.fused_moving_avg_obs_fake_quant)
def _fused_observer_fake_quantize(rec, func, args, kwargs):
    # QAT's default fake quantizer (FusedMovingAvgObsFakeQuantize) calls this in eval mode
    # too.  With its observer on, the call first moves the running min/max toward this
    # input and recomputes scale and zero point in place; eager's next call moves them
    # again.  A file cannot keep such state: it quantizes with the values this call used
    # (the buffers after the update), and says so.
    b = bind(args, kwargs, ("self", "observer_on", "fake_quant_on", "running_min", "running_max", "scale",
                            "zero_point", "averaging_const", "quant_min", "quant_max", "ch_axis",
                            "per_row_fake_quant", "symmetric_quant"),
             per_row_fake_quant=False, symmetric_quant=False)
    x = b["input"] if "input" in b else b["self"]
    observer_on = int(b["observer_on"].reshape(-1)[0]) != 0
    fake_quant_on = int(b["fake_quant_on"].reshape(-1)[0]) != 0
    resolved_x = rec.vid(x)
    out = func(*args, **kwargs)
    if observer_on and fake_quant_on:
        S.warn_fixed(rec, "fused_moving_avg_obs_fake_quant with its observer on updates its scale and zero point "
                          "from each input; the file quantizes with the values after this input's update (call "
                          "model.apply(torch.ao.quantization.disable_observer) before exporting)")
    if not fake_quant_on:
        rec.set_vid(out, resolved_x)
        return out
    arglist = [("self", x), ("scale", b["scale"]), ("zero_point", b["zero_point"])]
    kind = "aten::fake_quantize_per_tensor_affine"
    if b["per_row_fake_quant"]:
        kind = "aten::fake_quantize_per_channel_affine"
        arglist.append(("axis", int(b["ch_axis"])))
    arglist += [("quant_min", int(b["quant_min"])), ("quant_max", int(b["quant_max"]))]
    return rec.emit(kind, rec.resolve(arglist), out)


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


@handles(F.embedding_bag)
def _embedding_bag(rec, func, args, kwargs):
    # One output: the bags (ATen's three others are backward's bookkeeping).  A 2-D
    # input (fixed-length bags) is recorded as such, with offsets None.
    b = bind(args, kwargs, ("input", "weight", "offsets", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
                            "sparse", "per_sample_weights", "include_last_offset", "padding_idx"),
             offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean", sparse=False,
             per_sample_weights=None, include_last_offset=False, padding_idx=None)
    w, x = b["weight"], b["input"]
    if b["max_norm"] is not None or b["mode"] not in _BAG_MODES or w.dtype == torch.long:
        return NotImplemented
    pi = b["padding_idx"]
    pi = -1 if pi is None else (int(pi) if pi >= 0 else w.size(0) + int(pi))
    return rec.record("aten::embedding_bag", [
        ("weight", w), ("indices", x), ("offsets", b["offsets"]),
        ("scale_grad_by_freq", bool(b["scale_grad_by_freq"])), ("mode", _BAG_MODES[b["mode"]]),
        ("sparse", bool(b["sparse"])), ("per_sample_weights", b["per_sample_weights"]),
        ("include_last_offset", bool(b["include_last_offset"])), ("padding_idx", pi)], func, args, kwargs)


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


@handles(F.grid_sample)
def _grid_sample(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "grid", "mode", "padding_mode", "align_corners"), mode="bilinear",
             padding_mode="zeros", align_corners=None)
    if b["mode"] not in _GRID_MODES or b["padding_mode"] not in _GRID_PADDING:
        return NotImplemented
    return rec.record("aten::grid_sampler", [
        ("input", b["input"]), ("grid", b["grid"]), ("interpolation_mode", _GRID_MODES[b["mode"]]),
        ("padding_mode", _GRID_PADDING[b["padding_mode"]]), ("align_corners", bool(b["align_corners"]))],
        func, args, kwargs)


@handles(torch._weight_norm)
def _weight_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("v", "g", "dim"), dim=0)
    result = FR.meta_weight_norm_result(b["v"], b["g"], b["dim"]) if rec.fake else None
    if result is not None:
        func, args, kwargs = (lambda: result), (), {}
    return rec.record("aten::_weight_norm", [("v", b["v"]), ("g", b["g"]), ("dim", int(b["dim"]))],
                      func, args, kwargs)


@handles(torch.lstm_cell)
def _lstm_cell(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "hx", "w_ih", "w_hh", "b_ih", "b_hh"), b_ih=None, b_hh=None)
    return rec.record("aten::lstm_cell", [
        ("input", b["input"]), ("hx", list(b["hx"])), ("w_ih", b["w_ih"]), ("w_hh", b["w_hh"]),
        ("b_ih", b["b_ih"]), ("b_hh", b["b_hh"])], func, args, kwargs)


@handles(F.one_hot)
def _one_hot(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "num_classes"), num_classes=-1)
    n = b["num_classes"]
    # a traced count (F.one_hot(dst, x.size(0))) is recorded as its value; torch gets the int
    out = FR.meta_one_hot_result(b["input"], S.plain(n)) if rec.fake else None
    if out is None:
        plain_args, plain_kwargs = _plain_call(args, kwargs)
        out = func(*plain_args, **plain_kwargs)
    if isinstance(n, S.TracedInt):
        n = Dyn(n)
    elif int(n) < 0:
        n = out.shape[-1]
        S.warn_fixed(rec, "F.one_hot without num_classes (the class count is read from the "
                          "data)", n)
    else:
        n = int(n)
    return rec.emit("aten::one_hot", rec.resolve([("self", b["input"]), ("num_classes", n)]), out)


@handles(torch.pixel_shuffle)
def _pixel_shuffle(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "upscale_factor"))
    return rec.record("aten::pixel_shuffle", [("self", b["input"]), ("upscale_factor", int(b["upscale_factor"]))],
                      func, args, kwargs)


# ---------------------------------------------------------------- recurrent

_RNN_TAIL = ("has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first")


def _rnn(kind, hx_is_list):
    def h(rec, func, args, kwargs):
        # The packed-sequence overload passes batch_sizes (a tensor) second.
        if len(args) != 9 or kwargs:
            return NotImplemented
        x, hx, params = args[0], args[1], args[2]
        if hx_is_list != isinstance(hx, (list, tuple)) or not isinstance(params, (list, tuple)):
            return NotImplemented
        arglist = [("input", x), ("hx", list(hx) if hx_is_list else hx), ("params", list(params))]
        arglist += [(n, v) for n, v in zip(_RNN_TAIL, args[3:])]
        arglist = [(n, float(v) if n == "dropout" else v) for n, v in arglist]
        return rec.record(kind, arglist, func, args, kwargs)
    return h


# Packed sequences, as torch.onnx carries them: the trace holds a PackedSequence's
# data as the padded, time-major tensor (T, B, *) and its batch_sizes as the
# sequence lengths (B,); the RNNs take the lengths as ONNX's sequence_lens, and
# _pad_packed_sequence turns the padded tensor back.  The eager tensors (packed
# rows, batch sizes) are mapped to those values; `rec.packed` keeps the padded
# shape of each packed data tensor the trace made.

def _packed_shapes(rec):
    if not hasattr(rec, "packed"):
        rec.packed = {}
    return rec.packed


def _stand_in(shape, like):
    """A tensor that only describes a recorded output's shape and dtype."""
    return torch.empty(list(shape), dtype=like.dtype)


@handles(torch._pack_padded_sequence)
def _pack_padded_sequence(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "lengths", "batch_first"))
    x, lengths, batch_first = b["input"], b["lengths"], bool(b["batch_first"])
    resolved = rec.resolve([("input", x), ("lengths", lengths), ("batch_first", batch_first)])
    data, batch_sizes = func(*args, **kwargs)
    shape = list(x.shape)
    if batch_first:
        shape[0], shape[1] = shape[1], shape[0]
    padded, lens = _stand_in(shape, x), _stand_in(lengths.shape, lengths)
    rec.emit("aten::_pack_padded_sequence", resolved, (padded, lens))
    rec.set_vid(data, rec.lookup(padded))
    rec.set_vid(batch_sizes, rec.lookup(lens))
    _packed_shapes(rec)[id(data)] = (weakref.ref(data), shape)
    return data, batch_sizes


def _rnn_packed(rec, func, kind, args):
    # (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
    data, batch_sizes, hx, params = args[0], args[1], args[2], args[3]
    ent = _packed_shapes(rec).get(id(data))
    if ent is None or ent[0]() is not data or not isinstance(params, (list, tuple)):
        return NotImplemented
    T, B = ent[1][0], ent[1][1]
    is_lstm = kind == "aten::lstm"
    arglist = [("input", data), ("hx", list(hx) if is_lstm else hx), ("params", list(params))]
    arglist += [(n, float(v) if n == "dropout" else v) for n, v in zip(_RNN_TAIL[:-1], args[4:])]
    arglist += [("batch_first", False), ("batch_sizes", batch_sizes)]
    resolved = rec.resolve(arglist)
    res = func(*args)
    out = res[0]
    y = _stand_in([T, B, out.shape[-1]], out)
    rec.emit(kind, resolved, (y,) + tuple(res[1:]))
    rec.set_vid(out, rec.lookup(y))
    _packed_shapes(rec)[id(out)] = (weakref.ref(out), [T, B, out.shape[-1]])
    return res


def _rnn_any(kind, hx_is_list):
    padded = _rnn(kind, hx_is_list)

    def h(rec, func, args, kwargs):
        if len(args) == 9 and not kwargs and isinstance(args[1], torch.Tensor) and \
                isinstance(args[2], (list, tuple)) == hx_is_list and not isinstance(args[3], torch.Tensor):
            return _rnn_packed(rec, func, kind, args)
        return padded(rec, func, args, kwargs)
    return h


HANDLERS[torch.lstm] = _rnn_any("aten::lstm", True)
HANDLERS[torch.gru] = _rnn_any("aten::gru", False)
HANDLERS[torch.rnn_tanh] = _rnn_any("aten::rnn_tanh", False)
HANDLERS[torch.rnn_relu] = _rnn_any("aten::rnn_relu", False)


def _longest_by_default():
    """Whether this call comes from nn.utils.rnn.pad_packed_sequence without a
    total_length (it then passes the longest length)."""
    code = torch.nn.utils.rnn.pad_packed_sequence.__code__
    f = sys._getframe(1)
    while f is not None and f.f_code is not code:
        f = f.f_back
    return f is not None and f.f_locals.get("total_length") is None


@handles(torch._pad_packed_sequence)
def _pad_packed_sequence(rec, func, args, kwargs):
    b = bind(args, kwargs, ("data", "batch_sizes", "batch_first", "padding_value", "total_length"))
    ent = _packed_shapes(rec).get(id(b["data"]))
    if ent is None or ent[0]() is not b["data"]:
        return NotImplemented
    pv = b["padding_value"]
    # nn.utils.rnn.pad_packed_sequence passes the longest length (batch_sizes.size(0))
    # when its caller gave no total_length: recorded as -1, "the longest at run time",
    # since the trace's batch_sizes are the lengths themselves.
    total = int(b["total_length"])
    if _longest_by_default():
        total = -1
    return rec.record("aten::_pad_packed_sequence", [
        ("data", b["data"]), ("batch_sizes", b["batch_sizes"]), ("batch_first", bool(b["batch_first"])),
        ("padding_value", float(pv) if isinstance(pv, float) else pv), ("total_length", total)],
        func, args, kwargs)


# ---------------------------------------------------------------- more activations

def _activation(kind):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "inplace"), inplace=False)
        if FR.fake_like(rec, b["input"], b["inplace"]):
            func, args, kwargs = FR.like_input, (b["input"],), {}
        return rec.record(kind + "_" if b["inplace"] else kind, [("self", b["input"])], func, args, kwargs)
    return h


HANDLERS[F.silu] = _activation("aten::silu")
HANDLERS[F.hardswish] = _activation("aten::hardswish")
HANDLERS[F.hardsigmoid] = _activation("aten::hardsigmoid")


@handles(F.gelu)
def _gelu(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "approximate"), approximate="none")
    return rec.record("aten::gelu", [("self", b["input"]), ("approximate", str(b["approximate"]))],
                      func, args, kwargs)


# ---------------------------------------------------------------- normalization layers

@handles(F.layer_norm)
def _layer_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "normalized_shape", "weight", "bias", "eps"), weight=None, bias=None,
             eps=1e-5)
    if rec.fake and FR.meta_layer_norm_shapes_agree(b):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::layer_norm", [
        ("input", b["input"]), ("normalized_shape", [int(v) for v in b["normalized_shape"]]),
        ("weight", b["weight"]), ("bias", b["bias"]), ("eps", float(b["eps"])),
        ("cudnn_enable", bool(torch.backends.cudnn.enabled))], func, args, kwargs)


@handles(F.group_norm)
def _group_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "num_groups", "weight", "bias", "eps"), weight=None, bias=None, eps=1e-5)
    if rec.fake and FR.meta_group_norm_shapes_agree(b):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::group_norm", [
        ("input", b["input"]), ("num_groups", int(b["num_groups"])), ("weight", b["weight"]),
        ("bias", b["bias"]), ("eps", float(b["eps"])),
        ("cudnn_enabled", bool(torch.backends.cudnn.enabled))], func, args, kwargs)


@handles(F.instance_norm)
def _instance_norm(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "running_mean", "running_var", "weight", "bias", "use_input_stats",
                            "momentum", "eps"), running_mean=None, running_var=None, weight=None, bias=None,
             use_input_stats=True, momentum=0.1, eps=1e-5)
    if rec.fake and FR.meta_instance_norm_shapes_agree(b):
        func, args, kwargs = FR.like_input, (b["input"],), {}
    return rec.record("aten::instance_norm", [
        ("input", b["input"]), ("weight", b["weight"]), ("bias", b["bias"]),
        ("running_mean", b["running_mean"]), ("running_var", b["running_var"]),
        ("use_input_stats", bool(b["use_input_stats"])), ("momentum", float(b["momentum"] or 0.0)),
        ("eps", float(b["eps"])), ("cudnn_enabled", bool(torch.backends.cudnn.enabled))], func, args, kwargs)


# ---------------------------------------------------------------- split, chunk, unbind
#
# split/chunk/unbind return as many tensors as the sizes say; the pack declares
# them with a variable arity (plugin ABI 1.1), so each is recorded as ONE node with
# that many outputs and becomes one ONNX Split.  Where the piece bounds follow a
# size that varies (an int split_size or chunks over a dimension, with dynamic
# axes declared), each piece is recorded instead as the aten::slice that produces
# it, with traced bounds, so the file follows other input shapes.

def _pieces(rec, x, dim, sizes, results, select=False, bounds=None):
    """Record each piece of a split as the slice (or select) that produces it.
    `bounds`: (start, end) per piece, possibly traced; by default from `sizes`."""
    if isinstance(dim, str):
        return NotImplemented
    dim = int(dim)
    if bounds is None:
        bounds, start = [], 0
        for size in sizes:
            bounds.append((start, start + size))
            start += size
    for (start, end), piece in zip(bounds, results):
        if select:
            resolved = rec.resolve([("self", x), ("dim", dim), ("index", start)])
            rec.emit("aten::select", resolved, piece)
        else:
            resolved = rec.resolve([("self", x), ("dim", dim), ("start", Dyn(start, need=10)),
                                    ("end", Dyn(end, need=10)), ("step", 1)])
            rec.emit("aten::slice", resolved, piece)
    return results


def _chunk_bounds(rec, x, dim, chunks, n_pieces):
    """torch.chunk's pieces are ceil(n / chunks) long, n read from the traced size,
    so the bounds follow the input's actual length; the last runs to the end."""
    n = rec.traced_size(x, dim)
    step = (n + (chunks - 1)) // chunks
    out = []
    for i in range(n_pieces):
        start = step * i if i else 0
        end = step * (i + 1) if i + 1 < n_pieces else None
        out.append((start, end))
    return out


def _split_sizes(x, split, dim):
    n = x.shape[dim]
    if isinstance(split, int):
        if split <= 0:
            return None
        return [min(split, n - s) for s in range(0, n, split)] or [0]
    return [int(v) for v in split]


def _one_node(rec, kind, resolved, results):
    rec.emit(kind, rec.resolve(resolved), results)
    return results


def _record_split(rec, x, split, dim, results):
    """torch.split / aten::split(_with_sizes): one node, unless an int split_size
    over a dynamic input makes the pieces' bounds follow its size."""
    d = int(dim) % max(x.dim(), 1)
    if isinstance(split, (list, tuple)):
        return _one_node(rec, "aten::split_with_sizes",
                         [("self", x), ("split_sizes", [int(v) for v in split]), ("dim", d)], results)
    if not rec.dynamic:  # every size is the example's: the traced one is a constant
        return _one_node(rec, "aten::split", [("self", x), ("split_size", int(S.plain(split))), ("dim", d)],
                         results)
    sizes = _split_sizes(x, S.plain(split), d)
    if sizes is None:
        return NotImplemented
    if isinstance(split, S.TracedInt):
        # the bounds are traced; how many pieces there are is a Python list's length
        S.warn_fixed(rec, "torch.split by a traced size: the number of pieces", len(sizes))
    else:
        split = int(split)
    n = rec.traced_size(x, d)
    bounds = [(split * i if i else 0, n if i + 1 == len(sizes) else split * (i + 1))
              for i in range(len(sizes))]
    return _pieces(rec, x, d, sizes, results, bounds=bounds)


@handles(torch.split, T.split, torch.functional.split)
def _split(rec, func, args, kwargs):
    b = bind(args, kwargs, ("tensor", "split_size_or_sections", "dim"), dim=0)
    x, dim = b["tensor"], b["dim"]
    if isinstance(dim, str):
        return NotImplemented
    split = b["split_size_or_sections"]
    if isinstance(split, S.TracedInt):
        # a size read in Python (x.size(1) // 2): the pieces' bounds follow it
        # (_record_split); the eager call gets its value
        if S.plain(split) <= 0:
            return NotImplemented
        return _record_split(rec, x, split, dim, torch.split(x, S.plain(split), dim))
    if not isinstance(split, (list, tuple)) and int(split) <= 0:
        return NotImplemented
    return _record_split(rec, x, split, dim, func(*args, **kwargs))


@handles(torch.chunk, T.chunk)
def _chunk(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "chunks", "dim"), dim=0)
    x, dim = b["input"], b["dim"]
    if isinstance(dim, str):
        return NotImplemented
    result = func(*args, **kwargs)
    d = int(dim) % max(x.dim(), 1)
    return _record_chunk(rec, x, int(b["chunks"]), d, result)


def _record_chunk(rec, x, chunks, d, result):
    if not rec.dynamic:
        return _one_node(rec, "aten::chunk", [("self", x), ("chunks", chunks), ("dim", d)], result)
    return _pieces(rec, x, d, None, result, bounds=_chunk_bounds(rec, x, d, chunks, len(result)))


@handles(torch.unbind, T.unbind)
def _unbind(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "dim"), dim=0)
    x, dim = b["input"], b["dim"]
    if isinstance(dim, str):
        return NotImplemented
    result = func(*args, **kwargs)
    return _one_node(rec, "aten::unbind", [("self", x), ("dim", int(dim) % max(x.dim(), 1))], result)


# ---------------------------------------------------------------- expand, repeat, stack, roll

# broadcast_to is expand (ATen's CompositeImplicit form calls it); handled itself, its
# traced sizes stay in the file instead of reaching the dispatcher as plain ints
@handles(T.expand, T.broadcast_to, torch.broadcast_to)
def _expand(rec, func, args, kwargs):
    rest = args[1:] or (kwargs["size"],)
    return rec.record("aten::expand", [("self", args[0]), ("size", _sizes_arg(rest, "expand"))],
                      func, args, kwargs)


def _as_other(kind):
    """view_as / reshape_as(other): ATen computes them from other's sizes in C++, where a
    trace sees only the numbers; recorded as themselves, the file reads other's shape."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "other"))
        if not isinstance(b["other"], torch.Tensor):
            return NotImplemented
        return rec.record(kind, [("self", b["input"]), ("other", b["other"])], func, args, kwargs)
    return h


HANDLERS[T.view_as] = _as_other("aten::view_as")
HANDLERS[T.reshape_as] = _as_other("aten::reshape_as")


# Functions ATen computes from sizes in C++, written out here in Python so that the
# recorder sees the slices and sizes (FunctionMode runs them with the recorder on).
DECOMPOSITIONS = {}


def _diff(input, n=1, dim=-1, prepend=None, append=None):
    """torch.diff: ATen slices with the example's length; x[1:] - x[:-1] follows it."""
    x = input
    d = dim % x.dim() if x.dim() else 0
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, x, append) if t is not None]
        x = torch.cat([p if isinstance(p, torch.Tensor) else torch.tensor(p, dtype=x.dtype) for p in parts], d)
    lead = (slice(None),) * d
    for _ in range(n):
        hi, lo = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
        x = torch.logical_xor(hi, lo) if x.dtype == torch.bool else hi - lo
    return x


DECOMPOSITIONS[torch.diff] = _diff
DECOMPOSITIONS[T.diff] = _diff


def _kron(input, other, *, out=None):
    """torch.kron: ATen views both operands with the example's sizes (_unsafe_view);
    the same product with the sizes read here follows them: a with a 1 after each dim,
    b with a 1 before each (the lower rank padded with leading 1s), their product
    viewed as the per-dim products."""
    a, b = input, other
    n = max(a.dim(), b.dim())
    sa = [1] * (n - a.dim()) + list(a.shape)
    sb = [1] * (n - b.dim()) + list(b.shape)
    av = a.reshape([v for s in sa for v in (s, 1)])
    bv = b.reshape([v for s in sb for v in (1, s)])
    res = (av * bv).reshape([x * y for x, y in zip(sa, sb)])
    return res if out is None else out.resize_(res.shape).copy_(res)


def _cartesian_prod(*tensors):
    """torch.cartesian_prod: meshgrid (recorded whole), each grid flattened, stacked;
    ATen flattens with the example's sizes."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return torch.stack([g.reshape(-1) for g in torch.meshgrid(*tensors, indexing="ij")], 1)


DECOMPOSITIONS[torch.kron] = DECOMPOSITIONS[T.kron] = _kron
DECOMPOSITIONS[torch.cartesian_prod] = _cartesian_prod


@handles(torch.meshgrid)
def _meshgrid(rec, func, args, kwargs):
    """One node: ATen's own decomposition expands to the sizes of the example."""
    tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    if not tensors or not all(isinstance(t, torch.Tensor) for t in tensors):
        return NotImplemented
    return rec.record("aten::meshgrid", [("tensors", tensors), ("indexing", kwargs.get("indexing") or "ij")],
                      func, args, kwargs)


def _triangle(kind):
    """triu / tril with a traced diagonal (a KV-cache step's causal mask,
    `torch.triu(mask, diagonal=past_len + 1)`): recorded with the diagonal as the size's
    rank-0 value, so the file cuts at the input's past length.  A plain diagonal:
    NotImplemented, recorded at the dispatcher as before."""
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "diagonal"), diagonal=0)
        if not isinstance(b["input"], torch.Tensor) or not isinstance(b["diagonal"], S.TracedInt):
            return NotImplemented
        return rec.record(kind, [("self", b["input"]), ("diagonal", Dyn(b["diagonal"]))],
                          func, *_plain_call(args, kwargs))
    return h


HANDLERS[torch.triu] = HANDLERS[T.triu] = _triangle("aten::triu")
HANDLERS[torch.tril] = HANDLERS[T.tril] = _triangle("aten::tril")


@handles(T.expand_as)
def _expand_as(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "other"))
    other = b["other"]
    size = rec.traced_shape(other) if rec.is_traced(other) else [int(v) for v in other.shape]
    return rec.record("aten::expand", [("self", b["input"]), ("size", Dyn(list(size), "expand"))],
                      func, args, kwargs)


@handles(torch.tile, T.tile)
def _tile(rec, func, args, kwargs):
    """tile is repeat with the dims padded with leading ones to x's rank (ATen's own
    form); recorded as such, its traced counts stay in the file."""
    b = bind(args, kwargs, ("input", "dims"))
    x, dims = b["input"], b["dims"]
    if not isinstance(x, torch.Tensor) or not S.is_sizes(dims):
        return NotImplemented
    dims = [1] * (x.dim() - len(dims)) + list(dims)
    return rec.record("aten::repeat", [("self", x), ("repeats", _sizes_arg((dims,)))], func, args, kwargs)


@handles(T.repeat)
def _repeat(rec, func, args, kwargs):
    rest = args[1:] or (kwargs["repeats"],)
    return rec.record("aten::repeat", [("self", args[0]), ("repeats", _sizes_arg(rest))], func, args, kwargs)


@handles(torch.stack)
def _stack(rec, func, args, kwargs):
    b = bind(args, kwargs, ("tensors", "dim"), dim=0)
    if isinstance(b["dim"], str):
        return NotImplemented
    return rec.record("aten::stack", [("tensors", list(b["tensors"])), ("dim", int(b["dim"]))], func, args, kwargs)


@handles(torch.roll, T.roll)
def _roll(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "shifts", "dims"), dims=None)
    if b["dims"] is None:
        return NotImplemented
    raw = list(b["shifts"]) if isinstance(b["shifts"], (list, tuple, torch.Size)) else [b["shifts"]]
    if rec.dynamic and any(isinstance(k, S.TracedInt) for k in raw):
        return _roll_traced(rec, b["input"], raw, ntuple(b["dims"], 1))
    shifts = ntuple(b["shifts"], 1)
    dims = ntuple(b["dims"], 1)
    return rec.record("aten::roll", [("self", b["input"]), ("shifts", shifts), ("dims", dims)], func, args, kwargs)


def _roll_traced(rec, x, shifts, dims):
    """roll by a shift read in Python (x.size(1) // 2) under dynamic axes: per dim, the
    two slices at n - shift % n, both traced, then their concatenation, so the file rolls
    by the shift the input's size gives (aten::roll's shifts are constants)."""
    if len(shifts) != len(dims) or not x.dim():
        return NotImplemented
    y = x
    for k, d in zip(shifts, dims):
        d %= y.dim()
        n = rec.traced_size(y, d)
        if S.plain(n) == 0:
            continue
        cut = n - k % n
        at = S.plain(cut)
        head, tail = y.narrow(d, at, S.plain(n) - at), y.narrow(d, 0, at)
        _pieces(rec, y, d, None, [head, tail], bounds=[(cut, n), (0, cut)])
        out = torch.cat([head, tail], d)
        rec.emit("aten::cat", rec.resolve([("tensors", [head, tail]), ("dim", d)]), out)
        y = out
    return y


@handles(torch.repeat_interleave, T.repeat_interleave)
def _repeat_interleave(rec, func, args, kwargs):
    """An int of repeats: recorded as aten::repeat_interleave(self, repeats, dim).  ATen
    would dispatch it as the positions of x.size(dim) repeated (a constant the trace cannot
    tie to a dynamic axis) and an index_select.  A tensor of repeats (and the one-argument
    positions form) stays at the dispatcher, where its positions are recorded."""
    b = bind(args, kwargs, ("input", "repeats", "dim", "output_size"), dim=None, output_size=None)
    r = b.get("repeats")
    if not isinstance(r, int) or isinstance(r, (bool, S.TracedInt)) or not rec.is_traced(b["input"]):
        return NotImplemented
    dim = b["dim"]
    if dim is not None and not isinstance(dim, int):
        return NotImplemented
    call_kwargs = kwargs
    if rec.fake and b["output_size"] is None:
        # torch 1.13's meta kernel asks for the size the shapes alone give; only the
        # call gets it, the recorded arguments stay the model's.
        x = b["input"]
        n = x.numel() if dim is None else x.size(int(dim))
        call_kwargs = {**kwargs, "output_size": int(n) * int(r)}
    return rec.record("aten::repeat_interleave", [
        ("self", b["input"]), ("repeats", int(r)), ("dim", None if dim is None else int(dim)),
        ("output_size", b["output_size"])], func, args, call_kwargs)


# ---------------------------------------------------------------- dispatcher-level lowerings
#
# Calls recorded at the dispatcher level (inside F.multi_head_attention_forward, for
# one) reach some ops in forms whose arity is not fixed or whose name is an
# implementation detail; ATEN_HANDLERS maps the schema name to a handler like the
# ones above (func is the OpOverload; args follow the ATen schema).

ATEN_HANDLERS = {}


def _aten_split(rec, func, args, kwargs):
    x, split = args[0], args[1]
    dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
    if not isinstance(split, (list, tuple)) and int(split) <= 0:
        return NotImplemented
    return _record_split(rec, x, split, dim, func(*args, **kwargs))


def _aten_chunk(rec, func, args, kwargs):
    x = args[0]
    dim = int(args[2] if len(args) > 2 else kwargs.get("dim", 0)) % max(x.dim(), 1)
    return _record_chunk(rec, x, int(args[1]), dim, func(*args, **kwargs))


def _aten_unbind(rec, func, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    result = func(*args, **kwargs)
    return _one_node(rec, "aten::unbind", [("self", x), ("dim", int(dim) % max(x.dim(), 1))], result)


def _aten_softmax(kind):
    def h(rec, func, args, kwargs):
        x, dim = args[0], args[1]
        return rec.record(kind, [("self", x), ("dim", int(dim)), ("dtype", None)], func, args, kwargs)
    return h


def _aten_view(rec, func, args, kwargs):
    """aten::_unsafe_view (matmul's decomposition of a 3-D F.linear) is a view."""
    if rec.dynamic:
        S.warn_fixed(rec, "aten::_unsafe_view size (reached at the dispatcher level)",
                     [int(v) for v in args[1]])
    return rec.record("aten::view", [("self", args[0]), ("size", [int(v) for v in args[1]])], func, args, kwargs)


def _aten_expand(rec, func, args, kwargs):
    """aten::expand's `implicit` flag only matters to autograd."""
    return rec.record("aten::expand", [("self", args[0]), ("size", [int(v) for v in args[1]])], func, args, kwargs)


def _aten_like(kind):
    """zeros_like and friends inside a dispatcher-level call: recorded on the other
    tensor's run-time shape, as at the function level."""
    def h(rec, func, args, kwargs):
        out = func(*args, **kwargs)
        fill = None
        if kind == "aten::full_like":
            fill = args[1] if len(args) > 1 else kwargs["fill_value"]
        return _emit_like(rec, kind, args[0], fill, out)
    return h


def _aten_clamp(rec, func, args, kwargs):
    """clip is clamp's alias; clamp_min / clamp_max are clamp with one bound."""
    name = func._schema.name
    if name == "aten::clamp_max":
        lo, hi = None, args[1]
    elif name == "aten::clamp_min":
        lo, hi = args[1], None
    else:
        lo = args[1] if len(args) > 1 else kwargs.get("min")
        hi = args[2] if len(args) > 2 else kwargs.get("max")
    return rec.record("aten::clamp", [("self", args[0]), ("min", lo), ("max", hi)], func, args, kwargs)


def _aten_to_copy(rec, func, args, kwargs):
    """.to(dtype) / .float() / .type_as reached at the dispatcher level (inside a
    Python-implemented function, a TorchScript module, ...) arrive as
    aten::_to_copy: the same cast as at the function level."""
    if kwargs.get("memory_format") not in (None, torch.preserve_format):
        return NotImplemented
    return _record_cast(rec, func, args, kwargs, args[0], kwargs.get("dtype"))


def _aten_reshape_alias(rec, func, args, kwargs):
    """aten::_reshape_alias (einsum's and reshape's decomposition on a contiguous
    tensor) is a view of the given size; its strides follow from contiguity."""
    size = [int(v) for v in args[1]]
    if rec.dynamic:
        # the dispatcher hands over plain ints: the sizes Python computed are gone
        S.warn_fixed(rec, "aten::_reshape_alias size (reached at the dispatcher level, e.g. "
                          "inside torch.einsum)", size)
    return rec.record("aten::view", [("self", args[0]), ("size", size)], func, args, kwargs)


ATEN_HANDLERS["aten::_to_copy"] = _aten_to_copy
ATEN_HANDLERS["aten::_reshape_alias"] = _aten_reshape_alias
for _n in ("aten::clip", "aten::clamp_min", "aten::clamp_max"):
    ATEN_HANDLERS[_n] = _aten_clamp
ATEN_HANDLERS["aten::_unsafe_view"] = _aten_view
ATEN_HANDLERS["aten::expand"] = _aten_expand
for _n, _k in (("aten::zeros_like", "aten::zeros_like"), ("aten::empty_like", "aten::empty_like"),
               ("aten::ones_like", "aten::ones_like"), ("aten::full_like", "aten::full_like")):
    ATEN_HANDLERS[_n] = _aten_like(_k)
for _n in ("aten::split", "aten::split_with_sizes", "aten::unsafe_split", "aten::unsafe_split_with_sizes"):
    ATEN_HANDLERS[_n] = _aten_split
ATEN_HANDLERS["aten::chunk"] = _aten_chunk
ATEN_HANDLERS["aten::unbind"] = _aten_unbind
ATEN_HANDLERS["aten::_softmax"] = _aten_softmax("aten::softmax")
ATEN_HANDLERS["aten::_log_softmax"] = _aten_softmax("aten::log_softmax")


# ---------------------------------------------------------------- interpolation

# F.interpolate's modes by spatial rank, as ATen (and torch.onnx) name them.
_UPSAMPLE = {("nearest", 1): "nearest1d", ("nearest", 2): "nearest2d", ("nearest", 3): "nearest3d",
             ("linear", 1): "linear1d", ("bilinear", 2): "bilinear2d", ("bicubic", 2): "bicubic2d",
             ("trilinear", 3): "trilinear3d"}


def _upsampled_size(x, size, sf, n):
    """F.interpolate's output spatial size: the given size, or each input size times its
    factor, floored (torch's rule); [] when neither is usable."""
    if size is not None:
        size = list(size) if isinstance(size, (list, tuple)) else [size] * n
        return [S.plain(v) for v in size]
    if sf is None:
        return []
    sf = list(sf) if isinstance(sf, (list, tuple)) else [sf] * n
    return [int(math.floor(x.shape[2 + i] * float(sf[i]))) for i in range(n)] if len(sf) == n else []


@handles(F.interpolate, F.upsample)
def _interpolate(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                            "antialias"), size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None, antialias=False)
    x = b["input"]
    n = x.dim() - 2
    kind = _UPSAMPLE.get((b["mode"], n))
    # antialias: torch has it for bilinear and bicubic (aten::_upsample_<kind>_aa), ONNX's
    # Resize from opset 18
    if kind is None or (b["antialias"] and kind not in ("bilinear2d", "bicubic2d")):
        return NotImplemented
    name = f"aten::_upsample_{kind}_aa" if b["antialias"] else f"aten::upsample_{kind}"
    size, sf = b["size"], b["scale_factor"]
    out = None
    if rec.fake and kind == "nearest3d":
        out = FR.meta_nearest3d_result(x, _upsampled_size(x, size, sf, n))
    if out is None:
        out = func(*args, **kwargs)
    if size is not None:
        # Given sizes (possibly traced: 2 * h) are the output size.  Resize takes them
        # as a tensor from opset 11; the linear modes' Gather form before 11 takes them
        # at any opset (plugins/aten/resize.c).
        size = list(size) if isinstance(size, (list, tuple)) else [size] * n
        linear = b["mode"] in ("linear", "bilinear", "trilinear")
        arglist = [("self", x), ("output_size", Dyn(size, need=None if linear else 11))]
    elif sf is not None and not b["recompute_scale_factor"]:
        # torch maps coordinates with the given factor and sizes the output
        # floor(in * factor): Resize with scales does both, at any input size.
        sf = [float(v) for v in sf] if isinstance(sf, (list, tuple)) else [float(sf)] * n
        arglist = [("self", x), ("output_size", None), ("scales", sf)]
    else:
        hw = [int(v) for v in out.shape[2:]]
        S.warn_fixed(rec, "F.interpolate with recompute_scale_factor=True (the output size is "
                          "computed in Python)", hw)
        arglist = [("self", x), ("output_size", hw)]
    if b["mode"] != "nearest":
        arglist.append(("align_corners", bool(b["align_corners"])))
    resolved = rec.resolve(arglist)
    return rec.emit(name, resolved, out)


# ---------------------------------------------------------------- max / min
#
# torch.max has three forms with different arities: the whole tensor (one value),
# along a dim (values, indices) and elementwise against another tensor.  Each is
# recorded as fixed-arity kinds: amax; amax + argmax; maximum.

def _max_min(reduce_kind, arg_kind, elementwise_kind):
    def h(rec, func, args, kwargs):
        b = bind(args, kwargs, ("input", "dim", "keepdim"), dim=None, keepdim=False)
        x = b["input"]
        dim = b.pop("other", None)
        if isinstance(b["dim"], torch.Tensor):
            dim, b["dim"] = b["dim"], None
        if dim is not None:
            return rec.record(elementwise_kind, [("self", x), ("other", dim)], func, args, kwargs)
        if b["dim"] is None:
            return rec.record(reduce_kind, [("self", x), ("dim", list(range(x.dim()))), ("keepdim", False)],
                              func, args, kwargs)
        if isinstance(b["dim"], str):
            return NotImplemented
        d, keep = int(b["dim"]), bool(b["keepdim"])
        values, indices = func(*args, **kwargs)
        rec.emit(reduce_kind, rec.resolve([("self", x), ("dim", [d]), ("keepdim", keep)]), values)
        rec.emit(arg_kind, rec.resolve([("self", x), ("dim", d), ("keepdim", keep)]), indices)
        return torch.return_types.max((values, indices)) if reduce_kind == "aten::amax" \
            else torch.return_types.min((values, indices))
    return h


HANDLERS[torch.max] = HANDLERS[T.max] = _max_min("aten::amax", "aten::argmax", "aten::maximum")
HANDLERS[torch.min] = HANDLERS[T.min] = _max_min("aten::amin", "aten::argmin", "aten::minimum")


# ---------------------------------------------------------------- dtype conversions

def _record_cast(rec, func, args, kwargs, x, dtype):
    if dtype is None or dtype == x.dtype:
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.dtype == x.dtype and out.shape == x.shape:
            rec.alias(x, out)
            return out
        return NotImplemented
    return rec.record("aten::to", [("self", x), ("dtype", dtype)], func, args, kwargs)


def _cast_method(dtype):
    def h(rec, func, args, kwargs):
        if kwargs.get("memory_format") not in (None, torch.preserve_format):
            return NotImplemented
        return _record_cast(rec, func, args, kwargs, args[0], dtype)
    return h


for _m, _dt in (("float", torch.float32), ("double", torch.float64), ("half", torch.float16),
                ("long", torch.int64), ("int", torch.int32), ("short", torch.int16), ("bool", torch.bool),
                ("byte", torch.uint8), ("char", torch.int8), ("bfloat16", torch.bfloat16)):
    HANDLERS[getattr(T, _m)] = _cast_method(_dt)


@handles(T.to)
def _to(rec, func, args, kwargs):
    """x.to(dtype), x.to(other), x.to(device) on the CPU; anything else (another device,
    a copy=True request) is left to the dispatcher."""
    dtype = kwargs.get("dtype")
    for a in args[1:]:
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, torch.Tensor):
            dtype = a.dtype
    if kwargs.get("copy"):
        return NotImplemented
    return _record_cast(rec, func, args, kwargs, args[0], dtype)


@handles(T.type_as)
def _type_as(rec, func, args, kwargs):
    b = bind(args, kwargs, ("input", "other"))
    return _record_cast(rec, func, args, kwargs, b["input"], b["other"].dtype)
