/*
 * The structural comparison of two graphs behind `oxport diff`
 * (ox_graph_diff): what a user of the file sees (inputs, outputs,
 * initializers with their types), the op histogram, and the node sequences
 * aligned by topological position and op type (a longest common
 * subsequence, so one inserted Identity does not shift everything after
 * it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_json.h"
#include "ir.h"
#include "print.h"
#include "strmap.h"
#include "oxport/json.h"

/* Differences listed per section before "... and N more" (text only: the
 * JSON form lists them all). */
#define SHOWN 20
/* Node-alignment table cells (one byte each) before falling back to
 * comparing by position alone. */
#define MAX_ALIGN_CELLS ((size_t)64 << 20)

/* One difference, as the JSON form lists it; the text form prints only the
 * message.  Absent fields (NULL strings, numbers not in `has`) are written
 * as null. */
enum { HAS_INDEX_A = 1, HAS_INDEX_B = 2, HAS_COUNTS = 4 };
typedef struct diff_item {
    const char *what;             /* e.g. "type differs", "only in A", "op count" */
    const char *name;             /* the value's, initializer's or op type's name in A
                                   * (in B when only B has it) */
    const char *name_b;           /* its name in B, when that differs */
    unsigned has;                 /* which numbers below are present */
    long long index_a, index_b;   /* position in A and B */
    const char *a, *b;            /* the two sides' type or value, as text */
    long long count_a, count_b;   /* counts (inputs, op histogram) */
} diff_item;

#define ITEM(...) (&(diff_item){__VA_ARGS__})

/* The comparison writes to one of two sinks: text lines to `out`, or one
 * JSON object per section to `j` ({"name", "differences": [...], "summary",
 * "alignment"}). */
typedef struct differ {
    FILE *out;
    ox_json *j;
    size_t n;             /* differences found */
    size_t shown;         /* in the current section */
    bool in_section;      /* JSON: a section object is open */
    bool in_list;         /* JSON: its differences array is open */
    bool summarized;      /* JSON: its "summary" is written */
    const char *alignment;/* JSON: how the nodes were aligned */
} differ;

static void close_list(differ *d)
{
    if (d->j && d->in_list) {
        ox_json_array_end(d->j);
        d->in_list = false;
    }
}

static void end_section(differ *d)
{
    if (!d->j || !d->in_section)
        return;
    close_list(d);
    if (!d->summarized) {
        ox_json_key(d->j, "summary");
        ox_json_null(d->j);
    }
    ox_json_key(d->j, "alignment");
    ox_json_string(d->j, d->alignment); /* null but for the nodes */
    d->alignment = NULL;
    ox_json_object_end(d->j);
    d->in_section = false;
}

/* A section: `title` heads it in text, `key` names it in JSON. */
static void section(differ *d, const char *title, const char *key)
{
    d->shown = 0;
    if (!d->j) {
        fprintf(d->out, "%s:\n", title);
        return;
    }
    end_section(d);
    ox_json_object(d->j);
    ox_json_key(d->j, "name");
    ox_json_string(d->j, key);
    ox_json_key(d->j, "differences");
    ox_json_array(d->j);
    d->in_section = d->in_list = true;
    d->summarized = false;
}

/* The section's closing line: "  = 3, same names and types" in text, its
 * "summary" (without the "= ") in JSON. */
static void summary_line(differ *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void summary_line(differ *d, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!d->j) {
        fprintf(d->out, "  %s\n", buf);
        return;
    }
    close_list(d);
    d->summarized = true;
    ox_json_key(d->j, "summary");
    ox_json_string(d->j, buf[0] == '=' && buf[1] == ' ' ? buf + 2 : buf);
}

static void json_opt_int(ox_json *j, const char *key, bool present, long long v)
{
    ox_json_key(j, key);
    if (!present)
        ox_json_null(j);
    else
        ox_json_int(j, v);
}

