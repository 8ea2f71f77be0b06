/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The intermediate representation shared by every stage: traced graphs
 * (aten::/fn:: nodes with named arguments) and ONNX graphs (onnx:: nodes with
 * attributes) use the same structures.
 *
 * Ownership: a graph owns all its nodes, values, strings and attribute data
 * in one arena; ox_graph_free releases everything.  Tensor bytes are either
 * borrowed from the host (tensor.owned == 0) or live in the arena.
 */
#ifndef OXPORT_IR_H
#define OXPORT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "oxport/oxport.h"
#include "strmap.h"

/* An argument kind as the opset YAML spells it ("tensor", "ints", ...);
 * "None" for OX_ARG_NONE (an absent optional), "unknown" out of range. */
const char *ox_arg_kind_name(ox_arg_kind k);

typedef struct ox_type {
    ox_dtype dtype;   /* OX_UNDEFINED when unknown */
    int32_t rank;     /* -1 when unknown */
    int64_t *dims;    /* rank entries, -1 = unknown */
    const char **dim_params; /* NULL, or rank entries (NULL = none): symbolic dims */
    /* NULL for a tensor.  A value of another ONNX type (sequence, optional,
     * map, sparse tensor) read from a file carries its printed form here,
     * e.g. "Sequence(Float(1, *))"; dtype is then OX_UNDEFINED and rank -1.
     * The engine only reads such types: the writer refuses them. */
    const char *nontensor;
} ox_type;

typedef enum ox_value_kind {
    OX_VAL_NODE = 0,  /* produced by a node */
    OX_VAL_INPUT = 1, /* graph input */
    OX_VAL_PARAM = 2, /* parameter -> initializer */
    OX_VAL_CONST = 3  /* constant created in forward -> Constant node or initializer */
} ox_value_kind;

/* Tensor bytes: raw little-endian elements; for OX_STRING, each element as
 * a NUL-terminated string, back to back (a string read from a file is cut
 * at its first NUL). */
typedef struct ox_tensor_data {
    const void *data; /* borrowed or arena-owned */
    uint64_t nbytes;
    bool owned;
} ox_tensor_data;

typedef struct ox_node ox_node;

/* The fields are ordered so the struct packs into 112 bytes, which the
 * arena's 16-byte rounding keeps (at 120 it took 128): a graph holds one a
 * value, millions in a large one. */
typedef struct ox_value {
    ox_vid id;
    ox_value_kind kind;
    const char *name;     /* may be NULL until the naming pass */
    ox_type type;
    ox_node *producer;    /* for OX_VAL_NODE */
    uint32_t producer_index;
    uint32_t n_uses;      /* number of node input slots referring to it */
    ox_tensor_data tensor; /* PARAM / CONST */
    /* A PARAM whose bytes are read on demand (ox_trace_param_reader, _file,
     * _fd; param_source.h): tensor.data is NULL, tensor.nbytes their count,
     * and only the writer reads them, in bounded chunks. */
    const struct ox_tensor_source *source;
    const char *doc;
    bool is_output;
    /* A parameter the file it was read from also listed as a graph input
     * (the IR <= 3 layout): io_layout.c keeps that layout when writing it. */
    bool listed_as_input;
    /* Named in an ox_observed entry of its graph: kept alive (as a graph
     * output is) until the pipeline has asked whether it can vary. */
    bool observed;
} ox_value;

/* ONNX attribute kinds: numbers are AttributeProto.AttributeType's. */
typedef enum ox_attr_kind {
    OX_ATTR_FLOAT = 1,
    OX_ATTR_INT = 2,
    OX_ATTR_STRING = 3,
    OX_ATTR_TENSOR = 4,
    OX_ATTR_GRAPH = 5,
    OX_ATTR_FLOATS = 6,
    OX_ATTR_INTS = 7,
    OX_ATTR_STRINGS = 8,
    OX_ATTR_TENSORS = 9,
    /* Read from files, never produced by conversion (the writer refuses
     * the text-only ones): */
    OX_ATTR_GRAPHS = 10,         /* u.graphs */
    OX_ATTR_SPARSE_TENSOR = 11,  /* u.s: a summary, "SparseTensor(Float(3, 4), 2 values)" */
    OX_ATTR_SPARSE_TENSORS = 12, /* u.strings: summaries */
    OX_ATTR_TYPE_PROTO = 13,     /* u.s: the type, printed as "Optional(Sequence(Float))" */
    OX_ATTR_TYPE_PROTOS = 14     /* u.strings: types */
} ox_attr_kind;

