"""Recording a PyTorch forward pass into an oxport trace.

The model runs once, eagerly, under a TorchFunctionMode.  Calls with a known mapping
(`_lowering.HANDLERS`) are recorded once each, at the level where the model's intent is
visible (F.conv2d, torch.flatten, Tensor.view ...); PyTorch disables the mode while a
handler runs the real function, so the calls it makes inside are not recorded.  A call
with no mapping that touches a traced tensor runs under a TorchDispatchMode and is
recorded as the ATen ops it dispatches to, with the schema's argument names.

Values are tracked by tensor identity: a dict from id(tensor) to (vid, weakref), the
weakref dropping the entry when the tensor dies (so ids that Python reuses cannot alias
and intermediates are never kept alive by the trace).  An in-place op maps the mutated
tensor to the op's new value.  A tensor the trace has not seen (a factory result, a
module attribute that is not a registered buffer) becomes a constant when first used.

Nothing computed from a traced tensor escapes the trace silently:
- the dispatcher-level recorder (AtenMode) is on for the whole forward, so an op the
  function level never sees (`x[0]` takes a C fast path past TorchFunctionMode) is still
  recorded; while a handler runs (`rec.inside`), the ops it runs are not recorded again;
- a Python-implemented torch function with no handler (F.multi_head_attention_forward,
  Tensor methods written in Python) runs with the function-level recorder re-entered, so
  the sizes it reads are traced and its calls reach their handlers;
- sizes are TracedInts (see _sizes); where one has to become a plain Python value, or a
  tensor becomes one through .item()/tolist()/int(), a TracerWarning names the call site.
"""

import ctypes
import inspect
import os
import re
import struct
import types
import warnings
import weakref

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._python_dispatch import _pop_mode as _pop_dispatch_mode, _push_mode as _push_dispatch_mode
from torch._C import _len_torch_dispatch_stack as _dispatch_stack_len, \
    _get_dispatch_stack_at as _dispatch_stack_at
from torch.utils._pytree import tree_map

from .. import _engine as E
from . import _fake_results as FR
from . import _lowering as L
from . import _sizes as S
from . import _symbolic
from . import _indexing as I
from . import _index_keys as K
from . import _spectral as C
from . import _quantized as Q
from ._paste_masks import masks_pasted_at_once
from ._keypoints import keypoints_decoded_as_one_op
from ._imported import module_if_imported
from ._sizes import TracedInt, TracerWarning, Dyn  # noqa: F401  (TracerWarning is public here)

DTYPES = {
    torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6,
    torch.int64: 7, torch.bool: 9, torch.float16: 10, torch.float64: 11, torch.bfloat16: 16,
}


class UnsupportedValue(Exception):
    """An argument the trace cannot represent (a dtype ONNX lacks, a complex tensor ...)."""


def ox_dtype(dt, where):
    """ONNX's element type for torch dtype dt.  `where` names the tensor for the error:
    a string, or a function making it (so a hot path formats nothing when all is well)."""
    code = DTYPES.get(dt)
    if code is not None:
        return code
    if callable(where):
        where = where()
    raise UnsupportedValue(f"{where}: tensors of dtype {dt} cannot be exported (ONNX has no "
                           f"such element type here); convert it in the model")


_C_NAMES = {}


def _c_name(name):
    """The bytes of an operator or argument name, made once per name: the engine copies
    what it keeps, and a trace repeats a few dozen names thousands of times."""
    b = _C_NAMES.get(name)
    if b is None:
        b = _C_NAMES[name] = name.encode()
    return b


_C_NAME_ADDRS = {}


def _c_name_addr(name):
    """The address of the NUL-terminated bytes of `name`, kept alive in _C_NAMES."""
    a = _C_NAME_ADDRS.get(name)
    if a is None:
        a = _C_NAME_ADDRS[name] = ctypes.cast(ctypes.c_char_p(_c_name(name)), ctypes.c_void_p).value
    return a


# ox_arg as the engine reads it (include/oxport/oxport.h): the name pointer, the kind
# (an int, then 4 bytes of padding), and a 16-byte union at offset 16.
_ARG_SIZE = 32
_ARG_HEAD = struct.Struct("<Qi4x")
_U_VID = struct.Struct("<I")
_U_I64 = struct.Struct("<q")
_U_F64 = struct.Struct("<d")
_U_LIST = struct.Struct("<QQ")           # data pointer, element count
_LIST_ITEMS = {E.ARG_INTS: "q", E.ARG_FLOATS: "d", E.ARG_TENSOR_LIST: "I"}
_LIST_STRUCTS = {}
_SCALAR = {E.ARG_TENSOR: _U_VID, E.ARG_INT: _U_I64, E.ARG_BOOL: _U_I64, E.ARG_DTYPE: _U_I64,
           E.ARG_NONE: _U_I64, E.ARG_FLOAT: _U_F64}


def _list_struct(code, n):
    st = _LIST_STRUCTS.get((code, n))
    if st is None:
        st = _LIST_STRUCTS[(code, n)] = struct.Struct(f"<{n}{code}")
    return st


def _pack_args(resolved, hold):
    """The ox_arg array of one recorded op, written with struct into one buffer, list
    payloads after the array: about 1.7 us an argument less than setting ctypes fields
    one by one (ResNet-50 records about 800 arguments).  Strings the args point at are
    kept alive in `hold` (names in _C_NAMES); the array keeps its buffer alive."""
    n = max(len(resolved), 1)
    tail = _ARG_SIZE * n
    size = tail + 8  # room for an empty list's pointer
    for _name, k, v in resolved:
        if k in _LIST_ITEMS:
            size += 8 * len(v)
    buf = ctypes.create_string_buffer(size)
    base = ctypes.addressof(buf)
    off = 0
    try:
        for name, k, v in resolved:
            _ARG_HEAD.pack_into(buf, off, _c_name_addr(name), k)
            st = _SCALAR.get(k)
            if st is not None:
                st.pack_into(buf, off + 16, v)
            elif k in _LIST_ITEMS:
                _list_struct(_LIST_ITEMS[k], len(v)).pack_into(buf, tail, *v)
                _U_LIST.pack_into(buf, off + 16, base + tail, len(v))
                tail += 8 * len(v)
            elif k == E.ARG_STRING:
                sb = v.encode()
                hold.append(sb)
                _U_LIST.pack_into(buf, off + 16, ctypes.cast(ctypes.c_char_p(sb), ctypes.c_void_p).value, 0)
            off += _ARG_SIZE
    except struct.error as e:
        raise UnsupportedValue(f"argument {name}: {v!r} does not fit the engine's argument ({e})") from None
    return (E.OxArg * n).from_buffer(buf)


_PARAMETER = torch.nn.Parameter
# argument values recorded as they are, by exact type (resolve's fast path)
_PLAIN_KINDS = {int: E.ARG_INT, float: E.ARG_FLOAT, bool: E.ARG_BOOL, type(None): E.ARG_NONE, str: E.ARG_STRING}


@E.PARAM_READ_FN
def _NO_VALUES(_user, _offset, _dst, _len):
    """The source of a parameter on the meta device: never read when the export writes
    no weights; should the engine ask anyway, the export fails naming the parameter."""
    return 1  # OX_EINVAL


def _is_parameter(t):
    """isinstance(t, nn.Parameter), without the Python __instancecheck__ of Parameter's
    metaclass for the common answers (about 0.25 us for each plain tensor)."""
    cls = type(t)
    if cls is _PARAMETER:
        return True
    if cls is torch.Tensor:
        return False
    return isinstance(t, _PARAMETER)


def _leaves(obj, kinds):
    """The leaves of a (nested) tuple/list/dict that are instances of `kinds`, in order
    (dict values in their order)."""
    if isinstance(obj, kinds):
        return [obj]
    if isinstance(obj, (tuple, list)):
        out = []
        for o in obj:
            out.extend(_leaves(o, kinds))
        return out
    if isinstance(obj, dict):
        out = []
        for o in obj.values():
            out.extend(_leaves(o, kinds))
        return out
    return []


def tensors_in(obj):
    """Tensors in a (nested) tuple/list/dict, in order."""
    return _leaves(obj, torch.Tensor)


def returned_values(obj):
    """What a model returns, flattened as torch.onnx flattens it (tuples, lists, dict
    values, in order): tensors and the numbers among them.  None, strings and other
    objects hold no output and are left out, as torch.onnx leaves them out."""
    return _leaves(obj, (torch.Tensor, int, float))


def one_tensor_per_input(args, kwargs):
    """torch.onnx makes every tensor in args a graph input, in order, also a tensor given
    twice ((x, x) is two inputs): each occurrence after the first is handed to the model
    as an alias of its own (detach(): the same memory, another tensor), so the trace
    declares it as another input.  Returns (args, kwargs), untouched when no tensor
    repeats."""
    flat = tensors_in(args) + tensors_in(kwargs)
    if len({id(t) for t in flat}) == len(flat):
        return args, kwargs
    seen = set()

    def alias(obj):
        if isinstance(obj, torch.Tensor):
            if id(obj) in seen:
                return obj.detach()
            seen.add(id(obj))
            return obj
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
            return type(obj)(*(alias(o) for o in obj))
        if isinstance(obj, (tuple, list)):
            return type(obj)(alias(o) for o in obj)
        if isinstance(obj, dict):
            return type(obj)((k, alias(v)) for k, v in obj.items())
        return obj
    return alias(args), alias(kwargs)


