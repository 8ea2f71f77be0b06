"""Training mode (issue #11): batch_norm with the batch's statistics, dropout with
Dropout's training_mode input (opset 12+), and the refusals where ONNX has no training
form.  A dropout row draws its masks in ONNX Runtime, so only shape and dtype compare
(tol="shape"); tests/pytorch/test_training.py checks the values a mask leaves."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

DROPOUT_BEFORE_12 = Refuse("needs Dropout's training_mode input (opset 12); before it Dropout is the identity; "
                           "supported from opset 12", below=12)

ROWS = [
    # batch_norm: opsets 7-13 select training mode by the extra outputs, 14+ by training_mode=1
    Row("batch_norm.training", "aten::batch_norm",
        lambda x: F.batch_norm(x, torch.zeros(3), torch.ones(3), training=True), [T(2, 3, 4)],
        opsets=(9, 13, 14, 17)),
    Row("batch_norm.training_affine", "aten::batch_norm",
        lambda x, w, b: F.batch_norm(x, torch.zeros(3), torch.ones(3), w, b, training=True, momentum=0.3,
                                     eps=1e-3), [T(4, 3, 2, 2), T(3, lo=0.5, hi=2), T(3)], opsets=(9, 13, 14, 17)),
    # Without running statistics torch records training=True in either mode; the file
    # normalises with the batch's mean and variance (ReduceMean), as torch.onnx does.
    Row("batch_norm.no_running_stats", "aten::batch_norm",
        module=lambda: nn.BatchNorm2d(3, track_running_stats=False).eval(), inputs=[T(2, 3, 4, 4)],
        opsets=(9, 13, 14, 17)),
    Row("batch_norm.no_running_stats_1d", "aten::batch_norm",
        lambda x: F.batch_norm(x, None, None, training=True), [T(5, 3)], opsets=(9, 13, 14, 17)),
    # dropout: the runtime draws the mask
    Row("dropout.training", "aten::dropout", lambda x: F.dropout(x, 0.5, training=True), [T(3, 4)],
        opsets=(9, 12, 13, 17), tol="shape", refuse=DROPOUT_BEFORE_12),
    Row("native_dropout.training", "aten::native_dropout", lambda x: torch.native_dropout(x, 0.5, True),
        [T(3, 4)], opsets=(9, 12, 13, 17), tol="shape",
        refuse=Refuse("native_dropout in training mode (train=True or None) needs Dropout's training_mode input "
                      "(opset 12)", below=12)),
    Row("feature_dropout.training", "aten::feature_dropout", lambda x: F.dropout2d(x, 0.5, training=True),
        [T(1, 3, 4, 4)], refuse=Refuse("channel dropout (dropout2d/3d) in training mode has no ONNX operator")),
]
