#!/usr/bin/python3
"""Spectral ops (issue #11) against eager PyTorch: torch.fft.fft/ifft/rfft/irfft (and
their n-dimensional forms), torch.stft (window, onesided, center padding, normalized,
return_complex) and torch.istft, and torchaudio's Spectrogram (power 1, 2 and None),
MelSpectrogram and MFCC, at opset 17 (DFT-17, STFT-17), each on two inputs with
tests/py/modelcheck.py's scale-relative rule.

Complex results are ONNX's float form (a trailing dimension of 2): a model returns
torch.view_as_real(z) or z.abs(); one that returns z itself, or passes z to an op with no
meaning on the float form, is refused with the call named.  Below opset 17 every spectral
op is refused as "supported from opset 17".

torch.onnx 1.13 exports none of these: each model is also given to torch.onnx.export, and
the test asserts that it fails (so the docs' claim stays measured; when a later torch
learns one, the test says so)."""

import os
import sys
import tempfile
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "hosts", "pytorch"))
sys.path.insert(0, os.path.join(SRC, "tests", "py"))

import onnx  # noqa: E402
import torch  # noqa: E402

import modelcheck  # noqa: E402
import onnxval  # noqa: E402
import oxport.torch as oxt  # noqa: E402

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torchaudio  # noqa: E402
except ImportError:  # python3-torchaudio (tools/install-deps)
    torchaudio = None


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


WIN = torch.hann_window(64)
WIN48 = torch.hamming_window(48)


def vr(z):
    return torch.view_as_real(z)


# name -> (model, example input shape)
CASES = {
    "rfft": (Fn(lambda x: vr(torch.fft.rfft(x))), (2, 50)),
    "rfft_abs_ortho": (Fn(lambda x: torch.fft.rfft(x, norm="ortho").abs()), (3, 32)),
    "fft_real_input": (Fn(lambda x: vr(torch.fft.fft(x, dim=0))), (16, 3)),
    "fft_ifft_forward_norm": (Fn(lambda x: vr(torch.fft.ifft(torch.fft.fft(x), norm="forward"))), (2, 20)),
    "ifft_of_real": (Fn(lambda x: vr(torch.fft.ifft(x).resolve_conj())), (2, 12)),
    "irfft": (Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x) * 0.5)), (2, 40)),
    "irfft_odd": (Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x), n=15)), (2, 15)),
    "rfft2_irfft2_real_mask": (Fn(lambda x: torch.fft.irfft2(torch.fft.rfft2(x).abs() * torch.fft.rfft2(x))),
                               (2, 6, 8)),
    "fftn_times_real_tensor": (Fn(lambda x: vr(torch.fft.fftn(x, dim=(0, 2)) * (x.abs()[:, :1, :] + 1))),
                               (4, 3, 5)),
    "fft_real_imag": (Fn(lambda x: torch.fft.fft(x).real * 2 + torch.fft.fft(x).imag), (3, 10)),
    "conj_mul": (Fn(lambda x: vr(torch.fft.fft(x).conj().resolve_conj() * 3.0)), (2, 9)),
    "complex_product": (Fn(lambda x: vr(torch.fft.fft(x) * torch.fft.fft(x.flip(-1))[:1])), (2, 9)),
    "stft_hann_center": (Fn(lambda x: vr(torch.stft(x, 64, 16, window=WIN, return_complex=True))), (1, 400)),
    "stft_1d_no_center_power": (Fn(lambda x: torch.stft(x, 64, 32, window=WIN, center=False,
                                                        return_complex=True).abs().pow(2)), (300,)),
    "stft_short_window_normalized": (Fn(lambda x: vr(torch.stft(x, 64, 20, win_length=48, window=WIN48,
                                                                normalized=True, return_complex=True))), (2, 333)),
    "stft_no_window_constant_pad": (Fn(lambda x: vr(torch.stft(x, 32, 8, pad_mode="constant",
                                                               return_complex=True))), (2, 200)),
    "stft_two_sided": (Fn(lambda x: vr(torch.stft(x, 32, 8, window=torch.hann_window(32), onesided=False,
                                                  return_complex=True))), (1, 160)),
    "stft_real_output": (Fn(lambda x: torch.stft(x, 64, 16, window=WIN, return_complex=False)), (1, 256)),
    "istft_roundtrip": (Fn(lambda x: torch.istft(torch.stft(x, 64, 16, window=WIN, return_complex=True) * 2.0,
                                                 64, 16, window=WIN)), (2, 400)),
    "istft_length": (Fn(lambda x: torch.istft(torch.stft(x, 64, 16, window=WIN, return_complex=True),
                                              64, 16, window=WIN, length=390)), (1, 400)),
}