class Recorder:
    """One trace in progress: engine handle, value map, scopes, tensors to keep alive."""

    def __init__(self, ctx, model_name):
        self.ctx = ctx
        self.L = ctx.L
        self.t = ctypes.c_void_p()
        ctx.check(self.L.ox_trace_begin(ctx.h, model_name.encode(), ctypes.byref(self.t)), "ox_trace_begin")
        self.model_name = model_name
        self.vals = {}
        self.keepalive = []       # tensors whose bytes the engine borrows
        self.param_names = {}     # id(param) -> state_dict name, declared on first use
        self.scopes = []
        self.suppress = 0
        self.views = I.ViewTracker(self)  # writes through views reach their base (see _indexing)
        self.inputs = []          # vids of graph inputs, in order
        self.input_names = set()  # names given to graph inputs (input_names)
        self.outputs = []         # vids of graph outputs, in order
        self.ranks = {}           # vid -> rank, for graph inputs and outputs
        self.n_ops = 0
        self.live = True          # TracedInts record (and warn) only while tracing
        self.warned = set()       # (what, call site) already reported
        # (what, call site) -> [message, vids]: sizes made Python constants, warned by the
        # engine after conversion only if one of them can vary (_sizes.warn_fixed)
        self.fixed_sizes = {}
        self.inside = 0           # > 0 while a handler runs: its ops are recorded by it
        self.size_vids = {}       # (vid, dim) -> vid of aten::size, one per traced dim
        self.int_consts = {}      # int -> vid of a rank-0 int64 constant
        self.opset = None         # target opset, when the caller knows it
        self.dynamic = False      # the export declares dynamic axes
        self.fake = False         # trace='fake': tensors live on the meta device
        self.real_of = {}         # id(meta parameter) -> the real parameter (its bytes)
        self.param_vids = set()   # vids of declared parameters and buffers (model state)
        self.qinfo = {}           # vid of a quantized value -> its Q.QInfo (scale, zero point, axis)
        self.dq_cache = {}        # vid of a quantized value -> the float tensor of its dequantize node
        self.packed_cache = {}    # id(packed weight) -> (packed, Q._Unpacked)
        self.packed_names = {}    # id(packed weight) -> module path, for its initializers' names
        self.aten_mode = None     # the dispatcher-level recorder (AtenMode), once made
        self.export_params = True  # False: the file holds no weights (parameters on meta allowed)

    # ------------------------------------------------------------------ values

    def _forget(self, key):
        def cb(_ref):
            ent = self.vals.get(key)
            if ent is not None and ent[1] is _ref:
                del self.vals[key]
        return cb

    def set_vid(self, tensor, vid):
        key = id(tensor)
        self.vals[key] = (vid, weakref.ref(tensor, self._forget(key)))

    def lookup(self, tensor):
        ent = self.vals.get(id(tensor))
        if ent is not None and ent[1]() is tensor:
            return ent[0]
        return None

    def is_traced(self, tensor):
        return self.lookup(tensor) is not None or id(tensor) in self.param_names

    def any_traced(self, obj):
        return any(self.is_traced(t) for t in tensors_in(obj))

    def vid(self, tensor):
        self.views.refresh(tensor)
        v = self.lookup(tensor)
        if v is not None:
            return v
        if tensor.is_quantized:
            # A quantized constant: its integer form, read with its own scale and zero point.
            v = self.const(tensor.int_repr())  # const keeps the bytes alive
            self.set_vid(tensor, v)
            self.qinfo[v] = Q.concrete_qinfo(tensor)
            return v
        name = self.param_names.get(id(tensor))
        if name is not None:
            return self.param(name, tensor)
        return self.const(tensor)

    def is_model_state(self, tensor):
        """A parameter or buffer still holding the model's own value (no op has written it
        during the trace): reading it as a number is not fixing the example's value."""
        if id(tensor) not in self.param_names:
            return False
        v = self.lookup(tensor)
        return v is None or v in self.param_vids

    @staticmethod
    def _sizes(tensor):
        return (ctypes.c_int64 * max(tensor.dim(), 1))(*tensor.shape)

    def _host_bytes(self, tensor, where):
        """Pointer to the tensor's own contiguous CPU memory (a copy only when it has none)."""
        if tensor.is_meta:
            real = self.real_of.get(id(tensor))
            if real is None and not self.fake:
                raise UnsupportedValue(
                    f"{where} in {self.scope_str()} (at {S.user_frame()}) is a tensor on the meta device, "
                    f"which holds no values to write; export a model on the meta device with "
                    f"trace='fake' (which computes nothing) and export_params=False (which writes no "
                    f"weights), or load its weights first")
            if real is None:
                raise UnsupportedValue(
                    f"{where} in {self.scope_str()} (at {S.user_frame()}) is computed on the meta device "
                    f"under trace='fake', so its values are unknown; export with trace='eager'")
            tensor = real
        # No detach() on the common path: under the recorder's modes it is an op like any
        # other (about 40 us each, 10 ms on ResNet-50's 267 parameters), and the pointer
        # needs none.  Only a tensor that is not plain contiguous CPU memory is copied.
        t = tensor
        if not t.is_cpu or not t.is_contiguous() or t.is_conj() or t.is_neg():
            t = t.detach().to("cpu").contiguous().resolve_conj().resolve_neg()
        self.keepalive.append(t)
        if t.numel() == 0:
            buf = ctypes.create_string_buffer(1)
            self.keepalive.append(buf)
            return ctypes.addressof(buf)
        return t.data_ptr()

    def input(self, tensor, name=None):
        dt = ox_dtype(tensor.dtype, "model input")
        out = E.ox_vid()
        self.ctx.check(self.L.ox_trace_input(self.t, name.encode() if name else None, dt, tensor.dim(),
                                             self._sizes(tensor), ctypes.byref(out)), "ox_trace_input")
        self.set_vid(tensor, out.value)
        if name:
            self.input_names.add(name)
        self.inputs.append(out.value)
        self.ranks[out.value] = tensor.dim()
        return out.value

    def _param_file_name(self, name):
        """The name a parameter is declared under: its state_dict name, unless the caller
        gave a graph input that name (input_names=["weight"] on an nn.Linear), which wins;
        the parameter then takes the first free name_1, name_2 ..., as the engine renames a
        parameter an output name takes (torch.onnx renames it too, to name.1)."""
        if name not in self.input_names:
            return name
        taken = self.input_names | set(self.param_names.values())
        k = 1
        while f"{name}_{k}" in taken:
            k += 1
        return f"{name}_{k}"

    def param(self, name, tensor):
        name = self._param_file_name(name)
        dt = ox_dtype(tensor.dtype, lambda: f"parameter {name}")
        real = self.real_of.get(id(tensor), tensor)
        if real.is_meta:
            return self._param_without_values(name, tensor, dt)
        ptr = self._host_bytes(tensor, name)
        out = E.ox_vid()
        # A buffer is copied as it is at its first use: a forward that updates it
        # (self.count += 1, running statistics) records the update on top, and the file
        # starts from the model's state before the export, as trace='fake' does (its
        # meta forward leaves the real buffer alone).  Borrowed, the file would hold the
        # state after the export's own forward and apply the update twice.  Parameters,
        # the bulk of the bytes, stay borrowed.
        own = E.OX_BORROW if _is_parameter(real) else E.OX_COPY
        self.ctx.check(self.L.ox_trace_param(self.t, name.encode(), dt, tensor.dim(), self._sizes(tensor),
                                             ptr, own, ctypes.byref(out)), "ox_trace_param")
        self.set_vid(tensor, out.value)
        self.param_vids.add(out.value)
        return out.value

    def _param_without_values(self, name, tensor, dt):
        """A parameter or buffer of a model on the meta device: it has a shape and a
        dtype but no values.  An export that writes no weights (export_params=False: the
        parameters become graph inputs, and the engine reads nothing of them) declares
        it with a source that refuses to be read; any other export says why it cannot."""
        if self.export_params or not self.fake:
            where = "" if self.fake else " (and the eager trace cannot run such a model)"
            raise UnsupportedValue(
                f"parameter {name} is on the meta device, so its values are unknown{where}; load the "
                f"weights (model.to_empty(device='cpu'), then load_state_dict), or export the graph "
                f"alone with trace='fake' and export_params=False")
        out = E.ox_vid()
        self.ctx.check(self.L.ox_trace_param_reader(self.t, name.encode(), dt, tensor.dim(), self._sizes(tensor),
                                                    _NO_VALUES, None, ctypes.byref(out)),
                       "ox_trace_param_reader")
        self.set_vid(tensor, out.value)
        self.param_vids.add(out.value)
        return out.value

    def const(self, tensor):
        if tensor.is_complex():
            # ONNX's float form (_spectral): real and imaginary parts in a trailing dim of
            # 2, so a complex table (Meta's LLaMA's freqs_cis) is a constant of the file
            src = self.real_of.get(id(tensor), tensor)
            self.suppress += 1
            try:
                form = torch.view_as_real(src.resolve_conj().resolve_neg()).contiguous()
            finally:
                self.suppress -= 1
            if tensor.is_meta and src is tensor:
                self._host_bytes(tensor, "constant")  # refuses: no values on meta
            v = self.const(form)
            self.set_vid(tensor, v)
            return v
        dt = ox_dtype(tensor.dtype, lambda: f"constant in {self.scope_str()}")
        ptr = self._host_bytes(tensor, "constant")
        out = E.ox_vid()
        # Copied now, not borrowed: a tensor the forward made (torch.zeros(3)) is a constant
        # with the value of its first use, and an in-place op after that (acc += x) is
        # recorded on top of it.  Borrowed, the file would hold the value at the end of the
        # trace, and the recorded op would apply a second time.
        self.ctx.check(self.L.ox_trace_const(self.t, dt, tensor.dim(), self._sizes(tensor), ptr, E.OX_COPY,
                                             ctypes.byref(out)), "ox_trace_const")
        self.set_vid(tensor, out.value)
        return out.value

    def output_size(self, n):
        """A size the model returns (x.shape[0]): the rank-0 int64 value it was read as,
        as torch.onnx returns a traced size."""
        self.ctx.check(self.L.ox_trace_output(self.t, n._ox_vid, None), "ox_trace_output")
        self.outputs.append(n._ox_vid)
        self.ranks[n._ox_vid] = 0

    def output(self, tensor, name=None):
        if tensor.is_complex() and self.lookup(tensor) is not None:
            raise UnsupportedValue(f"the model returns a complex tensor (output {len(self.outputs)}), which ONNX "
                                   f"Runtime cannot hold; return torch.view_as_real(z) (ONNX's float form with "
                                   f"a trailing dimension of 2) or z.abs()")
        v = self.vid(tensor)
        if tensor.is_quantized:
            warnings.warn(f"oxport: the model returns a quantized tensor (output {len(self.outputs)}); the file "
                          f"returns its integer form (int_repr()), without its scale and zero point (dequantize "
                          f"it in the model, e.g. with a DeQuantStub, to return floats)", TracerWarning,
                          stacklevel=3)
        self.ctx.check(self.L.ox_trace_output(self.t, v, name.encode() if name else None), "ox_trace_output")
        self.outputs.append(v)
        self.ranks[v] = tensor.dim()

    # ------------------------------------------------------------------ scopes

    def push_scope(self, seg):
        st = self.L.ox_trace_push_scope(self.t, seg.encode())
        if st:
            self.ctx.check(st, "ox_trace_push_scope")
        self.scopes.append(seg)

    def pop_scope(self):
        if self.scopes:
            st = self.L.ox_trace_pop_scope(self.t)
            if st:
                self.ctx.check(st, "ox_trace_pop_scope")
            self.scopes.pop()

    def scope_str(self):
        return "/".join([self.model_name] + self.scopes)

    # ------------------------------------------------------------------ ops

    def resolve(self, arglist):
        """Turn (name, python value) pairs into ox_arg fields; tensors become vids now,
        before the op runs, so an in-place op cannot change a constant's captured bytes."""
        out = []
        for name, v in arglist:
            # the common values first, by exact type (a TracedInt, a Dyn, a torch.Size
            # or a list holding either goes the long way below)
            t = type(v)
            k = _PLAIN_KINDS.get(t)
            if k is not None:
                out.append((name, k, 0 if v is None else int(v) if t is bool else v))
                continue
            if t is torch.Tensor or t is _PARAMETER:
                out.append((name, E.ARG_TENSOR, self.vid(v)))
                continue
            if (t is list or t is tuple) and v and all(type(x) is int for x in v):
                out.append((name, E.ARG_INTS, list(v)))
                continue
            if isinstance(v, Dyn):
                out.append(self._resolve_dyn(name, v))
                continue
            if isinstance(v, TracedInt):
                S.warn_fixed(self, f"a traced size passed as argument '{name}', which this operator "
                                   f"takes as a constant", S.plain(v), sizes=(v,))
                v = S.plain(v)
            elif isinstance(v, (list, tuple)) and S.any_traced(v):
                S.warn_fixed(self, f"traced sizes passed in argument '{name}', which this operator "
                                   f"takes as constants", [S.plain(x) for x in v], sizes=v)
                v = [S.plain(x) for x in v]
            if isinstance(v, torch.Tensor):
                out.append((name, E.ARG_TENSOR, self.vid(v)))
            elif v is None:
                out.append((name, E.ARG_NONE, 0))
            elif isinstance(v, bool):
                out.append((name, E.ARG_BOOL, int(v)))
            elif isinstance(v, int):
                out.append((name, E.ARG_INT, int(v)))
            elif isinstance(v, float):
                out.append((name, E.ARG_FLOAT, v))
            elif isinstance(v, str):
                out.append((name, E.ARG_STRING, v))
            elif isinstance(v, torch.dtype):
                code = Q.QDTYPES.get(v)  # quantize_per_*'s target: its integer form
                out.append((name, E.ARG_DTYPE, code if code is not None else ox_dtype(v, f"argument {name}")))
            elif isinstance(v, (list, tuple, torch.Size)):
                items = list(v)
                if items and all(isinstance(x, torch.Tensor) or x is None for x in items):
                    out.append((name, E.ARG_TENSOR_LIST, [0 if x is None else self.vid(x) for x in items]))
                elif all(isinstance(x, (int, bool)) and not isinstance(x, float) for x in items):
                    out.append((name, E.ARG_INTS, [int(x) for x in items]))
                elif all(isinstance(x, (int, float)) for x in items):
                    out.append((name, E.ARG_FLOATS, [float(x) for x in items]))
                else:
                    raise UnsupportedValue(f"argument {name}: cannot record a list of "
                                           f"{sorted({type(x).__name__ for x in items})}")
            else:
                raise UnsupportedValue(f"argument {name}: cannot record a value of type {type(v).__name__}")
        return out

    def _resolve_dyn(self, name, d):
        v = d.value
        if d.need is not None and self.opset is not None and self.opset < d.need:
            items = v if isinstance(v, (list, tuple)) else [v]
            if S.any_traced(items):
                if self.dynamic:
                    # the sizes it came from: the engine warns only if one can vary (a bound
                    # from a dim no dynamic axis reaches is right at every run)
                    S.warn_fixed(self, f"argument '{name}' computed from traced sizes (ONNX takes it as a "
                                       f"tensor from opset {d.need}; this export is at opset {self.opset})",
                                 [S.plain(x) for x in items] if isinstance(v, (list, tuple)) else S.plain(v),
                                 sizes=items)
                v = [S.plain(x) for x in v] if isinstance(v, (list, tuple)) else S.plain(v)
        if isinstance(v, TracedInt):
            return (name, E.ARG_TENSOR, v._ox_vid)
        if isinstance(v, torch.Tensor):
            return (name, E.ARG_TENSOR, self.vid(v))
        if isinstance(v, (list, tuple, torch.Size)):
            items = list(v)
            if S.any_traced(items):
                return (name, E.ARG_TENSOR, self.int_list(items, d.kind))
            return (name, E.ARG_INTS, [int(x) for x in items])
        if v is None:
            return (name, E.ARG_NONE, 0)
        if isinstance(v, bool):
            return (name, E.ARG_BOOL, int(v))
        if isinstance(v, float):  # arange(0.5, x.size(1)): a float bound stays a float
            return (name, E.ARG_FLOAT, v)
        return (name, E.ARG_INT, int(v))

    # ------------------------------------------------------------------ traced sizes

    def const_int(self, value):
        vid = self.int_consts.get(value)
        if vid is None:
            t = torch.tensor(value, dtype=torch.int64)
            vid = self.const(t)
            self.int_consts[value] = vid
        return vid

    def _emit_ints(self, kind, resolved, n_out=1, dtype=S.INT64):
        """Record an op whose outputs are rank-0 int64 (or `dtype`) values with no torch tensor."""
        hold = []
        descs = (E.OxTensorDesc * n_out)(*[S.scalar_desc(hold, dtype) for _ in range(n_out)])
        ids = (E.ox_vid * n_out)()
        self._trace_op(kind, resolved, n_out, descs, ids, hold)
        return ids[0]

    def size_vid(self, tensor, dim):
        v = self.vid(tensor)
        key = (v, dim)
        out = self.size_vids.get(key)
        if out is None:
            out = self._emit_ints("aten::size", [("self", E.ARG_TENSOR, v), ("dim", E.ARG_INT, dim)])
            self.size_vids[key] = out
        return out

    def traced_size(self, tensor, dim):
        d = dim + tensor.dim() if dim < 0 else dim
        return TracedInt(tensor.shape[d], self, self.size_vid(tensor, d))

    def traced_shape(self, tensor):
        return S.TracedShape(self.traced_size(tensor, i) for i in range(tensor.dim()))

    def traced_numel(self, tensor):
        v = self._emit_ints("aten::numel", [("self", E.ARG_TENSOR, self.vid(tensor))])
        return TracedInt(tensor.numel(), self, v)

    def _int_arg(self, name, v):
        if isinstance(v, TracedInt):
            return (name, E.ARG_TENSOR, v._ox_vid)
        return (name, E.ARG_INT, int(v))

    def size_equality(self, a, b):
        """a == b on two traced sizes, recorded for the engine to tell whether a comparison
        of them can come out otherwise on another run (ox_trace_fixed_values); nothing
        uses it, so it leaves the file after."""
        return self._emit_ints("aten::eq", [("self", E.ARG_TENSOR, a._ox_vid), ("other", E.ARG_TENSOR, b._ox_vid)],
                               dtype=S.BOOL)

    def fixed_values(self, vids, message):
        """Hand a warning about sizes made Python constants to the engine, which gives
        it (as a TracerWarning after the export) only if one of them can vary."""
        arr = (E.ox_vid * max(len(vids), 1))(*vids)
        self.ctx.check(self.L.ox_trace_fixed_values(self.t, len(vids), arr, message.encode()),
                       "ox_trace_fixed_values")

    def int_op(self, kind, a, b):
        """a (kind) b on sizes: one recorded scalar op; b is None for unary ops."""
        resolved = [self._int_arg("self", a)]
        if resolved[0][1] != E.ARG_TENSOR:
            resolved[0] = ("self", E.ARG_TENSOR, self.const_int(int(a)))
        if b is not None:
            resolved.append(self._int_arg("other", b))
        if kind in ("aten::add", "aten::sub"):
            resolved.append(("alpha", E.ARG_INT, 1))
        return self._emit_ints(kind, resolved)

    def int_min(self, a, b):
        """min(a, b) of sizes (a TracedInt when either is one): one recorded aten::minimum."""
        if not self.live or not (isinstance(a, TracedInt) or isinstance(b, TracedInt)):
            return min(S.plain(a), S.plain(b))
        resolved = []
        for name, v in (("self", a), ("other", b)):
            r = self._int_arg(name, v)
            resolved.append(r if r[1] == E.ARG_TENSOR else (name, E.ARG_TENSOR, self.const_int(int(v))))
        return TracedInt(min(S.plain(a), S.plain(b)), self, self._emit_ints("aten::minimum", resolved))

    def int_list(self, items, kind=None):
        """[int | TracedInt, ...] -> vid of a 1-D int64 tensor (aten::stack of scalars)."""
        vids = []
        for x in items:
            if isinstance(x, TracedInt):
                vids.append(x._ox_vid)
            else:
                x = int(x)
                if kind == "expand" and x == -1:
                    x = 1
                vids.append(self.const_int(x))
        hold = []
        d = E.OxTensorDesc()
        d.dtype = S.INT64
        d.rank = 1
        sz = (ctypes.c_int64 * 1)(len(vids))
        hold.append(sz)
        d.sizes = sz
        descs = (E.OxTensorDesc * 1)(d)
        ids = (E.ox_vid * 1)()
        self._trace_op("aten::stack", [("tensors", E.ARG_TENSOR_LIST, vids), ("dim", E.ARG_INT, 0)],
                       1, descs, ids, hold)
        return ids[0]

    def _trace_op(self, kind, resolved, n_out, descs, ids, hold):
        n = len(resolved)
        args = _pack_args(resolved, hold)
        st = self.L.ox_trace_op(self.t, _c_name(kind), n, args, n_out, descs, ids)
        if st:
            self.ctx.check(st, f"ox_trace_op({kind})")
        self.n_ops += 1

    def emit(self, kind, resolved, result, inplace_of=None):
        """Record one op whose outputs are the tensors in `result`."""
        outs = tensors_in(result)
        if not outs:
            raise UnsupportedValue(f"{kind} in {self.scope_str()} returned no tensor to record")
        hold = []
        n = len(resolved)
        args = _pack_args(resolved, hold)
        rows = []
        for o in outs:
            shape = o.shape
            if o.is_complex():  # ONNX's float form: a trailing dimension of 2 (_spectral)
                sz = (ctypes.c_int64 * (len(shape) + 1))(*shape, 2)
                rows.append((ox_dtype(torch.float64 if o.dtype == torch.complex128 else torch.float32, kind),
                             len(shape) + 1, sz))
            else:
                qcode = Q.QDTYPES.get(o.dtype) if o.is_quantized else None
                sz = (ctypes.c_int64 * (len(shape) or 1))(*shape)
                rows.append((qcode if qcode is not None else
                             ox_dtype(o.dtype, lambda: f"output of {kind} in {self.scope_str()}"), len(shape), sz))
            hold.append(sz)
        descs = (E.OxTensorDesc * len(rows))(*rows)
        ids = (E.ox_vid * len(rows))()
        st = self.L.ox_trace_op(self.t, _c_name(kind), n, args, len(outs), descs, ids)
        if st:
            self.ctx.check(st, f"ox_trace_op({kind})")
        self.n_ops += 1
        for i, o in enumerate(outs):
            self.set_vid(o, ids[i])
        self.views.on_emit(kind, resolved, outs)
        return result

    def record(self, kind, arglist, func, args, kwargs, mutated=None):
        """Resolve arguments, run the real function, record it with its outputs.
        `mutated`: the tensor an in-place op writes (default: the first argument of a
        kind ending in `_`)."""
        C.note_fixed_sizes(self, kind, arglist)
        if C.is_complex_product(kind, arglist):
            return C.complex_product(self, arglist, func, args, kwargs)
        try:
            kind, arglist = C.complex_form(self, kind, arglist)
        except C.ComplexValue as e:
            raise UnsupportedValue(str(e)) from None
        resolved = self.resolve(arglist)
        if mutated is None and kind.endswith("_") and arglist and isinstance(arglist[0][1], torch.Tensor):
            mutated = arglist[0][1]
        # The op gives the mutated tensor a new value; through a view, its base and
        # the base's other views get theirs from it (_indexing.ViewTracker).
        write = self.views.before_write(mutated)
        with _aten_mode_aside(self):
            result = _run_kernel(self, func, args, kwargs)
        out = self.emit(kind, resolved, result)
        if write is not None:
            self.views.after_write(write)
        return out

    def alias(self, src, dst):
        """dst is the same value as src (a no-op view such as detach)."""
        self.set_vid(dst, self.vid(src))
        self.views.on_alias(src, dst)

    def warn_specialized(self, what):
        S.warn_fixed(self, f"{what} on a traced tensor")

    # ------------------------------------------------------------------ finish

    def finish(self):
        # one entry a call site, with every size fixed there: it warns if any can vary
        for message, vids in self.fixed_sizes.values():
            self.fixed_values(vids, message)
        self.fixed_sizes = {}
        g = ctypes.c_void_p()
        t, self.t = self.t, None
        st = self.L.ox_trace_finish(t, ctypes.byref(g))
        self.ctx.check(st, "ox_trace_finish")
        return g

    def abort(self):
        if self.t:
            self.L.ox_trace_abort(self.t)
            self.t = None