static void report(differ *d, const diff_item *it, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(differ *d, const diff_item *it, const char *fmt, ...)
{
    d->n++;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (d->j) {
        ox_json *j = d->j;
        ox_json_object(j);
        ox_json_key(j, "what");
        ox_json_string(j, it->what);
        ox_json_key(j, "name");
        ox_json_string(j, it->name);
        ox_json_key(j, "name_b");
        ox_json_string(j, it->name_b);
        json_opt_int(j, "index_a", it->has & HAS_INDEX_A, it->index_a);
        json_opt_int(j, "index_b", it->has & HAS_INDEX_B, it->index_b);
        ox_json_key(j, "a");
        ox_json_string(j, it->a);
        ox_json_key(j, "b");
        ox_json_string(j, it->b);
        json_opt_int(j, "count_a", it->has & HAS_COUNTS, it->count_a);
        json_opt_int(j, "count_b", it->has & HAS_COUNTS, it->count_b);
        ox_json_key(j, "message");
        ox_json_string(j, msg);
        ox_json_object_end(j);
        return;
    }
    if (d->shown++ == SHOWN)
        fprintf(d->out, "  ... (more differences in this section not shown)\n");
    if (d->shown > SHOWN)
        return;
    fprintf(d->out, "  ! %s\n", msg);
}

static void type_text(const ox_type *t, char *buf, size_t cap)
{
    size_t n = 0;
    if (t->nontensor) {
        snprintf(buf, cap, "%s", t->nontensor);
        return;
    }
    if (t->dtype == OX_UNDEFINED) {
        snprintf(buf, cap, "Tensor");
        return;
    }
    n += (size_t)snprintf(buf + n, cap - n, "%s", ox_dtype_torch_name(t->dtype));
    if (t->rank < 0)
        return;
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "(");
    for (int32_t i = 0; i < t->rank && n < cap; i++) {
        const char *sep = i ? ", " : "";
        if (t->dim_params && t->dim_params[i] && t->dim_params[i][0])
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, t->dim_params[i]);
        else if (!t->dims || t->dims[i] < 0)
            n += (size_t)snprintf(buf + n, cap - n, "%s*", sep);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", sep, (long long)t->dims[i]);
    }
    if (n < cap)
        snprintf(buf + n, cap - n, ")");
}

static const char *vname(const ox_graph *g, ox_vid id)
{
    const ox_value *v = ox_graph_value(g, id);
    return v && v->name ? v->name : "?";
}

/* Inputs or outputs, by position: the interface a caller feeds and reads. */
static void diff_values(differ *d, const char *what, const ox_graph *a, const ox_vid *va,
                        uint32_t na, const ox_graph *b, const ox_vid *vb, uint32_t nb)
{
    size_t before = d->n;
    section(d, what, what);
    if (na != nb)
        report(d, ITEM(.what = "count", .count_a = na, .count_b = nb, .has = HAS_COUNTS),
               "%u in A, %u in B", na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        const ox_value *x = ox_graph_value(a, va[i]), *y = ox_graph_value(b, vb[i]);
        if (!x || !y)
            continue;
        char tx[512], ty[512];
        type_text(&x->type, tx, sizeof tx);
        type_text(&y->type, ty, sizeof ty);
        bool same_name = strcmp(vname(a, va[i]), vname(b, vb[i])) == 0;
        const char *why = !same_name && strcmp(tx, ty) ? "name and type differ"
                           : !same_name                 ? "name differs"
                                                        : "type differs";
        if (!same_name || strcmp(tx, ty) != 0)
            report(d, ITEM(.what = why, .name = vname(a, va[i]), .name_b = same_name ? NULL : vname(b, vb[i]),
                           .index_a = i, .index_b = i, .a = tx, .b = ty, .has = HAS_INDEX_A | HAS_INDEX_B),
                   "#%u: A %s : %s, B %s : %s (%s)", i, vname(a, va[i]), tx, vname(b, vb[i]), ty, why);
    }
    for (uint32_t i = nb; i < na; i++)
        report(d, ITEM(.what = "only in A", .name = vname(a, va[i]), .index_a = i, .has = HAS_INDEX_A),
               "#%u only in A: %s", i,
               vname(a, va[i]));
    for (uint32_t i = na; i < nb; i++)
        report(d, ITEM(.what = "only in B", .name = vname(b, vb[i]), .index_b = i, .has = HAS_INDEX_B),
               "#%u only in B: %s", i,
               vname(b, vb[i]));
    if (d->n == before)
        summary_line(d, "= %u, same names and types", na);
}

