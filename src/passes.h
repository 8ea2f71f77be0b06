/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Graph passes run on every converted graph, in the order pipeline.c's
 * stage table gives.  Each is O(nodes + edges) and takes the graph as its
 * only state, so a new pass is one more row in that table.
 */
#ifndef OXPORT_PASSES_H
#define OXPORT_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "context.h"
#include "ir.h"
#include "strmap.h"

/* What identity removal, DCE and the topological sort would find, from one
 * walk of the nodes: on a graph past the cache each walk costs a memory load
 * a node, and on a traced graph the three passes usually have nothing to do.
 * remove-identity and DCE keep a sorted list sorted (a bypass rewires a
 * consumer to an earlier producer; removals drop nodes), so `sorted` still
 * holds after them. */
typedef struct ox_graph_survey {
    bool forwarding; /* an Identity or eval-mode Dropout remove-identity would bypass */
    bool dead;       /* a node DCE would remove, as the graph stands */
    bool sorted;     /* the list is in the order the sort gives, which it then keeps */
    bool named;      /* a node, or a node's output, carries a name */
} ox_graph_survey;
void ox_pass_survey(const ox_graph *g, ox_graph_survey *s);

/* Rewire uses of Identity and eval-mode Dropout outputs to their input (a
 * node whose output is a graph output stays, so output names survive). */
ox_status ox_pass_remove_identity(ox_context *ctx, ox_graph *g);
/* Remove nodes none of whose outputs is used or a graph output, and
 * parameters nothing uses. */
ox_status ox_pass_dce(ox_context *ctx, ox_graph *g);
/* Topological order, stable: a graph already in order keeps it; otherwise
 * nodes follow creation order except where an input forces a producer first.
 * A cycle is OX_ECHECK. */
ox_status ox_pass_toposort(ox_context *ctx, ox_graph *g);
/* Names: inputs and parameters keep theirs (unnamed ones get their index),
 * other values are numbered in node order from n_inputs + n_params (torch's
 * "%17"); nodes are "<OpType>_<n>".  Collisions get "_1", "_2" ... */
ox_status ox_pass_name(ox_context *ctx, ox_graph *g);
/* The same for a graph whose nodes and node outputs carry no names yet (a
 * survey's `named` is false; the passes between keep it so): nothing on the
 * nodes can take a number first, so one walk names them instead of two. */
ox_status ox_pass_name_unnamed_nodes(ox_context *ctx, ox_graph *g);

/* The one rule that keeps names unique (the naming pass's and the file's,
 * io_layout.c): `base` when `taken` does not hold it, else the first free
 * "base_1", "base_2" ...; the name returned is added to `taken` (suffixed
 * names live in `a`).  NULL out of memory. */
const char *ox_name_claim(ox_arena *a, ox_strset *taken, const char *base);

#endif /* OXPORT_PASSES_H */
