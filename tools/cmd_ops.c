/*
 * oxport ops [--opset N] [--format text|markdown|json] [--config FILE]
 *            [--plugin-path DIR]... : list the operators supported at an
 * opset, joining the YAML descriptors with the loaded symbolic packs.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "context.h"
#include "json_out.h"
#include "opset_yaml.h"
#include "param_decl.h"
#include "plugin_load.h"

static void ops_usage(FILE *out)
{
    fprintf(out,
            "usage: oxport ops [--opset N] [--format text|markdown|json] [--config FILE]\n"
            "                  [--plugin-path DIR]...\n\n"
            "List the operators supported at an opset: their parameters, the pack and\n"
            "since-opset of the symbolic used, each limitation with its message and the\n"
            "opset that lifts it, and operators a pack converts without a descriptor.\n\n"
            "options:\n"
            "  --opset N          target opset (default: the config's target_opset, else %d)\n"
            "  --format FORMAT    text (default), markdown (the operators document) or\n"
            "                     json (docs/json-output.md)\n"
            "  --config FILE      user config (oxport.yaml): target, plugin dirs, disabled ops\n"
            "  --plugin-path DIR  also load the packs in DIR (or one .so); repeatable\n"
            "  -h, --help         show this help\n\n"
            "environment: OXPORT_PLUGIN_PATH, OXPORT_OPSET_DIR, OXPORT_NO_DEFAULT_PLUGINDIR\n"
            "exit status: 0 listed, 2 usage error or descriptors/packs that fail to load,\n"
            "3 write error\n",
            OX_DEFAULT_OPSET);
}

/* One row of the listing: a descriptor, a pack implementation, or both. */
typedef struct row {
    const char *name;
    const ox_opset_op *yaml;   /* NULL: the pack alone declares it */
    const ox_op_impl *impl;    /* NULL: no symbolic at this opset */
    int later_since;           /* when !impl: lowest since_opset of any pack, 0 none */
    bool disabled;
} row;

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const row *)a)->name, ((const row *)b)->name);
}

static bool is_disabled(const ox_context *ctx, const char *name)
{
    const ox_config *cfg = ctx->config;
    for (size_t i = 0; cfg && i < cfg->n_disabled_ops; i++)
        if (!strcmp(cfg->disabled_ops[i], name))
            return true;
    return false;
}

/* "self: tensor, kernel_size: ints, stride: ints? = [1, 1]" from the pack's
 * declaration (the operator's one schema), else the names the descriptor
 * lists. */
static void print_params(FILE *out, const row *r)
{
    if (r->impl) {
        for (uint32_t i = 0; i < r->impl->decl->n_params; i++) {
            const ox_param_decl *p = &r->impl->decl->params[i];
            char kinds[128], dflt[256];
            ox_param_kind_text(p, kinds, sizeof kinds);
            ox_param_default_text(p, dflt, sizeof dflt);
            fprintf(out, "%s%s: %s%s%s", i ? ", " : "", p->name, kinds, dflt[0] ? " = " : "",
                    dflt);
        }
    } else if (r->yaml) {
        for (size_t i = 0; i < r->yaml->n_params; i++)
            fprintf(out, "%s%s", i ? ", " : "", r->yaml->params[i].name);
    }
}

static const char *pack_name(const ox_op_impl *impl)
{
    const ox_plugin_desc *d = impl->plugin ? impl->plugin->desc : NULL;
    return d && d->name ? d->name : "?";
}

/* Markdown-safe text: only what could start emphasis, code or HTML is
 * escaped, so the generated source stays readable (snake_case inside a word
 * is no emphasis in CommonMark). */
static void md_text(FILE *out, const char *s)
{
    for (const char *p = s; p && *p; p++) {
        bool word_before = p > s && (isalnum((unsigned char)p[-1]));
        if (strchr("\\*`<|[]", *p) || (*p == '_' && !word_before))
            fputc('\\', out);
        fputc(*p, out);
    }
}