/* A graph's initializers, dense (params) then sparse (sparse_initializer),
 * as one list: index i < n_params is a dense one.  A sparse one's type is
 * written as dump lists it, "SparseTensor(Float(3, 4), 3 values)", so a
 * change of shape, element type or NNZ shows as a type difference. */
static uint32_t n_initializers(const ox_graph *g)
{
    return g->n_params + g->n_sparse;
}

static const char *initializer_at(const ox_graph *g, uint32_t i, char *type, size_t cap)
{
    if (i < g->n_params) {
        const ox_value *v = ox_graph_value(g, g->params[i]);
        if (!v || !v->name)
            return NULL;
        type_text(&v->type, type, cap);
        return v->name;
    }
    const ox_sparse_param *s = &g->sparse[i - g->n_params];
    const ox_value *v = ox_graph_value(g, s->id);
    if (!v || !v->name)
        return NULL;
    char t[512];
    type_text(&v->type, t, sizeof t);
    size_t n = strlen(t);
    if (n && t[n - 1] == ')')
        t[--n] = '\0'; /* the count goes inside: "SparseTensor(Float(3, 4), 3 values)" */
    unsigned long long nnz = (unsigned long long)ox_sparse_param_nnz(s);
    snprintf(type, cap, "%s, %llu value%s)", t, nnz, nnz == 1 ? "" : "s");
    return v->name;
}

/* name -> index in n_initializers(g)'s list, for the other side's lookups:
 * models may hold 100,000 initializers (one per constant), so each name is
 * found in one probe, not by a scan.  0, or -1 out of memory. */
static int initializer_index(const ox_graph *g, ox_strmap *m)
{
    if (ox_strmap_init(m, n_initializers(g)) != 0)
        return -1;
    for (uint32_t i = 0; i < n_initializers(g); i++) {
        const ox_value *v = ox_graph_value(g, i < g->n_params ? g->params[i] : g->sparse[i - g->n_params].id);
        if (v && v->name && ox_strmap_put(m, v->name, i) < 0)
            return -1;
    }
    return 0;
}

static bool find_initializer(const ox_graph *g, const ox_strmap *index, const char *name, char *type,
                             size_t cap)
{
    const uint64_t *i = ox_strmap_find(index, name);
    return i && initializer_at(g, (uint32_t)*i, type, cap);
}

/* Initializers by name.  0, or -1 out of memory. */
static int diff_initializers(differ *d, const ox_graph *a, const ox_graph *b)
{
    ox_strmap in_a = {0}, in_b = {0};
    if (initializer_index(a, &in_a) != 0 || initializer_index(b, &in_b) != 0) {
        ox_strmap_free(&in_a);
        ox_strmap_free(&in_b);
        return -1;
    }
    size_t before = d->n;
    section(d, "initializers", "initializers");
    size_t common = 0;
    char tx[600], ty[600];
    for (uint32_t i = 0; i < n_initializers(a); i++) {
        const char *name = initializer_at(a, i, tx, sizeof tx);
        if (!name)
            continue;
        if (!find_initializer(b, &in_b, name, ty, sizeof ty)) {
            report(d, ITEM(.what = "only in A", .name = name, .a = tx), "only in A: %s : %s", name, tx);
            continue;
        }
        common++;
        if (strcmp(tx, ty) != 0)
            report(d, ITEM(.what = "type differs", .name = name, .a = tx, .b = ty), "%s: A %s, B %s", name,
                   tx, ty);
    }
    for (uint32_t i = 0; i < n_initializers(b); i++) {
        const char *name = initializer_at(b, i, ty, sizeof ty);
        if (!name || find_initializer(a, &in_a, name, tx, sizeof tx))
            continue;
        report(d, ITEM(.what = "only in B", .name = name, .b = ty), "only in B: %s : %s", name, ty);
    }
    if (d->n == before)
        summary_line(d, "= %zu, same names and types", common);
    else
        summary_line(d, "(%u in A, %u in B, %zu of them in both)", n_initializers(a), n_initializers(b), common);
    ox_strmap_free(&in_a);
    ox_strmap_free(&in_b);
    return 0;
}

