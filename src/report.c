#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ox_report_init(ox_report *r)
{
    memset(r, 0, sizeof(*r));
}

void ox_report_free(ox_report *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->lines[i]);
    free(r->lines);
    ox_report_init(r);
}

void ox_report_add(ox_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        r->oom = 1;
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        char **lines = realloc(r->lines, cap * sizeof(*lines));
        if (!lines) {
            r->oom = 1;
            return;
        }
        r->lines = lines;
        r->cap = cap;
    }
    char *line = malloc((size_t)len + 1);
    if (!line) {
        r->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(line, (size_t)len + 1, fmt, ap);
    va_end(ap);
    r->lines[r->n++] = line;
}

char *ox_report_join(const ox_report *r, const char *header)
{
    size_t total = header ? strlen(header) + 1 : 0;
    for (size_t i = 0; i < r->n; i++)
        total += strlen(r->lines[i]) + 1;
    char *out = malloc(total + 1);
    if (!out)
        return NULL;
    char *p = out;
    if (header) {
        size_t l = strlen(header);
        memcpy(p, header, l);
        p += l;
        if (r->n)
            *p++ = '\n';
    }
    for (size_t i = 0; i < r->n; i++) {
        size_t l = strlen(r->lines[i]);
        memcpy(p, r->lines[i], l);
        p += l;
        if (i + 1 < r->n)
            *p++ = '\n';
    }
    *p = '\0';
    return out;
}
