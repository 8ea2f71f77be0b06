"""Quantized tensors (torch.quint8 / qint8 / qint32) in a trace.

ONNX has no quantized element type.  A quantized tensor is recorded as its integer
representation (uint8 / int8 / int32, what `int_repr()` returns), and the recorder keeps
its scale, zero point and channel axis beside it (`Recorder.qinfo`, by value id).  Every
reader is then told them explicitly:

- `torch.quantize_per_tensor` / `quantize_per_channel` record aten::quantize_per_*;
  `dequantize()` records aten::dequantize with the tensor's scale, zero point and axis;
  `int_repr()` is the recorded value itself.
- the integer kernels of statically quantized modules (`quantized::conv*d(_relu)`,
  `quantized::linear(_relu)`) are recorded with their packed weight unpacked: the int8
  weight and its scale and zero point, the bias quantized to int32 with scale
  input_scale * weight_scale (how the integer kernels add it), the packed stride, padding,
  dilation and groups, and the module's output scale and zero point;
- quantize_dynamic's Linear (`quantized::linear_dynamic`) is recorded as what it computes:
  the input's qparams from its own range, quantize / dequantize with them, a float linear;
- any other operator on a quantized tensor (pooling, flatten, the FloatFunctional ops
  `quantized::add` / `mul` / `cat`, hardswish, batch norm ...) is recorded in the QDQ
  form: each quantized input dequantized, the float operator as usual (its own handler),
  and the result quantized with the scale and zero point eager PyTorch gave it.  ONNX
  runtimes fuse the pattern into integer kernels; the values agree with eager's within
  one quantization step (eager rounds inside its integer kernels, the file once at the
  end).

Scales and zero points are module state (a quantized module's `scale`, a Quantize stub's
buffers), read as plain numbers without a warning: the file holds the model's values, not
the example's.  A scale computed from the input (`quantize_per_tensor(x, x.abs().max() /
127, ...)`) stays a traced value and follows the input.
"""

import contextlib

import torch
import torch.nn.functional as F
from torch.utils._mode_utils import no_dispatch

from . import _lowering as L
from . import _sizes as S

T = torch.Tensor

# Integer representation of each quantized dtype, as the engine's element type codes.
QDTYPES = {torch.quint8: 2, torch.qint8: 3, torch.qint32: 6}
_INT_REPR = {torch.quint8: torch.uint8, torch.qint8: torch.int8, torch.qint32: torch.int32}


class QInfo:
    """How to read a quantized value: scale and zero point (numbers, or tensors the trace
    records), and the channel axis (-1: one scale for the whole tensor)."""

    __slots__ = ("scale", "zero_point", "axis")

    def __init__(self, scale, zero_point, axis=-1):
        self.scale, self.zero_point, self.axis = scale, zero_point, axis

    def traced(self, rec):
        return any(isinstance(v, torch.Tensor) and rec.lookup(v) is not None and not rec.is_model_state(v)
                   for v in (self.scale, self.zero_point))

    def args(self):
        return [("scale", self.scale), ("zero_point", self.zero_point), ("axis", self.axis)]


def is_q(t):
    return isinstance(t, torch.Tensor) and t.is_quantized


def concrete_qinfo(t):
    """The scale and zero point eager PyTorch gave quantized tensor t, as constants."""
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return QInfo(float(t.q_scale()), int(t.q_zero_point()))
    return QInfo(t.q_per_channel_scales().to(torch.float32),
                 t.q_per_channel_zero_points().to(_INT_REPR[t.dtype]), int(t.q_per_channel_axis()))


def _same_numbers(a, b):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        try:
            return torch.equal(torch.as_tensor(a).double().flatten(), torch.as_tensor(b).double().flatten())
        except RuntimeError:
            return False
    return float(a) == float(b)


def out_qinfo(rec, real, q_inputs):
    """QInfo of a quantized result: an input's (kept traced when it is) where eager carried
    it over unchanged (relu, pooling, reshapes), else the result's own numbers."""
    mine = concrete_qinfo(real)
    for q in q_inputs:
        info = rec.qinfo.get(rec.vid(q))
        if info is None or info.axis != mine.axis:
            continue
        theirs = concrete_qinfo(q)
        if _same_numbers(theirs.scale, mine.scale) and _same_numbers(theirs.zero_point, mine.zero_point):
            return info
    return mine


