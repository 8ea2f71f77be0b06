"""Symbolic functions written in Python, run by the engine through ctypes callbacks.

The seed's interface: a symbolic is `fn(g, *inputs)` where `g` offers
`g.op("Name", *inputs, alpha_f=..., dims_i=[...], value_t=tensor, s_s="str", outputs=N)`
and tensor inputs are values with `.type().sizes()` and `.type().scalarType()`.

Nothing here converts anything itself: an in-process pack (`ox_context_add_pack`, an
`ox_plugin_desc` built in memory) declares one operator per Python symbolic, and its
`symbolic` pointer is a `ctypes.CFUNCTYPE` that calls the Python function with a graph
object over the same `ox_api` table C packs receive.  So a Python symbolic gets the
engine's validation, opset dispatch (highest since_opset <= target), pre-scan checks and
error reports exactly as a `.so` does.
"""

import ctypes
import re
import traceback

import torch

from .. import _engine as E

# ------------------------------------------------------------------ the C ABI (plugin.h)

OX_PLUGIN_MAGIC = 0x4F58504C
OX_PLUGIN_ABI_MAJOR = 1
OX_PLUGIN_ABI_MINOR = 0

# ox_arg_kind, the declaration-only kinds included
KIND = {"none": 0, "tensor": 1, "tensors": 2, "int": 3, "float": 4, "bool": 5, "str": 6,
        "ints": 7, "floats": 8, "dtype": 9, "opt_tensor": 10, "scalar": 11, "tensor_or_scalar": 12}

SymbolicFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
InitFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)
FiniFn = ctypes.CFUNCTYPE(None)


class ParamDecl(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int)]


class OpDecl(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("since_opset", ctypes.c_int),
                ("params", ctypes.POINTER(ParamDecl)), ("n_params", ctypes.c_uint32),
                ("n_outputs", ctypes.c_uint32), ("symbolic", SymbolicFn)]