/* A tensor held inside an attribute (e.g. Constant's value). */
typedef struct ox_attr_tensor {
    ox_dtype dtype;
    uint32_t rank;
    int64_t *dims;
    ox_tensor_data data;
    const char *name;
} ox_attr_tensor;

typedef struct ox_attr {
    const char *name;
    ox_attr_kind kind;
    /* Inside a function body: the calling node's attribute this one takes
     * its value from (AttributeProto.ref_attr_name); u is then unused.
     * NULL otherwise. */
    const char *ref;
    union {
        double f; /* FLOAT (stored as double, written as float32) */
        int64_t i;
        struct { const char *p; size_t len; } s; /* STRING: bytes, may hold NULs */
        ox_attr_tensor *t;
        struct { double *p; size_t n; } floats;
        struct { int64_t *p; size_t n; } ints;
        struct { const char **p; size_t n; } strings;
        struct { ox_attr_tensor **p; size_t n; } tensors;
        struct ox_graph *g; /* GRAPH: kept from files read, not written by conversion */
        struct { struct ox_graph **p; size_t n; } graphs;
    } u;
} ox_attr;

/* A recorded argument of a traced node (deep-copied into the arena). */
typedef struct ox_targ {
    const char *name;
    ox_arg_kind kind;
    union {
        ox_vid tensor;
        int64_t i;
        double f;
        const char *s;
        struct { int64_t *p; size_t n; } ints;
        struct { double *p; size_t n; } floats;
        struct { ox_vid *p; size_t n; } tensors;
    } u;
} ox_targ;

struct ox_node {
    /* The counts sit together ahead of the pointers, so the node packs into
     * 128 bytes, the arena's rounding, without padding: every pass walks
     * every node. */
    uint32_t id;          /* creation order, stable */
    uint32_t n_inputs;
    uint32_t n_outputs;
    uint32_t n_attrs;
    uint32_t n_args;
    /* 1 + the row of the operator schema table (onnx_schemas.h) the node was
     * last looked up as, 0 when none: conversion and the checker look each
     * node's schema up several times.  A hint only: schema_check.c checks
     * the row's operator, domain and version range before it trusts it. */
    uint32_t schema_row;
    /* The kind string schema_row was noted with.  A node's kind, domain and
     * op_type are set together (ir.c), and a changed kind is a new string:
     * while kind is this one, the row's operator and domain are the node's
     * and only the version range is left to check. */
    const char *schema_kind;
    const char *kind;     /* "aten::conv2d", "fn::ConstantPadNd", "onnx::Conv", "com.microsoft::Foo" */
    const char *domain;   /* "" for the ONNX default domain; otherwise as written */
    const char *op_type;  /* part after "::" */
    const char *name;     /* node name (may be NULL until naming) */
    const char *scope;    /* "AlexNet/Sequential[features]/Conv2d[0]" or "" */
    const char *doc;      /* doc_string read from a file (the scope is written as doc_string) */
    ox_vid *inputs;       /* 0 = absent optional input */
    ox_vid *outputs;
    ox_attr *attrs;       /* ONNX nodes */
    ox_targ *args;        /* traced nodes; their tensor args are also listed in inputs */
    ox_node *prev, *next; /* topological order */
};

typedef struct ox_opset_import {
    const char *domain; /* "" = ai.onnx */
    int64_t version;
} ox_opset_import;

/* A model-local function (ONNX FunctionProto, ModelProto field 25).  Its
 * body is a graph of its own: the function's inputs are the body's graph
 * inputs (untyped), its outputs the body's outputs; a body has no
 * initializers.  The model's graph owns each body (ox_graph_free). */
typedef struct ox_function {
    const char *name;
    const char *domain;  /* "" = the default domain, as written */
    const char *doc;
    const char **attributes; /* attribute names (FunctionProto.attribute) */
    uint32_t n_attributes;
    struct ox_graph *body; /* its opsets are the function's opset_import */
} ox_function;

/* A sparse initializer (GraphProto.sparse_initializer) of a graph read
 * from a file.  Its value has kind OX_VAL_PARAM and a non-tensor type
 * ("SparseTensor(Float(3, 4))"), so nodes read it by name; it is not among
 * the graph's params, which are dense tensors with their bytes.  The engine
 * lists and checks sparse initializers, and the writer refuses them.  The
 * fields are as the file holds them (ox_check judges them against ONNX's
 * rules); the tensors live as long as the graph. */
