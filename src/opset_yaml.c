#include "opset_yaml.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "strmap.h"
#include "yaml_read.h"

/* ------------------------------------------------------------ data model */

typedef enum yv_kind { YV_BOOL, YV_INT, YV_FLOAT, YV_STRING, YV_LIST } yv_kind;

/* A value in a limitation: a YAML scalar or a list of them. */
typedef struct yval {
    yv_kind kind;
    int64_t i;   /* INT, BOOL */
    double f;    /* INT, BOOL, FLOAT */
    const char *s; /* STRING; for every scalar, its text as written */
    const struct yval *items;
    size_t n;
} yval;

typedef enum match_kind { M_EQUALS, M_IN, M_NOT_IN, M_OUTSIDE, M_PRESENT } match_kind;

typedef struct matcher {
    match_kind kind;
    yval v; /* EQUALS: the value; IN/NOT_IN: the list; OUTSIDE: [lo, hi] */
    /* Where `arg:` was written, for errors found after inheritance. */
    const char *file;
    unsigned long line, col;
} matcher;

/* A resolved operator: the public view first so pointers convert both ways. */
typedef struct res_op {
    ox_opset_op op;
    const char *params_file; /* descriptor that declared the params (messages) */
    bool has_params;
} res_op;

typedef struct snapshot {
    const ox_opset_op **ops; /* sorted by name */
    size_t n;
    const ox_opset_exclusion **excl; /* sorted by name */
    size_t n_excl;
    /* By column of db->columns (NULL where this opset does not declare the
     * name); NULL until the loaded database is indexed. */
    const ox_opset_op **by_column;
} snapshot;

struct ox_opset_db {
    ox_arena arena;
    int min, max;
    snapshot *snaps; /* index opset - min */
    /* Every operator name any opset declares -> its column in the
     * snapshots' by_column: the pre-scan looks each node up two or three
     * times, and bisecting by name was a tenth of its time. */
    ox_strmap columns;
};

/* One operator entry of one file before merging. */
typedef struct entry {
    const char *name;
    bool has_params, has_lims, has_doc;
    ox_opset_param *params;
    size_t n_params;
    ox_opset_limitation *lims;
    size_t n_lims;
    const char *doc;
} entry;

typedef struct file_ref {
    int opset;
    char *path; /* malloc'd */
} file_ref;

/* Parsing state of one file. */
typedef struct parse {
    ox_context *ctx;
    ox_opset_db *db;
    ox_yaml y;
    const char *path; /* arena copy */
    int opset;
} parse;

#define OOM(P) ox_fail((P)->ctx, OX_ENOMEM, "%s: out of memory", (P)->path)

/* ---------------------------------------------------------------- parsing */

static ox_status parse_value(parse *P, yaml_node_t *n, bool allow_list, yval *out)
{
    memset(out, 0, sizeof(*out));
    if (n && n->type == YAML_SEQUENCE_NODE && allow_list) {
        size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        yval *items = ox_arena_alloc(&P->db->arena, (count ? count : 1) * sizeof(*items));
        if (!items)
            return OOM(P);
        for (size_t i = 0; i < count; i++) {
            yaml_node_t *it = ox_yaml_node(&P->y, n->data.sequence.items.start[i]);
            ox_status st = parse_value(P, it, false, &items[i]);
            if (st != OX_OK)
                return st;
        }
        out->kind = YV_LIST;
        out->items = items;
        out->n = count;
        return OX_OK;
    }
    ox_yvalue v = ox_yaml_scalar(n);
    switch (v.kind) {
    case OX_YS_BOOL: out->kind = YV_BOOL; break;
    case OX_YS_INT: out->kind = YV_INT; break;
    case OX_YS_FLOAT: out->kind = YV_FLOAT; break;
    case OX_YS_STRING: out->kind = YV_STRING; break;
    case OX_YS_NULL:
    case OX_YS_NOT_SCALAR:
        return ox_yaml_expected(P->ctx, &P->y, n,
                                allow_list ? "a value (int, float, bool, string or a list of them)"
                                           : "a scalar value (int, float, bool or string)");
    }
    out->i = v.i;
    out->f = v.f;
    out->s = ox_arena_strdup(&P->db->arena, v.s);
    if (!out->s)
        return OOM(P);
    return OX_OK;
}

static size_t seq_len(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static ox_status parse_params_with(parse *P, yaml_node_t *n, entry *e, ox_strset *seen)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return ox_yaml_expected(P->ctx, &P->y, n, "a list of parameter names (- name)");
    size_t count = seq_len(n);
    e->params = ox_arena_alloc(&P->db->arena, (count ? count : 1) * sizeof(*e->params));
    if (!e->params)
        return OOM(P);
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *item = ox_yaml_node(&P->y, n->data.sequence.items.start[i]);
        if (item && item->type == YAML_MAPPING_NODE) {
            /* the pre-1.1 form "- stride: ints?": kinds are the pack's now */
            yaml_node_t *k = item->data.mapping.pairs.top > item->data.mapping.pairs.start
                                 ? ox_yaml_node(&P->y, item->data.mapping.pairs.start[0].key)
                                 : NULL;
            const char *nm = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value
                                                              : "name";
            return ox_yaml_fail_at(P->ctx, &P->y, item,
                                   "expected a parameter name, got a mapping: parameter kinds, "
                                   "'?' and 'a|b' are declared by the symbolic pack (plugin ABI "
                                   "1.1), so write '- %s' here",
                                   nm);
        }
        ox_yvalue kv = ox_yaml_scalar(item);
        if (kv.kind != OX_YS_STRING || !kv.s[0])
            return ox_yaml_expected(P->ctx, &P->y, item, "a parameter name");
        const char *name = kv.s;
        int added = ox_strset_add(seen, name); /* hashed: linear in the parameters */
        if (added < 0)
            return OOM(P);
        if (added == 0)
            return ox_yaml_fail_at(P->ctx, &P->y, item,
                                   "expected each parameter once, got '%s' again", name);
        e->params[i].name = ox_arena_strdup(&P->db->arena, name);
        if (!e->params[i].name)
            return OOM(P);
    }
    e->n_params = count;
    e->has_params = true;
    return OX_OK;
}

