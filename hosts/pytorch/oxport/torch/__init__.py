"""oxport.torch — a drop-in for torch.onnx.export backed by liboxport.

    import oxport.torch
    oxport.torch.export(model, dummy_input, "model.onnx", opset_version=13)
    oxport.torch.verify(model, dummy_input, "model.onnx")

The model runs once; every operator it executes is recorded through liboxport's tracer
API (see _recorder.py), then the engine converts the trace with its symbolic packs and
writes the file.  Weights are never copied: the engine reads them from the tensors' own
memory while it writes (only a non-contiguous or non-CPU tensor gets a contiguous CPU
copy first).
"""

import contextlib
import inspect
import os
import shutil
import tempfile
import threading
import time
import warnings

import torch
from torch.onnx import OperatorExportTypes, TrainingMode

from .. import _engine
from . import _custom_ops, _functions, _picture, _recorder, _symbolic, _validate
from ._custom_ops import register_custom_op_symbolic, unregister_custom_op_symbolic
from ._introspect import IntrospectionError, check_pack, packs, supported_operators
from ._recorder import TracerWarning

__all__ = ["export", "verify", "overrides", "ExportError", "TrainingMode", "OperatorExportTypes", "TracerWarning",
           "VerifyResult", "draw_graph", "register_custom_op_symbolic", "unregister_custom_op_symbolic",
           "supported_operators", "packs", "check_pack", "IntrospectionError"]


class ExportError(RuntimeError):
    """The engine refused the model; `report` is the engine's whole message (every
    unsupported operator with its scope, loader errors ...), `status` its ox_status name."""

    def __init__(self, report, status="", call=""):
        self.report = report
        self.status = status
        self.call = call
        super().__init__(report)


# torch.onnx.OperatorExportTypes -> ox_export_type (the same numbers)
_EXPORT_TYPES = {OperatorExportTypes.ONNX: 0, OperatorExportTypes.ONNX_ATEN: 1,
                 OperatorExportTypes.ONNX_ATEN_FALLBACK: 2, OperatorExportTypes.ONNX_FALLTHROUGH: 3}


def _unsupported(option, value, why):
    raise NotImplementedError(f"oxport.torch.export: {option}={value!r} is not supported ({why})")


def _check_options(operator_export_type, custom_opsets, export_modules_as_functions, training):
    if operator_export_type is not None and operator_export_type not in _EXPORT_TYPES:
        raise ValueError(f"oxport.torch.export: operator_export_type={operator_export_type!r} is not a "
                         f"torch.onnx.OperatorExportTypes value")
    if custom_opsets is not None:
        if not isinstance(custom_opsets, dict) or not all(
                isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) and v >= 1
                for k, v in custom_opsets.items()):
            raise ValueError(f"oxport.torch.export: custom_opsets={custom_opsets!r} must map domain names "
                             f"to opset versions >= 1, e.g. {{'mydomain': 1}}")
    _functions.validate(export_modules_as_functions)
    if training not in (TrainingMode.EVAL, TrainingMode.PRESERVE, TrainingMode.TRAINING):
        _unsupported("training", training, "use a torch.onnx.TrainingMode value")


def _override_lines(ctx):
    cfile = _engine.CFile()
    st = ctx.L.ox_context_print_overrides(ctx.h, cfile.fp, None)
    text = cfile.read_and_close()
    ctx.check(st, "ox_context_print_overrides")
    return text.splitlines()


def _print_overrides(ctx):
    for line in _override_lines(ctx):
        print(f"oxport: {line}")


def overrides(config=None):
    """Operators whose symbolic is replaced, one line each:
    "aten::relu: <source used> overrides <source replaced>" -- register_custom_op_symbolic
    registrations over the packs, and packs over the built-in ones.  `verbose=True` exports
    print the same lines (with the trace's autograd Function symbolics too)."""
    try:
        with _engine.Context(config=config) as ctx:
            _custom_ops.add_packs(ctx, None, None)
            return _override_lines(ctx)
    except _engine.EngineError as e:
        raise ExportError(e.message, e.status_name, e.call) from None
    except _custom_ops.RegistrationError as e:
        raise ExportError(str(e), "OX_EINVAL", "python symbolics") from None


