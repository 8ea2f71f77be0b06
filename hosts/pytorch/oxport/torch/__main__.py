"""python3 -m oxport.torch export MODEL -o FILE --input-shape 1,3,224,224 [options]
python3 -m oxport.torch plugins [--import MODULE ...] [--config oxport.yaml]

MODEL is `torchvision:<name>` (random weights) or `package.module:callable` (called
with no arguments, or with --model-kwargs JSON; it must return an nn.Module).
"""

import argparse
import importlib
import json
import sys
import time


def load_model(spec, kwargs):
    import torch

    if ":" not in spec:
        raise SystemExit(f"oxport.torch: model {spec!r}: expected torchvision:<name> or package.module:callable")
    mod_name, attr = spec.split(":", 1)
    if mod_name == "torchvision":
        import torchvision.models as tvm
        ctor = getattr(tvm, attr, None)
        if ctor is None or not callable(ctor):
            raise SystemExit(f"oxport.torch: torchvision.models has no model {attr!r}")
        kwargs = {"weights": None, **kwargs}
    else:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as e:
            raise SystemExit(f"oxport.torch: cannot import {mod_name}: {e}")
        ctor = mod
        for part in attr.split("."):
            ctor = getattr(ctor, part, None)
            if ctor is None:
                raise SystemExit(f"oxport.torch: {mod_name} has no attribute {attr!r}")
    model = ctor(**kwargs) if callable(ctor) and not isinstance(ctor, torch.nn.Module) else ctor
    if not isinstance(model, torch.nn.Module):
        raise SystemExit(f"oxport.torch: {spec} gave a {type(model).__name__}, not a torch.nn.Module")
    return model.eval()


def parse_shape(text):
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated sizes such as 1,3,224,224")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m oxport.torch", description="Export a PyTorch model with oxport")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export a model to ONNX")
    e.add_argument("model", help="torchvision:<name> or package.module:callable")
    e.add_argument("-o", "--output", required=True, help="ONNX file to write")
    e.add_argument("--input-shape", type=parse_shape, action="append", required=True,
                   help="sizes of one float32 input (repeat for several inputs)")
    e.add_argument("--input-dtype", default="float32", help="dtype of the inputs (float32, int64 ...)")
    e.add_argument("--model-kwargs", default="{}", help="JSON keyword arguments for the model constructor")
    e.add_argument("--opset", type=int, default=None, help="target opset (default: the oxport config's)")
    e.add_argument("--dynamic-batch", action="store_true", help="make axis 0 of inputs and outputs symbolic")
    e.add_argument("--verify", action="store_true", help="run the file in ONNX Runtime and compare with eager")
    e.add_argument("--verbose", action="store_true", help="print the exported graph")
    e.add_argument("--config", help="oxport.yaml to load")
    e.add_argument("--seed", type=int, default=0, help="random seed for weights and inputs")
    p = sub.add_parser("plugins", help="list Python symbolics and the operators whose symbolic is overridden")
    p.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                   help="import MODULE first (one that calls register_custom_op_symbolic)")
    p.add_argument("--config", help="oxport.yaml to load")
    args = ap.parse_args(argv)
    if args.cmd == "plugins":
        return plugins(args)

    import torch

    import oxport.torch as oxt

    torch.manual_seed(args.seed)
    try:
        kwargs = json.loads(args.model_kwargs)
    except ValueError as exc:
        raise SystemExit(f"oxport.torch: --model-kwargs: {exc}")
    model = load_model(args.model, kwargs)
    dtype = getattr(torch, args.input_dtype, None)
    if not isinstance(dtype, torch.dtype):
        raise SystemExit(f"oxport.torch: --input-dtype {args.input_dtype!r} is not a torch dtype")
    inputs = tuple(torch.randn(s).to(dtype) if dtype.is_floating_point else torch.zeros(s, dtype=dtype)
                   for s in args.input_shape)
    with torch.no_grad():
        n_out = len(oxt._recorder.tensors_in(model(*inputs)))
    in_names = [f"input_{i}" for i in range(len(inputs))]
    out_names = [f"output_{i}" for i in range(n_out)]
    dyn = {n: {0: "batch"} for n in in_names + out_names} if args.dynamic_batch else None
    t0 = time.perf_counter()
    try:
        oxt.export(model, inputs, args.output, verbose=args.verbose, input_names=in_names, output_names=out_names,
                   opset_version=args.opset, dynamic_axes=dyn, config=args.config)
    except oxt.ExportError as exc:
        print(f"oxport.torch: export failed ({exc.status}):\n{exc.report}", file=sys.stderr)
        return 1
    print(f"{args.output}: exported in {time.perf_counter() - t0:.2f} s")
    if args.verify:
        res = oxt.verify(model, inputs, args.output)
        print(res)
        if not res.ok:
            print(f"oxport.torch: {args.output} differs from eager beyond rtol=1e-3 atol=1e-5", file=sys.stderr)
            return 1
    return 0


def plugins(args):
    import oxport.torch as oxt
    from oxport.torch import _custom_ops

    for name in args.imports:
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise SystemExit(f"oxport.torch: cannot import {name}: {e}")
    regs = _custom_ops.registered()
    print(f"register_custom_op_symbolic: {len(regs)} operator(s)")
    for name, versions in sorted(regs.items()):
        for opset, fn in sorted(versions.items()):
            print(f"  {name:32s} since {opset}: {_custom_ops._label(fn)}")
    try:
        lines = oxt.overrides(config=args.config)
    except oxt.ExportError as e:
        print(f"oxport.torch: {e.report}", file=sys.stderr)
        return 1
    print(f"overrides: {len(lines)}")
    for line in lines:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
