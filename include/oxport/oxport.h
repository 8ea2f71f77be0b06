/*
 * oxport — trace-based ONNX exporter.  Public API for host frameworks.
 *
 * A host creates a context, begins a trace, declares inputs and parameters,
 * records every operator it executes (ox_trace_op), marks outputs and finishes
 * the trace.  ox_export() then converts the traced graph through the loaded
 * symbolic packs and writes an ONNX file.
 *
 * Conventions: every call returns an ox_status; on failure the context holds a
 * message (ox_errmsg).  Values are referred to by ox_vid (0 is never a valid
 * value).  Parameter bytes are borrowed from the host until the export that
 * uses them returns, unless the host asks for a copy.
 */
#ifndef OXPORT_OXPORT_H
#define OXPORT_OXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "oxport/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OX_VERSION_MAJOR 0
#define OX_VERSION_MINOR 1
#define OX_VERSION_PATCH 0
#define OX_VERSION_STRING "0.1.0"

/* Library version, e.g. "0.1.0".  May differ from OX_VERSION_STRING when a
 * host runs against a newer shared library than it was compiled with. */
OX_API const char *ox_version(void);

typedef enum ox_status {
    OX_OK = 0,
    OX_EINVAL = 1,       /* bad argument from the caller */
    OX_ENOMEM = 2,       /* allocation failed */
    OX_EIO = 3,          /* file could not be read or written */
    OX_EFORMAT = 4,      /* malformed ONNX / protobuf input */
    OX_EUNSUPPORTED = 5, /* operator or argument not supported at the target opset */
    OX_EPLUGIN = 6,      /* a symbolic pack was rejected or failed */
    OX_ECONFIG = 7,      /* malformed YAML descriptor or config */
    OX_ESTATE = 8,       /* call not valid in the object's current state */
    OX_ECHECK = 9        /* model violates an ONNX structural rule */
} ox_status;

/* Short fixed description of a status code ("invalid argument", ...). */
OX_API const char *ox_strerror(ox_status status);

/* ---------------------------------------------------------------- context */

/* Threads: a context, and the traces and graphs made with it, belong to one
 * thread at a time.  Separate contexts may trace, convert and export at
 * the same time in separate threads (the process-wide state they share is
 * thread-safe).  A host that shares one context between threads serialises
 * every call on it, ox_errmsg included: the message is the context's last
 * failure, whichever thread made it. */
typedef struct ox_context ox_context;

/* Flags for ox_context_new. */
#define OX_CONTEXT_NO_DEFAULT_PLUGINS 0x1u /* do not scan the installed plugindir */
#define OX_CONTEXT_NO_DEFAULT_OPSETS 0x2u  /* do not load the installed opset YAML */
#define OX_CONTEXT_NO_ENV 0x4u             /* ignore OXPORT_PLUGIN_PATH / OXPORT_OPSET_DIR */

OX_API ox_status ox_context_new(unsigned flags, ox_context **out);
OX_API void ox_context_free(ox_context *ctx);

/* The message describing the last failure on this context (never NULL).
 * It belongs to the context and is replaced (the old pointer freed) by the
 * next call on it that fails, loads or exports: copy it before another
 * call, and do not
 * pass ox_errmsg(ctx) as an argument of the same printf as the call whose
 * failure it should describe (C leaves the order of evaluation open). */
OX_API const char *ox_errmsg(const ox_context *ctx);

/* Add a directory (all *.so inside) or a single .so to the plugin search
 * list.  Paths given here come first in search order; a plugin given this way
 * may override an operator of a built-in pack. */
OX_API ox_status ox_context_add_plugin_path(ox_context *ctx, const char *path);

/* Add a symbolic pack from memory: a host that defines operators at run time
 * (Python symbolics through callbacks, a JIT) fills an ox_plugin_desc exactly
 * as a .so would return it.  It is validated like a .so (same messages, with
 * `origin` in place of the file name) and its init runs now; on failure
 * nothing is added.  `origin` names the pack in messages and listings, e.g.
 * "python:mylib.MyRelu".  A pack added this way overrides, name by name, the
 * operators of every pack loaded from a file, from its lowest since_opset of
 * the name up (the override is recorded with both sources); two in-process packs may not both provide one (name,
 * since_opset).  May be called before or after loading.  desc and everything
 * it points to must stay valid until the context is freed. */
struct ox_plugin_desc;
OX_API ox_status ox_context_add_pack(ox_context *ctx, const struct ox_plugin_desc *desc,
                                     const char *origin);

/* How operators are exported: torch.onnx's OperatorExportTypes, same numbers.
 * Set on the context (ox_context_set_export_type) or in the config
 * (operator_export_type: onnx | aten | aten_fallback | fallthrough); the
 * context's setting wins.  A mode that no operator of a graph needs changes
 * nothing. */