def op_name(func):
    """'quantized::conv2d' for torch.ops.quantized.conv2d (packet or overload)."""
    name = getattr(func, "_qualified_op_name", None)
    if name is None and hasattr(func, "_schema"):
        name = func._schema.name
    return name


# ------------------------------------------------------------------ recording helpers

@contextlib.contextmanager
def eager(rec):
    """Run eager PyTorch's own quantized computation unrecorded and outside the dispatch
    mode: under a TorchDispatchMode torch 1.13 cannot run some ops on quantized tensors
    (aten::permute asks for empty_strided, which quantized tensors lack)."""
    rec.suppress += 1
    try:
        with no_dispatch():
            yield
    finally:
        rec.suppress -= 1


def record_quantized(rec, kind, arglist, func, args, kwargs, info_of):
    """Record `kind` whose result is quantized; info_of(real) gives its QInfo."""
    resolved = rec.resolve(arglist)
    with eager(rec):
        real = func(*args, **kwargs)
    rec.emit(kind, resolved, real)
    rec.qinfo[rec.lookup(real)] = info_of(real)
    return real


def dequantized(rec, q):
    """A float tensor holding q's dequantized value, recorded as aten::dequantize (once per
    value: later uses share the node)."""
    v = rec.vid(q)
    hit = rec.dq_cache.get(v)
    if hit is not None and rec.lookup(hit) is not None:
        return hit
    info = rec.qinfo[v]
    resolved = rec.resolve([("self", q)] + info.args())
    with eager(rec):
        f = q.dequantize()
    rec.emit("aten::dequantize", resolved, f)
    rec.dq_cache[v] = f
    return f


def _swap_q(obj, rec):
    if is_q(obj) and rec.is_traced(obj):
        return dequantized(rec, obj)
    if isinstance(obj, (list, tuple)) and any(is_q(o) for o in obj):
        return type(obj)(_swap_q(o, rec) for o in obj)
    return obj


def qdq(rec, run_float, float_fn, func, args, kwargs):
    """The QDQ form of func: dequantize the quantized inputs, record float_fn on them (under
    the recorder, through run_float), quantize the results with eager's qparams."""
    q_inputs = [t for t in _tensors(args) + _tensors(kwargs) if is_q(t)]
    fargs = [_swap_q(a, rec) for a in args]
    fkwargs = {k: _swap_q(v, rec) for k, v in kwargs.items()}
    fres = run_float(float_fn, fargs, fkwargs)
    with eager(rec):
        real = func(*args, **kwargs)
    f_outs, r_outs = _tensors(fres), _tensors(real)
    if len(f_outs) != len(r_outs):
        from ._recorder import UnsupportedValue
        raise UnsupportedValue(f"{_name(func)} on a quantized tensor in {rec.scope_str()}: its float form "
                               f"returned {len(f_outs)} tensors, eager PyTorch {len(r_outs)}")
    for f, r in zip(f_outs, r_outs):
        if not is_q(r):
            rec.set_vid(r, rec.vid(f))
            continue
        info = out_qinfo(rec, r, q_inputs)
        resolved = rec.resolve([("self", f)] + _quantize_args(info, r.dtype))
        rec.emit("aten::quantize_per_tensor" if info.axis < 0 else "aten::quantize_per_channel", resolved, r)
        rec.qinfo[rec.lookup(r)] = info
    return real


def _quantize_args(info, qdtype):
    if info.axis < 0:
        return [("scale", info.scale), ("zero_point", info.zero_point), ("dtype", qdtype)]
    return [("scales", info.scale), ("zero_points", info.zero_point), ("axis", info.axis), ("dtype", qdtype)]


def _tensors(obj):
    from ._recorder import tensors_in
    return tensors_in(obj)


def _name(func):
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or str(func)


# ------------------------------------------------------------------ handlers

HANDLERS = {}      # torch function -> handler(rec, run_float, func, args, kwargs)
OP_HANDLERS = {}   # 'quantized::x' -> handler, for torch.ops calls (packet or overload)