/* op kind -> number of nodes of g: one pass, so a file of many distinct
 * kinds (custom domains) is not scanned once per kind.  0, or -1 out of
 * memory. */
static int count_kinds(const ox_graph *g, ox_strmap *m)
{
    if (ox_strmap_init(m, 64) != 0)
        return -1;
    for (const ox_node *x = g->first; x; x = x->next) {
        uint64_t *c = ox_strmap_find(m, x->kind);
        if (c)
            (*c)++;
        else if (ox_strmap_put(m, x->kind, 1) < 0)
            return -1;
    }
    return 0;
}

static size_t kind_count(const ox_strmap *m, const char *kind)
{
    const uint64_t *c = ox_strmap_find(m, kind);
    return c ? (size_t)*c : 0;
}

static const char *kind_text(const ox_node *n)
{
    return n->domain && n->domain[0] ? n->kind : n->op_type;
}

/* The op histogram, in first-seen order of A's kinds, then B's own.  0, or
 * -1 out of memory. */
static int diff_histogram(differ *d, const ox_graph *a, const ox_graph *b)
{
    ox_strmap count_a = {0}, count_b = {0}, seen = {0};
    int rc = -1;
    if (count_kinds(a, &count_a) != 0 || count_kinds(b, &count_b) != 0 || ox_strmap_init(&seen, 64) != 0)
        goto out;
    size_t before = d->n;
    section(d, "ops", "ops");
    for (int pass = 0; pass < 2; pass++) {
        const ox_graph *g = pass ? b : a;
        const ox_strmap *in_g = pass ? &count_b : &count_a, *in_other = pass ? &count_a : &count_b;
        for (const ox_node *n = g->first; n; n = n->next) {
            int added = ox_strmap_put(&seen, n->kind, 0);
            if (added < 0)
                goto out;
            if (added == 0)
                continue; /* listed already, or compared in the first pass */
            size_t ng = kind_count(in_g, n->kind), nother = kind_count(in_other, n->kind);
            if (ng != nother)
                report(d, ITEM(.what = "op count", .name = kind_text(n),
                               .count_a = (long long)(pass ? nother : ng),
                               .count_b = (long long)(pass ? ng : nother), .has = HAS_COUNTS),
                       "%-24s A %zu, B %zu", kind_text(n), pass ? nother : ng, pass ? ng : nother);
        }
    }
    if (d->n == before)
        summary_line(d, "= %u nodes, same count of each op type", a->n_nodes);
    rc = 0;
out:
    ox_strmap_free(&count_a);
    ox_strmap_free(&count_b);
    ox_strmap_free(&seen);
    return rc;
}

static bool tensor_equal(const ox_attr_tensor *x, const ox_attr_tensor *y)
{
    if (!x || !y)
        return x == y;
    if (x->dtype != y->dtype || x->rank != y->rank || x->data.nbytes != y->data.nbytes)
        return false;
    for (uint32_t i = 0; i < x->rank; i++)
        if (x->dims[i] != y->dims[i])
            return false;
    if (!x->data.data || !y->data.data)
        return x->data.data == y->data.data;
    return memcmp(x->data.data, y->data.data, (size_t)x->data.nbytes) == 0;
}

