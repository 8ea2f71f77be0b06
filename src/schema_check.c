/*
 * Schema lookup (the generated table, hashed once) and the per-node schema
 * rules described in schema_check.h.
 */
#include "schema_check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_schemas.h"
#include "strmap.h"

/* ------------------------------------------------------------ lookup */

const char *ox_schema_domain(const char *domain)
{
    if (!domain || (domain[0] == 'a' && strcmp(domain, "ai.onnx") == 0))
        return "";
    return domain;
}

int ox_schema_domain_max(const char *domain)
{
    domain = ox_schema_domain(domain);
    for (size_t i = 0; i < ox_n_schema_domains; i++)
        if (ox_str_eq(ox_schema_domains[i].domain, domain))
            return ox_schema_domains[i].max_version;
    return 0;
}

static int cmp_key(const ox_schema *s, const char *domain, const char *op)
{
    int c = strcmp(s->domain, domain);
    return c ? c : strcmp(s->name, op);
}

/* The row range of (domain, op): rows [*first, *first + count), count 0
 * when the table does not have it. */
typedef struct row_range {
    size_t first, count;
} row_range;

/* By bisection: the fallback when the index below could not be built. */
static row_range bisect_rows(const char *domain, const char *op)
{
    size_t lo = 0, hi = ox_n_schemas;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(&ox_schemas[mid], domain, op) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    row_range r = {lo, 0};
    while (lo + r.count < ox_n_schemas && cmp_key(&ox_schemas[lo + r.count], domain, op) == 0)
        r.count++;
    return r;
}

/* The table hashed by domain, then operator name, built once per process:
 * conversion and the checker look each node's schema up several times, and
 * bisecting by string compares was a tenth of an export's time
 * (docs/performance.md).  One string map per domain of ox_schema_domains;
 * each value packs the operator's first row (low 32 bits) and its number
 * of rows (high 32 bits).  The keys are the table's own strings. */
static ox_strmap *index_by_domain; /* NULL: not built (out of memory), bisect */
static pthread_once_t index_once = PTHREAD_ONCE_INIT;
/* Per row, the last version it holds for: the version before its operator's
 * next row, else its domain's newest.  A node's cached row
 * (ox_node.schema_row) answers a lookup at a version in [since, until]
 * without the hash.  NULL with the index. */
static int *row_until;

static size_t domain_slot(const char *domain)
{
    for (size_t i = 0; i < ox_n_schema_domains; i++)
        if (ox_str_eq(ox_schema_domains[i].domain, domain))
            return i;
    return SIZE_MAX;
}

/* Whether rows a and b are one operator's.  The generated table's rows of
 * one operator mostly share its name and domain strings (the compiler
 * merges equal literals), so the addresses answer most pairs. */
static bool same_operator(const ox_schema *a, const ox_schema *b)
{
    if (a->name == b->name && a->domain == b->domain)
        return true;
    return cmp_key(a, b->domain, b->name) == 0;
}

/* One walk of the table: each operator's rows found once, for both the
 * index and row_until (this runs on the first export of a process). */
static void build_index(void)
{
    ox_strmap *maps = calloc(ox_n_schema_domains, sizeof(*maps));
    int *until = maps ? malloc(ox_n_schemas * sizeof(*until)) : NULL;
    bool ok = until != NULL;
    const char *domain = NULL;
    size_t d = SIZE_MAX;
    int domain_max = 0;
    for (size_t i = 0; ok && i < ox_n_schemas;) {
        const ox_schema *s = &ox_schemas[i];
        size_t n = 1;
        while (i + n < ox_n_schemas && same_operator(&ox_schemas[i + n], s))
            n++;
        if (!domain || !ox_str_eq(domain, s->domain)) {
            domain = s->domain;
            d = domain_slot(domain);
            domain_max = ox_schema_domain_max(domain);
        }
        ok = d != SIZE_MAX && i <= UINT32_MAX &&
             ox_strmap_put(&maps[d], s->name, (uint64_t)i | ((uint64_t)n << 32)) > 0;
        for (size_t k = i; k + 1 < i + n; k++)
            until[k] = ox_schemas[k + 1].since_version - 1;
        until[i + n - 1] = domain_max;
        i += n;
    }
    if (!ok) {
        free(until);
        until = NULL;
    }
    if (!until && maps) {
        for (size_t k = 0; k < ox_n_schema_domains; k++)
            ox_strmap_free(&maps[k]);
        free(maps);
        maps = NULL;
    }
    index_by_domain = maps;
    row_until = until;
}

