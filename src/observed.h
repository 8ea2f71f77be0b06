/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The values a host fixed in its own code (ox_trace_fixed_values: a size
 * read in Python and compared, or turned into a plain number).  The file
 * holds the example's value there, which is only a specialisation where the
 * value can differ on another run; so each entry warns only when one of its
 * values may vary, by the varying-dims analysis (varying_dims.h): a size no
 * dynamic axis and no data-sized result reaches is the same on every run.
 */
#ifndef OXPORT_OBSERVED_H
#define OXPORT_OBSERVED_H

#include "oxport/oxport.h"
#include "ir.h"
#include "report.h"

/* Adds to `notes` the message of each of g's ox_observed entries with a
 * value that may vary, then clears the entries and removes what only they
 * kept alive (dead-code elimination).  Runs before naming, so the names the
 * file gets are the ones it would have had without them. */
ox_status ox_pass_resolve_observed(ox_context *ctx, ox_graph *g, ox_report *notes);

#endif /* OXPORT_OBSERVED_H */
