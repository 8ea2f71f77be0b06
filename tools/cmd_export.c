/*
 * `oxport export MODEL`: run a zoo model on the C reference host while
 * tracing it, then convert and write the ONNX file (and, optionally, the
 * ONNX backend-test layout with the host's own inputs and outputs).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <stdbool.h>
#include <unistd.h>

#include <oxport/oxport.h>

#include "commands.h"
#include "output_paths.h"
#include "tensor_proto.h"
#include "weights_file.h"
#include "zoo/zoo.h"

#define MAX_PLUGIN_PATHS 32
#define MAX_NAMES 4096

typedef struct export_args {
    const char *model;
    const char *output;
    const char *test_data;
    const char *config;
    const char *plugin_paths[MAX_PLUGIN_PATHS];
    size_t n_plugin_paths;
    char *input_names_buf, *output_names_buf, *function_types_buf;
    const char *function_types[MAX_NAMES]; /* --functions: module types */
    size_t n_function_types;
    const char *input_names[MAX_NAMES];
    size_t n_input_names;
    const char *output_names[MAX_NAMES];
    size_t n_output_names;
    int opset;
    long batch;
    unsigned long long seed;
    int verbose, no_params, no_check, keep_inits, external_data, sync, direct_io, list, help;
    int shape_only;             /* --shape-only: trace without computing */
    const char *weights;        /* --weights FILE: parameters from a weights file */
    const char *save_weights;   /* --save-weights FILE: write one instead of exporting */
    ox_dtype weights_dtype;     /* --weights-dtype, for --save-weights */
    const char *decoder_config; /* --decoder-config k=v,... */
    const char *report; /* --report FILE.json (export_report.h) */
} export_args;

/* The export's warnings (ox_context_warnings) or notes (ox_context_notes),
 * one stderr line each, after "warning: " or "note: ". */
static void print_lines(const char *model, const char *what, const char *lines)
{
    while (*lines) {
        const char *end = strchr(lines, '\n');
        int len = (int)(end ? (size_t)(end - lines) : strlen(lines));
        fprintf(stderr, "oxport export: %s: %s: %.*s\n", model, what, len, lines);
        lines += len + (end ? 1 : 0);
    }
}

static void usage(FILE *f)
{
    fputs("usage: oxport export MODEL -o FILE.onnx [options]\n"
          "       oxport export MODEL --test-data DIR [options]\n"
          "       oxport export --list\n"
          "\n"
          "Run MODEL from the C reference host's zoo once, record every operator,\n"
          "and write it as ONNX.\n"
          "\n"
          "options:\n"
          "  -o, --output FILE              ONNX file to write\n"
          "  --opset N                      target opset (default: config, else 13)\n"
          "  --batch N                      batch size of the example input (default 1)\n"
          "  --input-names a,b,...          names for the graph inputs (then parameters\n"
          "                                 when they are kept as inputs)\n"
          "  --output-names y,...           names for the graph outputs\n"
          "  --functions TYPE,...           write each instance of these module types\n"
          "                                 (scope segments TYPE[...], or domain::TYPE)\n"
          "                                 as a call of an ONNX local function (opset 15+)\n"
          "  --verbose                      print the exported graph on stdout\n"
          "  --no-params                    do not write the weights\n"
          "  --no-check                     write without running the checker first\n"
          "  --keep-initializers-as-inputs  list parameters as graph inputs too\n"
          "  --external-data                store weights in a side file next to FILE.onnx\n"
          "  --sync                         fsync the files before exiting, so the export\n"
          "                                 survives a power loss (default: config's sync)\n"
          "  --direct-io                    write files past 8 MiB with direct I/O, skipping\n"
          "                                 the page cache: faster where the page cache is\n"
          "                                 slow to grow, slower on a slow disk (default:\n"
          "                                 config's direct_io, else on with --sync)\n"
          "  --no-direct-io                 never write with direct I/O, --sync included\n"
          "  --test-data DIR                write DIR/model.onnx and the host's inputs and\n"
          "                                 outputs as DIR/test_data_set_0/*.pb (the traced\n"
          "                                 example) and test_data_set_1/*.pb (other input\n"
          "                                 values, same shapes)\n"
          "  --config FILE                  oxport.yaml: opset, plugin dirs, disabled ops\n"
          "  --plugin-path DIR              extra symbolic pack directory or .so (repeatable)\n"
          "  --seed N                       weight seed (default 0)\n"
          "  --shape-only                   trace with shape functions only: no kernel runs\n"
          "                                 and no weight is loaded (needs --weights, or\n"
          "                                 --no-params; models that support it: decoder)\n"
          "  --weights FILE                 take the parameters from a safetensors-layout\n"
          "                                 file (names and shapes must match; F32 or F16);\n"
          "                                 the engine reads them while writing\n"
          "  --save-weights FILE            write the model's weights (its deterministic\n"
          "                                 initialisation, --seed) to FILE, chunk by chunk,\n"
          "                                 and export nothing\n"
          "  --weights-dtype float32|float16  element type --save-weights writes (float32)\n"
          "  --decoder-config K=V,...       the decoder's size: layers, dim, hidden, heads,\n"
          "                                 vocab, seq, rope (0|1), eps\n"
          "  --report FILE.json|FILE.html   also write what happened: problems grouped, time\n"
          "                                 per stage, a summary of the file; the HTML page\n"
          "                                 adds ops by module and the graph; '-': JSON on stdout\n"
          "  --list                         list the zoo's models\n"
          "  -h, --help                     this help\n"
          "\n"
          "exit status: 0 written, 1 unsupported operators (report on stderr),\n"
          "2 usage or unreadable config/plugins, 3 failure while tracing or writing.\n",
          f);
}

