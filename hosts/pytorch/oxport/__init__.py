"""oxport: trace-based ONNX exporter (Python side).

`oxport.torch` is the PyTorch host: a drop-in for `torch.onnx.export` that records the
model through liboxport's tracer API and lets the engine convert and write the file.
"""

__version__ = "0.1.0"
