"""ctypes binding of liboxport's host API (include/oxport/oxport.h).

Only what a host needs: context, trace, export, graph printing, introspection (packs,
operators per opset, pack checks).  Structs mirror the header field for field; keep them in
step with it.

Library lookup order: $OXPORT_LIB, $OXPORT_BUILDDIR/src/liboxport.so, the engine this
package was installed with (`_installed.py`, written by `meson install` and by
`pip install .`), the build tree next to this package (<source>/build),
`pkg-config --variable=libdir oxport`, ctypes.util.find_library('oxport').  When the
library comes from a build tree or a wheel, that tree's (the wheel's) packs and opset
descriptors are used too, unless the caller already set the variables.
"""

import ctypes
import ctypes.util
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# hosts/pytorch/oxport -> source root (only meaningful in a source checkout).
SOURCE_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# ox_status
OX_OK = 0
STATUS_NAMES = {
    0: "OX_OK", 1: "OX_EINVAL", 2: "OX_ENOMEM", 3: "OX_EIO", 4: "OX_EFORMAT",
    5: "OX_EUNSUPPORTED", 6: "OX_EPLUGIN", 7: "OX_ECONFIG", 8: "OX_ESTATE", 9: "OX_ECHECK",
}

# ox_arg_kind
ARG_NONE, ARG_TENSOR, ARG_TENSOR_LIST, ARG_INT, ARG_FLOAT, ARG_BOOL, ARG_STRING, \
    ARG_INTS, ARG_FLOATS, ARG_DTYPE = range(10)

# ox_ownership
OX_BORROW = 0
OX_COPY = 1

ox_vid = ctypes.c_uint32


class _Ints(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_int64)), ("n", ctypes.c_size_t)]


class _Floats(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_double)), ("n", ctypes.c_size_t)]


class _Tensors(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ox_vid)), ("n", ctypes.c_size_t)]


class _ArgU(ctypes.Union):
    _fields_ = [("tensor", ox_vid), ("i", ctypes.c_int64), ("f", ctypes.c_double),
                ("s", ctypes.c_char_p), ("ints", _Ints), ("floats", _Floats),
                ("tensors", _Tensors)]


class OxArg(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("u", _ArgU)]


class OxTensorDesc(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_uint32),
                ("sizes", ctypes.POINTER(ctypes.c_int64))]


class OxExportOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("opset", ctypes.c_int),
        ("export_params", ctypes.c_int),
        ("keep_initializers_as_inputs", ctypes.c_int),
        ("input_names", ctypes.POINTER(ctypes.c_char_p)),
        ("n_input_names", ctypes.c_size_t),
        ("output_names", ctypes.POINTER(ctypes.c_char_p)),
        ("n_output_names", ctypes.c_size_t),
        ("external_data_threshold", ctypes.c_uint64),
        ("external_data", ctypes.c_int),
        ("external_data_location", ctypes.c_char_p),
        ("verbose", ctypes.c_void_p),
        ("do_constant_folding", ctypes.c_int),
        ("producer_name", ctypes.c_char_p),
        ("producer_version", ctypes.c_char_p),
        ("check", ctypes.c_int),
        ("sync", ctypes.c_int),
        ("function_types", ctypes.POINTER(ctypes.c_char_p)),
        ("n_function_types", ctypes.c_size_t),
        ("direct_io", ctypes.c_int),
    ]


# The introspection structs (oxport.h, "introspection"): each starts with struct_size,
# which `info()` sets; the engine fills only what fits, so these may lag the header.
class OxPackInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("version", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("path", ctypes.c_char_p), ("abi_major", ctypes.c_uint16),
                ("abi_minor", ctypes.c_uint16), ("configured", ctypes.c_int),
                ("n_ops", ctypes.c_size_t), ("n_overrides", ctypes.c_size_t)]


class OxParamInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("alt_kinds", ctypes.c_uint32), ("optional", ctypes.c_int),
                ("default_value", ctypes.c_char_p), ("kind_text", ctypes.c_char_p)]


class OxOpInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("since_opset", ctypes.c_int), ("n_params", ctypes.c_size_t),
                ("n_outputs", ctypes.c_uint32), ("pack", ctypes.c_size_t),
                ("pack_name", ctypes.c_char_p), ("overrides", ctypes.c_char_p),
                ("has_check", ctypes.c_int), ("outputs_as_recorded", ctypes.c_int)]


class OxOpsetOpInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("doc", ctypes.c_char_p),
                ("declared_in", ctypes.c_int), ("n_params", ctypes.c_size_t),
                ("n_limitations", ctypes.c_size_t), ("supported", ctypes.c_int),
                ("has_symbolic", ctypes.c_int), ("op", ctypes.c_size_t),
                ("symbolic_from_opset", ctypes.c_int), ("disabled_by", ctypes.c_char_p)]


class OxLimitationInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("arg", ctypes.c_char_p), ("when", ctypes.c_char_p),
                ("message", ctypes.c_char_p), ("lifted_at_opset", ctypes.c_int)]


def info(struct_type):
    """A zeroed introspection struct with its struct_size set."""
    x = struct_type()
    x.struct_size = ctypes.sizeof(struct_type)
    return x


# ox_message_fn: one line of a check
MESSAGE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class EngineError(Exception):
    """A liboxport call failed; carries the status and the engine's whole message."""

    def __init__(self, status, message, call=""):
        self.status = status
        self.status_name = STATUS_NAMES.get(status, str(status))
        self.message = message
        self.call = call
        super().__init__(message)


def _build_dir_candidates():
    env = os.environ.get("OXPORT_BUILDDIR")
    if env:
        yield env
    yield os.path.join(SOURCE_ROOT, "build")


def _is_build_dir(d):
    return os.path.isfile(os.path.join(d, "src", "liboxport.so"))


def _build_dir_of_lib(lib):
    """The build tree holding `lib` (…/src/liboxport.so), or None."""
    d = os.path.dirname(os.path.dirname(os.path.abspath(lib)))
    if os.path.isdir(os.path.join(d, "plugins")) and os.path.isdir(os.path.join(d, "src")):
        return d
    return None


def installed():
    """The generated _installed module of an installed package, or None in a checkout."""
    try:
        from . import _installed as inst
    except ImportError:
        return None
    return inst


def _installed_path(p):
    inst = installed()
    return p if inst is None or inst.LAYOUT != "wheel" else os.path.join(HERE, p)


def installed_env():
    """What a wheel's engine needs: its own packs and descriptors (a wheel's library was
    compiled for the build machine's temporary prefix)."""
    inst = installed()
    if inst is None or inst.LAYOUT != "wheel":
        return {}
    return {"OXPORT_BUILTIN_PLUGIN_PATH": _installed_path(inst.PLUGINDIR),
            "OXPORT_OPSET_DIR": _installed_path(inst.OPSETDIR)}


def find_library():
    """Return (path, build_dir or None) of the liboxport to load."""
    lib = os.environ.get("OXPORT_LIB")
    if lib:
        if not os.path.isfile(lib):
            raise OSError(f"OXPORT_LIB={lib}: no such file; point it at liboxport.so")
        return lib, _build_dir_of_lib(lib)
    env_build = os.environ.get("OXPORT_BUILDDIR")
    if env_build and _is_build_dir(env_build):
        return os.path.join(env_build, "src", "liboxport.so"), os.path.abspath(env_build)
    inst = installed()
    if inst is not None:
        p = _installed_path(inst.LIBRARY)
        if not os.path.isfile(p):
            raise OSError(f"oxport {inst.VERSION} was installed with the engine {p}, which is missing: "
                          f"reinstall oxport, or set OXPORT_LIB to a liboxport.so")
        return p, None
    for d in _build_dir_candidates():
        if _is_build_dir(d):
            return os.path.join(d, "src", "liboxport.so"), os.path.abspath(d)
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "oxport"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, check=False).stdout.strip()
    except OSError:
        libdir = ""
    if libdir:
        for name in ("liboxport.so", "liboxport.so.0"):
            p = os.path.join(libdir, name)
            if os.path.isfile(p):
                return p, None
    found = ctypes.util.find_library("oxport")
    if found:
        return found, None
    raise OSError("liboxport not found: set OXPORT_LIB to liboxport.so, or OXPORT_BUILDDIR to a "
                  "meson build directory (meson setup build && ninja -C build), or install oxport "
                  "so that pkg-config finds it")


def build_tree_env(build_dir):
    """Environment a build tree needs: its plugin packs and the source opset descriptors."""
    src = SOURCE_ROOT
    # The build tree records its source dir; prefer it over our own location.
    info = os.path.join(build_dir, "meson-info", "meson-info.json")
    if os.path.isfile(info):
        import json
        try:
            with open(info) as f:
                src = json.load(f)["directories"]["source"]
        except (OSError, ValueError, KeyError):
            pass
    # The tree's packs are the built-in ones: OXPORT_PLUGIN_PATH still adds in front.
    return {
        "OXPORT_BUILTIN_PLUGIN_PATH": os.pathsep.join([os.path.join(build_dir, "plugins", "aten"),
                                                       os.path.join(build_dir, "plugins", "nn_functions")]),
        "OXPORT_OPSET_DIR": os.path.join(src, "opset"),
    }