def _handles(*funcs):
    def deco(h):
        for f in funcs:
            (OP_HANDLERS if isinstance(f, str) else HANDLERS)[f] = h
        return h
    return deco


_bind = L.bind


@_handles(torch.quantize_per_tensor)
def _quantize_per_tensor(rec, run_float, func, args, kwargs):
    b = _bind(args, kwargs, ("input", "scale", "zero_point", "dtype"))
    if isinstance(b["input"], (list, tuple)):
        return NotImplemented
    scale, zp = b["scale"], b["zero_point"]
    scale = scale if isinstance(scale, torch.Tensor) else float(scale)
    zp = zp if isinstance(zp, torch.Tensor) else int(zp)
    return record_quantized(rec, "aten::quantize_per_tensor", [
        ("self", b["input"]), ("scale", scale), ("zero_point", zp), ("dtype", b["dtype"])],
        func, args, kwargs, lambda real: QInfo(scale, zp))


@_handles(torch.quantize_per_channel)
def _quantize_per_channel(rec, run_float, func, args, kwargs):
    b = _bind(args, kwargs, ("input", "scales", "zero_points", "axis", "dtype"))
    axis = int(b["axis"])
    axis = axis + b["input"].dim() if axis < 0 else axis
    zps = b["zero_points"]
    return record_quantized(rec, "aten::quantize_per_channel", [
        ("self", b["input"]), ("scales", b["scales"]), ("zero_points", zps), ("axis", axis),
        ("dtype", b["dtype"])],
        func, args, kwargs, lambda real: QInfo(b["scales"], zps, axis))


@_handles(T.dequantize, torch.dequantize)
def _dequantize(rec, run_float, func, args, kwargs):
    q = args[0] if args else kwargs.get("self", kwargs.get("input"))
    if not is_q(q):
        return NotImplemented
    return dequantized(rec, q)


@_handles(T.int_repr)
def _int_repr(rec, run_float, func, args, kwargs):
    rec.suppress += 1
    try:
        out = func(*args, **kwargs)
    finally:
        rec.suppress -= 1
    if rec.is_traced(args[0]):
        rec.set_vid(out, rec.vid(args[0]))
    return out


@_handles(T.q_scale, T.q_zero_point, T.q_per_channel_scales, T.q_per_channel_zero_points,
          T.q_per_channel_axis, T.qscheme)
def _qparam_read(rec, run_float, func, args, kwargs):
    v = rec.lookup(args[0])
    info = rec.qinfo.get(v) if v is not None else None
    if info is not None and info.traced(rec) and func not in (T.qscheme, T.q_per_channel_axis):
        S.warn_fixed(rec, f"{_name(func)}() of a quantized tensor whose scale is computed from the input")
    rec.suppress += 1
    try:
        return func(*args, **kwargs)
    finally:
        rec.suppress -= 1


# -- the integer kernels of quantized modules

_UNPACK = {"conv1d": "conv1d_unpack", "conv2d": "conv2d_unpack", "conv3d": "conv3d_unpack"}


def _weight_qparams(w):
    """(int weight, scale tensor, zero point tensor of the weight's type)."""
    wi = w.int_repr()
    if w.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return wi, torch.tensor(float(w.q_scale()), dtype=torch.float32), \
            torch.tensor(int(w.q_zero_point()), dtype=wi.dtype), None
    if int(w.q_per_channel_axis()) != 0:
        return None
    return wi, w.q_per_channel_scales().to(torch.float32).contiguous(), \
        w.q_per_channel_zero_points().to(wi.dtype).contiguous(), 0


class _Unpacked:
    """One packed weight's tensors, kept for the trace (their bytes are borrowed) and shared
    by every call of the module."""

    def __init__(self, w, b):
        self.w = w
        self.parts = _weight_qparams(w)
        self.b = b
        self.bias_q = {}   # input scale -> int32 bias

    def quantized_bias(self, x_scale):
        if self.b is None:
            return None
        got = self.bias_q.get(x_scale)
        if got is None:
            wscale = self.parts[1].double()
            got = torch.round(self.b.detach().double() / (x_scale * wscale)).to(torch.int32).contiguous()
            self.bias_q[x_scale] = got
        return got


