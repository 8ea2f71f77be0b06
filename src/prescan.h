/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Pipeline stage 1, the pre-scan: every traced node against the config
 * (disabled operators), the loaded packs (a symbolic at the target opset,
 * arguments against its declaration, its check hook) and the opset
 * descriptors (accepted parameters, limitations), before any symbolic
 * runs, so one export reports every problem at once.
 */
#ifndef OXPORT_PRESCAN_H
#define OXPORT_PRESCAN_H

#include "context.h"
#include "ir.h"
#include "report.h"

/* Problems go to r, notes (nodes exported as ATen or as recorded) to notes.
 * lo..hi: the enabled opset range, for "supported from opset N" hints. */
void ox_prescan(ox_context *ctx, const ox_graph *traced, int opset, int lo, int hi,
                ox_report *r, ox_report *notes);

#endif