_NO_TORCH_FUNCTION = {"has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"}
_reentrant_globals = {}
_reentrant_funcs = {}


def _never(*_a, **_k):
    return False


def reentrant(func):
    """`func` (a torch function written in Python) with its has_torch_function guard
    answering False, so that with the recorder's mode pushed again its body runs under
    the mode instead of dispatching straight back to it."""
    f = _reentrant_funcs.get(func)
    if f is None:
        gl = func.__globals__
        ng = _reentrant_globals.get(id(gl))
        if ng is None:
            ng = dict(gl)
            for n in _NO_TORCH_FUNCTION.intersection(ng):
                ng[n] = _never
            _reentrant_globals[id(gl)] = ng
        f = types.FunctionType(func.__code__, ng, func.__name__, func.__defaults__, func.__closure__)
        f.__kwdefaults__ = func.__kwdefaults__
        _reentrant_funcs[func] = f
    return f


def _python_torch_function(func):
    if isinstance(func, types.MethodType):
        func = func.__func__
    return isinstance(func, types.FunctionType) and (func.__module__ or "").startswith("torch") \
        and not _NO_TORCH_FUNCTION.isdisjoint(func.__code__.co_names)


class FunctionMode(TorchFunctionMode):
    """Records calls with a known mapping; re-enters Python-implemented torch functions;
    leaves the rest to AtenMode (always on underneath)."""

    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        rec = self.rec
        if rec.suppress or rec.inside or func in L.PASSTHROUGH:
            return func(*args, **kwargs)
        res = Q.handle(rec, self._run_float, func, args, kwargs)
        if res is not NotImplemented:
            return res
        if rec.fake and func is _NEW_TENSOR:
            out = _data_with_twin(rec, func, args, kwargs)
            if out is not None:
                return out
        if func in L.SPECIALIZING:
            if rec.fake and rec.any_traced(args):
                raise UnsupportedValue(f"trace='fake' cannot run {L.SPECIALIZING[func]} at {S.user_frame()} "
                                       f"in {rec.scope_str()}: it reads a tensor's values, which the meta "
                                       f"device does not compute; export with trace='eager'")
            if rec.any_traced(args) and not all(rec.is_model_state(t) for t in tensors_in(args)
                                                if rec.is_traced(t)):
                rec.warn_specialized(L.SPECIALIZING[func])
            rec.inside += 1
            try:
                return func(*args, **kwargs)
            finally:
                rec.inside -= 1
        traced = rec.any_traced(args) or rec.any_traced(kwargs)
        sized = S.any_traced(_flat_ints(args)) or S.any_traced(_flat_ints(kwargs.values()))
        decomposed = L.DECOMPOSITIONS.get(func)
        if decomposed is not None and traced:
            with self:
                return decomposed(*args, **kwargs)
        handler = L.HANDLERS.get(func)
        # A call on constants only (a non-persistent buffer, a factory's result) that takes
        # a traced size is recorded too: `inv_freq[None, :, None].expand(b, -1, 1)`,
        # `table[:, :n]`, `torch.tensor([1., 2.]) * x.size(0)` follow the input's shape.
        if handler is not None and (traced or sized):
            rec.inside += 1
            try:
                res = handler(rec, func, args, kwargs)
            finally:
                rec.inside -= 1
            if res is not NotImplemented:
                return res
        if not traced and not sized:
            # Factories and ops on constants: their results are constants, captured
            # when a recorded op first uses them.
            if rec.fake and func in _FROM_DATA:
                out = _data_with_twin(rec, func, args, kwargs)
                if out is not None:
                    return out
            return func(*args, **kwargs)
        if _python_torch_function(func):
            with self:
                return reentrant(func.__func__ if isinstance(func, types.MethodType) else func)(
                    *args, **kwargs)
        if sized:
            # with the sizes: the engine warns only if one of them can vary
            S.warn_fixed(rec, f"a traced size passed to {_func_name(func)}, which oxport records with "
                              f"constant sizes", sizes=_flat_ints(args) + _flat_ints(kwargs.values()))
        # Recorded by AtenMode, one node per dispatched op.
        return func(*args, **kwargs)

    def _run_float(self, fn, args, kwargs):
        """Run fn with this recorder on (a quantized op's float form, see _quantized)."""
        return _recording(self, fn, args, kwargs)


