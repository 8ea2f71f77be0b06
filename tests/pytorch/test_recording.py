#!/usr/bin/python3
"""The recording layer of oxport.torch on its own: which kinds, argument names, scopes,
values and parameters a forward pass produces.  Runs against a Python stand-in for the
trace API (fake_engine.py), so it needs no liboxport."""

import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "hosts", "pytorch"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402

from fake_engine import FakeContext  # noqa: E402
from oxport import _engine as E  # noqa: E402
from oxport.models import dcgan, word_language_model as wlm  # noqa: E402
from oxport.torch import TracerWarning, _recorder  # noqa: E402


def trace(model, *args):
    ctx = FakeContext()
    if isinstance(model, nn.Module):
        model.eval()
    with torch.no_grad():
        rec, _g, outs = _recorder.trace(ctx, model, args, {})
    return ctx.L, rec, outs


class ConstantPadNd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, pad, value=0.0):
        return F.pad(input, pad, value=value)


class Recording(unittest.TestCase):
    def test_alexnet_kinds_scopes_and_argument_names(self):
        L, _rec, _ = trace(torchvision.models.alexnet(weights=None), torch.randn(1, 3, 224, 224))
        kinds = [n.kind for n in L.nodes]
        self.assertEqual(kinds, ["aten::conv2d", "aten::relu_", "aten::max_pool2d"] * 2
                         + ["aten::conv2d", "aten::relu_"] * 3 + ["aten::max_pool2d", "aten::adaptive_avg_pool2d",
                                                                  "aten::flatten"]
                         + ["aten::dropout", "aten::linear", "aten::relu_"] * 2 + ["aten::linear"])
        conv = L.nodes[0]
        self.assertEqual(conv.scope, "AlexNet/Sequential[features]/Conv2d[0]")
        self.assertEqual(conv.arg_names(), ["input", "weight", "bias", "stride", "padding", "dilation", "groups"])
        self.assertEqual(conv.arg("stride"), [4, 4])
        self.assertEqual(conv.arg("padding"), [2, 2])
        pool = L.nodes[2]
        self.assertEqual(pool.arg("stride"), [2, 2])
        self.assertEqual(L.nodes[14].scope, "AlexNet")  # torch.flatten in AlexNet.forward
        self.assertEqual(L.nodes[15].arg_names(), ["input", "p", "train"])
        self.assertEqual(L.nodes[15].arg("train"), 0)
        # Parameters are declared with their state_dict names, in order of use.
        self.assertEqual([p[0] for p in L.params.values()][:4],
                         ["features.0.weight", "features.0.bias", "features.3.weight", "features.3.bias"])
        self.assertEqual(len(L.params), 16)
        self.assertEqual(L.consts, {})
        self.assertEqual(L.outputs, [L.nodes[-1].outs[0]])

    def test_weights_are_borrowed_not_copied(self):
        m = nn.Linear(4, 3)
        L, _rec, _ = trace(m, torch.randn(2, 4))
        ptrs = {name: ptr for name, _shape, ptr in L.params.values()}
        self.assertEqual(ptrs["weight"], m.weight.data_ptr())
        self.assertEqual(ptrs["bias"], m.bias.data_ptr())

    def test_inplace_op_gives_the_mutated_tensor_a_new_value(self):
        class M(nn.Module):
            def forward(self, x):
                y = x * 2
                y.add_(1)
                return torch.relu(y)

        L, _rec, _ = trace(M(), torch.randn(3))
        self.assertEqual([n.kind for n in L.nodes], ["aten::mul", "aten::add_", "aten::relu"])
        mul, add, relu = L.nodes
        self.assertEqual(mul.arg("other"), 2)
        self.assertEqual(add.arg("self"), mul.outs[0])
        self.assertEqual(relu.arg("self"), add.outs[0])

    def test_inplace_on_a_detached_alias_gives_the_original_its_new_value(self):
        # F.embedding(max_norm=) renorms weight.detach() in place, then reads weight
        def f(x):
            y = x * 2
            y.detach().add_(1)
            y.data.mul_(3)
            return torch.relu(y)

        L, _rec, _ = trace(f, torch.randn(3))
        self.assertEqual([n.kind for n in L.nodes], ["aten::mul", "aten::add_", "aten::mul_", "aten::relu"])
        _mul, add, mul_, relu = L.nodes
        self.assertEqual(mul_.arg("self"), add.outs[0])
        self.assertEqual(relu.arg("self"), mul_.outs[0])

    def test_inplace_on_a_clone_leaves_the_original(self):
        def f(x):
            y = x * 2
            y.clone().add_(1)
            return torch.relu(y)

        L, _rec, _ = trace(f, torch.randn(3))
        relu = L.nodes[-1]
        self.assertEqual(relu.kind, "aten::relu")
        self.assertEqual(relu.arg("self"), L.nodes[0].outs[0])

    def test_batch_norm_is_recorded_in_schema_order(self):
        L, _rec, _ = trace(nn.BatchNorm2d(3), torch.randn(1, 3, 4, 4))
        (bn,) = L.nodes
        self.assertEqual(bn.arg_names(), ["input", "weight", "bias", "running_mean", "running_var", "training",
                                          "momentum", "eps", "cudnn_enabled"])
        names = {v: p[0] for v, p in L.params.items()}
        self.assertEqual(names[bn.arg("running_mean")], "running_mean")
        self.assertEqual(names[bn.arg("weight")], "weight")
        self.assertEqual(bn.arg("training"), 0)

    def test_lstm_records_one_node_with_three_outputs(self):
        m = wlm.RNNModel("LSTM", 20)
        L, _rec, _ = trace(m, torch.randint(0, 20, (5, 2)), m.init_hidden(2))
        # nn.LSTM's forward reads sizes (traced as aten::size) to check its arguments, and
        # compares its state's with the input's (aten::eq on them: the engine tells whether
        # that comparison can come out otherwise on another run).
        nodes = [n for n in L.nodes if n.kind not in ("aten::size", "aten::eq")]
        self.assertTrue(any(n.kind == "aten::size" for n in L.nodes))
        self.assertTrue(any(n.kind == "aten::eq" for n in L.nodes))
        kinds = [n.kind for n in nodes]
        self.assertEqual(kinds, ["aten::embedding", "aten::dropout", "aten::lstm", "aten::dropout", "aten::linear",
                                 "aten::view", "aten::log_softmax"])
        lstm = nodes[2]
        self.assertEqual(lstm.scope, "RNNModel/LSTM[rnn]")
        self.assertEqual(lstm.arg_names(), ["input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
                                            "bidirectional", "batch_first"])
        self.assertEqual(lstm.arg("hx"), L.inputs[1:3])
        self.assertEqual(len(lstm.arg("params")), 8)
        self.assertEqual(len(lstm.outs), 3)
        self.assertEqual(L.nodes[0].arg_names(), ["weight", "indices", "padding_idx", "scale_grad_by_freq", "sparse"])
        # Outputs: log-probabilities, then h_n and c_n.
        self.assertEqual(L.outputs, [nodes[-1].outs[0], lstm.outs[1], lstm.outs[2]])

    def test_dcgan_discriminator_view_squeeze(self):
        L, _rec, _ = trace(dcgan.Discriminator(), torch.randn(1, 3, 64, 64))
        self.assertEqual([n.kind for n in L.nodes[-3:]], ["aten::sigmoid", "aten::view", "aten::squeeze"])
        self.assertEqual(L.nodes[-2].arg("size"), [-1, 1])
        self.assertEqual(L.nodes[-1].arg("dim"), 1)
        self.assertEqual(L.nodes[1].kind, "aten::leaky_relu_")
        self.assertEqual(L.nodes[1].arg("negative_slope"), 0.2)

    def test_indexing_is_select_and_slice(self):
        L, _rec, _ = trace(lambda x: x[0, 1:3, ..., ::2], torch.randn(2, 4, 5, 6))
        self.assertEqual([n.kind for n in L.nodes], ["aten::select", "aten::slice", "aten::slice"])
        sel, sl1, sl2 = L.nodes
        self.assertEqual((sel.arg("dim"), sel.arg("index")), (0, 0))
        self.assertEqual((sl1.arg("dim"), sl1.arg("start"), sl1.arg("end"), sl1.arg("step")), (0, 1, 3, 1))
        self.assertEqual((sl2.arg("dim"), sl2.arg("start"), sl2.arg("end"), sl2.arg("step")), (2, None, None, 2))

    def test_constants_created_in_forward(self):
        def f(x):
            return x + torch.arange(4.0)

        L, _rec, _ = trace(f, torch.randn(3, 4))
        (add,) = L.nodes
        self.assertEqual(L.consts, {add.arg("other"): [4]})

    def test_unmapped_call_is_recorded_at_the_dispatcher(self):
        L, _rec, _ = trace(lambda x: torch.erf(x).cumsum(0), torch.randn(3))
        self.assertEqual([n.kind for n in L.nodes], ["aten::erf", "aten::cumsum"])
        self.assertEqual(L.nodes[1].arg_names()[:2], ["self", "dim"])

    def test_custom_function_is_one_node(self):
        L, _rec, _ = trace(lambda x: ConstantPadNd.apply(x, (1, 2), 0.5) * 3, torch.randn(1, 2, 3))
        self.assertEqual([n.kind for n in L.nodes], ["fn::ConstantPadNd", "aten::mul"])
        fn = L.nodes[0]
        self.assertEqual(fn.arg_names(), ["input", "pad", "value"])
        self.assertEqual(fn.arg("pad"), [1, 2])
        self.assertEqual(fn.arg("value"), 0.5)
        self.assertEqual(L.nodes[1].arg("self"), fn.outs[0])
        self.assertNotIn("apply", torch.autograd.Function.__dict__)

    def test_item_on_a_traced_tensor_warns_with_scope(self):
        class Gate(nn.Module):
            def forward(self, x):
                return x * float(x.sum())

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()

            def forward(self, x):
                return self.gate(x)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            trace(Net(), torch.randn(3))
        msgs = [str(x.message) for x in w if issubclass(x.category, TracerWarning)]
        self.assertEqual(len(msgs), 1)
        self.assertIn("float() on a traced tensor at test_recording.py:", msgs[0])
        self.assertIn(" in Net/Gate[gate]: the exported graph is fixed to this input's value", msgs[0])

    def test_hooks_are_removed(self):
        m = torchvision.models.resnet18(weights=None)
        trace(m, torch.randn(1, 3, 32, 32))
        self.assertTrue(all(not mod._forward_hooks and not mod._forward_pre_hooks for mod in m.modules()))

    def test_resnet_residual_add_is_inplace(self):
        L, _rec, _ = trace(torchvision.models.resnet18(weights=None), torch.randn(1, 3, 32, 32))
        adds = [n for n in L.nodes if n.kind == "aten::add_"]
        self.assertEqual(len(adds), 8)
        self.assertEqual(adds[0].scope, "ResNet/Sequential[layer1]/BasicBlock[0]")
        self.assertEqual(adds[0].arg_names(), ["self", "other", "alpha"])

    def test_unsupported_dtype_is_a_clear_error(self):
        with self.assertRaises(_recorder.UnsupportedValue) as cm:
            trace(lambda x: x * 2, torch.randn(2, dtype=torch.complex64))
        self.assertEqual(str(cm.exception), "model input: tensors of dtype torch.complex64 cannot be exported "
                                            "(ONNX has no such element type here); convert it in the model")

    def test_write_through_a_view_gives_the_base_a_new_value(self):
        def f(x):
            y = x * 1
            y[:, 0] = 0
            return y + 1

        L, _rec, _ = trace(f, torch.randn(2, 3))
        kinds = [n.kind for n in L.nodes]
        self.assertEqual(kinds[-3:], ["aten::slice_scatter", "aten::slice_scatter", "aten::add"], kinds)

    def test_inplace_on_a_view_whose_base_is_not_read_again_is_fine(self):
        L, _rec, _ = trace(lambda x: torch.relu_(torch.flatten(x * 2, 1)), torch.randn(2, 3, 4))
        # The base gets its new value too (a reshape back to its traced shape), which
        # the file drops when nothing reads it.
        self.assertEqual([n.kind for n in L.nodes][:3], ["aten::mul", "aten::flatten", "aten::relu_"])

    def test_arg_struct_matches_the_header(self):
        # ox_arg: name, kind, 16-byte union -> 32 bytes on LP64.
        self.assertEqual(__import__("ctypes").sizeof(E.OxArg), 32)
        self.assertEqual(__import__("ctypes").sizeof(E.OxExportOptions), 136)  # ... check, sync, function_types, n_function_types, direct_io + padding
        self.assertEqual(__import__("ctypes").sizeof(E.OxTensorDesc), 16)


if __name__ == "__main__":
    unittest.main()
