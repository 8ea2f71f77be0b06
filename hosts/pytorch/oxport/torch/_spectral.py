"""Spectral ops and the complex tensors they make (issue #11).

ONNX (DFT-17, STFT-17) writes a complex tensor as a float tensor with a trailing
dimension of 2 (real, imaginary), and ONNX Runtime has no complex element type.  The
recorder does the same: a complex tensor a recorded op returns is recorded as that float
form ([..., 2], float for complex64, double for complex128), so its value id holds the
ONNX representation all along.  Ops recorded at the dispatcher level name what produces
complex values: aten::_fft_r2c (fft of a real input, rfft), and aten::stft, recorded
where torch.stft calls its builtin (after its own reflect padding, which is recorded as
the pad it is).

A complex tensor may flow only into ops whose meaning on the float form is known:

- view_as_real / view_as_complex / resolve_conj: the same value (no node);
- abs: the 2-norm over the trailing dimension (recorded as aten::linalg_vector_norm of
  the float form, which is what |z| is);
- real / imag: ATen itself spells them as view_as_real and a select;
- shape ops (view, reshape, transpose, permute, flatten, (un)squeeze, select, slice):
  the same op on the float form, its trailing dimension kept last;
- conj: multiplication by (1, -1) over the trailing dimension;
- multiplication or division by a real scalar (a Python number or a 0-dim real tensor):
  the same operation on the float form (torchaudio's normalized spectrogram); by a real
  float tensor: the same with the real tensor unsqueezed at the end (a recorded
  aten::unsqueeze), so that it broadcasts as against the complex tensor;
- multiplication of two complex tensors (a rotary embedding's `q * freqs_cis`): the
  real and imaginary parts' products, stacked back (complex_product);
- the spectral ops that take complex input: aten::_fft_c2c, aten::_fft_c2r, aten::istft.

A complex constant (a table the model made with torch.polar) is written in the float form.

Anything else that meets a complex tensor is refused, naming the call; so is a complex
tensor returned by the model (return torch.view_as_real(z) or z.abs() instead)."""

import torch

from . import _lowering as L
from . import _sizes as S

# Recorded ops whose complex inputs the packs take in the float form.
COMPLEX_INPUTS = {"aten::_fft_c2c", "aten::_fft_c2r", "aten::istft", "aten::linalg_vector_norm"}

# ops on a complex tensor and one real scalar: the same op on the float form
_SCALAR_OPS = {"aten::mul", "aten::mul_", "aten::div", "aten::div_"}


class ComplexValue(Exception):
    """A complex tensor reaches an op or output oxport cannot export it to."""


def _tensors(arglist):
    out = []
    for _name, v in arglist:
        if isinstance(v, torch.Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, torch.Tensor))
    return out


def _real_scalar(v):
    if isinstance(v, torch.Tensor):
        return not v.is_complex() and v.dim() == 0
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def refusal(kind, rec):
    return (f"{kind} at {S.user_frame()} in {rec.scope_str()} takes a complex tensor, which oxport "
            f"exports (as ONNX's float form with a trailing dimension of 2) only into view_as_real, abs, "
            f"real, imag, conj, multiplication by a complex tensor, multiplication or division by a real "
            f"scalar or tensor, the shape ops, and the "
            f"spectral ops "
            f"(torch.fft.*, torch.stft, torch.istft); apply torch.view_as_real(z) or z.abs() first")


def complex_form(rec, kind, arglist):
    """(kind, arglist) as recorded for an op some of whose tensor inputs are complex;
    raises ComplexValue for an op with no meaning on the float form."""
    if not any(t.is_complex() for t in _tensors(arglist)):
        return kind, arglist
    if kind in COMPLEX_INPUTS:
        return kind, arglist
    if kind == "aten::abs":
        return "aten::linalg_vector_norm", [("self", arglist[0][1]), ("ord", 2.0), ("dim", [-1]),
                                            ("keepdim", False), ("dtype", None)]
    shaped = _shape_op(kind, arglist)
    if shaped is not None:
        return kind, shaped
    if kind in _SCALAR_OPS and len(arglist) == 2:
        (_, a), (_, b) = arglist
        if kind.startswith("aten::mul") and isinstance(b, torch.Tensor) and b.is_complex() and \
                not (isinstance(a, torch.Tensor) and a.is_complex()):
            a, b = b, a
        if isinstance(a, torch.Tensor) and a.is_complex():
            if _real_scalar(b):
                return kind, [("self", a), ("other", b)]
            if isinstance(b, torch.Tensor) and not b.is_complex() and b.is_floating_point():
                # a real tensor scales both parts: one more trailing dim, so it
                # broadcasts against the float form as against the complex one
                u = rec.record("aten::unsqueeze", [("self", b), ("dim", -1)], torch.unsqueeze, (b, -1), {})
                return kind, [("self", a), ("other", u)]
    raise ComplexValue(refusal(kind, rec))