static ox_status parse_params(parse *P, yaml_node_t *n, entry *e)
{
    ox_strset seen = {0};
    ox_status st = parse_params_with(P, n, e, &seen);
    ox_strset_free(&seen);
    return st;
}

static const char *const limitation_keys[] = {"arg",     "message", "equals", "not_in",
                                              "in",      "outside", "present", NULL};
static const char *const matcher_keys[] = {"equals", "not_in", "in", "outside", "present", NULL};

static ox_status parse_limitation(parse *P, yaml_node_t *n, ox_opset_limitation *lim)
{
    ox_status st = ox_yaml_check_mapping(P->ctx, &P->y, n, "a limitation (a mapping with arg, "
                                         "message and one matcher)", limitation_keys);
    if (st != OX_OK)
        return st;
    /* Exactly one matcher: two would leave it unclear whether they combine. */
    yaml_node_t *mkey = NULL;
    const char *mname = NULL;
    for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = ox_yaml_node(&P->y, p->key);
        const char *key = (const char *)k->data.scalar.value;
        for (size_t i = 0; matcher_keys[i]; i++) {
            if (strcmp(matcher_keys[i], key))
                continue;
            if (mkey)
                return ox_yaml_fail_at(P->ctx, &P->y, k,
                                       "expected one matcher per limitation, got '%s' after '%s'",
                                       key, mname);
            mkey = k;
            mname = key;
        }
    }
    yaml_node_t *arg = ox_yaml_get(&P->y, n, "arg");
    yaml_node_t *msg = ox_yaml_get(&P->y, n, "message");
    if (!arg || !msg)
        return ox_yaml_fail_at(P->ctx, &P->y, n, "expected a '%s' key in this limitation, got none",
                               !arg ? "arg" : "message");
    if (!mkey)
        return ox_yaml_fail_at(P->ctx, &P->y, n,
                               "expected a matcher (equals, not_in, in, outside or present) in "
                               "this limitation, got none");
    const char *s;
    if ((st = ox_yaml_string(P->ctx, &P->y, arg, "an argument name", &s)) != OX_OK)
        return st;
    lim->arg = ox_arena_strdup(&P->db->arena, s);
    if ((st = ox_yaml_string(P->ctx, &P->y, msg, "a message", &s)) != OX_OK)
        return st;
    if (!*s) /* the report would end in "at Net: " with nothing said */
        return ox_yaml_fail_at(P->ctx, &P->y, msg,
                               "expected a message a user can read, got an empty string");
    lim->message = ox_arena_strdup(&P->db->arena, s);
    matcher *m = ox_arena_alloc(&P->db->arena, sizeof(*m));
    if (!lim->arg || !lim->message || !m)
        return OOM(P);
    m->file = P->path;
    m->line = (unsigned long)arg->start_mark.line + 1;
    m->col = (unsigned long)arg->start_mark.column + 1;
    yaml_node_t *mv = ox_yaml_get(&P->y, n, mname);
    if (!strcmp(mname, "equals")) {
        m->kind = M_EQUALS;
        st = parse_value(P, mv, true, &m->v);
    } else if (!strcmp(mname, "in") || !strcmp(mname, "not_in")) {
        m->kind = mname[0] == 'i' ? M_IN : M_NOT_IN;
        if (!mv || mv->type != YAML_SEQUENCE_NODE)
            return ox_yaml_expected(P->ctx, &P->y, mv, "a list of values");
        size_t count = seq_len(mv);
        yval *items = ox_arena_alloc(&P->db->arena, (count ? count : 1) * sizeof(*items));
        if (!items)
            return OOM(P);
        for (size_t i = 0; i < count && st == OX_OK; i++)
            st = parse_value(P, ox_yaml_node(&P->y, mv->data.sequence.items.start[i]), true,
                             &items[i]);
        m->v.kind = YV_LIST;
        m->v.items = items;
        m->v.n = count;
    } else if (!strcmp(mname, "outside")) {
        m->kind = M_OUTSIDE;
        if (!mv || mv->type != YAML_SEQUENCE_NODE || seq_len(mv) != 2)
            return ox_yaml_expected(P->ctx, &P->y, mv, "a range [LO, HI]");
        st = parse_value(P, mv, true, &m->v);
        if (st == OX_OK) {
            for (size_t i = 0; i < 2; i++)
                if (m->v.items[i].kind != YV_INT && m->v.items[i].kind != YV_FLOAT)
                    return ox_yaml_expected(
                        P->ctx, &P->y, ox_yaml_node(&P->y, mv->data.sequence.items.start[i]),
                        "a number");
            if (m->v.items[0].f > m->v.items[1].f)
                return ox_yaml_fail_at(P->ctx, &P->y, mv,
                                       "expected a range [LO, HI] with LO <= HI, got [%s, %s]",
                                       m->v.items[0].s, m->v.items[1].s);
        }
    } else {
        m->kind = M_PRESENT;
        ox_yvalue v = ox_yaml_scalar(mv);
        if (v.kind != OX_YS_BOOL || !v.i)
            return ox_yaml_expected(P->ctx, &P->y, mv, "true");
    }
    lim->matcher = m;
    return st;
}

