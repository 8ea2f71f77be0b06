/*
 * Introspection (oxport.h): the loaded packs, their operator
 * implementations, what each opset's descriptors support, and the pack
 * checks of `oxport plugins --check`, for the CLI, embedders and the Python
 * host alike.
 *
 * Every read of the registry's and the descriptors' internal structures is
 * in this file, so a change of those structures changes the public view in
 * one place.  Parameters are the packs' declarations (ABI 1.1: kinds,
 * alternatives, optional, defaults; 1.0 packs read as the loader fills
 * them in); a descriptor only names the parameters an opset accepts.
 */
#include "introspect.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "convert.h"
#include "opset_yaml.h"
#include "param_decl.h"
#include "plugin_load.h"

/* One operator at one opset: a descriptor, a pack implementation, or both. */
typedef struct opset_row {
    const char *name;
    const ox_opset_op *yaml;  /* NULL: the pack alone declares it */
    const ox_op_impl *impl;   /* NULL: no symbolic at this opset */
    size_t impl_index;        /* impl's position in the registry's sorted list */
    int later_since;          /* !impl: lowest since_opset of any pack, 0 none */
    const char *disabled_by;  /* the config's path, or NULL */
    char **when;              /* per limitation: its condition as text */
    int *lifted;              /* per limitation: the opset lifting it, 0 none */
} opset_row;

/* A parameter's kind and default as text, made once per declaration row. */
typedef struct param_texts {
    const ox_param_decl *decl;
    char *kinds;   /* "ints|string?" */
    char *dflt;    /* "[1, 1]", or NULL when none is declared */
} param_texts;

struct ox_introspection {
    int opset; /* the opset `rows` describe, 0 none */
    opset_row *rows;
    size_t n_rows;
    param_texts *texts;
    size_t n_texts, cap_texts;
};

static void rows_free(opset_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t nl = rows[i].yaml ? rows[i].yaml->n_limitations : 0;
        for (size_t k = 0; rows[i].when && k < nl; k++)
            free(rows[i].when[k]);
        free(rows[i].when);
        free(rows[i].lifted);
    }
    free(rows);
}

void ox_introspect_forget(ox_context *ctx)
{
    if (!ctx || !ctx->introspection)
        return;
    struct ox_introspection *in = ctx->introspection;
    rows_free(in->rows, in->n_rows);
    for (size_t i = 0; i < in->n_texts; i++) {
        free(in->texts[i].kinds);
        free(in->texts[i].dflt);
    }
    free(in->texts);
    free(in);
    ctx->introspection = NULL;
}

static struct ox_introspection *state(ox_context *ctx)
{
    if (!ctx->introspection)
        ctx->introspection = calloc(1, sizeof *ctx->introspection);
    return ctx->introspection;
}

/* Copy the fields of `full` that fit the caller's struct_size (the first
 * field of every info struct), leaving struct_size as the caller set it. */
static ox_status fill(ox_context *ctx, const char *fn, void *out, const void *full,
                      size_t full_size)
{
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "%s: out is NULL", fn);
    uint32_t want;
    memcpy(&want, out, sizeof want);
    if (want < sizeof(uint32_t) * 2)
        return ox_fail(ctx, OX_EINVAL,
                       "%s: struct_size is %u; set it to the size of the struct "
                       "(OX_INFO_INIT)",
                       fn, (unsigned)want);
    size_t n = want < full_size ? want : full_size;
    memcpy((char *)out + sizeof want, (const char *)full + sizeof want, n - sizeof want);
    return OX_OK;
}

/* ----------------------------------------------------------- registry */

static ox_status load_registry(ox_context *ctx)
{
    if (!ctx)
        return OX_EINVAL;
    return ox_registry_load(ctx);
}

static size_t registry_ops(const ox_context *ctx, const ox_op_impl *const **all)
{
    return ctx->registry ? ox_registry_ops(ctx->registry, all) : (*all = NULL, 0);
}

static size_t pack_index(const ox_context *ctx, const ox_plugin_info *pi)
{
    const ox_plugin_info *const *packs = NULL;
    size_t n = ox_registry_plugins(ctx->registry, &packs);
    for (size_t i = 0; i < n; i++)
        if (packs[i] == pi)
            return i;
    return n;
}

