#!/usr/bin/python3
"""Every torchvision classification, segmentation and video model builder through
oxport.torch at opsets 13 and 17, compared with eager on two inputs (issue 10).

    /usr/bin/python3 tests/pytorch/test_tv_every.py [NAME_FILTER ...] [-- unittest args]
    OXPORT_SLOW=1 /usr/bin/python3 tests/pytorch/test_tv_every.py [NAME_FILTER ...]

The builders are enumerated at run time (torchvision.models.list_models for the modules
torchvision.models, .segmentation and .video; the public lowercase callables of those
modules when list_models is absent), so a variant that a new torchvision adds is never
silently left out.  NAME_FILTER arguments are fnmatch patterns ("regnet_*"); a builder
runs when it matches one of them (all when none is given).

Without OXPORT_SLOW=1 only the cheap builders that no other model test exports run: not a
label of test_models.MODELS, test_zoo_extra.GROUPS or test_zoo_arch.GROUPS, and at most
DEFAULT_MAX_PARAMS parameters.  With OXPORT_SLOW=1 every builder runs.

Each builder: weights=None (and weights_backbone=None where the builder takes it), the
degenerate parts of the random init re-drawn and BatchNorm calibrated (test_zoo_extra's
redraw_degenerate, test_models' calibrate_bn), exported at 13 and 17 and compared on two
inputs with tests/py/modelcheck.py's rule (test_models.ModelCase.export_check_run).

Input size: the first of IMAGE_SIZES (VIDEO_SIZES for video builders) at which the model
runs in eager and every adaptive pooling module's input is a multiple of its output (ONNX
has no adaptive pooling: sizes that tile are a pooling kernel, others one reduction per
bin, docs/pytorch.md).  Builders
that take the size as an argument (ViT's image_size, MViT's spatial_size/temporal_size)
are built for that size; the others are probed with inputs of that size.

Builders with more than MAX_PARAMS parameters are skipped with the reason printed (the
unittest summary counts them): the weights are held by eager, by the exported file, by
ONNX Runtime's session and, when an output is outside the scale bound, by torch.onnx's file
too — at 4 bytes each, MAX_PARAMS = 400M is ~10 GB, under half of this 24 GiB machine that
other jobs share.  The count is the builder's weights metadata (torchvision records
num_params for every builder), so the too-big ones are never built; a builder without it is
built and counted.  OXPORT_TV_MAX_PARAMS overrides the threshold.
"""

import fnmatch
import inspect
import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision.models as tvm  # noqa: E402
import torchvision.models.segmentation as tvseg  # noqa: E402
import torchvision.models.video as tvvideo  # noqa: E402

import test_models  # noqa: E402
import test_zoo_arch  # noqa: E402
import test_zoo_extra  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from test_models import arrays, calibrate_bn, randn_inputs  # noqa: E402
from test_zoo_extra import redraw_degenerate  # noqa: E402

SLOW = os.environ.get("OXPORT_SLOW") == "1"
OPSETS = (13, 17)
MAX_PARAMS = int(float(os.environ.get("OXPORT_TV_MAX_PARAMS", "400e6")))
DEFAULT_MAX_PARAMS = 8_000_000
# ascending: the smallest the architecture takes is used
IMAGE_SIZES = (64, 75, 128, 224)
VIDEO_SIZES = ((4, 32), (8, 64), (16, 224))   # (frames, height = width)
MODULES = (tvm, tvseg, tvvideo)


def builders():
    """[(name, builder, is_video)] for every model builder of MODULES, found at run time."""
    found = []
    for module in MODULES:
        if hasattr(tvm, "list_models"):
            names = tvm.list_models(module=module)
        else:
            names = [n for n in dir(module) if n[:1].islower() and callable(getattr(module, n))
                     and not inspect.ismodule(getattr(module, n)) and not n.startswith("get_")
                     and n != "list_models"]
        found += [(n, getattr(module, n), module is tvvideo) for n in sorted(names)]
    return found


def covered_elsewhere():
    """Labels that the other model tests already export."""
    labels = {label for cases in test_models.MODELS.values() for label, *_ in cases}
    for groups in (test_zoo_extra.GROUPS, test_zoo_arch.GROUPS):
        labels |= {label for cases in groups.values() for label, *_ in cases}
    return labels


def param_count(name, builder):
    """The builder's parameter count: from its weights' metadata, else by building it."""
    try:
        weights = tvm.get_model_weights(builder)
        n = next(iter(weights)).meta.get("num_params")
        if n:
            return int(n)
    except (AttributeError, ValueError, KeyError, StopIteration):
        pass
    return sum(p.numel() for p in builder(**base_kwargs(builder)).parameters())


def base_kwargs(builder):
    kw = {"weights": None}
    if "weights_backbone" in inspect.signature(builder).parameters:
        kw["weights_backbone"] = None
    return kw