static ox_status parse_limitations(parse *P, yaml_node_t *n, entry *e)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return ox_yaml_expected(P->ctx, &P->y, n, "a list of limitations");
    size_t count = seq_len(n);
    e->lims = ox_arena_alloc(&P->db->arena, (count ? count : 1) * sizeof(*e->lims));
    if (!e->lims)
        return OOM(P);
    for (size_t i = 0; i < count; i++) {
        ox_status st =
            parse_limitation(P, ox_yaml_node(&P->y, n->data.sequence.items.start[i]), &e->lims[i]);
        if (st != OX_OK)
            return st;
    }
    e->n_lims = count;
    e->has_lims = true;
    return OX_OK;
}

static bool qualified_name(const char *s)
{
    const char *sep = strstr(s, "::");
    return sep && sep != s && sep[2] && !strstr(sep + 2, "::");
}

static const char *const op_keys[] = {"doc", "params", "limitations", NULL};

static ox_status parse_entry(parse *P, yaml_node_t *k, yaml_node_t *v, entry *e)
{
    memset(e, 0, sizeof(*e));
    const char *name = (const char *)k->data.scalar.value;
    if (!qualified_name(name))
        return ox_yaml_expected(P->ctx, &P->y, k, "a qualified operator name like aten::relu");
    e->name = ox_arena_strdup(&P->db->arena, name);
    if (!e->name)
        return OOM(P);
    /* `aten::relu:` with nothing after it declares the op without detail. */
    if (ox_yaml_scalar(v).kind == OX_YS_NULL)
        return OX_OK;
    ox_status st = ox_yaml_check_mapping(P->ctx, &P->y, v,
                                         "an operator entry (a mapping with doc, params, "
                                         "limitations)",
                                         op_keys);
    if (st != OX_OK)
        return st;
    yaml_node_t *doc = ox_yaml_get(&P->y, v, "doc");
    if (doc) {
        const char *s;
        if ((st = ox_yaml_string(P->ctx, &P->y, doc, "a one-line description", &s)) != OX_OK)
            return st;
        e->doc = ox_arena_strdup(&P->db->arena, s);
        if (!e->doc)
            return OOM(P);
        e->has_doc = true;
    }
    yaml_node_t *params = ox_yaml_get(&P->y, v, "params");
    if (params && (st = parse_params(P, params, e)) != OX_OK)
        return st;
    yaml_node_t *lims = ox_yaml_get(&P->y, v, "limitations");
    if (lims && (st = parse_limitations(P, lims, e)) != OX_OK)
        return st;
    return OX_OK;
}

/* ---------------------------------------------------------------- merging */

static int cmp_op_ptr(const void *a, const void *b)
{
    const ox_opset_op *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static const ox_opset_op *snap_find(const snapshot *s, const char *name)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->ops[mid]->name, name);
        if (c == 0)
            return s->ops[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static ox_status check_limitation_args(parse *P, const res_op *r)
{
    if (!r->has_params)
        return OX_OK;
    for (size_t i = 0; i < r->op.n_limitations; i++) {
        const ox_opset_limitation *l = &r->op.limitations[i];
        bool ok = false;
        for (size_t j = 0; j < r->op.n_params && !ok; j++)
            ok = !strcmp(r->op.params[j].name, l->arg);
        if (ok)
            continue;
        const matcher *m = l->matcher;
        char names[512];
        size_t len = 0;
        names[0] = '\0';
        for (size_t j = 0; j < r->op.n_params && len < sizeof(names); j++)
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", j ? ", " : "",
                                    r->op.params[j].name);
        return ox_fail(P->ctx, OX_ECONFIG,
                       "%s:%lu:%lu: expected a parameter of %s (%s), got '%s'", m->file, m->line,
                       m->col, r->op.name, names, l->arg);
    }
    return OX_OK;
}

/* Apply one file's entries and removals on top of the previous snapshot.
 * Names are looked up in hash sets (`names`: this file's entries, then its
 * removals), so a file of 100k operators merges in linear time. */
static ox_status merge_with(parse *P, const snapshot *prev, entry *entries, size_t n_entries,
                            yaml_node_t *removed, snapshot *out, ox_strset *declared,
                            ox_strset *dropped);

static ox_status merge(parse *P, const snapshot *prev, entry *entries, size_t n_entries,
                       yaml_node_t *removed, snapshot *out)
{
    ox_strset declared = {0}, dropped = {0};
    ox_status st = merge_with(P, prev, entries, n_entries, removed, out, &declared, &dropped);
    ox_strset_free(&declared);
    ox_strset_free(&dropped);
    return st;
}

