/*
 * oxport ops [--opset N] [--format text|markdown|json] [--config FILE]
 *            [--plugin-path DIR]... : list the operators supported at an
 * opset, joining the YAML descriptors with the loaded symbolic packs
 * (the engine's introspection calls, oxport.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oxport/json.h>
#include <oxport/oxport.h>

#include "commands.h"

static void ops_usage(FILE *out)
{
    fprintf(out,
            "usage: oxport ops [--opset N] [--format text|markdown|json] [--excluded]\n"
            "                  [--config FILE] [--plugin-path DIR]...\n\n"
            "List the operators supported at an opset: their parameters, the pack and\n"
            "since-opset of the symbolic used, each limitation with its message and the\n"
            "opset that lifts it, and operators a pack converts without a descriptor.\n\n"
            "options:\n"
            "  --opset N          target opset (default: the config's target_opset, else %d)\n"
            "  --format FORMAT    text (default), markdown (the operators document) or\n"
            "                     json (docs/json-output.md)\n"
            "  --excluded         list only the operators the descriptors exclude (not\n"
            "                     exported on purpose), each with the reason\n"
            "  --config FILE      user config (oxport.yaml): target, plugin dirs, disabled ops\n"
            "  --plugin-path DIR  also load the packs in DIR (or one .so); repeatable\n"
            "  -h, --help         show this help\n\n"
            "environment: OXPORT_PLUGIN_PATH, OXPORT_OPSET_DIR, OXPORT_NO_DEFAULT_PLUGINDIR\n"
            "exit status: 0 listed, 2 usage error or descriptors/packs that fail to load,\n"
            "3 write error\n",
            OX_DEFAULT_OPSET);
}

/* One row of the listing: the operator at the opset and its pack's
 * implementation, when it has one. */
typedef struct row {
    ox_opset_op_info op;
    ox_op_info impl; /* valid when op.has_symbolic */
} row;

/* What every printer needs: the context, the opset and its rows. */
typedef struct listing {
    ox_context *ctx;
    int opset;
    row *rows;
    size_t n;
} listing;

/* "self: tensor, kernel_size: ints, stride: ints? = [1, 1]" from the pack's
 * declaration (the operator's one schema), else the names the descriptor
 * lists. */
static void print_params(FILE *out, const listing *l, size_t i)
{
    bool declared = l->rows[i].op.has_symbolic;
    for (size_t p = 0; p < l->rows[i].op.n_params; p++) {
        ox_param_info pi = OX_INFO_INIT(ox_param_info);
        if (ox_context_opset_param(l->ctx, l->opset, i, p, &pi) != OX_OK)
            break;
        if (!declared) {
            fprintf(out, "%s%s", p ? ", " : "", pi.name);
            continue;
        }
        fprintf(out, "%s%s: %s%s%s", p ? ", " : "", pi.name, pi.kind_text,
                pi.default_value ? " = " : "", pi.default_value ? pi.default_value : "");
    }
}