typedef struct ox_sparse_param {
    ox_vid id;
    uint32_t rank;            /* the dense shape */
    int64_t *dims;
    ox_attr_tensor *values;   /* [NNZ] of the element type */
    ox_attr_tensor *indices;  /* NULL, or int64: [NNZ] linear or [NNZ, rank] coordinates */
} ox_sparse_param;

/* NNZ: the values' first dimension (their count when they have another rank). */
uint64_t ox_sparse_param_nnz(const ox_sparse_param *s);

/* Values the host made a constant of its own from (ox_trace_fixed_values):
 * the export warns with `message` unless every one of them is the same on
 * every run of the file (pipeline.c's "observed" stage). */
typedef struct ox_observed {
    const ox_vid *values; /* arena-owned */
    uint32_t n_values;
    const char *message;  /* one line, arena-owned */
} ox_observed;

struct ox_graph {
    ox_arena arena;
    const char *name;
    const char *doc;
    /* values[id] for id in [1, n_values); values[0] is NULL */
    ox_value **values;
    uint32_t n_values, cap_values;
    ox_node *first, *last;
    uint32_t n_nodes;
    uint32_t next_node_id;
    /* Graph inputs in declaration order (OX_VAL_INPUT). */
    ox_vid *inputs;
    uint32_t n_inputs, cap_inputs;
    /* Parameters and initializers in declaration order (OX_VAL_PARAM; files
     * read put every initializer here). */
    ox_vid *params;
    uint32_t n_params, cap_params;
    ox_vid *outputs;
    uint32_t n_outputs, cap_outputs;
    /* Sparse initializers of a graph read from a file, in file order
     * (arena-owned). */
    ox_sparse_param *sparse;
    uint32_t n_sparse;
    /* Every value made as OX_VAL_CONST, in id order (it may have become a
     * parameter or a node's output since: check the kind), so the passes
     * that look for constants read these, not all the graph's values. */
    ox_vid *consts;
    uint32_t n_consts, cap_consts;
    /* What the host fixed in its own code, in the order it said so. */
    ox_observed *observed;
    uint32_t n_observed, cap_observed;
    /* Model-level metadata (set for ONNX graphs / files read). */
    int64_t ir_version;
    ox_opset_import *opsets;
    uint32_t n_opsets, cap_opsets;
    /* domain -> position in opsets, kept once there are more than a few
     * (a file may import thousands of custom domains, and every node's
     * domain is looked up); a hint checked against opsets on each use, so
     * code that reorders opsets needs not keep it. */
    ox_strmap opset_index;
    const char *producer_name;
    const char *producer_version;
    /* Model-local functions, in file order (bodies owned by this graph). */
    ox_function *functions;
    uint32_t n_functions, cap_functions;
    /* Subgraphs conversion built (bodies of Scan, Loop, If: GRAPH attributes
     * of this graph's nodes or of nodes of those bodies), owned by this graph
     * so they live as long as the attributes that point at them. */
    struct ox_graph **bodies;
    uint32_t n_bodies, cap_bodies;
    /* Bytes that must stay alive (e.g. a mapped file a reader borrowed from);
     * released with mapping_free(mapping, mapping_len) by ox_graph_free. */
    void *mapping;
    size_t mapping_len;
    void (*mapping_free)(void *mapping, size_t len);
    bool is_onnx; /* true after conversion or when read from a file */
    bool is_trace; /* made by ox_trace_finish: its nodes are the host's, not ONNX's */
    /* What the ids a host holds are offset by (ox_graph_host_value): a
     * traced graph hands out id + host_base, so an id of another trace or
     * one no trace returned falls outside this graph's range and is
     * refused, not taken for another value.  0 for every other graph. */
    uint32_t host_base;
    /* Every node kind of the graph, once: nodes of one kind share its string
     * (ir.c's set_kind), which saves a copy a node, and lets per-kind
     * lookups remember a kind by its pointer (route.c). */
    ox_strmap kinds;
    /* The same for traced nodes' argument names ("self", "dim" ...). */
    ox_strmap arg_names;
    /* The kind strings ox_graph_add_node_op last made or found, by the
     * address of the op_type it was given: a symbolic passes the same
     * literal for every node it builds, so a hit skips building and hashing
     * "domain::op".  A hint only: the string is compared before it is used
     * (ir.c's kind_hint_matches). */
    struct ox_kind_hint {
        const char *op_arg; /* the op_type pointer it was asked for */
        const char *kind;   /* the shared kind string */
        /* The last node made with it: a new node of the kind starts with
         * that node's noted schema row (ox_node.schema_row), which the
         * schema lookup then checks only for its version range. */
        const ox_node *last;
    } kind_hints[16];
};