static bool attr_equal(const ox_attr *x, const ox_attr *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case OX_ATTR_FLOAT: return x->u.f == y->u.f || (isnan(x->u.f) && isnan(y->u.f));
    case OX_ATTR_INT: return x->u.i == y->u.i;
    case OX_ATTR_STRING:
    case OX_ATTR_TYPE_PROTO:
    case OX_ATTR_SPARSE_TENSOR:
        return x->u.s.len == y->u.s.len && (x->u.s.len == 0 || memcmp(x->u.s.p, y->u.s.p, x->u.s.len) == 0);
    case OX_ATTR_TENSOR: return tensor_equal(x->u.t, y->u.t);
    case OX_ATTR_GRAPH: /* a body: compared by size; `oxport diff` of the bodies is not done */
        return (x->u.g ? x->u.g->n_nodes : 0) == (y->u.g ? y->u.g->n_nodes : 0);
    case OX_ATTR_FLOATS:
        if (x->u.floats.n != y->u.floats.n)
            return false;
        for (size_t i = 0; i < x->u.floats.n; i++)
            if (x->u.floats.p[i] != y->u.floats.p[i])
                return false;
        return true;
    case OX_ATTR_INTS:
        return x->u.ints.n == y->u.ints.n &&
               (x->u.ints.n == 0 || memcmp(x->u.ints.p, y->u.ints.p, x->u.ints.n * sizeof(int64_t)) == 0);
    case OX_ATTR_STRINGS:
    case OX_ATTR_TYPE_PROTOS:
    case OX_ATTR_SPARSE_TENSORS:
        if (x->u.strings.n != y->u.strings.n)
            return false;
        for (size_t i = 0; i < x->u.strings.n; i++)
            if (strcmp(x->u.strings.p[i] ? x->u.strings.p[i] : "", y->u.strings.p[i] ? y->u.strings.p[i] : ""))
                return false;
        return true;
    case OX_ATTR_TENSORS:
        if (x->u.tensors.n != y->u.tensors.n)
            return false;
        for (size_t i = 0; i < x->u.tensors.n; i++)
            if (!tensor_equal(x->u.tensors.p[i], y->u.tensors.p[i]))
                return false;
        return true;
    case OX_ATTR_GRAPHS:
        if (x->u.graphs.n != y->u.graphs.n)
            return false;
        for (size_t i = 0; i < x->u.graphs.n; i++)
            if (x->u.graphs.p[i]->n_nodes != y->u.graphs.p[i]->n_nodes)
                return false;
        return true;
    }
    return false;
}

/* A short rendering of an attribute's value for a difference line. */
static void attr_text(const ox_attr *x, char *buf, size_t cap)
{
    size_t n = 0;
    switch (x->kind) {
    case OX_ATTR_FLOAT: snprintf(buf, cap, "%g", x->u.f); return;
    case OX_ATTR_INT: snprintf(buf, cap, "%lld", (long long)x->u.i); return;
    case OX_ATTR_STRING: snprintf(buf, cap, "\"%.*s\"", (int)(x->u.s.len > 40 ? 40 : x->u.s.len),
                                  x->u.s.p ? x->u.s.p : ""); return;
    case OX_ATTR_INTS:
        n += (size_t)snprintf(buf, cap, "[");
        for (size_t i = 0; i < x->u.ints.n && n + 24 < cap; i++)
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)x->u.ints.p[i]);
        snprintf(buf + n, cap - n, "]");
        return;
    case OX_ATTR_FLOATS:
        n += (size_t)snprintf(buf, cap, "[");
        for (size_t i = 0; i < x->u.floats.n && n + 24 < cap; i++)
            n += (size_t)snprintf(buf + n, cap - n, "%s%g", i ? ", " : "", x->u.floats.p[i]);
        snprintf(buf + n, cap - n, "]");
        return;
    case OX_ATTR_TENSOR: snprintf(buf, cap, "a tensor"); return;
    case OX_ATTR_TYPE_PROTO:
    case OX_ATTR_SPARSE_TENSOR: snprintf(buf, cap, "%.*s", (int)x->u.s.len, x->u.s.p ? x->u.s.p : ""); return;
    case OX_ATTR_GRAPH: snprintf(buf, cap, "a graph of %u nodes", x->u.g ? x->u.g->n_nodes : 0); return;
    default: snprintf(buf, cap, "a list"); return;
    }
}