def _recording(mode, fn, args, kwargs):
    """fn(*args, **kwargs) with `mode` pushed again and the recorder recording (from
    inside a handler, which otherwise stands the recorders aside)."""
    rec = mode.rec
    saved, rec.inside = rec.inside, 0
    try:
        with mode:
            return fn(*args, **kwargs)
    finally:
        rec.inside = saved


def _func_name(func):
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


def _flat_ints(obj):
    """The traced sizes among a call's arguments, also inside size lists and index keys
    (`x[:, :n - 1]` passes n in a slice inside a tuple)."""
    out = []
    for v in obj:
        if isinstance(v, TracedInt):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(_flat_ints(v))
        elif isinstance(v, slice):
            out.extend(x for x in (v.start, v.stop, v.step) if isinstance(x, TracedInt))
    return out


def _returns_tensor_list(schema):
    """Whether an ATen op returns a list of tensors (aten::unbind, aten::unsafe_split):
    recorded as one node with one output per tensor, like a tuple."""
    return len(schema.returns) == 1 and str(schema.returns[0].type) == "List[Tensor]"


def schema_arglist(schema, args, kwargs):
    """[(name, value)] of one ATen call, by the schema's argument names in schema order,
    defaults filled in; the arguments a trace has no use for (device, layout, memory
    format, out=, pin_memory, the default generator) left out.  Also used by the operator
    table's rows that record an operator as is (tests/ops/as_is.py)."""
    arglist = []
    for i, a in enumerate(schema.arguments):
        if a.kwarg_only and a.name in kwargs:
            v = kwargs[a.name]
        elif i < len(args) and not a.kwarg_only:
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        elif a.has_default_value():
            v = a.default_value
        else:
            continue
        if isinstance(v, (torch.device, torch.layout, torch.memory_format)) or a.name in ("out", "pin_memory"):
            continue
        if a.name == "generator" and v is None:
            continue  # the default generator: random ops draw from ONNX Runtime's own
        arglist.append((a.name, v))
    return arglist


