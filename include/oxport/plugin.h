/*
 * oxport plugin ABI — for symbolic packs (.so files loaded with dlopen).
 *
 * A pack exports exactly one symbol, ox_plugin_entry, returning a pointer to
 * a static ox_plugin_desc.  It never links against liboxport: everything it
 * may call reaches it through the ox_api table handed to init() and to every
 * symbolic function.  Build packs with -Wl,-z,defs.
 *
 * Compatibility rules:
 *  - the first five fields of ox_plugin_desc never change;
 *  - the engine rejects another ABI major, or a minor newer than its own;
 *  - ox_api only ever grows at the end; check api->struct_size before using
 *    a member added after the minor version you were built for.
 *
 * A symbolic function converts one recorded operator into ONNX nodes:
 *
 *     static int sym_elu(ox_sym *g, const ox_api *api) {
 *         ox_vid x = api->arg_tensor(g, "self");
 *         ox_onode *n = api->op(g, "Elu", 1, &x, 1);
 *         api->attr_float(n, "alpha", api->arg_float(g, "alpha", 1.0));
 *         return api->set_output(g, 0, api->node_output(n, 0));
 *     }
 *
 * It returns 0 on success or the result of api->fail(...) (nonzero).
 *
 * The plugin SDK, oxport/plugin_util.h, adds header-only helpers over this
 * table: opset-aware builders (Unsqueeze, Slice, Split, Pad, Clip, Reduce*,
 * Resize), constants, and PyTorch's type promotion.  The walkthrough and
 * the SDK's opset table: docs/writing-a-plugin.md.
 *
 * Lifetimes and checks (the engine enforces them; a breach fails the
 * conversion with the pack, the op and its scope named):
 *  - an ox_vid is valid in the conversion that handed it out (arg_tensor,
 *    node_output, constant, ...); ids carry their graph, so one kept in a
 *    static from another conversion, or a number never handed out, is
 *    rejected rather than wired to an unrelated value (the graph's tag
 *    takes the top 8 bits, so one conversion holds up to 2^24 - 1 values,
 *    and tags repeat every 255 conversions: detection, not a guarantee);
 *  - an ox_onode handle is valid only inside the symbolic call that created
 *    it: using one from an earlier call in the same conversion is reported;
 *    one kept past its conversion points into freed memory (never do that);
 *  - set_type only adds what is unknown about a node output: it cannot
 *    retype a graph input, parameter or constant, nor contradict a dtype,
 *    rank or size already known;
 *  - op/op_domain take at most 65536 outputs; a declaration's n_outputs is
 *    bounded the same way and since_opset must lie in 1..1000;
 *  - every node is checked against the ONNX schema of its operator at the
 *    target opset when the symbolic returns (operator exists, input/output
 *    counts, attribute names/kinds/required, element types the engine
 *    knows), and its outputs get the element type the schema implies; a
 *    host-recorded output type that differs fails the node.  Schemas cover
 *    the default domain up to opset 21 (docs/checking.md).
 */
#ifndef OXPORT_PLUGIN_H
#define OXPORT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "oxport/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OX_PLUGIN_MAGIC 0x4F58504Cu /* "OXPL" */
#define OX_PLUGIN_ABI_MAJOR 1
#define OX_PLUGIN_ABI_MINOR 3
#define OX_PLUGIN_ENTRY_SYMBOL "ox_plugin_entry"

typedef struct ox_sym ox_sym;     /* one symbolic call: the node being converted */
typedef struct ox_onode ox_onode; /* an ONNX node under construction */
typedef struct ox_api ox_api;
typedef struct ox_obody ox_obody; /* a subgraph built with body_begin/body_end (ABI 1.2) */

typedef int (*ox_symbolic_fn)(ox_sym *g, const ox_api *api);

/* A parameter's default value, a small tagged value (ABI 1.1).  The engine
 * hands it to the symbolic (through arg_int, arg_ints, ...) whenever the host
 * did not record the argument, so a symbolic never repeats a default in code. */