_lib = None
_lib_path = None


# ox_param_read_fn: (user, offset, dst, len) -> ox_status
PARAM_READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t)


def _declare(lib):
    P = ctypes.POINTER
    c = ctypes
    sigs = {
        "ox_version": (c.c_char_p, []),
        "ox_strerror": (c.c_char_p, [c.c_int]),
        "ox_context_new": (c.c_int, [c.c_uint, P(c.c_void_p)]),
        "ox_context_free": (None, [c.c_void_p]),
        "ox_errmsg": (c.c_char_p, [c.c_void_p]),
        "ox_context_add_plugin_path": (c.c_int, [c.c_void_p, c.c_char_p]),
        "ox_context_add_pack": (c.c_int, [c.c_void_p, c.c_void_p, c.c_char_p]),
        "ox_context_print_overrides": (c.c_int, [c.c_void_p, c.c_void_p, P(c.c_size_t)]),
        "ox_context_set_export_type": (c.c_int, [c.c_void_p, c.c_int]),
        "ox_context_set_domain_version": (c.c_int, [c.c_void_p, c.c_char_p, c.c_int]),
        "ox_context_notes": (c.c_char_p, [c.c_void_p]),
        "ox_context_warnings": (c.c_char_p, [c.c_void_p]),
        "ox_context_set_opset_dir": (c.c_int, [c.c_void_p, c.c_char_p]),
        "ox_context_load_config": (c.c_int, [c.c_void_p, c.c_char_p]),
        "ox_context_load": (c.c_int, [c.c_void_p]),
        "ox_context_target_opset": (c.c_int, [c.c_void_p]),
        "ox_graph_free": (None, [c.c_void_p]),
        "ox_graph_print": (c.c_int, [c.c_void_p, c.c_void_p]),
        "ox_graph_node_count": (c.c_size_t, [c.c_void_p]),
        "ox_graph_set_dim_param": (c.c_int, [c.c_void_p, ox_vid, c.c_uint32, c.c_char_p]),
        "ox_trace_begin": (c.c_int, [c.c_void_p, c.c_char_p, P(c.c_void_p)]),
        "ox_trace_abort": (None, [c.c_void_p]),
        "ox_trace_input": (c.c_int, [c.c_void_p, c.c_char_p, c.c_int, c.c_uint32, P(c.c_int64), P(ox_vid)]),
        "ox_trace_param": (c.c_int, [c.c_void_p, c.c_char_p, c.c_int, c.c_uint32, P(c.c_int64),
                                     c.c_void_p, c.c_int, P(ox_vid)]),
        "ox_trace_const": (c.c_int, [c.c_void_p, c.c_int, c.c_uint32, P(c.c_int64), c.c_void_p,
                                     c.c_int, P(ox_vid)]),
        "ox_trace_param_reader": (c.c_int, [c.c_void_p, c.c_char_p, c.c_int, c.c_uint32, P(c.c_int64),
                                            PARAM_READ_FN, c.c_void_p, P(ox_vid)]),
        "ox_trace_op": (c.c_int, [c.c_void_p, c.c_char_p, c.c_size_t, P(OxArg), c.c_size_t,
                                  P(OxTensorDesc), P(ox_vid)]),
        "ox_trace_push_scope": (c.c_int, [c.c_void_p, c.c_char_p]),
        "ox_trace_pop_scope": (c.c_int, [c.c_void_p]),
        "ox_trace_output": (c.c_int, [c.c_void_p, ox_vid, c.c_char_p]),
        "ox_trace_fixed_values": (c.c_int, [c.c_void_p, c.c_size_t, c.POINTER(ox_vid), c.c_char_p]),
        "ox_trace_finish": (c.c_int, [c.c_void_p, P(c.c_void_p)]),
        "ox_export_options_init": (None, [P(OxExportOptions)]),
        "ox_export": (c.c_int, [c.c_void_p, c.c_void_p, c.c_char_p, P(OxExportOptions)]),
        "ox_convert": (c.c_int, [c.c_void_p, c.c_void_p, c.c_int, P(c.c_void_p)]),
        "ox_arg_kind_name": (c.c_char_p, [c.c_int]),
        "ox_stream_from_fd": (c.c_void_p, [c.c_int]),
        "ox_stream_close": (c.c_int, [c.c_void_p]),
        "ox_context_pack_count": (c.c_int, [c.c_void_p, P(c.c_size_t)]),
        "ox_context_pack": (c.c_int, [c.c_void_p, c.c_size_t, P(OxPackInfo)]),
        "ox_context_op_count": (c.c_int, [c.c_void_p, P(c.c_size_t)]),
        "ox_context_op": (c.c_int, [c.c_void_p, c.c_size_t, P(OxOpInfo)]),
        "ox_context_op_param": (c.c_int, [c.c_void_p, c.c_size_t, c.c_size_t, P(OxParamInfo)]),
        "ox_context_opset_info": (c.c_int, [c.c_void_p, P(c.c_int), P(c.c_int), P(c.c_char_p)]),
        "ox_context_opset_op_count": (c.c_int, [c.c_void_p, c.c_int, P(c.c_size_t)]),
        "ox_context_opset_op": (c.c_int, [c.c_void_p, c.c_int, c.c_size_t, P(OxOpsetOpInfo)]),
        "ox_context_opset_param": (c.c_int, [c.c_void_p, c.c_int, c.c_size_t, c.c_size_t,
                                             P(OxParamInfo)]),
        "ox_context_opset_limitation": (c.c_int, [c.c_void_p, c.c_int, c.c_size_t, c.c_size_t,
                                                  P(OxLimitationInfo)]),
        "ox_pack_check_file": (c.c_int, [c.c_void_p, c.c_char_p, MESSAGE_FN, c.c_void_p,
                                         P(c.c_size_t)]),
        "ox_context_check_packs": (c.c_int, [c.c_void_p, MESSAGE_FN, c.c_void_p, P(c.c_size_t)]),
    }
    for name, (res, argt) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = argt