typedef enum ox_export_type {
    OX_EXPORT_ONNX = 0,          /* every operator through a symbolic; a missing one is an error */
    OX_EXPORT_ATEN = 1,          /* every aten:: operator as an ATen node (domain org.pytorch.aten) */
    OX_EXPORT_ATEN_FALLBACK = 2, /* an aten:: operator with no symbolic as an ATen node */
    OX_EXPORT_FALLTHROUGH = 3    /* an operator with no symbolic kept as recorded, in its domain */
} ox_export_type;

OX_API ox_status ox_context_set_export_type(ox_context *ctx, ox_export_type type);

/* The opset_import version of a custom domain (torch.onnx's custom_opsets):
 * applied to every node of that domain the converted graph holds (version 1
 * when neither this nor the config's custom_domains names the domain).
 * Unlike custom_domains it does not make recorded nodes of the domain pass
 * through unconverted. */
OX_API ox_status ox_context_set_domain_version(ox_context *ctx, const char *domain, int version);

/* Notes of the last conversion, one per line ("" when none): what an export
 * type changed, e.g. an operator exported as an ATen node. */
OX_API const char *ox_context_notes(const ox_context *ctx);

/* Warnings of the last ox_export, one per line ("" when none): what the
 * file fixes to the example although a dynamic input axis would change it,
 * e.g. "Split at Net/Attn[a]: dim 1 of its input follows a dynamic axis,
 * but the number of pieces (5 ...) is fixed to the example; ...", or a
 * size a pack's symbolic read where a dynamic axis reaches it.  The
 * export succeeds; a host shows them (oxport.torch as TracerWarnings, the
 * CLI on stderr). */
OX_API const char *ox_context_warnings(const ox_context *ctx);

/* Write one line per operator whose symbolic a stronger pack replaced,
 *   "aten::relu: <source of the symbolic used> overrides <source replaced>",
 * sorted by operator; loads the context first.  *n_out (may be NULL) gets the
 * number of lines. */
OX_API ox_status ox_context_print_overrides(ox_context *ctx, FILE *out, size_t *n_out);

/* Use this directory of opset YAML descriptors instead of the installed one. */
OX_API ox_status ox_context_set_opset_dir(ox_context *ctx, const char *dir);

/* Load a user config (oxport.yaml): target opset, plugin dirs, disabled ops,
 * custom domains.  May be called before or after plugins are loaded. */
OX_API ox_status ox_context_load_config(ox_context *ctx, const char *path);

/* Load everything configured so far (plugins and opsets).  Called implicitly
 * by the first conversion; call it explicitly to see loader errors early. */
OX_API ox_status ox_context_load(ox_context *ctx);

/* Default target opset from the config (or OX_DEFAULT_OPSET). */
#define OX_DEFAULT_OPSET 13
OX_API int ox_context_target_opset(const ox_context *ctx);

/* ------------------------------------------------------------------ graph */

typedef struct ox_graph ox_graph;

OX_API void ox_graph_free(ox_graph *g);

/* Print the graph in the verbose format of torch.onnx:
 *   graph(%x : Float(1, 3, 224, 224), ...) { ... return (%y); } */
OX_API ox_status ox_graph_print(const ox_graph *g, FILE *out);

OX_API size_t ox_graph_node_count(const ox_graph *g);

/* Give axis `axis` of graph input or output `v` a symbolic name (dynamic axes).
 * A value that is both (an input traced as an output) names the input's axis:
 * the output is then its own value (ox_trace_output records an Identity),
 * which the form by output index below reaches.  A graph has no context to
 * hold a message, so OX_EINVAL alone says one of: v is not an input or
 * output of g (an id of another trace included), axis is not below the
 * value's rank, name is NULL or empty. */
OX_API ox_status ox_graph_set_dim_param(ox_graph *g, ox_vid v, uint32_t axis, const char *name);
/* The same for graph output `i` (in ox_trace_output's order); OX_EINVAL when i
 * is out of range. */
OX_API ox_status ox_graph_set_output_dim_param(ox_graph *g, size_t i, uint32_t axis,
                                               const char *name);

/* ---------------------------------------------------------------- streams */

/* A FILE * for hosts that cannot make one (ctypes, other FFIs), for every
 * FILE * this API takes: ox_export_options.verbose, ox_graph_print,
 * ox_check's report ...  Writes go to a duplicate of `fd` (the caller keeps
 * and closes `fd` itself).  NULL with errno set when fd is not open. */
OX_API FILE *ox_stream_from_fd(int fd);
/* Flush and free a stream of ox_stream_from_fd: 0, or EOF when a write
 * failed.  NULL is a no-op. */
OX_API int ox_stream_close(FILE *stream);

/* ------------------------------------------------------------------ trace */