/* Owned tensor bytes of at least this size are malloc'd (freed by
 * ox_graph_free) instead of living in the arena, to keep arena chunks small. */
#define OX_IR_MALLOC_THRESHOLD ((uint64_t)65536)

/* --- construction --- */
ox_graph *ox_graph_new(const char *name);
/* An argument name as the graph's nodes share it (ox_graph.arg_names): a
 * copy in the arena, made once per distinct name.  NULL out of memory. */
const char *ox_graph_arg_name(ox_graph *g, const char *name);
/* New value with a copy of the type (dims/dim_params may be NULL). */
ox_value *ox_graph_add_value(ox_graph *g, ox_value_kind kind, ox_dtype dtype, int32_t rank,
                             const int64_t *dims);
/* NULL when out of range.  Inline: every pass calls it per edge, dozens of
 * times per node. */
static inline ox_value *ox_graph_value(const ox_graph *g, ox_vid id)
{
    if (!g || id == 0 || id >= g->n_values)
        return NULL;
    return g->values[id];
}
/* The value a host's id names (the id a trace call returned), NULL when
 * this graph did not hand it out. */
static inline ox_value *ox_graph_host_value(const ox_graph *g, ox_vid host_id)
{
    return g && host_id ? ox_graph_value(g, host_id - g->host_base) : NULL;
}
/* The id a host gets for value `id` (0 stays 0). */
static inline ox_vid ox_graph_host_id(const ox_graph *g, ox_vid id)
{
    return id ? id + g->host_base : 0;
}
/* Replace a value's type (dims copied; dim_params cleared). */
int ox_value_set_type(ox_graph *g, ox_value *v, ox_dtype dtype, int32_t rank, const int64_t *dims);
int ox_value_set_dim_param(ox_graph *g, ox_value *v, uint32_t axis, const char *name);
/* Copy tensor bytes into storage owned by the graph. */
int ox_tensor_own(ox_graph *g, ox_tensor_data *t, const void *data, uint64_t nbytes);
/* New node appended at the end; inputs copied; outputs created as new values
 * (types undefined) unless n_outputs == 0.  kind is "domain::op_type"; for
 * "onnx::X" the domain is "". */
ox_node *ox_graph_add_node(ox_graph *g, const char *kind, uint32_t n_inputs, const ox_vid *inputs,
                           uint32_t n_outputs);
/* The same with the kind's two parts apart: domain ("onnx" for the default
 * one) and op_type; kind becomes "<domain>::<op_type>". */
ox_node *ox_graph_add_node_op(ox_graph *g, const char *domain, const char *op_type,
                              uint32_t n_inputs, const ox_vid *inputs, uint32_t n_outputs);
void ox_graph_remove_node(ox_graph *g, ox_node *n); /* unlinks, updates use counts */
/* Move a node without touching use counts (for reordering passes). */
void ox_graph_unlink_node(ox_graph *g, ox_node *n);
void ox_graph_append_node(ox_graph *g, ox_node *n);
/* Move node n (linked or not) to just after `after`. */
void ox_graph_move_after(ox_graph *g, ox_node *after, ox_node *n);
/* Relink the graph's nodes as order[0..n) (every node of the graph, once). */
void ox_graph_set_order(ox_graph *g, ox_node *const *order, size_t n);
/* Rewire every use of `from` to `to` (node inputs, traced args, graph outputs).
 * O(nodes): fine for a one-off rewrite; passes rewrite many values in one sweep. */
void ox_graph_replace_uses(ox_graph *g, ox_vid from, ox_vid to);
/* The named operations below are the only code that writes the IR's
 * invariants (producer links, use counts, value and node kinds); every
 * stage goes through them.
 *
 * Point input slot i of n at `to`, moving one use from the old value. */
void ox_node_redirect_input(ox_graph *g, ox_node *n, uint32_t i, ox_vid to);
/* Give n (created with no outputs) the existing values `outs` as its
 * outputs (0 = an absent optional output; outs NULL = all absent, to be set
 * one by one): each becomes OX_VAL_NODE, produced by n at its index.
 * -1 out of memory. */