/* Nodes with more attributes than this have theirs found through a map;
 * a scan of a few is faster than hashing. */
#define ATTR_SCAN_MAX 16

/* n's attributes by name, when it has many; an empty map (a scan) when it
 * has few or memory is short. */
static void attr_index(const ox_node *n, ox_strmap *m)
{
    *m = (ox_strmap){0};
    if (n->n_attrs <= ATTR_SCAN_MAX || ox_strmap_init(m, n->n_attrs) != 0)
        return;
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        if (ox_strmap_put(m, n->attrs[i].name, i) < 0) {
            ox_strmap_free(m);
            *m = (ox_strmap){0};
            return;
        }
    }
}

static const ox_attr *attr_of(const ox_node *n, const ox_strmap *m, const char *name)
{
    if (!m->slots) /* not indexed: a scan */
        return ox_node_attr(n, name);
    const uint64_t *i = ox_strmap_find(m, name);
    return i ? &n->attrs[*i] : NULL;
}

/* The first attribute that differs between two aligned nodes, described in
 * msg ("attribute 'axis': A -1, B 1"); false when they all agree.  An
 * attribute set in one file and left to its default in the other counts:
 * the files differ, though they may mean the same. */
static bool attr_difference(const ox_node *x, const ox_node *y, char *msg, size_t cap)
{
    char va[128], vb[128];
    ox_strmap in_x, in_y;
    attr_index(x, &in_x);
    attr_index(y, &in_y);
    bool found = false;
    for (uint32_t i = 0; i < x->n_attrs && !found; i++) {
        const ox_attr *o = attr_of(y, &in_y, x->attrs[i].name);
        if (o && attr_equal(&x->attrs[i], o))
            continue;
        attr_text(&x->attrs[i], va, sizeof va);
        if (o) {
            attr_text(o, vb, sizeof vb);
            snprintf(msg, cap, "attribute '%s': A %s, B %s", x->attrs[i].name, va, vb);
        } else {
            snprintf(msg, cap, "attribute '%s' set only in A (%s)", x->attrs[i].name, va);
        }
        found = true;
    }
    for (uint32_t i = 0; i < y->n_attrs && !found; i++) {
        if (attr_of(x, &in_x, y->attrs[i].name))
            continue;
        attr_text(&y->attrs[i], vb, sizeof vb);
        snprintf(msg, cap, "attribute '%s' set only in B (%s)", y->attrs[i].name, vb);
        found = true;
    }
    ox_strmap_free(&in_x);
    ox_strmap_free(&in_y);
    return found;
}

static const ox_node **node_array(const ox_graph *g, size_t *n)
{
    *n = 0;
    for (const ox_node *x = g->first; x; x = x->next)
        (*n)++;
    const ox_node **arr = malloc((*n ? *n : 1) * sizeof *arr);
    if (!arr)
        return NULL;
    size_t i = 0;
    for (const ox_node *x = g->first; x; x = x->next)
        arr[i++] = x;
    return arr;
}

static void node_line(differ *d, size_t ia, size_t ib, const ox_node *x, const ox_node *y,
                      const char *why)
{
    if (x && y)
        report(d, ITEM(.what = strncmp(why, "attribute", 9) == 0 ? "attribute differs" : why,
                       .name = kind_text(x),
                       .name_b = strcmp(kind_text(x), kind_text(y)) ? kind_text(y) : NULL,
                       .index_a = (long long)ia, .index_b = (long long)ib,
                       .a = x->name, .b = y->name, .has = HAS_INDEX_A | HAS_INDEX_B),
               "A #%zu %s (%s), B #%zu %s (%s): %s", ia, kind_text(x), x->name ? x->name : "",
               ib, kind_text(y), y->name ? y->name : "", why);
    else if (x)
        report(d, ITEM(.what = "only in A", .name = kind_text(x), .index_a = (long long)ia, .a = x->name, .has = HAS_INDEX_A),
               "only in A: #%zu %s (%s)%s%s", ia, kind_text(x), x->name ? x->name : "",
               x->scope && x->scope[0] ? " at " : "", x->scope ? x->scope : "");
    else
        report(d, ITEM(.what = "only in B", .name = kind_text(y), .index_b = (long long)ib, .b = y->name, .has = HAS_INDEX_B),
               "only in B: #%zu %s (%s)%s%s", ib, kind_text(y), y->name ? y->name : "",
               y->scope && y->scope[0] ? " at " : "", y->scope ? y->scope : "");
}

