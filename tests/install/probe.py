"""Run by an installed oxport's python, from a directory with no checkout around and no
OXPORT_*/PYTHONPATH/LD_LIBRARY_PATH: export, verify in ONNX Runtime, a Python symbolic."""

import os
import sys

# before importing oxport: a wheel's package sets the engine's variables itself
ALLOWED = {"PYTHONPATH"} if "--pythonpath-is-the-prefix" in sys.argv else set()
for var in ("PYTHONPATH", "LD_LIBRARY_PATH", "OXPORT_PLUGIN_PATH", "OXPORT_BUILTIN_PLUGIN_PATH",
            "OXPORT_OPSET_DIR", "OXPORT_LIB", "OXPORT_BUILDDIR"):
    if os.environ.get(var) and var not in ALLOWED:
        raise SystemExit(f"probe: {var} is set; the installed package must not need it")

import torch  # noqa: E402

import oxport._engine as engine  # noqa: E402
import oxport.torch as oxt  # noqa: E402


class MyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(min=0)

    @staticmethod
    def symbolic(g, x):
        return g.op("Relu", x)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return MyRelu.apply(self.conv(x)).flatten(1)


def main():
    expect_prefix = sys.argv[1]
    lib = os.path.realpath(engine.library_path())
    if not lib.startswith(os.path.realpath(expect_prefix)):
        raise SystemExit(f"probe: liboxport {lib} is not the installed one under {expect_prefix}")
    torch.manual_seed(0)
    model = Net().eval()
    x = torch.randn(2, 3, 8, 8)
    oxt.export(model, x, "net.onnx", opset_version=13)
    res = oxt.verify(model, x, "net.onnx")
    if not res.ok:
        raise SystemExit(f"probe: ONNX Runtime differs from eager:\n{res}")
    print(f"probe: ok ({lib}; {res})")


if __name__ == "__main__":
    main()
