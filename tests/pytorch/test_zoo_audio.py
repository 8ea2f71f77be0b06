#!/usr/bin/python3
"""torchaudio 0.13's architectures through oxport.torch: export, onnx.checker (full_check)
and ONNX Runtime against eager PyTorch.

    /usr/bin/python3 tests/pytorch/test_zoo_audio.py GROUP [unittest args]

The cases and rules of test_zoo_arch.py (random weights, two inputs of the same shapes,
tests/py/modelcheck.py's non-trivial references and tolerance), with small configurations
of each architecture: wav2vec2 and HuBERT with two encoder layers of width 48, a ConvTasNet
of one stack, WaveRNN with two residual blocks.  What a random init leaves at a default
that would hide a mistake is re-drawn (see randomize_norms): the affine parameters of every
LayerNorm and GroupNorm (weight 1 and bias 0 would not tell them apart), and BatchNorm
statistics are calibrated on a separate batch (calibrate).

Where an architecture takes any length (everything but Conformer, whose padding mask is
sized by lengths.max().item(), a Python number in the trace: oxport warns and the file is
fixed to it, as torch.onnx's is), a case also exports with the time axis dynamic and runs
the file at two other lengths (test_dynamic_time).  Opset 9 is tested too.
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchaudio.models as tam  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402
import test_models  # noqa: E402
import test_zoo_extra  # noqa: E402
from test_models import SEEDS, arrays, eager  # noqa: E402


def randomize_norms(model):
    """Draw the affine parameters of LayerNorm and GroupNorm away from 1 and 0."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.LayerNorm, nn.GroupNorm)) and m.weight is not None:
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model


def calibrate(model, args):
    """BatchNorm statistics of real activations: one forward with only the BatchNorm
    layers in training mode (cumulative average), on inputs other than the test's."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    model.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
        m.train()
    with torch.no_grad():
        model(*args)
    return model.eval()


def prepare(model, inputs):
    """The model with its norms drawn and BatchNorm calibrated on a third input set."""
    return calibrate(randomize_norms(model), inputs(99))


def waveform(*shape):
    return test_models.randn_inputs(shape)


# ---------------------------------------------------------------- wav2vec2 / HuBERT
# The convolutional feature extractor (three layers, 800 samples -> 39 frames), a
# transformer encoder of two layers.  wav2vec2's base configuration: GroupNorm in the first
# extractor layer, no conv bias, post-norm encoder, a CTC head.  HuBERT's large one
# (hubert_large, wav2vec2_large_lv60k): LayerNorm in every extractor layer, conv bias,
# pre-norm encoder, no head.
SMALL_EXTRACTOR = [(32, 10, 5), (32, 3, 2), (32, 2, 2)]


def wav2vec2_small(hubert, **kw):
    return tam.wav2vec2_model(
        extractor_mode="layer_norm" if hubert else "group_norm",
        extractor_conv_layer_config=SMALL_EXTRACTOR, extractor_conv_bias=hubert,
        encoder_embed_dim=48, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=16,
        encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4,
        encoder_attention_dropout=0.0, encoder_ff_interm_features=64, encoder_ff_interm_dropout=0.0,
        encoder_dropout=0.0, encoder_layer_norm_first=hubert, encoder_layer_drop=0.0,
        aux_num_out=None if hubert else 12, **kw)


class Emissions(nn.Module):
    """Wav2Vec2Model's emissions (it returns them with the output lengths, None without
    lengths)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        out, lengths = self.model(*args)
        return out if lengths is None else (out, lengths)


def wav2vec2(hubert):
    def make():
        inputs = waveform(1, 800)
        return prepare(Emissions(wav2vec2_small(hubert)), inputs), inputs
    return make


def wav2vec2_lengths():
    """A batch of two waveforms with their lengths: the encoder masks the padding frames
    (x[mask] = 0 and an additive attention mask).  The first waveform is the longest, as
    the padded batch's length."""
    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(2, 800, generator=g), torch.tensor([800, int(torch.randint(300, 800, (1,), generator=g))])
    return lambda: (prepare(Emissions(wav2vec2_small(False)), inputs), inputs)


# ---------------------------------------------------------------- Conformer
class ConformerOut(nn.Module):
    """Conformer's output frames (it returns them with the lengths, which it passes
    through)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, lengths):
        return self.model(x, lengths)[0]


def conformer():
    def inputs(seed):
        # the longest sequence is the padded length (torchaudio sizes the mask by it)
        g = torch.Generator().manual_seed(seed)
        return torch.randn(2, 20, 16, generator=g), torch.tensor([20, int(torch.randint(5, 20, (1,), generator=g))])
    model = ConformerOut(tam.Conformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2,
                                       depthwise_conv_kernel_size=7))
    return lambda: (prepare(model, inputs), inputs)


class EmformerOut(nn.Module):
    """Emformer's output frames (it returns them with the lengths)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, lengths):
        return self.model(x, lengths)[0]