typedef enum ox_default_tag {
    OX_DEFAULT_NONE = 0,   /* no default: the host records the argument (or,
                              for an optional tensor, leaves it out) */
    OX_DEFAULT_NULL = 1,   /* Python None */
    OX_DEFAULT_INT = 2,    /* v.i */
    OX_DEFAULT_FLOAT = 3,  /* v.f */
    OX_DEFAULT_BOOL = 4,   /* v.i, 0 or 1 */
    OX_DEFAULT_STRING = 5, /* v.s */
    OX_DEFAULT_INTS = 6,   /* v.ints, count entries (count 0: an empty list) */
    OX_DEFAULT_FLOATS = 7  /* v.floats, count entries */
} ox_default_tag;

typedef struct ox_default {
    uint32_t tag;   /* ox_default_tag */
    uint32_t count; /* entries of v.ints / v.floats */
    union {
        int64_t i;
        double f;
        const char *s;
        const int64_t *ints;
        const double *floats;
    } v;
} ox_default;

/* Bit for ox_param_decl.alt_kinds. */
#define OX_KIND_BIT(kind) (1u << (unsigned)(kind))

/* ox_param_decl.flags */
#define OX_PARAM_OPTIONAL 1u /* the host may leave it out or record None; a
                                non-tensor optional parameter needs a default
                                (OX_DEFAULT_NULL when None is the default) */

/* One parameter of an operator's schema, in schema order.  This declaration
 * is the operator's one schema: the pre-scan checks recorded arguments
 * against it, `oxport ops` and docs/recording-conventions.md print it. */
typedef struct ox_param_decl {
    const char *name; /* exactly as the host records it, e.g. "self", "kernel_size" */
    ox_arg_kind kind;
    /* ---- ABI 1.1: read only when ox_op_decl.param_size covers them ---- */
    uint32_t alt_kinds; /* OX_KIND_BIT()s of further kinds a host may record,
                           e.g. conv's padding: ints, or OX_KIND_BIT(OX_ARG_STRING) */
    uint32_t flags;     /* OX_PARAM_* */
    ox_default dflt;
} ox_param_decl;

/* Parameter declaration shorthands (C99 designated initialisers; a field left
 * out is zero). */
#define OX_PARAM(nm, k) {.name = (nm), .kind = (k)}
#define OX_PARAM_OPT(nm, k) {.name = (nm), .kind = (k), .flags = OX_PARAM_OPTIONAL}
#define OX_PARAM_NULL(nm, k) \
    {.name = (nm), .kind = (k), .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_NULL}}
#define OX_PARAM_INT(nm, k, val)                                        \
    {.name = (nm), .kind = (k), .flags = OX_PARAM_OPTIONAL,             \
     .dflt = {.tag = OX_DEFAULT_INT, .v = {.i = (val)}}}
#define OX_PARAM_BOOL(nm, val)                                            \
    {.name = (nm), .kind = OX_ARG_BOOL, .flags = OX_PARAM_OPTIONAL,       \
     .dflt = {.tag = OX_DEFAULT_BOOL, .v = {.i = (val)}}}
#define OX_PARAM_FLOAT(nm, k, val)                                      \
    {.name = (nm), .kind = (k), .flags = OX_PARAM_OPTIONAL,             \
     .dflt = {.tag = OX_DEFAULT_FLOAT, .v = {.f = (val)}}}
#define OX_PARAM_STRING(nm, val)                                           \
    {.name = (nm), .kind = OX_ARG_STRING, .flags = OX_PARAM_OPTIONAL,      \
     .dflt = {.tag = OX_DEFAULT_STRING, .v = {.s = (val)}}}
/* arr: a static const int64_t array (its element count is taken with sizeof) */
#define OX_PARAM_INTS(nm, arr)                                                    \
    {.name = (nm), .kind = OX_ARG_INTS, .flags = OX_PARAM_OPTIONAL,               \
     .dflt = {.tag = OX_DEFAULT_INTS, .count = (uint32_t)(sizeof(arr) / sizeof((arr)[0])), \
              .v = {.ints = (arr)}}}
#define OX_PARAM_EMPTY_INTS(nm) \
    {.name = (nm), .kind = OX_ARG_INTS, .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INTS}}

