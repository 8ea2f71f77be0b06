"""Rows of the unary helper's families (issue #10): ELU-family, shrinkage and gated
activations; pointwise math (logarithms, rounding, fmod, nan/inf tests, lerp, addcmul);
bitwise logic and shifts; identity-like operators.  Format: docs/testing-operators.md."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from optable import Refuse, Row, T

I64, I32, BOOL, F64, U8 = torch.int64, torch.int32, torch.bool, torch.float64, torch.uint8

ROWS = [
    # ---------------------------------------------------------------- activations
    Row("elu", "aten::elu", lambda x: F.elu(x), [T(2, 3, 4)]),
    Row("elu.alpha", "aten::elu", lambda x: F.elu(x, alpha=0.5), [T(3, 4)]),
    Row("elu.inplace", "aten::elu", lambda x: F.elu(x * 1, inplace=True), [T(3, 4)]),
    Row("elu.float64", "aten::elu", lambda x: F.elu(x), [T(3, 4, dtype=F64)]),
    Row("elu.zero_dim", "aten::elu", lambda x: F.elu(x), [T()]),
    Row("elu.dynamic", "aten::elu", lambda x: F.elu(x), [T(2, 3)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("celu", "aten::celu", lambda x: F.celu(x), [T(3, 4)]),
    Row("celu.alpha", "aten::celu", lambda x: F.celu(x, alpha=0.5), [T(3, 4)], opsets=(9, 11, 12, 13, 17)),
    Row("celu.float64", "aten::celu", lambda x: F.celu(x, alpha=2.0), [T(3, 4, dtype=F64)]),
    Row("selu", "aten::selu", lambda x: F.selu(x), [T(3, 4)]),
    Row("selu.module_inplace", "aten::selu", module=lambda: nn.Sequential(nn.Linear(4, 4), nn.SELU(inplace=True)),
        inputs=[T(3, 4)]),
    Row("softplus", "aten::softplus", lambda x: F.softplus(x), [T(3, 4, lo=-30, hi=30)]),
    Row("softplus.beta_threshold", "aten::softplus", lambda x: F.softplus(x, beta=2, threshold=1.0), [T(3, 4)]),
    Row("softplus.float64", "aten::softplus", lambda x: F.softplus(x, beta=0.5), [T(3, 4, dtype=F64)]),
    Row("mish", "aten::mish", lambda x: F.mish(x), [T(3, 4, lo=-4, hi=4)]),
    Row("hardshrink", "aten::hardshrink", lambda x: F.hardshrink(x), [T(3, 4)]),
    Row("hardshrink.lambd", "aten::hardshrink", lambda x: F.hardshrink(x, 1.0), [T(3, 4)]),
    Row("softshrink", "aten::softshrink", lambda x: F.softshrink(x), [T(3, 4)]),
    Row("softshrink.lambd_float64", "aten::softshrink", lambda x: F.softshrink(x, 1.0), [T(3, 4, dtype=F64)]),
    Row("tanhshrink", "aten::tanhshrink", lambda x: F.tanhshrink(x), [T(3, 4)]),
    Row("log_sigmoid", "aten::log_sigmoid", lambda x: F.logsigmoid(x), [T(3, 4, lo=-8, hi=8)]),
    Row("log_sigmoid.module", "aten::log_sigmoid", module=lambda: nn.LogSigmoid(), inputs=[T(3, 4)]),
    Row("glu", "aten::glu", lambda x: F.glu(x), [T(3, 4)]),
    Row("glu.dim0", "aten::glu", lambda x: F.glu(x, 0), [T(4, 3)]),
    Row("glu.negative_dim", "aten::glu", lambda x: F.glu(x, -2), [T(2, 6, 3)]),
    Row("glu.dynamic", "aten::glu", lambda x: F.glu(x, 1), [T(2, 6)], dynamic={"in0": {0: "n"}, "out0": {0: "n"}}),
    Row("prelu", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T(2, 3, 4)]),
    Row("prelu.rank1_shared", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T(5)]),
    Row("prelu.rank2_channels", "aten::prelu", module=lambda: nn.PReLU(4, 0.1), inputs=[T(3, 4)]),
    Row("prelu.rank3_channels", "aten::prelu", module=lambda: nn.PReLU(3, 0.3), inputs=[T(2, 3, 5)]),
    Row("prelu.rank4_channels", "aten::prelu", module=lambda: nn.PReLU(3, 0.3), inputs=[T(2, 3, 4, 4)],
        dynamic={"in0": {0: "b", 2: "h"}, "out0": {0: "b", 2: "h"}}),
    Row("prelu.zero_dim", "aten::prelu", module=lambda: nn.PReLU(), inputs=[T()]),
    Row("prelu.float64", "aten::prelu", module=lambda: nn.PReLU(3).double(), inputs=[T(2, 3, 4, dtype=F64)]),
    Row("rrelu", "aten::rrelu", lambda x: F.rrelu(x), [T(3, 4)]),
    Row("rrelu.bounds", "aten::rrelu", module=lambda: nn.RReLU(0.1, 0.5).eval(), inputs=[T(3, 4)]),
    Row("rrelu.training", "aten::rrelu", lambda x: F.rrelu(x, 0.1, 0.5, training=True), [T(3, 4)], tol="shape"),
]
ROWS += [
    Row("mish.float64", "aten::mish", lambda x: F.mish(x), [T(3, 4, dtype=F64, lo=-4, hi=4)]),
    Row("log_sigmoid.float64", "aten::log_sigmoid", lambda x: F.logsigmoid(x), [T(3, 4, dtype=F64, lo=-8, hi=8)]),
    Row("rrelu.float64", "aten::rrelu", lambda x: F.rrelu(x), [T(3, 4, dtype=F64)]),
    Row("selu.float64", "aten::selu", lambda x: F.selu(x), [T(3, 4, dtype=F64)]),
    Row("softplus.large", "aten::softplus", lambda x: F.softplus(x, beta=3), [T(3, 4, lo=-40, hi=40)]),
]

ROWS += [
    Row("alpha_dropout.eval", "aten::alpha_dropout", lambda x: F.alpha_dropout(x, 0.5, training=False) * 2, [T(3, 4)]),
    Row("alpha_dropout.module_eval", "aten::alpha_dropout", module=lambda: nn.Sequential(nn.Linear(4, 4),
        nn.AlphaDropout(0.2)), inputs=[T(3, 4)]),
    Row("alpha_dropout.training", "aten::alpha_dropout", lambda x: F.alpha_dropout(x, 0.5, training=True),
        [T(3, 4)], refuse=Refuse("alpha dropout in training mode is not exported")),
    Row("feature_alpha_dropout.eval", "aten::feature_alpha_dropout",
        lambda x: F.feature_alpha_dropout(x, 0.5, training=False) + 1, [T(1, 3, 4, 4)]),
    Row("feature_alpha_dropout.training", "aten::feature_alpha_dropout",
        lambda x: F.feature_alpha_dropout(x, 0.5, training=True), [T(1, 3, 4, 4)],
        refuse=Refuse("alpha dropout in training mode is not exported")),
    Row("native_dropout.eval", "aten::native_dropout", lambda x: torch.native_dropout(x, 0.5, False), [T(3, 4)],
        constant=(1,)),
    Row("native_dropout.training", "aten::native_dropout", lambda x: torch.native_dropout(x, 0.5, True)[0],
        [T(3, 4)], refuse=Refuse("native_dropout in training mode (train=True or None) is not exported")),
]