static void print_text(FILE *out, const ox_context *ctx, int opset, const row *rows, size_t n)
{
    const ox_opset_db *db = ctx->opsets;
    const ox_plugin_info *const *plugins = NULL;
    size_t n_plugins = ctx->registry ? ox_registry_plugins(ctx->registry, &plugins) : 0;
    fprintf(out, "Operators at opset %d (descriptors: %s, opsets %d..%d; packs:", opset,
            ox_context_opset_dir(ctx), ox_opset_db_min(db), ox_opset_db_max(db));
    for (size_t i = 0; i < n_plugins; i++)
        fprintf(out, " %s %s%s", plugins[i]->desc->name, plugins[i]->desc->version,
                i + 1 < n_plugins ? "," : "");
    fprintf(out, "%s)\n", n_plugins ? "" : " none");
    size_t from_yaml = 0, pack_only = 0, missing = 0, disabled = 0;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        fprintf(out, "\n%s", r->name);
        if (r->yaml && r->yaml->doc)
            fprintf(out, " - %s", r->yaml->doc);
        fprintf(out, "\n  params:     ");
        print_params(out, r);
        fprintf(out, "\n  symbolic:   ");
        if (r->impl)
            fprintf(out, "%s, since opset %d", pack_name(r->impl), r->impl->decl->since_opset);
        else if (r->later_since)
            fprintf(out, "none at this opset (a pack has one from opset %d)", r->later_since);
        else
            fprintf(out, "none: no loaded pack converts it");
        if (!r->yaml)
            fprintf(out, "\n  descriptor: none (only the pack's declaration applies)");
        else
            fprintf(out, "\n  descriptor: opset_%d.yaml", r->yaml->declared_in);
        if (r->disabled)
            fprintf(out, "\n  disabled:   by %s", ctx->config->path);
        for (size_t j = 0; r->yaml && j < r->yaml->n_limitations; j++) {
            const ox_opset_limitation *l = &r->yaml->limitations[j];
            char what[512];
            ox_opset_limitation_describe(l, what, sizeof(what));
            int lift = ox_opset_db_limitation_lifted(db, opset, r->name, l);
            fprintf(out, "\n  limitation: %s: %s", what, l->message);
            if (lift)
                fprintf(out, " (lifted at opset %d)", lift);
        }
        fputc('\n', out);
        if (r->disabled)
            disabled++;
        else if (!r->impl)
            missing++;
        else if (r->yaml)
            from_yaml++;
        else
            pack_only++;
    }
    fprintf(out,
            "\n%zu supported (%zu with a descriptor, %zu from packs only); %zu disabled; %zu "
            "without a symbolic\n",
            from_yaml + pack_only, from_yaml, pack_only, disabled, missing);
}

static void print_markdown(FILE *out, const ox_context *ctx, int opset, const row *rows, size_t n)
{
    const ox_opset_db *db = ctx->opsets;
    size_t supported = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].impl && !rows[i].disabled)
            supported++;
    fprintf(out, "## Opset %d\n\n", opset);
    fprintf(out, "The following %zu operators are supported at opset %d.\n\n", supported, opset);
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->impl || r->disabled)
            continue;
        fprintf(out, "- `%s(", r->name);
        print_params(out, r);
        fprintf(out, ")`");
        if (r->yaml && r->yaml->doc) {
            fprintf(out, ": ");
            md_text(out, r->yaml->doc);
        }
        fprintf(out, " (symbolic `%s` since opset %d%s)\n", pack_name(r->impl),
                r->impl->decl->since_opset,
                r->yaml ? "" : "; no descriptor: only the pack's declaration applies");
        for (size_t j = 0; r->yaml && j < r->yaml->n_limitations; j++) {
            const ox_opset_limitation *l = &r->yaml->limitations[j];
            char what[512];
            ox_opset_limitation_describe(l, what, sizeof(what));
            int lift = ox_opset_db_limitation_lifted(db, opset, r->name, l);
            fprintf(out, "  - not supported: `%s`: ", what);
            md_text(out, l->message);
            if (lift)
                fprintf(out, " (supported from opset %d)", lift);
            fputc('\n', out);
        }
    }
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (r->impl && !r->disabled)
            continue;
        if (!header) {
            fprintf(out, "\nNot exported at opset %d:\n\n", opset);
            header = true;
        }
        fprintf(out, "- `%s`: ", r->name);
        if (r->disabled)
            fprintf(out, "disabled by the config\n");
        else if (r->later_since)
            fprintf(out, "supported from opset %d\n", r->later_since);
        else
            fprintf(out, "declared in the descriptors, but no loaded pack converts it\n");
    }
}