int ox_node_set_outputs(ox_graph *g, ox_node *n, uint32_t n_outputs, const ox_vid *outs);
/* Make existing value v output i of n (i < n->n_outputs). */
void ox_node_set_output(ox_graph *g, ox_node *n, uint32_t i, ox_vid v);
/* Set a node's domain and op type as given (kind becomes "domain::op",
 * "onnx::op" for the default domain), for names that would not survive
 * splitting a "::" kind.  -1 out of memory. */
int ox_node_set_kind(ox_graph *g, ox_node *n, const char *domain, const char *op_type);
/* Turn n into an onnx::Constant holding `t` (in the graph's arena): its
 * inputs lose their uses, its attributes are replaced, output 0 takes t's
 * type.  -1 out of memory. */
int ox_node_become_constant(ox_graph *g, ox_node *n, ox_attr_tensor *t);
/* The same with the tensor made from a copy of `data` (nbytes bytes of
 * dtype, shaped rank/dims) in the graph's arena: what a folding pass that
 * worked a node's result out writes.  -1 out of memory. */
int ox_node_become_constant_copy(ox_graph *g, ox_node *n, ox_dtype dtype, uint32_t rank,
                                 const int64_t *dims, const void *data, uint64_t nbytes);
/* A forward-created constant (OX_VAL_CONST) becomes a parameter: written as
 * an initializer.  -1 out of memory. */
int ox_value_become_param(ox_graph *g, ox_vid v);
/* A forward-created constant becomes the output of a new onnx::Constant
 * node holding its bytes (the node is returned, NULL out of memory). */
ox_node *ox_value_become_constant_node(ox_graph *g, ox_vid v);
/* The inverse: Constant node n's output becomes an initializer holding the
 * node's value tensor (same id, name and uses) and n leaves the graph.
 * -1 out of memory or when n is not a one-output Constant with a tensor. */
int ox_constant_node_become_param(ox_graph *g, ox_node *n);

int ox_graph_add_input(ox_graph *g, ox_vid v);
int ox_graph_add_param(ox_graph *g, ox_vid v);
/* Take the parameters nothing uses (no use, not a graph output) off the list. */
void ox_graph_drop_unused_params(ox_graph *g);
int ox_graph_add_output(ox_graph *g, ox_vid v);
/* Adds an ox_observed entry of the n values (ids of g; 0 for one that was
 * not kept, which counts as varying) and marks them observed; the ids and
 * the message are copied.  -1 out of memory. */
int ox_graph_add_observed(ox_graph *g, const ox_vid *values, uint32_t n, const char *message);
/* Clears the observed marks and entries (the values then live or die by
 * their uses again). */
void ox_graph_clear_observed(ox_graph *g);
int ox_graph_set_opset(ox_graph *g, const char *domain, int64_t version); /* adds or raises */
int64_t ox_graph_opset(const ox_graph *g, const char *domain); /* 0 when absent */
/* A new, empty function of g (name and domain copied; body an empty graph
 * named after it that g now owns).  NULL out of memory. */
ox_function *ox_graph_add_function(ox_graph *g, const char *domain, const char *name);
/* The function (domain, name) of g, NULL when g has none; "ai.onnx" and ""
 * name the same domain. */
const ox_function *ox_graph_function(const ox_graph *g, const char *domain, const char *name);
/* A new, empty ONNX graph named `name` that g owns (freed by ox_graph_free
 * of g), for a GRAPH attribute built during conversion.  NULL out of memory. */
ox_graph *ox_graph_add_body(ox_graph *g, const char *name);

/* Attributes on ONNX nodes (data copied into the graph arena). */
ox_attr *ox_node_add_attr(ox_graph *g, ox_node *n, const char *name, ox_attr_kind kind);
const ox_attr *ox_node_attr(const ox_node *n, const char *name);
/* INT attribute `name` of n, or dflt when n has none of that kind. */
int64_t ox_node_attr_int(const ox_node *n, const char *name, int64_t dflt);
/* Recorded argument of a traced node by name (NULL when not recorded). */
const ox_targ *ox_node_arg(const ox_node *n, const char *name);
/* The same, trying argument `hint` first (ox_param_find_at says why). */
const ox_targ *ox_node_arg_at(const ox_node *n, const char *name, uint32_t hint);

/* IR version for a default-domain opset: the table in docs/onnx-writer.md
 * ("ir_version"), after ONNX's own versioning table. */
int64_t ox_ir_version_for_opset(int64_t opset);

#endif /* OXPORT_IR_H */
