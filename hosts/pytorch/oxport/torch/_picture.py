"""Graph pictures from Python: the engine's ox_graph_picture on an ONNX file
(the same drawing as `oxport dump --format svg`)."""
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
