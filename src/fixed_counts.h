/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * What a file exported with dynamic axes still fixes to the example: node
 * structure a dynamic axis would change.  A Python list's length is the
 * traced size (x.unbind(1) over a dynamic dim gives one Split output per
 * traced position), so the file makes that many pieces at every size.  The
 * export cannot record it; it says so, naming the node's scope, as the
 * standard for a value fixed to the example asks.
 */
#ifndef OXPORT_FIXED_COUNTS_H
#define OXPORT_FIXED_COUNTS_H

#include "ir.h"
#include "report.h"

/* One line in `out` per node of g whose output count is a traced size a
 * dynamic input axis reaches.  Nothing when no input dim is named or
 * unknown.  -1 out of memory. */
int ox_fixed_counts_warn(const ox_graph *g, ox_report *out);

#endif /* OXPORT_FIXED_COUNTS_H */
