"""Sizes as traced values.

`x.size(i)`, `x.shape`, `x.size()` and `x.numel()` on a traced tensor return
`TracedInt`s: Python ints (so torch and the model's Python code accept them
unchanged) that also carry the trace value they were read from, a rank-0 int64
tensor recorded as `aten::size` / `aten::numel`.  Python arithmetic on them is
recorded too (`aten::add`, `aten::floor_divide`, ...), so `x.view(x.size(0), -1)`
reaches the view handler with a traced batch size and the file computes the
target shape from the input's actual shape instead of baking the example's.

A size leaves the trace only where Python itself needs a plain value: a
comparison or `if`, `int()`/`float()`, float arithmetic, or an argument of a call
whose handler cannot take a traced value.  Each of those warns with a
TracerWarning that names the call site and the module scope, as torch.jit.trace
does.  One use cannot be seen: CPython's `range()` and list indexing read an int
subclass's value without calling back into it, so `for i in range(x.size(0))`
unrolls to the example's count silently (docs/pytorch.md says so).
"""

import operator
import os
import sys
import warnings

import torch

from .. import _engine as E

INT64 = 7
BOOL = 9
_HERE = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


class TracerWarning(UserWarning):
    """The exported graph may be specialized to the traced input."""


_MODEL_CODE = {}


def _model_code(code):
    """Whether a frame's code is the model's (not oxport's, torch's or generated).
    Remembered per file name: a trace asks about the same frames hundreds of times
    (every warning walks the stack to its call site)."""
    name = code.co_filename
    own = _MODEL_CODE.get(name)
    if own is None:
        path = os.path.abspath(name)
        # whole directory names: torchvision's files begin with torch's directory name
        # but are the model's code, and a warning should name their line
        own = _MODEL_CODE[name] = not (path.startswith(_HERE + os.sep) or path.startswith(_TORCH + os.sep)
                                       or name.startswith("<"))
    return own


def user_frame():
    """'file:line' of the innermost frame outside oxport and torch (the model's code)."""
    f = sys._getframe(1)
    while f is not None:
        if _model_code(f.f_code):
            return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"
        f = f.f_back
    return "unknown location"


def user_frame_of(tb):
    """'file:line' of the innermost frame of traceback `tb` in the model's code."""
    where = "unknown location"
    while tb is not None:
        if _model_code(tb.tb_frame.f_code):
            where = f"{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def warn_fixed(rec, what, value=None, sizes=None, pairs=None):
    """A traced value was turned into a Python constant: say so once per call site.
    `sizes`, the values it came from (those that are this trace's TracedInts count):
    then the engine says it after conversion, and only if one of them can differ on
    another run (a size no dynamic axis reaches cannot, so fixing it specialises
    nothing); torch's own shape checks (nn.MultiheadAttention's, the RNNs') compare
    such sizes on every call.  `pairs` instead, for a comparison: the pairs of values
    compared (_deciding)."""
    where = user_frame()
    key = (what, where)
    scope = rec.scope_str() if rec is not None else "?"
    val = "" if value is None else f" {value!r}"
    message = (f"{what} at {where} in {scope}: the exported graph is fixed to this input's value{val} "
               f"(a Python constant in the file); it will not follow other input shapes or values")
    if rec is not None and (sizes is not None or pairs is not None) and rec.t is not None:
        entry = rec.fixed_sizes.setdefault(key, [message, []])
        if pairs is not None:
            entry[1].extend(_deciding(rec, pairs))
        else:
            entry[1].extend(s._ox_vid for s in sizes if isinstance(s, TracedInt) and s._ox_rec is rec)
        return
    if rec is not None:
        if key in rec.warned:
            return
        rec.warned.add(key)
    warnings.warn(f"oxport: {message}", TracerWarning, stacklevel=3)


