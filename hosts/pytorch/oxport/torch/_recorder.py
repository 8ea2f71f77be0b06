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
"""

import ctypes
import inspect
import warnings
import weakref

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from .. import _engine as E
from . import _lowering as L

DTYPES = {
    torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6,
    torch.int64: 7, torch.bool: 9, torch.float16: 10, torch.float64: 11, torch.bfloat16: 16,
}


class TracerWarning(UserWarning):
    """The exported graph may be specialized to the traced input."""


class UnsupportedValue(Exception):
    """An argument the trace cannot represent (a dtype ONNX lacks, a complex tensor ...)."""


def ox_dtype(dt, where):
    try:
        return DTYPES[dt]
    except KeyError:
        raise UnsupportedValue(f"{where}: tensors of dtype {dt} cannot be exported (ONNX has no "
                               f"such element type here); convert it in the model") from None


def tensors_in(obj):
    """Tensors in a (nested) tuple/list/dict, in order."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        out = []
        for o in obj:
            out.extend(tensors_in(o))
        return out
    if isinstance(obj, dict):
        out = []
        for o in obj.values():
            out.extend(tensors_in(o))
        return out
    return []


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
        self.stale = {}           # id(base) -> (weakref, where): written through a view
        self.inputs = []          # vids of graph inputs, in order
        self.outputs = []         # vids of graph outputs, in order
        self.ranks = {}           # vid -> rank, for graph inputs and outputs
        self.n_ops = 0

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
        st = self.stale.get(id(tensor))
        if st is not None and st[0]() is tensor:
            raise UnsupportedValue(f"a tensor modified in place through a view ({st[1]}) is used again in "
                                   f"{self.scope_str()}: the trace records the write on the view only, so the "
                                   f"file would read the old values; build the result out of place "
                                   f"(torch.cat, torch.where, F.pad ...)")
        v = self.lookup(tensor)
        if v is not None:
            return v
        name = self.param_names.get(id(tensor))
        if name is not None:
            return self.param(name, tensor)
        return self.const(tensor)

    @staticmethod
    def _sizes(tensor):
        return (ctypes.c_int64 * max(tensor.dim(), 1))(*tensor.shape)

    def _host_bytes(self, tensor, where):
        """Pointer to the tensor's own contiguous CPU memory (a copy only when it has none)."""
        t = tensor.detach()
        if t.device.type != "cpu" or not t.is_contiguous() or t.is_conj() or t.is_neg():
            t = t.to("cpu").contiguous().resolve_conj().resolve_neg()
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
        self.inputs.append(out.value)
        self.ranks[out.value] = tensor.dim()
        return out.value

    def param(self, name, tensor):
        dt = ox_dtype(tensor.dtype, f"parameter {name}")
        ptr = self._host_bytes(tensor, name)
        out = E.ox_vid()
        self.ctx.check(self.L.ox_trace_param(self.t, name.encode(), dt, tensor.dim(), self._sizes(tensor),
                                             ptr, E.OX_BORROW, ctypes.byref(out)), "ox_trace_param")
        self.set_vid(tensor, out.value)
        return out.value

    def const(self, tensor):
        dt = ox_dtype(tensor.dtype, f"constant in {self.scope_str()}")
        ptr = self._host_bytes(tensor, "constant")
        out = E.ox_vid()
        self.ctx.check(self.L.ox_trace_const(self.t, dt, tensor.dim(), self._sizes(tensor), ptr, E.OX_BORROW,
                                             ctypes.byref(out)), "ox_trace_const")
        self.set_vid(tensor, out.value)
        return out.value

    def output(self, tensor, name=None):
        v = self.vid(tensor)
        self.ctx.check(self.L.ox_trace_output(self.t, v, name.encode() if name else None), "ox_trace_output")
        self.outputs.append(v)
        self.ranks[v] = tensor.dim()

    # ------------------------------------------------------------------ scopes

    def push_scope(self, seg):
        self.ctx.check(self.L.ox_trace_push_scope(self.t, seg.encode()), "ox_trace_push_scope")
        self.scopes.append(seg)

    def pop_scope(self):
        if self.scopes:
            self.ctx.check(self.L.ox_trace_pop_scope(self.t), "ox_trace_pop_scope")
            self.scopes.pop()

    def scope_str(self):
        return "/".join([self.model_name] + self.scopes)

    # ------------------------------------------------------------------ ops

    def resolve(self, arglist):
        """Turn (name, python value) pairs into ox_arg fields; tensors become vids now,
        before the op runs, so an in-place op cannot change a constant's captured bytes."""
        out = []
        for name, v in arglist:
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
                out.append((name, E.ARG_DTYPE, ox_dtype(v, f"argument {name}")))
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

    def emit(self, kind, resolved, result, inplace_of=None):
        """Record one op whose outputs are the tensors in `result`."""
        outs = tensors_in(result)
        hold = []
        n = len(resolved)
        args = (E.OxArg * max(n, 1))()
        for i, (name, k, v) in enumerate(resolved):
            a = args[i]
            nb = name.encode()
            hold.append(nb)
            a.name = nb
            a.kind = k
            if k in (E.ARG_TENSOR,):
                a.u.tensor = v
            elif k in (E.ARG_INT, E.ARG_BOOL, E.ARG_DTYPE, E.ARG_NONE):
                a.u.i = v
            elif k == E.ARG_FLOAT:
                a.u.f = v
            elif k == E.ARG_STRING:
                sb = v.encode()
                hold.append(sb)
                a.u.s = sb
            elif k == E.ARG_INTS:
                arr = (ctypes.c_int64 * max(len(v), 1))(*v)
                hold.append(arr)
                a.u.ints.data = arr
                a.u.ints.n = len(v)
            elif k == E.ARG_FLOATS:
                arr = (ctypes.c_double * max(len(v), 1))(*v)
                hold.append(arr)
                a.u.floats.data = arr
                a.u.floats.n = len(v)
            elif k == E.ARG_TENSOR_LIST:
                arr = (E.ox_vid * max(len(v), 1))(*v)
                hold.append(arr)
                a.u.tensors.data = arr
                a.u.tensors.n = len(v)
        descs = (E.OxTensorDesc * max(len(outs), 1))()
        for i, o in enumerate(outs):
            d = descs[i]
            d.dtype = ox_dtype(o.dtype, f"output of {kind} in {self.scope_str()}")
            d.rank = o.dim()
            sz = self._sizes(o)
            hold.append(sz)
            d.sizes = sz
        ids = (E.ox_vid * max(len(outs), 1))()
        self.ctx.check(self.L.ox_trace_op(self.t, kind.encode(), n, args, len(outs), descs, ids),
                       f"ox_trace_op({kind})")
        self.n_ops += 1
        for i, o in enumerate(outs):
            self.set_vid(o, ids[i])
        return result

    def record(self, kind, arglist, func, args, kwargs, mutated=None):
        """Resolve arguments, run the real function, record it with its outputs.
        `mutated`: the tensor an in-place op writes (default: the first argument of a
        kind ending in `_`)."""
        resolved = self.resolve(arglist)
        if mutated is None and kind.endswith("_") and arglist and isinstance(arglist[0][1], torch.Tensor):
            mutated = arglist[0][1]
        if mutated is not None and mutated._base is not None and self.is_traced(mutated._base):
            # The view gets the op's new value; its base does not.  Reading the
            # base later would silently use the old values.
            base = mutated._base
            self.stale[id(base)] = (weakref.ref(base), f"{kind} in {self.scope_str()}")
        result = func(*args, **kwargs)
        return self.emit(kind, resolved, result)

    def alias(self, src, dst):
        """dst is the same value as src (a no-op view such as detach)."""
        self.set_vid(dst, self.vid(src))

    def warn_specialized(self, what):
        warnings.warn(f"oxport: {what} on a traced tensor in {self.scope_str()}: the exported graph "
                      f"is specialized to this input's values (the result is a Python constant in the "
                      f"file)", TracerWarning, stacklevel=4)

    # ------------------------------------------------------------------ finish

    def finish(self):
        g = ctypes.c_void_p()
        t, self.t = self.t, None
        st = self.L.ox_trace_finish(t, ctypes.byref(g))
        self.ctx.check(st, "ox_trace_finish")
        return g

    def abort(self):
        if self.t:
            self.L.ox_trace_abort(self.t)
            self.t = None