static int diff_nodes(differ *d, const ox_graph *a, const ox_graph *b)
{
    size_t na, nb;
    const ox_node **xa = node_array(a, &na), **xb = node_array(b, &nb);
    if (!xa || !xb) {
        free(xa);
        free(xb);
        return -1;
    }
    size_t before = d->n;
    section(d, "nodes (aligned by position and op type)", "nodes");
    size_t aligned = 0, only_a = 0, only_b = 0, attrs = 0;
    unsigned char *dir = NULL;
    uint32_t *row = NULL, *prev = NULL;
    bool lcs = na && nb && na <= MAX_ALIGN_CELLS / nb;
    if (lcs) {
        dir = malloc(na * nb);
        row = calloc(nb + 1, sizeof *row);
        prev = calloc(nb + 1, sizeof *prev);
        lcs = dir && row && prev;
    }
    if (lcs) {
        d->alignment = "op type";
        /* LCS table from the end, so the walk below goes forwards. */
        for (size_t i = na; i-- > 0;) {
            uint32_t *t = prev;
            prev = row;
            row = t;
            row[nb] = 0;
            for (size_t j = nb; j-- > 0;) {
                if (strcmp(xa[i]->kind, xb[j]->kind) == 0) {
                    row[j] = prev[j + 1] + 1;
                    dir[i * nb + j] = 0;
                } else if (prev[j] >= row[j + 1]) {
                    row[j] = prev[j];
                    dir[i * nb + j] = 1; /* skip A's node */
                } else {
                    row[j] = row[j + 1];
                    dir[i * nb + j] = 2; /* skip B's node */
                }
            }
        }
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            if (i < na && j < nb && dir[i * nb + j] == 0) {
                char msg[400];
                aligned++;
                if (attr_difference(xa[i], xb[j], msg, sizeof msg)) {
                    node_line(d, i, j, xa[i], xb[j], msg);
                    attrs++;
                }
                i++;
                j++;
            } else if (j >= nb || (i < na && dir[i * nb + j] == 1)) {
                node_line(d, i, j, xa[i], NULL, NULL);
                only_a++;
                i++;
            } else {
                node_line(d, i, j, NULL, xb[j], NULL);
                only_b++;
                j++;
            }
        }
    } else {
        d->alignment = "position";
        if (na && nb && !d->j)
            fprintf(d->out, "  (%zu x %zu nodes: too many to align; compared by position)\n", na, nb);
        size_t i = 0;
        for (; i < na && i < nb; i++) {
            char msg[400] = "op type differs";
            bool same_kind = strcmp(xa[i]->kind, xb[i]->kind) == 0;
            bool attr = same_kind && attr_difference(xa[i], xb[i], msg, sizeof msg);
            aligned++;
            if (!same_kind || attr) {
                node_line(d, i, i, xa[i], xb[i], msg);
                attrs++;
            }
        }
        for (size_t k = i; k < na; k++, only_a++)
            node_line(d, k, 0, xa[k], NULL, NULL);
        for (size_t k = i; k < nb; k++, only_b++)
            node_line(d, 0, k, NULL, xb[k], NULL);
    }
    if (d->n == before)
        summary_line(d, "= %zu nodes, same op types in the same order, same attributes", aligned);
    else
        summary_line(d, "(%zu aligned, %zu of them with different attributes; %zu only in A, %zu only "
               "in B)",
                     aligned, attrs, only_a, only_b);
    free(dir);
    free(row);
    free(prev);
    free(xa);
    free(xb);
    return 0;
}