class TracedInt(int):
    """An int read from (or computed from) a traced tensor's size."""

    def __new__(cls, value, rec, vid):
        obj = int.__new__(cls, plain(value))
        obj._ox_rec = rec
        obj._ox_vid = vid
        return obj

    def __reduce__(self):
        return (int, (plain(self),))

    # -- arithmetic that stays in the trace
    def _bin(self, kind, other, value, swap=False):
        """`other` is an int (the dunder methods route everything else to _plain)."""
        rec = self._ox_rec
        if not rec.live or (isinstance(other, TracedInt) and other._ox_rec is not rec):
            return value
        a, b = (other, self) if swap else (self, other)
        vid = rec.int_op(kind, a, b)
        return TracedInt(value, rec, vid)

    # A tensor operand (`x.size(0) * t`, `n - t`): NotImplemented hands the call to the
    # tensor's reflected method (Tensor.__rmul__, __rsub__ ...), whose handler records
    # the op with the size as a rank-0 value of the file (_lowering._size_operand).
    def __add__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        return self._bin("aten::add", o, plain(self) + o) if isinstance(o, int) else _plain(self, o, operator.add)

    def __radd__(self, o):
        return self._bin("aten::add", o, o + plain(self), swap=True) if isinstance(o, int) else _plain(o, self, operator.add)

    def __sub__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        return self._bin("aten::sub", o, plain(self) - o) if isinstance(o, int) else _plain(self, o, operator.sub)

    def __rsub__(self, o):
        return self._bin("aten::sub", o, o - plain(self), swap=True) if isinstance(o, int) else _plain(o, self, operator.sub)

    def __mul__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        return self._bin("aten::mul", o, plain(self) * o) if isinstance(o, int) else _plain(self, o, operator.mul)

    def __rmul__(self, o):
        return self._bin("aten::mul", o, o * plain(self), swap=True) if isinstance(o, int) else _plain(o, self, operator.mul)

    def __floordiv__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        if isinstance(o, int) and plain(o) != 0:
            return self._bin("aten::floor_divide", o, plain(self) // plain(o))
        return _plain(self, o, operator.floordiv)

    def __rfloordiv__(self, o):
        if isinstance(o, int) and plain(self) != 0:
            return self._bin("aten::floor_divide", o, plain(o) // plain(self), swap=True)
        return _plain(o, self, operator.floordiv)

    def __mod__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        if isinstance(o, int) and plain(o) != 0:
            return self._bin("aten::remainder", o, plain(self) % plain(o))
        return _plain(self, o, operator.mod)

    def __rmod__(self, o):
        if isinstance(o, int) and plain(self) != 0:
            return self._bin("aten::remainder", o, plain(o) % plain(self), swap=True)
        return _plain(o, self, operator.mod)

    def __neg__(self):
        rec = self._ox_rec
        if not rec.live:
            return -plain(self)
        return TracedInt(-plain(self), rec, rec.int_op("aten::neg", self, None))

    def __pos__(self):
        return self

    def __abs__(self):
        return self if plain(self) >= 0 else -self

    # -- uses that leave the trace: warn, then behave as the plain int
    def _fixed(self, what):
        if self._ox_rec.live:
            warn_fixed(self._ox_rec, what, plain(self), sizes=(self,))
        return plain(self)

    def __truediv__(self, o):
        if isinstance(o, torch.Tensor):
            return NotImplemented
        return _plain(self, o, operator.truediv)

    def __rtruediv__(self, o):
        return _plain(o, self, operator.truediv)

    def __pow__(self, o, mod=None):
        if isinstance(o, torch.Tensor) and mod is None:
            return NotImplemented
        return _plain(self, o, pow)

    def __rpow__(self, o):
        return _plain(o, self, pow)

    def __int__(self):
        return self._fixed("int() on a traced size")

    def __index__(self):
        # Called by operator.index() and the like; CPython's range() and list
        # indexing take an int subclass's value directly and never get here.
        return self._fixed("a traced size used as a Python index")

    def __float__(self):
        return float(self._fixed("float() on a traced size"))

    def __bool__(self):
        return bool(self._fixed("a traced size used as a condition"))

    def __eq__(self, o):
        return _compare(self, o, operator.eq)

    def __ne__(self, o):
        return _compare(self, o, operator.ne)

    def __lt__(self, o):
        return _compare(self, o, operator.lt)

    def __le__(self, o):
        return _compare(self, o, operator.le)

    def __gt__(self, o):
        return _compare(self, o, operator.gt)

    def __ge__(self, o):
        return _compare(self, o, operator.ge)

    __hash__ = int.__hash__

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


def plain(v):
    """The Python int behind a possibly traced one, without a warning."""
    return int.__int__(v) if isinstance(v, TracedInt) else v


def _plain(a, b, op):
    for v in (a, b):
        if isinstance(v, TracedInt) and v._ox_rec.live:
            warn_fixed(v._ox_rec, f"{op.__name__} of a traced size with {type(b if v is a else a).__name__}",
                       plain(v), sizes=(a, b))
            break
    return op(plain(a), plain(b))


def same_traced(a, b):
    """Whether a and b are one traced value (a size of one tensor, read twice): then
    every comparison of them comes out the same on any input, and fixing its outcome
    specialises nothing (`key.shape == value.shape` when key is value)."""
    return (isinstance(a, TracedInt) and isinstance(b, TracedInt) and a._ox_rec is b._ox_rec
            and a._ox_vid == b._ox_vid)


def _deciding(rec, pairs):
    """The values that, the same on every run, make comparisons of these pairs come out
    the same: for two traced sizes their recorded equality (one scalar op, dropped from
    the file after), which the engine knows always holds when both are one size (two
    inputs' dims of one dynamic axis name: nn.Transformer's src and tgt batch, an RNN's
    state and input batch); for a size and a number, the size."""
    out = []
    for a, b in pairs:
        traced = [v for v in (a, b) if isinstance(v, TracedInt) and v._ox_rec is rec]
        if len(traced) == 2 and not same_traced(a, b):
            out.append(rec.size_equality(a, b))
        elif len(traced) == 1:
            out.append(traced[0]._ox_vid)
    return out


def _compare(a, b, op):
    if isinstance(b, torch.Tensor):
        # `n > t`: Python then asks t.__lt__(n), whose handler records the comparison
        return NotImplemented
    t = a if isinstance(a, TracedInt) else b
    if t._ox_rec.live and not same_traced(a, b):
        warn_fixed(t._ox_rec, "a traced size compared in Python (a branch on it is not recorded)", plain(t),
                   pairs=[(a, b)])
    return op(plain(a), plain(b))


class TracedShape(tuple):
    """x.shape / x.size() of a traced tensor: a tuple of TracedInts (torch.Size cannot
    be subclassed); torch accepts it wherever it accepts a size."""

    def numel(self):
        n = 1
        for v in self:
            n = n * v
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return TracedShape(r) if isinstance(i, slice) else r

    def __add__(self, o):
        return TracedShape(tuple.__add__(self, tuple(o)))

    def __radd__(self, o):
        return TracedShape(tuple(o) + tuple(self))

    def __eq__(self, o):
        if isinstance(o, (tuple, list, torch.Size)) and any(isinstance(v, TracedInt) for v in self):
            t = next(v for v in self if isinstance(v, TracedInt))
            # Pairs that are one traced value are equal on any input, and a rank is the
            # same on every run: only the other pairs can change the outcome.
            differing = [(a, b) for a, b in zip(self, o) if not same_traced(a, b)]
            if t._ox_rec.live and differing and len(self) == len(o):
                warn_fixed(t._ox_rec, "a traced shape compared in Python (a branch on it is not recorded)",
                           pairs=differing)
        return tuple(plain(v) for v in self) == tuple(plain(v) for v in o) \
            if isinstance(o, (tuple, list, torch.Size)) else NotImplemented

    def __ne__(self, o):
        r = self.__eq__(o)
        return r if r is NotImplemented else not r

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"torch.Size({list(plain(v) for v in self)})"


def any_traced(values):
    return any(isinstance(v, TracedInt) for v in values)


def is_sizes(v):
    return isinstance(v, (list, tuple, torch.Size))


def size_list(rest):
    """A view/reshape/expand-style size argument: `(a, b, c)` or `((a, b, c),)`."""
    if len(rest) == 1 and is_sizes(rest[0]):
        rest = rest[0]
    elif len(rest) == 1 and isinstance(rest[0], torch.Tensor):
        return rest[0]
    return list(rest)


class Dyn:
    """An argument whose handler accepts traced values: an int, or a list of ints,
    any of which may be a TracedInt.  Recorded as the plain int(s) when nothing is
    traced, as a rank-0 / 1-D int64 tensor otherwise."""

    __slots__ = ("value", "kind", "need")

    def __init__(self, value, kind=None, need=None):
        self.value = value
        self.kind = kind  # "expand": a static -1 keeps a dim, which ONNX Expand spells 1
        # The first opset whose ONNX op takes this argument as a tensor (Slice's bounds
        # from 10, Pad's amounts and Resize's sizes from 11).  Below it the example's
        # value is recorded -- silently when the export declares no dynamic axes (every
        # size is then fixed by the file's input shapes), with a warning otherwise.
        self.need = need


def scalar_desc(hold, dtype=INT64):
    d = E.OxTensorDesc()
    d.dtype = dtype
    d.rank = 0
    sz = (E.ctypes.c_int64 * 1)(0)
    hold.append(sz)
    d.sizes = sz
    return d