/* Split the comma list of option `opt` in place into names[]: the count, or
 * -1 after saying why (an empty name, as in "a,,b" or ",a", or more than
 * max names). */
static long split_names(const char *opt, char *buf, const char **names, size_t max)
{
    size_t n = 0;
    for (char *tok = buf;; n++) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        if (!tok[0]) {
            fprintf(stderr, "oxport export: %s: name %zu is empty; give a comma-separated list "
                            "of names such as 'a,b'\n", opt, n + 1);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "oxport export: %s: at most %zu names\n", opt, max);
            return -1;
        }
        names[n] = tok;
        if (!comma)
            return (long)n + 1;
        tok = comma + 1;
    }
}

/* Option `opt`'s comma list `val` into names[] (*n of them), split in a copy
 * held in *buf (a repeated option replaces it).  0, or -1 after saying why. */
static int set_names(const char *opt, const char *val, char **buf, const char **names,
                     size_t *n)
{
    free(*buf);
    if (!(*buf = strdup(val)))
        return -1;
    long k = split_names(opt, *buf, names, MAX_NAMES);
    if (k < 0)
        return -1;
    *n = (size_t)k;
    return 0;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "oxport export: %s expects an integer in [%ld, %ld], got '%s'\n", opt, lo,
                hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, export_args *a)
{
    memset(a, 0, sizeof *a);
    a->batch = 1;
    a->weights_dtype = OX_FLOAT;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = NULL;
#define NEEDS_VALUE()                                                                  \
    do {                                                                               \
        if (i + 1 >= argc) {                                                           \
            fprintf(stderr, "oxport export: option %s needs a value\n", s);            \
            return -1;                                                                 \
        }                                                                              \
        val = argv[++i];                                                               \
    } while (0)
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            a->help = 1;
        } else if (!strcmp(s, "--list")) {
            a->list = 1;
        } else if (!strcmp(s, "-o") || !strcmp(s, "--output")) {
            NEEDS_VALUE();
            a->output = val;
        } else if (!strcmp(s, "--opset")) {
            long v;
            NEEDS_VALUE();
            if (parse_long(s, val, 1, 1000, &v))
                return -1;
            a->opset = (int)v;
        } else if (!strcmp(s, "--batch")) {
            NEEDS_VALUE();
            if (parse_long(s, val, 1, 4096, &a->batch))
                return -1;
        } else if (!strcmp(s, "--seed")) {
            long v;
            NEEDS_VALUE();
            if (parse_long(s, val, 0, 0x7fffffffL, &v))
                return -1;
            a->seed = (unsigned long long)v;
        } else if (!strcmp(s, "--input-names")) {
            NEEDS_VALUE();
            if (set_names(s, val, &a->input_names_buf, a->input_names, &a->n_input_names) != 0)
                return -1;
        } else if (!strcmp(s, "--output-names")) {
            NEEDS_VALUE();
            if (set_names(s, val, &a->output_names_buf, a->output_names, &a->n_output_names) != 0)
                return -1;
        } else if (!strcmp(s, "--functions")) {
            NEEDS_VALUE();
            if (set_names(s, val, &a->function_types_buf, a->function_types, &a->n_function_types) != 0)
                return -1;
        } else if (!strcmp(s, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(s, "--no-params")) {
            a->no_params = 1;
        } else if (!strcmp(s, "--no-check")) {
            a->no_check = 1;
        } else if (!strcmp(s, "--keep-initializers-as-inputs")) {
            a->keep_inits = 1;
        } else if (!strcmp(s, "--external-data")) {
            a->external_data = 1;
        } else if (!strcmp(s, "--sync")) {
            a->sync = 1;
        } else if (!strcmp(s, "--direct-io")) {
            a->direct_io = 1;
        } else if (!strcmp(s, "--no-direct-io")) {
            a->direct_io = -1;
        } else if (!strcmp(s, "--shape-only")) {
            a->shape_only = 1;
        } else if (!strcmp(s, "--weights")) {
            NEEDS_VALUE();
            a->weights = val;
        } else if (!strcmp(s, "--save-weights")) {
            NEEDS_VALUE();
            a->save_weights = val;
        } else if (!strcmp(s, "--weights-dtype")) {
            NEEDS_VALUE();
            if (!strcmp(val, "float32")) {
                a->weights_dtype = OX_FLOAT;
            } else if (!strcmp(val, "float16")) {
                a->weights_dtype = OX_FLOAT16;
            } else {
                fprintf(stderr, "oxport export: --weights-dtype is float32 or float16, got "
                                "'%s'\n", val);
                return -1;
            }
        } else if (!strcmp(s, "--decoder-config")) {
            NEEDS_VALUE();
            a->decoder_config = val;
        } else if (!strcmp(s, "--test-data")) {
            NEEDS_VALUE();
            a->test_data = val;
        } else if (!strcmp(s, "--config")) {
            NEEDS_VALUE();
            a->config = val;
        } else if (!strcmp(s, "--report")) {
            NEEDS_VALUE();
            if (!ox_export_report_format(val)) {
                fprintf(stderr, "oxport export: --report writes JSON or HTML: name the file "
                                "*.json or *.html (or '-' for JSON on standard output), got "
                                "'%s'\n", val);
                return -1;
            }
            a->report = val;
        } else if (!strcmp(s, "--plugin-path")) {
            NEEDS_VALUE();
            if (a->n_plugin_paths == MAX_PLUGIN_PATHS) {
                fprintf(stderr, "oxport export: at most %d --plugin-path options\n",
                        MAX_PLUGIN_PATHS);
                return -1;
            }
            a->plugin_paths[a->n_plugin_paths++] = val;
        } else if (s[0] == '-' && s[1] != '\0') {
            fprintf(stderr, "oxport export: unknown option '%s' (see oxport export --help)\n", s);
            return -1;
        } else if (!a->model) {
            a->model = s;
        } else {
            fprintf(stderr, "oxport export: unexpected argument '%s' (one MODEL only)\n", s);
            return -1;
        }
#undef NEEDS_VALUE
    }
    return 0;
}