/* The one place reading a declared parameter (the loader keeps every pack's
 * rows in the 1.1 layout, whatever layout the pack used). */
static const ox_param_decl *decl_param(const ox_op_decl *d, size_t p)
{
    return &d->params[p];
}

OX_API ox_status ox_context_pack_count(ox_context *ctx, size_t *n)
{
    ox_status st = load_registry(ctx);
    if (st != OX_OK)
        return st;
    if (!n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_pack_count: n is NULL");
    const ox_plugin_info *const *packs;
    *n = ox_registry_plugins(ctx->registry, &packs);
    return OX_OK;
}

OX_API ox_status ox_context_pack(ox_context *ctx, size_t i, ox_pack_info *out)
{
    ox_status st = load_registry(ctx);
    if (st != OX_OK)
        return st;
    const ox_plugin_info *const *packs;
    size_t n = ox_registry_plugins(ctx->registry, &packs);
    if (i >= n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_pack: pack %zu of %zu", i, n);
    const ox_plugin_info *pi = packs[i];
    const ox_plugin_desc *d = pi->desc;
    const ox_op_impl *const *all;
    size_t n_all = registry_ops(ctx, &all);
    ox_pack_info info;
    memset(&info, 0, sizeof info);
    info.name = d->name;
    info.version = d->version;
    info.description = d->description;
    info.path = pi->path;
    info.abi_major = d->abi_major;
    info.abi_minor = d->abi_minor;
    info.configured = pi->explicit_path;
    const char *counted = NULL; /* the name last counted as overridden */
    for (size_t k = 0; k < n_all; k++) {
        info.n_ops += all[k]->plugin == pi;
        /* one per name (the registry lists a name's implementations together),
         * though a name may hold versions of other packs below the override */
        if (all[k]->plugin == pi && all[k]->overrides &&
            !(counted && strcmp(counted, all[k]->decl->name) == 0)) {
            info.n_overrides++;
            counted = all[k]->decl->name;
        }
    }
    return fill(ctx, "ox_context_pack", out, &info, sizeof info);
}

OX_API ox_status ox_context_op_count(ox_context *ctx, size_t *n)
{
    ox_status st = load_registry(ctx);
    if (st != OX_OK)
        return st;
    if (!n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_op_count: n is NULL");
    const ox_op_impl *const *all;
    *n = registry_ops(ctx, &all);
    return OX_OK;
}

static ox_status impl_at(ox_context *ctx, const char *fn, size_t i, const ox_op_impl **out)
{
    ox_status st = load_registry(ctx);
    if (st != OX_OK)
        return st;
    const ox_op_impl *const *all;
    size_t n = registry_ops(ctx, &all);
    if (i >= n)
        return ox_fail(ctx, OX_EINVAL, "%s: operator %zu of %zu", fn, i, n);
    *out = all[i];
    return OX_OK;
}

OX_API ox_status ox_context_op(ox_context *ctx, size_t i, ox_op_info *out)
{
    const ox_op_impl *im;
    ox_status st = impl_at(ctx, "ox_context_op", i, &im);
    if (st != OX_OK)
        return st;
    ox_op_info info;
    memset(&info, 0, sizeof info);
    info.name = im->decl->name;
    info.since_opset = im->decl->since_opset;
    info.n_params = im->decl->n_params;
    info.n_outputs = im->decl->n_outputs;
    info.pack = pack_index(ctx, im->plugin);
    info.pack_name = im->plugin && im->plugin->desc->name ? im->plugin->desc->name : "?";
    info.overrides = im->overrides ? im->overrides->path : NULL;
    info.has_check = im->decl->check != NULL;
    info.outputs_as_recorded = (im->decl->flags & OX_OP_OUTPUTS_AS_RECORDED) != 0;
    return fill(ctx, "ox_context_op", out, &info, sizeof info);
}

/* The texts of declaration row d, rendered on first use. */
static const param_texts *texts_of(ox_context *ctx, const ox_param_decl *d)
{
    struct ox_introspection *in = state(ctx);
    if (!in)
        return NULL;
    for (size_t i = 0; i < in->n_texts; i++)
        if (in->texts[i].decl == d)
            return &in->texts[i];
    if (in->n_texts == in->cap_texts) {
        size_t cap = in->cap_texts ? 2 * in->cap_texts : 64;
        param_texts *t = realloc(in->texts, cap * sizeof *t);
        if (!t)
            return NULL;
        in->texts = t;
        in->cap_texts = cap;
    }
    char kinds[256], dflt[512];
    ox_param_kind_text(d, kinds, sizeof kinds);
    ox_param_default_text(d, dflt, sizeof dflt);
    param_texts t = {d, strdup(kinds), dflt[0] ? strdup(dflt) : NULL};
    if (!t.kinds || (dflt[0] && !t.dflt)) {
        free(t.kinds);
        free(t.dflt);
        return NULL;
    }
    in->texts[in->n_texts] = t;
    return &in->texts[in->n_texts++];
}

/* The pack's declaration: the operator's one schema (plugin ABI 1.1). */
static ox_status param_from_decl(ox_context *ctx, const ox_param_decl *d, ox_param_info *info)
{
    const param_texts *t = texts_of(ctx, d);
    if (!t)
        return ox_fail(ctx, OX_ENOMEM, "out of memory listing the operators");
    memset(info, 0, sizeof *info);
    info->name = d->name;
    info->kind = d->kind;
    info->alt_kinds = d->alt_kinds;
    info->optional = !ox_param_required(d);
    info->default_value = t->dflt;
    info->kind_text = t->kinds;
    return OX_OK;
}

/* A descriptor lists names only: an operator no pack converts has no kinds. */
static void param_from_yaml(const ox_opset_param *y, ox_param_info *info)
{
    memset(info, 0, sizeof *info);
    info->name = y->name;
    info->kind = OX_ARG_NONE;
}

OX_API ox_status ox_context_op_param(ox_context *ctx, size_t i, size_t p, ox_param_info *out)
{
    const ox_op_impl *im;
    ox_status st = impl_at(ctx, "ox_context_op_param", i, &im);
    if (st != OX_OK)
        return st;
    if (p >= im->decl->n_params)
        return ox_fail(ctx, OX_EINVAL, "ox_context_op_param: %s has %u parameters, not %zu",
                       im->decl->name, (unsigned)im->decl->n_params, p + 1);
    ox_param_info info;
    if ((st = param_from_decl(ctx, decl_param(im->decl, p), &info)) != OX_OK)
        return st;
    return fill(ctx, "ox_context_op_param", out, &info, sizeof info);
}

/* -------------------------------------------------------------- opsets */

static ox_status load_all(ox_context *ctx, const char *fn)
{
    if (!ctx)
        return OX_EINVAL;
    ox_status st = ox_context_load(ctx);
    if (st != OX_OK)
        return st;
    if (!ctx->opsets)
        return ox_fail(ctx, OX_ECONFIG, "%s: no opset descriptors are loaded", fn);
    return OX_OK;
}

/* The descriptors alone (what ox_context_load would read), without the
 * packs: a listing of the descriptors must not depend on the packs loading. */
static ox_status load_opsets(ox_context *ctx)
{
    if (!ctx)
        return OX_EINVAL;
    if (!ctx->opsets && !(ctx->flags & OX_CONTEXT_NO_DEFAULT_OPSETS)) {
        ox_status st = ox_opset_db_load(ctx, ox_context_opset_dir(ctx), &ctx->opsets);
        if (st != OX_OK)
            return st;
    }
    if (!ctx->opsets)
        return ox_fail(ctx, OX_ECONFIG, "no opset descriptors are loaded");
    return OX_OK;
}

OX_API ox_status ox_context_opset_info(ox_context *ctx, int *min_opset, int *max_opset,
                                       const char **dir)
{
    ox_status st = load_opsets(ctx);
    if (st != OX_OK)
        return st;
    if (min_opset)
        *min_opset = ox_opset_db_min(ctx->opsets);
    if (max_opset)
        *max_opset = ox_opset_db_max(ctx->opsets);
    if (dir)
        *dir = ox_context_opset_dir(ctx);
    return OX_OK;
}

OX_API ox_status ox_context_opset_range(ox_context *ctx, int *lo, int *hi, const char **source)
{
    if (!ctx)
        return OX_EINVAL;
    int l, h;
    ox_convert_opset_range(ctx, &l, &h, source);
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
    return OX_OK;
}

static const char *disabled_by(const ox_context *ctx, const char *name)
{
    const ox_config *cfg = ctx->config;
    for (size_t i = 0; cfg && i < cfg->n_disabled_ops; i++)
        if (!strcmp(cfg->disabled_ops[i], name))
            return cfg->path ? cfg->path : "the config";
    return NULL;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const opset_row *)a)->name, ((const opset_row *)b)->name);
}

