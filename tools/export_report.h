/*
 * `oxport export --report FILE.json`: what an export did, for scripts
 * (schema in docs/json-output.md): the model, target and opset, whether it
 * was written, the engine's message, every problem grouped as the text
 * report groups them (identical problems once, with count and scopes), and
 * a summary of the file written.
 */
#ifndef OXPORT_TOOLS_EXPORT_REPORT_H
#define OXPORT_TOOLS_EXPORT_REPORT_H

#include "oxport/oxport.h"

/* "json" for a *.json path or "-" (standard output); NULL otherwise. */
const char *ox_export_report_format(const char *path);

/* Write the report after ox_export returned `st` for `target` (ctx still
 * holds its message and problems).  0, or -1 with a message on stderr. */
int ox_export_report_write(const char *path, ox_context *ctx, const char *model,
                           const char *target, int opset, ox_status st);

#endif /* OXPORT_TOOLS_EXPORT_REPORT_H */
