/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The export pipeline: the stages a traced graph goes through, in order, one
 * table, each stage's code in its own file:
 *
 *   prescan          convert.c   every node checked; all problems at once
 *   convert          convert.c   one symbolic call per node
 *   remove-identity  passes.c
 *   dce              passes.c
 *   toposort         passes.c
 *   name             passes.c    torch's numbering ("%17", "Conv_3")
 *   fold-constants   fold.c      ox_export with do_constant_folding
 *   dce              passes.c    ... what folding left unused
 *   functions        functions.c ox_export: selected modules become local functions
 *   io-layout        io_layout.c ox_export: inputs vs initializers, names
 *
 * Naming comes before folding so that a folded node keeps the name and the
 * values keep the numbers torch gives them.  ox_convert (oxport.h) runs the
 * stages up to naming; ox_export runs them all, then prints, checks and
 * serializes (onnx_write.c) the layout the last stage decided.
 */
#ifndef OXPORT_PIPELINE_H
#define OXPORT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "context.h"
#include "io_layout.h"
#include "passes.h"
#include "report.h"
#include "static_shapes.h"
#include "ir.h"

typedef struct ox_pipeline {
    ox_context *ctx;
    const ox_graph *traced;
    int opset;                       /* 0 = the context's target, resolved by prescan */
    int lo, hi;                      /* the enabled opset range */
    const ox_export_options *export; /* NULL (ox_convert): no folding, no layout */
    ox_graph *g;                     /* the ONNX graph, from the convert stage on */
    ox_io_layout layout;             /* decided by io-layout */
    bool laid_out;
    ox_graph_survey survey;          /* the converted graph's, for the cleanup passes */
    bool surveyed;                   /* survey describes the graph as it stands */
    size_t n_folded;                 /* nodes the fold-constants stage folded */
    /* The fold's shape analysis, for the writer (io_layout.h), while no
     * later stage has changed the graph in a way it would not see. */
    ox_static_shapes shapes;
    bool have_shapes;
    /* Warnings of the stages (an option that matched nothing), for the
     * context's warnings after the export (export.c). */
    ox_report notes;
} ox_pipeline;

/* Which runs a stage belongs to. */
typedef enum ox_stage_when {
    OX_STAGE_ALWAYS,   /* ox_convert and ox_export */
    OX_STAGE_FOLDING,  /* ox_export with do_constant_folding */
    OX_STAGE_EXPORTING /* ox_export */
} ox_stage_when;

typedef struct ox_stage {
    const char *name;
    ox_status (*run)(ox_pipeline *p);
    ox_stage_when when;
} ox_stage;

/* The stage table, in order. */
size_t ox_pipeline_stages(const ox_stage **out);

/* export may be NULL (ox_convert's stages only). */
void ox_pipeline_init(ox_pipeline *p, ox_context *ctx, const ox_graph *traced, int opset,
                      const ox_export_options *export);
/* Every stage that applies, in order; the first failure stops the run. */
ox_status ox_pipeline_run(ox_pipeline *p);
/* The stages from `first` on (for a graph already in p->g: tests). */
ox_status ox_pipeline_run_from(ox_pipeline *p, const char *first);
/* The ONNX graph, now the caller's (NULL before the convert stage). */
ox_graph *ox_pipeline_take_graph(ox_pipeline *p);
void ox_pipeline_free(ox_pipeline *p);

#endif /* OXPORT_PIPELINE_H */
