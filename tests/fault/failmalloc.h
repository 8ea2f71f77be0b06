/* Control functions of the allocation-failure injector (failmalloc.c), for
 * a test that runs with it preloaded. */
#ifndef OXPORT_TESTS_FAILMALLOC_H
#define OXPORT_TESTS_FAILMALLOC_H

/* Allocations made since the program started. */
long failmalloc_calls(void);
/* Fail the k-th allocation from now (k >= 1); 0 disarms. */
void failmalloc_fail_after(long k);
/* Start (1, clearing the record) or stop (0) recording live allocations. */
void failmalloc_track(int on);
/* Allocations recorded since failmalloc_track(1) and not freed (-1: too many to record). */
long failmalloc_live(void);

#endif