static void json_params(ox_json *j, const row *r)
{
    ox_json_array(j);
    if (r->impl) {
        for (uint32_t i = 0; i < r->impl->decl->n_params; i++) {
            const ox_param_decl *p = &r->impl->decl->params[i];
            ox_json_object(j);
            ox_json_key(j, "name");
            ox_json_string(j, p->name);
            ox_json_key(j, "kind");
            ox_json_string(j, ox_arg_kind_name(p->kind));
            ox_json_key(j, "alt_kinds");
            ox_json_array(j);
            for (int k = OX_ARG_TENSOR; k <= OX_ARG_TENSOR_OR_SCALAR; k++)
                if (p->alt_kinds & OX_KIND_BIT(k))
                    ox_json_string(j, ox_arg_kind_name((ox_arg_kind)k));
            ox_json_array_end(j);
            ox_json_key(j, "optional");
            ox_json_bool(j, !ox_param_required(p));
            ox_json_key(j, "default");
            char dflt[256];
            ox_param_default_text(p, dflt, sizeof dflt);
            if (dflt[0])
                ox_json_string(j, dflt);
            else
                ox_json_null(j);
            ox_json_object_end(j);
        }
    } else if (r->yaml) {
        for (size_t i = 0; i < r->yaml->n_params; i++) {
            ox_json_object(j);
            ox_json_key(j, "name");
            ox_json_string(j, r->yaml->params[i].name);
            ox_json_object_end(j);
        }
    }
    ox_json_array_end(j);
}