static void format_count(size_t n, char *buf, size_t len)
{
    if (n >= 1000000)
        snprintf(buf, len, "%.1fM", (double)n / 1e6);
    else if (n >= 1000)
        snprintf(buf, len, "%.1fK", (double)n / 1e3);
    else
        snprintf(buf, len, "%zu", n);
}

static void format_shape(const hc_zoo_model *z, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < z->n_inputs && off < len; i++) {
        const hc_zoo_input *in = &z->inputs[i];
        off += (size_t)snprintf(buf + off, len - off, "%s%s[", i ? " " : "",
                                in->dtype == OX_INT64 ? "int64" : "float");
        for (uint32_t d = 0; d < in->rank && off < len; d++)
            off += (size_t)snprintf(buf + off, len - off, "%s%lld", d ? "," : "",
                                    (long long)in->sizes[d]);
        if (off < len)
            off += (size_t)snprintf(buf + off, len - off, "]");
    }
}

static int list_models(void)
{
    size_t n;
    const hc_zoo_model *const *all = hc_zoo_models(&n);
    printf("%-22s %10s  %-30s %s\n", "MODEL", "PARAMS", "INPUTS (batch 1)", "DESCRIPTION");
    for (size_t i = 0; i < n; i++) {
        hc_model m;
        char count[32] = "?", shape[128];
        if (hc_zoo_build(all[i], &m, 0, 1) == 0) {
            format_count(m.n_elements, count, sizeof count);
            hc_model_free(&m);
        }
        format_shape(all[i], shape, sizeof shape);
        printf("%-22s %10s  %-30s %s\n", all[i]->name, count, shape, all[i]->description);
    }
    return OX_EXIT_OK;
}