static bool limitation(const listing *l, size_t i, size_t k, ox_limitation_info *out)
{
    out->struct_size = sizeof *out;
    return ox_context_opset_limitation(l->ctx, l->opset, i, k, out) == OX_OK;
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

static void print_text(FILE *out, const listing *l)
{
    int min_opset = 0, max_opset = 0;
    const char *dir = "";
    ox_context_opset_info(l->ctx, &min_opset, &max_opset, &dir);
    size_t n_packs = 0;
    ox_context_pack_count(l->ctx, &n_packs);
    fprintf(out, "Operators at opset %d (descriptors: %s, opsets %d..%d; packs:", l->opset, dir,
            min_opset, max_opset);
    for (size_t i = 0; i < n_packs; i++) {
        ox_pack_info pk = OX_INFO_INIT(ox_pack_info);
        ox_context_pack(l->ctx, i, &pk);
        fprintf(out, " %s %s%s", pk.name, pk.version, i + 1 < n_packs ? "," : "");
    }
    fprintf(out, "%s)\n", n_packs ? "" : " none");
    size_t from_yaml = 0, pack_only = 0, missing = 0, disabled = 0;
    for (size_t i = 0; i < l->n; i++) {
        const row *r = &l->rows[i];
        fprintf(out, "\n%s", r->op.name);
        if (r->op.doc)
            fprintf(out, " - %s", r->op.doc);
        fprintf(out, "\n  params:     ");
        print_params(out, l, i);
        fprintf(out, "\n  symbolic:   ");
        if (r->op.has_symbolic)
            fprintf(out, "%s, since opset %d", r->impl.pack_name, r->impl.since_opset);
        else if (r->op.symbolic_from_opset)
            fprintf(out, "none at this opset (a pack has one from opset %d)",
                    r->op.symbolic_from_opset);
        else
            fprintf(out, "none: no loaded pack converts it");
        if (!r->op.declared_in)
            fprintf(out, "\n  descriptor: none (only the pack's declaration applies)");
        else
            fprintf(out, "\n  descriptor: opset_%d.yaml", r->op.declared_in);
        if (r->op.disabled_by)
            fprintf(out, "\n  disabled:   by %s", r->op.disabled_by);
        for (size_t k = 0; k < r->op.n_limitations; k++) {
            ox_limitation_info li;
            if (!limitation(l, i, k, &li))
                break;
            fprintf(out, "\n  limitation: %s: %s", li.when, li.message);
            if (li.lifted_at_opset)
                fprintf(out, " (lifted at opset %d)", li.lifted_at_opset);
        }
        fputc('\n', out);
        if (r->op.disabled_by)
            disabled++;
        else if (!r->op.has_symbolic)
            missing++;
        else if (r->op.declared_in)
            from_yaml++;
        else
            pack_only++;
    }
    fprintf(out,
            "\n%zu supported (%zu with a descriptor, %zu from packs only); %zu disabled; %zu "
            "without a symbolic\n",
            from_yaml + pack_only, from_yaml, pack_only, disabled, missing);
}

static void print_markdown(FILE *out, const listing *l)
{
    size_t supported = 0;
    for (size_t i = 0; i < l->n; i++)
        supported += l->rows[i].op.supported != 0;
    fprintf(out, "## Opset %d\n\n", l->opset);
    fprintf(out, "The following %zu operators are supported at opset %d.\n\n", supported,
            l->opset);
    for (size_t i = 0; i < l->n; i++) {
        const row *r = &l->rows[i];
        if (!r->op.supported)
            continue;
        fprintf(out, "- `%s(", r->op.name);
        print_params(out, l, i);
        fprintf(out, ")`");
        if (r->op.doc) {
            fprintf(out, ": ");
            md_text(out, r->op.doc);
        }
        fprintf(out, " (symbolic `%s` since opset %d%s)\n", r->impl.pack_name,
                r->impl.since_opset,
                r->op.declared_in ? "" : "; no descriptor: only the pack's declaration applies");
        for (size_t k = 0; k < r->op.n_limitations; k++) {
            ox_limitation_info li;
            if (!limitation(l, i, k, &li))
                break;
            fprintf(out, "  - not supported: `%s`: ", li.when);
            md_text(out, li.message);
            if (li.lifted_at_opset)
                fprintf(out, " (supported from opset %d)", li.lifted_at_opset);
            fputc('\n', out);
        }
    }
    bool header = false;
    for (size_t i = 0; i < l->n; i++) {
        const row *r = &l->rows[i];
        if (r->op.supported)
            continue;
        if (!header) {
            fprintf(out, "\nNot exported at opset %d:\n\n", l->opset);
            header = true;
        }
        fprintf(out, "- `%s`: ", r->op.name);
        if (r->op.disabled_by)
            fprintf(out, "disabled by the config\n");
        else if (r->op.symbolic_from_opset)
            fprintf(out, "supported from opset %d\n", r->op.symbolic_from_opset);
        else
            fprintf(out, "declared in the descriptors, but no loaded pack converts it\n");
    }
}

static void json_params(ox_json *j, const listing *l, size_t i)
{
    bool declared = l->rows[i].op.has_symbolic;
    ox_json_array(j);
    for (size_t p = 0; p < l->rows[i].op.n_params; p++) {
        ox_param_info pi = OX_INFO_INIT(ox_param_info);
        if (ox_context_opset_param(l->ctx, l->opset, i, p, &pi) != OX_OK)
            break;
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, pi.name);
        if (declared) {
            ox_json_key(j, "kind");
            ox_json_string(j, ox_arg_kind_name(pi.kind));
            ox_json_key(j, "alt_kinds");
            ox_json_array(j);
            for (int k = OX_ARG_TENSOR; k <= OX_ARG_TENSOR_OR_SCALAR; k++)
                if (pi.alt_kinds & OX_KIND_BIT(k))
                    ox_json_string(j, ox_arg_kind_name((ox_arg_kind)k));
            ox_json_array_end(j);
            ox_json_key(j, "optional");
            ox_json_bool(j, pi.optional);
            ox_json_key(j, "default");
            ox_json_string(j, pi.default_value);
        }
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
}

static void json_exclusions(ox_json *j, const listing *l);

static bool print_json(FILE *out, const listing *l)
{
    ox_json *j = ox_json_new(out);
    if (!j)
        return false;
    int min_opset = 0, max_opset = 0;
    const char *dir = "";
    ox_context_opset_info(l->ctx, &min_opset, &max_opset, &dir);
    ox_json_document(j, "ops");
    ox_json_key(j, "opset");
    ox_json_int(j, l->opset);
    ox_json_key(j, "descriptors");
    ox_json_object(j);
    ox_json_key(j, "dir");
    ox_json_string(j, dir);
    ox_json_key(j, "min_opset");
    ox_json_int(j, min_opset);
    ox_json_key(j, "max_opset");
    ox_json_int(j, max_opset);
    ox_json_object_end(j);
    ox_json_key(j, "packs");
    ox_json_array(j);
    size_t n_packs = 0;
    ox_context_pack_count(l->ctx, &n_packs);
    for (size_t i = 0; i < n_packs; i++) {
        ox_pack_info pk = OX_INFO_INIT(ox_pack_info);
        ox_context_pack(l->ctx, i, &pk);
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, pk.name);
        ox_json_key(j, "version");
        ox_json_string(j, pk.version);
        ox_json_key(j, "path");
        ox_json_string(j, pk.path);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    ox_json_key(j, "operators");
    ox_json_array(j);
    for (size_t i = 0; i < l->n; i++) {
        const row *r = &l->rows[i];
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, r->op.name);
        ox_json_key(j, "doc");
        ox_json_string(j, r->op.doc);
        ox_json_key(j, "params");
        json_params(j, l, i);
        ox_json_key(j, "supported");
        ox_json_bool(j, r->op.supported);
        ox_json_key(j, "symbolic");
        if (r->op.has_symbolic) {
            ox_json_object(j);
            ox_json_key(j, "pack");
            ox_json_string(j, r->impl.pack_name);
            ox_json_key(j, "since_opset");
            ox_json_int(j, r->impl.since_opset);
            ox_json_key(j, "n_outputs");
            ox_json_uint(j, r->impl.n_outputs);
            ox_json_object_end(j);
        } else {
            ox_json_null(j);
        }
        ox_json_key(j, "symbolic_from_opset");
        if (r->op.symbolic_from_opset)
            ox_json_int(j, r->op.symbolic_from_opset);
        else
            ox_json_null(j);
        ox_json_key(j, "descriptor");
        if (r->op.declared_in) {
            char file[32];
            snprintf(file, sizeof file, "opset_%d.yaml", r->op.declared_in);
            ox_json_string(j, file);
        } else {
            ox_json_null(j);
        }
        ox_json_key(j, "disabled_by");
        ox_json_string(j, r->op.disabled_by);
        ox_json_key(j, "limitations");
        ox_json_array(j);
        for (size_t k = 0; k < r->op.n_limitations; k++) {
            ox_limitation_info li;
            if (!limitation(l, i, k, &li))
                break;
            ox_json_object(j);
            ox_json_key(j, "when");
            ox_json_string(j, li.when);
            ox_json_key(j, "message");
            ox_json_string(j, li.message);
            ox_json_key(j, "lifted_at_opset");
            if (li.lifted_at_opset)
                ox_json_int(j, li.lifted_at_opset);
            else
                ox_json_null(j);
            ox_json_object_end(j);
        }
        ox_json_array_end(j);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    json_exclusions(j, l);
    bool ok = ox_json_finish(j);
    ox_json_free(j);
    return ok;
}

/* ------------------------------------------------------------ exclusions */

static bool exclusion(const listing *l, size_t i, ox_exclusion_info *out)
{
    out->struct_size = sizeof *out;
    return ox_context_exclusion(l->ctx, l->opset, i, out) == OX_OK;
}

static size_t n_exclusions(const listing *l)
{
    size_t n = 0;
    return ox_context_exclusion_count(l->ctx, l->opset, &n) == OX_OK ? n : 0;
}

static void print_exclusions_text(FILE *out, const listing *l)
{
    size_t n = n_exclusions(l);
    fprintf(out, "%zu operators are not exported at opset %d, on purpose:\n", n, l->opset);
    for (size_t i = 0; i < n; i++) {
        ox_exclusion_info e;
        if (!exclusion(l, i, &e))
            break;
        fprintf(out, "\n%s\n  reason:     %s\n  descriptor: opset_%d.yaml\n", e.name, e.reason,
                e.declared_in);
    }
}

static void print_exclusions_markdown(FILE *out, const listing *l)
{
    size_t n = n_exclusions(l);
    fprintf(out, "## Not exported, on purpose\n\n");
    fprintf(out, "The %zu operators below are excluded by the opset descriptors (their "
                 "`excluded:` maps); an export that meets one is refused with the reason.\n\n", n);
    for (size_t i = 0; i < n; i++) {
        ox_exclusion_info e;
        if (!exclusion(l, i, &e))
            break;
        fprintf(out, "- `%s`: ", e.name);
        md_text(out, e.reason);
        fputc('\n', out);
    }
}

static void json_exclusions(ox_json *j, const listing *l)
{
    ox_json_key(j, "excluded");
    ox_json_array(j);
    for (size_t i = 0, n = n_exclusions(l); i < n; i++) {
        ox_exclusion_info e;
        if (!exclusion(l, i, &e))
            break;
        char file[32];
        snprintf(file, sizeof file, "opset_%d.yaml", e.declared_in);
        ox_json_object(j);
        ox_json_key(j, "name");
        ox_json_string(j, e.name);
        ox_json_key(j, "reason");
        ox_json_string(j, e.reason);
        ox_json_key(j, "descriptor");
        ox_json_string(j, file);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
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
    bool markdown = false, json = false, excluded = false;
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
        } else if (!strcmp(a, "--excluded")) {
            excluded = true;
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
    int min_opset = 0, lo = 0, hi = 0;
    const char *range_src = NULL;
    if (st == OX_OK)
        st = ox_context_load(ctx);
    if (st == OX_OK)
        st = ox_context_opset_info(ctx, &min_opset, NULL, NULL);
    if (st != OX_OK) {
        fprintf(stderr, "oxport ops: %s\n", ox_errmsg(ctx));
        ox_context_free(ctx);
        return OX_EXIT_USAGE;
    }
    if (!opset)
        opset = ox_context_target_opset(ctx);
    ox_context_opset_range(ctx, &lo, &hi, &range_src);
    if (opset < lo || opset > hi || opset < min_opset) {
        bool by_descriptors = !strcmp(range_src, "the opset descriptors");
        fprintf(stderr, "oxport ops: opset %d is outside the enabled range %d..%d%s%s\n", opset,
                lo, hi, by_descriptors ? "" : " set by ", by_descriptors ? "" : range_src);
        ox_context_free(ctx);
        return OX_EXIT_USAGE;
    }

    listing l = {ctx, opset, NULL, 0};
    if (ox_context_opset_op_count(ctx, opset, &l.n) != OX_OK ||
        !(l.rows = calloc(l.n + 1, sizeof *l.rows))) {
        fprintf(stderr, "oxport ops: %s\n", l.n ? "out of memory" : ox_errmsg(ctx));
        ox_context_free(ctx);
        return OX_EXIT_FAILURE;
    }
    for (size_t i = 0; i < l.n && st == OX_OK; i++) {
        row *r = &l.rows[i];
        r->op.struct_size = sizeof r->op;
        r->impl.struct_size = sizeof r->impl;
        st = ox_context_opset_op(ctx, opset, i, &r->op);
        if (st == OX_OK && r->op.has_symbolic)
            st = ox_context_op(ctx, r->op.op, &r->impl);
    }
    if (st != OX_OK) {
        fprintf(stderr, "oxport ops: %s\n", ox_errmsg(ctx));
        free(l.rows);
        ox_context_free(ctx);
        return OX_EXIT_FAILURE;
    }
    if (json)
        print_json(stdout, &l);
    else if (excluded && markdown)
        print_exclusions_markdown(stdout, &l);
    else if (excluded)
        print_exclusions_text(stdout, &l);
    else if (markdown)
        print_markdown(stdout, &l);
    else
        print_text(stdout, &l);
    free(l.rows);
    ox_context_free(ctx);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "oxport ops: could not write the listing\n");
        return OX_EXIT_FAILURE;
    }
    return OX_EXIT_OK;
}