static size_t index_of(const ox_op_impl *const *all, size_t n_all, const ox_op_impl *im)
{
    for (size_t k = 0; k < n_all; k++)
        if (all[k] == im)
            return k;
    return n_all;
}

/* The descriptor's operators at `opset`, then the operators packs convert
 * there without one, sorted by name. */
static ox_status build_rows(ox_context *ctx, int opset, opset_row **out, size_t *n_out)
{
    const ox_opset_db *db = ctx->opsets;
    const ox_opset_op *const *yops;
    size_t n_yops = ox_opset_db_ops(db, opset, &yops);
    const ox_op_impl *const *all;
    size_t n_all = registry_ops(ctx, &all);
    opset_row *rows = calloc(n_yops + n_all + 1, sizeof *rows);
    if (!rows)
        return ox_fail(ctx, OX_ENOMEM, "out of memory listing the operators");
    size_t n = 0;
    for (size_t i = 0; i < n_yops; i++) {
        rows[n].name = yops[i]->name;
        rows[n++].yaml = yops[i];
    }
    /* sorted by name, so each name's implementations are adjacent */
    for (size_t i = 0; i < n_all; i++) {
        const char *name = all[i]->decl->name;
        if (i > 0 && !strcmp(all[i - 1]->decl->name, name))
            continue;
        const ox_opset_op *described = ox_opset_db_lookup(db, opset, name);
        if (described && !strcmp(described->name, name))
            continue;
        if (!ox_registry_find(ctx->registry, name, opset))
            continue; /* neither converted nor described here: not listed */
        rows[n++].name = name;
    }
    ox_status st = OX_OK;
    for (size_t i = 0; i < n && st == OX_OK; i++) {
        opset_row *r = &rows[i];
        r->impl = ctx->registry ? ox_registry_find(ctx->registry, r->name, opset) : NULL;
        r->impl_index = r->impl ? index_of(all, n_all, r->impl) : 0;
        if (!r->impl && ctx->registry)
            r->later_since = ox_registry_lowest_since(ctx->registry, r->name);
        r->disabled_by = disabled_by(ctx, r->name);
        size_t nl = r->yaml ? r->yaml->n_limitations : 0;
        if (!nl)
            continue;
        r->when = calloc(nl, sizeof *r->when);
        r->lifted = calloc(nl, sizeof *r->lifted);
        for (size_t k = 0; r->when && r->lifted && k < nl; k++) {
            const ox_opset_limitation *l = &r->yaml->limitations[k];
            char what[512];
            ox_opset_limitation_describe(l, what, sizeof what);
            r->when[k] = strdup(what);
            r->lifted[k] = ox_opset_db_limitation_lifted(db, opset, r->name, l);
            if (!r->when[k])
                break;
        }
        if (!r->when || !r->lifted || !r->when[nl - 1])
            st = ox_fail(ctx, OX_ENOMEM, "out of memory listing the operators");
    }
    if (st != OX_OK) {
        rows_free(rows, n);
        return st;
    }
    qsort(rows, n, sizeof *rows, cmp_row);
    *out = rows;
    *n_out = n;
    return OX_OK;
}