/* A per-operator check hook (ABI 1.1), run by the pre-scan on each recorded
 * node the declaration would convert at the target opset, before any node is
 * built.  It reads the arguments (api->arg_*, dtype, rank, size, is_const,
 * const_data, opset) and reports what this opset cannot express with
 * api->limit; it builds nothing.  Returns 0 when the node is convertible,
 * else the result of api->limit.  `oxport ops` lists operators that have one. */
typedef int (*ox_check_fn)(ox_sym *g, const ox_api *api);

/* ox_op_decl.flags */
#define OX_OP_OUTPUTS_AS_RECORDED 1u /* variable arity (split, chunk, unbind as one
                                        node): n_outputs is the least count, the
                                        node has as many as the host recorded
                                        (api->n_outputs) and all must be set */

/* One operator a pack converts. */
typedef struct ox_op_decl {
    const char *name;      /* qualified source name: "aten::elu", "fn::ConstantPadNd" */
    int since_opset;       /* used for targets >= since_opset (highest one wins) */
    const ox_param_decl *params;
    uint32_t n_params;
    uint32_t n_outputs;    /* forward arity */
    ox_symbolic_fn symbolic;
    /* ---- ABI 1.1: read only when the descriptor's op_decl_size covers them ---- */
    uint32_t param_size;   /* stride of params: sizeof(ox_param_decl); 0 for the 1.0 layout
                              {name, kind} (then non-tensor parameters may be left out
                              or None and the symbolic's code supplies defaults) */
    uint32_t flags;        /* OX_OP_* */
    ox_check_fn check;     /* optional */
} ox_op_decl;

/* ox_op_decl initialisers: OX_OP("aten::elu", 9, p_elu, 1, sym_elu), with
 * p_elu a static ox_param_decl array; OX_OP_EX adds flags and a check hook. */
#define OX_N_PARAMS(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))
#define OX_OP_EX(nm, since, prm, outs, fn, flg, chk)                                    \
    {.name = (nm), .since_opset = (since), .params = (prm), .n_params = OX_N_PARAMS(prm), \
     .n_outputs = (outs), .symbolic = (fn), .param_size = (uint32_t)sizeof(ox_param_decl), \
     .flags = (flg), .check = (chk)}
#define OX_OP(nm, since, prm, outs, fn) OX_OP_EX(nm, since, prm, outs, fn, 0u, NULL)

typedef struct ox_plugin_desc {
    /* ---- never changes ---- */
    uint32_t magic;        /* OX_PLUGIN_MAGIC */
    uint16_t abi_major;    /* OX_PLUGIN_ABI_MAJOR */
    uint16_t abi_minor;    /* OX_PLUGIN_ABI_MINOR */
    uint32_t struct_size;  /* sizeof(ox_plugin_desc) */
    uint32_t op_decl_size; /* sizeof(ox_op_decl) */
    /* ---- ABI 1.0 ---- */
    const char *name;
    const char *version;
    const char *description;
    const ox_op_decl *ops;
    uint32_t n_ops;
    /* Optional.  Return 0 on success; on failure write a message to err. */
    int (*init)(const ox_api *api, char *err, size_t err_size);
    void (*fini)(void);
} ox_plugin_desc;

/* Fills the fixed header of a descriptor. */
#define OX_PLUGIN_HEADER                                                                    \
    OX_PLUGIN_MAGIC, OX_PLUGIN_ABI_MAJOR, OX_PLUGIN_ABI_MINOR, (uint32_t)sizeof(ox_plugin_desc), \
        (uint32_t)sizeof(ox_op_decl)

typedef const ox_plugin_desc *(*ox_plugin_entry_fn)(void);

#if defined(__GNUC__)
#define OX_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define OX_PLUGIN_EXPORT
#endif

