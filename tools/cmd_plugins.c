/*
 * oxport plugins [--check [FILE.so]] [--config FILE] [--plugin-path DIR]...
 * : list the symbolic packs found on the search path, check one .so before
 * installing it, or check everything loaded against the opset YAML.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "context.h"
#include "json_out.h"
#include "opset_yaml.h"
#include "plugin_load.h"

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

/* {"...": ..., "ok": bool, "problems": [...]}: the check modes in JSON. */
static void json_problems(ox_json *j, const ox_report *r, bool ok)
{
    ox_json_key(j, "ok");
    ox_json_bool(j, ok);
    ox_json_key(j, "problems");
    ox_json_array(j);
    for (size_t i = 0; i < r->n; i++)
        ox_json_string(j, r->lines[i]);
    ox_json_array_end(j);
}

static int check_one(ox_context *ctx, const char *file, bool json)
{
    struct stat st;
    if (stat(file, &st) != 0) {
        fprintf(stderr, "oxport plugins: cannot read %s: %s\n", file, strerror(errno));
        return OX_EXIT_USAGE;
    }
    ox_report r;
    ox_report_init(&r);
    ox_status s = ox_plugin_check_file(ctx, file, &r);
    if (json) {
        ox_json j;
        ox_json_init(&j, stdout);
        ox_json_document(&j, "plugins");
        ox_json_key(&j, "mode");
        ox_json_string(&j, "check_file");
        ox_json_key(&j, "file");
        ox_json_string(&j, file);
        if (s != OX_OK && !r.n)
            ox_report_add(&r, "%s", ox_errmsg(ctx));
        json_problems(&j, &r, s == OX_OK);
        bool written = ox_json_finish(&j);
        ox_report_free(&r);
        return !written ? OX_EXIT_FAILURE : s == OX_OK ? OX_EXIT_OK : OX_EXIT_FINDINGS;
    }
    for (size_t i = 0; i < r.n; i++)
        printf("%s\n", r.lines[i]);
    if (s == OX_OK)
        printf("%s: ok\n", file);
    else if (!r.n)
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
    else
        printf("%zu problem(s) in %s\n", r.n, file);
    ox_report_free(&r);
    return s == OX_OK ? OX_EXIT_OK : OX_EXIT_FINDINGS;
}

static int check_all(ox_context *ctx, bool json)
{
    if (ox_registry_load(ctx) != OX_OK) {
        if (json) {
            ox_report r;
            ox_report_init(&r);
            ox_report_add(&r, "%s", ox_errmsg(ctx));
            ox_json j;
            ox_json_init(&j, stdout);
            ox_json_document(&j, "plugins");
            ox_json_key(&j, "mode");
            ox_json_string(&j, "check_all");
            json_problems(&j, &r, false);
            ox_report_free(&r);
            return ox_json_finish(&j) ? OX_EXIT_FINDINGS : OX_EXIT_FAILURE;
        }
        printf("%s\n", ox_errmsg(ctx));
        return OX_EXIT_FINDINGS;
    }
    if (!ctx->opsets && ox_opset_db_load(ctx, ox_context_opset_dir(ctx), &ctx->opsets) != OX_OK) {
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
        return OX_EXIT_USAGE;
    }
    ox_report r;
    ox_report_init(&r);
    size_t n = ox_registry_consistency(ctx, &r);
    const ox_plugin_info *const *packs;
    size_t n_packs = ox_registry_plugins(ctx->registry, &packs);
    if (json) {
        ox_json j;
        ox_json_init(&j, stdout);
        ox_json_document(&j, "plugins");
        ox_json_key(&j, "mode");
        ox_json_string(&j, "check_all");
        ox_json_key(&j, "opset_dir");
        ox_json_string(&j, ox_context_opset_dir(ctx));
        ox_json_key(&j, "packs");
        ox_json_uint(&j, n_packs);
        json_problems(&j, &r, n == 0);
        ox_report_free(&r);
        return !ox_json_finish(&j) ? OX_EXIT_FAILURE : n ? OX_EXIT_FINDINGS : OX_EXIT_OK;
    }
    for (size_t i = 0; i < r.n; i++)
        printf("%s\n", r.lines[i]);
    if (n)
        printf("%zu problem(s) in %zu pack(s) against %s\n", n, n_packs, ox_context_opset_dir(ctx));
    else
        printf("%zu pack(s) consistent with %s (opsets %d..%d)\n", n_packs,
               ox_context_opset_dir(ctx), ox_opset_db_min(ctx->opsets),
               ox_opset_db_max(ctx->opsets));
    ox_report_free(&r);
    return n ? OX_EXIT_FINDINGS : OX_EXIT_OK;
}

static void json_op_list(ox_json *j, const ox_plugin_info *pi, const ox_op_impl *const *all,
                         size_t n_all)
{
    ox_json_array(j);
    for (size_t i = 0; i < n_all; i++) {
        if (all[i]->plugin != pi)
            continue;
        if (i && all[i - 1]->plugin == pi && strcmp(all[i - 1]->decl->name, all[i]->decl->name) == 0)
            continue;
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, all[i]->decl->name);
        ox_json_key(j, "since_opsets");
        ox_json_array(j);
        for (size_t k = i; k < n_all && all[k]->plugin == pi &&
                           strcmp(all[k]->decl->name, all[i]->decl->name) == 0;
             k++)
            ox_json_int(j, all[k]->decl->since_opset);
        ox_json_array_end(j);
        ox_json_key(j, "overrides");
        ox_json_string(j, all[i]->overrides ? all[i]->overrides->path : NULL);
        ox_json_key(j, "overridden_by");
        const char *by = NULL;
        for (size_t k = 0; k < n_all; k++)
            if (all[k]->overrides == pi && strcmp(all[k]->decl->name, all[i]->decl->name) == 0)
                by = all[k]->plugin->path;
        ox_json_string(j, by);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
}

