/*
 * The state of one symbolic call (struct ox_sym) and the ox_api table packs
 * receive.  Conversion fills an ox_sym per traced node, calls the pack's
 * symbolic, then reads back the outputs it set and the error it raised.
 */
#ifndef OXPORT_SYMBOLIC_API_H
#define OXPORT_SYMBOLIC_API_H

#include <stdbool.h>

#include "context.h"
#include "ir.h"
#include "oxport/plugin.h"

struct ox_sym {
    ox_context *ctx;
    int opset;
    const ox_graph *traced;
    const ox_node *node;    /* the traced node being converted */
    ox_graph *out;
    ox_vid *vmap;           /* traced vid -> output-graph vid (0 = not mapped) */
    const char *scope;      /* scope string in the output graph's arena */
    ox_vid *outputs;        /* node->n_outputs slots, 0 = not set yet */
    uint32_t n_outputs;
    long extra_output;      /* first index set beyond n_outputs, -1 = none */
    char *err;              /* malloc'd; set by api->fail or an engine-side misuse */
    bool oom;
};

struct ox_onode {
    ox_node *node;
    ox_sym *sym;
};

/* Record an error on the call (the first one wins).  Returns -1. */
int ox_sym_error(ox_sym *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* True when v (an output-graph vid) is a constant whose bytes are known:
 * an OX_VAL_CONST value or the output of an onnx::Constant node. */
const ox_tensor_data *ox_sym_const_tensor(const ox_graph *g, ox_vid v, ox_dtype *dtype,
                                          size_t *n_elems);

#endif /* OXPORT_SYMBOLIC_API_H */