typedef struct ox_trace ox_trace;

/* Ownership of tensor bytes handed to the engine. */
typedef enum ox_ownership {
    OX_BORROW = 0, /* host keeps the bytes alive until the export returns */
    OX_COPY = 1    /* engine copies the bytes now */
} ox_ownership;

/* One recorded argument.  Build them with the ox_arg_* helpers below. */
typedef struct ox_arg {
    const char *name;
    ox_arg_kind kind;
    union {
        ox_vid tensor;
        int64_t i;     /* INT, BOOL (0/1), DTYPE (an ox_dtype) */
        double f;      /* FLOAT */
        const char *s; /* STRING */
        struct { const int64_t *data; size_t n; } ints;
        struct { const double *data; size_t n; } floats;
        struct { const ox_vid *data; size_t n; } tensors; /* an entry may be 0 (None) */
    } u;
} ox_arg;

/* Type of one recorded output, as the host computed it. */
typedef struct ox_tensor_desc {
    ox_dtype dtype;
    uint32_t rank;
    const int64_t *sizes; /* rank entries; -1 = unknown */
} ox_tensor_desc;

/* Begin a trace on ctx; its calls report failures there, so ctx must live
 * until the trace is finished or aborted.  The graph ox_trace_finish makes
 * (and any graph ox_convert or ox_read returns) needs no context: it may
 * outlive ctx and be exported or written through another one.  A trace or
 * graph handle is gone once finished, aborted or freed; the engine cannot
 * tell a stale handle from a live one, so using one is undefined (ASan
 * reports it as a use after free). */
OX_API ox_status ox_trace_begin(ox_context *ctx, const char *model_name, ox_trace **out);

/* Abandon a trace that will not be finished. */
OX_API void ox_trace_abort(ox_trace *t);

/* Graph input.  name may be NULL (then the exporter numbers it). */
OX_API ox_status ox_trace_input(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                                const int64_t *sizes, ox_vid *out);

/* Model parameter (weight or buffer), exported as an initializer. */
OX_API ox_status ox_trace_param(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                                const int64_t *sizes, const void *data, ox_ownership own,
                                ox_vid *out);

/* Parameters whose bytes are read on demand.  A model larger than RAM (a
 * 7B-parameter decoder in a safetensors file, weights on another device)
 * cannot hand the engine a pointer to all of its bytes; these declare a
 * parameter exactly as ox_trace_param does (same name, type and shape rules,
 * same file bytes) but the writer fetches the bytes while it writes them,
 * OX_PARAM_CHUNK bytes at a time, so memory stays flat whatever the weight
 * size.  Nothing is read before ox_export (or ox_write) writes the
 * parameter; an export without weights (export_params = 0) reads nothing.
 *
 * A failure while reading (the callback's status, a short or missing file)
 * fails the export with a message naming the parameter, and leaves no file
 * behind: neither the model nor its external data file is put in place. */

/* The largest `len` the engine asks for in one read. */
#define OX_PARAM_CHUNK ((size_t)4 << 20)

/* Fill dst with `len` bytes of the parameter's data starting at byte
 * `offset` (0 is the first element).  Calls for one parameter come in
 * increasing offset order and cover its bytes once per write.  Return
 * OX_OK, or any other status to fail the export (OX_EIO for a read error);
 * the export then returns OX_EIO (OX_ENOMEM when that is what the callback
 * returned) with a message naming the parameter, the bytes and the status. */
typedef ox_status (*ox_param_read_fn)(void *user, uint64_t offset, void *dst, size_t len);

/* A parameter read through `read(user, ...)`.  `read` and `user` must stay
 * valid until the last export of the graph returns. */
OX_API ox_status ox_trace_param_reader(ox_trace *t, const char *name, ox_dtype dtype,
                                       uint32_t rank, const int64_t *sizes, ox_param_read_fn read,
                                       void *user, ox_vid *out);

/* A parameter stored as `length` raw little-endian bytes at `offset` of the
 * file `path` (a safetensors file's data section, a raw dump): the writer
 * opens it and reads it with pread in chunks.  `length` must equal the
 * element count times the element size of `dtype`, and the region must lie
 * inside the file: both are checked now (OX_EINVAL / OX_EIO) and the file is
 * checked again when written, since it may change in between.  The path is
 * copied; a relative one is opened relative to the working directory of the
 * moment (at this call and again at the write). */
OX_API ox_status ox_trace_param_file(ox_trace *t, const char *name, ox_dtype dtype,
                                     uint32_t rank, const int64_t *sizes, const char *path,
                                     uint64_t offset, uint64_t length, ox_vid *out);

/* The same from an open file descriptor, which the host keeps open (and
 * does not truncate) until the last export of the graph returns; the
 * engine never moves its file position (pread) nor closes it. */
