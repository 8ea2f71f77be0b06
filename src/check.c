/*
 * Checker: the rules onnx.checker enforces that can be decided on the IR —
 * structure here, each node against its operator schema in schema_check.c.  Every violation is one line; the
 * whole graph is always checked so a user sees all problems in one run.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_job.h"
#include "context.h"
#include "ir.h"
#include "schema_check.h"
#include "strmap.h"

typedef struct checker {
    FILE *out;
    size_t n;
    char first[512]; /* first violation, for the context message */
} checker;

static void violation(checker *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void violation(checker *c, const char *fmt, ...)
{
    va_list ap;
    if (c->n == 0) {
        va_start(ap, fmt);
        vsnprintf(c->first, sizeof c->first, fmt, ap);
        va_end(ap);
    }
    if (c->out) {
        va_start(ap, fmt);
        vfprintf(c->out, fmt, ap);
        va_end(ap);
        fputc('\n', c->out);
    }
    c->n++;
}

/* Who defines a name: for messages about a second definition. */
typedef struct definer {
    const char *name;
    const char *what; /* "graph input", "initializer", "node" */
    const char *node; /* node name (or op_type) when what == "node" */
} definer;

/* Names to the value that defined them first, and that definer. */
typedef struct defmap {
    ox_strmap names; /* name -> value id */
    definer *by_vid;
} defmap;

static int defmap_init(defmap *m, size_t n_values)
{
    m->by_vid = calloc(n_values, sizeof(*m->by_vid));
    if (!m->by_vid || ox_strmap_init(&m->names, n_values) != 0) {
        free(m->by_vid);
        return -1;
    }
    return 0;
}

static void defmap_free(defmap *m)
{
    ox_strmap_free(&m->names);
    free(m->by_vid);
}

/* Returns the existing definer, or NULL after recording `d` for value id.
 * On allocation failure the map stops growing and reports nothing more
 * (never a crash). */
static const definer *defmap_define(defmap *m, ox_vid id, definer d)
{
    const uint64_t *first = ox_strmap_find(&m->names, d.name);
    if (first)
        return &m->by_vid[*first];
    if (ox_strmap_put(&m->names, d.name, id) > 0)
        m->by_vid[id] = d;
    return NULL;
}

static const char *vname(const ox_value *v, char *buf, size_t n)
{
    if (v && v->name && v->name[0])
        return v->name;
    snprintf(buf, n, "%%%u", v ? (unsigned)v->id : 0u);
    return buf;
}

static void describe(const definer *d, char *buf, size_t n)
{
    if (strcmp(d->what, "node") == 0)
        snprintf(buf, n, "node '%s'", d->node);
    else
        snprintf(buf, n, "%s '%s'", d->what, d->name);
}

static const char *kind_name(int k)
{
    static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                  "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                  "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    return k >= 0 && k <= 14 ? names[k] : "unknown";
}

/* A node as messages name it: "'name' (Op)" or "#index (Op)", and
 * " of <where>" inside a function body.  Made when the first message needs
 * it; a valid graph needs none. */
typedef struct node_label {
    const ox_node *node;
    uint32_t idx;
    const char *where; /* the function, NULL in the main graph */
    bool made;
    char text[800];
} node_label;

static void node_label_format(char *label, size_t n, const ox_node *node, uint32_t idx)
{
    const char *op = node->op_type ? node->op_type : "";
    if (node->name && node->name[0])
        snprintf(label, n, "'%s' (%s)", node->name, op);
    else
        snprintf(label, n, "#%u (%s)", (unsigned)idx, op);
}

static const char *label_text(node_label *l)
{
    if (!l->made) {
        if (l->where) {
            char nl[400];
            node_label_format(nl, sizeof nl, l->node, l->idx);
            snprintf(l->text, sizeof l->text, "%s of %s", nl, l->where);
        } else {
            node_label_format(l->text, 600, l->node, l->idx);
        }
        l->made = true;
    }
    return l->text;
}

static void check_tensor(checker *c, node_label *node, const char *attr, const ox_attr_tensor *t)
{
    if (!t) {
        violation(c, "node %s: attribute '%s' (TENSOR) has no tensor", label_text(node), attr);
        return;
    }
    size_t es = ox_dtype_size(t->dtype);
    if (t->dtype == OX_STRING)
        return; /* the reader checked the string count against the shape */
    if (!ox_dtype_known((int)t->dtype) || es == 0) {
        violation(c, "node %s: attribute '%s' tensor has element type %s, which cannot hold data",
                  label_text(node), attr, ox_dtype_name(t->dtype));
        return;
    }
    uint64_t count = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (!t->dims || t->dims[i] < 0) {
            violation(c, "node %s: attribute '%s' tensor has an unknown size on axis %u",
                      label_text(node), attr, (unsigned)i);
            return;
        }
        count *= (uint64_t)t->dims[i];
    }
    if (count * es != t->data.nbytes || (t->data.nbytes && !t->data.data))
        violation(c, "node %s: attribute '%s' tensor holds %llu bytes but %s with %llu elements "
                  "needs %llu", label_text(node), attr,
                  (unsigned long long)(t->data.data ? t->data.nbytes : 0),
                  ox_dtype_name(t->dtype), (unsigned long long)count,
                  (unsigned long long)(count * es));
}

