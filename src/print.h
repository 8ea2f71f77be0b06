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
 * initializers=N inputs=N outputs=N, ending in '\n'.  The file's strings in
 * it (producer, graph name, domains) are written with ox_print_escaped, so it
 * stays one line whatever they hold.  OX_EIO on a write error. */
ox_status ox_print_header(const ox_graph *g, FILE *out);

/* s as the printer writes a file's text outside quotes: a control character
 * escaped as \n (newline) or \xNN (the other C0 controls and DEL, e.g. \x1b;
 * a C1 control's two UTF-8 bytes as \xc2\x9b), a backslash as \\, every
 * other byte as is.  The line it is on stays one line and a terminal sees
 * no control sequence. */
void ox_print_escaped(FILE *out, const char *s);

#endif /* OXPORT_PRINT_H */