class Outputs(nn.Module):
    """A model whose output is a dict (segmentation's 'out'/'aux') as a tuple of its values."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model(x)
        return tuple(out.values()) if isinstance(out, dict) else out


def _pools_tile(model, x):
    """Run model(x) in eager; True when it runs and every adaptive pooling input is a
    multiple of its output in each spatial dimension."""
    bad = []

    def hook(mod, inp, out):
        for i, o in zip(inp[0].shape[2:], out.shape[2:]):
            if o and i % o:
                bad.append(mod)
    kinds = (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d,
             nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d)
    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, kinds)]
    try:
        with torch.no_grad():
            model.eval()(x)
    except Exception:  # noqa: BLE001 - any failure means "not at this size"
        return False
    finally:
        for h in handles:
            h.remove()
    return not bad


def _size_kwargs(builder, shape, video):
    """Builder arguments that set the input size, for the builders that take them."""
    if video:
        return {"spatial_size": (shape[3], shape[4]), "temporal_size": shape[2]}
    return {"image_size": shape[2]}


def build_for_smallest_input(name, builder, video):
    """(model, input shape) at the first size of IMAGE_SIZES / VIDEO_SIZES that works."""
    kw = base_kwargs(builder)
    shapes = [(1, 3, f, s, s) for f, s in VIDEO_SIZES] if video else [(1, 3, s, s) for s in IMAGE_SIZES]
    takes_size = None   # unknown until tried
    plain = None
    for shape in shapes:
        x = torch.randn((2,) + shape[1:])
        if takes_size is not False:
            torch.manual_seed(0)
            try:
                model = builder(**kw, **_size_kwargs(builder, shape, video))
                takes_size = True
            except TypeError:
                takes_size = False
            except Exception:  # noqa: BLE001 - e.g. ViT's size not a multiple of its patch
                takes_size = True
                continue
            if takes_size and _pools_tile(model, x):
                return model, shape
        if takes_size is False:
            if plain is None:
                torch.manual_seed(0)
                plain = builder(**kw)
            if _pools_tile(plain, x):
                return plain, shape
    raise AssertionError(f"{name}: no input size of {VIDEO_SIZES if video else IMAGE_SIZES} runs in eager "
                            "with adaptive pooling that tiles")


def factory(name, builder, video):
    def make():
        model, shape = build_for_smallest_input(name, builder, video)
        print(f"{name}: input {list(shape)}")
        model = Outputs(redraw_degenerate(model))
        return calibrate_bn(model, shape), randn_inputs(shape)
    return make


class EveryCase(test_models.ModelCase):
    tmp_prefix = "oxport-tv-every-"
    too_big = None
    test_dynamic_shapes = None   # static shapes here: not a test of this case

    def setUp(self):
        if self.too_big:
            print(self.too_big)
            self.skipTest(self.too_big)
        super().setUp()

    def test_fake_trace_writes_the_eager_file(self):
        """trace='fake' (no kernel computes) writes the eager trace's bytes, with a dynamic
        batch (issue 15); Swin's mask writes differed before numbers written into slices
        were recorded as in eager."""
        files = []
        names = [f"in{i}" for i in range(len(arrays(self.args)))]
        for mode in ("eager", "fake"):
            path = os.path.join(self.tmp.name, f"{self.label}_{mode}.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", oxt.TracerWarning)
                oxt.export(self.model, self.args, path, opset_version=17, input_names=names,
                           dynamic_axes={n: {0: "batch"} for n in names}, trace=mode)
            with open(path, "rb") as f:
                files.append(f.read())
            os.unlink(path)
        self.assertTrue(files[0] == files[1], f"{self.label}: trace='fake' wrote another file "
                                              f"({len(files[1])} vs {len(files[0])} bytes)")


def make_suite(patterns):
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    covered = covered_elsewhere()
    chosen = [(param_count(name, builder), name, builder, video) for name, builder, video in builders()
              if not patterns or any(fnmatch.fnmatch(name, p) for p in patterns)]
    # smallest first, so that a run cut short has covered the most builders
    for n, name, builder, video in sorted(chosen, key=lambda c: (c[0], c[1])):
        if not SLOW and (name in covered or n > DEFAULT_MAX_PARAMS):
            continue
        attrs = {"label": name, "factory": staticmethod(factory(name, builder, video)),
                 "too_big": (f"{name}: skipped, {n / 1e6:.0f}M parameters > {MAX_PARAMS / 1e6:.0f}M "
                             f"(MAX_PARAMS)") if n > MAX_PARAMS else None}
        for opset in OPSETS:
            attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        suite.addTests(loader.loadTestsFromTestCase(type(f"Test_{name}", (EveryCase,), attrs)))
    return suite


def main(argv):
    patterns = argv[:argv.index("--")] if "--" in argv else argv
    torch.set_num_threads(1)
    suite = make_suite(patterns)
    print(f"{suite.countTestCases()} tests ({'OXPORT_SLOW=1: every builder' if SLOW else 'default: cheap builders no other test exports'})")
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = sorted({t.id().split(".")[-2][len("Test_"):] for t, _ in result.failures + result.errors})
    skipped = sorted({t.id().split(".")[-2][len("Test_"):] for t, _ in result.skipped})
    print(f"summary: {result.testsRun - len(result.failures) - len(result.errors) - len(result.skipped)} passed, "
          f"{len(result.failures) + len(result.errors)} failed ({', '.join(failed) or 'none'}), "
          f"{len(result.skipped)} skipped ({', '.join(skipped) or 'none'})")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