static int mkdir_p(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    return -1;
}

/* Remove what write_test_data may have written, so a failed bundle leaves
 * no half set of reference tensors behind. */
static void remove_test_data(const char *dir, size_t n_inputs, size_t n_outputs)
{
    char path[4200];
    for (size_t i = 0; i < n_inputs; i++) {
        snprintf(path, sizeof path, "%s/input_%zu.pb", dir, i);
        unlink(path);
    }
    for (size_t i = 0; i < n_outputs; i++) {
        snprintf(path, sizeof path, "%s/output_%zu.pb", dir, i);
        unlink(path);
    }
    rmdir(dir); /* only if it is now empty */
}

/* --test-data writes set 0 from the traced example and sets 1.. from untraced runs of
 * the same weights on other input values of the same shapes: a file that holds an
 * example value as a constant is right on set 0 only. */
#define N_TEST_SETS 2

static void test_set_dir(const export_args *a, unsigned set, char *dir, size_t len)
{
    snprintf(dir, len, "%s/test_data_set_%u", a->test_data, set);
}

/* Whether name is "<prefix>N.pb" with N >= count: a tensor this bundle does
 * not write. */
static bool stale_tensor(const char *name, const char *prefix, size_t count)
{
    size_t pl = strlen(prefix);
    unsigned long i;
    char tail[8];
    return strncmp(name, prefix, pl) == 0 && isdigit((unsigned char)name[pl]) &&
           sscanf(name + pl, "%lu%7s", &i, tail) == 2 && strcmp(tail, ".pb") == 0 && i >= count;
}

/* Remove the input_N.pb / output_N.pb of dir that this bundle does not write
 * (an earlier export of a model with more inputs left them): a runner reads
 * every one it finds. */
