/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The verbose printer (torch.onnx's format) and the one-line model summary
 * `oxport dump` shows above it.
 */
#ifndef OXPORT_PRINT_H
#define OXPORT_PRINT_H

#include <stdio.h>

#include "ir.h"

/* One line: ir_version=7 opsets=[ai.onnx:13] producer=... graph=... nodes=N
 * initializers=N inputs=N outputs=N, ending in '\n'.  OX_EIO on a write error. */
ox_status ox_print_header(const ox_graph *g, FILE *out);

#endif /* OXPORT_PRINT_H */