static row_range rows_of(const char *domain, const char *op)
{
    pthread_once(&index_once, build_index);
    if (!index_by_domain)
        return bisect_rows(domain, op);
    row_range r = {ox_n_schemas, 0};
    size_t d = domain_slot(domain);
    const uint64_t *v = d == SIZE_MAX ? NULL : ox_strmap_find(&index_by_domain[d], op);
    if (v) {
        r.first = (size_t)(*v & UINT32_MAX);
        r.count = (size_t)(*v >> 32);
    }
    return r;
}

const ox_schema *ox_schema_find(const char *domain, const char *op, int64_t version)
{
    if (!op)
        return NULL;
    row_range r = rows_of(ox_schema_domain(domain), op);
    const ox_schema *best = NULL;
    for (size_t i = r.first; i < r.first + r.count; i++)
        if (ox_schemas[i].since_version <= version)
            best = &ox_schemas[i];
    return best;
}

int ox_schema_first_version(const char *domain, const char *op)
{
    if (!op)
        return 0;
    row_range r = rows_of(ox_schema_domain(domain), op);
    return r.count ? ox_schemas[r.first].since_version : 0;
}

const ox_schema_attr *ox_schema_attr_find(const ox_schema *s, const char *name)
{
    size_t lo = s->first_attr, hi = s->first_attr + s->n_attrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ox_schema_attrs[mid].name, name);
        if (c == 0)
            return &ox_schema_attrs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *ox_schema_unchecked_reason(const char *domain, int64_t version)
{
    int max = ox_schema_domain_max(domain);
    if (max == 0)
        return "a custom domain";
    if (version > max)
        return "newer than the schema table";
    return NULL;
}

/* ------------------------------------------------------------ rules */

typedef struct rules {
    ox_schema_emit_fn emit;
    void *user;
    size_t n;
    const ox_schema *s;
    int64_t version;
} rules;

static void broken(rules *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void broken(rules *r, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r->n++;
    if (r->emit)
        r->emit(r->user, buf);
}

static const char *attr_type_name(int t)
{
    static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                  "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                  "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                  "TYPE_PROTOS"};
    return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

static const char *elem_name(int t)
{
    if (t == 14)
        return "complex64";
    if (t == 15)
        return "complex128";
    return ox_dtype_name((ox_dtype)t);
}

static void mask_list(uint32_t mask, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 1; t <= 16 && len < cap; t++)
        if (mask & (1u << t))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", elem_name(t));
    if (!len)
        snprintf(buf, cap, "no tensor types");
}

/* The formal parameter that operand i of n_operands stands for, or NULL. */
static const ox_schema_formal *formal_of(uint32_t first, uint32_t n_formals, uint32_t i)
{
    if (n_formals == 0)
        return NULL;
    if (i < n_formals)
        return &ox_schema_formals[first + i];
    const ox_schema_formal *last = &ox_schema_formals[first + n_formals - 1];
    return last->option == OX_FORMAL_VARIADIC ? last : NULL;
}

static bool formal_is_variadic_tail(uint32_t n_formals, uint32_t i)
{
    return i + 1 >= n_formals;
}

static void check_counts(rules *r, const char *what, uint32_t got, int min, int max)
{
    if ((int64_t)got < min || (int64_t)got > max) {
        if (max == OX_SCHEMA_UNBOUNDED)
            broken(r, "%s (opset %lld) takes at least %d %s, got %u", r->s->name,
                   (long long)r->version, min, what, got);
        else if (min == max)
            broken(r, "%s (opset %lld) takes %d %s, got %u", r->s->name, (long long)r->version,
                   min, what, got);
        else
            broken(r, "%s (opset %lld) takes %d to %d %s, got %u", r->s->name,
                   (long long)r->version, min, max, what, got);
    }
}

/* An operand's element type: from `types` (indexed by value id) when the
 * caller inferred one, else the value's own. */
static ox_dtype operand_dtype(const ox_graph *g, const ox_dtype *types, ox_vid id)
{
    if (types && id < g->n_values && types[id] != OX_UNDEFINED)
        return types[id];
    const ox_value *v = ox_graph_value(g, id);
    return v ? v->type.dtype : OX_UNDEFINED;
}

