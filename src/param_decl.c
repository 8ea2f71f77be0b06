/*
 * Reading, validating and interpreting parameter declarations (see
 * param_decl.h).
 */
#include "param_decl.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static bool declarable_kind(int k)
{
    return k >= OX_ARG_TENSOR && k <= OX_ARG_TENSOR_OR_SCALAR;
}

static bool tensor_kind(ox_arg_kind k)
{
    return k == OX_ARG_TENSOR || k == OX_ARG_TENSOR_LIST || k == OX_ARG_OPT_TENSOR;
}

/* Which recorded kinds one declared kind accepts (None aside). */
static bool kind_accepts(ox_arg_kind declared, ox_arg_kind got)
{
    if (got == declared)
        return true;
    switch (declared) {
    case OX_ARG_INTS: return got == OX_ARG_INT;
    case OX_ARG_INT: return got == OX_ARG_BOOL;
    case OX_ARG_FLOAT: return got == OX_ARG_INT;
    case OX_ARG_FLOATS: return got == OX_ARG_FLOAT || got == OX_ARG_INT;
    case OX_ARG_SCALAR: return got == OX_ARG_INT || got == OX_ARG_FLOAT || got == OX_ARG_BOOL;
    case OX_ARG_TENSOR_OR_SCALAR:
        return got == OX_ARG_TENSOR || got == OX_ARG_INT || got == OX_ARG_FLOAT ||
               got == OX_ARG_BOOL;
    case OX_ARG_OPT_TENSOR: return got == OX_ARG_TENSOR || got == OX_ARG_NONE;
    default: return false;
    }
}

const ox_param_decl *ox_param_find(const ox_op_decl *d, const char *name)
{
    for (uint32_t i = 0; d && name && i < d->n_params; i++)
        if (ox_str_eq(d->params[i].name, name))
            return &d->params[i];
    return NULL;
}

const ox_param_decl *ox_param_find_at(const ox_op_decl *d, const char *name, uint32_t hint)
{
    if (d && name && hint < d->n_params && ox_str_eq(d->params[hint].name, name))
        return &d->params[hint];
    return ox_param_find(d, name);
}

bool ox_param_required(const ox_param_decl *p)
{
    return !(p->flags & (OX_PARAM_OPTIONAL | OX_PARAM_CODE_DEFAULT)) &&
           p->kind != OX_ARG_OPT_TENSOR;
}

bool ox_param_accepts(const ox_param_decl *p, ox_arg_kind got)
{
    if (got == OX_ARG_NONE && !ox_param_required(p))
        return true;
    if (kind_accepts(p->kind, got))
        return true;
    for (int k = OX_ARG_TENSOR; k <= OX_ARG_TENSOR_OR_SCALAR; k++)
        if ((p->alt_kinds & OX_KIND_BIT(k)) && kind_accepts((ox_arg_kind)k, got))
            return true;
    return false;
}

/* The recorded kind a default value stands for. */
static ox_arg_kind default_kind(uint32_t tag)
{
    switch (tag) {
    case OX_DEFAULT_NULL: return OX_ARG_NONE;
    case OX_DEFAULT_INT: return OX_ARG_INT;
    case OX_DEFAULT_FLOAT: return OX_ARG_FLOAT;
    case OX_DEFAULT_BOOL: return OX_ARG_BOOL;
    case OX_DEFAULT_STRING: return OX_ARG_STRING;
    case OX_DEFAULT_INTS: return OX_ARG_INTS;
    case OX_DEFAULT_FLOATS: return OX_ARG_FLOATS;
    default: return OX_ARG_NONE;
    }
}

/* A default's kind with its article, for messages ("is an int"). */
static const char *const tag_names[] = {"no",     "a None", "an int", "a float", "a bool",
                                        "a string", "an int list", "a float list"};

/* A DTYPE parameter's default is an int (a dtype code) in 1.1 rows. */
static bool default_fits(const ox_param_decl *p)
{
    ox_arg_kind k = default_kind(p->dflt.tag);
    if (p->dflt.tag == OX_DEFAULT_INT && p->kind == OX_ARG_DTYPE)
        return true;
    return ox_param_accepts(p, k);
}