# Where torch 1.13 keeps the meta kernels and decompositions it writes in Python.
_META_KERNEL_FILES = (os.path.join("torch", "_meta_registrations.py"),)
_META_KERNEL_DIRS = tuple(os.path.join("torch", d) + os.sep for d in ("_prims", "_refs", "_decomp", "_prims_common"))


def _raised_in_meta_kernel(e):
    """Whether e came out of one of torch's meta kernels written in Python (torch 1.13's
    meta_cdist_forward raises a TypeError for a call eager runs; its prims assert, with
    no message, for shapes their decompositions did not foresee)."""
    tb = e.__traceback__
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if f.endswith(_META_KERNEL_FILES) or any(d in f for d in _META_KERNEL_DIRS):
            return True
        tb = tb.tb_next
    return False


def _meta_failure(e):
    """Why torch's meta device could not run an op, in one line."""
    first = str(e).splitlines()[0] if str(e) else "(no message)"
    if _raised_in_meta_kernel(e) and not isinstance(e, (NotImplementedError, RuntimeError)):
        return f"torch {torch.__version__.split('+')[0]}'s meta kernel failed: {type(e).__name__}: {first}"
    # torch._convolution on meta tensors falls to the backend-extension stub
    stub = re.match(r"(\w+) not implemented\. You are likely triggering this with tensor backend other than", first)
    if stub:
        return f"torch {torch.__version__.split('+')[0]} has no meta kernel for aten::{stub.group(1)}"
    # a custom op without an autograd kernel (torchvision's) fails at AutogradMeta first
    m = re.search(r"Could not run '([^']+)' with arguments from the '(?:Autograd)?Meta' backend", first)
    if not m:
        return first
    op = m.group(1)
    why = " (its output's shape depends on tensor values)" if op in _VALUE_SHAPED else ""
    return f"torch {torch.__version__.split('+')[0]} has no meta kernel for {op}{why}"


# What an ATen op with no kernel for the tensors' backend says (torch._convolution's
# convolution_overrideable on meta tensors).
_BACKEND_STUB = "You are likely triggering this with tensor backend other than"


# Operators whose output size counts what the values select: no meta kernel can have one.
_VALUE_SHAPED = {"aten::nonzero", "aten::masked_select", "aten::_unique2", "aten::unique_dim",
                 "aten::unique_consecutive", "aten::bincount", "aten::repeat_interleave.Tensor",
                 "aten::repeat_interleave", "torchvision::nms"}


# What torch says when a kernel meets tensors of the CPU and of the meta device.
# (torch.where names the first operand's device as the expected one: a CPU condition
# with meta values says "Tensor on device meta is not on the expected device cpu!")
_MIXED_DEVICES = ("found at least two devices", "is not on the expected device meta",
                  "is not on the expected device cpu",
                  "Cannot inplace into non-meta tensor with meta tensor argument",
                  "indices should be either on cpu or on the same device",
                  "meshgrid expects all tensors to have the same device",
                  "expected to be in the same device",  # index_copy with a CPU index
                  "must be on the same device",  # stft with a window made in forward
                  "Cannot copy out of meta tensor")


def _bool_fill_dtype(func, args, kwargs):
    """kwargs with dtype=torch.bool for aten::full of a bool fill value and no dtype.
    torch.full((3, 4), True) is bool, but torch 1.13 infers the dtype of a bool fill as
    int64 once the call reaches a TorchDispatchMode (the mode sees aten.full with no
    dtype): without this, the model would compute other values under the recorder than
    in eager mode, and the file would hold an int64 tensor where eager has a bool one."""
    if func is torch.ops.aten.full.default and kwargs.get("dtype") is None:
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        if isinstance(fill, bool):
            return dict(kwargs, dtype=torch.bool)
    return kwargs


_NO_KERNEL_FOR = re.compile(r"not implemented for '(Half|BFloat16|ComplexHalf)'")