def _in_signature_order(model, kwargs):
    """The keyword arguments in the order of the forward's parameters (then any others,
    for a **kwargs, as given): torch.onnx passes them by position in that order, so its
    graph inputs follow the signature, not the dict, and input_names name them so."""
    if len(kwargs) < 2:
        return kwargs
    try:
        fn = model.forward if isinstance(model, torch.nn.Module) else model
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # no signature Python can read (a ScriptModule's)
        return kwargs
    ordered = {k: kwargs[k] for k in params if k in kwargs}
    ordered.update((k, v) for k, v in kwargs.items() if k not in ordered)
    return ordered


def _split_args(args, model=None):
    """torch.onnx.export's convention: a tensor, or a tuple whose last item may be a
    dict of keyword arguments (ordered as the forward's signature orders them)."""
    if isinstance(args, torch.Tensor):
        return (args,), {}
    if not isinstance(args, tuple):
        args = (args,)
    if args and isinstance(args[-1], dict):
        return args[:-1], _in_signature_order(model, args[-1])
    return args, {}


@contextlib.contextmanager
def _training_mode(model, training):
    if not isinstance(model, torch.nn.Module) or training == TrainingMode.PRESERVE:
        yield
        return
    # Each module's own mode is put back afterwards, so a model with a submodule in
    # another mode than its parent (a frozen, eval-mode backbone in a training model)
    # comes back as it was; a model already in the mode asked for is not touched.
    want = training == TrainingMode.TRAINING
    modules = list(model.modules())
    was = [m.training for m in modules]
    changed = any(w != want for w in was)
    if changed:
        model.train(want)
    try:
        yield
    finally:
        if changed:
            for m, w in zip(modules, was):
                if m.training != w:
                    m.training = w


def _dynamic_axes(L, graph, dynamic_axes, input_names, output_names, in_vids, out_vids, in_ranks,
                  out_ranks):
    names = {}
    for i, n in enumerate(input_names or []):
        if i < len(in_vids):
            names[n] = (in_vids[i], "input", in_ranks[i] if i < len(in_ranks) else None)
    for i, n in enumerate(output_names or []):
        if i < len(out_vids):
            names[n] = (out_vids[i], "output", out_ranks[i] if i < len(out_ranks) else None)
    for key, axes in dynamic_axes.items():
        if key not in names:
            warnings.warn(f"oxport: dynamic_axes key {key!r} is not an input or output name "
                          f"(input_names={input_names}, output_names={output_names}); ignored")
            continue
        vid, what, rank = names[key]
        if isinstance(axes, dict):
            pairs = [(int(a), str(n)) for a, n in axes.items()]
        else:
            unique = []
            for a in map(int, axes):
                if a in unique:
                    # torch.onnx's warning; the axis is named once, as torch.onnx names it
                    warnings.warn(f"oxport: Duplicate dynamic axis index {a} was provided for {what} {key}; "
                                  f"it is named once")
                else:
                    unique.append(a)
            pairs = [(a, f"{key}_dynamic_axes_{i + 1}") for i, a in enumerate(unique)]
        for axis, dname in pairs:
            if rank is not None and not 0 <= axis < rank:
                raise ExportError(f"dynamic_axes[{key!r}]: axis {axis} is out of range for {what} {key!r} of "
                                  f"rank {rank} (valid axes: 0..{rank - 1})", "OX_EINVAL", "dynamic_axes")
            st = L.ox_graph_set_dim_param(graph, vid, axis, dname.encode())
            if st != _engine.OX_OK:
                return st, f"dynamic_axes[{key!r}][{axis}]"
    return _engine.OX_OK, None


def _c_strings(names):
    import ctypes
    if not names:
        return None, 0, []
    enc = [str(n).encode() for n in names]
    arr = (ctypes.c_char_p * len(enc))(*enc)
    return arr, len(enc), enc


