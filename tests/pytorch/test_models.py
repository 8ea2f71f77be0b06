#!/usr/bin/python3
"""Model tests for oxport.torch: export at opsets 9, 13 and 17, then
onnx.checker (full_check) and ONNX Runtime against PyTorch's eager outputs.

    /usr/bin/python3 tests/pytorch/test_models.py MODEL [unittest args]

MODEL is one of the names in MODELS.  Random weights (fixed seed), batch 1, the
smallest input the architecture allows; BatchNorm running statistics are calibrated on
a separate random batch (see calibrate_bn).

Every export is compared on the example input (seed 0) and on a second input of the same
shapes (seed 1); models declared dynamic are also exported with a dynamic batch traced at
2 and run at batches 1, 3 and 5 (and other spatial sizes where the model takes them).
References must be non-trivial and the tolerance is the output's scale or torch.onnx's own
error on the same model: the rule is tests/py/modelcheck.py's docstring.
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision.models as tvm  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
from oxport.models import dcgan, super_resolution, word_language_model as wlm  # noqa: E402

OPSETS = (9, 13, 17)
SEEDS = (0, 1)           # the example input, then a second input of the same shapes
DYNAMIC_TRACE_BATCH = 2
DYNAMIC_BATCHES = (1, 3, 5)


def calibrate_bn(model, shape):
    """Give BatchNorm layers the statistics of real activations (one training-mode
    forward on random data, cumulative average), as a trained network has: the
    exported file must use them, and activations stay in a sane range through deep
    random-weight networks."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        model(torch.randn((4,) + tuple(shape[1:])))
    return model.eval()


def randn_inputs(*shapes):
    """Input maker for float inputs: make(seed) -> args, each randn(shape) drawn from seed."""
    def make(seed):
        g = torch.Generator().manual_seed(seed)
        return tuple(torch.randn(shape, generator=g) for shape in shapes)
    return make


def tv(name, size, **kw):
    def make():
        shape = (1, 3, size, size)
        return calibrate_bn(getattr(tvm, name)(weights=None, **kw), shape), randn_inputs(shape)
    return make


def wlm_case(rnn_type):
    def make():
        m = wlm.RNNModel(rnn_type, ntoken=50, ninp=16, nhid=16, nlayers=2)
        h = m.init_hidden(2)

        def inputs(seed):
            g = torch.Generator().manual_seed(seed)
            tokens = torch.randint(0, 50, (6, 2), generator=g)
            if isinstance(h, tuple):
                return tokens, tuple(torch.randn(x.shape, generator=g) * 0.5 for x in h)
            return tokens, torch.randn(h.shape, generator=g) * 0.5
        return m, inputs
    return make


# Dynamic-shape runs: (dynamic axes of in0, of out0, input shapes to run at).  The export
# is traced at DYNAMIC_TRACE_BATCH with the example's other sizes.
def dyn_batch(*rest):
    return ({0: "batch"}, {0: "batch"}, [(b,) + rest for b in DYNAMIC_BATCHES])


# Super-resolution is fully convolutional: height and width are dynamic too (traced 64x64).
SUPER_RES_DYN = ({0: "batch", 2: "height", 3: "width"}, {0: "batch", 2: "out_height", 3: "out_width"},
                 [(1, 1, 64, 64), (3, 1, 40, 48), (5, 1, 72, 96)])

# name -> list of (case label, factory, dynamic runs or None); a factory returns the model
# and its input maker (seed -> args).
MODELS = {
    "alexnet": [("alexnet", tv("alexnet", 224), dyn_batch(3, 224, 224))],
    "dcgan": [("generator", lambda: (calibrate_bn(dcgan.Generator(), (1, 100, 1, 1)), randn_inputs((1, 100, 1, 1))),
               None),
              ("discriminator", lambda: (calibrate_bn(dcgan.Discriminator(), (1, 3, 64, 64)),
                                         randn_inputs((1, 3, 64, 64))), dyn_batch(3, 64, 64))],
    "densenet121": [("densenet121", tv("densenet121", 64), None)],
    "inception_v3": [("inception_v3", tv("inception_v3", 75, aux_logits=False, transform_input=False), None)],
    "resnet50": [("resnet50", tv("resnet50", 64), dyn_batch(3, 64, 64))],
    "super_resolution": [("super_resolution", lambda: (super_resolution.SuperResolutionNet(3),
                                                       randn_inputs((1, 1, 64, 64))), SUPER_RES_DYN)],
    "vgg16": [("vgg16", tv("vgg16", 224), None)],
    "vgg16_bn": [("vgg16_bn", tv("vgg16_bn", 224), None)],
    "word_language_model": [(f"wlm_{t.lower()}", wlm_case(t), None) for t in wlm.RNN_TYPES],
}