def _note_missing_kernel(rec, func, e):
    """A model in float16 or bfloat16 meets a CPU kernel torch does not have for it
    ("slow_conv2d_cpu" not implemented for 'Half'): the eager trace cannot run it, but
    trace='fake' runs no kernel.  The error keeps its type and message (torch.onnx.export
    raises the same); a note says where and what to do, once per exception."""
    if getattr(e, "_ox_noted", False) or not _NO_KERNEL_FOR.search(str(e)):
        return
    e._ox_noted = True
    name = getattr(getattr(func, "_schema", None), "name", None) or getattr(func, "__name__", "an operator")
    e.add_note(f"oxport: {name} at {S.user_frame()} in {rec.scope_str()} has no CPU kernel for this dtype "
               f"in torch {torch.__version__}, so the eager trace cannot run it; "
               f"oxport.torch.export(..., trace='fake') records the graph without running kernels")


def _run_kernel(rec, func, args, kwargs):
    """Run an ATen kernel.  Under trace='fake' a tensor the forward made on the CPU
    (torch.arange(n) with no device, a table built in forward) can meet the meta
    tensors: the kernel then runs with it on the meta device too.  Only the call sees
    the meta copy; the trace already holds the CPU tensor's value or its recorded node,
    so the file is the eager trace's.

    An op that writes such a CPU tensor (acc += x, torch.zeros(n).index_add_(...))
    writes the meta copy.  The CPU tensor is returned in its place, and the trace gives
    it the op's output, so every later op reads the recorded value.  Its own bytes are
    now stale, but a traced tensor's values are never read under trace='fake': that is
    refused (FunctionMode, AtenMode)."""
    try:
        return func(*args, **kwargs)
    except RuntimeError as e:
        if not rec.fake:
            _note_missing_kernel(rec, func, e)
        if not rec.fake or not any(m in str(e) for m in _MIXED_DEVICES):
            raise
    originals = {}

    def on_meta(t):
        if isinstance(t, torch.Tensor) and t.device.type == "cpu":
            m = t.to("meta")
            originals[id(m)] = t
            return m
        return t

    schema = getattr(func, "_schema", None)
    written = set()
    if schema is not None:
        for i, a in enumerate(schema.arguments):
            if a.alias_info is not None and a.alias_info.is_write:
                v = args[i] if i < len(args) else kwargs.get(a.name)
                if isinstance(v, torch.Tensor):
                    written.add(id(v))
    margs, mkwargs = tree_map(on_meta, args), tree_map(on_meta, kwargs)
    result = func(*margs, **mkwargs)

    def written_original(t):
        if isinstance(t, torch.Tensor):
            o = originals.get(id(t))
            if o is not None and id(o) in written:
                return o
        return t

    return tree_map(written_original, result)


def _constant_with_twin(rec, func, args, kwargs):
    """Under trace='fake', a constant the forward computes on the meta device: a number
    made a tensor on the input's device (x[idx] = 0.5 dispatches aten::scalar_tensor),
    a factory given device=x.device, and any op on such constants.  The op runs on the
    meta device as it would, and once more on their CPU twins, whose values a recorded op
    that reads the constant captures (real_of), as the eager trace captures the CPU
    tensor's.  None when the op is no such constant: an input of it on the meta device
    has no twin (a traced value's result is recorded instead), or nothing is on meta."""
    tensors = tensors_in(args) + tensors_in(kwargs)
    metas = [t for t in tensors if t.device.type == "meta"]
    device = kwargs.get("device")
    if not metas and not (device is not None and torch.device(device).type == "meta"):
        return None
    if any(id(t) not in rec.real_of for t in metas):
        return None

    def twin(v):
        if isinstance(v, torch.Tensor) and v.device.type == "meta":
            return rec.real_of[id(v)]
        if isinstance(v, torch.device) and v.type == "meta":
            return torch.device("cpu")
        return v

    out = func(*args, **kwargs)
    real = func(*tree_map(twin, args), **tree_map(twin, kwargs))
    outs, reals = tensors_in(out), tensors_in(real)
    if len(outs) != len(reals):
        return out
    for o, r in zip(outs, reals):
        if o.device.type == "meta" and r.device.type == "cpu":
            _set_twin(rec, o, r)
    return out


def _set_twin(rec, meta, real):
    """`real` (a CPU tensor) holds the values of the meta tensor `meta`: a recorded op
    reading `meta` captures them (_host_bytes)."""
    rec.real_of[id(meta)] = real
    rec.keepalive.extend((meta, real))  # real_of is keyed by id(): meta must outlive the trace


# Tensors made from Python data: on the meta device (torch.tensor(v, device=x.device)
# under trace='fake') their values go nowhere an ATen op shows them.  (torch.asarray
# reaches no TorchFunctionMode in torch 1.13: its meta result stays refused where used.)
_FROM_DATA = {torch.tensor, torch.as_tensor}
_NEW_TENSOR = torch.Tensor.new_tensor  # x.new_tensor(data): data on x's device, of x's dtype


def _is_numpy(obj):
    """A numpy array or scalar (numpy is then imported already; a model that makes none
    does not pay for importing it)."""
    np = module_if_imported("numpy")
    return np is not None and isinstance(obj, (np.ndarray, np.generic))


def _data_with_twin(rec, func, args, kwargs):
    """torch.tensor(data, device=x.device), x.new_tensor(data) and their kin under
    trace='fake': the meta tensor the forward asked for, with a CPU twin made from the
    same data holding the values the eager trace would capture (real_of, as
    _constant_with_twin gives an ATen factory's result).  None when the data holds
    tensors (their values are those tensors'; the usual rules apply) or the result is
    not on the meta device."""
    if func is _NEW_TENSOR:
        like, rest = args[0], args[1:]
        data = rest[0] if rest else kwargs.get("data")
    else:
        like, data = None, args[0] if args else kwargs.get("data", kwargs.get("obj"))
    if tensors_in(data) or not (isinstance(data, (int, float, bool, complex, list, tuple)) or _is_numpy(data)):
        return None
    rec.inside += 1  # the calls below make constants; nothing in them is recorded
    try:
        out = func(*args, **kwargs)
        if not isinstance(out, torch.Tensor) or not out.is_meta:
            return out
        if like is not None:
            real = torch.tensor(data, dtype=kwargs.get("dtype") or like.dtype, device="cpu")
        else:
            cpu_kwargs = dict(kwargs)
            cpu_kwargs["device"] = "cpu"
            real = func(*args, **cpu_kwargs)
    finally:
        rec.inside -= 1
    _set_twin(rec, out, real)
    return out


class _aten_mode_aside:
    """While a handler runs the function it records (rec.inside), the ATen ops that
    function dispatches to are not recorded, so the dispatcher-level recorder is taken
    off the mode stack for the call instead of being entered once per ATen op only to
    run the kernel.  In torch 1.13 each entry costs a Python round trip through the
    mode stack (about 15 us), and a call such as batch_norm on the meta device runs a
    Python decomposition of a dozen ATen ops: ResNet-50's trace='fake' forward spent
    a third of its time there.  Only the recorder's own mode is set aside, and only when
    it is the innermost one."""

    __slots__ = ("mode",)

    def __init__(self, rec):
        self.mode = None
        mode = rec.aten_mode
        if mode is not None and rec.inside and _dispatch_stack_len() \
                and _dispatch_stack_at(_dispatch_stack_len() - 1) is mode:
            self.mode = mode

    def __enter__(self):
        if self.mode is not None:
            _pop_dispatch_mode()

    def __exit__(self, *exc):
        if self.mode is not None:
            _push_dispatch_mode(self.mode)


