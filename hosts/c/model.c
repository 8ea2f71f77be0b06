/*
 * Parameter registry and deterministic initialisation.  Each parameter's
 * stream is seeded from its name, so a weight's values do not depend on the
 * order modules are built in.
 */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hc_rng_seed(hc_rng *r, uint64_t seed) { r->s = seed; }

uint64_t hc_rng_next(hc_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float hc_rng_uniform(hc_rng *r, float lo, float hi)
{
    float u = (float)(hc_rng_next(r) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

uint64_t hc_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void hc_model_init(hc_model *m, uint64_t seed, int shape_only)
{
    memset(m, 0, sizeof *m);
    m->seed = seed;
    m->shape_only = shape_only;
}

void hc_model_free(hc_model *m)
{
    for (size_t i = 0; i < m->n_params; i++) {
        free(m->params[i]->t.data);
        free(m->params[i]->name);
        free(m->params[i]);
    }
    free(m->params);
    free(m->weights_file);
    if (m->state && m->free_state)
        m->free_state(m->state);
    else
        free(m->state);
    memset(m, 0, sizeof *m);
}

/* Returned when building fails, so module code never dereferences NULL. */
static hc_tensor *placeholder(hc_model *m)
{
    m->failed = 1;
    return NULL;
}

hc_tensor *hc_param_uniform(hc_model *m, uint32_t rank, const int64_t *sizes, float lo, float hi,
                            const char *fmt, ...)
{
    if (m->failed)
        return NULL;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (m->n_params == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        hc_param **p = realloc(m->params, cap * sizeof *p);
        if (!p)
            return placeholder(m);
        m->params = p;
        m->cap = cap;
    }
    hc_param *p = calloc(1, sizeof *p);
    if (!p)
        return placeholder(m);
    p->name = strdup(name);
    if (!p->name) {
        free(p);
        return placeholder(m);
    }
    hc_tensor_set(&p->t, OX_FLOAT, rank, sizes, NULL);
    int64_t n = hc_numel(&p->t);
    size_t len = strlen(name);
    int buffer = (len > 13 && strcmp(name + len - 13, ".running_mean") == 0) ||
                 (len > 12 && strcmp(name + len - 12, ".running_var") == 0);
    if (buffer)
        m->n_buffer_elements += (size_t)n;
    else
        m->n_elements += (size_t)n;
    p->lo = lo;
    p->hi = hi;
    m->params[m->n_params++] = p;
    if (m->shape_only)
        return &p->t;
    float *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    if (!d)
        return placeholder(m);
    hc_param_fill(m, p, 0, n, d);
    p->t.data = d;
    return &p->t;
}

void hc_param_fill(const hc_model *m, const hc_param *p, int64_t first, int64_t n, float *out)
{
    /* one draw per element; splitmix64's state is a counter, so starting at
     * element `first` is one multiply-add, and a weights file can be
     * generated a chunk at a time with the very values the zoo computes */
    hc_rng r;
    hc_rng_seed(&r, m->seed ^ hc_hash_str(p->name));
    r.s += 0x9e3779b97f4a7c15ull * (uint64_t)first;
    for (int64_t i = 0; i < n; i++)
        out[i] = hc_rng_uniform(&r, p->lo, p->hi);
}

void hc_model_trace_params(hc_model *m, hc_rt *rt)
{
    for (size_t i = 0; i < m->n_params; i++) {
        hc_param *p = m->params[i];
        if (p->file)
            hc_trace_param_file(rt, &p->t, p->name, p->file, p->file_offset,
                                (uint64_t)hc_numel(&p->t) * hc_dtype_size(p->t.dtype));
        else if (!p->t.data && hc_numel(&p->t) > 0)
            hc_trace_param_absent(rt, &p->t, p->name);
        else
            hc_trace_param(rt, &p->t, p->name);
    }
}