static void remove_stale_tensors(const char *dir, size_t n_inputs, size_t n_outputs)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096 + 256 + 2];
    while ((e = readdir(d))) {
        if (!stale_tensor(e->d_name, "input_", n_inputs) &&
            !stale_tensor(e->d_name, "output_", n_outputs))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static int write_test_set(const export_args *a, const hc_zoo_model *z, unsigned set,
                          hc_tensor **in, hc_tensor **out)
{
    char dir[4096], path[4200];
    test_set_dir(a, set, dir, sizeof dir);
    if (mkdir_p(dir) != 0) {
        fprintf(stderr, "oxport export: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    remove_stale_tensors(dir, z->n_inputs, z->n_outputs);
    for (size_t k = 0; k < z->n_inputs + z->n_outputs; k++) {
        bool is_in = k < z->n_inputs;
        size_t i = is_in ? k : k - z->n_inputs;
        snprintf(path, sizeof path, "%s/%s_%zu.pb", dir, is_in ? "input" : "output", i);
        const char *name = is_in ? (i < a->n_input_names ? a->input_names[i] : NULL)
                                 : (i < a->n_output_names ? a->output_names[i] : NULL);
        if (hc_write_tensor_proto(path, is_in ? in[i] : out[i], name) != 0) {
            fprintf(stderr, "oxport export: cannot write %s: %s\n", path, strerror(errno));
            remove_test_data(dir, z->n_inputs, z->n_outputs);
            return -1;
        }
    }
    return 0;
}

/* Run the model untraced on input set `set` and write that set. */
static int write_untraced_test_set(const export_args *a, const hc_zoo_model *z, hc_model *m,
                                   unsigned set)
{
    hc_rt rt;
    hc_rt_init(&rt, NULL, NULL);
    hc_tensor *in[HC_ZOO_MAX_IO] = {0}, *out[HC_ZOO_MAX_IO] = {0};
    int rc = -1;
    if (hc_zoo_run_set(z, m, &rt, a->batch, set, in, out) != 0 || rt.status != OX_OK)
        fprintf(stderr, "oxport export: running %s on test input set %u failed: %s\n", z->name,
                set, rt.status != OX_OK ? rt.errmsg : "the forward pass did not complete");
    else
        rc = write_test_set(a, z, set, in, out);
    hc_rt_release(&rt);
    return rc;
}

/* Write every test set, or none: a failure removes the sets already written. */
static int write_test_data(const export_args *a, const hc_zoo_model *z, hc_model *m,
                           hc_tensor **in, hc_tensor **out)
{
    unsigned set = 0;
    int rc = write_test_set(a, z, 0, in, out);
    while (rc == 0 && ++set < N_TEST_SETS)
        rc = write_untraced_test_set(a, z, m, set);
    if (rc != 0) {
        char dir[4096];
        for (unsigned done = 0; done < set; done++) {
            test_set_dir(a, done, dir, sizeof dir);
            remove_test_data(dir, z->n_inputs, z->n_outputs);
        }
    }
    return rc;
}

/* Remove the external data file written next to `model` by this export:
 * "<model name>.<16 hex digits>.data" (the writer names it by its content). */
static void remove_side_file(const char *model)
{
    const char *slash = strrchr(model, '/');
    const char *base = slash ? slash + 1 : model;
    size_t bl = strlen(base);
    char dir[4200];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - model) : 1, slash ? model : ".");
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *n = e->d_name;
        if (strlen(n) == bl + 1 + 16 + 5 && strncmp(n, base, bl) == 0 && n[bl] == '.' &&
            strspn(n + bl + 1, "0123456789abcdef") == 16 && strcmp(n + bl + 17, ".data") == 0) {
            char path[8500];
            snprintf(path, sizeof path, "%s/%s", dir, n);
            unlink(path);
        }
    }
    if (d)
        closedir(d);
}