/* Whether a constraint is a literal type string ("tensor(int64)") rather
 * than a type variable.  Most variables are one letter ("T"): those are
 * answered without a scan, which ran for every operand of every node. */
static bool constraint_is_literal(const ox_schema_constraint *tc)
{
    return tc->name[0] && tc->name[1] && strchr(tc->name, '(');
}

/* A type variable's first bound element type, per constraint index. */
typedef struct binding {
    int dtype;
    const char *side; /* "input" / "output" */
    uint32_t index;
} binding;

static void check_operands(rules *r, const ox_graph *g, const ox_dtype *types,
                           const char *side, const ox_vid *ids,
                           uint32_t n, uint32_t first, uint32_t n_formals, binding *bind)
{
    const ox_schema *s = r->s;
    for (uint32_t i = 0; i < n; i++) {
        const ox_schema_formal *f = formal_of(first, n_formals, i);
        if (!f)
            continue;
        bool in_variadic = f->option == OX_FORMAL_VARIADIC && formal_is_variadic_tail(n_formals, i);
        if (ids[i] == 0) {
            if (f->option == OX_FORMAL_SINGLE)
                broken(r, "%s %u (%s) of %s is required but absent", side, i, f->name, s->name);
            continue;
        }
        if (f->constraint >= s->n_constraints)
            continue;
        const ox_schema_constraint *tc = &ox_schema_constraints[s->first_constraint + f->constraint];
        /* A sequence, optional, map or sparse tensor where the constraint
         * allows tensors only (Relu of a sequence, Identity-13 of a sparse
         * initializer): onnx's type inference refuses it.  The table keeps
         * one bit for all non-tensor kinds, so only that much is held. */
        const ox_value *ov = ox_graph_value(g, ids[i]);
        if (ov && ov->type.nontensor && !(tc->types & OX_SCHEMA_NON_TENSOR)) {
            char allowed[256];
            mask_list(tc->types, allowed, sizeof allowed);
            broken(r, "%s %u (%s) of %s is %s, which type constraint %s does not allow "
                      "(allowed: %s)", side, i, f->name, s->name, ov->type.nontensor, tc->name,
                   allowed);
            continue;
        }
        ox_dtype vt = operand_dtype(g, types, ids[i]);
        if (vt == OX_UNDEFINED)
            continue;
        int dt = (int)vt;
        if (dt < 0 || dt > 30 || !(tc->types & (1u << dt))) {
            char allowed[256];
            mask_list(tc->types, allowed, sizeof allowed);
            broken(r, "%s %u (%s) of %s is %s, which type constraint %s does not allow "
                      "(allowed: %s)", side, i, f->name, s->name, elem_name(dt), tc->name, allowed);
            continue;
        }
        /* A heterogeneous variadic (Loop's V, Scan's V) binds no one type. */
        if (in_variadic && !f->homogeneous)
            continue;
        /* A literal type string is not a variable: nothing to unify. */
        if (constraint_is_literal(tc))
            continue;
        binding *b = &bind[f->constraint];
        if (b->dtype == 0) {
            *b = (binding){dt, side, i};
        } else if (b->dtype != dt) {
            broken(r, "%s %u of %s is %s but %s %u is %s: both have type %s", side, i, s->name,
                   elem_name(dt), b->side, b->index, elem_name(b->dtype), tc->name);
        }
    }
}

/* Row `row1` - 1 (a hint: the node's own, or its kind's), when it is n's
 * schema at `version`: the row's operator and domain are the node's (a pass
 * may have changed its kind) and the version falls in the row's range. */
static const ox_schema *row_for(const ox_node *n, uint32_t row1, int64_t version)
{
    if (!row1 || !n->op_type)
        return NULL;
    pthread_once(&index_once, build_index);
    size_t row = row1 - 1;
    if (!row_until || row >= ox_n_schemas)
        return NULL;
    const ox_schema *s = &ox_schemas[row];
    if (version < s->since_version || version > row_until[row] || !ox_str_eq(s->name, n->op_type) ||
        !ox_str_eq(s->domain, ox_schema_domain(n->domain)))
        return NULL;
    return s;
}

/* The row last found for a node whose kind string was at this address, per
 * thread.  A graph's nodes of one kind share the string (ir.h), so a new
 * node finds its row here without hashing its name; like the node's own
 * hint, a row is used only after row_for agrees, so an address reused for
 * another kind only misses. */