class _loading_beside:
    """Load `ctx` (opset descriptors, packs: 3-5 ms) on a thread while the forward is
    traced, instead of before it.  The trace only needs a context for its error
    messages, so it gets one of its own (a bare ox_context, nothing loaded) and never
    shares `ctx` with the loading thread; the trace's graph belongs to no context and
    is exported with `ctx` once both are done.  ctypes lets go of the GIL for the
    length of ox_context_load, so on two cores the load is hidden behind the trace.
    A failure of the load is raised once the trace is done, in place of any error of
    the trace: as when the load ran first."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.status = None
        self.thread = None
        self.trace_ctx = None

    def _load(self):
        self.status = self.ctx.L.ox_context_load(self.ctx.h)

    def __enter__(self):
        self.trace_ctx = _engine.Context()
        self.thread = threading.Thread(target=self._load, name="oxport-context-load", daemon=True)
        self.thread.start()
        return self.trace_ctx

    def __exit__(self, *exc):
        self.thread.join()
        self.trace_ctx.close()
        self.ctx.check(self.status, "ox_context_load")
        return False


def export(model, args, f, export_params=True, verbose=False, training=TrainingMode.EVAL,
           input_names=None, output_names=None, operator_export_type=OperatorExportTypes.ONNX,
           opset_version=None, do_constant_folding=True, dynamic_axes=None,
           keep_initializers_as_inputs=None, custom_opsets=None, export_modules_as_functions=False,
           config=None, graph_picture=None, report=None, check=True, sync=False, trace="eager",
           direct_io=None):
    """Export `model` to ONNX; same arguments and meaning as torch.onnx.export (1.13).

    `f` is a path or a writable binary file object.  `opset_version=None` takes the
    oxport config's target opset (13 unless configured).  `config` (oxport only) is an
    oxport.yaml to load.  `graph_picture` (oxport only) also draws the exported file
    there (.svg, .png or .dot; see draw_graph).  `report` (oxport only) writes what
    happened, whether the export succeeds or not, to FILE.html (a page: problems grouped,
    time per stage, ops by module, the graph) or FILE.json (docs/json-output.md).
    `check` (oxport only, default True) runs oxport's checker (onnx.checker's rules, with
    the operator schemas) before anything is written, as torch.onnx runs onnx.checker;
    check=False writes the file unchecked.  `sync=True` (oxport only) fsyncs the written
    files before returning so the export survives a power loss; by default, like torch.save
    and onnx.save, it does not (unless the config sets `sync: true`); the file is replaced
    atomically either way.
    `direct_io` (oxport only): True writes files past 8 MiB with direct I/O (O_DIRECT),
    skipping the page cache -- faster where growing the page cache is slow (VMs, memory
    full of other files), slower on a slow disk; the bytes are the same.  False never;
    None (default) takes the config's `direct_io`, else follows `sync`.
    `trace` (oxport only): "eager" runs the forward once on the real tensors; "fake" runs
    it on the meta device, so no kernel computes (shapes and dtypes only; the weights are
    still written from the real parameters) and refuses models that read tensor values.
    `export_modules_as_functions` (True, or a set of nn.Module subclasses; opset 15 or newer)
    writes each selected module type as an ONNX local function and its instances as calls,
    named as torch.onnx 1.13 names them (class name, in the domain of the class's module).
    Raises ExportError with the engine's whole report on failure,
    NotImplementedError for options oxport does not implement.  Returns None, like
    torch.onnx.export."""
    import ctypes

    _check_options(operator_export_type, custom_opsets, export_modules_as_functions, training)
    if direct_io is not None and not isinstance(direct_io, bool):
        raise TypeError(f"oxport.torch.export: direct_io must be True, False or None, not {direct_io!r}")
    opset_version = _validate.opset_version(opset_version)
    if config is not None:
        _validate.path("config", config)
    if isinstance(f, (str, bytes, os.PathLike)):
        _validate.path("f", f)
    input_names = _validate.names("input_names", input_names)
    output_names = _validate.names("output_names", output_names)
    axes = _validate.dynamic_axes_shape(dynamic_axes)
    pos, kw = _split_args(args, model)
    try:
        ctx = _engine.Context(config=config)
    except _engine.EngineError as e:
        raise ExportError(e.message, e.status_name, e.call) from None
    L = ctx.L
    graph = None
    rec = None
    tmpdir = None
    try:
        try:
            if operator_export_type is not None:
                ctx.check(L.ox_context_set_export_type(ctx.h, _EXPORT_TYPES[operator_export_type]),
                          "ox_context_set_export_type")
            for domain, version in (custom_opsets or {}).items():
                ctx.check(L.ox_context_set_domain_version(ctx.h, domain.encode(), version),
                          f"custom_opsets[{domain!r}]")
            opset = int(opset_version) if opset_version is not None else ctx.target_opset()
            function_types = _functions.selected_types(model, export_modules_as_functions, opset)
            t_start = time.monotonic()
            with _loading_beside(ctx) as trace_ctx, _training_mode(model, training), torch.no_grad():
                rec, graph, _outs = _recorder.trace(trace_ctx, model, pos, kw, input_names, mode=trace,
                                                    opset=opset, dynamic=bool(dynamic_axes),
                                                    export_params=export_params)
            t_traced = time.monotonic()
            # Python symbolics (autograd Functions' own, registered ones) join as packs.
            _custom_ops.add_packs(ctx, rec, custom_opsets)
            if verbose:
                _print_overrides(ctx)
            if dynamic_axes:
                _validate.dynamic_axes_ranks(axes, input_names, output_names,
                                             [rec.ranks[v] for v in rec.inputs],
                                             [rec.ranks[v] for v in rec.outputs])
                # a tensor passed twice is two inputs (_recorder.one_tensor_per_input)
                in_ranks = [t.dim() for t in _recorder.tensors_in(pos) + _recorder.tensors_in(kw)]
                st, where = _dynamic_axes(L, graph, dynamic_axes, input_names, output_names,
                                          rec.inputs, rec.outputs, in_ranks, [t.dim() for t in _outs])
                ctx.check(st, where)
        except _engine.EngineError as e:
            raise ExportError(e.message, e.status_name, e.call) from None
        except _recorder.UnsupportedValue as e:
            raise ExportError(f"{type(model).__name__}: {e}", "OX_EUNSUPPORTED", "trace") from None
        except (_symbolic.SymbolicError, _custom_ops.RegistrationError) as e:
            raise ExportError(str(e), "OX_EINVAL", "python symbolics") from None

        opts = _engine.OxExportOptions()
        L.ox_export_options_init(ctypes.byref(opts))
        opts.opset = opset
        opts.export_params = 1 if export_params else 0
        if keep_initializers_as_inputs is None and operator_export_type not in (None, OperatorExportTypes.ONNX):
            # torch.onnx 1.13's default for the other types: a runtime that runs ATen or
            # fall-through nodes is one that takes the weights as inputs (Caffe2's way)
            keep_initializers_as_inputs = True
        opts.keep_initializers_as_inputs = -1 if keep_initializers_as_inputs is None else int(
            bool(keep_initializers_as_inputs))
        in_arr, n_in, _in_hold = _c_strings(input_names)
        out_arr, n_out, _out_hold = _c_strings(output_names)
        if in_arr is not None:
            opts.input_names = ctypes.cast(in_arr, ctypes.POINTER(ctypes.c_char_p))
            opts.n_input_names = n_in
        if out_arr is not None:
            opts.output_names = ctypes.cast(out_arr, ctypes.POINTER(ctypes.c_char_p))
            opts.n_output_names = n_out
        opts.do_constant_folding = 1 if do_constant_folding else 0
        opts.check = 1 if check else 0
        opts.sync = 1 if sync else 0
        opts.direct_io = 0 if direct_io is None else 1 if direct_io else -1
        fn_arr, n_fn, _fn_hold = _c_strings(function_types)
        if fn_arr is not None:
            opts.function_types = ctypes.cast(fn_arr, ctypes.POINTER(ctypes.c_char_p))
            opts.n_function_types = n_fn
        cfile = _engine.CFile() if verbose else None
        if cfile is not None:
            opts.verbose = cfile.fp

        if isinstance(f, (str, bytes, os.PathLike)):
            path = os.fsdecode(f)
        elif hasattr(f, "write"):
            tmpdir = tempfile.mkdtemp(prefix="oxport-")
            path = os.path.join(tmpdir, "model.onnx")
        else:
            raise TypeError(f"oxport.torch.export: f must be a path or a writable binary file, not "
                            f"{type(f).__name__}")
        st = L.ox_export(ctx.h, graph, os.fsencode(path), ctypes.byref(opts))
        message = ctx.errmsg()
        printed = cfile.read_and_close() if cfile is not None else ""
        notes = L.ox_context_notes(ctx.h).decode(errors="replace")
        if st == _engine.OX_OK:
            for line in L.ox_context_warnings(ctx.h).decode(errors="replace").splitlines():
                warnings.warn(f"oxport: {line}", TracerWarning, stacklevel=2)
        if verbose and notes:
            for line in notes.splitlines():
                print(f"oxport: {line}")
        if printed:
            print(printed, end="" if printed.endswith("\n") else "\n")
        if report is not None:
            stages = [("run and trace", t_traced - t_start), ("convert and write", time.monotonic() - t_traced)]
            try:
                _picture.report(ctx, graph, path, opset, st, stages, os.fsdecode(report))
            except _engine.EngineError as e:
                raise ExportError(e.message, e.status_name, e.call) from None
        if st != _engine.OX_OK:
            raise ExportError(message, _engine.STATUS_NAMES.get(st, str(st)), "ox_export")
        if graph_picture is not None:
            try:
                _picture.draw(path, graph_picture)
            except _engine.EngineError as e:
                raise ExportError(e.message, e.status_name, e.call) from None
        if tmpdir is not None:
            with open(path, "rb") as src:
                shutil.copyfileobj(src, f, 1 << 20)
    finally:
        if graph is not None:
            L.ox_graph_free(graph)
        # The engine borrowed the parameters' bytes until here.
        if rec is not None:
            rec.keepalive.clear()
        ctx.close()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)


def draw_graph(onnx_path, picture, format=None, scope=None, depth=None):
    """Draw an ONNX file as `oxport dump --format svg` does: modules as nested boxes,
    initializers listed in the node reading them, tensor types on the edges.
    `picture` ends in .svg or .png (Graphviz's `dot` must be installed) or .dot, or
    `format` says which.  `scope` (a node scope such as "Net/Sequential[features]")
    draws only that module; modules more than `depth` levels below it become one box
    each.  Raises ExportError with the engine's message on failure."""
    try:
        _picture.draw(onnx_path, picture, format=format, scope=scope, depth=depth)
    except _engine.EngineError as e:
        raise ExportError(e.message, e.status_name, e.call) from None


class VerifyResult(list):
    """Per output: (name, max_abs_diff, max_rel_diff, ok)."""

    @property
    def ok(self):
        return all(r[3] for r in self)

    def __str__(self):
        return "\n".join(f"{n}: max abs diff {a:.3g}, max rel diff {r:.3g} {'ok' if ok else 'MISMATCH'}"
                         for n, a, r, ok in self)


def verify(model, args, path, rtol=1e-3, atol=1e-5, raise_on_mismatch=False):
    """Run `path` in ONNX Runtime on `args` and compare with the model's eager outputs.

    Returns a VerifyResult (a list of (output name, max abs diff, max rel diff, ok));
    prints nothing.  raise_on_mismatch=True raises AssertionError on the first output
    outside rtol/atol."""
    import numpy as np

    from . import _ort

    pos, kw = _split_args(args, model)
    with torch.no_grad():
        was = model.training if isinstance(model, torch.nn.Module) else None
        if was is not None:
            model.eval()
        try:
            # a size the model returns (x.shape[0]) is an output of the file too
            want = [v if isinstance(v, torch.Tensor) else torch.tensor(v)
                    for v in _recorder.returned_values(model(*pos, **kw))]
        finally:
            if was:
                model.train(True)
    feeds = [t.detach().cpu().numpy() for t in _recorder.tensors_in(pos) + _recorder.tensors_in(kw)]
    names, got = _ort.run(path, feeds)
    res = VerifyResult()
    if len(got) != len(want):
        raise AssertionError(f"{path}: {len(got)} outputs in the file, the model returned {len(want)}")
    for name, g, w in zip(names, got, want):
        # a quantized output is exported as its integer form (see _quantized)
        w = (w.int_repr() if w.is_quantized else w).detach().cpu().numpy()
        if g.shape != w.shape:
            res.append((name, float("inf"), float("inf"), False))
            continue
        gd = g.astype(np.float64)
        wd = w.astype(np.float64)
        d = np.abs(gd - wd)
        mabs = float(d.max()) if d.size else 0.0
        mrel = float((d / np.maximum(np.abs(wd), 1e-30)).max()) if d.size else 0.0
        ok = bool(np.allclose(gd, wd, rtol=rtol, atol=atol, equal_nan=True))
        res.append((name, mabs, mrel, ok))
    if raise_on_mismatch and not res.ok:
        raise AssertionError(f"{path}: outputs differ from eager (rtol={rtol}, atol={atol}):\n{res}")
    return res