static int list_json(ox_context *ctx)
{
    ox_json j;
    ox_json_init(&j, stdout);
    ox_json_document(&j, "plugins");
    ox_json_key(&j, "mode");
    ox_json_string(&j, "list");
    if (ox_registry_load(ctx) != OX_OK) {
        ox_json_key(&j, "error");
        ox_json_string(&j, ox_errmsg(ctx));
        ox_json_key(&j, "packs");
        ox_json_array(&j);
        ox_json_array_end(&j);
        return ox_json_finish(&j) ? OX_EXIT_FINDINGS : OX_EXIT_FAILURE;
    }
    const ox_plugin_info *const *packs;
    size_t n_packs = ox_registry_plugins(ctx->registry, &packs);
    const ox_op_impl *const *all;
    size_t n_all = ox_registry_ops(ctx->registry, &all);
    ox_json_key(&j, "error");
    ox_json_null(&j);
    ox_json_key(&j, "packs");
    ox_json_array(&j);
    for (size_t p = 0; p < n_packs; p++) {
        const ox_plugin_info *pi = packs[p];
        const ox_plugin_desc *d = pi->desc;
        ox_json_object(&j);
        ox_json_key(&j, "path");
        ox_json_string(&j, pi->path);
        ox_json_key(&j, "name");
        ox_json_string(&j, d->name);
        ox_json_key(&j, "version");
        ox_json_string(&j, d->version);
        ox_json_key(&j, "abi");
        ox_json_array(&j);
        ox_json_int(&j, d->abi_major);
        ox_json_int(&j, d->abi_minor);
        ox_json_array_end(&j);
        ox_json_key(&j, "origin");
        ox_json_string(&j, pi->explicit_path ? "configured" : "built-in");
        ox_json_key(&j, "description");
        ox_json_string(&j, d->description);
        ox_json_key(&j, "operators");
        json_op_list(&j, pi, all, n_all);
        ox_json_object_end(&j);
    }
    ox_json_array_end(&j);
    return ox_json_finish(&j) ? OX_EXIT_OK : OX_EXIT_FAILURE;
}

static int list(ox_context *ctx)
{
    if (ox_registry_load(ctx) != OX_OK) {
        fprintf(stderr, "oxport plugins: %s\n", ox_errmsg(ctx));
        return OX_EXIT_FINDINGS;
    }
    const ox_plugin_info *const *packs;
    size_t n_packs = ox_registry_plugins(ctx->registry, &packs);
    const ox_op_impl *const *all;
    size_t n_all = ox_registry_ops(ctx->registry, &all);
    if (!n_packs) {
        printf("no symbolic packs found (add a directory with --plugin-path or "
               "OXPORT_PLUGIN_PATH)\n");
        return OX_EXIT_OK;
    }
    for (size_t p = 0; p < n_packs; p++) {
        const ox_plugin_info *pi = packs[p];
        const ox_plugin_desc *d = pi->desc;
        size_t n_ops = 0;
        for (size_t i = 0; i < n_all; i++)
            n_ops += all[i]->plugin == pi;
        if (p)
            printf("\n");
        printf("%s\n", pi->path);
        printf("  pack:        %s %s (plugin ABI %u.%u, %s)\n", d->name,
               d->version ? d->version : "(no version)", (unsigned)d->abi_major,
               (unsigned)d->abi_minor, pi->explicit_path ? "configured" : "built-in");
        if (d->description && *d->description)
            printf("  description: %s\n", d->description);
        printf("  operators:   %zu\n", n_ops);
        for (size_t i = 0; i < n_all; i++) {
            if (all[i]->plugin != pi)
                continue;
            if (i && all[i - 1]->plugin == pi &&
                strcmp(all[i - 1]->decl->name, all[i]->decl->name) == 0)
                continue; /* printed with the first version */
            printf("    %-32s since %d", all[i]->decl->name, all[i]->decl->since_opset);
            for (size_t j = i + 1; j < n_all && all[j]->plugin == pi &&
                                   strcmp(all[j]->decl->name, all[i]->decl->name) == 0;
                 j++)
                printf(", %d", all[j]->decl->since_opset);
            printf("\n");
        }
        for (size_t i = 0; i < n_all; i++)
            if (all[i]->plugin == pi && all[i]->overrides &&
                (i == 0 || strcmp(all[i - 1]->decl->name, all[i]->decl->name) != 0))
                printf("  overrides:   %s from %s\n", all[i]->decl->name,
                       all[i]->overrides->path);
        for (size_t i = 0; i < n_all; i++)
            if (all[i]->overrides == pi &&
                (i == 0 || strcmp(all[i - 1]->decl->name, all[i]->decl->name) != 0))
                printf("  overridden:  %s by %s\n", all[i]->decl->name, all[i]->plugin->path);
    }
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