/* Whether attrs[i]'s name is one of attrs[0..i): a scan of a few, a set
 * (`seen`, filled as i goes up) past ATTR_SCAN_MAX, so a node of 100,000
 * attributes is not checked pairwise.  When the set cannot grow, a scan. */
#define ATTR_SCAN_MAX 16

static bool attr_seen_before(const ox_node *n, uint32_t i, ox_strset *seen)
{
    const char *name = n->attrs[i].name;
    if (n->n_attrs > ATTR_SCAN_MAX && (seen->slots || ox_strset_init(seen, n->n_attrs) == 0)) {
        int added = ox_strset_add(seen, name);
        if (added >= 0)
            return added == 0;
    }
    for (uint32_t k = 0; k < i; k++)
        if (n->attrs[k].name && strcmp(n->attrs[k].name, name) == 0)
            return true;
    return false;
}

static void check_attrs(checker *c, node_label *node, const ox_node *n)
{
    ox_strset seen = {0};
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        if (!a->name || !a->name[0]) {
            violation(c, "node %s: attribute #%u has no name", label_text(node), (unsigned)i);
            continue;
        }
        if (attr_seen_before(n, i, &seen))
            violation(c, "node %s: attribute '%s' appears more than once", label_text(node),
                      a->name);
        if (a->ref)
            continue; /* its value is the calling node's */
        const char *kn = kind_name((int)a->kind);
        size_t count = 0;
        const void *p = NULL;
        switch (a->kind) {
        case OX_ATTR_FLOAT:
        case OX_ATTR_INT:
            break;
        case OX_ATTR_STRING:
            if (a->u.s.len && !a->u.s.p)
                violation(c, "node %s: attribute '%s' (STRING) has a length but no bytes",
                          label_text(node), a->name);
            break;
        case OX_ATTR_TENSOR:
            check_tensor(c, node, a->name, a->u.t);
            break;
        case OX_ATTR_GRAPH:
            if (!a->u.g)
                violation(c, "node %s: attribute '%s' (GRAPH) has no graph", label_text(node),
                          a->name);
            break;
        case OX_ATTR_FLOATS: count = a->u.floats.n; p = a->u.floats.p; break;
        case OX_ATTR_INTS: count = a->u.ints.n; p = a->u.ints.p; break;
        case OX_ATTR_STRINGS: count = a->u.strings.n; p = a->u.strings.p; break;
        case OX_ATTR_TENSORS:
            count = a->u.tensors.n;
            p = a->u.tensors.p;
            if (p)
                for (size_t k = 0; k < count; k++)
                    check_tensor(c, node, a->name, a->u.tensors.p[k]);
            break;
        case OX_ATTR_GRAPHS: count = a->u.graphs.n; p = a->u.graphs.p; break;
        case OX_ATTR_TYPE_PROTO:    /* read as text: nothing more to check */
        case OX_ATTR_SPARSE_TENSOR:
            break;
        case OX_ATTR_TYPE_PROTOS:
        case OX_ATTR_SPARSE_TENSORS: count = a->u.strings.n; p = a->u.strings.p; break;
        default:
            violation(c, "node %s: attribute '%s' has kind %d, which is not an ONNX attribute "
                      "type", label_text(node), a->name, (int)a->kind);
            continue;
        }
        if (count && !p)
            violation(c, "node %s: attribute '%s' (%s) says it holds %zu values but has none",
                      label_text(node), a->name, kn, count);
    }
    ox_strset_free(&seen);
}

/* A sparse initializer against onnx.checker's rules for a SparseTensorProto:
 * values of shape [NNZ], a dense shape of positive sizes, int64 indices of
 * shape [NNZ] (linear, ascending) or [NNZ, rank] (coordinates, in
 * lexicographic order), each inside the dense shape.  One violation per
 * tensor at most: after the first its other numbers mean little. */