#define SCHEMA_HINTS 64
static _Thread_local struct {
    const char *kind;
    uint32_t row1;
} schema_hints[SCHEMA_HINTS];

static size_t hint_slot(const char *kind)
{
    return (size_t)(((uintptr_t)kind >> 4) % SCHEMA_HINTS);
}

/* The node's own row when it was noted under the kind the node still has:
 * then only the version range needs checking (ox_node.schema_kind). */
static const ox_schema *noted_row(const ox_node *n, int64_t version)
{
    if (!n->schema_row || !n->kind || n->schema_kind != n->kind)
        return NULL;
    pthread_once(&index_once, build_index);
    size_t row = n->schema_row - 1;
    if (!row_until || row >= ox_n_schemas)
        return NULL;
    const ox_schema *s = &ox_schemas[row];
    return version >= s->since_version && version <= row_until[row] ? s : NULL;
}

ox_schema_lookup ox_schema_lookup_node(const ox_node *n, int64_t version)
{
    ox_schema_lookup l = {false, NULL};
    const ox_schema *cached = noted_row(n, version);
    if (!cached)
        cached = row_for(n, n->schema_row, version);
    if (!cached && n->kind && schema_hints[hint_slot(n->kind)].kind == n->kind)
        cached = row_for(n, schema_hints[hint_slot(n->kind)].row1, version);
    if (cached) {
        l.checked = true;
        l.s = cached;
        return l;
    }
    const char *domain = ox_schema_domain(n->domain);
    if (ox_schema_unchecked_reason(domain, version))
        return l;
    l.checked = true;
    l.s = ox_schema_find(domain, n->op_type ? n->op_type : "", version);
    if (l.s && n->kind) {
        schema_hints[hint_slot(n->kind)].kind = n->kind;
        schema_hints[hint_slot(n->kind)].row1 = (uint32_t)(l.s - ox_schemas) + 1;
    }
    return l;
}

ox_schema_lookup ox_schema_lookup_node_noting(ox_node *n, int64_t version)
{
    ox_schema_lookup l = ox_schema_lookup_node(n, version);
    if (l.s) {
        n->schema_row = (uint32_t)(l.s - ox_schemas) + 1;
        n->schema_kind = n->kind;
    }
    return l;
}

size_t ox_schema_check_node(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                            int64_t version, ox_schema_emit_fn emit, void *user)
{
    ox_schema_lookup l = ox_schema_lookup_node(n, version);
    return ox_schema_check_node_as(g, types, n, &l, version, emit, user);
}

/* The last node found clean against each schema row, per thread, by what
 * the check reads of a node without attributes: its operand counts and each
 * operand's element type (CLEAN_ABSENT for an absent one).  A node that
 * reads the same is clean too, and skips the counts, the required
 * attributes and the type constraints.  Nodes of one kind built by one
 * symbolic mostly read alike, and conversion and ox_check each check every
 * node. */
enum { CLEAN_OPERANDS = 6, CLEAN_SLOTS = 64, CLEAN_ABSENT = 0xFF };
typedef struct clean_key {
    const ox_schema *s;
    uint32_t n_inputs, n_outputs;
    uint8_t dtypes[CLEAN_OPERANDS];
} clean_key;
static _Thread_local clean_key clean_memo[CLEAN_SLOTS];

/* The key of n against s, false when n is not one the memo keeps. */
static bool clean_key_of(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                         const ox_schema *s, clean_key *k)
{
    if (n->n_attrs || n->n_inputs + n->n_outputs > CLEAN_OPERANDS)
        return false;
    memset(k, 0, sizeof *k);
    k->s = s;
    k->n_inputs = n->n_inputs;
    k->n_outputs = n->n_outputs;
    uint32_t j = 0;
    for (uint32_t i = 0; i < n->n_inputs + n->n_outputs; i++, j++) {
        ox_vid id = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
        ox_dtype dt = id ? operand_dtype(g, types, id) : OX_UNDEFINED;
        if ((int)dt < 0 || (int)dt >= CLEAN_ABSENT)
            return false;
        k->dtypes[j] = id ? (uint8_t)dt : CLEAN_ABSENT;
    }
    return true;
}

static size_t schema_check_node_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                   const ox_schema_lookup *l, int64_t version,
                                   ox_schema_emit_fn emit, void *user, bool use_memo);

static ox_dtype attribute_dtype(const ox_node *n);

