/*
 * A list of problems collected across a whole graph, so the user sees every
 * unsupported operator and limitation hit in one run instead of the first.
 */
#ifndef OXPORT_REPORT_H
#define OXPORT_REPORT_H

#include <stddef.h>

typedef struct ox_report {
    char **lines;
    size_t n, cap;
    int oom; /* a line could not be stored */
} ox_report;

void ox_report_init(ox_report *r);
void ox_report_free(ox_report *r);
void ox_report_add(ox_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* All lines joined with '\n' after `header` (header may be NULL); malloc'd. */
char *ox_report_join(const ox_report *r, const char *header);

#endif /* OXPORT_REPORT_H */