def is_complex_product(kind, arglist):
    """z * w with both complex (a rotary embedding's xq_ * freqs_cis)."""
    args = dict(arglist)
    a, b = args.get("self"), args.get("other")
    return kind == "aten::mul" and len(arglist) == 2 and all(
        isinstance(t, torch.Tensor) and t.is_complex() for t in (a, b))


def complex_product(rec, arglist, func, args, kwargs):
    """z * w on the float forms: (ac - bd) + (ad + bc)i, recorded as selects of the real
    and imaginary parts (which broadcast as the complex tensors do), their products,
    and the two parts stacked back into a trailing dim of 2."""
    args_ = dict(arglist)
    parts = []
    for z in (args_["self"], args_["other"]):
        form = torch.view_as_real(z)
        rec.alias(z, form)
        parts.append([rec.record("aten::select", [("self", form), ("dim", -1), ("index", i)],
                                 torch.select, (form, -1, i), {}) for i in (0, 1)])
    (a, b), (c, d) = parts

    def op(kind, fn, x, y):
        return rec.record(kind, [("self", x), ("other", y)], fn, (x, y), {})
    re = op("aten::sub", torch.sub, op("aten::mul", torch.mul, a, c), op("aten::mul", torch.mul, b, d))
    im = op("aten::add", torch.add, op("aten::mul", torch.mul, a, d), op("aten::mul", torch.mul, b, c))
    form = rec.record("aten::stack", [("tensors", [re, im]), ("dim", -1)], torch.stack, ([re, im], -1), {})
    with torch.no_grad():
        out = func(*args, **kwargs)
    rec.alias(form, out)
    return out


def _minus_one(d):
    """A dim of the complex tensor as a dim of its float form (one more, trailing, dim)."""
    return int(d) - 1 if int(d) < 0 else int(d)


def _shape_op(kind, arglist):
    """Shape ops on a complex tensor, as the same op on its float form: the trailing
    dimension of 2 is kept in place (negative dims count past it, a new shape ends in 2,
    a permutation keeps it last).  None for other ops."""
    args = dict(arglist)
    z = args.get("self")
    if not (isinstance(z, torch.Tensor) and z.is_complex()) or \
            any(isinstance(v, torch.Tensor) and v.is_complex() for n, v in arglist if n != "self"):
        return None
    if kind in ("aten::contiguous", "aten::clone", "aten::squeeze") and "dim" not in args:
        return arglist
    if kind in ("aten::view", "aten::reshape"):
        name = "size" if kind == "aten::view" else "shape"
        v = args[name]
        shape = S.Dyn(list(v.value) + [2], v.kind, v.need) if isinstance(v, S.Dyn) else list(v) + [2]
        return [("self", z), (name, shape)]
    if kind in ("aten::transpose",):
        return [("self", z), ("dim0", _minus_one(args["dim0"])), ("dim1", _minus_one(args["dim1"]))]
    if kind == "aten::permute":
        r = z.dim()
        return [("self", z), ("dims", [int(d) % r for d in args["dims"]] + [r])]
    if kind == "aten::flatten":
        return [("self", z), ("start_dim", _minus_one(args["start_dim"])), ("end_dim", _minus_one(args["end_dim"]))]
    if kind in ("aten::unsqueeze", "aten::squeeze", "aten::select", "aten::slice"):
        return [(n, _minus_one(v) if n == "dim" else v) for n, v in arglist]
    return None


def note_fixed_sizes(rec, kind, arglist):
    """Under dynamic axes, say where a spectral op's file holds the example's sizes:
    the inverse transforms' and the normalizations' 1/n, irfft's output length, istft's
    frame count (torch.stft's framing follows the signal's length at run time)."""
    if not rec.dynamic:
        return
    args = dict(arglist)
    sized = {
        "aten::_fft_r2c": args.get("normalization", 0) != 0,
        "aten::_fft_c2c": args.get("normalization", 0) != 0 or not args.get("forward", True),
        "aten::_fft_c2r": True,
        "aten::istft": True,
    }.get(kind, False)
    if sized:
        S.warn_fixed(rec, f"{kind}: the sizes of the transformed dims (for the normalization, the inverse's "
                          f"1/n, irfft's length, istft's frames)")