/* The rows of `opset`, built on first use and kept until another opset is
 * asked about. */
static ox_status opset_in_descriptors(ox_context *ctx, const char *fn, int opset)
{
    int lo = ox_opset_db_min(ctx->opsets), hi = ox_opset_db_max(ctx->opsets);
    if (opset < lo || opset > hi)
        return ox_fail(ctx, OX_EINVAL, "%s: opset %d is outside the descriptors' range %d..%d",
                       fn, opset, lo, hi);
    return OX_OK;
}

static ox_status rows_at(ox_context *ctx, const char *fn, int opset, struct ox_introspection **out)
{
    ox_status st = load_all(ctx, fn);
    if (st != OX_OK || (st = opset_in_descriptors(ctx, fn, opset)) != OX_OK)
        return st;
    struct ox_introspection *in = state(ctx);
    if (!in)
        return ox_fail(ctx, OX_ENOMEM, "out of memory listing the operators");
    if (in->opset == opset) {
        *out = in;
        return OX_OK;
    }
    opset_row *rows;
    size_t n;
    if ((st = build_rows(ctx, opset, &rows, &n)) != OX_OK)
        return st;
    rows_free(in->rows, in->n_rows);
    in->opset = opset;
    in->rows = rows;
    in->n_rows = n;
    *out = in;
    return OX_OK;
}