/* An output whose element type the node's attributes fix (a Constant's
 * value, a Cast's `to`) but that the file leaves untyped: check_operands
 * sees no type for it, so the type the attribute gives is held to the
 * output's constraint here, as onnx's type inference does (a Constant of
 * int64 before opset 9, whose T is float16/float/double only). */
static void check_attribute_typed_output(rules *r, const ox_graph *g, const ox_dtype *types,
                                         const ox_node *n)
{
    const ox_schema *s = r->s;
    if (ox_schema_domain(n->domain)[0] != '\0' || n->n_outputs == 0 || !n->outputs[0] ||
        operand_dtype(g, types, n->outputs[0]) != OX_UNDEFINED)
        return;
    ox_dtype a = attribute_dtype(n);
    const ox_schema_formal *f = formal_of(s->first_output, s->n_outputs, 0);
    if (a == OX_UNDEFINED || !f || f->constraint >= s->n_constraints)
        return;
    const ox_schema_constraint *tc = &ox_schema_constraints[s->first_constraint + f->constraint];
    int dt = (int)a;
    if (dt < 0 || dt > 30 || !(tc->types & (1u << dt))) {
        char allowed[256];
        mask_list(tc->types, allowed, sizeof allowed);
        broken(r, "output 0 (%s) of %s is %s (its attribute's type), which type constraint %s "
                  "does not allow (allowed: %s)", f->name, s->name, elem_name(dt), tc->name, allowed);
    }
}

static clean_key *clean_slot(const ox_schema *s)
{
    return &clean_memo[(size_t)(s - ox_schemas) % CLEAN_SLOTS];
}

size_t ox_schema_check_node_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                               const ox_schema_lookup *l, int64_t version,
                               ox_schema_emit_fn emit, void *user)
{
    return schema_check_node_as(g, types, n, l, version, emit, user, true);
}

static size_t schema_check_node_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                   const ox_schema_lookup *l, int64_t version,
                                   ox_schema_emit_fn emit, void *user, bool use_memo)
{
    rules r = {emit, user, 0, NULL, version};
    const char *domain = ox_schema_domain(n->domain);
    const char *op = n->op_type ? n->op_type : "";
    if (!l->checked)
        return 0;
    const ox_schema *s = l->s;
    if (!s) {
        int first = ox_schema_first_version(domain, op);
        const char *dname = domain[0] ? domain : "ai.onnx";
        if (first)
            broken(&r, "%s is not in %s opset %lld (it is introduced in opset %d)", op, dname,
                   (long long)version, first);
        else
            broken(&r, "%s is not an operator of %s (opset %lld)", op, dname, (long long)version);
        return r.n;
    }
    r.s = s;
    if (s->deprecated) {
        broken(&r, "%s is deprecated at opset %lld (since opset %d)", op, (long long)version,
               s->since_version);
        return r.n;
    }
    clean_key key;
    clean_key *slot = use_memo && clean_key_of(g, types, n, s, &key) ? clean_slot(s) : NULL;
    if (slot && memcmp(slot, &key, sizeof key) == 0)
        return 0;
    check_counts(&r, "input(s)", n->n_inputs, s->min_inputs, s->max_inputs);
    check_counts(&r, "output(s)", n->n_outputs, s->min_outputs, s->max_outputs);

    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        if (!a->name)
            continue;
        const ox_schema_attr *sa = ox_schema_attr_find(s, a->name);
        if (!sa)
            broken(&r, "%s (opset %lld) has no attribute '%s'", op, (long long)version, a->name);
        else if ((int)a->kind != sa->type)
            broken(&r, "attribute '%s' of %s must be %s, got %s", a->name, op,
                   attr_type_name(sa->type), attr_type_name((int)a->kind));
    }
    for (uint32_t k = 0; k < s->n_attrs; k++) {
        const ox_schema_attr *sa = &ox_schema_attrs[s->first_attr + k];
        if (sa->required && !ox_node_attr(n, sa->name))
            broken(&r, "%s requires attribute '%s' (%s)", op, sa->name, attr_type_name(sa->type));
    }

    binding bind[64];
    if (s->n_constraints <= 64) {
        memset(bind, 0, s->n_constraints * sizeof(*bind));
        check_operands(&r, g, types, "input", n->inputs, n->n_inputs, s->first_input, s->n_inputs, bind);
        check_operands(&r, g, types, "output", n->outputs, n->n_outputs, s->first_output, s->n_outputs,
                       bind);
        check_attribute_typed_output(&r, g, types, n);
    }
    if (slot && r.n == 0)
        memcpy(slot, &key, sizeof key); /* padding too: the memo is compared bytewise */
    return r.n;
}

