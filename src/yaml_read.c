#include "yaml_read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strmap.h"
#include "yaml_limits.h"

/* libyaml marks are 0-based; people count from 1. */
#define LINE(m) ((unsigned long)(m).line + 1)
#define COL(m) ((unsigned long)(m).column + 1)

static ox_status syntax_error(ox_context *ctx, const char *path, const yaml_parser_t *p)
{
    /* libyaml fails without recording an error only when an allocation failed */
    if (p->error == YAML_MEMORY_ERROR || p->error == YAML_NO_ERROR)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
    const char *problem = p->problem ? p->problem : "a malformed document";
    if (p->error == YAML_READER_ERROR)
        return ox_fail(ctx, OX_ECONFIG, "%s: expected UTF-8 YAML text, got %s at byte %zu", path,
                       problem, p->problem_offset);
    if (p->context)
        return ox_fail(ctx, OX_ECONFIG,
                       "%s:%lu:%lu: expected valid YAML, got a syntax error: %s (%s started at "
                       "%lu:%lu)",
                       path, LINE(p->problem_mark), COL(p->problem_mark), problem, p->context,
                       LINE(p->context_mark), COL(p->context_mark));
    return ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: expected valid YAML, got a syntax error: %s",
                   path, LINE(p->problem_mark), COL(p->problem_mark), problem);
}

ox_status ox_yaml_load(ox_context *ctx, const char *path, ox_yaml *y)
{
    memset(y, 0, sizeof(*y));
    y->path = path;
    FILE *f = fopen(path, "rb");
    if (!f && errno == ENOMEM)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory opening the file", path);
    if (!f)
        return ox_fail(ctx, OX_EIO, "%s: cannot read: %s", path, strerror(errno));
    struct stat fst;
    if (fstat(fileno(f), &fst) == 0 && S_ISDIR(fst.st_mode)) {
        fclose(f);
        return ox_fail(ctx, OX_EIO, "%s: cannot read: it is a directory; give a YAML file", path);
    }
    ox_status lim = ox_yaml_check_limits(ctx, path, f);
    if (lim != OX_OK) {
        fclose(f);
        return lim;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory while parsing YAML", path);
    }
    yaml_parser_set_input_file(&parser, f);
    ox_status st = OX_OK;
    if (!yaml_parser_load(&parser, &y->doc)) {
        st = syntax_error(ctx, path, &parser);
    } else {
        y->loaded = true;
        /* A second document would be silently ignored by the loader above:
         * refuse it so nobody edits a part of the file that has no effect. */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            st = syntax_error(ctx, path, &parser);
        } else {
            yaml_node_t *root = yaml_document_get_root_node(&extra);
            if (root)
                st = ox_fail(ctx, OX_ECONFIG,
                             "%s:%lu:%lu: expected a single YAML document, got a second one", path,
                             LINE(root->start_mark), COL(root->start_mark));
            yaml_document_delete(&extra);
        }
        if (st != OX_OK)
            ox_yaml_free(y);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    y->path = path;
    return st;
}

void ox_yaml_free(ox_yaml *y)
{
    if (y->loaded)
        yaml_document_delete(&y->doc);
    y->loaded = false;
}

yaml_node_t *ox_yaml_root(ox_yaml *y)
{
    return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *ox_yaml_node(ox_yaml *y, int id)
{
    return yaml_document_get_node(&y->doc, id);
}

ox_yvalue ox_yaml_scalar(const yaml_node_t *n)
{
    ox_yvalue v;
    memset(&v, 0, sizeof(v));
    if (!n || n->type != YAML_SCALAR_NODE)
        return v;
    const char *s = (const char *)n->data.scalar.value;
    v.s = s;
    v.kind = OX_YS_STRING;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return v;
    if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL")) {
        v.kind = OX_YS_NULL;
        return v;
    }
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
        v.kind = OX_YS_BOOL;
        v.i = 1;
        v.f = 1.0;
        return v;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
        v.kind = OX_YS_BOOL;
        return v;
    }
    /* Integers: decimal with optional sign, or 0x / 0o prefixed. */
    const char *p = s;
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o')) {
        base = p[1] == 'x' ? 16 : 8;
        p += 2;
    } else if (*p == '-' || *p == '+') {
        p++;
    }
    if (*p) {
        const char *q = p;
        while (*q && (base == 16 ? strchr("0123456789abcdefABCDEF", *q) != NULL
                                 : (*q >= '0' && *q <= (base == 8 ? '7' : '9'))))
            q++;
        if (!*q) {
            errno = 0;
            char *end;
            long long val = strtoll(base == 10 ? s : p, &end, base);
            if (errno == 0 && *end == '\0') {
                v.kind = OX_YS_INT;
                v.i = val;
                v.f = (double)val;
                return v;
            }
            return v; /* out of range: keep it a string, callers reject it */
        }
    }
    /* Floats: digits, one dot, optional exponent; plus .inf / .nan. */
    const char *t = s + ((*s == '-' || *s == '+') ? 1 : 0);
    if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF")) {
        v.kind = OX_YS_FLOAT;
        v.f = *s == '-' ? -INFINITY : INFINITY;
        return v;
    }
    if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
        v.kind = OX_YS_FLOAT;
        v.f = NAN;
        return v;
    }
    int digits = 0;
    for (const char *q = t; *q; q++) {
        if (*q >= '0' && *q <= '9')
            digits++;
        else if (!strchr(".eE+-", *q))
            return v;
    }
    if (!digits)
        return v;
    char *end;
    double d = strtod(s, &end);
    if (*end == '\0') {
        v.kind = OX_YS_FLOAT;
        v.f = d;
    }
    return v;
}