class FunctionMode(TorchFunctionMode):
    """Records calls with a known mapping; routes the rest through AtenMode."""

    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        rec = self.rec
        if rec.suppress or func in L.PASSTHROUGH:
            return func(*args, **kwargs)
        if func in L.SPECIALIZING:
            if rec.any_traced(args):
                rec.warn_specialized(L.SPECIALIZING[func])
            return func(*args, **kwargs)
        traced = rec.any_traced(args) or rec.any_traced(kwargs)
        if not traced:
            # Factories and ops on constants: their results are constants, captured
            # when a recorded op first uses them.
            return func(*args, **kwargs)
        handler = L.HANDLERS.get(func)
        if handler is not None:
            res = handler(rec, func, args, kwargs)
            if res is not NotImplemented:
                return res
        with AtenMode(rec):
            return func(*args, **kwargs)


class AtenMode(TorchDispatchMode):
    """Dispatcher-level fallback: one node per ATen op, argument names from its schema."""

    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        rec = self.rec
        schema = func._schema
        name = schema.name
        if not (rec.any_traced(args) or rec.any_traced(kwargs)):
            return func(*args, **kwargs)
        if name in L.ATEN_ALIASES:
            out = func(*args, **kwargs)
            rec.alias(args[0], out)
            return out
        handler = L.ATEN_HANDLERS.get(name)
        if handler is not None:
            res = handler(rec, func, args, kwargs)
            if res is not NotImplemented:
                return res
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
            arglist.append((a.name, v))
        mutated = None
        for i, a in enumerate(schema.arguments):
            if a.alias_info is not None and a.alias_info.is_write and i < len(args) \
                    and isinstance(args[i], torch.Tensor):
                mutated = args[i]
        return rec.record(name, arglist, func, args, kwargs, mutated)


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
        return rec.emit(f"fn::{cls.__name__}", resolved, result)

    return classmethod(apply)