static ox_status row_at(ox_context *ctx, const char *fn, int opset, size_t i,
                        const opset_row **out)
{
    struct ox_introspection *in;
    ox_status st = rows_at(ctx, fn, opset, &in);
    if (st != OX_OK)
        return st;
    if (i >= in->n_rows)
        return ox_fail(ctx, OX_EINVAL, "%s: operator %zu of %zu at opset %d", fn, i, in->n_rows,
                       opset);
    *out = &in->rows[i];
    return OX_OK;
}

/* The pack's parameters when a pack converts the operator, else the names
 * the descriptor lists. */
static size_t row_n_params(const opset_row *r)
{
    if (r->impl)
        return r->impl->decl->n_params;
    return r->yaml ? r->yaml->n_params : 0;
}

OX_API ox_status ox_context_opset_op_count(ox_context *ctx, int opset, size_t *n)
{
    struct ox_introspection *in;
    ox_status st = rows_at(ctx, "ox_context_opset_op_count", opset, &in);
    if (st != OX_OK)
        return st;
    if (!n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_opset_op_count: n is NULL");
    *n = in->n_rows;
    return OX_OK;
}

OX_API ox_status ox_context_opset_op(ox_context *ctx, int opset, size_t i, ox_opset_op_info *out)
{
    const opset_row *r;
    ox_status st = row_at(ctx, "ox_context_opset_op", opset, i, &r);
    if (st != OX_OK)
        return st;
    ox_opset_op_info info;
    memset(&info, 0, sizeof info);
    info.name = r->name;
    info.doc = r->yaml ? r->yaml->doc : NULL;
    info.declared_in = r->yaml ? r->yaml->declared_in : 0;
    info.n_params = row_n_params(r);
    info.n_limitations = r->yaml ? r->yaml->n_limitations : 0;
    info.has_symbolic = r->impl != NULL;
    info.supported = r->impl && !r->disabled_by;
    info.op = r->impl_index;
    info.symbolic_from_opset = r->impl ? 0 : r->later_since;
    info.disabled_by = r->disabled_by;
    return fill(ctx, "ox_context_opset_op", out, &info, sizeof info);
}

OX_API ox_status ox_context_opset_param(ox_context *ctx, int opset, size_t i, size_t p,
                                        ox_param_info *out)
{
    const opset_row *r;
    ox_status st = row_at(ctx, "ox_context_opset_param", opset, i, &r);
    if (st != OX_OK)
        return st;
    if (p >= row_n_params(r))
        return ox_fail(ctx, OX_EINVAL, "ox_context_opset_param: %s has %zu parameters, not %zu",
                       r->name, row_n_params(r), p + 1);
    ox_param_info info;
    if (r->impl && (st = param_from_decl(ctx, decl_param(r->impl->decl, p), &info)) != OX_OK)
        return st;
    if (!r->impl)
        param_from_yaml(&r->yaml->params[p], &info);
    return fill(ctx, "ox_context_opset_param", out, &info, sizeof info);
}

OX_API ox_status ox_context_opset_limitation(ox_context *ctx, int opset, size_t i, size_t l,
                                             ox_limitation_info *out)
{
    const opset_row *r;
    ox_status st = row_at(ctx, "ox_context_opset_limitation", opset, i, &r);
    if (st != OX_OK)
        return st;
    size_t nl = r->yaml ? r->yaml->n_limitations : 0;
    if (l >= nl)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_context_opset_limitation: %s has %zu limitations at opset %d, not %zu",
                       r->name, nl, opset, l + 1);
    ox_limitation_info info;
    memset(&info, 0, sizeof info);
    info.arg = r->yaml->limitations[l].arg;
    info.when = r->when[l];
    info.message = r->yaml->limitations[l].message;
    info.lifted_at_opset = r->lifted[l];
    return fill(ctx, "ox_context_opset_limitation", out, &info, sizeof info);
}