def eager(model, args):
    with torch.no_grad():
        out = model(*args)
    return [t.numpy() for t in oxt._recorder.tensors_in(out)]


def arrays(args):
    return [t.numpy() for t in oxt._recorder.tensors_in(args)]


class ModelCase(unittest.TestCase):
    label = None
    factory = None
    tmp_prefix = "oxport-torch-"
    dynamic = None          # (in0 axes, out0 axes, shapes to run at) or None
    constant_outputs = ()   # outputs that do not depend on the input by construction

    def setUp(self):
        torch.manual_seed(0)
        self.model, self.inputs = type(self).factory()
        self.model.eval()
        self.args = self.inputs(SEEDS[0])
        self.tmp = tempfile.TemporaryDirectory(prefix=self.tmp_prefix)

    def tearDown(self):
        self.tmp.cleanup()

    def export_check_run(self, opset):
        path = os.path.join(self.tmp.name, f"{self.label}_{opset}.onnx")
        names = [f"in{i}" for i in range(len(arrays(self.args)))]
        oxt.export(self.model, self.args, path, opset_version=opset, input_names=names)
        onnxval.check(path)
        arg_sets = [self.args] + [self.inputs(seed) for seed in SEEDS[1:]]
        wants = [eager(self.model, a) for a in arg_sets]
        modelcheck.assert_nontrivial(self.label, wants, self.constant_outputs)
        modelcheck.assert_matches(f"{self.label} opset {opset}", path,
                                  [dict(zip(names, arrays(a))) for a in arg_sets], wants,
                                  modelcheck.torch_onnx_reference(self.model, self.args, opset, names))
        os.unlink(path)

    def test_dynamic_shapes(self):
        if not self.dynamic:
            self.skipTest("static shapes only for this model")
        in_axes, out_axes, shapes = self.dynamic
        path = os.path.join(self.tmp.name, f"{self.label}_dyn.onnx")
        (example,) = self.args
        trace = torch.randn((DYNAMIC_TRACE_BATCH,) + tuple(example.shape[1:]),
                            generator=torch.Generator().manual_seed(SEEDS[0]))
        axes = {"in0": in_axes, "out0": out_axes}
        oxt.export(self.model, (trace,), path, opset_version=13, input_names=["in0"], output_names=["out0"],
                   dynamic_axes=axes)
        onnxval.check(path)
        m = onnx.load(path, load_external_data=False)
        for value, want in ((m.graph.input[0], in_axes), (m.graph.output[0], out_axes)):
            dims = value.type.tensor_type.shape.dim
            self.assertEqual({a: dims[a].dim_param for a in want}, want)
        g = torch.Generator().manual_seed(SEEDS[1])
        xs = [torch.randn(shape, generator=g) for shape in shapes]
        wants = [eager(self.model, (x,))[:1] for x in xs]
        modelcheck.assert_nontrivial(f"{self.label} dynamic", wants)
        for x, w in zip(xs, wants):
            print(f"{self.label}: dynamic run at input shape {list(x.shape)}, output {list(w[0].shape)}")
        modelcheck.assert_matches(f"{self.label} dynamic", path, [{"in0": x.numpy()} for x in xs], wants,
                                  modelcheck.torch_onnx_reference(self.model, (trace,), 13, ["in0"], ["out0"], axes))


def make_suite(name):
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for label, factory, dynamic in MODELS[name]:
        attrs = {"label": label, "factory": staticmethod(factory), "dynamic": dynamic}
        for opset in OPSETS:
            attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        cls = type(f"Test_{label}", (ModelCase,), attrs)
        suite.addTests(loader.loadTestsFromTestCase(cls))
    return suite


def run_main(table, suite_for, what):
    """Run the suite for the table entry named by argv[1] (one meson test each)."""
    if len(sys.argv) < 2 or sys.argv[1] not in table:
        print(f"usage: {sys.argv[0]} {what}   (one of {', '.join(table)})", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    result = unittest.TextTestRunner(verbosity=2).run(suite_for(sys.argv[1]))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(run_main(MODELS, make_suite, "MODEL"))