static size_t check_row(const char *path, const char *op, uint32_t k, const ox_param_decl *pd,
                        ox_report *r)
{
    size_t before = r->n;
    if (!declarable_kind((int)pd->kind)) {
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has unknown kind %d", path, op,
                      pd->name, (int)pd->kind);
        return r->n - before;
    }
    uint32_t known = 0;
    for (int i = OX_ARG_TENSOR; i <= OX_ARG_TENSOR_OR_SCALAR; i++)
        known |= OX_KIND_BIT(i);
    if (pd->alt_kinds & ~known)
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has alt_kinds 0x%X with bits "
                         "that name no kind (known: 0x%X)",
                      path, op, pd->name, (unsigned)pd->alt_kinds, (unsigned)known);
    if (pd->flags & ~OX_PARAM_OPTIONAL)
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has unknown flags 0x%X", path,
                      op, pd->name, (unsigned)(pd->flags & ~OX_PARAM_OPTIONAL));
    if (pd->dflt.tag > OX_DEFAULT_FLOATS) {
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has unknown default tag %u", path,
                      op, pd->name, (unsigned)pd->dflt.tag);
        return r->n - before;
    }
    bool optional = (pd->flags & OX_PARAM_OPTIONAL) != 0;
    if (pd->dflt.tag != OX_DEFAULT_NONE && !optional)
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has a default but is not "
                         "marked OX_PARAM_OPTIONAL",
                      path, op, pd->name);
    else if (optional && pd->dflt.tag == OX_DEFAULT_NONE && !tensor_kind(pd->kind))
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' is optional but has no default "
                         "(a non-tensor parameter the host may leave out needs one; "
                         "OX_DEFAULT_NULL when it defaults to None)",
                      path, op, pd->name);
    else if (pd->dflt.tag != OX_DEFAULT_NONE && tensor_kind(pd->kind) &&
             pd->dflt.tag != OX_DEFAULT_NULL)
        ox_report_add(r, "plugin %s: operator %s: %s parameter '%s' has %s default (a tensor "
                         "can only default to None)",
                      path, op, ox_arg_kind_name(pd->kind), pd->name, tag_names[pd->dflt.tag]);
    else if (pd->dflt.tag != OX_DEFAULT_NONE && !default_fits(pd))
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' is declared %s, but its default "
                         "is %s",
                      path, op, pd->name, ox_arg_kind_name(pd->kind), tag_names[pd->dflt.tag]);
    if (pd->dflt.tag == OX_DEFAULT_STRING && !pd->dflt.v.s)
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has a string default that is "
                         "NULL",
                      path, op, pd->name);
    if ((pd->dflt.tag == OX_DEFAULT_INTS || pd->dflt.tag == OX_DEFAULT_FLOATS) &&
        pd->dflt.count && !pd->dflt.v.ints)
        ox_report_add(r, "plugin %s: operator %s: parameter '%s' has a %u-entry list default "
                         "that is NULL",
                      path, op, pd->name, (unsigned)pd->dflt.count);
    (void)k;
    return r->n - before;
}

size_t ox_params_read(const char *path, const char *op, unsigned abi_minor, const void *rows,
                      uint32_t n, uint32_t stride, ox_param_decl *out, ox_report *r)
{
    size_t before = r->n;
    if (abi_minor >= 1 && (stride < OX_PARAM_DECL_MIN_1_1 || stride % sizeof(void *) != 0)) {
        ox_report_add(r, "plugin %s: operator %s: param_size %u is not a parameter row stride "
                         "(a 1.1 pack sets it to sizeof(ox_param_decl), at least %zu and a "
                         "multiple of %zu; OX_OP does)",
                      path, op, (unsigned)stride, (size_t)OX_PARAM_DECL_MIN_1_1,
                      sizeof(void *));
        return r->n - before;
    }
    const unsigned char *base = rows;
    for (uint32_t k = 0; k < n; k++) {
        ox_param_decl *pd = &out[k];
        memset(pd, 0, sizeof(*pd));
        if (abi_minor == 0) {
            const ox_param_decl_1_0 *old = (const ox_param_decl_1_0 *)rows + k;
            pd->name = old->name;
            pd->kind = old->kind;
            if (!tensor_kind(pd->kind))
                pd->flags = OX_PARAM_CODE_DEFAULT;
        } else {
            size_t take = stride < sizeof(*pd) ? stride : sizeof(*pd);
            memcpy(pd, base + (size_t)k * stride, take);
        }
        if (!pd->name) {
            ox_report_add(r, "plugin %s: operator %s: parameter #%u has a NULL name", path, op,
                          (unsigned)k);
            continue;
        }
        if (abi_minor == 0) {
            if (!declarable_kind((int)pd->kind))
                ox_report_add(r, "plugin %s: operator %s: parameter '%s' has unknown kind %d",
                              path, op, pd->name, (int)pd->kind);
        } else {
            check_row(path, op, k, pd, r);
        }
        for (uint32_t j = 0; j < k; j++)
            if (out[j].name && strcmp(out[j].name, pd->name) == 0) {
                ox_report_add(r, "plugin %s: operator %s: parameter '%s' is declared twice", path,
                              op, pd->name);
                break;
            }
    }
    return r->n - before;
}

