"""Spectral ops (issue #11): the FFT primitives torch.fft.* dispatches to, torch.stft and
torch.istft, from opset 17 (DFT-17, STFT-17) and refused below it.  Complex results are
compared in ONNX's float form (torch.view_as_real) or through abs.  Models and torchaudio's
transforms: tests/pytorch/test_spectral.py."""

import torch

from optable import Refuse, Row, T

FROM_17 = Refuse("supported from opset 17", below=17)
SPECTRAL_OPSETS = (13, 16, 17)


def vr(z):
    return torch.view_as_real(z)


def hann(n):
    return torch.hann_window(n)


ROWS = [
    Row("_fft_r2c.rfft", "aten::_fft_r2c", lambda x: vr(torch.fft.rfft(x)), [T(2, 16)], opsets=SPECTRAL_OPSETS,
        refuse=FROM_17),
    Row("_fft_r2c.fft_of_real_ortho", "aten::_fft_r2c", lambda x: vr(torch.fft.fft(x, dim=0, norm="ortho")),
        [T(8, 3)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("_fft_r2c.rfft2_abs", "aten::_fft_r2c", lambda x: torch.fft.rfft2(x).abs(), [T(2, 6, 5)],
        opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("_fft_c2c.ifft", "aten::_fft_c2c", lambda x: vr(torch.fft.ifft(torch.fft.fft(x) * 2)), [T(3, 10)],
        opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("_fft_c2c.fft_forward_norm", "aten::_fft_c2c",
        lambda x: vr(torch.fft.fft(torch.fft.fft(x), norm="forward")), [T(2, 9)], opsets=SPECTRAL_OPSETS,
        refuse=FROM_17),
    Row("_fft_c2r.irfft", "aten::_fft_c2r", lambda x: torch.fft.irfft(torch.fft.rfft(x).conj().resolve_conj()),
        [T(2, 12)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("_fft_c2r.irfft_odd_n", "aten::_fft_c2r", lambda x: torch.fft.irfft(torch.fft.rfft(x), n=9, norm="ortho"),
        [T(3, 9)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("stft", "aten::stft", lambda x: vr(torch.stft(x, 32, 8, window=hann(32), return_complex=True)),
        [T(2, 100)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("stft.1d_no_center_power", "aten::stft",
        lambda x: torch.stft(x, 16, 4, window=hann(16), center=False, return_complex=True).abs().pow(2),
        [T(64)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("stft.short_window_normalized_two_sided", "aten::stft",
        lambda x: vr(torch.stft(x, 32, 10, win_length=20, window=torch.hamming_window(20), normalized=True,
                                onesided=False, return_complex=True)), [T(1, 90)], opsets=SPECTRAL_OPSETS,
        refuse=FROM_17),
    Row("stft.real_output", "aten::stft", lambda x: torch.stft(x, 16, 4, return_complex=False), [T(1, 40)],
        opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("istft", "aten::istft",
        lambda x: torch.istft(torch.stft(x, 32, 8, window=hann(32), return_complex=True), 32, 8, window=hann(32)),
        [T(2, 96)], opsets=SPECTRAL_OPSETS, refuse=FROM_17),
    Row("istft.length_no_center", "aten::istft",
        lambda x: torch.istft(torch.stft(x, 16, 4, window=torch.hamming_window(16), center=False,
                                         return_complex=True), 16, 4, window=torch.hamming_window(16), center=False,
                              length=40), [T(1, 48)], opsets=SPECTRAL_OPSETS,
        refuse=FROM_17),
    Row("istft.complex_signal", "aten::istft",
        lambda x: vr(torch.istft(torch.stft(x, 16, 4, window=hann(16), onesided=False, return_complex=True), 16, 4,
                                 window=hann(16), onesided=False, return_complex=True)), [T(1, 48)],
        opsets=(17,), refuse=Refuse("istft with return_complex=True (a complex signal) is not exported")),
]