static void check_sparse(checker *c, const ox_graph *g, uint32_t i, unsigned char *defined,
                         defmap *names)
{
    const ox_sparse_param *s = &g->sparse[i];
    const ox_value *v = ox_graph_value(g, s->id);
    if (!v) {
        violation(c, "sparse initializer #%u refers to value id %u, which does not exist",
                  (unsigned)i, (unsigned)s->id);
        return;
    }
    char label[600], b2[600];
    defined[v->id] = 1;
    if (!v->name || !v->name[0]) {
        violation(c, "sparse initializer #%u has no name (its values tensor's name)", (unsigned)i);
        snprintf(label, sizeof label, "sparse initializer #%u", (unsigned)i);
    } else {
        snprintf(label, sizeof label, "sparse initializer '%s'", v->name);
        const definer *d =
            defmap_define(names, v->id, (definer){v->name, "sparse initializer", NULL});
        if (d) {
            describe(d, b2, sizeof b2);
            violation(c, "%s: the name is already defined by %s", label, b2);
        }
    }
    const ox_attr_tensor *vals = s->values, *ix = s->indices;
    if (!vals)
        return; /* the reader requires them */
    if (vals->rank != 1) {
        violation(c, "%s: its values must have shape [NNZ] (rank 1), not rank %u", label,
                  (unsigned)vals->rank);
        return;
    }
    uint64_t nnz = ox_sparse_param_nnz(s);
    if (s->rank == 0) {
        violation(c, "%s: its dense shape has rank 0; a sparse tensor needs rank 1 or more",
                  label);
        return;
    }
    int64_t dense = 1; /* saturates: an index can be at most INT64_MAX anyway */
    for (uint32_t d = 0; d < s->rank; d++) {
        if (s->dims[d] <= 0) {
            violation(c, "%s: dimension %u of its dense shape is %lld; a sparse tensor's sizes "
                      "must be positive", label, (unsigned)d, (long long)s->dims[d]);
            return;
        }
        dense = dense > INT64_MAX / s->dims[d] ? INT64_MAX : dense * s->dims[d];
    }
    if (!ix) {
        if (nnz)
            violation(c, "%s: it has %llu values but no indices", label, (unsigned long long)nnz);
        return;
    }
    if (ix->dtype != OX_INT64) {
        violation(c, "%s: its indices must be int64, not %s", label, ox_dtype_name(ix->dtype));
        return;
    }
    if (ix->rank != 1 && ix->rank != 2) {
        violation(c, "%s: its indices must have shape [NNZ] (linear) or [NNZ, %u] "
                  "(coordinates), not rank %u", label, (unsigned)s->rank, (unsigned)ix->rank);
        return;
    }
    uint64_t per = ix->rank == 1 ? 1 : s->rank;
    if ((uint64_t)ix->dims[0] != nnz || (ix->rank == 2 && (uint64_t)ix->dims[1] != per)) {
        char shape[64];
        if (ix->rank == 1)
            snprintf(shape, sizeof shape, "[%lld]", (long long)ix->dims[0]);
        else
            snprintf(shape, sizeof shape, "[%lld, %lld]", (long long)ix->dims[0],
                     (long long)ix->dims[1]);
        violation(c, "%s: its indices have shape %s but %llu values in a rank-%u tensor need "
                  "[%llu] or [%llu, %u]", label, shape, (unsigned long long)nnz,
                  (unsigned)s->rank, (unsigned long long)nnz, (unsigned long long)nnz,
                  (unsigned)s->rank);
        return;
    }
    if (nnz && (!ix->data.data || ix->data.nbytes / sizeof(int64_t) / per < nnz))
        return; /* bytes not at hand (the reader sizes them by the shape) */
    const unsigned char *p = ix->data.data;
    for (uint64_t k = 0; k < nnz; k++) {
        int cmp = k == 0 ? 1 : 0; /* against the previous index: -1, 0, 1 */
        for (uint64_t j = 0; j < per; j++) {
            int64_t x, prev;
            memcpy(&x, p + (k * per + j) * sizeof x, sizeof x);
            int64_t bound = ix->rank == 1 ? dense : s->dims[j];
            if (x < 0 || x >= bound) {
                if (ix->rank == 1)
                    violation(c, "%s: index %llu is %lld, outside the %lld elements of its "
                              "dense shape", label, (unsigned long long)k, (long long)x,
                              (long long)bound);
                else
                    violation(c, "%s: index %llu has %lld on axis %llu, whose size is %lld",
                              label, (unsigned long long)k, (long long)x, (unsigned long long)j,
                              (long long)bound);
                return;
            }
            if (cmp == 0) {
                memcpy(&prev, p + ((k - 1) * per + j) * sizeof prev, sizeof prev);
                cmp = x > prev ? 1 : x < prev ? -1 : 0;
            }
        }
        if (cmp <= 0) {
            if (ix->rank == 1) {
                int64_t x, prev;
                memcpy(&x, p + k * sizeof x, sizeof x);
                memcpy(&prev, p + (k - 1) * sizeof prev, sizeof prev);
                violation(c, "%s: index %llu is %lld, not above index %llu (%lld); ONNX "
                          "requires ascending indices, none repeated", label,
                          (unsigned long long)k, (long long)x, (unsigned long long)(k - 1),
                          (long long)prev);
            } else {
                violation(c, "%s: the coordinates of index %llu %s those of index %llu; ONNX "
                          "requires them in ascending lexicographic order, none repeated",
                          label, (unsigned long long)k, cmp == 0 ? "repeat" : "come before",
                          (unsigned long long)(k - 1));
            }
            return;
        }
    }
}

/* Does any node, subgraphs included, belong to the default domain? */
static bool uses_default_domain(const ox_graph *g)
{
    for (const ox_node *n = g->first; n; n = n->next) {
        if (!n->domain || !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0)
            return true;
        for (uint32_t i = 0; i < n->n_attrs; i++) {
            const ox_attr *a = &n->attrs[i];
            if (a->kind == OX_ATTR_GRAPH && a->u.g && uses_default_domain(a->u.g))
                return true;
            for (size_t k = 0; a->kind == OX_ATTR_GRAPHS && k < a->u.graphs.n; k++)
                if (a->u.graphs.p[k] && uses_default_domain(a->u.graphs.p[k]))
                    return true;
        }
    }
    return false;
}

/* IR 3 (opset_import) to IR 10 (opset 21), the ones ox_ir_version_for_opset
 * maps opsets to (docs/onnx-writer.md). */