static void summary(FILE *out, const char *tag, const char *path, const ox_graph *g)
{
    /* the file's strings escaped as dump's header escapes them: one line */
    fprintf(out, "%s %s: producer=", tag, path);
    ox_print_escaped(out, g->producer_name && g->producer_name[0] ? g->producer_name : "-");
    if (g->producer_version && g->producer_version[0]) {
        fputc(' ', out);
        ox_print_escaped(out, g->producer_version);
    }
    fputs(" opsets=[", out);
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        fputs(i ? ", " : "", out);
        ox_print_escaped(out, g->opsets[i].domain && g->opsets[i].domain[0] ? g->opsets[i].domain
                                                                               : "ai.onnx");
        fprintf(out, ":%lld", (long long)g->opsets[i].version);
    }
    fprintf(out, "] nodes=%u initializers=%u", g->n_nodes, g->n_params);
    if (g->n_sparse) /* as dump's header: only when the file has some */
        fprintf(out, " sparse_initializers=%u", g->n_sparse);
    fputc('\n', out);
}

static void summary_json(ox_json *j, const char *key, const char *path, const ox_graph *g)
{
    ox_json_key(j, key);
    ox_json_object(j);
    ox_json_key(j, "file");
    ox_json_string(j, path);
    ox_json_key(j, "producer_name");
    ox_json_string(j, g->producer_name);
    ox_json_key(j, "producer_version");
    ox_json_string(j, g->producer_version);
    ox_json_key(j, "opset_imports");
    ox_json_opset_imports(j, g);
    ox_json_key(j, "nodes");
    ox_json_uint(j, g->n_nodes);
    ox_json_key(j, "initializers");
    ox_json_uint(j, g->n_params);
    ox_json_key(j, "sparse_initializers");
    ox_json_uint(j, g->n_sparse);
    ox_json_object_end(j);
}

/* The sections, in the order both forms print them.  -1 out of memory. */
static int compare(differ *d, const ox_graph *a, const ox_graph *b)
{
    diff_values(d, "inputs", a, a->inputs, a->n_inputs, b, b->inputs, b->n_inputs);
    diff_values(d, "outputs", a, a->outputs, a->n_outputs, b, b->outputs, b->n_outputs);
    if (diff_initializers(d, a, b) != 0 || diff_histogram(d, a, b) != 0)
        return -1;
    return diff_nodes(d, a, b);
}

OX_API ox_status ox_graph_diff(const ox_graph *a, const char *name_a, const ox_graph *b,
                               const char *name_b, FILE *out, size_t *n_differences)
{
    if (!a || !b || !out)
        return OX_EINVAL;
    summary(out, "A", name_a ? name_a : "", a);
    summary(out, "B", name_b ? name_b : "", b);
    differ d = {.out = out};
    int aligned = compare(&d, a, b);
    if (n_differences)
        *n_differences = d.n;
    if (aligned != 0)
        return OX_ENOMEM;
    return ferror(out) ? OX_EIO : OX_OK;
}

OX_API ox_status ox_graph_diff_json(const ox_graph *a, const char *name_a, const ox_graph *b,
                                    const char *name_b, ox_json *j, size_t *n_differences)
{
    if (!a || !b || !j)
        return OX_EINVAL;
    summary_json(j, "a", name_a ? name_a : "", a);
    summary_json(j, "b", name_b ? name_b : "", b);
    ox_json_key(j, "sections");
    ox_json_array(j);
    differ d = {.j = j};
    int aligned = compare(&d, a, b);
    end_section(&d);
    ox_json_array_end(j);
    ox_json_key(j, "differences");
    ox_json_uint(j, d.n);
    if (n_differences)
        *n_differences = d.n;
    return aligned != 0 ? OX_ENOMEM : OX_OK;
}