/* Exit status for a failed engine call. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int exit_for(ox_status st)
{
    switch (st) {
    case OX_EUNSUPPORTED:
        return OX_EXIT_FINDINGS;
    case OX_EINVAL:
    case OX_ECONFIG:
    case OX_EPLUGIN:
    case OX_EFORMAT:
        return OX_EXIT_USAGE;
    default:
        return OX_EXIT_FAILURE;
    }
}

static int run_export(export_args *a, const hc_zoo_model *z)
{
    int tty = isatty(STDERR_FILENO);
    int rc = OX_EXIT_FAILURE;
    ox_context *ctx = NULL;
    ox_graph *graph = NULL;
    hc_model m;
    int have_model = 0;
    hc_rt rt;
    hc_rt_init(&rt, NULL, NULL);
    char path[4200];
    bool created_dir = false; /* --test-data's directory, made by this export */

    ox_status st = ox_context_new(0, &ctx);
    if (st != OX_OK) {
        fprintf(stderr, "oxport export: cannot create a context: %s\n", ox_strerror(st));
        return OX_EXIT_FAILURE;
    }
    for (size_t i = 0; i < a->n_plugin_paths; i++)
        if ((st = ox_context_add_plugin_path(ctx, a->plugin_paths[i])) != OX_OK) {
            fprintf(stderr, "oxport export: --plugin-path %s: %s\n", a->plugin_paths[i],
                    ox_errmsg(ctx));
            rc = st == OX_ENOMEM ? OX_EXIT_FAILURE : OX_EXIT_USAGE;
            goto done;
        }
    if (a->config && (st = ox_context_load_config(ctx, a->config)) != OX_OK) {
        fprintf(stderr, "oxport export: %s%s\n", ox_errmsg(ctx),
                st == OX_EIO ? "; check the --config path" : "");
        rc = st == OX_ENOMEM ? OX_EXIT_FAILURE : OX_EXIT_USAGE;
        goto done;
    }
    if ((st = ox_context_load(ctx)) != OX_OK) {
        fprintf(stderr, "oxport export: loading symbolic packs and opsets failed:\n%s\n%s",
                ox_errmsg(ctx),
                st == OX_EPLUGIN ? "fix or remove that path (--plugin-path, OXPORT_PLUGIN_PATH, "
                                   "plugin_dirs in the config); 'oxport plugins --check FILE.so' "
                                   "explains why a pack is rejected\n"
                                 : "");
        rc = st == OX_ENOMEM ? OX_EXIT_FAILURE : OX_EXIT_USAGE;
        goto done;
    }
    /* Refuse an opset out of range before building and running the model,
     * which can take seconds and gigabytes. */
    int lo, hi;
    const char *range_src;
    ox_context_opset_range(ctx, &lo, &hi, &range_src);
    if (a->opset && (a->opset < lo || a->opset > hi)) {
        fprintf(stderr, "oxport export: --opset %d is outside the enabled range %d..%d (set by "
                "%s); choose an opset from %d to %d\n", a->opset, lo, hi, range_src, lo, hi);
        rc = OX_EXIT_USAGE;
        goto done;
    }

    double t_start = now_seconds(), t_built, t_traced; /* for --report */
    if (tty)
        fprintf(stderr, "oxport: building %s...\n", z->name);
    if (hc_zoo_build(z, &m, a->seed, a->shape_only) != 0) {
        fprintf(stderr, "oxport export: out of memory building %s's weights\n", z->name);
        goto done;
    }
    have_model = 1;
    if (a->weights) {
        char err[1024];
        if (hc_weights_bind(&m, a->weights, err, sizeof err) != 0) {
            fprintf(stderr, "oxport export: --weights: %s\n", err);
            rc = OX_EXIT_USAGE;
            goto done;
        }
    }
    t_built = now_seconds();

    ox_trace *trace = NULL;
    if ((st = ox_trace_begin(ctx, z->trace_name, &trace)) != OX_OK) {
        fprintf(stderr, "oxport export: ox_trace_begin: %s\n", ox_errmsg(ctx));
        goto done;
    }
    hc_rt_init(&rt, ctx, trace);
    rt.shape_only = a->shape_only;
    hc_tensor *inputs[HC_ZOO_MAX_IO] = {0}, *outputs[HC_ZOO_MAX_IO] = {0};
    if (tty)
        fprintf(stderr, "oxport: running %s forward (batch %ld) with tracing...\n", z->name,
                a->batch);
    int frc = hc_zoo_run(z, &m, &rt, a->batch, inputs, outputs);
    if (frc != 0 || rt.status != OX_OK) {
        fprintf(stderr, "oxport export: tracing %s failed: %s\n", z->name,
                rt.status != OX_OK ? rt.errmsg : "the forward pass did not complete");
        ox_trace_abort(trace);
        goto done;
    }
    if ((st = ox_trace_finish(trace, &graph)) != OX_OK) {
        fprintf(stderr, "oxport export: ox_trace_finish: %s\n", ox_errmsg(ctx));
        goto done;
    }
    t_traced = now_seconds();

    const char *target = a->output;
    if (a->test_data) {
        created_dir = mkdir(a->test_data, 0777) == 0;
        if (!created_dir && errno != EEXIST) {
            fprintf(stderr, "oxport export: cannot create %s: %s\n", a->test_data,
                    strerror(errno));
            goto done;
        }
        snprintf(path, sizeof path, "%s/model.onnx", a->test_data);
        target = path;
    }

    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.opset = a->opset;
    opts.export_params = !a->no_params;
    opts.check = !a->no_check;
    if (a->keep_inits)
        opts.keep_initializers_as_inputs = 1;
    if (a->external_data)
        opts.external_data = 1;
    if (a->sync)
        opts.sync = 1;
    opts.direct_io = a->direct_io;
    opts.input_names = a->input_names;
    opts.n_input_names = a->n_input_names;
    opts.output_names = a->output_names;
    opts.n_output_names = a->n_output_names;
    opts.function_types = a->function_types;
    opts.n_function_types = a->n_function_types;
    opts.verbose = a->verbose ? stdout : NULL;
    if (tty)
        fprintf(stderr, "oxport: exporting to %s...\n", target);
    st = ox_export(ctx, graph, target, &opts);
    if (st != OX_OK)
        fprintf(stderr, "oxport export: %s: %s\n", z->name, ox_errmsg(ctx));
    else {
        print_lines(z->name, "warning", ox_context_warnings(ctx));
        print_lines(z->name, "note", ox_context_notes(ctx));
    }
    double t_exported = now_seconds();
    const char *stage_names[] = {"build weights", "run and trace", "convert and write"};
    const double stage_seconds[] = {t_built - t_start, t_traced - t_built,
                                    t_exported - t_traced};
    if (a->report &&
        ox_export_report_named(ctx, z->name, graph, target, a->opset, st, stage_names,
                               stage_seconds, 3, a->report) != OX_OK) {
        fprintf(stderr, "oxport export: %s\n", ox_errmsg(ctx));
        rc = OX_EXIT_FAILURE;
        goto done;
    }
    if (st != OX_OK) {
        rc = exit_for(st);
        goto done;
    }
    if (a->test_data && write_test_data(a, z, &m, inputs, outputs) != 0) {
        /* a bundle is whole or absent: without its test data the model goes too */
        unlink(target);
        if (a->external_data)
            remove_side_file(target);
        goto done;
    }
    if (tty)
        fprintf(stderr, "oxport: wrote %s\n", target);
    rc = OX_EXIT_OK;