/* --------------------------------------------------------- exclusions */

static ox_status opset_in_range(ox_context *ctx, const char *fn, int opset)
{
    ox_status st = load_opsets(ctx);
    return st != OX_OK ? st : opset_in_descriptors(ctx, fn, opset);
}

OX_API ox_status ox_context_exclusion_count(ox_context *ctx, int opset, size_t *n)
{
    ox_status st = opset_in_range(ctx, "ox_context_exclusion_count", opset);
    if (st != OX_OK)
        return st;
    if (!n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_exclusion_count: n is NULL");
    *n = ox_opset_db_exclusions(ctx->opsets, opset, NULL);
    return OX_OK;
}

OX_API ox_status ox_context_exclusion(ox_context *ctx, int opset, size_t i, ox_exclusion_info *out)
{
    ox_status st = opset_in_range(ctx, "ox_context_exclusion", opset);
    if (st != OX_OK)
        return st;
    const ox_opset_exclusion *const *ex;
    size_t n = ox_opset_db_exclusions(ctx->opsets, opset, &ex);
    if (i >= n)
        return ox_fail(ctx, OX_EINVAL, "ox_context_exclusion: opset %d has %zu exclusions, not %zu",
                       opset, n, i + 1);
    ox_exclusion_info info;
    memset(&info, 0, sizeof info);
    info.name = ex[i]->name;
    info.reason = ex[i]->reason;
    info.declared_in = ex[i]->declared_in;
    return fill(ctx, "ox_context_exclusion", out, &info, sizeof info);
}

/* ------------------------------------------------------------- checks */

static void deliver(const ox_report *r, size_t from, ox_message_fn fn, void *user)
{
    for (size_t i = from; fn && i < r->n; i++)
        fn(user, r->lines[i]);
}

OX_API ox_status ox_pack_check_file(ox_context *ctx, const char *path, ox_message_fn fn,
                                    void *user, size_t *n_problems)
{
    if (!ctx)
        return OX_EINVAL;
    if (!path)
        return ox_fail(ctx, OX_EINVAL, "ox_pack_check_file: path is NULL");
    ox_report r;
    ox_report_init(&r);
    ox_status st = ox_plugin_check_file(ctx, path, &r);
    if (r.oom)
        st = ox_fail(ctx, OX_ENOMEM, "out of memory checking %s", path);
    else if (st == OX_EPLUGIN && r.n)
        /* The first problem on the context too: a host without a callback
         * would otherwise read the message of an earlier call. */
        ox_fail(ctx, st, r.n > 1 ? "%s (and %zu more problems)" : "%s", r.lines[0], r.n - 1);
    deliver(&r, 0, fn, user);
    if (n_problems)
        *n_problems = r.n;
    ox_report_free(&r);
    return st;
}

OX_API ox_status ox_context_check_packs(ox_context *ctx, ox_message_fn fn, void *user,
                                        size_t *n_findings)
{
    ox_status st = load_registry(ctx);
    if (st != OX_OK)
        return st;
    if (!ctx->opsets &&
        (st = ox_opset_db_load(ctx, ox_context_opset_dir(ctx), &ctx->opsets)) != OX_OK)
        return st;
    ox_report r;
    ox_report_init(&r);
    size_t n = ox_registry_consistency(ctx, &r);
    if (r.oom)
        st = ox_fail(ctx, OX_ENOMEM, "out of memory checking the packs");
    deliver(&r, 0, fn, user);
    if (n_findings)
        *n_findings = n;
    ox_report_free(&r);
    return st;
}