static ox_status merge_with(parse *P, const snapshot *prev, entry *entries, size_t n_entries,
                            yaml_node_t *removed, snapshot *out, ox_strset *declared,
                            ox_strset *dropped)
{
    for (size_t j = 0; j < n_entries; j++)
        if (ox_strset_add(declared, entries[j].name) < 0 ||
            ox_strset_add(dropped, entries[j].name) < 0)
            return OOM(P);
    size_t n_removed = removed ? seq_len(removed) : 0;
    for (size_t i = 0; i < n_removed; i++) {
        yaml_node_t *it = ox_yaml_node(&P->y, removed->data.sequence.items.start[i]);
        const char *rm;
        ox_status st = ox_yaml_string(P->ctx, &P->y, it, "an operator name", &rm);
        if (st != OX_OK)
            return st;
        if (!snap_find(prev, rm))
            return ox_yaml_expected(P->ctx, &P->y, it, "an operator declared in a lower opset");
        if (ox_strset_has(declared, rm))
            return ox_yaml_fail_at(P->ctx, &P->y, it,
                                   "expected an operator this file does not declare, got "
                                   "'%s' (declared under operators and removed)",
                                   rm);
        if (ox_strset_add(dropped, rm) < 0)
            return OOM(P);
    }

    const ox_opset_op **ops =
        ox_arena_alloc(&P->db->arena, (prev->n + n_entries + 1) * sizeof(*ops));
    if (!ops)
        return OOM(P);
    size_t n = 0;
    for (size_t i = 0; i < prev->n; i++)
        if (!ox_strset_has(dropped, prev->ops[i]->name))
            ops[n++] = prev->ops[i];
    for (size_t j = 0; j < n_entries; j++) {
        const entry *e = &entries[j];
        res_op *r = ox_arena_alloc(&P->db->arena, sizeof(*r));
        if (!r)
            return OOM(P);
        const res_op *base = (const res_op *)snap_find(prev, e->name);
        if (base)
            *r = *base;
        r->op.name = e->name;
        r->op.declared_in = P->opset;
        if (e->has_params) {
            r->op.params = e->params;
            r->op.n_params = e->n_params;
            r->params_file = P->path;
            r->has_params = true;
        }
        if (e->has_lims) {
            r->op.limitations = e->lims;
            r->op.n_limitations = e->n_lims;
        }
        if (e->has_doc)
            r->op.doc = e->doc;
        ox_status st = check_limitation_args(P, r);
        if (st != OX_OK)
            return st;
        ops[n++] = &r->op;
    }
    qsort(ops, n, sizeof(*ops), cmp_op_ptr);
    out->ops = ops;
    out->n = n;
    return OX_OK;
}

static int cmp_excl_ptr(const void *a, const void *b)
{
    return strcmp((*(const ox_opset_exclusion *const *)a)->name,
                  (*(const ox_opset_exclusion *const *)b)->name);
}