#define OX_CHECK_IR_MIN 3
#define OX_CHECK_IR_MAX 10

/* Element types the schemas give a node's outputs, for the values the file
 * leaves untyped (so later nodes are checked against them, as onnx.checker's
 * type inference does); a declared type (value_info, graph output) that
 * differs is a violation. */
static void infer_outputs(checker *c, const ox_graph *g, ox_dtype *types, const ox_node *n,
                          const ox_schema_lookup *schema, node_label *label, bool report)
{
    for (uint32_t k = 0; k < n->n_outputs; k++) {
        ox_vid id = n->outputs[k];
        const ox_value *v = ox_graph_value(g, id);
        if (!v)
            continue;
        ox_dtype want = ox_schema_output_dtype_as(g, types, n, schema, k);
        if (want == OX_UNDEFINED)
            continue;
        if (v->type.dtype == OX_UNDEFINED) {
            types[id] = want;
        } else if (v->type.dtype != want && report) {
            /* (a node that broke a rule already has its line) */
            char b[64];
            violation(c, "node %s: output '%s' is declared %s, but the schema makes it %s",
                      label_text(label),
                      vname(v, b, sizeof b), ox_dtype_name(v->type.dtype), ox_dtype_name(want));
        }
    }
}

typedef struct schema_violation {
    checker *c;
    node_label *label;
} schema_violation;

static void schema_rule_broken(void *user, const char *rule)
{
    schema_violation *sv = user;
    violation(sv->c, "node %s: %s", label_text(sv->label), rule);
}

/* ---------------------------------------------------- model-local functions
 *
 * A node whose (domain, op_type) names a function of the model is a call:
 * checked against the function's signature, not an operator schema.  Each
 * body is checked against its own opset_import, in order (values defined
 * before use), and no function may reach itself through its calls. */

static const char *dom_label(const char *d)
{
    return d && d[0] ? d : "ai.onnx";
}

/* A call node's input/output counts against the function it calls. */
static void check_call(checker *c, node_label *label, const ox_node *n, const ox_function *f)
{
    if (n->n_inputs > f->body->n_inputs)
        violation(c, "node %s: calls function '%s' (domain '%s') with %u inputs, but it takes %u",
                  label_text(label), f->name, dom_label(f->domain), (unsigned)n->n_inputs,
                  (unsigned)f->body->n_inputs);
    if (n->n_outputs > f->body->n_outputs)
        violation(c, "node %s: asks function '%s' (domain '%s') for %u outputs, but it returns %u",
                  label_text(label), f->name, dom_label(f->domain), (unsigned)n->n_outputs,
                  (unsigned)f->body->n_outputs);
}

/* What every node of a body (a function's, or an If/Loop/Scan graph's) is
 * held to, as a graph's own nodes are: its attributes, and the called
 * function's signature or its operator's schema at `version` (the outputs'
 * types then inferred into `types`). */
static void check_body_node(checker *c, const ox_graph *model, const ox_graph *b, ox_dtype *types,
                            const ox_node *n, node_label *label, int64_t version)
{
    const char *op = n->op_type ? n->op_type : "";
    const char *dom = n->domain ? n->domain : "";
    check_attrs(c, label, n);
    const ox_function *callee = ox_graph_function(model, dom, op);
    if (callee) {
        check_call(c, label, n, callee);
    } else if (version > 0 && op[0]) {
        schema_violation sv = {c, label};
        ox_schema_lookup schema = ox_schema_lookup_node(n, version);
        size_t broken = ox_schema_check_node_as(b, types, n, &schema, version,
                                                schema_rule_broken, &sv);
        infer_outputs(c, b, types, n, &schema, label, broken == 0);
    }
}

static void check_function_body(checker *c, const ox_graph *model, const ox_function *f)
{
    const ox_graph *b = f->body;
    char where[300], b1[64];
    snprintf(where, sizeof where, "function '%s' (domain '%s')", f->name, dom_label(f->domain));
    size_t nv = b->n_values ? b->n_values : 1;
    unsigned char *defined = calloc(nv, 1);
    ox_dtype *types = calloc(nv, sizeof(*types));
    if (!defined || !types) {
        free(defined);
        free(types);
        violation(c, "%s: out of memory checking the body", where);
        return;
    }
    for (uint32_t i = 0; i < b->n_inputs; i++) {
        const ox_value *v = ox_graph_value(b, b->inputs[i]);
        if (!v)
            continue;
        if (defined[v->id])
            violation(c, "%s: input '%s' is listed more than once", where, vname(v, b1, sizeof b1));
        defined[v->id] = 1;
    }
    uint32_t idx = 0;
    for (const ox_node *n = b->first; n; n = n->next, idx++) {
        node_label lab;
        lab.node = n;
        lab.idx = idx;
        lab.where = where;
        lab.made = false; /* (text is left unset: it is large) */
        node_label *label = &lab;
        const char *op = n->op_type ? n->op_type : "";
        const char *dom = n->domain ? n->domain : "";
        int64_t version = ox_graph_opset(b, dom);
        if (!op[0])
            violation(c, "node %s: op_type is empty", label_text(label));
        if (version == 0)
            violation(c, "node %s: the function has no opset_import for domain '%s'",
                      label_text(label), dom);
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_vid id = n->inputs[i];
            const ox_value *v = ox_graph_value(b, id);
            if (id && v && !defined[id])
                violation(c, "node %s: input '%s' is not an input of the function or an output of "
                          "an earlier node", label_text(label), vname(v, b1, sizeof b1));
        }
        check_body_node(c, model, b, types, n, label, version);
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_vid id = n->outputs[i];
            const ox_value *v = ox_graph_value(b, id);
            if (!id || !v)
                continue;
            if (defined[id])
                violation(c, "node %s: output '%s' is already defined (each value must be "
                          "produced once)", label_text(label), vname(v, b1, sizeof b1));
            defined[id] = 1;
        }
    }
    for (uint32_t i = 0; i < b->n_outputs; i++) {
        const ox_value *v = ox_graph_value(b, b->outputs[i]);
        if (v && !defined[v->id])
            violation(c, "%s: output '%s' is not an input of the function or an output of any "
                      "node", where, vname(v, b1, sizeof b1));
    }
    free(defined);
    free(types);
}