OX_API ox_status ox_trace_param_fd(ox_trace *t, const char *name, ox_dtype dtype, uint32_t rank,
                                   const int64_t *sizes, int fd, uint64_t offset, uint64_t length,
                                   ox_vid *out);

/* A constant the forward pass created (not a parameter).  Converted graphs
 * see it as a constant value; symbolic functions can read its data. */
OX_API ox_status ox_trace_const(ox_trace *t, ox_dtype dtype, uint32_t rank, const int64_t *sizes,
                                const void *data, ox_ownership own, ox_vid *out);

/* Record one executed operator: qualified kind ("aten::conv2d",
 * "fn::ConstantPadNd", "onnx::Relu"), its arguments by name in schema order,
 * and the types of its outputs.  On success out_ids receives n_outputs new
 * value ids.  An in-place op ("aten::relu_") also produces a new value: the
 * host uses it from then on in place of the mutated tensor. */
OX_API ox_status ox_trace_op(ox_trace *t, const char *kind, size_t n_args, const ox_arg *args,
                             size_t n_outputs, const ox_tensor_desc *outputs, ox_vid *out_ids);

/* Scopes: push "Sequential[features]" etc.; the model name is the root. */
OX_API ox_status ox_trace_push_scope(ox_trace *t, const char *name);
OX_API ox_status ox_trace_pop_scope(ox_trace *t);

/* Mark a value as a graph output (in order).  name may be NULL or "" (the
 * exporter names it).  A name is the output's in the file: when v already
 * has a name of its own (a graph input, a parameter, an earlier output) or
 * is a constant, the trace records an onnx::Identity of v whose output
 * carries the name, as torch.onnx does.  A name already used by an input,
 * a parameter or an output is refused (OX_EINVAL). */
OX_API ox_status ox_trace_output(ox_trace *t, ox_vid v, const char *name);

/* The host made a constant of its own from these traced values: it read a
 * recorded size in its own code and branched on it, or turned it into a
 * plain number.  The file then holds what the example gave, which is only
 * wrong where the values can differ on another run.  So rather than warn
 * at once, the host hands the warning over: after conversion ox_export
 * works out which values no dynamic axis (or data-sized result) reaches,
 * and warns with `warning` (one line, copied) only when one of the n
 * values may vary; ox_context_warnings then carries it.  The values stay
 * in the graph only for that question and are not written for it.
 * OX_EINVAL for a value the trace did not make or a warning with a line
 * break. */
OX_API ox_status ox_trace_fixed_values(ox_trace *t, size_t n, const ox_vid *values,
                                       const char *warning);

/* Finish: the trace is consumed (freed) and, on success, *out owns the
 * traced graph.  On failure the trace is freed too. */
OX_API ox_status ox_trace_finish(ox_trace *t, ox_graph **out);

/* Argument helpers. */
static inline ox_arg ox_arg_tensor(const char *name, ox_vid v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_TENSOR; a.u.tensor = v; return a;
}
static inline ox_arg ox_arg_none(const char *name) {
    ox_arg a; a.name = name; a.kind = OX_ARG_NONE; a.u.i = 0; return a;
}
static inline ox_arg ox_arg_int(const char *name, int64_t v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_INT; a.u.i = v; return a;
}
static inline ox_arg ox_arg_bool(const char *name, int v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_BOOL; a.u.i = v ? 1 : 0; return a;
}
static inline ox_arg ox_arg_float(const char *name, double v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_FLOAT; a.u.f = v; return a;
}
static inline ox_arg ox_arg_string(const char *name, const char *v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_STRING; a.u.s = v; return a;
}
static inline ox_arg ox_arg_dtype(const char *name, ox_dtype v) {
    ox_arg a; a.name = name; a.kind = OX_ARG_DTYPE; a.u.i = (int64_t)v; return a;
}
static inline ox_arg ox_arg_ints(const char *name, const int64_t *v, size_t n) {
    ox_arg a; a.name = name; a.kind = OX_ARG_INTS; a.u.ints.data = v; a.u.ints.n = n; return a;
}
static inline ox_arg ox_arg_floats(const char *name, const double *v, size_t n) {
    ox_arg a; a.name = name; a.kind = OX_ARG_FLOATS; a.u.floats.data = v; a.u.floats.n = n; return a;
}
static inline ox_arg ox_arg_tensors(const char *name, const ox_vid *v, size_t n) {
    ox_arg a; a.name = name; a.kind = OX_ARG_TENSOR_LIST; a.u.tensors.data = v; a.u.tensors.n = n; return a;
}

/* ----------------------------------------------------------------- export */