class ScopeHooks:
    """Forward pre/post hooks pushing `ClassName[attribute]` for every submodule."""

    def __init__(self, rec, model):
        self.handles = []
        seen = set()
        for path, m in model.named_modules():
            if m is model or id(m) in seen:
                continue
            seen.add(id(m))
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


def trace(ctx, model, args, kwargs, input_names=None):
    """Run `model(*args, **kwargs)` once and record it.  Returns (recorder, graph handle,
    flat outputs); the recorder's keepalive must outlive the export."""
    name = type(model).__name__ if isinstance(model, torch.nn.Module) else getattr(model, "__name__", "model")
    rec = Recorder(ctx, name)
    hooks = None
    fn_cls = torch.autograd.Function
    had_apply = "apply" in fn_cls.__dict__
    saved_apply = fn_cls.__dict__.get("apply")
    try:
        names = list(input_names or [])
        for t in tensors_in(args) + tensors_in(kwargs):
            if rec.lookup(t) is None:
                i = len(rec.inputs)
                rec.input(t, names[i] if i < len(names) else None)
        if isinstance(model, torch.nn.Module):
            for pname, p in model.state_dict(keep_vars=True).items():
                rec.param_names.setdefault(id(p), pname)
            hooks = ScopeHooks(rec, model)
        fn_cls.apply = function_apply_wrapper(rec, torch._C._FunctionBase.__dict__["apply"])
        with FunctionMode(rec):
            result = model(*args, **kwargs)
        outs = tensors_in(result)
        if not outs:
            raise TypeError(f"{name}: the model returned no tensors ({type(result).__name__})")
        for o in outs:
            rec.output(o)
        graph = rec.finish()
        return rec, graph, outs
    except BaseException:
        rec.abort()
        raise
    finally:
        if had_apply:
            fn_cls.apply = saved_apply
        elif "apply" in fn_cls.__dict__:
            del fn_cls.apply
        if hooks is not None:
            hooks.remove()