/* Does function `target` reach itself through its calls?  An explicit stack
 * (seen[] and stack[] hold n_functions entries), so a file with a long
 * chain of calls cannot exhaust the C stack.  ONNX functions are inlined,
 * so a cycle would never end. */
static bool calls_itself(const ox_graph *model, uint32_t target, unsigned char *seen,
                         uint32_t *stack)
{
    memset(seen, 0, model->n_functions);
    uint32_t top = 0;
    stack[top++] = target;
    while (top) {
        const ox_function *f = &model->functions[stack[--top]];
        for (const ox_node *n = f->body->first; n; n = n->next) {
            const ox_function *callee = ox_graph_function(model, n->domain, n->op_type);
            if (!callee)
                continue;
            uint32_t ci = (uint32_t)(callee - model->functions);
            if (ci == target)
                return true;
            if (!seen[ci]) {
                seen[ci] = 1;
                stack[top++] = ci;
            }
        }
    }
    return false;
}

static void check_functions(checker *c, const ox_graph *g)
{
    for (uint32_t i = 0; i < g->n_functions; i++) {
        const ox_function *f = &g->functions[i];
        if (!f->name[0]) {
            violation(c, "function #%u: the name is empty (ONNX requires one)", (unsigned)i);
            continue;
        }
        if (ox_graph_function(g, f->domain, f->name) != f)
            violation(c, "function '%s' (domain '%s') is defined more than once", f->name,
                      dom_label(f->domain));
        for (uint32_t k = 0; k < f->n_attributes; k++)
            for (uint32_t j = 0; j < k; j++)
                if (strcmp(f->attributes[j], f->attributes[k]) == 0) {
                    violation(c, "function '%s' (domain '%s'): attribute '%s' is listed more "
                              "than once", f->name, dom_label(f->domain), f->attributes[k]);
                    break;
                }
        check_function_body(c, g, f);
    }
    if (!g->n_functions)
        return;
    unsigned char *seen = malloc(g->n_functions);
    uint32_t *stack = malloc((size_t)g->n_functions * sizeof(*stack));
    for (uint32_t i = 0; seen && stack && i < g->n_functions; i++) {
        const ox_function *f = &g->functions[i];
        if (calls_itself(g, i, seen, stack))
            violation(c, "function '%s' (domain '%s') calls itself, directly or through other "
                      "functions (recursion is not allowed)", f->name, dom_label(f->domain));
    }
    if (!seen || !stack)
        violation(c, "model: out of memory checking the functions' calls");
    free(seen);
    free(stack);
}

/* ------------------------------------------------ control-flow bodies
 *
 * The graphs an If, Loop or Scan (any GRAPH attribute) holds: the reader
 * gives each body its own values, and a name the body does not define
 * becomes a value nothing produces, so a body's reads are judged by name:
 * defined in the body before the node (its inputs, initializers, earlier
 * nodes' outputs) or in an enclosing graph before the node holding the
 * body, as onnx.checker's lexical scoping has it.  Each body node is
 * checked like a graph node (attributes, schema at the model's opset,
 * each value produced once), and the bodies it holds in turn. */

typedef struct scope {
    const ox_strmap *names;
    const struct scope *up;
} scope;

static bool scope_has(const scope *s, const char *name)
{
    for (; s; s = s->up)
        if (ox_strmap_find(s->names, name))
            return true;
    return false;
}

static void check_bodies(checker *c, const ox_graph *model, const ox_node *n, node_label *label,
                         const scope *outer);

