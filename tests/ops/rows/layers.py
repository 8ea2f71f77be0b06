"""Neural-network layer operators (issue #10, helper "layers"): pooling, convolutions,
padding and resizing, sampling, embedding bags, normalization."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

BATCH = {"in0": {0: "batch"}, "out0": {0: "batch"}}
F64 = torch.float64

ROWS = [
    # ---------------------------------------------------------------- pooling (pool.c)
    Row("max_pool1d", "aten::max_pool1d", lambda x: F.max_pool1d(x, 2), [T(2, 3, 9, distinct=True)],
        dynamic=BATCH),
    Row("max_pool1d.stride_padding", "aten::max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1),
        [T(1, 2, 10, distinct=True)]),
    Row("max_pool1d.unbatched", "aten::max_pool1d", lambda x: F.max_pool1d(x, 2), [T(3, 8, distinct=True)]),
    Row("max_pool1d.ceil_mode", "aten::max_pool1d", lambda x: F.max_pool1d(x, 3, 2, ceil_mode=True),
        [T(1, 2, 10, distinct=True)]),
    Row("max_pool1d.dilation", "aten::max_pool1d", lambda x: F.max_pool1d(x, 2, dilation=2),
        [T(1, 2, 9, distinct=True)], refuse=Refuse("MaxPool has no dilations attribute before opset 10", below=10)),
    Row("max_pool2d.ceil_mode_padding", "aten::max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        [T(1, 2, 8, 8, distinct=True)]),
    Row("max_pool3d", "aten::max_pool3d", lambda x: F.max_pool3d(x, 2), [T(1, 2, 4, 4, 6, distinct=True)]),
    Row("max_pool3d.stride_padding_ceil", "aten::max_pool3d", lambda x: F.max_pool3d(x, 3, 2, 1, ceil_mode=True),
        [T(1, 2, 5, 6, 6, distinct=True)]),
    Row("max_pool3d.unbatched", "aten::max_pool3d", lambda x: F.max_pool3d(x, (1, 2, 2)),
        [T(2, 3, 4, 4, distinct=True)]),
    Row("max_pool1d_with_indices", "aten::max_pool1d_with_indices",
        lambda x: F.max_pool1d(x, 2, return_indices=True), [T(2, 3, 8, distinct=True)], dynamic=BATCH),
    Row("max_pool2d_with_indices", "aten::max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), [T(2, 3, 7, 7, distinct=True)]),
    Row("max_pool2d_with_indices.ceil_mode", "aten::max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 2, ceil_mode=True, return_indices=True), [T(1, 2, 5, 7, distinct=True)]),
    Row("max_pool2d_with_indices.unbatched", "aten::max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 2, return_indices=True), [T(3, 4, 6, distinct=True)]),
    Row("max_pool2d_with_indices.module", "aten::max_pool2d_with_indices",
        module=lambda: nn.MaxPool2d(2, return_indices=True), inputs=[T(1, 3, 6, 6, distinct=True)]),
    Row("max_pool2d_with_indices.dynamic_spatial", "aten::max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 2, return_indices=True), [T(1, 2, 4, 4, distinct=True)],
        dynamic={"in0": {2: "h"}, "out0": {2: "oh"}, "out1": {2: "oh"}}),
    Row("max_pool3d_with_indices", "aten::max_pool3d_with_indices",
        lambda x: F.max_pool3d(x, 2, return_indices=True), [T(1, 2, 4, 4, 4, distinct=True)]),
    Row("avg_pool1d", "aten::avg_pool1d", lambda x: F.avg_pool1d(x, 2), [T(2, 3, 8)], dynamic=BATCH),
    Row("avg_pool1d.padding_exclude", "aten::avg_pool1d",
        lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), [T(1, 2, 9)]),
    Row("avg_pool1d.ceil_mode_padding", "aten::avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True),
        [T(1, 2, 10)]),
    Row("avg_pool1d.unbatched", "aten::avg_pool1d", lambda x: F.avg_pool1d(x, 2), [T(3, 8)]),
    Row("avg_pool2d.ceil_mode_exclude", "aten::avg_pool2d",
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [T(1, 2, 8, 8)]),
    Row("avg_pool2d.unbatched", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 2), [T(2, 6, 6)]),
    Row("avg_pool3d", "aten::avg_pool3d", lambda x: F.avg_pool3d(x, 2), [T(1, 2, 4, 4, 6)], dynamic=BATCH),
    Row("avg_pool3d.padding_ceil", "aten::avg_pool3d", lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True),
        [T(1, 2, 5, 6, 6)]),
    Row("avg_pool3d.divisor_override", "aten::avg_pool3d", lambda x: F.avg_pool3d(x, 2, divisor_override=3),
        [T(1, 2, 4, 4, 4)], refuse=Refuse("AveragePool has no divisor_override")),
    Row("adaptive_avg_pool1d", "aten::adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 1), [T(2, 3, 7)],
        dynamic={"in0": {0: "batch", 2: "len"}, "out0": {0: "batch"}}),
    Row("adaptive_avg_pool1d.multiple", "aten::adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3),
        [T(1, 2, 9)]),
    # an output size that does not tile the input: one reduction per (overlapping) bin
    Row("adaptive_avg_pool1d.not_multiple", "aten::adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3),
        [T(1, 2, 8)], dynamic=BATCH),
    Row("adaptive_avg_pool2d.not_multiple_larger", "aten::adaptive_avg_pool2d",
        lambda x: F.adaptive_avg_pool2d(x, (4, 7)), [T(2, 3, 3, 5)]),
    Row("adaptive_avg_pool3d.not_multiple", "aten::adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
        [T(1, 2, 3, 5, 4)]),
    Row("adaptive_avg_pool2d.unbatched", "aten::adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 1)),
        [T(3, 4, 5)]),
    Row("adaptive_avg_pool3d", "aten::adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 1),
        [T(1, 2, 3, 4, 5)]),
    Row("adaptive_avg_pool3d.multiple", "aten::adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (1, 2, 3)),
        [T(1, 2, 3, 4, 6)]),
    Row("adaptive_max_pool1d", "aten::adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 1),
        [T(2, 3, 7, distinct=True)]),
    Row("adaptive_max_pool1d.indices", "aten::adaptive_max_pool1d",
        lambda x: F.adaptive_max_pool1d(x, 2, return_indices=True), [T(1, 3, 8, distinct=True)]),
    Row("adaptive_max_pool2d", "aten::adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)),
        [T(1, 3, 4, 6, distinct=True)], dynamic=BATCH),
    Row("adaptive_max_pool2d.indices_global", "aten::adaptive_max_pool2d",
        lambda x: F.adaptive_max_pool2d(x, 1, return_indices=True), [T(2, 3, 5, 5, distinct=True)]),
    Row("adaptive_max_pool2d.not_multiple", "aten::adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2),
        [T(1, 2, 5, 4, distinct=True)]),
    Row("adaptive_max_pool2d.not_multiple_unbatched", "aten::adaptive_max_pool2d",
        lambda x: F.adaptive_max_pool2d(x, (3, 2)), [T(2, 7, 5, distinct=True)]),
    # the positions of the maxima have no ONNX form outside a MaxPool
    Row("adaptive_max_pool2d.not_multiple_indices", "aten::adaptive_max_pool2d",
        lambda x: F.adaptive_max_pool2d(x, 2, return_indices=True)[1], [T(1, 2, 5, 4, distinct=True)],
        refuse=Refuse("adaptive_max_pool_indices")),
    Row("adaptive_max_pool3d", "aten::adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, 1),
        [T(1, 2, 3, 4, 5, distinct=True)]),
    Row("adaptive_max_pool3d.indices", "aten::adaptive_max_pool3d",
        lambda x: F.adaptive_max_pool3d(x, (1, 2, 2), return_indices=True), [T(1, 2, 2, 4, 4, distinct=True)]),

    # ---------------------------------------------------------------- convolution (conv.c)
    Row("conv_transpose1d", "aten::conv_transpose1d", module=lambda: nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1),
        inputs=[T(2, 3, 5)], dynamic=BATCH),
    Row("conv_transpose1d.output_padding_groups_dilation", "aten::conv_transpose1d",
        module=lambda: nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1, groups=2, dilation=2, bias=False),
        inputs=[T(1, 4, 6)]),
    Row("conv_transpose1d.functional", "aten::conv_transpose1d",
        lambda x, w: F.conv_transpose1d(x, w, stride=3), [T(1, 2, 4), T(2, 3, 2)]),
    Row("conv_transpose3d", "aten::conv_transpose3d", module=lambda: nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1),
        inputs=[T(1, 2, 3, 3, 4)]),
    Row("conv_transpose3d.output_padding", "aten::conv_transpose3d",
        module=lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, output_padding=(1, 0, 1)),
        inputs=[T(1, 2, 2, 3, 2)]),
    Row("_convolution", "aten::_convolution",
        lambda x, w, b: torch._convolution(x, w, b, [2, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True),
        [T(1, 3, 6, 6), T(2, 3, 3, 3), T(2)]),
    Row("_convolution.transposed_groups", "aten::_convolution",
        lambda x, w: torch._convolution(x, w, None, [2], [1], [1], True, [1], 2, False, False, True, True),
        [T(1, 4, 5), T(4, 1, 3)]),
    Row("_convolution.deprecated", "aten::_convolution",
        lambda x, w: torch._convolution(x, w, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1, False,
                                        False, True),
        [T(1, 2, 3, 4, 4), T(2, 2, 2, 2, 2)]),
    Row("conv_tbc", "aten::conv_tbc", lambda x, w, b: torch.conv_tbc(x, w, b, 1), [T(6, 2, 3), T(3, 3, 4), T(4)],
        dynamic={"in0": {0: "time", 1: "batch"}, "out0": {0: "time_out", 1: "batch"}}),
    Row("conv_tbc.no_pad", "aten::conv_tbc", lambda x, w, b: torch.conv_tbc(x, w, b), [T(5, 1, 2), T(2, 2, 3), T(3)]),

    # ---------------------------------------------------------------- padding (pad.c)
    Row("pad.circular", "aten::pad", lambda x: F.pad(x, (1, 2), mode="circular"), [T(2, 3, 5)], dynamic=BATCH),
    Row("pad.circular_2d", "aten::pad", lambda x: F.pad(x, (2, 0, 1, 3), mode="circular"), [T(1, 2, 4, 5)],
        dynamic={"in0": {2: "h", 3: "w"}, "out0": {2: "oh", 3: "ow"}}),
    Row("pad.circular_3d", "aten::pad", lambda x: F.pad(x, (1, 1, 0, 1, 1, 0), mode="circular"), [T(1, 1, 2, 3, 4)]),
    Row("pad.circular_int64", "aten::pad", lambda x: F.pad(x, (1, 1), mode="circular"),
        [T(1, 2, 4, dtype=torch.int64)]),
    Row("reflection_pad3d", "aten::reflection_pad3d", lambda x: F.pad(x, (1, 1, 2, 0, 0, 1), mode="reflect"),
        [T(1, 2, 3, 4, 4)]),
    Row("reflection_pad3d.unbatched", "aten::reflection_pad3d", lambda x: F.pad(x, (1, 2, 1, 1, 1, 1), mode="reflect"),
        [T(2, 3, 4, 5)]),

    # ---------------------------------------------------------------- resizing (resize.c)
    Row("pixel_unshuffle", "aten::pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [T(2, 3, 4, 6)], dynamic=BATCH),
    Row("pixel_unshuffle.three", "aten::pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 3), [T(1, 1, 6, 3)]),
    Row("upsample_nearest1d", "aten::upsample_nearest1d", lambda x: F.interpolate(x, scale_factor=2), [T(2, 3, 5)],
        dynamic={"in0": {0: "batch", 2: "len"}, "out0": {0: "batch", 2: "len_out"}}),
    Row("upsample_nearest1d.size", "aten::upsample_nearest1d", lambda x: F.interpolate(x, size=7), [T(1, 2, 3)]),
    Row("upsample_nearest3d", "aten::upsample_nearest3d", lambda x: F.interpolate(x, scale_factor=(1, 2, 3)),
        [T(1, 2, 2, 3, 2)]),
    Row("upsample_nearest3d.size", "aten::upsample_nearest3d", lambda x: F.interpolate(x, size=(3, 4, 5)),
        [T(1, 1, 2, 2, 3)]),
    Row("upsample_linear1d", "aten::upsample_linear1d", lambda x: F.interpolate(x, scale_factor=2, mode="linear"),
        [T(2, 3, 5)], dynamic=BATCH),
    Row("upsample_linear1d.align_corners_size", "aten::upsample_linear1d",
        lambda x: F.interpolate(x, size=9, mode="linear", align_corners=True), [T(1, 2, 4)]),
    Row("upsample_bicubic2d", "aten::upsample_bicubic2d", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"),
        [T(1, 2, 4, 5)], since=11),
    Row("upsample_bicubic2d.align_corners", "aten::upsample_bicubic2d",
        lambda x: F.interpolate(x, scale_factor=(2, 3), mode="bicubic", align_corners=True), [T(1, 2, 3, 4)],
        since=11),
    Row("upsample_bicubic2d.size", "aten::upsample_bicubic2d",
        lambda x: F.interpolate(x, size=(7, 5), mode="bicubic", align_corners=False), [T(1, 1, 4, 4)], since=11),
    Row("upsample_bicubic2d.size_align_corners", "aten::upsample_bicubic2d",
        lambda x: F.interpolate(x, size=(6, 9), mode="bicubic", align_corners=True), [T(1, 1, 3, 4)], since=11),
    Row("upsample_trilinear3d", "aten::upsample_trilinear3d",
        lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), [T(1, 2, 2, 3, 3)]),
    Row("upsample_trilinear3d.align_corners_size", "aten::upsample_trilinear3d",
        lambda x: F.interpolate(x, size=(3, 5, 4), mode="trilinear", align_corners=True), [T(1, 1, 2, 3, 2)]),
    Row("upsample_trilinear3d.traced_size", "aten::upsample_trilinear3d",
        lambda x: F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] * 2, x.shape[4] + 1), mode="trilinear"),
        [T(1, 1, 2, 3, 2)], dynamic={"in0": {2: "d", 3: "h", 4: "w"}, "out0": {2: "od", 3: "oh", 4: "ow"}}),
    # before opset 11 linear interpolation is Gathers with torch's weights (resize.c): the
    # forms whose coordinates differ — a fractional and a shrinking factor, a size of 1
    # with align_corners, scales over dynamic spatial axes, Resize-10's opset
    Row("upsample_bilinear2d.fractional_scale", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, scale_factor=(1.5, 0.6), mode="bilinear"), [T(1, 2, 4, 5)], opsets=(9, 10, 13, 17)),
    Row("upsample_bilinear2d.shrink_size", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, size=(3, 2), mode="bilinear"), [T(2, 1, 7, 5)]),
    Row("upsample_bilinear2d.align_corners_size_one", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, size=(1, 4), mode="bilinear", align_corners=True), [T(1, 2, 3, 3)]),
    Row("upsample_bilinear2d.dynamic_scales", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [T(1, 2, 3, 4)],
        dynamic={"in0": {0: "b", 2: "h", 3: "w"}, "out0": {0: "b", 2: "oh", 3: "ow"}}),
    Row("upsample_linear1d.align_corners_dynamic", "aten::upsample_linear1d",
        lambda x: F.interpolate(x, scale_factor=3, mode="linear", align_corners=True), [T(1, 2, 4)],
        dynamic={"in0": {2: "n"}, "out0": {2: "m"}}),
    Row("upsample_bilinear2d.float16", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x.float(), scale_factor=2, mode="bilinear").half(), [T(1, 1, 2, 3, dtype=torch.float16)],
        opsets=(9,)),
    Row("upsample_nearest1d.traced_size", "aten::upsample_nearest1d",
        lambda x: F.interpolate(x, size=x.shape[2] * 3), [T(1, 2, 3)],
        dynamic={"in0": {2: "len"}, "out0": {2: "len_out"}}, since=11),

    # ---------------------------------------------------------------- sliding windows (window.c)
    Row("unfold", "aten::unfold", lambda x: x.unfold(2, 3, 2), [T(2, 3, 8, 4)], dynamic=BATCH),
    Row("unfold.last_dim", "aten::unfold", lambda x: x.unfold(-1, 2, 1), [T(3, 5)]),
    Row("unfold.first_dim_step_past", "aten::unfold", lambda x: x.unfold(0, 2, 3), [T(8, 2)]),
    Row("unfold.int64", "aten::unfold", lambda x: x.unfold(1, 2, 2), [T(2, 6, dtype=torch.int64)]),
    Row("unfold.one_d", "aten::unfold", lambda x: x.unfold(0, 4, 4), [T(12)]),
    Row("im2col", "aten::im2col", lambda x: F.unfold(x, 3), [T(2, 3, 5, 6)], dynamic=BATCH),
    Row("im2col.padding_stride_dilation", "aten::im2col",
        lambda x: F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), [T(1, 2, 6, 7)]),
    Row("im2col.unbatched", "aten::im2col", lambda x: F.unfold(x, 2, stride=2), [T(2, 4, 4)]),
    Row("im2col.module", "aten::im2col", module=lambda: nn.Unfold(kernel_size=(2, 2), padding=1),
        inputs=[T(1, 3, 3, 3)]),
    # F.fold is Col2Im, opset 18
    Row("col2im", "aten::col2im", lambda x: F.fold(x, (5, 6), 3), [T(2, 27, 12)], opsets=(17, 18, 21),
        dynamic=BATCH, refuse=Refuse("supported from opset 18", below=18)),
    Row("col2im.padding_stride_dilation", "aten::col2im",
        lambda x: F.fold(x, (6, 7), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), [T(1, 12, 24)],
        opsets=(18, 21)),
    Row("col2im.unbatched", "aten::col2im", lambda x: F.fold(x, (4, 4), 2, stride=2), [T(8, 4)],
        opsets=(18, 21)),
    Row("col2im.module", "aten::col2im", module=lambda: nn.Fold((3, 3), kernel_size=(2, 2), padding=1),
        inputs=[T(1, 12, 16)], opsets=(18, 21)),
]


# ---------------------------------------------------------------- packed sequences (rnn.c)

class PackedClassifier(nn.Module):
    """A text classifier over pack_padded_sequence: token ids (B, T) and, so that any
    draw gives sorted lengths, the per-row shortening drop (B,) in {0, 1}: lengths
    T - cumsum(drop), non-increasing and at least T - B."""

    def __init__(self, cell="lstm", bidirectional=False, layers=1, batch_first=True, total_length=None,
                 padding_value=0.0, return_lengths=False):
        super().__init__()
        self.emb = nn.Embedding(20, 4)
        rnn = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[cell]
        self.rnn = rnn(4, 5, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
        self.fc = nn.Linear(5 * (2 if bidirectional else 1), 3)
        self.batch_first, self.total_length, self.padding_value = batch_first, total_length, padding_value
        # the lengths take 8 values only: outputs of the rows that compare them
        self.return_lengths = return_lengths

    def forward(self, tok, drop):
        lengths = torch.cumsum(-drop, 0) + tok.shape[1]
        e = self.emb(tok if self.batch_first else tok.t())
        packed = nn.utils.rnn.pack_padded_sequence(e, lengths, batch_first=self.batch_first)
        out, h = self.rnn(packed)
        h = h[0] if isinstance(h, tuple) else h
        padded, lens = nn.utils.rnn.pad_packed_sequence(out, batch_first=self.batch_first,
                                                        total_length=self.total_length,
                                                        padding_value=self.padding_value)
        last = torch.cat([h[-2], h[-1]], 1) if self.rnn.bidirectional else h[-1]
        return (self.fc(last), padded, lens) if self.return_lengths else (self.fc(last), padded)


class PackedFixed(nn.Module):
    """pack_padded_sequence with constant lengths (opset 9 has no CumSum)."""

    def __init__(self, total_length=None):
        super().__init__()
        self.rnn = nn.LSTM(3, 4, batch_first=True)
        self.total_length = total_length

    def forward(self, x):
        packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3, 2]), batch_first=True)
        out, (h, c) = self.rnn(packed)
        padded, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=self.total_length)
        return padded, h, c


TOK = T(3, 6, dtype=torch.int64, lo=0, hi=19)
DROP = T(3, dtype=torch.int64, lo=0, hi=1)
PACKED_OPSETS = (11, 13, 17)

ROWS += [
    Row("_pack_padded_sequence.lstm_classifier", "aten::_pack_padded_sequence",
        module=lambda: PackedClassifier(return_lengths=True), inputs=[TOK, DROP], opsets=PACKED_OPSETS),
    Row("_pack_padded_sequence.lstm_classifier_dynamic", "aten::_pack_padded_sequence",
        module=lambda: PackedClassifier(), inputs=[TOK, DROP], opsets=PACKED_OPSETS,
        dynamic={"in0": {1: "time"}, "out1": {1: "time_out"}}),
    Row("_pack_padded_sequence.lstm_classifier_dynamic_batch", "aten::_pack_padded_sequence",
        module=lambda: PackedClassifier(), inputs=[TOK, DROP], opsets=PACKED_OPSETS,
        dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}, "out0": {0: "batch"}, "out1": {0: "batch"}}),
    Row("_pack_padded_sequence.gru_bidirectional_time_major", "aten::_pack_padded_sequence",
        module=lambda: PackedClassifier("gru", bidirectional=True, batch_first=False), inputs=[TOK, DROP],
        opsets=PACKED_OPSETS),
    Row("_pack_padded_sequence.rnn_two_layers", "aten::_pack_padded_sequence",
        module=lambda: PackedClassifier("rnn", layers=2), inputs=[TOK, DROP], opsets=PACKED_OPSETS),
    Row("_pad_packed_sequence.total_length", "aten::_pad_packed_sequence",
        module=lambda: PackedClassifier(total_length=8), inputs=[TOK, DROP], opsets=PACKED_OPSETS),
    Row("_pad_packed_sequence.padding_value", "aten::_pad_packed_sequence",
        module=lambda: PackedClassifier("lstm", bidirectional=True, padding_value=-1.0), inputs=[TOK, DROP],
        opsets=PACKED_OPSETS),
    Row("_pad_packed_sequence.constant_lengths", "aten::_pad_packed_sequence", module=lambda: PackedFixed(),
        inputs=[T(3, 6, 3)], opsets=(9, 10, 13, 17),
        refuse=Refuse("pad_packed_sequence without total_length trims to the longest length, known at run "
                      "time, which needs Slice's ends input", below=10)),
    Row("_pad_packed_sequence.constant_lengths_total_length", "aten::_pad_packed_sequence",
        module=lambda: PackedFixed(total_length=6), inputs=[T(3, 6, 3)]),
    Row("_pack_padded_sequence.constant_lengths_padded_past_input", "aten::_pack_padded_sequence",
        module=lambda: PackedFixed(total_length=8), inputs=[T(3, 6, 3)]),
]


# ---------------------------------------------------------------- sampling, bags, normalization, cells

class Bags(nn.Module):
    """An nn.EmbeddingBag over fixed offsets."""

    def __init__(self, bag, offsets):
        super().__init__()
        self.bag, self.offsets = bag, offsets

    def forward(self, x):
        return self.bag(x, torch.tensor(self.offsets))


class CellWithState(nn.Module):
    """An RNN cell given its state as inputs."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x, h, c):
        return self.cell(x, (h, c))