typedef struct ox_export_options {
    uint32_t struct_size;          /* set by ox_export_options_init */
    int opset;                     /* 0 = context default */
    int export_params;             /* 1 (default): write weights */
    int keep_initializers_as_inputs; /* -1 (default): only where the IR version requires it;
                                        0 is overridden (with a warning) where IR <= 3 requires it */
    const char *const *input_names;  /* may name a prefix of inputs, then params (kept as inputs or not) */
    size_t n_input_names;
    const char *const *output_names;
    size_t n_output_names;
    uint64_t external_data_threshold; /* tensors >= this many bytes go to the side file when external data is on */
    int external_data;             /* 0 = automatic (only past 2 GiB), 1 = always, -1 = never */
    const char *external_data_location; /* side file name, default "<model>.onnx.data" */
    FILE *verbose;                 /* when set, the converted graph is printed here (a host
                                      without FILE *: ox_stream_from_fd) */
    int do_constant_folding;       /* 1 (default): fold nodes computed only from small constants */
    const char *producer_name;     /* default "oxport" */
    const char *producer_version;  /* default ox_version() */
    /* added after 0.1 (hosts built against 0.1 pass a smaller struct_size) */
    int check;                     /* 1 (default): run ox_check before writing; a violation
                                      fails the export and nothing is written */
    int sync;                      /* 1: fsync the files and their directory before returning,
                                      so the export survives a power loss; -1: never; 0 (default):
                                      the config's `sync` key, else never, like torch.save and
                                      onnx.save (the rename stays atomic either way) */
    /* Model-local functions (opset 15 or newer): each entry names a module
     * type, "domain::Type" ("Type" alone: domain "local").  Every scope
     * instance whose segment is "Type[...]" (ox_trace_push_scope) becomes
     * one call node in that domain, and each distinct body one ONNX
     * FunctionProto named Type (Type_1, Type_2, ... for instances whose
     * bodies differ); values the instance reads, parameters included,
     * become the function's inputs.  NULL/0: no functions. */
    const char *const *function_types;
    size_t n_function_types;
    /* added later still (hosts built before it pass a smaller struct_size) */
    int direct_io;                 /* 1: write files larger than 8 MiB with direct I/O (O_DIRECT),
                                      skipping the page cache: faster where growing the page
                                      cache is slow (VMs, memory full of other files), slower
                                      on a slow disk; the bytes are the same, and a file system
                                      that refuses it gets a buffered write. -1: never. 0
                                      (default): the config's `direct_io` key, else on exactly
                                      when `sync` is on (docs/onnx-writer.md, "Direct I/O") */
} ox_export_options;

OX_API void ox_export_options_init(ox_export_options *opts);

/* Convert a traced graph to an ONNX-domain graph at `opset`.  Every problem
 * found (unsupported ops, limitation hits) is reported at once in ox_errmsg
 * with status OX_EUNSUPPORTED.  The traced graph is not modified. */
OX_API ox_status ox_convert(ox_context *ctx, const ox_graph *traced, int opset, ox_graph **out);

/* Write an ONNX-domain graph to `path` (atomically).  The traced graph's
 * borrowed parameter bytes must still be alive.  A traced graph itself (from
 * ox_trace_finish) is refused with OX_EINVAL: convert it first.  A graph read
 * from a file with sparse initializers is refused with OX_EUNSUPPORTED
 * (they are read and checked, not written). */
OX_API ox_status ox_write(ox_context *ctx, const ox_graph *onnx, const char *path,
                          const ox_export_options *opts);

/* Convert + passes + write in one call. */
OX_API ox_status ox_export(ox_context *ctx, const ox_graph *traced, const char *path,
                           const ox_export_options *opts);

/* Read an ONNX file (external data resolved relative to it).  Initializers
 * of 64 KiB and more are not loaded: the graph holds where they are (the
 * model file, through a descriptor it keeps open until freed, or the
 * external data file, which is checked to hold them), and ox_write copies
 * them from there, so reading a model larger than memory costs its
 * metadata.  Keep external data files in place until the graph is freed;
 * the model file itself may be replaced. */
OX_API ox_status ox_read(ox_context *ctx, const char *path, ox_graph **out);

/* Check in the spirit of onnx.checker: the structural rules and each node
 * against its operator schema (docs/checking.md).  Each violation is one
 * line written to `report` (may be NULL).  Returns OX_OK or OX_ECHECK; a
 * traced graph (from ox_trace_finish) is refused with OX_EINVAL: check the
 * converted graph or the written file. */
OX_API ox_status ox_check(ox_context *ctx, const ox_graph *g, FILE *report, size_t *n_violations);

/* Draw a graph (read from a file or traced) to `path`: "dot" (Graphviz
 * text), "svg" or "png" (rendered by Graphviz's `dot` program, an error
 * when it is not installed); NULL takes the format from the extension.
 * Modules are nested clusters; `scope` (NULL: all) draws only that module,
 * and modules more than `depth` levels below it are collapsed into one box
 * (negative: no limit).  Atomic: on failure nothing is left at `path`. */