static void check_body(checker *c, const ox_graph *model, const ox_graph *b, const char *where,
                       const scope *outer)
{
    char b1[64];
    ox_strmap local;
    size_t nv = b->n_values ? b->n_values : 1;
    ox_dtype *types = calloc(nv, sizeof(*types));
    if (!types || ox_strmap_init(&local, nv) != 0) {
        free(types);
        violation(c, "%s: out of memory checking the body", where);
        return;
    }
    scope here = {&local, outer};
    for (uint32_t i = 0; i < b->n_inputs; i++) {
        const ox_value *v = ox_graph_value(b, b->inputs[i]);
        if (!v || !v->name || !v->name[0])
            continue;
        if (ox_strmap_find(&local, v->name))
            violation(c, "%s: input '%s' is listed more than once", where, v->name);
        else
            ox_strmap_put(&local, v->name, v->id);
    }
    for (uint32_t i = 0; i < b->n_params; i++) {
        const ox_value *v = ox_graph_value(b, b->params[i]);
        if (v && v->name && v->name[0] && !ox_strmap_find(&local, v->name))
            ox_strmap_put(&local, v->name, v->id);
    }
    for (uint32_t i = 0; i < b->n_sparse; i++) {
        const ox_value *v = ox_graph_value(b, b->sparse[i].id);
        if (v && v->name && v->name[0] && !ox_strmap_find(&local, v->name))
            ox_strmap_put(&local, v->name, v->id);
    }
    uint32_t idx = 0;
    for (const ox_node *n = b->first; n; n = n->next, idx++) {
        node_label lab;
        lab.node = n;
        lab.idx = idx;
        lab.where = where;
        lab.made = false;
        node_label *label = &lab;
        const char *op = n->op_type ? n->op_type : "";
        const char *dom = n->domain ? n->domain : "";
        int64_t version = ox_graph_opset(model, dom);
        if (!op[0])
            violation(c, "node %s: op_type is empty", label_text(label));
        if (version == 0 && op[0] && (dom[0] || ox_graph_opset(model, "ai.onnx") == 0))
            violation(c, "node %s: no opset_import for domain '%s'", label_text(label), dom);
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            const ox_value *v = n->inputs[i] ? ox_graph_value(b, n->inputs[i]) : NULL;
            if (v && v->name && v->name[0] && !ox_strmap_find(&local, v->name) &&
                !scope_has(outer, v->name))
                violation(c, "node %s: input '%s' is not an input, an initializer or an output of "
                          "an earlier node of the body or of an enclosing graph",
                          label_text(label), v->name);
        }
        check_body_node(c, model, b, types, n, label, version);
        check_bodies(c, model, n, label, &here);
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            const ox_value *v = n->outputs[i] ? ox_graph_value(b, n->outputs[i]) : NULL;
            if (!v || !v->name || !v->name[0])
                continue;
            if (ox_strmap_find(&local, v->name))
                violation(c, "node %s: output '%s' is already defined (each value must be "
                          "produced once)", label_text(label), v->name);
            else
                ox_strmap_put(&local, v->name, v->id);
        }
    }
    for (uint32_t i = 0; i < b->n_outputs; i++) {
        const ox_value *v = ox_graph_value(b, b->outputs[i]);
        if (v && !(v->name && v->name[0] &&
                   (ox_strmap_find(&local, v->name) || scope_has(outer, v->name))))
            violation(c, "%s: output '%s' is not produced by any node, input or initializer of the "
                      "body or an enclosing graph", where, vname(v, b1, sizeof b1));
    }
    ox_strmap_free(&local);
    free(types);
}

static void check_bodies(checker *c, const ox_graph *model, const ox_node *n, node_label *label,
                         const scope *outer)
{
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        size_t count = a->kind == OX_ATTR_GRAPH ? 1 : a->kind == OX_ATTR_GRAPHS ? a->u.graphs.n : 0;
        for (size_t k = 0; k < count; k++) {
            const ox_graph *b = a->kind == OX_ATTR_GRAPH ? a->u.g
                                                         : (a->u.graphs.p ? a->u.graphs.p[k] : NULL);
            if (!b)
                continue; /* check_attrs reported it */
            char where[700];
            snprintf(where, sizeof where, "body '%s' of node %s", a->name ? a->name : "",
                     label_text(label));
            check_body(c, model, b, where, outer);
        }
    }
}

/* Every rule over g, counted in *cp (the first violation's text kept):
 * OX_OK, or OX_ENOMEM when the check could not run.  Touches no context,
 * so it can run on a thread of its own (check_job.h). */