class BagClassifier(nn.Module):
    """torchtext's text classification tutorial model: EmbeddingBag (mean) over a flat
    batch of token ids cut at offsets, then Linear."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.EmbeddingBag(30, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, text):
        return self.fc(self.embedding(text, torch.tensor([0, 3, 7])))


def grid(*shape):
    """Sampling locations mostly inside [-1, 1], some outside (padding_mode matters)."""
    return T(*shape, lo=-1.2, hi=1.2)


ROWS += [
    Row("grid_sampler", "aten::grid_sampler", lambda x, g: F.grid_sample(x, g, align_corners=False),
        [T(1, 2, 4, 5), grid(1, 3, 4, 2)], opsets=(9, 16, 17),
        refuse=Refuse("supported from opset 16", below=16)),
    Row("grid_sampler.nearest_border_align", "aten::grid_sampler",
        lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border", align_corners=True),
        [T(2, 1, 5, 5), grid(2, 4, 3, 2)], opsets=(16, 17)),
    Row("grid_sampler.bicubic_reflection", "aten::grid_sampler",
        lambda x, g: F.grid_sample(x, g, mode="bicubic", padding_mode="reflection", align_corners=False),
        [T(1, 2, 6, 6), grid(1, 3, 3, 2)], opsets=(16, 17)),
    Row("grid_sampler.dynamic", "aten::grid_sampler", lambda x, g: F.grid_sample(x, g, align_corners=True),
        [T(1, 2, 4, 4), grid(1, 3, 3, 2)], opsets=(16, 17),
        dynamic={"in0": {0: "batch", 2: "h"}, "in1": {0: "batch", 1: "gh"}, "out0": {0: "batch", 2: "gh"}}),
    Row("grid_sampler.volumetric", "aten::grid_sampler", lambda x, g: F.grid_sample(x, g, align_corners=False),
        [T(1, 1, 3, 3, 3), grid(1, 2, 2, 2, 3)], opsets=(16, 17, 20, 21),
        refuse=Refuse("GridSample samples rank-4 (2-D) inputs only before opset 20", below=20)),
    # F.affine_grid: AffineGrid from opset 20; before, the base grid as a constant times theta
    Row("affine_grid_generator", "aten::affine_grid_generator",
        lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), [T(2, 2, 3)], opsets=(9, 13, 17, 20, 21)),
    Row("affine_grid_generator.align_corners", "aten::affine_grid_generator",
        lambda t: F.affine_grid(t, [1, 1, 3, 2], align_corners=True), [T(1, 2, 3)], opsets=(9, 17, 20, 21)),
    Row("affine_grid_generator.volumetric", "aten::affine_grid_generator",
        lambda t: F.affine_grid(t, [1, 2, 2, 3, 4], align_corners=False), [T(1, 3, 4)], opsets=(9, 17, 20, 21)),
    Row("affine_grid_generator.one_point_float64", "aten::affine_grid_generator",
        lambda t: F.affine_grid(t, [2, 1, 1, 3], align_corners=False), [T(2, 2, 3, dtype=F64)], opsets=(9, 17)),
    # a spatial transformer: theta from the input, the grid sampled (GridSample, 16)
    Row("affine_grid_generator.sampled", "aten::affine_grid_generator",
        lambda x, t: F.grid_sample(x, F.affine_grid(t, [2, 3, 5, 4], align_corners=False), align_corners=False),
        [T(2, 3, 6, 7), T(2, 2, 3, lo=-0.8, hi=0.8)], opsets=(16, 17)),
    # F.interpolate(antialias=True): Resize's antialias, opset 18
    Row("_upsample_bilinear2d_aa", "aten::_upsample_bilinear2d_aa",
        lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True), [T(1, 2, 8, 9)],
        opsets=(17, 18, 21), refuse=Refuse("supported from opset 18", below=18)),
    Row("_upsample_bilinear2d_aa.scale", "aten::_upsample_bilinear2d_aa",
        lambda x: F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True), [T(2, 3, 8, 6)],
        opsets=(18, 21)),
    Row("_upsample_bilinear2d_aa.align_corners", "aten::_upsample_bilinear2d_aa",
        lambda x: F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=True, antialias=True),
        [T(1, 2, 7, 9)], opsets=(18, 21),
        refuse=Refuse("Resize's antialiased filter maps align_corners coordinates unlike torch")),
    Row("_upsample_bilinear2d_aa.up", "aten::_upsample_bilinear2d_aa",
        lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", antialias=True), [T(1, 1, 4, 5)],
        opsets=(18, 21)),
    Row("_upsample_bicubic2d_aa", "aten::_upsample_bicubic2d_aa",
        lambda x: F.interpolate(x, size=(4, 3), mode="bicubic", antialias=True), [T(1, 2, 9, 7)],
        opsets=(17, 18, 21), refuse=Refuse("supported from opset 18", below=18)),
    Row("embedding_bag", "aten::embedding_bag", module=lambda: Bags(nn.EmbeddingBag(10, 3), [0, 4, 5]),
        inputs=[T(9, dtype=torch.int64, lo=0, hi=9)], opsets=(11, 13, 17)),
    Row("embedding_bag.text_classifier", "aten::embedding_bag", module=BagClassifier,
        inputs=[T(11, dtype=torch.int64, lo=0, hi=29)], opsets=(11, 13, 17), dynamic={"in0": {0: "tokens"}}),
    Row("embedding_bag.offsets_sum", "aten::embedding_bag",
        lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 2, 2, 5]), mode="sum"),
        [T(7, dtype=torch.int64, lo=0, hi=5), T(6, 3)], opsets=(11, 13, 17),
        dynamic={"in0": {0: "n"}}),
    Row("embedding_bag.offsets_max_empty_bag", "aten::embedding_bag",
        lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 3, 3]), mode="max"),
        [T(6, dtype=torch.int64, lo=0, hi=5), T(6, 4, distinct=True)], opsets=(11, 13, 17)),
    Row("embedding_bag.offsets_below_11", "aten::embedding_bag",
        lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 3]), mode="mean"),
        [T(6, dtype=torch.int64, lo=0, hi=5), T(6, 4)], opsets=(9, 10, 11),
        refuse=Refuse("embedding_bag with offsets numbers the indices with Range", below=11)),
    Row("embedding_bag.include_last_offset_weights", "aten::embedding_bag",
        lambda i, w, p: F.embedding_bag(i, w, torch.tensor([0, 2, 6]), mode="sum", per_sample_weights=p,
                                        include_last_offset=True),
        [T(6, dtype=torch.int64, lo=0, hi=5), T(6, 3), T(6)], opsets=(11, 13, 17)),
    Row("embedding_bag.padding_idx_mean", "aten::embedding_bag",
        lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 4]), mode="mean", padding_idx=0),
        [T(8, dtype=torch.int64, lo=0, hi=3), T(4, 3)], opsets=(11, 13, 17)),
    Row("embedding_bag.fixed_mean", "aten::embedding_bag", module=lambda: nn.EmbeddingBag(12, 4),
        inputs=[T(3, 5, dtype=torch.int64, lo=0, hi=11)], dynamic=BATCH),
    Row("embedding_bag.fixed_max_padding_idx", "aten::embedding_bag",
        module=lambda: nn.EmbeddingBag(6, 3, mode="max", padding_idx=1),
        inputs=[T(4, 3, dtype=torch.int64, lo=0, hi=5)]),
    Row("embedding_bag.fixed_sum_weights", "aten::embedding_bag",
        lambda i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
        [T(2, 4, dtype=torch.int64, lo=0, hi=4), T(5, 2), T(2, 4)]),
    Row("native_layer_norm", "aten::native_layer_norm",
        lambda x, w, b: torch.native_layer_norm(x, [4], w, b, 1e-5), [T(2, 3, 4), T(4), T(4)], dynamic=BATCH),
    Row("native_layer_norm.two_dims_no_affine", "aten::native_layer_norm",
        lambda x: torch.native_layer_norm(x, [3, 4], None, None, 1e-3), [T(2, 3, 4)]),
    Row("_weight_norm", "aten::_weight_norm", module=lambda: nn.utils.weight_norm(nn.Linear(3, 4)),
        inputs=[T(2, 3)]),
    Row("_weight_norm.conv_dim1", "aten::_weight_norm",
        module=lambda: nn.utils.weight_norm(nn.Conv1d(2, 3, 3), dim=1), inputs=[T(1, 2, 6)]),
    Row("_weight_norm.whole", "aten::_weight_norm",
        module=lambda: nn.utils.weight_norm(nn.Linear(3, 2), dim=None), inputs=[T(2, 3)]),
    Row("lstm_cell", "aten::lstm_cell", module=lambda: nn.LSTMCell(3, 4), inputs=[T(2, 3)], dynamic=BATCH),
    Row("lstm_cell.state_no_bias", "aten::lstm_cell", module=lambda: CellWithState(nn.LSTMCell(3, 2, bias=False)),
        inputs=[T(2, 3), T(2, 2), T(2, 2)]),
    Row("lstm_cell.unbatched", "aten::lstm_cell", module=lambda: nn.LSTMCell(3, 4), inputs=[T(3)]),
]


# ---------------------------------------------------------------- other element types
# (AveragePool, GlobalAveragePool, Resize, GridSample, Conv and ConvTranspose on float64
# compute in float32: ONNX Runtime has no float64 kernel for them)

ROWS += [
    Row("max_pool1d.float64", "aten::max_pool1d", lambda x: F.max_pool1d(x, 2), [T(1, 2, 6, dtype=F64, distinct=True)]),
    Row("max_pool2d_with_indices.float64", "aten::max_pool2d_with_indices", lambda x: F.max_pool2d(x, 2, return_indices=True), [T(1, 2, 4, 4, dtype=F64, distinct=True)]),
    Row("avg_pool3d.float64", "aten::avg_pool3d", lambda x: F.avg_pool3d(x, 2), [T(1, 2, 4, 4, 4, dtype=F64)]),
    Row("adaptive_max_pool2d.float64", "aten::adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), [T(1, 2, 4, 4, dtype=F64, distinct=True)]),
    Row("adaptive_avg_pool1d.float64", "aten::adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 1), [T(1, 2, 4, dtype=F64)]),
    Row("upsample_nearest1d.float64", "aten::upsample_nearest1d", lambda x: F.interpolate(x, scale_factor=2), [T(1, 2, 4, dtype=F64)]),
    Row("upsample_linear1d.float64", "aten::upsample_linear1d", lambda x: F.interpolate(x, scale_factor=2, mode="linear"), [T(1, 2, 4, dtype=F64)]),
    Row("upsample_bicubic2d.float64", "aten::upsample_bicubic2d", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), [T(1, 2, 4, 4, dtype=F64)], since=11),
    Row("grid_sampler.float64", "aten::grid_sampler", lambda x, g: F.grid_sample(x, g, align_corners=False), [T(1, 2, 4, 4, dtype=F64), T(1, 3, 3, 2, dtype=F64)], opsets=(16, 17)),
    Row("embedding_bag.float64_offsets", "aten::embedding_bag", lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 2]), mode="mean"), [T(5, dtype=torch.int64, lo=0, hi=4), T(5, 3, dtype=F64)], opsets=(11, 17)),
    Row("embedding_bag.float64_fixed_max", "aten::embedding_bag", lambda i, w: F.embedding_bag(i, w, mode="max"), [T(2, 3, dtype=torch.int64, lo=0, hi=4), T(5, 3, dtype=F64)]),
    Row("_weight_norm.float64_functional", "aten::_weight_norm", lambda v, g: torch._weight_norm(v, g, 0), [T(3, 4, dtype=F64), T(3, 1, dtype=F64)]),
    Row("native_layer_norm.float64", "aten::native_layer_norm", lambda x: torch.native_layer_norm(x, [4], None, None, 1e-5), [T(2, 4, dtype=F64)]),
    Row("unfold.bool", "aten::unfold", lambda x: x.unfold(0, 2, 1), [T(4, dtype=torch.bool)]),
    Row("im2col.float64", "aten::im2col", lambda x: F.unfold(x, 2), [T(1, 2, 3, 3, dtype=F64)]),
    Row("pixel_unshuffle.int64", "aten::pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [T(1, 1, 4, 4, dtype=torch.int64)]),
    Row("pad.circular_float64", "aten::pad", lambda x: F.pad(x, (1, 1), mode="circular"), [T(1, 2, 4, dtype=F64)]),
    Row("reflection_pad3d.float64", "aten::reflection_pad3d", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"), [T(1, 1, 3, 3, 3, dtype=F64)]),
    Row("lstm_cell.float64", "aten::lstm_cell", module=lambda: nn.LSTMCell(3, 2).double(), inputs=[T(2, 3, dtype=F64)]),
    Row("conv_transpose1d.float64", "aten::conv_transpose1d", module=lambda: nn.ConvTranspose1d(2, 2, 3).double(), inputs=[T(1, 2, 4, dtype=F64)]),
    Row("conv_tbc.float64", "aten::conv_tbc", lambda x, w, b: torch.conv_tbc(x, w, b, 1), [T(4, 1, 2, dtype=F64), T(3, 2, 2, dtype=F64), T(2, dtype=F64)]),
    Row("upsample_nearest2d.float64", "aten::upsample_nearest2d", lambda x: F.interpolate(x, size=(4, 6)),
        [T(1, 2, 2, 3, dtype=F64)]),
    Row("upsample_bilinear2d.float64", "aten::upsample_bilinear2d",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [T(1, 2, 2, 3, dtype=F64)]),
]
