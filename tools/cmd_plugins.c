/*
 * oxport plugins [--check [FILE.so]] [--config FILE] [--plugin-path DIR]...
 * : list the symbolic packs found on the search path, check one .so before
 * installing it, or check everything loaded against the opset YAML, all
 * through the engine's introspection calls (oxport.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <oxport/json.h>
#include <oxport/oxport.h>

#include "commands.h"

static void plugins_usage(FILE *out)
{
    fprintf(out,
            "usage: oxport plugins [--plugin-path DIR]... [--config FILE] [--format text|json]\n"
            "       oxport plugins --check FILE.so [--format text|json]\n"
            "       oxport plugins --check [--plugin-path DIR]... [--config FILE]\n"
            "                      [--format text|json]\n\n"
            "List every symbolic pack on the search path: file, plugin ABI, name, version,\n"
            "operators with their since-opsets, and operators one pack overrides in another.\n\n"
            "options:\n"
            "  --check FILE.so    validate one pack (descriptor, declarations, init) and\n"
            "                     print every problem found\n"
            "  --check            check the loaded packs against the opset YAML: every\n"
            "                     declared operator has a symbolic, parameter kinds agree\n"
            "  --plugin-path DIR  also load the packs in DIR (or one .so); repeatable\n"
            "  --config FILE      user config (oxport.yaml): plugin_dirs, opset_dir\n"
            "  --format FORMAT    text (default) or json (docs/json-output.md)\n"
            "  -h, --help         show this help\n\n"
            "search order: --plugin-path, OXPORT_PLUGIN_PATH, the config's plugin_dirs,\n"
            "then the installed plugin directory (unless OXPORT_NO_DEFAULT_PLUGINDIR is set)\n"
            "exit status: 0 fine, 1 problems found (or a pack was rejected), 2 usage error\n"
            "or unreadable input\n");
}

/* The problem lines a check hands out, kept for printing. */
typedef struct lines {
    char **v;
    size_t n, cap;
    bool oom;
} lines;