static const ox_opset_exclusion *excl_find(const snapshot *s, const char *name)
{
    size_t lo = 0, hi = s->n_excl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->excl[mid]->name, name);
        if (c == 0)
            return s->excl[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* This file's `excluded:` map (operator name -> reason) on top of the lower
 * files' exclusions; `out` holds this opset's operators already.  An
 * operator cannot be excluded where it is declared; declaring an operator a
 * lower file excluded lifts the exclusion from this opset on. */
static ox_status merge_exclusions(parse *P, const snapshot *prev, yaml_node_t *map, snapshot *out)
{
    size_t n_new = map ? (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start) : 0;
    const ox_opset_exclusion **ex =
        ox_arena_alloc(&P->db->arena, (prev->n_excl + n_new + 1) * sizeof(*ex));
    if (!ex)
        return OOM(P);
    size_t n = 0;
    ox_strset mine = {0};
    ox_status st = OX_OK;
    for (size_t i = 0; i < n_new && st == OX_OK; i++) {
        const yaml_node_pair_t *pr = &map->data.mapping.pairs.start[i];
        yaml_node_t *k = ox_yaml_node(&P->y, pr->key), *v = ox_yaml_node(&P->y, pr->value);
        const char *name, *reason;
        if ((st = ox_yaml_string(P->ctx, &P->y, k, "an operator name", &name)) != OX_OK ||
            (st = ox_yaml_string(P->ctx, &P->y, v, "the reason it is not exported (a string)",
                                 &reason)) != OX_OK)
            break;
        if (!reason[0]) {
            st = ox_yaml_expected(P->ctx, &P->y, v, "the reason it is not exported, not an empty "
                                                    "string");
            break;
        }
        if (snap_find(out, name)) {
            st = ox_yaml_fail_at(P->ctx, &P->y, k,
                                 "expected an operator this opset does not declare, got '%s' "
                                 "(declared under operators at opset %d and excluded)",
                                 name, P->opset);
            break;
        }
        int added = ox_strset_add(&mine, name);
        if (added < 0) {
            st = OOM(P);
            break;
        }
        ox_opset_exclusion *e = ox_arena_alloc(&P->db->arena, sizeof(*e));
        if (!e) {
            st = OOM(P);
            break;
        }
        /* the YAML document is freed after loading: keep copies */
        e->name = ox_arena_strdup(&P->db->arena, name);
        e->reason = ox_arena_strdup(&P->db->arena, reason);
        if (!e->name || !e->reason) {
            st = OOM(P);
            break;
        }
        e->declared_in = P->opset;
        ex[n++] = e;
    }
    if (st == OX_OK)
        for (size_t i = 0; i < prev->n_excl; i++)
            if (!ox_strset_has(&mine, prev->excl[i]->name) && !snap_find(out, prev->excl[i]->name))
                ex[n++] = prev->excl[i];
    ox_strset_free(&mine);
    if (st != OX_OK)
        return st;
    qsort(ex, n, sizeof(*ex), cmp_excl_ptr);
    out->excl = ex;
    out->n_excl = n;
    return OX_OK;
}

static const char *const top_keys[] = {"opset", "operators", "removed", "excluded", NULL};

static ox_status load_file(ox_context *ctx, ox_opset_db *db, const file_ref *f,
                           const snapshot *prev, snapshot *out)
{
    parse P;
    memset(&P, 0, sizeof(P));
    P.ctx = ctx;
    P.db = db;
    P.opset = f->opset;
    P.path = ox_arena_strdup(&db->arena, f->path);
    if (!P.path)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", f->path);
    ox_status st = ox_yaml_load(ctx, P.path, &P.y);
    if (st != OX_OK)
        return st == OX_EIO ? OX_ECONFIG : st;
    entry *entries = NULL;
    yaml_node_t *root = ox_yaml_root(&P.y);
    st = ox_yaml_check_mapping(ctx, &P.y, root, "an opset descriptor (a mapping with opset, "
                               "operators, removed, excluded)", top_keys);
    if (st != OX_OK)
        goto done;
    yaml_node_t *opset = ox_yaml_get(&P.y, root, "opset");
    if (!opset) {
        st = ox_yaml_fail_at(ctx, &P.y, root, "expected an 'opset: %d' key, got none", f->opset);
        goto done;
    }
    ox_yvalue ov = ox_yaml_scalar(opset);
    if (ov.kind != OX_YS_INT || ov.i != f->opset) {
        char what[160];
        const char *base = strrchr(P.path, '/');
        snprintf(what, sizeof(what), "opset %d (the number in the file name %s)", f->opset,
                 base ? base + 1 : P.path);
        st = ox_yaml_expected(ctx, &P.y, opset, what);
        goto done;
    }
    yaml_node_t *ops = ox_yaml_get(&P.y, root, "operators");
    size_t n_entries = 0;
    if (ops && ox_yaml_scalar(ops).kind != OX_YS_NULL) {
        st = ox_yaml_check_mapping(ctx, &P.y, ops, "a mapping of operator names to entries",
                                   NULL);
        if (st != OX_OK)
            goto done;
        n_entries = (size_t)(ops->data.mapping.pairs.top - ops->data.mapping.pairs.start);
        entries = calloc(n_entries ? n_entries : 1, sizeof(*entries));
        if (!entries) {
            st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", P.path);
            goto done;
        }
        for (size_t i = 0; i < n_entries; i++) {
            const yaml_node_pair_t *p = &ops->data.mapping.pairs.start[i];
            st = parse_entry(&P, ox_yaml_node(&P.y, p->key), ox_yaml_node(&P.y, p->value),
                             &entries[i]);
            if (st != OX_OK)
                goto done;
        }
    }
    yaml_node_t *removed = ox_yaml_get(&P.y, root, "removed");
    if (removed && removed->type != YAML_SEQUENCE_NODE) {
        st = ox_yaml_expected(ctx, &P.y, removed, "a list of operator names");
        goto done;
    }
    st = merge(&P, prev, entries, n_entries, removed, out);
    if (st != OX_OK)
        goto done;
    yaml_node_t *excluded = ox_yaml_get(&P.y, root, "excluded");
    if (excluded && ox_yaml_scalar(excluded).kind != OX_YS_NULL) {
        st = ox_yaml_check_mapping(ctx, &P.y, excluded,
                                   "a mapping of operator names to the reason each is not exported",
                                   NULL);
        if (st != OX_OK)
            goto done;
    } else {
        excluded = NULL;
    }
    st = merge_exclusions(&P, prev, excluded, out);
done:
    free(entries);
    ox_yaml_free(&P.y);
    return st;
}

/* ------------------------------------------------------------- directory */

/* "opset_<N>.yaml" -> N; 0 when the name has another shape, -1 when it
 * looks like a descriptor but N is not a number. */
static int file_opset(const char *name)
{
    size_t len = strlen(name);
    if (strncmp(name, "opset_", 6) != 0 || len < 11 || strcmp(name + len - 5, ".yaml") != 0)
        return 0;
    long v = 0;
    for (size_t i = 6; i < len - 5; i++) {
        if (name[i] < '0' || name[i] > '9' || v > 100000)
            return -1;
        v = v * 10 + (name[i] - '0');
    }
    return v > 0 ? (int)v : -1;
}

static int cmp_file(const void *a, const void *b)
{
    const file_ref *x = a, *y = b;
    return (x->opset > y->opset) - (x->opset < y->opset);
}

static void free_files(file_ref *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i].path);
    free(files);
}

static ox_status list_files(ox_context *ctx, const char *dir, file_ref **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d && errno == ENOMEM)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory opening the opset descriptor directory",
                       dir);
    if (!d)
        return ox_fail(ctx, OX_ECONFIG,
                       "%s: cannot open the opset descriptor directory: %s (set opset_dir in the "
                       "config, OXPORT_OPSET_DIR or ox_context_set_opset_dir)",
                       dir, strerror(errno));
    file_ref *files = NULL;
    size_t n = 0, cap = 0;
    size_t dlen = strlen(dir);
    const char *sep = (dlen && dir[dlen - 1] == '/') ? "" : "/";
    ox_status st = OX_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        int v = file_opset(de->d_name);
        if (v == 0)
            continue;
        if (v < 0) {
            st = ox_fail(ctx, OX_ECONFIG,
                         "%s%s%s: expected a descriptor named opset_<N>.yaml with N a positive "
                         "number, got '%s'",
                         dir, sep, de->d_name, de->d_name);
            break;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            file_ref *nf = realloc(files, ncap * sizeof(*nf));
            if (!nf) {
                st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", dir);
                break;
            }
            files = nf;
            cap = ncap;
        }
        size_t plen = dlen + strlen(sep) + strlen(de->d_name) + 1;
        files[n].path = malloc(plen);
        if (!files[n].path) {
            st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", dir);
            break;
        }
        snprintf(files[n].path, plen, "%s%s%s", dir, sep, de->d_name);
        files[n].opset = v;
        n++;
    }
    closedir(d);
    if (st == OX_OK && n == 0)
        st = ox_fail(ctx, OX_ECONFIG, "%s: expected opset descriptors (opset_<N>.yaml), got none",
                     dir);
    if (st == OX_OK) {
        qsort(files, n, sizeof(*files), cmp_file);
        for (size_t i = 1; i < n; i++)
            if (files[i].opset == files[i - 1].opset) {
                st = ox_fail(ctx, OX_ECONFIG,
                             "%s: expected one descriptor for opset %d, got it again (%s)",
                             files[i].path, files[i].opset, files[i - 1].path);
                break;
            }
    }
    if (st != OX_OK) {
        free_files(files, n);
        return st;
    }
    *out = files;
    *n_out = n;
    return OX_OK;
}