bool ox_param_default_arg(const ox_param_decl *p, ox_targ *out)
{
    memset(out, 0, sizeof(*out));
    out->name = p->name;
    switch (p->dflt.tag) {
    case OX_DEFAULT_NULL: out->kind = OX_ARG_NONE; return true;
    case OX_DEFAULT_INT:
        out->kind = p->kind == OX_ARG_DTYPE ? OX_ARG_DTYPE : OX_ARG_INT;
        out->u.i = p->dflt.v.i;
        return true;
    case OX_DEFAULT_BOOL: out->kind = OX_ARG_BOOL; out->u.i = p->dflt.v.i != 0; return true;
    case OX_DEFAULT_FLOAT: out->kind = OX_ARG_FLOAT; out->u.f = p->dflt.v.f; return true;
    case OX_DEFAULT_STRING: out->kind = OX_ARG_STRING; out->u.s = p->dflt.v.s; return true;
    case OX_DEFAULT_INTS:
        /* read-only use: the symbolic API hands out const pointers */
        out->kind = OX_ARG_INTS;
        out->u.ints.p = (int64_t *)(uintptr_t)p->dflt.v.ints;
        out->u.ints.n = p->dflt.count;
        return true;
    case OX_DEFAULT_FLOATS:
        out->kind = OX_ARG_FLOATS;
        out->u.floats.p = (double *)(uintptr_t)p->dflt.v.floats;
        out->u.floats.n = p->dflt.count;
        return true;
    default: return false;
    }
}

void ox_param_kind_text(const ox_param_decl *p, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", ox_arg_kind_name(p->kind));
    for (int k = OX_ARG_TENSOR; k <= OX_ARG_TENSOR_OR_SCALAR && len < cap; k++)
        if (p->alt_kinds & OX_KIND_BIT(k))
            len += (size_t)snprintf(buf + len, cap - len, "|%s", ox_arg_kind_name((ox_arg_kind)k));
    if (len < cap && (p->flags & OX_PARAM_OPTIONAL) && p->kind != OX_ARG_OPT_TENSOR)
        snprintf(buf + len, cap - len, "?");
}

static size_t put_double(char *buf, size_t cap, double v)
{
    if (isinf(v))
        return (size_t)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.17g", v);
    /* shortest form that reads back as v */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    return (size_t)snprintf(buf, cap, "%s", tmp);
}

void ox_param_default_text(const ox_param_decl *p, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    size_t len = 0;
    switch (p->dflt.tag) {
    case OX_DEFAULT_NULL: snprintf(buf, cap, "None"); break;
    case OX_DEFAULT_INT: snprintf(buf, cap, "%" PRId64, p->dflt.v.i); break;
    case OX_DEFAULT_BOOL: snprintf(buf, cap, "%s", p->dflt.v.i ? "True" : "False"); break;
    case OX_DEFAULT_FLOAT: put_double(buf, cap, p->dflt.v.f); break;
    case OX_DEFAULT_STRING: snprintf(buf, cap, "'%s'", p->dflt.v.s ? p->dflt.v.s : ""); break;
    case OX_DEFAULT_INTS:
    case OX_DEFAULT_FLOATS:
        len = (size_t)snprintf(buf, cap, "[");
        for (uint32_t i = 0; i < p->dflt.count && len < cap; i++) {
            if (i)
                len += (size_t)snprintf(buf + len, cap - len, ", ");
            if (len >= cap)
                break;
            if (p->dflt.tag == OX_DEFAULT_INTS)
                len += (size_t)snprintf(buf + len, cap - len, "%" PRId64, p->dflt.v.ints[i]);
            else
                len += put_double(buf + len, cap - len, p->dflt.v.floats[i]);
        }
        if (len < cap)
            snprintf(buf + len, cap - len, "]");
        break;
    default: break;
    }
}