def emformer():
    """Segments of 4 frames with one frame of right context (the input's last frame): 13
    frames in, 12 out; the longest sequence is the padded length.  Its empty memory bank
    is torch.cat's legacy empty tensor (shape (0,)), which cat skips.  The segments are
    cut in Python from the length, so the time axis is not dynamic."""
    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(2, 13, 16, generator=g), torch.tensor([13, int(torch.randint(6, 13, (1,), generator=g))])
    model = EmformerOut(tam.Emformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, segment_length=4,
                                     right_context_length=1))
    return lambda: (prepare(model, inputs), inputs)


# ---------------------------------------------------------------- the others
# ConvTasNet pads the waveform to whole encoder strides (4 samples here) with a Python
# branch on the remainder (oxport warns): traced at 202 samples (2 of padding), the file
# follows every length that needs padding, computing its amount from the traced size;
# 121 and 335 need 3 and 1.
def conv_tasnet():
    inputs = waveform(1, 1, 202)
    return lambda: (prepare(tam.ConvTasNet(num_sources=2, enc_kernel_size=8, enc_num_feats=16,
                                           msk_kernel_size=3, msk_num_feats=8, msk_num_hidden_feats=16,
                                           msk_num_layers=2, msk_num_stacks=1), inputs), inputs)


def deepspeech():
    inputs = waveform(1, 1, 20, 16)   # (batch, channel, time, features)
    return lambda: (prepare(tam.DeepSpeech(n_feature=16, n_hidden=32, n_class=10), inputs), inputs)


def he_init(model):
    """Wav2Letter is eleven Conv1d+ReLU layers without normalisation: at PyTorch's default
    init (gain 1/sqrt(3)) the activations shrink about 3x per layer and the log-softmax
    output is -log(10) everywhere.  He init keeps their scale, as training would."""
    for m in model.modules():
        if isinstance(m, nn.Conv1d):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
    return model


# The waveform front end is a Conv1d of kernel 250 and stride 160: 3200 samples, 20 frames.
def wav2letter(input_type, channels):
    inputs = waveform(1, channels, 3200 if input_type == "waveform" else 100)
    return lambda: (prepare(he_init(tam.Wav2Letter(num_classes=10, input_type=input_type, num_features=channels)),
                            inputs), inputs)


WAVERNN_HOP = 4
WAVERNN_FRAMES = 10
WAVERNN_PAD = 2   # (kernel_size - 1) // 2 frames of context on each side


def wavernn():
    """WaveRNN's forward (teacher forcing): a waveform and its spectrogram, whose frames
    cover the waveform less the upsampling network's context, (frames - 2 * pad) * hop
    samples."""
    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        samples = (WAVERNN_FRAMES - 2 * WAVERNN_PAD) * WAVERNN_HOP
        return torch.randn(1, 1, samples, generator=g), torch.randn(1, 1, 8, WAVERNN_FRAMES, generator=g)
    model = tam.WaveRNN(upsample_scales=[2, 2], n_classes=16, hop_length=WAVERNN_HOP, n_res_block=2, n_rnn=16,
                        n_fc=16, kernel_size=2 * WAVERNN_PAD + 1, n_freq=8, n_hidden=8, n_output=8)
    return lambda: (prepare(model, inputs), inputs)


# Dynamic time axes: ({input or output name: {axis: name}}, lengths at which to run, a
# function (length, generator) -> the inputs at that length).  The export is traced at the
# example's length; out0's time axis is dynamic too.
def time_axis(axes, lengths, make):
    return (axes, lengths, make)


def randn_at(*shape_of):
    """make(n, g) for time_axis: one randn tensor per shape function of n."""
    return lambda n, g: tuple(torch.randn(f(n), generator=g) for f in shape_of)