/* The column index of a loaded database: every name once in db->columns,
 * then each snapshot's operators by column.  0, or -1 out of memory. */
static int index_columns(ox_opset_db *db)
{
    size_t n_snaps = (size_t)(db->max - db->min + 1);
    for (size_t k = 0; k < n_snaps; k++) {
        const snapshot *s = &db->snaps[k];
        for (size_t i = 0; i < s->n; i++)
            if (ox_strmap_put(&db->columns, s->ops[i]->name, db->columns.n) < 0)
                return -1;
    }
    size_t n_cols = db->columns.n;
    for (size_t k = 0; k < n_snaps; k++) {
        snapshot *s = &db->snaps[k];
        const ox_opset_op **cols = ox_arena_alloc(&db->arena, (n_cols + 1) * sizeof(*cols));
        if (!cols)
            return -1;
        for (size_t i = 0; i < s->n; i++)
            cols[*ox_strmap_find(&db->columns, s->ops[i]->name)] = s->ops[i];
        s->by_column = cols;
    }
    return 0;
}

ox_status ox_opset_db_load(ox_context *ctx, const char *dir, ox_opset_db **out)
{
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_opset_db_load: out is NULL");
    *out = NULL;
    if (!dir || !*dir)
        return ox_fail(ctx, OX_EINVAL, "ox_opset_db_load: no descriptor directory given");
    file_ref *files;
    size_t n_files;
    ox_status st = list_files(ctx, dir, &files, &n_files);
    if (st != OX_OK)
        return st;
    ox_opset_db *db = calloc(1, sizeof(*db));
    if (!db) {
        free_files(files, n_files);
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", dir);
    }
    ox_arena_init(&db->arena);
    db->min = files[0].opset;
    db->max = files[n_files - 1].opset;
    db->snaps = ox_arena_alloc(&db->arena, (size_t)(db->max - db->min + 1) * sizeof(*db->snaps));
    if (!db->snaps)
        st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", dir);
    snapshot prev = {NULL, 0, NULL, 0, NULL};
    for (size_t i = 0; i < n_files && st == OX_OK; i++) {
        snapshot cur;
        st = load_file(ctx, db, &files[i], &prev, &cur);
        if (st != OX_OK)
            break;
        /* A gap between files inherits the lower file unchanged. */
        int until = i + 1 < n_files ? files[i + 1].opset : db->max + 1;
        for (int o = files[i].opset; o < until; o++)
            db->snaps[o - db->min] = cur;
        prev = cur;
    }
    free_files(files, n_files);
    if (st == OX_OK && index_columns(db) != 0)
        st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", dir);
    if (st != OX_OK) {
        ox_opset_db_free(db);
        return st;
    }
    *out = db;
    return OX_OK;
}

void ox_opset_db_free(ox_opset_db *db)
{
    if (!db)
        return;
    ox_strmap_free(&db->columns);
    ox_arena_free(&db->arena);
    free(db);
}

int ox_opset_db_min(const ox_opset_db *db)
{
    return db ? db->min : 0;
}

int ox_opset_db_max(const ox_opset_db *db)
{
    return db ? db->max : 0;
}

/* Opsets above the highest file use it (a file is only needed where
 * something changes); below the lowest nothing is declared. */
static const snapshot *snap_at(const ox_opset_db *db, int opset)
{
    if (!db || opset < db->min)
        return NULL;
    if (opset > db->max)
        opset = db->max;
    return &db->snaps[opset - db->min];
}

/* snap_find through the column index (or by bisection while loading). */
static const ox_opset_op *snap_lookup(const ox_opset_db *db, const snapshot *s,
                                      const char *name)
{
    if (!s->by_column)
        return snap_find(s, name);
    const uint64_t *col = ox_strmap_find(&db->columns, name);
    return col ? s->by_column[*col] : NULL;
}

const ox_opset_op *ox_opset_db_lookup(const ox_opset_db *db, int opset, const char *name)
{
    const snapshot *s = snap_at(db, opset);
    if (!s || !name)
        return NULL;
    const ox_opset_op *op = snap_lookup(db, s, name);
    if (op)
        return op;
    /* In-place variants ("aten::relu_") share the out-of-place descriptor,
     * as they share its symbolic. */
    size_t len = strlen(name);
    if (len > 1 && name[len - 1] == '_' && name[len - 2] != '_' && len < 256) {
        char base[256];
        memcpy(base, name, len - 1);
        base[len - 1] = '\0';
        return snap_lookup(db, s, base);
    }
    return NULL;
}

size_t ox_opset_db_exclusions(const ox_opset_db *db, int opset, const ox_opset_exclusion *const **out)
{
    const snapshot *s = snap_at(db, opset);
    if (out)
        *out = s ? (const ox_opset_exclusion *const *)s->excl : NULL;
    return s ? s->n_excl : 0;
}