static void lines_add(void *user, const char *line)
{
    lines *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    char *copy = strdup(line);
    if (!copy) {
        l->oom = true;
        return;
    }
    l->v[l->n++] = copy;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* {"...": ..., "ok": bool, "problems": [...]}: the check modes in JSON. */
static void json_problems(ox_json *j, const lines *l, bool ok)
{
    ox_json_key(j, "ok");
    ox_json_bool(j, ok);
    ox_json_key(j, "problems");
    ox_json_array(j);
    for (size_t i = 0; i < l->n; i++)
        ox_json_string(j, l->v[i]);
    ox_json_array_end(j);
}

static int out_of_memory(void)
{
    fprintf(stderr, "oxport plugins: out of memory\n");
    return OX_EXIT_FAILURE;
}

static int check_one(ox_context *ctx, const char *file, bool json)
{
    struct stat st;
    if (stat(file, &st) != 0) {
        fprintf(stderr, "oxport plugins: cannot read %s: %s\n", file, strerror(errno));
        return OX_EXIT_USAGE;
    }
    lines r = {0};
    ox_status s = ox_pack_check_file(ctx, file, lines_add, &r, NULL);
    if (r.oom) {
        lines_free(&r);
        return out_of_memory();
    }
    if (json) {
        ox_json *j = ox_json_new(stdout);
        if (!j) {
            lines_free(&r);
            return out_of_memory();
        }
        ox_json_document(j, "plugins");
        ox_json_key(j, "mode");
        ox_json_string(j, "check_file");
        ox_json_key(j, "file");
        ox_json_string(j, file);
        if (s != OX_OK && !r.n)
            lines_add(&r, ox_errmsg(ctx));
        json_problems(j, &r, s == OX_OK);
        bool written = ox_json_finish(j);
        ox_json_free(j);
        lines_free(&r);
        return !written ? OX_EXIT_FAILURE : s == OX_OK ? OX_EXIT_OK : OX_EXIT_FINDINGS;
    }
    for (size_t i = 0; i < r.n; i++)
        printf("%s\n", r.v[i]);
    if (s == OX_OK)
        printf("%s: ok\n", file);
    else if (!r.n)
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
    else
        printf("%zu problem(s) in %s\n", r.n, file);
    lines_free(&r);
    return s == OX_OK ? OX_EXIT_OK : OX_EXIT_FINDINGS;
}

static int check_all(ox_context *ctx, bool json)
{
    size_t n_packs = 0;
    if (ox_context_pack_count(ctx, &n_packs) != OX_OK) {
        if (json) {
            lines r = {0};
            lines_add(&r, ox_errmsg(ctx));
            ox_json *j = ox_json_new(stdout);
            if (!j || r.oom) {
                ox_json_free(j);
                lines_free(&r);
                return out_of_memory();
            }
            ox_json_document(j, "plugins");
            ox_json_key(j, "mode");
            ox_json_string(j, "check_all");
            json_problems(j, &r, false);
            lines_free(&r);
            bool written = ox_json_finish(j);
            ox_json_free(j);
            return written ? OX_EXIT_FINDINGS : OX_EXIT_FAILURE;
        }
        printf("%s\n", ox_errmsg(ctx));
        return OX_EXIT_FINDINGS;
    }
    lines r = {0};
    size_t n = 0;
    if (ox_context_check_packs(ctx, lines_add, &r, &n) != OX_OK) {
        lines_free(&r);
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
        return OX_EXIT_USAGE;
    }
    if (r.oom) {
        lines_free(&r);
        return out_of_memory();
    }
    int min_opset = 0, max_opset = 0;
    const char *dir = "";
    ox_context_opset_info(ctx, &min_opset, &max_opset, &dir);
    if (json) {
        ox_json *j = ox_json_new(stdout);
        if (!j) {
            lines_free(&r);
            return out_of_memory();
        }
        ox_json_document(j, "plugins");
        ox_json_key(j, "mode");
        ox_json_string(j, "check_all");
        ox_json_key(j, "opset_dir");
        ox_json_string(j, dir);
        ox_json_key(j, "packs");
        ox_json_uint(j, n_packs);
        json_problems(j, &r, n == 0);
        lines_free(&r);
        bool written = ox_json_finish(j);
        ox_json_free(j);
        return !written ? OX_EXIT_FAILURE : n ? OX_EXIT_FINDINGS : OX_EXIT_OK;
    }
    for (size_t i = 0; i < r.n; i++)
        printf("%s\n", r.v[i]);
    if (n)
        printf("%zu problem(s) in %zu pack(s) against %s\n", n, n_packs, dir);
    else
        printf("%zu pack(s) consistent with %s (opsets %d..%d)\n", n_packs, dir, min_opset,
               max_opset);
    lines_free(&r);
    return n ? OX_EXIT_FINDINGS : OX_EXIT_OK;
}

/* Every implementation of the loaded packs, and the packs: what both
 * listings print. */
typedef struct inventory {
    ox_pack_info *packs;
    size_t n_packs;
    ox_op_info *ops; /* sorted by name then since_opset */
    size_t n_ops;
} inventory;

static void inventory_free(inventory *inv)
{
    free(inv->packs);
    free(inv->ops);
}

/* OX_OK, a loader failure (message in ox_errmsg) or OX_ENOMEM. */
static ox_status inventory_load(ox_context *ctx, inventory *inv)
{
    memset(inv, 0, sizeof *inv);
    ox_status st = ox_context_pack_count(ctx, &inv->n_packs);
    if (st == OX_OK)
        st = ox_context_op_count(ctx, &inv->n_ops);
    if (st != OX_OK)
        return st;
    inv->packs = calloc(inv->n_packs + 1, sizeof *inv->packs);
    inv->ops = calloc(inv->n_ops + 1, sizeof *inv->ops);
    if (!inv->packs || !inv->ops) {
        inventory_free(inv);
        return OX_ENOMEM;
    }
    for (size_t i = 0; i < inv->n_packs && st == OX_OK; i++) {
        inv->packs[i].struct_size = sizeof inv->packs[i];
        st = ox_context_pack(ctx, i, &inv->packs[i]);
    }
    for (size_t i = 0; i < inv->n_ops && st == OX_OK; i++) {
        inv->ops[i].struct_size = sizeof inv->ops[i];
        st = ox_context_op(ctx, i, &inv->ops[i]);
    }
    if (st != OX_OK)
        inventory_free(inv);
    return st;
}

/* Implementation i is the first of its name in its pack (later ones, at
 * higher since-opsets, are listed with it). */
static bool first_of_name(const inventory *inv, size_t i)
{
    return i == 0 || inv->ops[i - 1].pack != inv->ops[i].pack ||
           strcmp(inv->ops[i - 1].name, inv->ops[i].name) != 0;
}

static bool same_name(const ox_op_info *a, const ox_op_info *b)
{
    return a->pack == b->pack && strcmp(a->name, b->name) == 0;
}

/* The path of the pack that overrides op i's name in pack `p`, or NULL. */
static const char *overridden_by(const inventory *inv, size_t p, const char *name)
{
    const char *by = NULL;
    for (size_t k = 0; k < inv->n_ops; k++)
        if (inv->ops[k].overrides && !strcmp(inv->ops[k].overrides, inv->packs[p].path) &&
            !strcmp(inv->ops[k].name, name))
            by = inv->packs[inv->ops[k].pack].path;
    return by;
}

static void json_op_list(ox_json *j, const inventory *inv, size_t p)
{
    ox_json_array(j);
    for (size_t i = 0; i < inv->n_ops; i++) {
        const ox_op_info *o = &inv->ops[i];
        if (o->pack != p || !first_of_name(inv, i))
            continue;
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, o->name);
        ox_json_key(j, "since_opsets");
        ox_json_array(j);
        for (size_t k = i; k < inv->n_ops && same_name(&inv->ops[k], o); k++)
            ox_json_int(j, inv->ops[k].since_opset);
        ox_json_array_end(j);
        ox_json_key(j, "overrides");
        ox_json_string(j, o->overrides);
        ox_json_key(j, "overridden_by");
        ox_json_string(j, overridden_by(inv, p, o->name));
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
}

static int list_json(ox_context *ctx)
{
    ox_json *j = ox_json_new(stdout);
    if (!j)
        return out_of_memory();
    ox_json_document(j, "plugins");
    ox_json_key(j, "mode");
    ox_json_string(j, "list");
    inventory inv;
    ox_status st = inventory_load(ctx, &inv);
    if (st == OX_ENOMEM) {
        ox_json_free(j);
        return out_of_memory();
    }
    if (st != OX_OK) {
        ox_json_key(j, "error");
        ox_json_string(j, ox_errmsg(ctx));
        ox_json_key(j, "packs");
        ox_json_array(j);
        ox_json_array_end(j);
        bool written = ox_json_finish(j);
        ox_json_free(j);
        return written ? OX_EXIT_FINDINGS : OX_EXIT_FAILURE;
    }
    ox_json_key(j, "error");
    ox_json_null(j);
    ox_json_key(j, "packs");
    ox_json_array(j);
    for (size_t p = 0; p < inv.n_packs; p++) {
        const ox_pack_info *pk = &inv.packs[p];
        ox_json_object(j);
        ox_json_key(j, "path");
        ox_json_string(j, pk->path);
        ox_json_key(j, "name");
        ox_json_string(j, pk->name);
        ox_json_key(j, "version");
        ox_json_string(j, pk->version);
        ox_json_key(j, "abi");
        ox_json_array(j);
        ox_json_int(j, pk->abi_major);
        ox_json_int(j, pk->abi_minor);
        ox_json_array_end(j);
        ox_json_key(j, "origin");
        ox_json_string(j, pk->configured ? "configured" : "built-in");
        ox_json_key(j, "description");
        ox_json_string(j, pk->description);
        ox_json_key(j, "operators");
        json_op_list(j, &inv, p);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    inventory_free(&inv);
    bool written = ox_json_finish(j);
    ox_json_free(j);
    return written ? OX_EXIT_OK : OX_EXIT_FAILURE;
}

static int list(ox_context *ctx)
{
    inventory inv;
    ox_status st = inventory_load(ctx, &inv);
    if (st == OX_ENOMEM)
        return out_of_memory();
    if (st != OX_OK) {
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
        return OX_EXIT_FINDINGS;
    }
    if (!inv.n_packs) {
        printf("no symbolic packs found (add a directory with --plugin-path or "
               "OXPORT_PLUGIN_PATH)\n");
        inventory_free(&inv);
        return OX_EXIT_OK;
    }
    for (size_t p = 0; p < inv.n_packs; p++) {
        const ox_pack_info *pk = &inv.packs[p];
        if (p)
            printf("\n");
        printf("%s\n", pk->path);
        printf("  pack:        %s %s (plugin ABI %u.%u, %s)\n", pk->name,
               pk->version ? pk->version : "(no version)", (unsigned)pk->abi_major,
               (unsigned)pk->abi_minor, pk->configured ? "configured" : "built-in");
        if (pk->description && *pk->description)
            printf("  description: %s\n", pk->description);
        printf("  operators:   %zu\n", pk->n_ops);
        for (size_t i = 0; i < inv.n_ops; i++) {
            const ox_op_info *o = &inv.ops[i];
            if (o->pack != p || !first_of_name(&inv, i))
                continue; /* later versions are printed with the first */
            printf("    %-32s since %d", o->name, o->since_opset);
            for (size_t k = i + 1; k < inv.n_ops && same_name(&inv.ops[k], o); k++)
                printf(", %d", inv.ops[k].since_opset);
            printf("\n");
        }
        for (size_t i = 0; i < inv.n_ops; i++)
            if (inv.ops[i].pack == p && inv.ops[i].overrides &&
                (i == 0 || strcmp(inv.ops[i - 1].name, inv.ops[i].name) != 0))
                printf("  overrides:   %s from %s\n", inv.ops[i].name, inv.ops[i].overrides);
        for (size_t i = 0; i < inv.n_ops; i++)
            if (inv.ops[i].overrides && !strcmp(inv.ops[i].overrides, pk->path) &&
                (i == 0 || strcmp(inv.ops[i - 1].name, inv.ops[i].name) != 0))
                printf("  overridden:  %s by %s\n", inv.ops[i].name,
                       inv.packs[inv.ops[i].pack].path);
    }
    inventory_free(&inv);
    return ferror(stdout) ? OX_EXIT_FAILURE : OX_EXIT_OK;
}

int cmd_plugins(int argc, char **argv)
{
    bool check = false, json = false;
    const char *check_file = NULL, *config = NULL;
    ox_context *ctx = NULL;
    if (ox_context_new(0, &ctx) != OX_OK) {
        fprintf(stderr, "oxport plugins: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    int rc = OX_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            plugins_usage(stdout);
            goto out;
        } else if (!strcmp(a, "--check")) {
            check = true;
            if (i + 1 < argc && argv[i + 1][0] != '-')
                check_file = argv[++i];
        } else if (!strncmp(a, "--check=", 8)) {
            check = true;
            check_file = a + 8;
        } else if (!strcmp(a, "--format")) {
            const char *f = i + 1 < argc ? argv[++i] : NULL;
            if (!f || (strcmp(f, "text") && strcmp(f, "json"))) {
                if (f)
                    fprintf(stderr, "oxport plugins: --format expects text or json, got '%s'\n", f);
                else
                    fprintf(stderr, "oxport plugins: --format needs a value\n");
                rc = OX_EXIT_USAGE;
                goto out;
            }
            json = !strcmp(f, "json");
        } else if (!strcmp(a, "--plugin-path") || !strcmp(a, "--config")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "oxport plugins: %s needs a value\n", a);
                rc = OX_EXIT_USAGE;
                goto out;
            }
            val = argv[++i];
        } else if (!strncmp(a, "--plugin-path=", 14)) {
            a = "--plugin-path";
            val = argv[i] + 14;
        } else if (!strncmp(a, "--config=", 9)) {
            a = "--config";
            val = argv[i] + 9;
        } else {
            fprintf(stderr, "oxport plugins: unknown argument '%s'\n", a);
            plugins_usage(stderr);
            rc = OX_EXIT_USAGE;
            goto out;
        }
        if (val && !strcmp(a, "--plugin-path") &&
            ox_context_add_plugin_path(ctx, val) != OX_OK) {
            fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
            rc = OX_EXIT_USAGE;
            goto out;
        }
        if (val && !strcmp(a, "--config"))
            config = val;
    }
    if (config && ox_context_load_config(ctx, config) != OX_OK) {
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if (check_file)
        rc = check_one(ctx, check_file, json);
    else if (check)
        rc = check_all(ctx, json);
    else
        rc = json ? list_json(ctx) : list(ctx);
out:
    ox_context_free(ctx);
    return rc;
}