static bool print_json(FILE *out, const ox_context *ctx, int opset, const row *rows, size_t n)
{
    const ox_opset_db *db = ctx->opsets;
    ox_json j;
    ox_json_init(&j, out);
    ox_json_document(&j, "ops");
    ox_json_key(&j, "opset");
    ox_json_int(&j, opset);
    ox_json_key(&j, "descriptors");
    ox_json_object(&j);
    ox_json_key(&j, "dir");
    ox_json_string(&j, ox_context_opset_dir(ctx));
    ox_json_key(&j, "min_opset");
    ox_json_int(&j, ox_opset_db_min(db));
    ox_json_key(&j, "max_opset");
    ox_json_int(&j, ox_opset_db_max(db));
    ox_json_object_end(&j);
    ox_json_key(&j, "packs");
    ox_json_array(&j);
    const ox_plugin_info *const *plugins = NULL;
    size_t n_plugins = ctx->registry ? ox_registry_plugins(ctx->registry, &plugins) : 0;
    for (size_t i = 0; i < n_plugins; i++) {
        ox_json_object(&j);
        ox_json_key(&j, "name");
        ox_json_string(&j, plugins[i]->desc->name);
        ox_json_key(&j, "version");
        ox_json_string(&j, plugins[i]->desc->version);
        ox_json_key(&j, "path");
        ox_json_string(&j, plugins[i]->path);
        ox_json_object_end(&j);
    }
    ox_json_array_end(&j);
    ox_json_key(&j, "operators");
    ox_json_array(&j);
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        ox_json_object(&j);
        ox_json_key(&j, "name");
        ox_json_string(&j, r->name);
        ox_json_key(&j, "doc");
        ox_json_string(&j, r->yaml ? r->yaml->doc : NULL);
        ox_json_key(&j, "params");
        json_params(&j, r);
        ox_json_key(&j, "supported");
        ox_json_bool(&j, r->impl && !r->disabled);
        ox_json_key(&j, "symbolic");
        if (r->impl) {
            ox_json_object(&j);
            ox_json_key(&j, "pack");
            ox_json_string(&j, pack_name(r->impl));
            ox_json_key(&j, "since_opset");
            ox_json_int(&j, r->impl->decl->since_opset);
            ox_json_object_end(&j);
        } else {
            ox_json_null(&j);
        }
        ox_json_key(&j, "symbolic_from_opset");
        if (!r->impl && r->later_since)
            ox_json_int(&j, r->later_since);
        else
            ox_json_null(&j);
        ox_json_key(&j, "descriptor");
        if (r->yaml) {
            char file[32];
            snprintf(file, sizeof file, "opset_%d.yaml", r->yaml->declared_in);
            ox_json_string(&j, file);
        } else {
            ox_json_null(&j);
        }
        ox_json_key(&j, "disabled_by");
        ox_json_string(&j, r->disabled ? ctx->config->path : NULL);
        ox_json_key(&j, "limitations");
        ox_json_array(&j);
        for (size_t k = 0; r->yaml && k < r->yaml->n_limitations; k++) {
            const ox_opset_limitation *l = &r->yaml->limitations[k];
            char what[512];
            ox_opset_limitation_describe(l, what, sizeof(what));
            int lift = ox_opset_db_limitation_lifted(db, opset, r->name, l);
            ox_json_object(&j);
            ox_json_key(&j, "when");
            ox_json_string(&j, what);
            ox_json_key(&j, "message");
            ox_json_string(&j, l->message);
            ox_json_key(&j, "lifted_at_opset");
            if (lift)
                ox_json_int(&j, lift);
            else
                ox_json_null(&j);
            ox_json_object_end(&j);
        }
        ox_json_array_end(&j);
        ox_json_object_end(&j);
    }
    ox_json_array_end(&j);
    return ox_json_finish(&j);
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 1000)
        return -1;
    *out = (int)v;
    return 0;
}