class PluginDesc(ctypes.Structure):
    _fields_ = [("magic", ctypes.c_uint32), ("abi_major", ctypes.c_uint16),
                ("abi_minor", ctypes.c_uint16), ("struct_size", ctypes.c_uint32),
                ("op_decl_size", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("version", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("ops", ctypes.POINTER(OpDecl)), ("n_ops", ctypes.c_uint32),
                ("init", ctypes.c_void_p), ("fini", ctypes.c_void_p)]


_p = ctypes.c_void_p
_i64p = ctypes.POINTER(ctypes.c_int64)
_dblp = ctypes.POINTER(ctypes.c_double)
_F = ctypes.CFUNCTYPE
# struct ox_api, field for field.  fail/log are variadic in C; they are always called
# here with a "%s" format and one string, which the x86-64 and aarch64 ABIs pass alike.
_API_FIELDS = [
    ("struct_size", ctypes.c_uint32), ("abi_major", ctypes.c_uint16), ("abi_minor", ctypes.c_uint16),
    ("opset", _F(ctypes.c_int, _p)),
    ("op_name", _F(ctypes.c_char_p, _p)),
    ("scope", _F(ctypes.c_char_p, _p)),
    ("fail", _F(ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_char_p)),
    ("arg_present", _F(ctypes.c_int, _p, ctypes.c_char_p)),
    ("arg_kind", _F(ctypes.c_int, _p, ctypes.c_char_p)),
    ("arg_tensor", _F(E.ox_vid, _p, ctypes.c_char_p)),
    ("arg_tensors", _F(ctypes.c_size_t, _p, ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(E.ox_vid)))),
    ("arg_int", _F(ctypes.c_int64, _p, ctypes.c_char_p, ctypes.c_int64)),
    ("arg_float", _F(ctypes.c_double, _p, ctypes.c_char_p, ctypes.c_double)),
    ("arg_string", _F(ctypes.c_char_p, _p, ctypes.c_char_p, ctypes.c_char_p)),
    ("arg_ints", _F(ctypes.c_size_t, _p, ctypes.c_char_p, ctypes.POINTER(_i64p))),
    ("arg_floats", _F(ctypes.c_size_t, _p, ctypes.c_char_p, ctypes.POINTER(_dblp))),
    ("dtype", _F(ctypes.c_int, _p, E.ox_vid)),
    ("rank", _F(ctypes.c_int, _p, E.ox_vid)),
    ("size", _F(ctypes.c_int64, _p, E.ox_vid, ctypes.c_int)),
    ("is_const", _F(ctypes.c_int, _p, E.ox_vid)),
    ("const_data", _F(ctypes.c_void_p, _p, E.ox_vid, ctypes.POINTER(ctypes.c_int),
                      ctypes.POINTER(ctypes.c_size_t))),
    ("const_scalar", _F(ctypes.c_int, _p, E.ox_vid, _dblp)),
    ("op", _F(_p, _p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(E.ox_vid), ctypes.c_size_t)),
    ("op_domain", _F(_p, _p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                     ctypes.POINTER(E.ox_vid), ctypes.c_size_t)),
    ("node_output", _F(E.ox_vid, _p, ctypes.c_size_t)),
    ("attr_float", _F(None, _p, ctypes.c_char_p, ctypes.c_double)),
    ("attr_int", _F(None, _p, ctypes.c_char_p, ctypes.c_int64)),
    ("attr_string", _F(None, _p, ctypes.c_char_p, ctypes.c_char_p)),
    ("attr_floats", _F(None, _p, ctypes.c_char_p, _dblp, ctypes.c_size_t)),
    ("attr_ints", _F(None, _p, ctypes.c_char_p, _i64p, ctypes.c_size_t)),
    ("attr_strings", _F(None, _p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t)),
    ("attr_tensor", _F(None, _p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint32, _i64p, ctypes.c_void_p)),
    ("set_type", _F(None, _p, E.ox_vid, ctypes.c_int, ctypes.c_int, _i64p)),
    ("constant", _F(E.ox_vid, _p, ctypes.c_int, ctypes.c_uint32, _i64p, ctypes.c_void_p)),
    ("const_ints", _F(E.ox_vid, _p, _i64p, ctypes.c_size_t)),
    ("const_scalar_of", _F(E.ox_vid, _p, ctypes.c_int, ctypes.c_double)),
    ("scalar_like", _F(E.ox_vid, _p, ctypes.c_double, E.ox_vid)),
    ("set_output", _F(ctypes.c_int, _p, ctypes.c_size_t, E.ox_vid)),
    ("log", _F(None, _p, ctypes.c_char_p, ctypes.c_char_p)),
]


class Api(ctypes.Structure):
    _fields_ = _API_FIELDS


# ------------------------------------------------------------------ values and types

# ONNX element type -> torch's scalarType() spelling and dtype
_SCALAR_TYPES = {1: "Float", 2: "Byte", 3: "Char", 5: "Short", 6: "Int", 7: "Long", 9: "Bool",
                 10: "Half", 11: "Double", 16: "BFloat16"}
_TORCH_DTYPES = {1: torch.float32, 2: torch.uint8, 3: torch.int8, 5: torch.int16, 6: torch.int32,
                 7: torch.int64, 9: torch.bool, 10: torch.float16, 11: torch.float64,
                 16: torch.bfloat16}
_OX_DTYPES = {v: k for k, v in _TORCH_DTYPES.items()}


class SymbolicError(Exception):
    """A Python symbolic used the graph object wrongly; the message joins the export report."""


class Type:
    """What the engine knows of a value: element type and sizes (the seed's value.type())."""

    def __init__(self, dtype, sizes):
        self._dtype = dtype
        self._sizes = sizes

    def scalarType(self):
        """'Float', 'Long' ... as torch spells them; None when the engine does not know."""
        return _SCALAR_TYPES.get(self._dtype)

    def dtype(self):
        return _TORCH_DTYPES.get(self._dtype)

    def sizes(self):
        """List of sizes (None for an unknown one); raises when the rank is unknown, like
        torch's type().sizes() on an incomplete type."""
        if self._sizes is None:
            raise SymbolicError("the rank of this value is unknown (set it with g.op(...) outputs' "
                                "setType, or read sizes of the symbolic's inputs only)")
        return list(self._sizes)

    def dim(self):
        return None if self._sizes is None else len(self._sizes)

    def __repr__(self):
        return f"{self.scalarType() or 'Tensor'}({', '.join('?' if s is None else str(s) for s in self._sizes or [])})"


class Value:
    """A value of the ONNX graph under construction (the seed's torch._C.Value)."""

    __slots__ = ("g", "vid")

    def __init__(self, g, vid):
        self.g = g
        self.vid = vid

    def type(self):
        g = self.g
        dt = g._api.dtype(g._sym, self.vid)
        rank = g._api.rank(g._sym, self.vid)
        sizes = None
        if rank >= 0:
            sizes = []
            for k in range(rank):
                s = g._api.size(g._sym, self.vid, k)
                sizes.append(None if s < 0 else int(s))
        return Type(dt, sizes)

    def setType(self, t):
        """Annotate the value's type: a Type, or a torch.Tensor whose dtype and shape to use."""
        g = self.g
        if isinstance(t, torch.Tensor):
            dt, sizes = _OX_DTYPES.get(t.dtype, 0), list(t.shape)
        else:
            dt, sizes = t._dtype, [(-1 if s is None else s) for s in (t._sizes or [])]
        arr = (ctypes.c_int64 * max(len(sizes), 1))(*sizes)
        g._api.set_type(g._sym, self.vid, dt, len(sizes), arr)
        return self

    def debugName(self):
        return str(self.vid)

    def __repr__(self):
        return f"%{self.vid} : {self.type()!r}"


_ATTR = re.compile(r"^(.+)_([ifst])$")


class Graph:
    """The `g` of a symbolic: builds ONNX nodes through the engine's ox_api."""

    def __init__(self, sym, api, custom_opsets):
        self._sym = sym
        self._api = api
        self._custom_opsets = custom_opsets

    @property
    def opset(self):
        return self._api.opset(self._sym)

    def op_name(self):
        return self._api.op_name(self._sym).decode()

    def scope(self):
        return self._api.scope(self._sym).decode()

    # --------------------------------------------------------------- inputs
    def _input(self, v, opname, i):
        if v is None:
            return 0
        if isinstance(v, Value):
            if v.g is not self:
                raise SymbolicError(f"{opname}: input {i} is a value of another symbolic call")
            return v.vid
        if isinstance(v, (bool, int, float)) and not isinstance(v, torch.Tensor):
            v = torch.tensor(v)
        if isinstance(v, torch.Tensor):
            return self.constant(v).vid
        raise SymbolicError(f"{opname}: input {i} is a {type(v).__name__}; pass a value, a tensor, "
                            f"a number or None")

    def constant(self, tensor):
        """A constant tensor (copied into the graph) as a value."""
        t = torch.as_tensor(tensor).detach().cpu().contiguous()
        dt = _OX_DTYPES.get(t.dtype)
        if dt is None:
            raise SymbolicError(f"constant of dtype {t.dtype}: ONNX has no such element type here")
        sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
        buf = t.numpy().tobytes() if t.numel() else b"\0"
        vid = self._api.constant(self._sym, dt, t.dim(), sizes, buf)
        return Value(self, vid)

    # --------------------------------------------------------------- nodes
    def op(self, opname, *inputs, outputs=1, **attrs):
        """torch.onnx's g.op: an ONNX node `opname` ("Relu", or "domain::Op" for a custom
        domain) with attributes named `<name>_<f|i|s|t>` (a list for the plural kinds).
        Returns one value, or a tuple of `outputs` values."""
        if not isinstance(opname, str) or not opname:
            raise SymbolicError(f"g.op: the operator name must be a non-empty string, not {opname!r}")
        if not isinstance(outputs, int) or outputs < 1:
            raise SymbolicError(f"g.op({opname!r}): outputs={outputs!r} must be an integer >= 1")
        ins = [self._input(v, opname, i) for i, v in enumerate(inputs)]
        arr = (E.ox_vid * max(len(ins), 1))(*ins)
        if "::" in opname:
            domain, op_type = opname.split("::", 1)
            if domain == "onnx":
                domain = ""
        else:
            domain, op_type = "", opname
        if domain:
            version = int(self._custom_opsets.get(domain, 1))
            node = self._api.op_domain(self._sym, domain.encode(), version, op_type.encode(), len(ins),
                                       arr, outputs)
        else:
            node = self._api.op(self._sym, op_type.encode(), len(ins), arr, outputs)
        if not node:
            raise SymbolicError(f"g.op({opname!r}) was refused by the engine")
        for key, v in attrs.items():
            self._attr(node, opname, key, v)
        outs = tuple(Value(self, self._api.node_output(node, k)) for k in range(outputs))
        return outs[0] if outputs == 1 else outs

    def at(self, operator, *inputs, overload_name="", **attrs):
        """torch.onnx's g.at: an ATen node in domain org.pytorch.aten (custom_opsets
        versions it, default 1)."""
        return self.op("org.pytorch.aten::ATen", *inputs, operator_s=operator,
                       overload_name_s=overload_name, **attrs)

    def _attr(self, node, opname, key, v):
        m = _ATTR.match(key)
        if not m:
            raise SymbolicError(f"g.op({opname!r}): attribute {key!r} has no type suffix: name it "
                                f"<name>_f (float), _i (int), _s (string) or _t (tensor), e.g. "
                                f"'alpha_f' or 'dims_i'")
        name, kind = m.group(1).encode(), m.group(2)
        api = self._api
        many = isinstance(v, (list, tuple))
        if kind == "t":
            if many or not isinstance(v, torch.Tensor):
                raise SymbolicError(f"g.op({opname!r}): attribute {key!r} needs one torch.Tensor, "
                                    f"got {type(v).__name__}")
            t = v.detach().cpu().contiguous()
            dt = _OX_DTYPES.get(t.dtype)
            if dt is None:
                raise SymbolicError(f"g.op({opname!r}): attribute {key!r}: dtype {t.dtype} has no ONNX "
                                    f"element type here")
            sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
            buf = t.numpy().tobytes() if t.numel() else b"\0"
            api.attr_tensor(node, name, dt, t.dim(), sizes, buf)
            return
        items = list(v) if many else [v]
        try:
            if kind == "s":
                vals = [x.encode() if isinstance(x, str) else bytes(x) for x in items]
            elif kind == "i":
                if any(isinstance(x, float) for x in items):
                    raise TypeError  # int(1.5) would silently truncate
                vals = [int(x) for x in items]
            else:
                vals = [float(x) for x in items]
        except (TypeError, ValueError):
            raise SymbolicError(f"g.op({opname!r}): attribute {key!r} = {v!r} is not "
                                f"{'an int' if kind == 'i' else 'a float' if kind == 'f' else 'a string'}"
                                f"{' list' if many else ''}") from None
        if not many:
            if kind == "f":
                api.attr_float(node, name, vals[0])
            elif kind == "i":
                api.attr_int(node, name, vals[0])
            else:
                api.attr_string(node, name, vals[0])
            return
        n = len(vals)
        if kind == "f":
            api.attr_floats(node, name, (ctypes.c_double * max(n, 1))(*vals), n)
        elif kind == "i":
            api.attr_ints(node, name, (ctypes.c_int64 * max(n, 1))(*vals), n)
        else:
            api.attr_strings(node, name, (ctypes.c_char_p * max(n, 1))(*vals), n)

    # --------------------------------------------------------------- seed helpers
    def scalar(self, v):
        """The seed's _scalar: a one-element constant as a Python number, else None."""
        return _scalar(v)

    def scalar_like(self, number, like):
        """The seed's _if_scalar_type_as: a rank-0 constant of `like`'s element type."""
        return Value(self, self._api.scalar_like(self._sym, float(number), like.vid))


def _scalar(x):
    """The seed's _scalar: a one-element constant (value or tensor) as a Python number;
    None when x is not a constant."""
    if isinstance(x, torch.Tensor):
        return x.item() if x.numel() == 1 else None
    if isinstance(x, (bool, int, float)):
        return x
    if isinstance(x, Value):
        out = ctypes.c_double()
        if not x.g._api.const_scalar(x.g._sym, x.vid, ctypes.byref(out)):
            return None
        dt = x.g._api.dtype(x.g._sym, x.vid)
        v = out.value
        return bool(v) if dt == 9 else int(v) if dt in (2, 3, 5, 6, 7) else v
    return None


def _if_scalar_type_as(*args):
    """The seed's _if_scalar_type_as(g, self, tensor) (torch 1.13 drops g): `self` as a value
    of `tensor`'s element type when it is a number or a one-element tensor; a value is
    returned unchanged."""
    if len(args) == 3:
        g, self, tensor = args
    elif len(args) == 2:
        self, tensor = args
        g = tensor.g
    else:
        raise TypeError("_if_scalar_type_as(g, self, tensor) or _if_scalar_type_as(self, tensor)")
    if isinstance(self, Value):
        return self
    number = _scalar(self)
    if number is None:
        raise SymbolicError(f"_if_scalar_type_as: {type(self).__name__} is not a number or a "
                            f"one-element tensor")
    return g.scalar_like(number, tensor)


# ------------------------------------------------------------------ calling a symbolic

def _read_arg(g, name, kind):
    api, s, nb = g._api, g._sym, name.encode()
    k = api.arg_kind(s, nb)
    if k == KIND["none"]:
        return None
    if k == KIND["tensor"]:
        return Value(g, api.arg_tensor(s, nb))
    if k == KIND["tensors"]:
        p = ctypes.POINTER(E.ox_vid)()
        n = api.arg_tensors(s, nb, ctypes.byref(p))
        return [None if p[i] == 0 else Value(g, p[i]) for i in range(n)]
    if k in (KIND["int"],):
        return int(api.arg_int(s, nb, 0))
    if k == KIND["bool"]:
        return bool(api.arg_int(s, nb, 0))
    if k == KIND["dtype"]:
        return _TORCH_DTYPES.get(int(api.arg_int(s, nb, 0)))
    if k == KIND["float"]:
        return float(api.arg_float(s, nb, 0.0))
    if k == KIND["str"]:
        return api.arg_string(s, nb, b"").decode()
    if k == KIND["ints"]:
        p = _i64p()
        n = api.arg_ints(s, nb, ctypes.byref(p))
        return [int(p[i]) for i in range(n)]
    if k == KIND["floats"]:
        p = _dblp()
        n = api.arg_floats(s, nb, ctypes.byref(p))
        return [float(p[i]) for i in range(n)]
    raise SymbolicError(f"argument {name!r} has kind {k}, which oxport.torch cannot pass to Python")


def _fail(api, sym, message):
    return api.fail(sym, b"%s", message.encode(errors="replace"))


def make_callback(fn, label, params, n_outputs, custom_opsets):
    """A SymbolicFn calling `fn(g, *args)`, args read by the declared parameter names.
    `label` names the function in messages ("MyRelu.symbolic")."""

    def call(sym, api_ptr):
        api = ctypes.cast(api_ptr, ctypes.POINTER(Api)).contents
        try:
            g = Graph(sym, api, custom_opsets)
            args = [_read_arg(g, name, kind) for name, kind in params]
            # trailing absent optionals are left to the function's defaults, as torch does
            while args and args[-1] is None and not api.arg_present(sym, params[len(args) - 1][0].encode()):
                args.pop()
            result = fn(g, *args)
            if result is None:
                return _fail(api, sym, f"{label} returned None: the symbolic does not support "
                                       f"this call")
            outs = list(result) if isinstance(result, (tuple, list)) else [result]
            if len(outs) != n_outputs:
                return _fail(api, sym, f"{label} returned {len(outs)} value(s), but forward returns "
                                       f"{n_outputs} (the symbolic's outputs match forward's)")
            for i, o in enumerate(outs):
                if o is None:
                    return _fail(api, sym, f"{label} returned None for output {i} of {n_outputs}: "
                                           f"that output is not supported by the symbolic")
                if not isinstance(o, Value):
                    return _fail(api, sym, f"{label} returned a {type(o).__name__} as output {i}; "
                                           f"return values made with g.op(...)")
                if api.set_output(sym, i, o.vid) != 0:
                    return 1
            return 0
        except SymbolicError as e:
            return _fail(api, sym, f"{label}: {e}")
        except Exception as e:  # never let an exception unwind through C
            tb = traceback.extract_tb(e.__traceback__)
            where = f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""
            return _fail(api, sym, f"{label} raised {type(e).__name__}: {e}{where}")

    return SymbolicFn(call)


class InProcessPack:
    """An ox_plugin_desc in Python memory: one OpDecl per (name, since_opset, fn).
    Keep the object alive as long as the context it was added to."""

    def __init__(self, name, description):
        self.name = name
        self.description = description
        self._ops = []   # (qualified name, since, [(param, kind name)], n_outputs, fn, label)
        self._hold = []

    def add(self, qualified, since, params, n_outputs, fn, label):
        self._ops.append((qualified, since, params, n_outputs, fn, label))

    def __len__(self):
        return len(self._ops)

    def add_to(self, ctx, origin, custom_opsets):
        decls = (OpDecl * max(len(self._ops), 1))()
        for i, (qual, since, params, n_out, fn, label) in enumerate(self._ops):
            pd = (ParamDecl * max(len(params), 1))()
            for k, (pname, kind) in enumerate(params):
                nb = pname.encode()
                self._hold.append(nb)
                pd[k].name = nb
                pd[k].kind = KIND[kind]
            cb = make_callback(fn, label, params, n_out, custom_opsets)
            qb = qual.encode()
            self._hold += [pd, cb, qb]
            decls[i].name = qb
            decls[i].since_opset = since
            decls[i].params = ctypes.cast(pd, ctypes.POINTER(ParamDecl))
            decls[i].n_params = len(params)
            decls[i].n_outputs = n_out
            decls[i].symbolic = cb
        d = PluginDesc()
        d.magic = OX_PLUGIN_MAGIC
        d.abi_major = OX_PLUGIN_ABI_MAJOR
        d.abi_minor = OX_PLUGIN_ABI_MINOR
        d.struct_size = ctypes.sizeof(PluginDesc)
        d.op_decl_size = ctypes.sizeof(OpDecl)
        strs = [self.name.encode(), b"1", self.description.encode()]
        self._hold += [decls, d] + strs
        d.name, d.version, d.description = strs
        d.ops = ctypes.cast(decls, ctypes.POINTER(OpDecl))
        d.n_ops = len(self._ops)
        ctx.keep(self)
        ctx.check(ctx.L.ox_context_add_pack(ctx.h, ctypes.byref(d), origin.encode()),
                  f"ox_context_add_pack({origin})")


# ------------------------------------------------------------------ autograd Functions

# recorded ox_arg_kind -> the declared kind that accepts it
_DECLARED = {E.ARG_TENSOR_LIST: "tensors", E.ARG_STRING: "str", E.ARG_INTS: "ints",
             E.ARG_FLOATS: "floats", E.ARG_DTYPE: "dtype"}
_NUMBERS = {E.ARG_INT, E.ARG_FLOAT, E.ARG_BOOL}


def declared_kind(recorded):
    """The parameter kind that accepts every kind a parameter was recorded with."""
    kinds = set(recorded) - {E.ARG_NONE}
    if not kinds or kinds == {E.ARG_TENSOR}:
        return "opt_tensor"
    if kinds <= _NUMBERS:
        return "scalar"
    if kinds <= _NUMBERS | {E.ARG_TENSOR}:
        return "tensor_or_scalar"
    for k in recorded:
        if k in _DECLARED:
            return _DECLARED[k]
    return "opt_tensor"


def has_symbolic(cls):
    return callable(getattr(cls, "symbolic", None))


def note_apply(rec, cls, resolved, result):
    """Called by the recorder for each fn::<Class> node: remember the class's symbolic
    staticmethod, the kinds each parameter was recorded with and forward's arity."""
    if not has_symbolic(cls):
        return
    table = rec.__dict__.setdefault("fn_symbolics", {})
    kind = f"fn::{cls.__name__}"
    n_out = len(_tensors(result))
    ent = table.setdefault(kind, {"cls": cls, "kinds": {}, "n_outputs": n_out})
    if ent["cls"] is not cls:
        raise SymbolicError(f"two autograd Functions named {cls.__name__} ({ent['cls'].__module__} and "
                            f"{cls.__module__}) both define a symbolic; rename one")
    for name, k, _v in resolved:
        ent["kinds"].setdefault(name, set()).add(k)


def _tensors(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in _tensors(o)]
    return []


def function_packs(rec):
    """One in-process pack per autograd Function class of the trace that has a symbolic,
    origin "python:<module>.<Class>.symbolic".  Declared since opset 1: the symbolic
    serves every target, as the seed's did."""
    out = []
    for kind, ent in (getattr(rec, "fn_symbolics", None) or {}).items():
        cls = ent["cls"]
        label = f"{cls.__module__}.{cls.__qualname__}.symbolic"
        params = [(name, declared_kind(ks)) for name, ks in ent["kinds"].items()]
        pack = InProcessPack(f"python:{cls.__qualname__}", f"symbolic staticmethod of {label[:-9]}")
        pack.add(kind, 1, params, ent["n_outputs"], cls.symbolic, f"{cls.__qualname__}.symbolic")
        out.append((pack, f"python:{label}"))
    return out
