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
    for (size_t i = 0; i < r->n; i++) {
        free(r->lines[i]);
        free(r->scopes[i]);
    }
    free(r->lines);
    free(r->scopes);
    ox_report_init(r);
}

static void report_vadd(ox_report *r, const char *scope, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    if (len < 0) {
        va_end(ap2);
        r->oom = 1;
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        char **lines = realloc(r->lines, cap * sizeof(*lines));
        if (lines)
            r->lines = lines;
        char **scopes = lines ? realloc(r->scopes, cap * sizeof(*scopes)) : NULL;
        if (!lines || !scopes) {
            va_end(ap2);
            r->oom = 1;
            return;
        }
        r->scopes = scopes;
        r->cap = cap;
    }
    char *line = malloc((size_t)len + 1);
    char *sc = scope && *scope ? strdup(scope) : NULL;
    if (!line || (scope && *scope && !sc)) {
        free(line);
        free(sc);
        va_end(ap2);
        r->oom = 1;
        return;
    }
    vsnprintf(line, (size_t)len + 1, fmt, ap2);
    va_end(ap2);
    r->lines[r->n] = line;
    r->scopes[r->n] = sc;
    r->n++;
}

void ox_report_add(ox_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_vadd(r, NULL, fmt, ap);
    va_end(ap);
}

void ox_report_add_at(ox_report *r, const char *scope, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_vadd(r, scope, fmt, ap);
    va_end(ap);
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

/* Do lines a and b say the same thing once each one's own scope is taken
 * out?  Compared in place: the text before the scope, then after it. */
static int same_problem(const ox_report *r, size_t a, size_t b)
{
    const char *la = r->lines[a], *lb = r->lines[b];
    const char *sa = r->scopes[a], *sb = r->scopes[b];
    const char *ca = sa ? strstr(la, sa) : NULL, *cb = sb ? strstr(lb, sb) : NULL;
    if (!ca || !cb)
        return !ca && !cb && strcmp(la, lb) == 0;
    size_t pa = (size_t)(ca - la), pb = (size_t)(cb - lb);
    return pa == pb && memcmp(la, lb, pa) == 0 && strcmp(ca + strlen(sa), cb + strlen(sb)) == 0;
}

int ox_report_group_lines(const ox_report *r, ox_report_group **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t *group_of = malloc((r->n ? r->n : 1) * sizeof *group_of);
    ox_report_group *g = calloc(r->n ? r->n : 1, sizeof *g);
    if (!group_of || !g) {
        free(group_of);
        free(g);
        return -1;
    }
    size_t n = 0;
    /* Quadratic, but reports are short and a long one is mostly one group. */
    for (size_t i = 0; i < r->n; i++) {
        size_t k = n;
        for (size_t j = 0; j < n; j++) {
            if (same_problem(r, g[j].first, i)) {
                k = j;
                break;
            }
        }
        if (k == n)
            g[n++].first = i;
        g[k].count++;
        group_of[i] = k;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        g[k].scopes = calloc(g[k].count, sizeof *g[k].scopes);
        g[k].scope_counts = calloc(g[k].count, sizeof *g[k].scope_counts);
        if (!g[k].scopes || !g[k].scope_counts)
            rc = -1;
    }
    for (size_t i = 0; i < r->n && rc == 0; i++) {
        ox_report_group *gr = &g[group_of[i]];
        const char *s = r->scopes[i];
        if (!s)
            continue;
        size_t j = 0;
        while (j < gr->n_scopes && strcmp(gr->scopes[j], s) != 0)
            j++;
        if (j == gr->n_scopes)
            gr->scopes[gr->n_scopes++] = s;
        gr->scope_counts[j]++;
    }
    free(group_of);
    if (rc != 0) {
        ox_report_groups_free(g, n);
        return -1;
    }
    *out = g;
    *n_out = n;
    return 0;
}

void ox_report_groups_free(ox_report_group *g, size_t n)
{
    for (size_t k = 0; g && k < n; k++) {
        free(g[k].scopes);
        free(g[k].scope_counts);
    }
    free(g);
}

char *ox_report_group_suffix(const ox_report_group *g, size_t max_scopes)
{
    if (g->count <= 1)
        return strdup("");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, " (%zu times", g->count);
    if (g->n_scopes) {
        fprintf(f, " in %zu scope%s: ", g->n_scopes, g->n_scopes == 1 ? "" : "s");
        for (size_t j = 0; j < g->n_scopes && j < max_scopes; j++)
            fprintf(f, "%s%s (%zu)", j ? ", " : "", g->scopes[j], g->scope_counts[j]);
        if (g->n_scopes > max_scopes)
            fprintf(f, " and %zu more", g->n_scopes - max_scopes);
    }
    fputc(')', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