if torchaudio is not None:
    T = torchaudio.transforms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty filterbank row at small n_fft
        CASES.update({
            "torchaudio_spectrogram_power2": (T.Spectrogram(n_fft=128, hop_length=32), (2, 1000)),
            "torchaudio_spectrogram_power1_normalized": (T.Spectrogram(n_fft=100, power=1, normalized=True),
                                                         (1, 800)),
            "torchaudio_spectrogram_complex": (torch.nn.Sequential(T.Spectrogram(n_fft=64, power=None),
                                                                   Fn(torch.view_as_real)), (1, 500)),
            "torchaudio_melspectrogram": (T.MelSpectrogram(sample_rate=8000, n_fft=256, hop_length=64,
                                                           n_mels=32), (2, 2000)),
            "torchaudio_mfcc": (T.MFCC(sample_rate=8000, n_mfcc=13,
                                       melkwargs=dict(n_fft=256, hop_length=64, n_mels=32)), (1, 2000)),
        })


def torch_onnx_fails(model, x, path):
    """What torch.onnx.export (1.13) says for the model: (True, message) when it refuses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), path, opset_version=17)
    except Exception as e:  # torch.onnx raises several types
        return True, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    return False, "exported"


class Spectral(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_cases_match_eager_at_opset_17(self):
        for name, (model, shape) in CASES.items():
            with self.subTest(name):
                g = torch.Generator().manual_seed(len(name))
                x = torch.randn(shape, generator=g)
                x2 = modelcheck.other_values((x,), seed=5)[0]
                model.eval()
                with torch.no_grad():
                    want = [[model(v).numpy()] for v in (x, x2)]
                modelcheck.assert_nontrivial(name, want)
                p = os.path.join(self.tmp.name, f"{name}.onnx")
                oxt.export(model, (x,), p, opset_version=17, input_names=["x"])
                onnxval.check(p)
                ops = {n.op_type for n in onnx.load(p).graph.node}
                self.assertTrue(ops & {"DFT", "STFT"}, f"{name}: {sorted(ops)}")
                modelcheck.assert_matches(name, p, [{"x": x.numpy()}, {"x": x2.numpy()}], want)
                refused, why = torch_onnx_fails(model, x, p + ".torch.onnx")
                print(f"{name}: torch.onnx.export at opset 17: {why}")
                self.assertTrue(refused, f"{name}: torch.onnx 1.13 exported it; update docs/pytorch.md")

    @unittest.skipIf(torchaudio is None, "python3-torchaudio is not installed")
    def test_melspectrogram_of_any_length(self):
        """The signal's length as a dynamic axis: the file frames at run time."""
        model = torchaudio.transforms.MelSpectrogram(sample_rate=8000, n_fft=256, hop_length=64, n_mels=32)
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 1000, generator=g)
        p = os.path.join(self.tmp.name, "mel_dyn.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("error", oxt.TracerWarning)  # nothing is fixed to the example
            oxt.export(model, (x,), p, opset_version=17, input_names=["x"], output_names=["mel"],
                       dynamic_axes={"x": {1: "samples"}, "mel": {2: "frames"}})
        onnxval.check(p)
        feeds = [x, torch.randn(2, 1000, generator=g), torch.randn(2, 1537, generator=g), torch.randn(2, 300, generator=g)]
        with torch.no_grad():
            want = [[model(v).numpy()] for v in feeds]
        modelcheck.assert_nontrivial("mel_dyn", want)
        modelcheck.assert_matches("mel_dyn", p, [{"x": v.numpy()} for v in feeds], want)

    def test_irfft_under_dynamic_axes_warns(self):
        with self.assertWarnsRegex(oxt.TracerWarning, "aten::_fft_c2r: the sizes of the transformed dims"):
            oxt.export(CASES["irfft"][0], (torch.randn(2, 40),), os.path.join(self.tmp.name, "i.onnx"),
                       opset_version=17, input_names=["x"], dynamic_axes={"x": {0: "batch"}})

    def test_below_opset_17_is_refused(self):
        for name in ("rfft", "stft_hann_center", "irfft"):
            model, shape = CASES[name]
            with self.assertRaises(oxt.ExportError) as cm:
                oxt.export(model, (torch.randn(shape),), os.path.join(self.tmp.name, "low.onnx"), opset_version=16)
            self.assertIn("supported from opset 17", str(cm.exception))

    def test_complex_rotary_embedding_of_any_length(self):
        """Meta's LLaMA reference code: freqs_cis = torch.polar(...) is a complex table (a
        plain attribute, so a constant of the file) sliced to the sequence, and the rotary
        embedding is view_as_complex(q pairs) * freqs_cis, view_as_real'd back: a complex
        constant and a product of two complex tensors, both on ONNX's float form."""
        class Rotary(torch.nn.Module):
            def __init__(self):
                super().__init__()
                freqs = 1.0 / (10000.0 ** (torch.arange(0, 8, 2).float() / 8))
                freqs = torch.outer(torch.arange(32), freqs).float()
                self.freqs_cis = torch.polar(torch.ones_like(freqs), freqs)

            def forward(self, xq):   # [batch, seq, heads, 8]
                z = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
                f = self.freqs_cis[: xq.shape[1]].view(1, xq.shape[1], 1, z.shape[-1])
                return torch.view_as_real(z * f).flatten(3).type_as(xq) + xq
        model = Rotary()
        axes = {"x": {0: "b", 1: "s"}}
        g = torch.Generator().manual_seed(3)
        xs = [torch.randn(2, 5, 3, 8, generator=g), torch.randn(2, 5, 3, 8, generator=g),
              torch.randn(1, 1, 3, 8, generator=g), torch.randn(3, 17, 3, 8, generator=g)]
        for opset in (13, 17):
            files = []
            for trace in ("eager", "fake"):
                path = os.path.join(self.tmp.name, f"rotary_{opset}_{trace}.onnx")
                with warnings.catch_warnings():
                    warnings.simplefilter("error", oxt.TracerWarning)
                    oxt.export(model, (xs[0],), path, opset_version=opset, input_names=["x"], dynamic_axes=axes,
                               trace=trace)
                with open(path, "rb") as f:
                    files.append(f.read())
            self.assertTrue(files[0] == files[1], "trace='fake' wrote another file")
            onnxval.check(path)
            gots = onnxval.run_ort_many(path, [{"x": x.numpy()} for x in xs])
            for x, (got,) in zip(xs, gots):
                want = model(x).numpy()
                self.assertEqual(got.shape, want.shape)
                self.assertLessEqual(float(abs(got - want).max()), 1e-5 * float(abs(want).max()),
                                     f"opset {opset} at {tuple(x.shape)}")

    def test_complex_output_is_refused(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(Fn(torch.fft.rfft), (torch.randn(2, 8),), os.path.join(self.tmp.name, "c.onnx"),
                       opset_version=17)
        self.assertIn("the model returns a complex tensor (output 0), which ONNX Runtime cannot hold; return "
                      "torch.view_as_real(z)", str(cm.exception))

    def test_complex_into_an_unsupported_op_is_refused(self):
        with self.assertRaises(oxt.ExportError) as cm:
            oxt.export(Fn(lambda x: vr(torch.exp(torch.fft.rfft(x)))), (torch.randn(2, 8),),
                       os.path.join(self.tmp.name, "c.onnx"), opset_version=17)
        msg = str(cm.exception)
        self.assertIn("aten::exp at ", msg)
        self.assertIn("takes a complex tensor, which oxport exports (as ONNX's float form with a trailing "
                      "dimension of 2) only into view_as_real, abs", msg)


if __name__ == "__main__":
    unittest.main()