OX_API ox_status ox_graph_picture(ox_context *ctx, const ox_graph *g, const char *path,
                                  const char *format, const char *scope, int depth);

/* Write the report of the export just done on `ctx` (call it right after
 * ox_export, whose result is `export_status`): FILE.json (docs/json-output.md)
 * or FILE.html (one offline page: problems grouped with counts and scopes,
 * time per stage, recorded operators and the ONNX nodes they became by
 * module, the graph picture), or "-" for JSON on stdout.  `stage_names` and
 * `stage_seconds` (n_stages, at most 4, may be 0) are the host's timings.
 * Atomic.  Replaces the context's message: read ox_errmsg before calling. */
OX_API ox_status ox_export_report(ox_context *ctx, const ox_graph *traced, const char *target,
                                  int opset, ox_status export_status,
                                  const char *const *stage_names, const double *stage_seconds,
                                  size_t n_stages, const char *path);

/* As ox_export_report, with the model named `model` (a zoo's "alexnet")
 * rather than after the traced graph (NULL: the traced graph's name). */
OX_API ox_status ox_export_report_named(ox_context *ctx, const char *model,
                                        const ox_graph *traced, const char *target, int opset,
                                        ox_status export_status,
                                        const char *const *stage_names,
                                        const double *stage_seconds, size_t n_stages,
                                        const char *path);

/* The report a path asks for: "json" for *.json and "-" (standard output),
 * "html" for *.html, NULL for any other name (ox_export_report refuses it). */
OX_API const char *ox_export_report_format(const char *path);

/* ------------------------------------------------------------ names */

/* "float32", "int64", ... (as numpy spells them); "undefined" for an unknown type. */
OX_API const char *ox_dtype_name(ox_dtype dtype);
/* Element size in bytes, 0 for OX_STRING and unknown types. */
OX_API size_t ox_dtype_size(ox_dtype dtype);
/* An argument kind as the listings spell it ("tensor", "ints", ...),
 * "None" for OX_ARG_NONE, "unknown" out of range. */
OX_API const char *ox_arg_kind_name(ox_arg_kind kind);

/* ------------------------------------------------- graphs read or traced */

/* The graph's name ("" when it has none). */
OX_API const char *ox_graph_name(const ox_graph *g);

/* One graph input or output, as a caller feeding or reading the model sees it. */
typedef struct ox_value_info {
    const char *name;    /* "" when unnamed */
    ox_dtype dtype;      /* OX_UNDEFINED: not a typed tensor */
    int32_t rank;        /* -1 when unknown */
    const int64_t *dims; /* rank entries (-1 unknown or symbolic), or NULL */
} ox_value_info;

OX_API size_t ox_graph_input_count(const ox_graph *g);
OX_API size_t ox_graph_output_count(const ox_graph *g);
/* OX_EINVAL when i is out of range. */
OX_API ox_status ox_graph_input_info(const ox_graph *g, size_t i, ox_value_info *out);
OX_API ox_status ox_graph_output_info(const ox_graph *g, size_t i, ox_value_info *out);

/* The summary line `oxport dump` prints above a graph:
 *   ir_version=7 opsets=[ai.onnx:13] producer=... graph=... nodes=N initializers=N
 *   inputs=N outputs=N [sparse_initializers=N] [functions=N]
 * ending in '\n', with the file's strings escaped (a control character as \n
 * or \xNN, a backslash as \\) so it stays one line.  OX_EIO on a write
 * error. */
OX_API ox_status ox_graph_print_header(const ox_graph *g, FILE *out);

/* `oxport dump --format json`: the document {"schema_version", "command":
 * "dump", "file": file, "model": {...}} (docs/json-output.md) and a newline.
 * OX_EIO on a write error. */
OX_API ox_status ox_graph_print_json(const ox_graph *g, const char *file, FILE *out);

/* Pictures without a file (ox_graph_picture writes one): the DOT text, and
 * the number of top-level nodes a scope/depth selection draws (0: the
 * selection is empty).  OX_EIO on a write error. */
OX_API ox_status ox_graph_picture_dot(const ox_graph *g, const char *scope, int depth, FILE *out);
OX_API size_t ox_graph_picture_count(const ox_graph *g, const char *scope, int depth);
/* "dot", "svg" or "png" from a file name's extension; NULL for any other. */
OX_API const char *ox_picture_format_of(const char *path);

/* The structure `oxport diff` compares, printed to `out`: a summary line
 * per file ("A <name_a>: producer=... opsets=[...] nodes=N initializers=N"),
 * then inputs, outputs, initializers, the op histogram and the nodes
 * aligned by position and op type, one "  ! ..." line per difference.
 * *n_differences (may be NULL) gets their count.  OX_ENOMEM when the nodes
 * could not be aligned, OX_EIO on a write error. */