def wav2vec2_lengths_at(n, g):
    return torch.randn(2, n, generator=g), torch.tensor([n, n // 2])


def wavernn_at(frames, g):
    return (torch.randn(1, 1, (frames - 2 * WAVERNN_PAD) * WAVERNN_HOP, generator=g),
            torch.randn(1, 1, 8, frames, generator=g))


# group -> list of (label, factory, opsets, constant outputs, dynamic time axis or None); an
# opset given as (opset, message) must fail with that line in the report.
GROUPS = {
    "wav2vec2": [
        ("wav2vec2", wav2vec2(False), (9, 13, 17), None,
         time_axis({"in0": {1: "time"}, "out0": {1: "frames"}}, (400, 1200), randn_at(lambda n: (1, n)))),
        ("hubert", wav2vec2(True), (9, 13, 17), None,
         time_axis({"in0": {1: "time"}, "out0": {1: "frames"}}, (400, 1200), randn_at(lambda n: (1, n)))),
        ("wav2vec2_lengths", wav2vec2_lengths(), (9, 13, 17), None,
         time_axis({"in0": {1: "time"}, "out0": {1: "frames"}}, (400, 1200), wav2vec2_lengths_at)),
    ],
    "conformer": [
        ("conformer", conformer(), (9, 13, 17), None, None),
        ("emformer", emformer(), (9, 13, 17), None, None),
    ],
    "conv_tasnet": [
        ("conv_tasnet", conv_tasnet(), (9, 13, 17), None,
         time_axis({"in0": {2: "time"}, "out0": {2: "time"}}, (121, 335), randn_at(lambda n: (1, 1, n)))),
    ],
    "speech": [
        ("deepspeech", deepspeech(), (9, 13, 17), None,
         time_axis({"in0": {2: "time"}, "out0": {1: "time"}}, (7, 31), randn_at(lambda n: (1, 1, n, 16)))),
        ("wav2letter_mfcc", wav2letter("mfcc", 13), (9, 13, 17), None,
         time_axis({"in0": {2: "time"}, "out0": {2: "frames"}}, (60, 150), randn_at(lambda n: (1, 13, n)))),
        ("wav2letter_waveform", wav2letter("waveform", 1), (9, 13, 17), None,
         time_axis({"in0": {2: "time"}, "out0": {2: "frames"}}, (1920, 4800), randn_at(lambda n: (1, 1, n)))),
        ("wavernn", wavernn(), (9, 13, 17), None,
         time_axis({"in0": {2: "samples"}, "in1": {3: "frames"}, "out0": {2: "samples"}}, (7, 16), wavernn_at)),
    ],
}


class AudioCase(test_zoo_extra.ModelCase):
    tmp_prefix = "oxport-zoo-audio-"
    time_axes = None
    test_dynamic_shapes = None   # test_models' dynamic batch; these vary the time axis instead

    def test_dynamic_time(self):
        if not self.time_axes:
            self.skipTest("no dynamic time axis for this model")
        axes, lengths, make = self.time_axes
        path = os.path.join(self.tmp.name, f"{self.label}_dyn.onnx")
        names = [f"in{i}" for i in range(len(arrays(self.args)))]
        outs = [f"out{i}" for i in range(len(eager(self.model, self.args)))]
        oxt.export(self.model, self.args, path, opset_version=17, input_names=names, output_names=outs,
                   dynamic_axes=axes)
        onnxval.check(path)
        g = torch.Generator().manual_seed(SEEDS[1])
        arg_sets = [self.args] + [make(n, g) for n in lengths]
        wants = [eager(self.model, a) for a in arg_sets]
        modelcheck.assert_nontrivial(f"{self.label} dynamic", wants)
        for a, w in zip(arg_sets, wants):
            print(f"{self.label}: dynamic run at input shape {list(a[0].shape)}, output {list(w[0].shape)}")
        self.assertEqual(len({w[0].shape for w in wants}), len(wants), "the lengths give distinct output shapes")
        modelcheck.assert_matches(f"{self.label} dynamic", path, [dict(zip(names, arrays(a))) for a in arg_sets],
                                  wants, modelcheck.torch_onnx_reference(self.model, self.args, 17, names, outs,
                                                                         axes))


def make_suite(group):
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for label, factory, opsets, constant_outputs, dynamic in GROUPS[group]:
        attrs = {"label": label, "factory": staticmethod(factory), "constant_outputs": constant_outputs or (),
                 "time_axes": dynamic}
        for opset in opsets:
            if isinstance(opset, tuple):   # (opset, the line the export must fail with)
                attrs[f"test_opset_{opset[0]}_fails"] = (lambda o, m: lambda self: self.export_fails(o, m))(*opset)
            else:
                attrs[f"test_opset_{opset}"] = (lambda o: lambda self: self.export_check_run(o))(opset)
        suite.addTests(loader.loadTestsFromTestCase(type(f"Test_{label}", (AudioCase,), attrs)))
    return suite


if __name__ == "__main__":
    sys.exit(test_models.run_main(GROUPS, make_suite, "GROUP"))