const ox_opset_exclusion *ox_opset_db_excluded(const ox_opset_db *db, int opset, const char *name)
{
    const snapshot *s = snap_at(db, opset);
    return s && name ? excl_find(s, name) : NULL;
}

size_t ox_opset_db_ops(const ox_opset_db *db, int opset, const ox_opset_op *const **out)
{
    const snapshot *s = snap_at(db, opset);
    if (!s) {
        if (out)
            *out = NULL;
        return 0;
    }
    if (out)
        *out = (const ox_opset_op *const *)s->ops;
    return s->n;
}

/* --------------------------------------------------------------- matching */

static bool num_eq(double a, const yval *v)
{
    return (v->kind == YV_INT || v->kind == YV_BOOL || v->kind == YV_FLOAT) && a == v->f;
}

static bool dtype_eq(int64_t t, const yval *v)
{
    if (v->kind != YV_STRING)
        return num_eq((double)t, v);
    return !strcmp(v->s, ox_dtype_name((ox_dtype)t)) ||
           !strcmp(v->s, ox_dtype_torch_name((ox_dtype)t));
}

/* Does a recorded argument equal a YAML value?  Lists compare element-wise;
 * a scalar matches a list whose every element equals it. */
static bool targ_equals(const ox_targ *a, const yval *v)
{
    switch (a->kind) {
    case OX_ARG_INT:
    case OX_ARG_BOOL:
        return num_eq((double)a->u.i, v);
    case OX_ARG_DTYPE:
        return dtype_eq(a->u.i, v);
    case OX_ARG_FLOAT:
        return num_eq(a->u.f, v);
    case OX_ARG_STRING:
        return v->kind == YV_STRING && a->u.s && !strcmp(a->u.s, v->s);
    case OX_ARG_INTS:
    case OX_ARG_FLOATS: {
        size_t n = a->kind == OX_ARG_INTS ? a->u.ints.n : a->u.floats.n;
        if (v->kind == YV_LIST && v->n != n)
            return false;
        if (v->kind != YV_LIST && n == 0)
            return false;
        for (size_t i = 0; i < n; i++) {
            double x = a->kind == OX_ARG_INTS ? (double)a->u.ints.p[i] : a->u.floats.p[i];
            if (!num_eq(x, v->kind == YV_LIST ? &v->items[i] : v))
                return false;
        }
        return true;
    }
    default:
        return false;
    }
}

static bool outside(double x, const yval *range)
{
    return x < range->items[0].f || x > range->items[1].f;
}

static bool limitation_hit(const ox_opset_limitation *l, const ox_node *n)
{
    const matcher *m = l->matcher;
    const ox_targ *a = ox_node_arg(n, l->arg);
    if (!a || a->kind == OX_ARG_NONE)
        return false;
    switch (m->kind) {
    case M_EQUALS:
        return targ_equals(a, &m->v);
    case M_IN:
    case M_NOT_IN: {
        bool in = false;
        for (size_t i = 0; i < m->v.n && !in; i++)
            in = targ_equals(a, &m->v.items[i]);
        return m->kind == M_IN ? in : !in;
    }
    case M_OUTSIDE:
        switch (a->kind) {
        case OX_ARG_INT:
        case OX_ARG_BOOL:
            return outside((double)a->u.i, &m->v);
        case OX_ARG_FLOAT:
            return outside(a->u.f, &m->v);
        case OX_ARG_INTS:
            for (size_t i = 0; i < a->u.ints.n; i++)
                if (outside((double)a->u.ints.p[i], &m->v))
                    return true;
            return false;
        case OX_ARG_FLOATS:
            for (size_t i = 0; i < a->u.floats.n; i++)
                if (outside(a->u.floats.p[i], &m->v))
                    return true;
            return false;
        default:
            return false;
        }
    case M_PRESENT:
        return true;
    }
    return false;
}

static bool any_hit(const ox_opset_op *op, const ox_node *n)
{
    for (size_t i = 0; i < op->n_limitations; i++)
        if (limitation_hit(&op->limitations[i], n))
            return true;
    return false;
}

int ox_opset_db_lifting_opset(const ox_opset_db *db, int from, const ox_graph *g, const ox_node *n)
{
    (void)g;
    if (!db || !n)
        return 0;
    for (int o = from < db->min ? db->min : from; o <= db->max; o++) {
        const ox_opset_op *op = ox_opset_db_lookup(db, o, n->kind);
        if (op && !any_hit(op, n))
            return o;
    }
    return 0;
}

/* --------------------------------------------------------------- messages */

static void fmt_double(char *buf, size_t cap, double d)
{
    snprintf(buf, cap, "%.17g", d);
    /* shortest text that reads back the same, Python-style "1.0" */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (isfinite(d) && !strpbrk(buf, ".e"))
        strncat(buf, ".0", cap - strlen(buf) - 1);
}