OX_API ox_status ox_graph_diff(const ox_graph *a, const char *name_a, const ox_graph *b,
                               const char *name_b, FILE *out, size_t *n_differences);
/* The same comparison as members of the JSON object open on `j` (see
 * oxport/json.h; docs/json-output.md, `oxport diff --format json`):
 * "a" and "b" (file, producer, opset imports, counts), "sections" (one
 * object per section: its "name", every difference with its fields, its
 * "summary") and "differences" (their count).  OX_ENOMEM as above.  The
 * writer is oxport/json.h's; its typedef is repeated here (valid C11) so
 * that this header does not need that one. */
typedef struct ox_json ox_json;
OX_API ox_status ox_graph_diff_json(const ox_graph *a, const char *name_a, const ox_graph *b,
                                    const char *name_b, ox_json *j, size_t *n_differences);

/* --------------------------------------------------------- introspection
 *
 * What a context has loaded: its symbolic packs, the operator
 * implementations they declare, and what the opset descriptors support at
 * each opset.  The calls load what they read and report a loader failure
 * with its message: the pack and operator calls the packs only (a broken
 * descriptor does not hide them), ox_context_opset_info the descriptors
 * only, the per-opset operator calls both (ox_context_load).
 *
 * Every info struct starts with struct_size: set it to sizeof the struct
 * (OX_INFO_INIT does); the engine fills only the fields that fit, so a host
 * built against these headers keeps working when fields are added at the
 * end.  Strings belong to the context: they stay valid until it is freed or
 * its packs change (ox_context_add_pack). */

#define OX_INFO_INIT(type) {.struct_size = (uint32_t)sizeof(type)}

/* One loaded symbolic pack. */
typedef struct ox_pack_info {
    uint32_t struct_size;
    const char *name;
    const char *version;     /* may be NULL */
    const char *description; /* may be NULL */
    const char *path;        /* the .so, or the origin an in-process pack was added with */
    uint16_t abi_major, abi_minor;
    int configured;          /* 1: from a plugin path, OXPORT_PLUGIN_PATH, the config or
                                ox_context_add_pack; 0: a built-in pack */
    size_t n_ops;            /* operator implementations (one per name and since_opset) */
    size_t n_overrides;      /* operators whose symbolic of another pack this one replaces
                                (ox_op_info.overrides names that pack) */
} ox_pack_info;

OX_API ox_status ox_context_pack_count(ox_context *ctx, size_t *n);
OX_API ox_status ox_context_pack(ox_context *ctx, size_t i, ox_pack_info *out);

/* A kind's bit in ox_param_info.alt_kinds (as plugin.h defines it). */
#ifndef OX_KIND_BIT
#define OX_KIND_BIT(kind) (1u << (unsigned)(kind))
#endif

/* One parameter of an operator, in schema order, as its pack declares it. */
typedef struct ox_param_info {
    uint32_t struct_size;
    const char *name;          /* as hosts record it */
    ox_arg_kind kind;          /* OX_ARG_NONE for a parameter only a descriptor names
                                  (no loaded pack converts the operator) */
    uint32_t alt_kinds;        /* other kinds accepted, OX_KIND_BIT each ("ints|string") */
    int optional;              /* a host may leave it unrecorded or record None */
    const char *default_value; /* the default as Python writes it ("1", "[1, 1]", "None",
                                  "'none'"); NULL when none is declared */
    const char *kind_text;     /* the kinds as listings print them ("ints|string?"), or
                                  NULL (a descriptor-only name) */
} ox_param_info;

/* One operator implementation: a pack's symbolic for a name from an opset on. */
typedef struct ox_op_info {
    uint32_t struct_size;
    const char *name;           /* "aten::conv2d" */
    int since_opset;
    size_t n_params;            /* ox_context_op_param */
    uint32_t n_outputs;         /* forward arity */
    size_t pack;                /* ox_context_pack index of the pack providing it */
    const char *pack_name;
    const char *overrides;      /* path of the pack whose symbolic it replaced, or NULL */
    int has_check;              /* a check hook reports limitations before conversion */
    int outputs_as_recorded;    /* variable arity: n_outputs is the least count, a node has
                                   as many as the host recorded */
} ox_op_info;

/* Implementations, sorted by name then since_opset. */
OX_API ox_status ox_context_op_count(ox_context *ctx, size_t *n);
OX_API ox_status ox_context_op(ox_context *ctx, size_t i, ox_op_info *out);
/* Parameter p of implementation i, as the pack declares it. */
OX_API ox_status ox_context_op_param(ox_context *ctx, size_t i, size_t p, ox_param_info *out);