def _unpacked(rec, kind, packed):
    got = rec.packed_cache.get(id(packed))
    if got is None:
        rec.suppress += 1
        try:
            if kind.startswith("conv"):
                w, b = getattr(torch.ops.quantized, _UNPACK[kind.replace("_relu", "")])(packed)
            else:
                w, b = torch.ops.quantized.linear_unpack(packed)
        finally:
            rec.suppress -= 1
        got = _Unpacked(w, b)
        rec.packed_cache[id(packed)] = (packed, got)  # the packed object stays alive: ids stay unique
    else:
        got = got[1]
    return got


def _param(rec, packed, what, tensor):
    """A packed weight's tensor as a named initializer (the module's path, from
    Recorder.packed_names), declared once."""
    v = rec.lookup(tensor)
    if v is not None:
        return tensor
    base = rec.packed_names.get(id(packed))
    if base is None:
        rec.const(tensor)
    else:
        rec.param(f"{base}.{what}", tensor)
    return tensor


def _kernel(kind):
    def h(rec, run_float, func, args, kwargs):
        b = _bind(args, kwargs, ("qx", "packed_weight", "output_scale", "output_zero_point"))
        x, packed = b["qx"], b["packed_weight"]
        if not is_q(x):
            return NotImplemented
        info = rec.qinfo.get(rec.vid(x))
        up = _unpacked(rec, kind, packed)
        if info is None or info.axis >= 0 or info.traced(rec) or up.parts is None:
            # An input scale the file computes, or a weight quantized along another axis:
            # the integer kernel's constant bias cannot be made; the QDQ form can.
            return qdq(rec, run_float, _float_kernel(kind, up, packed), func, args, kwargs)
        wi, ws, wz, _axis = up.parts
        for what, t in (("weight", wi), ("weight_scale", ws), ("weight_zero_point", wz)):
            _param(rec, packed, what, t)
        bias = up.quantized_bias(float(info.scale))
        if bias is not None:
            _param(rec, packed, "bias_quantized", bias)
        arglist = [("input", x), ("input_scale", float(info.scale)), ("input_zero_point", int(info.zero_point)),
                   ("weight", wi), ("weight_scale", ws), ("weight_zero_point", wz), ("bias", bias)]
        if kind.startswith("conv"):
            n = wi.dim() - 2
            rec.suppress += 1
            try:
                arglist += [("stride", list(packed.stride())[-n:]), ("padding", list(packed.padding())[-n:]),
                            ("dilation", list(packed.dilation())[-n:]), ("groups", int(packed.groups()))]
            finally:
                rec.suppress -= 1
        arglist += [("output_scale", float(b["output_scale"])), ("output_zero_point", int(b["output_zero_point"]))]
        return record_quantized(rec, f"quantized::{kind}", arglist, func, args, kwargs, concrete_qinfo)
    return h


def _float_kernel(kind, up, packed):
    """The float form of a quantized kernel, for the QDQ path."""
    relu = kind.endswith("_relu")
    w = up.w.dequantize()
    bias = up.b

    def conv(x, *_a, **_k):
        n = w.dim() - 2
        y = getattr(F, f"conv{n}d")(x, w, bias, list(packed.stride())[-n:], list(packed.padding())[-n:],
                                     list(packed.dilation())[-n:], int(packed.groups()))
        return F.relu(y) if relu else y

    def linear(x, *_a, **_k):
        y = F.linear(x, w, bias)
        return F.relu(y) if relu else y

    return conv if kind.startswith("conv") else linear


for _k in ("conv1d", "conv2d", "conv3d", "conv1d_relu", "conv2d_relu", "conv3d_relu", "linear", "linear_relu"):
    OP_HANDLERS[f"quantized::{_k}"] = _kernel(_k)


# -- dynamic quantization (torch.ao.quantization.quantize_dynamic): a float input is
# quantized per call with qparams chosen from its own min and max, the product taken in
# integers and returned as floats.  Recorded as what it computes: the qparams from the
# input (fbgemm's choice, below), quantize_per_tensor with them (traced, so they follow
# every input), dequantize, and the float linear with the dequantized weight.