static ox_status check_graph(const ox_graph *g, checker *cp)
{
    checker c = *cp;
    char b1[64], b2[600];

    if (g->ir_version <= 0)
        violation(&c, "model: ir_version is not set");
    else if (g->ir_version < OX_CHECK_IR_MIN || g->ir_version > OX_CHECK_IR_MAX)
        violation(&c, "model: ir_version %lld is outside the IR versions oxport knows (%d to %d)",
                  (long long)g->ir_version, OX_CHECK_IR_MIN, OX_CHECK_IR_MAX);
    if (!g->name || !g->name[0])
        violation(&c, "graph: the name is empty (ONNX requires one)");
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        const ox_opset_import *o = &g->opsets[i];
        if (o->version < 1)
            violation(&c, "model: opset_import for domain '%s' has version %lld (must be >= 1)",
                      o->domain ? o->domain : "", (long long)o->version);
    }
    bool has_default = false;
    for (uint32_t i = 0; i < g->n_opsets; i++)
        if (g->opsets[i].domain && (g->opsets[i].domain[0] == '\0' ||
                                    strcmp(g->opsets[i].domain, "ai.onnx") == 0))
            has_default = true;
    /* Like onnx.checker: a model whose nodes are all in other domains (the
     * training domain's Adagrad, say) needs no default-domain import. */
    if (!has_default && uses_default_domain(g))
        violation(&c, "model: no opset_import for the default domain (ai.onnx)");

    size_t nv = g->n_values ? g->n_values : 1;
    unsigned char *defined = calloc(nv, 1);
    ox_dtype *types = calloc(nv, sizeof(*types)); /* inferred, for untyped values */
    defmap names;
    if (!defined || !types || defmap_init(&names, nv) != 0) {
        free(defined);
        free(types);
        return OX_ENOMEM;
    }

    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const ox_value *v = ox_graph_value(g, g->inputs[i]);
        if (!v) {
            violation(&c, "graph input #%u refers to value id %u, which does not exist",
                      (unsigned)i, (unsigned)g->inputs[i]);
            continue;
        }
        if (!v->name || !v->name[0])
            violation(&c, "graph input #%u has no name", (unsigned)i);
        if (v->type.dtype == OX_UNDEFINED && !v->type.nontensor)
            violation(&c, "graph input '%s' has no element type", vname(v, b1, sizeof b1));
        if (defined[v->id]) {
            if (v->kind != OX_VAL_PARAM)
                violation(&c, "graph input '%s' is listed more than once", vname(v, b1, sizeof b1));
            continue;
        }
        defined[v->id] = 1;
        if (v->name && v->name[0]) {
            const definer *d =
                defmap_define(&names, v->id, (definer){v->name, "graph input", NULL});
            if (d) {
                describe(d, b2, sizeof b2);
                violation(&c, "graph input '%s': the name is already defined by %s", v->name, b2);
            }
        }
    }
    for (uint32_t i = 0; i < g->n_params; i++) {
        const ox_value *v = ox_graph_value(g, g->params[i]);
        if (!v) {
            violation(&c, "initializer #%u refers to value id %u, which does not exist",
                      (unsigned)i, (unsigned)g->params[i]);
            continue;
        }
        if (!v->name || !v->name[0]) {
            violation(&c, "initializer #%u has no name", (unsigned)i);
            defined[v->id] = 1;
            continue;
        }
        if (defined[v->id] && v->kind == OX_VAL_PARAM)
            continue; /* listed as an input as well: one definition */
        /* IR 3 has no initializers apart from inputs: an initializer only
         * gives an input its default (onnx.checker's rule) */
        if (g->ir_version >= OX_CHECK_IR_MIN && g->ir_version <= 3 && !v->listed_as_input)
            violation(&c, "initializer '%s' is not a graph input; IR version %lld requires every "
                      "initializer to be listed as a graph input too", v->name,
                      (long long)g->ir_version);
        defined[v->id] = 1;
        const definer *d = defmap_define(&names, v->id, (definer){v->name, "initializer", NULL});
        if (d) {
            if (strcmp(d->what, "initializer") == 0) {
                violation(&c, "initializer '%s' is defined more than once", v->name);
            } else {
                describe(d, b2, sizeof b2);
                violation(&c, "initializer '%s': the name is already defined by %s", v->name, b2);
            }
        }
    }
    for (uint32_t i = 0; i < g->n_sparse; i++)
        check_sparse(&c, g, i, defined, &names);
    /* forward-created constants are written as initializers */
    for (ox_vid id = 1; id < g->n_values; id++) {
        const ox_value *v = g->values[id];
        if (v && v->kind == OX_VAL_CONST && !v->producer)
            defined[id] = 1;
    }

    uint32_t idx = 0;
    for (const ox_node *n = g->first; n; n = n->next, idx++) {
        node_label lab;
        lab.node = n;
        lab.idx = idx;
        lab.where = NULL;
        lab.made = false; /* (text is left unset: it is large) */
        node_label *label = &lab;
        const char *op = n->op_type ? n->op_type : "";
        const char *dom = n->domain ? n->domain : "";
        if (!op[0])
            violation(&c, "node %s: op_type is empty", label_text(label));
        if (ox_graph_opset(g, dom) == 0 && (dom[0] != '\0' || has_default))
            violation(&c, "node %s: no opset_import for domain '%s'", label_text(label), dom);
        /* a pack's stand-in for an output no ONNX operator computes (a
         * torchvision kernel's backward bookkeeping, say): harmless while
         * nothing reads it, and dead-code elimination drops it then */
        if (strcmp(dom, "oxport.unexpressible") == 0)
            violation(&c, "node %s: the model reads %s, which no ONNX operator computes",
                      label_text(label), op);
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            ox_vid id = n->inputs[i];
            if (id == 0)
                continue; /* absent optional input */
            const ox_value *v = ox_graph_value(g, id);
            if (!v)
                violation(&c, "node %s: input #%u refers to value id %u, which does not exist",
                          label_text(label), (unsigned)i, (unsigned)id);
            else if (!defined[id])
                violation(&c, "node %s: input '%s' is not a graph input, an initializer or an "
                          "output of an earlier node", label_text(label), vname(v, b1, sizeof b1));
        }
        check_attrs(&c, label, n);
        {
            scope top = {&names.names, NULL};
            check_bodies(&c, g, n, label, &top);
        }
        schema_violation sv = {&c, label};
        int64_t version = ox_graph_opset(g, dom);
        const ox_function *callee = ox_graph_function(g, dom, op);
        if (callee) {
            check_call(&c, label, n, callee);
        } else if (version > 0 && op[0]) {
            ox_schema_lookup schema = ox_schema_lookup_node(n, version);
            size_t broken = ox_schema_check_node_as(g, types, n, &schema, version,
                                                    schema_rule_broken, &sv);
            infer_outputs(&c, g, types, n, &schema, label, broken == 0);
        }
        for (uint32_t i = 0; i < n->n_outputs; i++) {
            ox_vid id = n->outputs[i];
            if (id == 0)
                continue; /* absent optional output */
            const ox_value *v = ox_graph_value(g, id);
            if (!v) {
                violation(&c, "node %s: output #%u refers to value id %u, which does not exist",
                          label_text(label), (unsigned)i, (unsigned)id);
                continue;
            }
            if (defined[id]) {
                violation(&c, "node %s: output '%s' is already defined (each value must be "
                          "produced once)", label_text(label), vname(v, b1, sizeof b1));
                continue;
            }
            defined[id] = 1;
            if (v->name && v->name[0]) {
                const definer *d = defmap_define(
                    &names, id, (definer){v->name, "node", n->name && n->name[0] ? n->name : op});
                if (d) {
                    describe(d, b2, sizeof b2);
                    violation(&c, "node %s: output '%s' is already defined by %s",
                              label_text(label), v->name, b2);
                }
            }
        }
    }

    for (uint32_t i = 0; i < g->n_outputs; i++) {
        const ox_value *v = ox_graph_value(g, g->outputs[i]);
        if (!v) {
            violation(&c, "graph output #%u refers to value id %u, which does not exist",
                      (unsigned)i, (unsigned)g->outputs[i]);
            continue;
        }
        if (!v->name || !v->name[0])
            violation(&c, "graph output #%u has no name", (unsigned)i);
        if (v->type.dtype == OX_UNDEFINED && !v->type.nontensor)
            violation(&c, "graph output '%s' has no element type", vname(v, b1, sizeof b1));
        if (!defined[v->id])
            violation(&c, "graph output '%s' is not produced by any node, graph input or "
                      "initializer", vname(v, b1, sizeof b1));
    }

    check_functions(&c, g);

    free(defined);
    free(types);
    defmap_free(&names);
    *cp = c;
    return OX_OK;
}