def lib():
    """Load liboxport once (and point a build tree's packs at it)."""
    global _lib, _lib_path
    if _lib is None:
        path, build_dir = find_library()
        for k, v in (build_tree_env(build_dir) if build_dir is not None else installed_env()).items():
            os.environ.setdefault(k, v)
        loaded = ctypes.CDLL(path, use_errno=True)
        _declare(loaded)
        _lib, _lib_path = loaded, path
    return _lib


def library_path():
    lib()
    return _lib_path


def version():
    return lib().ox_version().decode()


class Context:
    """An ox_context; raises EngineError with the context's message on failure."""

    def __init__(self, config=None, flags=0):
        L = lib()
        h = ctypes.c_void_p()
        st = L.ox_context_new(flags, ctypes.byref(h))
        if st != OX_OK:
            raise EngineError(st, f"ox_context_new failed: {L.ox_strerror(st).decode()}", "ox_context_new")
        self.h = h
        self.L = L
        self._kept = []  # in-process packs: their memory must outlive the context
        if config is not None:
            self.check(L.ox_context_load_config(h, os.fsencode(config)), "ox_context_load_config")

    def errmsg(self):
        return self.L.ox_errmsg(self.h).decode(errors="replace")

    def check(self, status, call):
        if status != OX_OK:
            raise EngineError(status, self.errmsg(), call)

    def load(self):
        self.check(self.L.ox_context_load(self.h), "ox_context_load")

    def keep(self, obj):
        """Keep `obj` alive until the context is closed (after ox_context_free)."""
        self._kept.append(obj)

    def target_opset(self):
        return self.L.ox_context_target_opset(self.h)

    def close(self):
        if self.h:
            self.L.ox_context_free(self.h)
            self.h = None
        self._kept = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class CFile:
    """A FILE* for the engine's printers, on an anonymous temporary file: made by the
    engine itself (ox_stream_from_fd), so no libc is reached through ctypes."""

    def __init__(self):
        self.L = lib()
        self.tmp = tempfile.TemporaryFile()
        self.fp = self.L.ox_stream_from_fd(self.tmp.fileno())
        if not self.fp:
            err = ctypes.get_errno()
            self.tmp.close()
            raise OSError(err, f"ox_stream_from_fd: {os.strerror(err)}")

    def read_and_close(self):
        self.L.ox_stream_close(self.fp)
        self.fp = None
        with self.tmp as f:
            f.seek(0)
            return f.read().decode(errors="replace")

    def close(self):
        if self.fp:
            self.L.ox_stream_close(self.fp)
            self.fp = None
        self.tmp.close()