def _dynamic_qparams(x, qmin, qmax):
    """PyTorch's ChooseQuantizationParams for a dynamically quantized input: the range
    [min(x, 0), max(x, 0)] onto [qmin, qmax], the zero point from whichever end is
    represented more exactly, nudged into range (double precision, as PyTorch computes it)."""
    # minimum/maximum rather than clamp: ONNX Runtime has no float64 Clip at opset 11/12
    zero64 = torch.zeros((), dtype=torch.float64)
    lo = torch.minimum(x.min().to(torch.float64), zero64)
    hi = torch.maximum(x.max().to(torch.float64), zero64)
    scale = (hi - lo) / (qmax - qmin)
    scale = torch.where(scale.to(torch.float32) == 0, torch.full_like(scale, 0.1), scale)
    from_min, from_max = qmin - lo / scale, qmax - hi / scale
    err_min = abs(qmin) - torch.abs(lo / scale)
    err_max = abs(qmax) - torch.abs(hi / scale)
    zero = torch.where(err_min < err_max, from_min, from_max)
    zero = torch.minimum(torch.maximum(torch.round(zero), zero64 + qmin), zero64 + qmax)
    return scale.to(torch.float32), zero.to(torch.int64)


def _linear_dynamic(relu):
    def h(rec, run_float, func, args, kwargs):
        b = _bind(args, kwargs, ("X", "W_prepack", "reduce_range"), reduce_range=False)
        x, packed = b["X"], b["W_prepack"]
        up = _unpacked(rec, "linear", packed)
        qmax = 127 if b["reduce_range"] else 255
        w = up.w.dequantize()

        def dynamic(xf):
            scale, zero = _dynamic_qparams(xf, 0, qmax)
            q = torch.quantize_per_tensor(xf, scale, zero, torch.quint8)
            y = F.linear(q.dequantize(), w, up.b)
            return F.relu(y) if relu else y

        out = run_float(dynamic, [x], {})
        with eager(rec):
            real = func(*args, **kwargs)
        rec.set_vid(real, rec.vid(out))
        return real
    return h


OP_HANDLERS["quantized::linear_dynamic"] = _linear_dynamic(False)
OP_HANDLERS["quantized::linear_relu_dynamic"] = _linear_dynamic(True)


# -- FloatFunctional's quantized ops and other quantized:: kernels: the QDQ form with
# the float operator they compute (the output scale and zero point are eager's).

def _relu_of(fn):
    return lambda *a, **k: F.relu(fn(*a, **k))


def _add(qa, qb, *_a, **_k):
    return torch.add(qa, qb)


def _mul(qa, qb, *_a, **_k):
    return torch.mul(qa, qb)


def _cat(qx, dim=0, *_a, **_k):
    return torch.cat(qx, dim)


def _hardswish(x, *_a, **_k):
    return F.hardswish(x)


def _batch_norm(x, weight, bias, mean, var, eps, *_a, **_k):
    return F.batch_norm(x, mean, var, weight, bias, False, 0.0, eps)


def _layer_norm(x, shape, weight, bias, eps, *_a, **_k):
    return F.layer_norm(x, shape, weight, bias, eps)


def _group_norm(x, groups, weight, bias, eps, *_a, **_k):
    return F.group_norm(x, groups, weight, bias, eps)


def _instance_norm(x, weight, bias, eps, *_a, **_k):
    return F.instance_norm(x, weight=weight, bias=bias, eps=eps)


FLOAT_FORMS = {
    "quantized::add": _add, "quantized::add_relu": _relu_of(_add),
    "quantized::add_scalar": _add, "quantized::add_scalar_relu": _relu_of(_add),
    "quantized::add_out": _add,
    "quantized::mul": _mul, "quantized::mul_relu": _relu_of(_mul),
    "quantized::mul_scalar": _mul, "quantized::mul_scalar_relu": _relu_of(_mul),
    "quantized::cat": _cat, "quantized::cat_relu": _relu_of(_cat),
    "quantized::hardswish": _hardswish,
    "quantized::batch_norm": _batch_norm, "quantized::batch_norm1d": _batch_norm,
    "quantized::batch_norm2d": _batch_norm, "quantized::batch_norm3d": _batch_norm,
    "quantized::batch_norm1d_relu": _relu_of(_batch_norm), "quantized::batch_norm2d_relu": _relu_of(_batch_norm),
    "quantized::batch_norm3d_relu": _relu_of(_batch_norm),
    "quantized::layer_norm": _layer_norm, "quantized::group_norm": _group_norm,
    "quantized::instance_norm": _instance_norm,
}