/* check_graph's outcome as ox_check reports it. */
static ox_status check_outcome(ox_context *ctx, ox_status st, const checker *c,
                               size_t *n_violations)
{
    if (n_violations)
        *n_violations = c->n;
    if (st == OX_ENOMEM)
        return ox_fail(ctx, OX_ENOMEM, "ox_check: out of memory");
    if (c->n)
        return ox_fail(ctx, OX_ECHECK, "%zu ONNX structural rule violation%s; first: %s", c->n,
                       c->n == 1 ? "" : "s", c->first);
    return OX_OK;
}

ox_status ox_check(ox_context *ctx, const ox_graph *g, FILE *report, size_t *n_violations)
{
    if (n_violations)
        *n_violations = 0;
    if (!g)
        return ox_fail(ctx, OX_EINVAL, "ox_check: graph is NULL");
    if (g->is_trace)
        /* Its nodes are the host's records, not ONNX's: every one would be
         * "reported" as a violation, which says nothing about the export. */
        return ox_fail(ctx, OX_EINVAL, "ox_check: graph %s is a traced graph, whose aten:: nodes "
                       "are no ONNX operators; check the converted graph (ox_convert) or the "
                       "written file", g->name);
    checker c = {report, 0, {0}};
    ox_status st = check_graph(g, &c);
    return check_outcome(ctx, st, &c, n_violations);
}

/* ------------------------------------------------------------ on a thread */

struct ox_check_job {
    const ox_graph *g;
    pthread_t thread;
    bool threaded;
    ox_status st;
    checker c;
};

static void *run_job(void *arg)
{
    ox_check_job *j = arg;
    j->st = check_graph(j->g, &j->c);
    return NULL;
}

ox_check_job *ox_check_start(const ox_graph *g)
{
    ox_check_job *j = g ? calloc(1, sizeof(*j)) : NULL;
    if (!j)
        return NULL;
    j->g = g;
    if (g->n_nodes >= OX_CHECK_THREAD_MIN_NODES) {
        /* The thread starts with every signal blocked, so the host's
         * handlers (Ctrl-C in Python, the CLI's temp-file cleanup) keep
         * running on the host's own threads. */
        sigset_t all, before;
        sigfillset(&all);
        bool masked = pthread_sigmask(SIG_SETMASK, &all, &before) == 0;
        j->threaded = pthread_create(&j->thread, NULL, run_job, j) == 0;
        if (masked)
            pthread_sigmask(SIG_SETMASK, &before, NULL);
    }
    if (!j->threaded)
        run_job(j); /* no thread to be had: the check runs here, as ox_check would */
    return j;
}

ox_status ox_check_finish(ox_context *ctx, const ox_graph *g, ox_check_job *j)
{
    if (!j)
        return ox_check(ctx, g, NULL, NULL);
    if (j->threaded)
        pthread_join(j->thread, NULL);
    ox_status st = check_outcome(ctx, j->st, &j->c, NULL);
    free(j);
    return st;
}
