/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
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

/* What outlives one symbolic call inside a conversion.  Every vid a pack
 * sees carries the conversion's tag in its top OX_VID_TAG_BITS bits, so an
 * id kept from another graph (or a traced id) is rejected instead of wiring
 * whatever value has that number here; node handles carry the serial of the
 * call that made them, so one kept past its call is refused. */
#define OX_VID_TAG_BITS 8u
#define OX_VID_INDEX_BITS (32u - OX_VID_TAG_BITS)
#define OX_VID_INDEX_MAX ((1u << OX_VID_INDEX_BITS) - 1u)

typedef struct ox_sym_session {
    ox_sym *current; /* the call under way, NULL between calls */
    uint32_t serial; /* of the current call */
    uint32_t tag;    /* 1 .. 2^OX_VID_TAG_BITS - 1 */
} ox_sym_session;

/* A fresh tag for a conversion (cycles, never 0). */
uint32_t ox_sym_new_tag(void);

/* Bodies (api->body_begin) nest at most this deep. */
#define OX_SYM_MAX_BODY_DEPTH 8

/* What body_begin saved of the enclosing graph, restored by body_end. */
typedef struct ox_sym_frame {
    ox_graph *outer;
    uint32_t outer_tag;
    uint32_t outer_first_node_id;
} ox_sym_frame;

struct ox_sym {
    ox_sym_session *session;
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
    uint32_t first_node_id; /* the first output-graph node this call creates */
    char *err;              /* malloc'd; set by api->fail or an engine-side misuse */
    bool oom;
    /* ABI 1.1 */
    const ox_op_decl *decl; /* the engine's copy of the declaration: defaults */
    ox_targ dflt;           /* scratch: the default an unrecorded argument reads as */
    bool checking;          /* a check hook's call: reads only, builds nothing */
    bool limited;           /* err came from api->limit */
    int lifted_at;          /* api->limit's opset (0: none lifts it) */
    /* ABI 1.2: bodies under construction, innermost last; while one is,
     * `out` is that body and the session's tag is the body's. */
    ox_sym_frame frames[OX_SYM_MAX_BODY_DEPTH];
    uint32_t n_frames;
    uint32_t n_bodies_made; /* names bodies uniquely within the call */
};

struct ox_onode {
    ox_node *node;
    ox_graph *graph; /* the graph (main or body) the node was made in */
    ox_sym_session *session;
    uint32_t serial; /* the call that created it */
};

/* Record an error on the call (the first one wins).  Returns -1. */
int ox_sym_error(ox_sym *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* After a symbolic returns: bodies it left open are closed (the enclosing
 * graph restored) and an error is recorded.  Returns the number closed. */
uint32_t ox_sym_close_bodies(ox_sym *g);

/* True when v (an output-graph vid) is a constant whose bytes are known:
 * an OX_VAL_CONST value or the output of an onnx::Constant node. */
const ox_tensor_data *ox_sym_const_tensor(const ox_graph *g, ox_vid v, ox_dtype *dtype,
                                          size_t *n_elems);

/* Run an operator's check hook (of the pack at path `pack`) on traced node n
 * at the target opset.
 * Returns 0 when the node is convertible; else 1 with *msg (malloc'd, NULL
 * on out of memory) and *lifted_at set.  A hook that returns nonzero
 * without api->limit, or tries to build, gets a message saying so. */
int ox_sym_run_check(ox_context *ctx, const ox_graph *traced, int opset, const ox_node *n,
                     const ox_op_decl *decl, const char *pack, char **msg, int *lifted_at);

#endif /* OXPORT_SYMBOLIC_API_H */