done:
    if (rc != OX_EXIT_OK && created_dir)
        rmdir(a->test_data); /* the bundle's directory goes when this export made it empty */
    ox_graph_free(graph);
    hc_rt_release(&rt);
    if (have_model)
        hc_model_free(&m);
    ox_context_free(ctx);
    return rc;
}

/* --shape-only, --weights, --save-weights and --decoder-config: the
 * combinations that make sense, and the decoder's size applied. */
static int check_weight_options(const export_args *a, const hc_zoo_model *z)
{
    if (a->decoder_config) {
        char err[512];
        if (z != &hc_zoo_decoder) {
            fputs("oxport export: --decoder-config sizes the decoder model only\n", stderr);
            return OX_EXIT_USAGE;
        }
        if (hc_decoder_configure(a->decoder_config, err, sizeof err) != 0) {
            fprintf(stderr, "oxport export: --decoder-config: %s\n", err);
            return OX_EXIT_USAGE;
        }
        /* Each layer of the eager forward keeps about four batch x heads x seq x seq
         * float tensors (scores, mask, softmax and its input) alive until the export:
         * 1.15 GiB at seq=4000 with one layer, 2.17 GiB with two.  Say so up front
         * rather than run into the kernel's out-of-memory killer. */
        const hc_decoder_config *c = hc_decoder_current();
        double scores = (double)a->batch * (double)c->heads * (double)c->seq * (double)c->seq * 4.0;
        double need = scores * (4.0 * (double)c->layers + 1.0);
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        double ram = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
        if (!a->shape_only && !a->save_weights && ram > 0 && need > ram) {
            fprintf(stderr, "oxport export: --decoder-config: the forward at seq=%lld keeps about "
                            "%.1f GiB of attention scores (four batch x heads x seq x seq floats "
                            "a layer), more than this machine's %.1f GiB of memory; lower seq, or "
                            "trace without computing (--shape-only)\n",
                    (long long)c->seq, need / (1 << 30), ram / (1 << 30));
            return OX_EXIT_USAGE;
        }
    }
    if (a->shape_only && !z->shape_only) {
        fprintf(stderr, "oxport export: --shape-only: %s's forward uses kernels that need "
                "values; models that run shape-only: decoder\n", z->name);
        return OX_EXIT_USAGE;
    }
    if (a->shape_only && !a->weights && !a->no_params && !a->save_weights) {
        fputs("oxport export: --shape-only loads no weights: give --weights FILE (make one "
              "with --save-weights) or --no-params\n", stderr);
        return OX_EXIT_USAGE;
    }
    if (a->no_params && a->test_data) {
        fputs("oxport export: --test-data writes a bundle ONNX Runtime runs as it is; with "
              "--no-params the weights would be inputs it has no data for: leave out "
              "--no-params\n", stderr);
        return OX_EXIT_USAGE;
    }
    if (a->shape_only && a->test_data) {
        fputs("oxport export: --shape-only computes no outputs, so it cannot write "
              "--test-data\n", stderr);
        return OX_EXIT_USAGE;
    }
    if (a->weights && !a->shape_only) {
        fputs("oxport export: --weights needs --shape-only (the host's kernels compute from "
              "the weights they built)\n", stderr);
        return OX_EXIT_USAGE;
    }
    if (a->save_weights && (a->output || a->test_data || a->weights)) {
        fputs("oxport export: --save-weights writes a weights file and exports nothing; "
              "leave out -o, --test-data and --weights\n", stderr);
        return OX_EXIT_USAGE;
    }
    return OX_EXIT_OK;
}

