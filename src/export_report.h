/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The export report (`oxport export --report FILE`, ox_export_report): what an export did, for scripts (FILE.json,
 * schema in docs/json-output.md) and for people (FILE.html, one page that
 * reads offline).  Both hold the model, target and opset, whether the file
 * was written, the engine's message, every problem grouped as the text
 * report groups them (identical problems once, with count and scopes), the
 * time per stage and a summary of the file written; the HTML page adds the
 * recorded operators and the ONNX nodes they became, module by module, and
 * the graph picture.
 */
#ifndef OXPORT_EXPORT_REPORT_H
#define OXPORT_EXPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "ir.h"

#define OX_EXPORT_MAX_STAGES 4

typedef struct ox_export_stage {
    const char *name; /* "build weights", "run and trace", "convert and write" */
    double seconds;
} ox_export_stage;

typedef struct ox_export_facts {
    const char *model, *target;
    int opset;
    ox_status status;        /* ox_export's result */
    const ox_graph *traced;  /* the recorded graph, or NULL */
    ox_export_stage stages[OX_EXPORT_MAX_STAGES];
    size_t n_stages;
} ox_export_facts;

/* "json" for *.json or "-" (standard output), "html" for *.html; NULL otherwise. */
const char *ox_export_report_format(const char *path);

/* Write the report after ox_export (ctx still holds its message and
 * problems), atomically; ox_export_report in oxport.h is the public form.
 * On failure the context's message says why. */
ox_status ox_export_report_write(ox_context *ctx, const char *path, const ox_export_facts *f);

/* The HTML page (export_report_html.c), written to `out`.  `written` is
 * the file read back (NULL when the export failed). */
void ox_export_report_html(FILE *out, ox_context *ctx, const ox_export_facts *f,
                           const ox_graph *written, const char *message);

#endif /* OXPORT_EXPORT_REPORT_H */
