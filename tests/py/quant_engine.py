"""An exact quantized kernel library for eager, where a test's reference needs one.

torch 1.13 picks its quantized engine from the CPU: fbgemm where it can, otherwise onednn
(an AMD EPYC with AVX2 here has no fbgemm).  onednn's quantized conv is not the exact
integer arithmetic on every input: on `test_quantized.py`'s conv whose input scale the file
computes it is 11 output steps off (0.336 against a step of 0.0305), where fbgemm and
qnnpack give the exact result (0 off).  The other quantized tests match onednn and fbgemm
alike, and qnnpack lacks some of what they use (3-D conv, fbgemm's dynamic Linear), so only
such a test runs eager under `exact_engine()`.
"""

import contextlib

import torch

EXACT_ENGINES = ("fbgemm", "qnnpack")


@contextlib.contextmanager
def exact_engine():
    """torch.backends.quantized.engine is fbgemm, else qnnpack, inside the block (the
    machine's default when neither is built in)."""
    saved = torch.backends.quantized.engine
    for name in EXACT_ENGINES:
        if name in torch.backends.quantized.supported_engines:
            torch.backends.quantized.engine = name
            break
    try:
        yield torch.backends.quantized.engine
    finally:
        torch.backends.quantized.engine = saved