class AtenMode(TorchDispatchMode):
    """Dispatcher-level recorder: one node per ATen op, argument names from its schema.
    On for the whole forward; idle while a function-level handler runs."""

    def __init__(self, rec):
        super().__init__()
        self.rec = rec
        rec.aten_mode = self

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = _bool_fill_dtype(func, args, kwargs or {})
        rec = self.rec
        if rec.inside or rec.suppress or not (rec.any_traced(args) or rec.any_traced(kwargs)):
            if rec.fake and not rec.inside and not rec.suppress:
                out = _constant_with_twin(rec, func, args, kwargs)
                if out is not None:
                    return out
            return _run_kernel(rec, func, args, kwargs)
        if rec.qinfo:
            res = Q.handle(rec, self._run_float, func, args, kwargs)
            if res is not NotImplemented:
                return res
        schema = func._schema
        name = schema.name
        if not any(isinstance(r.type, torch.TensorType) for r in schema.returns) \
                and not (schema.returns and str(schema.returns[0].type).startswith("Tensor")) \
                and not _returns_tensor_list(schema):
            # A Python value out of a traced tensor (.item() reached from TorchScript,
            # aten::is_nonzero, aten::equal ...): the trace cannot keep it.  Under
            # trace='fake' there is no value to read (a meta tensor has none, and a CPU
            # tensor an op wrote has stale bytes, _run_kernel).
            if rec.fake:
                raise UnsupportedValue(f"trace='fake' cannot run {name} at {S.user_frame()} in "
                                       f"{rec.scope_str()}: it reads a traced tensor's values, which the "
                                       f"meta device does not compute; export with trace='eager'")
            S.warn_fixed(rec, f"{name} turns a traced tensor into a Python value")
            return _run_kernel(rec, func, args, kwargs)
        if name in L.ATEN_ALIASES:
            out = _run_kernel(rec, func, args, kwargs)
            rec.alias(args[0], out)
            return out
        handler = L.ATEN_HANDLERS.get(name)
        if handler is not None:
            rec.inside += 1
            try:
                res = handler(rec, func, args, kwargs)
            finally:
                rec.inside -= 1
            if res is not NotImplemented:
                return res
        arglist = schema_arglist(schema, args, kwargs)
        if any(isinstance(v, torch.ScriptObject) or (isinstance(v, (list, tuple)) and
                                                     any(isinstance(x, torch.ScriptObject) for x in v))
               for _n, v in arglist):
            raise UnsupportedValue(f"{name} in {rec.scope_str()} (at {S.user_frame()}) takes packed quantized "
                                   f"weights (a torch.ScriptObject); oxport unpacks them for quantized conv and "
                                   f"linear layers (static and dynamic) only, so this operator cannot be exported")
        mutated = None
        for i, a in enumerate(schema.arguments):
            if a.alias_info is not None and a.alias_info.is_write and i < len(args) \
                    and isinstance(args[i], torch.Tensor):
                mutated = args[i]
        stand_in = None
        if rec.fake:
            stand_in = FR.meta_bucket_result(func.__name__, args, kwargs)
            if stand_in is None:
                stand_in = FR.meta_selection_result(func.__name__, args, kwargs)
        if stand_in is not None:
            func, args, kwargs = (lambda: stand_in), (), {}
        rec.inside += 1
        try:
            return rec.record(name, arglist, func, args, kwargs, mutated)
        except (NotImplementedError, RuntimeError) as e:
            if not rec.fake or rec.inside > 1 or "meta" not in str(e).lower():
                raise
            raise UnsupportedValue(f"trace='fake' cannot run {name} at {S.user_frame()} in "
                                   f"{rec.scope_str()}: {_meta_failure(e)}; export with "
                                   f"trace='eager'") from None
        finally:
            rec.inside -= 1

    def _run_float(self, fn, args, kwargs):
        return _recording(self, fn, args, kwargs)


def function_apply_wrapper(rec, original):
    """Function.apply replacement: one fn::<ClassName> node, the ops inside not recorded."""

    def apply(cls, *args):
        if rec.suppress or not rec.any_traced(args):
            return original.__get__(None, cls)(*args)
        params = list(inspect.signature(cls.forward).parameters)[1:]
        arglist = []
        for i, v in enumerate(args):
            pname = params[i] if i < len(params) else f"arg{i}"
            arglist.append((pname, v))
        resolved = rec.resolve(arglist)
        rec.suppress += 1
        try:
            result = original.__get__(None, cls)(*args)
        finally:
            rec.suppress -= 1
        out = rec.emit(f"fn::{cls.__name__}", resolved, result)
        _symbolic.note_apply(rec, cls, resolved, result)  # the class's own symbolic, if any
        return out

    return classmethod(apply)


class ScopeHooks:
    """Forward pre/post hooks pushing `ClassName[attribute]` for every submodule."""

    def __init__(self, rec, model):
        self.handles = []
        seen = set()
        scripted = []
        for path, m in model.named_modules():
            if m is model or id(m) in seen:
                continue
            seen.add(id(m))
            if any(path.startswith(p + ".") for p in scripted):
                continue
            if isinstance(m, torch.jit.ScriptModule):
                # TorchScript modules take no Python hooks; their ops are still
                # recorded (by the dispatcher-level recorder) in the parent's scope.
                scripted.append(path)
                warn_scripted(rec, m)
                continue
            seg = f"{type(m).__name__}[{path.rsplit('.', 1)[-1]}]"
            self.handles.append(m.register_forward_pre_hook(self._pre(rec, seg)))
            self.handles.append(m.register_forward_hook(self._post(rec)))

    @staticmethod
    def _pre(rec, seg):
        def hook(_m, _inp):
            rec.push_scope(seg)
        return hook

    @staticmethod
    def _post(rec):
        def hook(_m, _inp, _out):
            rec.pop_scope()
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []


def _to_meta(obj):
    if isinstance(obj, torch.Tensor):
        return torch.empty_like(obj, device="meta")
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_meta(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_meta(v) for k, v in obj.items()}
    return obj


class _meta_swap:
    """Point the model's parameters and buffers at their meta twins for the forward, and
    back after it: what functional_call does, without its swap of every module's class for
    one that looks each attribute read up in the new state (about 15 ms of ResNet-50's
    meta forward, against 5 ms for the forward itself).  `complete` is False when a name of
    `state` is no parameter or buffer at its module path (a module that makes its own
    state_dict names); the caller then uses functional_call, which takes any name."""

    def __init__(self, model, state):
        self.state = state
        self.slots = []
        modules = dict(model.named_modules(remove_duplicate=False))
        for key in state:
            path, _, leaf = key.rpartition(".")
            m = modules.get(path)
            slots = None
            if m is not None:
                slots = m._parameters if leaf in m._parameters else m._buffers if leaf in m._buffers else None
            if slots is None or slots[leaf] is None:
                self.slots = []
                break
            self.slots.append((slots, leaf))
        self.complete = len(self.slots) == len(state)
        self.saved = []

    def __enter__(self):
        # a module reached by two paths has its slot swapped twice; undoing in reverse
        # order puts the real tensor back last
        for (slots, leaf), meta in zip(self.slots, self.state.values()):
            self.saved.append((slots, leaf, slots[leaf]))
            slots[leaf] = meta
        return self

    def __exit__(self, *exc):
        for slots, leaf, t in reversed(self.saved):
            slots[leaf] = t
        self.saved = []


