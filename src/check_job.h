/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * ox_check on a thread of its own, for ox_export: the check only reads the
 * graph, and so does the writer, so the two run side by side and the
 * export's time is the longer of them rather than their sum (the check was
 * about a seventh of a large export's instructions, docs/performance.md).
 * The writer calls ox_check_finish before it commits the file, so a graph
 * that fails the check still leaves no file.
 */
#ifndef OXPORT_CHECK_JOB_H
#define OXPORT_CHECK_JOB_H

#include "oxport/oxport.h"

typedef struct ox_check_job ox_check_job;

/* Below this many nodes the check runs in ox_check_start itself: it takes
 * less time than starting a thread (about 0.4 us a node against some
 * 50 us), and a small export stays on one thread, so its allocations come
 * in one order (tests/test_alloc_failures.c fails each in turn). */
#define OX_CHECK_THREAD_MIN_NODES 1024u

/* Starts checking g, which must not change until ox_check_finish.  For a
 * small graph, or where no thread can be created, the check runs here,
 * before the call returns;
 * NULL (out of memory) leaves it to ox_check_finish. */
ox_check_job *ox_check_start(const ox_graph *g);
/* Waits for the check and frees j: what ox_check(ctx, g, NULL, NULL) would
 * have returned, with the same message on ctx. */
ox_status ox_check_finish(ox_context *ctx, const ox_graph *g, ox_check_job *j);

#endif /* OXPORT_CHECK_JOB_H */