/* Functions the engine offers to packs.  Append-only. */
struct ox_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;

    /* ================= ABI 1.0 ================= */

    /* --- context of the call --- */
    int (*opset)(ox_sym *g);              /* target opset */
    const char *(*op_name)(ox_sym *g);    /* "aten::elu" (as recorded, e.g. "aten::relu_") */
    const char *(*scope)(ox_sym *g);

    /* Fail the conversion of this node.  The message joins the export report
     * with the node's op and scope.  Always returns nonzero. */
    int (*fail)(ox_sym *g, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    /* --- recorded arguments, by name ---
     * A name the host did not record reads as the given default.  arg_kind
     * returns OX_ARG_NONE both for None and for a name not recorded;
     * arg_present tells the two apart. */
    int (*arg_present)(ox_sym *g, const char *name);
    ox_arg_kind (*arg_kind)(ox_sym *g, const char *name);
    ox_vid (*arg_tensor)(ox_sym *g, const char *name);         /* 0 when None or absent */
    size_t (*arg_tensors)(ox_sym *g, const char *name, const ox_vid **out);
    int64_t (*arg_int)(ox_sym *g, const char *name, int64_t dflt);  /* INT, BOOL, DTYPE */
    double (*arg_float)(ox_sym *g, const char *name, double dflt);  /* FLOAT, INT, BOOL */
    const char *(*arg_string)(ox_sym *g, const char *name, const char *dflt);
    /* INTS; a lone INT reads as a 1-list.  Returns the count, 0 when absent. */
    size_t (*arg_ints)(ox_sym *g, const char *name, const int64_t **out);
    size_t (*arg_floats)(ox_sym *g, const char *name, const double **out);

    /* --- values --- */
    ox_dtype (*dtype)(ox_sym *g, ox_vid v);
    int (*rank)(ox_sym *g, ox_vid v);                           /* -1 when unknown */
    int64_t (*size)(ox_sym *g, ox_vid v, int axis);             /* -1 unknown; negative axis counts from the end */
    int (*is_const)(ox_sym *g, ox_vid v);
    /* Constant's bytes (dtype, element count).  NULL if v is not constant. */
    const void *(*const_data)(ox_sym *g, ox_vid v, ox_dtype *dtype, size_t *n_elems);
    /* The seed's _scalar: a one-element constant as a double.  0 if not constant. */
    int (*const_scalar)(ox_sym *g, ox_vid v, double *out);

    /* --- building ONNX nodes ---
     * op creates a node of the default domain with n_inputs inputs (0 entries
     * are absent optional inputs) and n_outputs outputs.  op_domain creates it
     * in another domain (that domain's opset_import is registered with the
     * given version). */
    ox_onode *(*op)(ox_sym *g, const char *op_type, size_t n_inputs, const ox_vid *inputs,
                    size_t n_outputs);
    ox_onode *(*op_domain)(ox_sym *g, const char *domain, int domain_version, const char *op_type,
                           size_t n_inputs, const ox_vid *inputs, size_t n_outputs);
    ox_vid (*node_output)(ox_onode *n, size_t i);
    /* Typed attributes (the seed's alpha_f, dims_i, ...). */
    void (*attr_float)(ox_onode *n, const char *name, double v);
    void (*attr_int)(ox_onode *n, const char *name, int64_t v);
    void (*attr_string)(ox_onode *n, const char *name, const char *v);
    void (*attr_floats)(ox_onode *n, const char *name, const double *v, size_t count);
    void (*attr_ints)(ox_onode *n, const char *name, const int64_t *v, size_t count);
    void (*attr_strings)(ox_onode *n, const char *name, const char *const *v, size_t count);
    /* Tensor attribute (e.g. Constant's value); data is copied. */
    void (*attr_tensor)(ox_onode *n, const char *name, ox_dtype dtype, uint32_t rank,
                        const int64_t *sizes, const void *data);
    /* Optional type annotation of a node output (helps later passes/printing).
     * Adds what is unknown; refuses graph inputs/parameters and contradictions. */
    void (*set_type)(ox_sym *g, ox_vid v, ox_dtype dtype, int rank, const int64_t *sizes);

    /* --- constants --- */
    /* A constant tensor (copied) as an initializer-free onnx::Constant value. */
    ox_vid (*constant)(ox_sym *g, ox_dtype dtype, uint32_t rank, const int64_t *sizes,
                       const void *data);
    ox_vid (*const_ints)(ox_sym *g, const int64_t *v, size_t n); /* 1-D int64 */
    ox_vid (*const_scalar_of)(ox_sym *g, ox_dtype dtype, double v); /* rank-0 tensor */
    /* The seed's _if_scalar_type_as: a rank-0 constant of like's dtype. */
    ox_vid (*scalar_like)(ox_sym *g, double v, ox_vid like);

    /* --- results --- */
    /* Map forward output i of the recorded op to ONNX value v.  Every output
     * up to the declared arity must be set. */
    int (*set_output)(ox_sym *g, size_t i, ox_vid v);

    /* Debug/trace message (printed when the engine is verbose). */
    void (*log)(ox_sym *g, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    /* ================= ABI 1.1 =================
     * (a pack built for 1.0 never reads past here; one built for 1.1 that
     * may load into a 1.0 engine checks struct_size first) */

    /* A limitation: what the target opset cannot express for this node, and
     * lifted_at, the lowest opset that can (0 when no opset can).  For check
     * hooks, where the pre-scan reports it with the node's op and scope (and
     * "supported from opset N"); a symbolic may use it instead of fail for
     * the same fact.  Always returns nonzero. */
    int (*limit)(ox_sym *g, int lifted_at, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
    /* How many outputs the host recorded for this node: the arity of an
     * OX_OP_OUTPUTS_AS_RECORDED operator (else the declared n_outputs). */
    uint32_t (*n_outputs)(ox_sym *g);
    /* Whether this call is a check hook's (nothing may be built). */
    int (*checking)(ox_sym *g);
    /* The element type the host recorded for forward output i (OX_UNDEFINED
     * when it recorded none, or i is past the outputs): what a symbolic that
     * computed in a promoted type casts back to. */
    ox_dtype (*output_dtype)(ox_sym *g, size_t i);

    /* ================= ABI 1.2 =================
     * (check api->abi_minor >= 2 or struct_size before using these) */

    /* Subgraphs: the bodies of Scan, Loop and If (GRAPH attributes).
     * body_begin starts a graph whose n_inputs inputs have element types
     * dtypes[i] and ranks ranks[i] (-1: unknown; sizes are left unknown) and
     * writes their ids to inputs[i].  Until the matching body_end, op,
     * op_domain, constant and the other builders add nodes to that body, and
     * dtype/rank/size/const_data read its values.  A body is closed: a value
     * of an enclosing graph (an arg_tensor, a node output from before
     * body_begin) used in it is refused; pass what it needs as its inputs
     * (Scan's scan inputs and state, Loop's carried values).  Returns 0, or
     * nonzero with the error recorded.  Bodies nest up to 8 deep.
     *
     * body_end makes outputs[0..n_outputs) (values of the body) its outputs,
     * checks each node of the body against its ONNX schema as a symbolic's
     * nodes are checked, and returns the body for attr_graph on the node
     * that runs it (NULL, with the error recorded, on failure).  A node
     * handle is valid only in the graph it was made in: set a body node's
     * attributes before body_end, the Scan's after.  Every body_begin needs
     * its body_end before the symbolic returns, and set_output is called
     * outside bodies. */
    int (*body_begin)(ox_sym *g, size_t n_inputs, const ox_dtype *dtypes, const int *ranks,
                      ox_vid *inputs);
    ox_obody *(*body_end)(ox_sym *g, size_t n_outputs, const ox_vid *outputs);
    /* The GRAPH attribute `name` of n holding body (each body once). */
    void (*attr_graph)(ox_onode *n, const char *name, ox_obody *body);

    /* ================= ABI 1.3 =================
     * (check api->abi_minor >= 3 or struct_size before using these) */

    /* As size, for a size the symbolic builds into the file (a window
     * table's length, a pooling kernel, a Reshape target from the recorded
     * dims): where a dynamic input axis reaches that dim, the export warns
     * that the file holds the example's value there.  A size read only to
     * check an argument or pick an error stays a `size` call. */
    int64_t (*fixed_size)(ox_sym *g, ox_vid v, int axis);
};

/* The one symbol a pack exports. */
OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_PLUGIN_H */