def _real_dtype(t):
    return torch.float64 if t.dtype == torch.complex128 else torch.float32


# ---------------------------------------------------------------- dispatcher level

def _same_value(rec, func, args, kwargs):
    out = func(*args, **kwargs)
    rec.alias(args[0], out)
    return out


def _conj(rec, func, args, kwargs):
    """conj(z): the float form times (1, -1) -- recorded on the float forms directly,
    since (1, -1) is not a complex operand."""
    z = args[0]
    if not z.is_complex():
        return _same_value(rec, func, args, kwargs)
    flip = torch.tensor([1.0, -1.0], dtype=_real_dtype(z))
    resolved = rec.resolve([("self", z), ("other", flip)])
    return rec.emit("aten::mul", resolved, func(*args, **kwargs))


_real_to_copy = L.ATEN_HANDLERS["aten::_to_copy"]


def _to_copy(rec, func, args, kwargs):
    """A real tensor cast to complex (fftn and ifft of real inputs promote first): its
    float form is the tensor with a zero imaginary part, recorded as the unsqueeze and
    constant pad that compute it."""
    x, dtype = args[0], kwargs.get("dtype")
    if not (isinstance(dtype, torch.dtype) and dtype.is_complex) or x.is_complex():
        return _real_to_copy(rec, func, args, kwargs)
    real = x.to(torch.float64 if dtype == torch.complex128 else torch.float32)
    if real is not x:
        real = rec.record("aten::to", [("self", x), ("dtype", real.dtype)], lambda: real, (), {})
    u = rec.record("aten::unsqueeze", [("self", real), ("dim", -1)], torch.unsqueeze, (real, -1), {})
    form = rec.record("aten::constant_pad_nd", [("self", u), ("pad", [0, 1]), ("value", 0.0)],
                      torch.constant_pad_nd, (u, [0, 1], 0.0), {})
    out = func(*args, **kwargs)
    rec.alias(form, out)
    return out


L.ATEN_HANDLERS["aten::_to_copy"] = _to_copy
for _name in ("aten::view_as_real", "aten::view_as_complex", "aten::resolve_conj", "aten::resolve_neg"):
    L.ATEN_HANDLERS[_name] = _same_value
L.ATEN_HANDLERS["aten::_conj"] = _conj
L.ATEN_HANDLERS["aten::conj"] = _conj


# ---------------------------------------------------------------- function level

def _stft(rec, func, args, kwargs):
    """The builtin torch.stft calls once it has padded the signal (center=True): recorded
    as aten::stft with its schema's names, where torch.jit.trace records it too."""
    b = L.bind(args, kwargs, ("input", "n_fft", "hop_length", "win_length", "window", "normalized", "onesided",
                              "return_complex"),
               hop_length=None, win_length=None, window=None, normalized=False, onesided=None, return_complex=None)
    return rec.record("aten::stft", [
        ("self", b["input"]), ("n_fft", int(b["n_fft"])), ("hop_length", b["hop_length"]),
        ("win_length", b["win_length"]), ("window", b["window"]), ("normalized", bool(b["normalized"])),
        ("onesided", b["onesided"]), ("return_complex", b["return_complex"])], func, args, kwargs)


def _istft(rec, func, args, kwargs):
    b = L.bind(args, kwargs, ("input", "n_fft", "hop_length", "win_length", "window", "center", "normalized",
                              "onesided", "length", "return_complex"),
               hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=None,
               length=None, return_complex=False)
    return rec.record("aten::istft", [
        ("self", b["input"]), ("n_fft", int(b["n_fft"])), ("hop_length", b["hop_length"]),
        ("win_length", b["win_length"]), ("window", b["window"]), ("center", bool(b["center"])),
        ("normalized", bool(b["normalized"])), ("onesided", b["onesided"]), ("length", b["length"]),
        ("return_complex", bool(b["return_complex"]))], func, args, kwargs)


L.HANDLERS[torch._C._VariableFunctions.stft] = _stft
L.HANDLERS[torch._C._VariableFunctions.istft] = _istft
