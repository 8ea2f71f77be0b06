/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * A list of problems collected across a whole graph, so the user sees every
 * unsupported operator and limitation hit in one run instead of the first.
 *
 * A problem may name the scope (module) it was found in.  The same problem
 * in many nodes (Swin-T's 24 strided slices in 3 modules) is one group:
 * lines identical once their scope is taken out.  Reports show each group
 * once, with its count and scopes.
 */
#ifndef OXPORT_REPORT_H
#define OXPORT_REPORT_H

#include <stddef.h>

typedef struct ox_report {
    char **lines;
    char **scopes; /* per line: the scope named in it, or NULL */
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
/* A problem found at `scope` (NULL or "" for none); the formatted line
 * should name the scope, as every line has so far. */
void ox_report_add_at(ox_report *r, const char *scope, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* All lines joined with '\n' after `header` (header may be NULL); malloc'd. */
char *ox_report_join(const ox_report *r, const char *header);

/* Identical problems, in first-seen order. */
typedef struct ox_report_group {
    size_t first;          /* index of its first line: the one shown */
    size_t count;          /* lines in the group */
    size_t n_scopes;       /* distinct scopes, first-seen order */
    const char **scopes;   /* borrowed from the report */
    size_t *scope_counts;  /* lines per scope */
} ox_report_group;

/* Group the report's lines; 0, or -1 out of memory. */
int ox_report_group_lines(const ox_report *r, ox_report_group **out, size_t *n_out);
void ox_report_groups_free(ox_report_group *g, size_t n);

/* " (24 times in 3 scopes: A (8), B (8), C (8))" for a group of more than one
 * line, "" for one; at most `max_scopes` scopes are named.  malloc'd. */
char *ox_report_group_suffix(const ox_report_group *g, size_t max_scopes);

#endif /* OXPORT_REPORT_H */