/* The opsets the descriptors cover (dir: where they were read) and the
 * range exports may target (the config's min_opset/max_opset narrow it;
 * source names what set it: "the opset descriptors", the config's path...).
 * Any output may be NULL. */
OX_API ox_status ox_context_opset_info(ox_context *ctx, int *min_opset, int *max_opset,
                                       const char **dir);
OX_API ox_status ox_context_opset_range(ox_context *ctx, int *lo, int *hi, const char **source);

/* One operator as an opset sees it: declared by the descriptor of that
 * opset (or an earlier one it inherits), or converted by a pack without
 * a descriptor. */
typedef struct ox_opset_op_info {
    uint32_t struct_size;
    const char *name;
    const char *doc;          /* the descriptor's description, or NULL */
    int declared_in;          /* opset_N.yaml that last changed it; 0: no descriptor */
    size_t n_params;          /* ox_context_opset_param */
    size_t n_limitations;     /* ox_context_opset_limitation */
    int supported;            /* exported at this opset: a symbolic and not disabled */
    int has_symbolic;         /* a pack converts it at this opset ... */
    size_t op;                /* ... with this implementation (ox_context_op) */
    int symbolic_from_opset;  /* no symbolic here: the lowest opset one starts at, 0 none */
    const char *disabled_by;  /* the config that disables it, or NULL */
} ox_opset_op_info;

/* Operators at `opset`, sorted by name.  OX_EINVAL for an opset outside
 * the descriptors' range. */
OX_API ox_status ox_context_opset_op_count(ox_context *ctx, int opset, size_t *n);
OX_API ox_status ox_context_opset_op(ox_context *ctx, int opset, size_t i, ox_opset_op_info *out);
/* Parameter p as the pack converting the operator at this opset declares
 * it; for an operator no pack converts, the names the descriptor lists. */
OX_API ox_status ox_context_opset_param(ox_context *ctx, int opset, size_t i, size_t p,
                                        ox_param_info *out);

/* A limitation: recorded arguments an opset does not support. */
typedef struct ox_limitation_info {
    uint32_t struct_size;
    const char *arg;          /* the recorded argument it is about */
    const char *when;         /* the condition as text: "ceil_mode = true" */
    const char *message;      /* what a user is told */
    int lifted_at_opset;      /* the lowest later opset without it, 0 none */
} ox_limitation_info;

OX_API ox_status ox_context_opset_limitation(ox_context *ctx, int opset, size_t i, size_t l,
                                             ox_limitation_info *out);

/* An operator the opset descriptors say oxport does not export, and why
 * (the `excluded:` map of opset_N.yaml, docs/configuring-opsets.md): the
 * pre-scan gives this reason instead of "no symbolic". */
typedef struct ox_exclusion_info {
    uint32_t struct_size;
    const char *name;
    const char *reason;
    int declared_in;          /* the opset_N.yaml that excludes it */
} ox_exclusion_info;

/* Exclusions at `opset`, sorted by name.  OX_EINVAL outside the
 * descriptors' range. */
OX_API ox_status ox_context_exclusion_count(ox_context *ctx, int opset, size_t *n);
OX_API ox_status ox_context_exclusion(ox_context *ctx, int opset, size_t i, ox_exclusion_info *out);

/* Receives one message line (no newline). */
typedef void (*ox_message_fn)(void *user, const char *line);

/* Validate one pack file without registering it (the .so stays mapped, as
 * every pack does, see docs/writing-a-plugin.md): descriptor, declarations and
 * init, and, when the context's opset descriptors load, its declarations
 * against them (a since_opset past the newest descriptor, a parameter a
 * descriptor lists that the pack does not declare); each problem one call of
 * `fn` (the lines `oxport plugins --check FILE.so` prints; fn may be NULL).
 * OX_OK when it would load and fits the descriptors; OX_EPLUGIN when
 * problems were found, the first of them also in ox_errmsg ("... (and N
 * more problems)"); another status (message in ox_errmsg) when the check
 * could not run.  *n_problems may be NULL. */
OX_API ox_status ox_pack_check_file(ox_context *ctx, const char *path, ox_message_fn fn,
                                    void *user, size_t *n_problems);

/* Check the loaded packs against the opset descriptors (`oxport plugins
 * --check`): kind contradictions, parameters a pack does not declare,
 * operators no pack provides; one call of `fn` per finding.  OX_OK whether
 * or not there were findings (*n_findings counts them); a failure to load
 * the descriptors returns its status. */
OX_API ox_status ox_context_check_packs(ox_context *ctx, ox_message_fn fn, void *user,
                                        size_t *n_findings);

/* Unlink the temp files of the exports in progress in this process.
 * Async-signal-safe: call it from a SIGINT/SIGTERM handler so an
 * interrupted export leaves no hidden partial file behind. */
OX_API void ox_discard_temp_files(void);

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_OXPORT_H */