size_t ox_schema_check_node_unmemoized(const ox_graph *g, const ox_dtype *types,
                                       const ox_node *n, const ox_schema_lookup *l,
                                       int64_t version, ox_schema_emit_fn emit, void *user)
{
    return schema_check_node_as(g, types, n, l, version, emit, user, false);
}

/* ------------------------------------------------------------ inference */

/* A dtype fixed by the node's attributes, for the operators whose output
 * type the constraints leave open. */
static ox_dtype attribute_dtype(const ox_node *n)
{
    const char *op = n->op_type;
    if (op[0] != 'C')
        return OX_UNDEFINED; /* none of the operators below */
    if (strcmp(op, "Cast") == 0) {
        const ox_attr *to = ox_node_attr(n, "to");
        return to && to->kind == OX_ATTR_INT && ox_dtype_valid((int)to->u.i) ? (ox_dtype)to->u.i
                                                                             : OX_UNDEFINED;
    }
    if (strcmp(op, "Constant") == 0 || strcmp(op, "ConstantOfShape") == 0) {
        const ox_attr *v = ox_node_attr(n, "value");
        if (v && v->kind == OX_ATTR_TENSOR && v->u.t)
            return v->u.t->dtype;
        if (strcmp(op, "ConstantOfShape") == 0 && !v)
            return OX_FLOAT; /* the schema's default value is a float 0 */
        if ((v = ox_node_attr(n, "value_float")) || (v = ox_node_attr(n, "value_floats")))
            return OX_FLOAT;
        if ((v = ox_node_attr(n, "value_int")) || (v = ox_node_attr(n, "value_ints")))
            return OX_INT64;
    }
    return OX_UNDEFINED;
}

/* The one element type among 1..16 a constraint allows, 0 when it allows
 * none or several of them.  Bit arithmetic, not a loop over the sixteen:
 * it runs for every output of every converted node, three times. */
static int single_type(uint32_t mask)
{
    if (mask & OX_SCHEMA_NON_TENSOR)
        return 0;
    uint32_t m = mask & 0x1FFFEu; /* bits 1..16 */
    if (!m || (m & (m - 1)))
        return 0;
    return __builtin_ctz(m);
}

ox_dtype ox_schema_output_dtype(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                int64_t version, uint32_t i)
{
    ox_schema_lookup l = ox_schema_lookup_node(n, version);
    return ox_schema_output_dtype_as(g, types, n, &l, i);
}

ox_dtype ox_schema_output_dtype_as(const ox_graph *g, const ox_dtype *types, const ox_node *n,
                                   const ox_schema_lookup *l, uint32_t i)
{
    if (!n->op_type || !l->checked)
        return OX_UNDEFINED;
    const ox_schema *s = l->s;
    if (!s || s->deprecated || i >= n->n_outputs)
        return OX_UNDEFINED;
    if (ox_schema_domain(n->domain)[0] == '\0') {
        ox_dtype a = attribute_dtype(n);
        if (a != OX_UNDEFINED)
            return a;
    }
    const ox_schema_formal *f = formal_of(s->first_output, s->n_outputs, i);
    if (!f || f->constraint >= s->n_constraints)
        return OX_UNDEFINED;
    const ox_schema_constraint *tc = &ox_schema_constraints[s->first_constraint + f->constraint];
    int only = single_type(tc->types);
    if (only && ox_dtype_valid(only))
        return (ox_dtype)only;
    if (constraint_is_literal(tc) ||
        (f->option == OX_FORMAL_VARIADIC && !f->homogeneous))
        return OX_UNDEFINED;
    for (uint32_t k = 0; k < n->n_inputs; k++) {
        const ox_schema_formal *fi = formal_of(s->first_input, s->n_inputs, k);
        if (!fi || fi->constraint != f->constraint || !n->inputs[k])
            continue;
        if (fi->option == OX_FORMAL_VARIADIC && !fi->homogeneous)
            continue;
        ox_dtype t = operand_dtype(g, types, n->inputs[k]);
        if (t != OX_UNDEFINED)
            return t;
    }
    return OX_UNDEFINED;
}