/* The model's weights to a file, generated chunk by chunk from its
 * deterministic initialisation (never all in memory). */
static int save_weights(const export_args *a, const hc_zoo_model *z)
{
    hc_model m;
    if (hc_zoo_build(z, &m, a->seed, 1) != 0) {
        fprintf(stderr, "oxport export: out of memory building %s\n", z->name);
        return OX_EXIT_FAILURE;
    }
    char err[1024];
    int rc = hc_weights_save(&m, a->save_weights, a->weights_dtype, err, sizeof err);
    hc_model_free(&m);
    if (rc != 0) {
        fprintf(stderr, "oxport export: --save-weights: %s\n", err);
        return OX_EXIT_FAILURE;
    }
    return OX_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    export_args a;
    int rc;
    if (parse_args(argc, argv, &a) != 0) {
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if (a.help) {
        usage(stdout);
        rc = OX_EXIT_OK;
        goto out;
    }
    if (a.list) {
        char err[512];
        if (a.decoder_config && hc_decoder_configure(a.decoder_config, err, sizeof err) != 0) {
            fprintf(stderr, "oxport export: --decoder-config: %s\n", err);
            rc = OX_EXIT_USAGE;
            goto out;
        }
        rc = list_models();
        goto out;
    }
    if (!a.model) {
        fputs("oxport export: no MODEL given (oxport export --list shows the zoo)\n", stderr);
        usage(stderr);
        rc = OX_EXIT_USAGE;
        goto out;
    }
    const hc_zoo_model *z = hc_zoo_find(a.model);
    if (!z) {
        fprintf(stderr, "oxport export: unknown model '%s' (oxport export --list shows the zoo)\n",
                a.model);
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if ((rc = check_weight_options(&a, z)) != OX_EXIT_OK)
        goto out;
    if (a.save_weights) {
        rc = save_weights(&a, z);
        goto out;
    }
    if (!a.output && !a.test_data) {
        fputs("oxport export: no output: give -o FILE.onnx or --test-data DIR\n", stderr);
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if ((a.output && !a.output[0]) || (a.test_data && !a.test_data[0])) {
        fprintf(stderr, "oxport export: %s needs a path, got an empty one\n",
                a.output ? "-o" : "--test-data");
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if (a.output && a.test_data) {
        fputs("oxport export: -o and --test-data are exclusive (--test-data writes "
              "DIR/model.onnx)\n",
              stderr);
        rc = OX_EXIT_USAGE;
        goto out;
    }
    if (a.report && strcmp(a.report, "-") != 0) {
        char dir[4096];
        if (a.output && ox_cli_same_file(a.output, a.report)) {
            fprintf(stderr, "oxport export: -o and --report name the same file '%s'; the report "
                            "would replace the model\n", a.report);
            rc = OX_EXIT_USAGE;
            goto out;
        }
        if (!ox_cli_dir_exists(a.report, dir, sizeof dir)) {
            fprintf(stderr, "oxport export: cannot write the report %s: directory '%s' does not "
                            "exist; create it first\n", a.report, dir);
            rc = OX_EXIT_USAGE;
            goto out;
        }
    }
    rc = run_export(&a, z);
out:
    free(a.input_names_buf);
    free(a.output_names_buf);
    free(a.function_types_buf);
    return rc;
}
