/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * What a file exported with dynamic axes still fixes to the example: node
 * structure a dynamic axis would change.  A Python list's length is the
 * traced size (x.unbind(1) over a dynamic dim gives one Split output per
 * traced position), so the file makes that many pieces at every size; a
 * symbolic that reads a size (Tensor.unfold's window count) builds the
 * example's value into the file.  The export cannot record either; it says
 * so, naming the node's scope.
 */
#ifndef OXPORT_FIXED_COUNTS_H
#define OXPORT_FIXED_COUNTS_H

#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "report.h"
#include "static_shapes.h"

/* One line in `out` per node of g whose output count is a traced size a
 * dynamic input axis reaches, and one per recorded operator whose symbolic
 * read a size a dynamic axis reaches (`reads`, the conversion's: the file
 * holds the example's value there, as a window table or a pooling kernel
 * built from it).  `shapes` is g's analysis when the caller has one
 * (ox_static_shapes_of), else NULL.  Nothing when no input dim is named or
 * unknown.  -1 out of memory. */
int ox_fixed_counts_warn(const ox_graph *g, const ox_static_shapes *shapes,
                         const ox_size_read *reads, size_t n_reads, ox_report *out);

#endif /* OXPORT_FIXED_COUNTS_H */
