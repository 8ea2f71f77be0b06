"""Graph pictures and export reports from Python: the engine's ox_graph_picture on
an ONNX file (the same drawing as `oxport dump --format svg`) and ox_export_report
(the same page or document as `oxport export --report`)."""
import ctypes
import os

from .. import _engine

_declared = False


def _lib():
    global _declared
    L = _engine.lib()
    if not _declared:
        P = ctypes.POINTER
        L.ox_read.restype = ctypes.c_int
        L.ox_read.argtypes = [ctypes.c_void_p, ctypes.c_char_p, P(ctypes.c_void_p)]
        L.ox_graph_picture.restype = ctypes.c_int
        L.ox_graph_picture.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        L.ox_export_report.restype = ctypes.c_int
        L.ox_export_report.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                       ctypes.c_int, P(ctypes.c_char_p), P(ctypes.c_double),
                                       ctypes.c_size_t, ctypes.c_char_p]
        _declared = True
    return L


def draw(onnx_path, picture, format=None, scope=None, depth=None):
    """Draw the ONNX file `onnx_path` to `picture`: "dot", "svg" or "png" (None: from
    the picture's extension; svg and png need Graphviz's `dot`).  `scope` draws only
    that module (a node scope such as "Net/Sequential[features]"); modules more than
    `depth` levels below it become one box each.  Raises _engine.EngineError with
    the engine's message on failure; nothing is left at `picture` then."""
    L = _lib()
    # A picture needs no packs or opset descriptors.
    with _engine.Context(flags=0x1 | 0x2) as ctx:
        g = ctypes.c_void_p()
        ctx.check(L.ox_read(ctx.h, os.fsencode(onnx_path), ctypes.byref(g)), "ox_read")
        try:
            enc = (lambda s: None if s is None else os.fsencode(s))
            ctx.check(L.ox_graph_picture(ctx.h, g, os.fsencode(picture), enc(format), enc(scope),
                                         -1 if depth is None else int(depth)), "ox_graph_picture")
        finally:
            L.ox_graph_free(g)


def report(ctx, graph, target, opset, status, stages, path):
    """Write the export report (FILE.json or FILE.html) for the ox_export just done on
    `ctx` with result `status`; `stages` is [(name, seconds)].  Raises
    _engine.EngineError on failure."""
    L = _lib()
    names = (ctypes.c_char_p * max(1, len(stages)))(*[n.encode() for n, _ in stages])
    secs = (ctypes.c_double * max(1, len(stages)))(*[float(t) for _, t in stages])
    ctx.check(L.ox_export_report(ctx.h, graph, os.fsencode(target), int(opset), int(status), names, secs,
                                 len(stages), os.fsencode(path)), "ox_export_report")