# ------------------------------------------------------------------ dispatch

# Calls that read a quantized tensor's size: recorded by their usual handlers on the
# integer value, which has the same shape.
_SHAPE_READS = set(L.PASSTHROUGH) | {T.size, L._getter(T, "shape"), T.numel, T.nelement, torch.numel, T.__len__}


def handler_for(rec, func, args, kwargs):
    """The quantized handler of func, or None when func touches no quantized tensor (and
    is no quantized kernel): (handler, float form) or (None, None)."""
    h = HANDLERS.get(func)
    if h is not None:
        return h, None
    name = op_name(func)
    if name is not None:
        base = name.split(".")[0]
        if base in OP_HANDLERS:
            return OP_HANDLERS[base], None
        if base.startswith("quantized::"):
            return _generic, FLOAT_FORMS.get(base)
    if not rec.qinfo:  # no quantized value yet: nothing else can touch one (every call passes here)
        return None, None
    try:
        if func in _SHAPE_READS:
            return None, None
    except TypeError:
        pass
    if any(is_q(t) and rec.is_traced(t) for t in _tensors(args) + _tensors(kwargs)):
        return _generic, func
    return None, None


def _generic(rec, run_float, func, args, kwargs, float_fn=None):
    if float_fn is None:
        from ._recorder import UnsupportedValue
        raise UnsupportedValue(f"{op_name(func) or _name(func)} in {rec.scope_str()} (at {S.user_frame()}): "
                               f"oxport has no float form of this quantized kernel; it cannot be exported")
    return qdq(rec, run_float, float_fn, func, args, kwargs)


def handle(rec, run_float, func, args, kwargs):
    """Record func on quantized tensors; NotImplemented when it is not such a call."""
    h, float_fn = handler_for(rec, func, args, kwargs)
    if h is None:
        return NotImplemented
    # The handler's own reads of tensors (qscheme(), int_repr() ...) are not the model's:
    # both recorders stand aside while it runs, except inside run_float.
    rec.inside += 1
    try:
        if h is _generic:
            return _generic(rec, run_float, func, args, kwargs, float_fn)
        return h(rec, run_float, func, args, kwargs)
    finally:
        rec.inside -= 1


def _module_attr(m, name):
    """m.<name> as nn.Module finds it, or None: without the AttributeError (and its
    formatted message) that Module.__getattr__ raises for each module lacking it, which
    made these walks cost about 1 ms per export on ResNet-50's 161 modules."""
    d = m.__dict__
    if name in d:
        return d[name]
    for slots in (d.get("_parameters"), d.get("_buffers"), d.get("_modules")):
        if slots and name in slots:
            return slots[name]
    if hasattr(type(m), name):  # a property or class attribute: let Python answer
        return getattr(m, name, None)
    return None


def fake_mode_refusal(model):
    """Why trace='fake' cannot run this model (quantized modules hold packed weights the
    meta device cannot), or None."""
    for path, m in model.named_modules():
        if _module_attr(m, "_packed_params") is not None or any(is_q(b) for b in m._buffers.values()):
            return (f"trace='fake' cannot run the quantized module {path or type(m).__name__} "
                    f"({type(m).__name__}): its packed integer weights have no meta form; export with "
                    f"trace='eager'")
    return None


def packed_names(model):
    """id(packed weight object) -> the module path its tensors are named after."""
    out = {}
    for path, m in model.named_modules():
        p = _module_attr(m, "_packed_params")
        if p is None:
            continue
        if isinstance(p, torch.nn.Module):      # LinearPackedParams holds the object one level down
            p = _module_attr(p, "_packed_params")
        if p is not None and not isinstance(p, torch.Tensor):
            out.setdefault(id(p), path)
    return out


__all__ = ["QDTYPES", "QInfo", "handle", "is_q", "concrete_qinfo", "fake_mode_refusal", "packed_names"]