class _rnn_flat_weights:
    """nn.RNNBase keeps its own list of weight tensors (_flat_weights), which
    functional_call's swap does not reach: point it at the meta tensors too."""

    def __init__(self, model, state):
        self.saved = []
        for path, m in model.named_modules():
            if isinstance(m, torch.nn.RNNBase):
                pre = path + "." if path else ""
                self.saved.append((m, m._flat_weights))
                m._flat_weights = [state.get(pre + n, w) for n, w in zip(m._flat_weights_names, m._flat_weights)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for m, w in self.saved:
            m._flat_weights = w


def trace(ctx, model, args, kwargs, input_names=None, mode="eager", opset=None, dynamic=False,
          export_params=True):
    """Run `model(*args, **kwargs)` once and record it.  Returns (recorder, graph handle,
    flat outputs); the recorder's keepalive must outlive the export.

    mode='fake' runs the forward on the meta device (torch computes shapes and dtypes,
    no kernel runs): inputs, parameters and buffers are swapped for meta tensors of the
    same shape (torch.nn.utils.stateless.functional_call), and each meta parameter is
    declared with its real counterpart's bytes, still borrowed by pointer.  The outputs
    returned are then meta tensors."""
    if mode not in ("eager", "fake"):
        raise ValueError(f"trace must be 'eager' or 'fake', not {mode!r}")
    name = type(model).__name__ if isinstance(model, torch.nn.Module) else getattr(model, "__name__", "model")
    rec = Recorder(ctx, name)
    rec.opset, rec.dynamic, rec.export_params = opset, bool(dynamic), bool(export_params)
    meta_state = None
    if mode == "fake":
        if not isinstance(model, torch.nn.Module) or isinstance(model, torch.jit.ScriptModule):
            raise UnsupportedValue("trace='fake' needs an eager torch.nn.Module")
        why = Q.fake_mode_refusal(model)
        if why is not None:
            raise UnsupportedValue(why)
        rec.fake = True
        args, kwargs = _to_meta(args), _to_meta(kwargs)
        meta_state, by_real = {}, {}
        for pname, p in model.state_dict(keep_vars=True).items():
            meta = by_real.get(id(p))       # tied weights stay one tensor
            if meta is None:
                meta = by_real[id(p)] = torch.empty_like(p, device="meta")
                _set_twin(rec, meta, p)
            meta_state[pname] = meta
    hooks = None
    fn_cls = torch.autograd.Function
    had_apply = "apply" in fn_cls.__dict__
    saved_apply = fn_cls.__dict__.get("apply")
    try:
        if mode != "fake":  # (_to_meta gave each occurrence its own meta tensor already)
            args, kwargs = one_tensor_per_input(args, kwargs)
        names = list(input_names or [])
        for t in tensors_in(args) + tensors_in(kwargs):
            if rec.lookup(t) is None:
                i = len(rec.inputs)
                rec.input(t, names[i] if i < len(names) else None)
        if isinstance(model, torch.nn.Module):
            state = meta_state if meta_state is not None else model.state_dict(keep_vars=True)
            declare_in_state_order(rec, state)
            rec.packed_names = Q.packed_names(model)
            if isinstance(model, torch.jit.ScriptModule):
                warn_scripted(rec, model)
            else:
                hooks = ScopeHooks(rec, model)
        fn_cls.apply = function_apply_wrapper(rec, torch._C._FunctionBase.__dict__["apply"])
        with in_onnx_export(), tuple_keys(), I.setitem_keys(), batched_nms_by_offsets(), roi_levels_merged(), masks_pasted_at_once(), \
                keypoints_decoded_as_one_op(), \
                topk_min_traced(rec), FunctionMode(rec), \
                AtenMode(rec):
            if meta_state is not None:
                from torch.nn.utils.stateless import functional_call
                swap = _meta_swap(model, meta_state)
                try:
                    with _rnn_flat_weights(model, meta_state):
                        if swap.complete:
                            with swap:
                                result = model(*args, **kwargs)
                        else:
                            result = functional_call(model, meta_state, tuple(args), kwargs)
                except Exception as e:  # noqa: BLE001 - only the meta device's failures are rewritten
                    if isinstance(e, UnsupportedValue) or not (
                            isinstance(e, (NotImplementedError, RuntimeError)) and (
                                "meta" in str(e).lower() or _BACKEND_STUB in str(e))
                            or _raised_in_meta_kernel(e)):
                        raise
                    raise UnsupportedValue(f"trace='fake': an operator at {S.user_frame_of(e.__traceback__)} in "
                                           f"{rec.scope_str()} cannot run on the meta device "
                                           f"({_meta_failure(e)}); export with trace='eager'") from None
            else:
                result = model(*args, **kwargs)
        rec.live = False
        outs = []
        for i, o in enumerate(returned_values(result)):
            if isinstance(o, torch.Tensor):
                rec.output(o)
            elif isinstance(o, S.TracedInt) and o._ox_rec is rec:
                rec.output_size(o)
                o = torch.tensor(int(o))
            else:
                # torch.onnx refuses it too ("did not have observable data dependence
                # with trace inputs"); left out, the file would lack an output
                raise UnsupportedValue(f"output {i} is the Python {type(o).__name__} {o!r}, which no "
                                       f"input determines, so the file cannot compute it; return a "
                                       f"tensor, or leave it out of the outputs")
            outs.append(o)
        if not outs:
            raise TypeError(f"{name}: the model returned no tensors ({type(result).__name__})")
        graph = rec.finish()
        return rec, graph, outs
    except BaseException:
        rec.live = False
        rec.abort()
        raise
    finally:
        if had_apply:
            fn_cls.apply = saved_apply
        elif "apply" in fn_cls.__dict__:
            del fn_cls.apply
        if hooks is not None:
            hooks.remove()


def declare_in_state_order(rec, state):
    """Name each parameter and buffer by its first state_dict key (a tied weight keeps the
    first), and declare them in model.state_dict()'s order before the forward runs, as torch.onnx orders them ("the ordering as specified by
    model.state_dict().values()"): the order export_params=False gives them as graph
    inputs, keep_initializers_as_inputs too, and the one input_names names them in past
    the inputs.  The engine drops the ones the forward never reads.  One that cannot be
    declared (a dtype ONNX lacks, no values) is left to its first use, which reports it
    only if the forward reads it."""
    for pname, p in state.items():
        if not isinstance(p, torch.Tensor) or p.is_quantized:
            continue
        if rec.param_names.setdefault(id(p), pname) != pname or rec.lookup(p) is not None:
            continue
        try:
            rec.param(pname, p)
        except (UnsupportedValue, E.EngineError):
            pass


class in_onnx_export:
    """torch.onnx.is_in_onnx_export() is True while oxport traces, as under
    torch.onnx.export, so models that branch on it take their export path."""

    def __enter__(self):
        from torch.onnx._globals import GLOBALS
        self.g = GLOBALS
        self.old = GLOBALS.in_onnx_export
        GLOBALS.in_onnx_export = True

    def __exit__(self, *exc):
        self.g.in_onnx_export = self.old


class batched_nms_by_offsets:
    """torchvision's batched_nms runs one nms per class in a Python loop over
    torch.unique(classes) when it has more than 1000 boxes (on CPU): the loop's length
    is the input's class count, which a trace would fix.  Its other form, one nms over
    boxes offset apart per class, gives the same kept boxes and is what torchvision
    itself uses under torch.onnx's tracer; during an oxport trace it is used always."""

    def __enter__(self):
        self.mod = tvboxes = module_if_imported("torchvision.ops.boxes")
        if tvboxes is None:
            return
        self.saved = tvboxes._batched_nms_vanilla
        tvboxes._batched_nms_vanilla = tvboxes._batched_nms_coordinate_trick
        # batched_nms picks its form by comparing the traced box count with 4000 before
        # it asks whether it is traced: a TracerWarning about a branch whose sides are
        # now one form.  Its code is swapped (not the module attribute, which a
        # `from torchvision.ops import batched_nms` done before would not see).
        self.entry = getattr(tvboxes, "batched_nms", None)
        self.code = getattr(self.entry, "__code__", None)
        if self.code is not None and self.code.co_argcount == _offsets_form.__code__.co_argcount \
                and not self.code.co_freevars:
            self.entry.__code__ = _offsets_form.__code__
        else:
            self.code = None

    def __exit__(self, *exc):
        if self.mod is not None:
            self.mod._batched_nms_vanilla = self.saved
            if self.code is not None:
                self.entry.__code__ = self.code


def _offsets_form(boxes, scores, idxs, iou_threshold):
    """The body batched_nms runs during a trace: its globals are torchvision.ops.boxes'."""
    return _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold)  # noqa: F821


class roi_levels_merged:
    """torchvision's MultiScaleRoIAlign sizes its result with len(rois) -- the number of
    proposals, which depends on the input's values and which len() makes a plain int --
    and fills it level by level.  Its trace path (taken under torch.onnx's tracer) merges
    the levels with scatter into a result sized by levels.size(0), a traced size; during
    an oxport trace the pooling runs that path."""

    def __enter__(self):
        torchvision = module_if_imported("torchvision")
        self.mod = tvpoolers = module_if_imported("torchvision.ops.poolers")
        if tvpoolers is None:
            return
        self.saved = original = tvpoolers._multiscale_roi_align

        def merged(*args, **kwargs):
            saved_flag = torchvision._is_tracing
            torchvision._is_tracing = lambda: True
            try:
                return original(*args, **kwargs)
            finally:
                torchvision._is_tracing = saved_flag

        tvpoolers._multiscale_roi_align = merged

    def __exit__(self, *exc):
        if self.mod is not None:
            self.mod._multiscale_roi_align = self.saved


class topk_min_traced:
    """torchvision's detectors take topk(min(k, boxes.size(0))) candidates (RPN per level,
    RetinaNet, FCOS and SSD per class over the boxes above the score threshold: a count
    that depends on the image).  Its helper, _topk_min, computes the min in Python outside
    torch.jit's tracer; during an oxport trace it is the recorded minimum of k and the
    traced size, so topk gets a traced k."""

    def __init__(self, rec):
        self.rec = rec

    def __enter__(self):
        self.mod = tvdet = module_if_imported("torchvision.models.detection._utils")
        if tvdet is None:
            return
        rec = self.rec
        self.saved = tvdet._topk_min

        def topk_min(input, orig_kval, axis):
            return rec.int_min(orig_kval, input.size(axis))

        tvdet._topk_min = topk_min

    def __exit__(self, *exc):
        if self.mod is not None:
            self.mod._topk_min = self.saved


def warn_scripted(rec, model):
    """A torch.jit ScriptModule runs in TorchScript's interpreter: its ops reach the
    dispatcher-level recorder (so the file computes what the module computes), but the
    sizes it reads never reach Python and the module has no Python submodule scopes."""
    S.warn_fixed(rec, f"{type(model).__name__} is a torch.jit ScriptModule: its operators are "
                      f"recorded from TorchScript's interpreter, but sizes it reads internally cannot "
                      f"be traced (export the eager nn.Module to keep dynamic axes)")


_BASE_GETITEM = torch._C._TensorBase.__getitem__


def _getitem_tuple_key(self, key):
    return _BASE_GETITEM(self, K.tuple_key(key))


class tuple_keys:
    """torch 1.13 indexes with a non-tuple key (`x[0]`, `x[:n]`, `x[idx]`) on a C fast
    path that TorchFunctionMode never sees, so a traced size in the key would reach the
    dispatcher as a plain int.  During the trace every key is passed as the tuple torch
    reads it as (_index_keys.tuple_key), the same index, which the mode does see."""

    def __enter__(self):
        self.had = "__getitem__" in torch.Tensor.__dict__
        self.saved = torch.Tensor.__dict__.get("__getitem__")
        torch.Tensor.__getitem__ = _getitem_tuple_key

    def __exit__(self, *exc):
        if self.had:
            torch.Tensor.__getitem__ = self.saved
        else:
            del torch.Tensor.__getitem__


# The mode sees the patched method as the function called.
L.HANDLERS[_getitem_tuple_key] = L.HANDLERS[torch.Tensor.__getitem__]