void ox_yaml_describe(const yaml_node_t *n, char *buf, size_t cap)
{
    if (!n) {
        snprintf(buf, cap, "nothing");
        return;
    }
    switch (n->type) {
    case YAML_MAPPING_NODE:
        snprintf(buf, cap, "a mapping");
        return;
    case YAML_SEQUENCE_NODE:
        snprintf(buf, cap, "a sequence");
        return;
    case YAML_SCALAR_NODE: {
        const char *s = (const char *)n->data.scalar.value;
        if (!*s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            snprintf(buf, cap, "nothing");
            return;
        }
        if (strlen(s) > 60)
            snprintf(buf, cap, "'%.57s...'", s);
        else
            snprintf(buf, cap, "'%s'", s);
        return;
    }
    case YAML_NO_NODE:
        break;
    }
    snprintf(buf, cap, "nothing");
}

static ox_status vfail_at(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n, const char *fmt,
                          va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof(text), fmt, ap);
    if (!n)
        return ox_fail(ctx, OX_ECONFIG, "%s: %s", y->path, text);
    return ox_fail(ctx, OX_ECONFIG, "%s:%lu:%lu: %s", y->path, LINE(n->start_mark),
                   COL(n->start_mark), text);
}

ox_status ox_yaml_fail_at(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ox_status st = vfail_at(ctx, y, n, fmt, ap);
    va_end(ap);
    return st;
}

ox_status ox_yaml_expected(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                           const char *expected)
{
    char got[80];
    ox_yaml_describe(n, got, sizeof(got));
    return ox_yaml_fail_at(ctx, y, n, "expected %s, got %s", expected, got);
}

ox_status ox_yaml_int(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n, const char *what,
                      int64_t *out)
{
    ox_yvalue v = ox_yaml_scalar(n);
    if (v.kind != OX_YS_INT)
        return ox_yaml_expected(ctx, y, n, what);
    *out = v.i;
    return OX_OK;
}

ox_status ox_yaml_string(ox_context *ctx, const ox_yaml *y, const yaml_node_t *n,
                         const char *what, const char **out)
{
    ox_yvalue v = ox_yaml_scalar(n);
    if (v.kind == OX_YS_NOT_SCALAR || v.kind == OX_YS_NULL)
        return ox_yaml_expected(ctx, y, n, what);
    *out = v.s;
    return OX_OK;
}

static const char *key_text(ox_yaml *y, const yaml_node_pair_t *pair)
{
    yaml_node_t *k = ox_yaml_node(y, pair->key);
    if (!k || k->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)k->data.scalar.value;
}

ox_status ox_yaml_check_mapping(ox_context *ctx, ox_yaml *y, const yaml_node_t *n,
                                const char *what, const char *const *allowed)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return ox_yaml_expected(ctx, y, n, what);
    const yaml_node_pair_t *start = n->data.mapping.pairs.start;
    const yaml_node_pair_t *top = n->data.mapping.pairs.top;
    /* keys seen so far, hashed: a mapping of 100k keys is checked in linear time */
    ox_strset seen = {0};
    if (ox_strset_init(&seen, (size_t)(top - start)) != 0)
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
    ox_status st = OX_OK;
    for (const yaml_node_pair_t *p = start; p < top && st == OX_OK; p++) {
        yaml_node_t *k = ox_yaml_node(y, p->key);
        const char *key = key_text(y, p);
        ox_yvalue kv = ox_yaml_scalar(k);
        if (!key || kv.kind == OX_YS_NULL) {
            st = ox_yaml_expected(ctx, y, k, "a key");
            break;
        }
        int added = ox_strset_add(&seen, key);
        if (added < 0) {
            st = ox_fail(ctx, OX_ENOMEM, "%s: out of memory", y->path);
            break;
        }
        if (added == 0) {
            const yaml_node_pair_t *q = start;
            while (q < p && !(key_text(y, q) && !strcmp(key_text(y, q), key)))
                q++;
            yaml_node_t *pk = ox_yaml_node(y, q->key);
            st = ox_yaml_fail_at(ctx, y, k, "expected each key once, got '%s' again (first at "
                                 "%lu:%lu)", key, LINE(pk->start_mark), COL(pk->start_mark));
            break;
        }
        if (!allowed)
            continue;
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], key))
                ok = true;
        if (!ok) {
            char list[512];
            size_t len = 0;
            list[0] = '\0';
            for (size_t i = 0; allowed[i] && len < sizeof(list); i++)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
                                        allowed[i]);
            st = ox_yaml_fail_at(ctx, y, k, "expected one of the keys %s, got '%s'", list, key);
        }
    }
    ox_strset_free(&seen);
    return st;
}

yaml_node_t *ox_yaml_get(ox_yaml *y, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = key_text(y, p);
        if (k && !strcmp(k, key))
            return ox_yaml_node(y, p->value);
    }
    return NULL;
}