int cmd_ops(int argc, char **argv)
{
    int opset = 0;
    bool markdown = false, json = false;
    const char *config = NULL;
    const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
    size_t n_paths = 0;
    if (!paths) {
        fprintf(stderr, "oxport ops: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    int rc = OX_EXIT_OK;
    for (int i = 1; i < argc && rc == OX_EXIT_OK; i++) {
        const char *a = argv[i];
        bool takes = !strcmp(a, "--opset") || !strcmp(a, "--format") || !strcmp(a, "--config") ||
                     !strcmp(a, "--plugin-path");
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ops_usage(stdout);
            free(paths);
            return OX_EXIT_OK;
        }
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "oxport ops: %s needs a value\n", a);
            rc = OX_EXIT_USAGE;
            break;
        }
        if (!strcmp(a, "--opset")) {
            if (parse_int(argv[++i], &opset) != 0) {
                fprintf(stderr, "oxport ops: --opset expects a positive opset number, got '%s'\n",
                        argv[i]);
                rc = OX_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--format")) {
            const char *f = argv[++i];
            if (!strcmp(f, "markdown") || !strcmp(f, "md")) {
                markdown = true;
                json = false;
            } else if (!strcmp(f, "text")) {
                markdown = json = false;
            } else if (!strcmp(f, "json")) {
                json = true;
                markdown = false;
            } else {
                fprintf(stderr, "oxport ops: --format expects text, markdown or json, got '%s'\n",
                        f);
                rc = OX_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--config")) {
            config = argv[++i];
        } else if (!strcmp(a, "--plugin-path")) {
            paths[n_paths++] = argv[++i];
        } else {
            fprintf(stderr, "oxport ops: unknown %s '%s'\n", a[0] == '-' ? "option" : "argument",
                    a);
            rc = OX_EXIT_USAGE;
        }
    }
    if (rc != OX_EXIT_OK) {
        ops_usage(stderr);
        free(paths);
        return rc;
    }

    ox_context *ctx = NULL;
    if (ox_context_new(0, &ctx) != OX_OK) {
        free(paths);
        fprintf(stderr, "oxport ops: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    ox_status st = OX_OK;
    if (config)
        st = ox_context_load_config(ctx, config);
    for (size_t i = 0; i < n_paths && st == OX_OK; i++)
        st = ox_context_add_plugin_path(ctx, paths[i]);
    free(paths);
    if (st == OX_OK)
        st = ox_context_load(ctx);
    if (st == OX_OK && !ctx->opsets)
        st = ox_fail(ctx, OX_ECONFIG, "no opset descriptors are loaded");
    if (st != OX_OK) {
        fprintf(stderr, "oxport ops: %s\n", ox_errmsg(ctx));
        ox_context_free(ctx);
        return OX_EXIT_USAGE;
    }
    const ox_opset_db *db = ctx->opsets;
    if (!opset)
        opset = ox_context_target_opset(ctx);
    int lo = ox_opset_db_min(db), hi = ox_opset_db_max(db);
    if (ctx->config && ctx->config->min_opset)
        lo = ctx->config->min_opset;
    if (ctx->config && ctx->config->max_opset)
        hi = ctx->config->max_opset;
    if (opset < lo || opset > hi || opset < ox_opset_db_min(db)) {
        fprintf(stderr, "oxport ops: opset %d is outside the enabled range %d..%d%s%s\n", opset,
                lo, hi, ctx->config ? " set by " : "", ctx->config ? ctx->config->path : "");
        ox_context_free(ctx);
        return OX_EXIT_USAGE;
    }

    const ox_opset_op *const *yops;
    size_t n_yops = ox_opset_db_ops(db, opset, &yops);
    const ox_op_impl *const *impls = NULL;
    size_t n_impls = ctx->registry ? ox_registry_ops(ctx->registry, &impls) : 0;
    row *rows = calloc(n_yops + n_impls + 1, sizeof(*rows));
    if (!rows) {
        fprintf(stderr, "oxport ops: out of memory\n");
        ox_context_free(ctx);
        return OX_EXIT_FAILURE;
    }
    size_t n = 0;
    for (size_t i = 0; i < n_yops; i++) {
        row *r = &rows[n++];
        r->name = yops[i]->name;
        r->yaml = yops[i];
    }
    /* Pack operators without a descriptor: sorted by name, so each name's
     * implementations are adjacent. */
    for (size_t i = 0; i < n_impls; i++) {
        const char *name = impls[i]->decl->name;
        if (i > 0 && !strcmp(impls[i - 1]->decl->name, name))
            continue;
        const ox_opset_op *described = ox_opset_db_lookup(db, opset, name);
        if (described && !strcmp(described->name, name))
            continue;
        if (!ox_registry_find(ctx->registry, name, opset))
            continue; /* not at this opset and not described: not listed */
        rows[n++].name = name;
    }
    for (size_t i = 0; i < n; i++) {
        row *r = &rows[i];
        r->impl = ctx->registry ? ox_registry_find(ctx->registry, r->name, opset) : NULL;
        if (!r->impl && ctx->registry)
            r->later_since = ox_registry_lowest_since(ctx->registry, r->name);
        r->disabled = is_disabled(ctx, r->name);
    }
    qsort(rows, n, sizeof(*rows), cmp_row);
    if (json)
        print_json(stdout, ctx, opset, rows, n);
    else if (markdown)
        print_markdown(stdout, ctx, opset, rows, n);
    else
        print_text(stdout, ctx, opset, rows, n);
    free(rows);
    ox_context_free(ctx);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "oxport ops: could not write the listing\n");
        return OX_EXIT_FAILURE;
    }
    return OX_EXIT_OK;
}