/* A recorded value as Python would print it (True, [1, 2], 'reflect'). */
static void fmt_targ(const ox_targ *a, char *buf, size_t cap)
{
    size_t len = 0;
    char num[40];
#define PUT(...)                                                          \
    do {                                                                  \
        if (len < cap)                                                    \
            len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);   \
    } while (0)
    buf[0] = '\0';
    switch (a->kind) {
    case OX_ARG_NONE: PUT("None"); break;
    case OX_ARG_TENSOR: PUT("<tensor>"); break;
    case OX_ARG_TENSOR_LIST: PUT("<%zu tensors>", a->u.tensors.n); break;
    case OX_ARG_INT: PUT("%" PRId64, a->u.i); break;
    case OX_ARG_BOOL: PUT("%s", a->u.i ? "True" : "False"); break;
    case OX_ARG_DTYPE: PUT("%s", ox_dtype_name((ox_dtype)a->u.i)); break;
    case OX_ARG_FLOAT:
        fmt_double(num, sizeof(num), a->u.f);
        PUT("%s", num);
        break;
    case OX_ARG_STRING: PUT("'%s'", a->u.s ? a->u.s : ""); break;
    case OX_ARG_INTS:
        PUT("[");
        for (size_t i = 0; i < a->u.ints.n; i++)
            PUT("%s%" PRId64, i ? ", " : "", a->u.ints.p[i]);
        PUT("]");
        break;
    case OX_ARG_FLOATS:
        PUT("[");
        for (size_t i = 0; i < a->u.floats.n; i++) {
            fmt_double(num, sizeof(num), a->u.floats.p[i]);
            PUT("%s%s", i ? ", " : "", num);
        }
        PUT("]");
        break;
    default: PUT("?"); break;
    }
#undef PUT
    if (len >= cap && cap > 4)
        strcpy(buf + cap - 4, "...");
}

static void node_head(const ox_node *n, const char *arg, const ox_targ *a, char *buf, size_t cap)
{
    char val[160];
    if (a)
        fmt_targ(a, val, sizeof(val));
    const char *scope = n->scope && *n->scope ? n->scope : NULL;
    snprintf(buf, cap, "%s(%s%s%s)%s%s", n->kind, arg, a ? "=" : "", a ? val : "",
             scope ? " at " : "", scope ? scope : "");
}

size_t ox_opset_db_check_node(const ox_opset_db *db, int opset, const ox_graph *g,
                              const ox_node *n, ox_report *r)
{
    if (!db || !n || !n->kind)
        return 0;
    const ox_opset_op *op = ox_opset_db_lookup(db, opset, n->kind);
    return op ? ox_opset_db_check_node_as(db, opset, g, n, op, r) : 0;
}

size_t ox_opset_db_check_node_as(const ox_opset_db *db, int opset, const ox_graph *g,
                                 const ox_node *n, const ox_opset_op *op, ox_report *r)
{
    char head[512];
    size_t problems = 0;
    int lift = -1; /* computed once, on the first hit */
    for (size_t i = 0; i < op->n_limitations; i++) {
        const ox_opset_limitation *l = &op->limitations[i];
        if (!limitation_hit(l, n))
            continue;
        if (lift < 0)
            lift = ox_opset_db_lifting_opset(db, opset + 1, g, n);
        node_head(n, l->arg, ox_node_arg(n, l->arg), head, sizeof(head));
        if (r) {
            if (lift > 0)
                ox_report_add_at(r, n->scope, "%s: %s; supported from opset %d", head,
                                 l->message, lift);
            else
                ox_report_add_at(r, n->scope, "%s: %s", head, l->message);
        }
        problems++;
    }
    return problems;
}

/* ---------------------------------------------------------------- listing */

static bool yval_same(const yval *a, const yval *b)
{
    bool na = a->kind == YV_INT || a->kind == YV_FLOAT || a->kind == YV_BOOL;
    bool nb = b->kind == YV_INT || b->kind == YV_FLOAT || b->kind == YV_BOOL;
    if (na && nb)
        return (a->kind == YV_BOOL) == (b->kind == YV_BOOL) && a->f == b->f;
    if (a->kind != b->kind)
        return false;
    if (a->kind == YV_STRING)
        return !strcmp(a->s, b->s);
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!yval_same(&a->items[i], &b->items[i]))
            return false;
    return true;
}

int ox_opset_db_limitation_lifted(const ox_opset_db *db, int opset, const char *op,
                                  const ox_opset_limitation *l)
{
    if (!db || !op || !l)
        return 0;
    const matcher *m = l->matcher;
    for (int o = opset + 1 < db->min ? db->min : opset + 1; o <= db->max; o++) {
        const ox_opset_op *d = ox_opset_db_lookup(db, o, op);
        if (!d)
            continue;
        bool still = false;
        for (size_t i = 0; i < d->n_limitations && !still; i++) {
            const matcher *dm = d->limitations[i].matcher;
            still = !strcmp(d->limitations[i].arg, l->arg) && dm->kind == m->kind &&
                    yval_same(&dm->v, &m->v);
        }
        if (!still)
            return o;
    }
    return 0;
}

static size_t yval_text(const yval *v, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    if (v->kind != YV_LIST)
        return (size_t)snprintf(buf, cap, "%s", v->s ? v->s : "");
    len += (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < v->n && len < cap; i++) {
        if (i)
            len += (size_t)snprintf(buf + len, cap - len, ", ");
        if (len < cap)
            len += yval_text(&v->items[i], buf + len, cap - len);
    }
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "]");
    return len;
}

void ox_opset_limitation_describe(const ox_opset_limitation *l, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    const matcher *m = l ? l->matcher : NULL;
    if (!m) {
        buf[0] = '\0';
        return;
    }
    char val[256];
    yval_text(&m->v, val, sizeof(val));
    switch (m->kind) {
    case M_EQUALS: snprintf(buf, cap, "%s = %s", l->arg, val); break;
    case M_IN: snprintf(buf, cap, "%s in %s", l->arg, val); break;
    case M_NOT_IN: snprintf(buf, cap, "%s not in %s", l->arg, val); break;
    case M_OUTSIDE: snprintf(buf, cap, "%s outside %s", l->arg, val); break;
    case M_PRESENT: snprintf(buf, cap, "%s present", l->arg); break;
    }
}
