/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * Which dims of each value may differ, on another run of the file, from the
 * size the host traced.  The writer declares a graph output's dims from it:
 * a dim that follows a dynamic input axis is written unknown instead of the
 * example's size, and one no dynamic axis reaches keeps its size (a
 * classifier's [batch, 1000] stays [?, 1000], not [2, 1000] and not
 * [?, ?]).
 *
 * Per value a mask, bit i for dim i.  Graph inputs set the bits of their
 * named (dim_param) or unknown dims; parameters and constants set none.  A
 * node's outputs follow from its inputs' bits by its operator's rule (the
 * right-aligned union for elementwise ops, MatMul's rows and columns,
 * Conv's batch and spatial dims, Reshape by a constant shape ...).  An
 * operator without a rule, or one whose shape-setting input is not a
 * constant, varies in every dim of its outputs, unless static_shapes.h
 * already fixed them.  A value of rank above 64 varies everywhere.
 */
#ifndef OXPORT_VARYING_DIMS_H
#define OXPORT_VARYING_DIMS_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "ir.h"
#include "static_shapes.h"

typedef struct ox_varying_dims {
    uint64_t *mask; /* per value id */
    int32_t *rank;  /* per value id: recorded, or worked out by a rule (-1 unknown) */
    /* during ox_varying_dims_compute only: per value id, what a small int64
     * tensor (a computed Reshape target, Slice bounds) holds, element by
     * element (varying_dims.c) */
    struct ox_shape_elems **elems;
    /* with terms only (ox_varying_dims_compute_with_terms): per value id,
     * rank entries or NULL, the term of each dim that varies (0: none) */
    uint32_t **terms;
    uint32_t n_terms;               /* terms handed out */
    struct ox_named_term *named;    /* a term per dim_param name (a list) */
    ox_arena elems_arena;
    uint32_t n;
} ox_varying_dims;

/* Computes every value's mask, walking g's nodes in order (topological).
 * `shapes` is g's static-shape analysis, already noted for every node.
 * -1 out of memory. */
int ox_varying_dims_compute(const ox_graph *g, const ox_static_shapes *shapes,
                            ox_varying_dims *out);
/* The same, keeping what each small int64 value holds (a Shape, a size
 * gathered from it, the arithmetic on it) for ox_varying_dims_known_value
 * until ox_varying_dims_free. */
int ox_varying_dims_compute_keeping_values(const ox_graph *g, const ox_static_shapes *shapes,
                                           ox_varying_dims *out);
/* Whether v, a node's int64 output of rank 0 or 1 with at most
 * OX_VARYING_MAX_ELEMS elements, holds the same values on every run of the
 * file, and which: *len elements into vals, *scalar for rank 0.  A size a
 * dynamic axis does not reach, and arithmetic on such sizes, is; anything the
 * analysis cannot follow is not.  Only after
 * ox_varying_dims_compute_keeping_values. */
#define OX_VARYING_MAX_ELEMS 16
bool ox_varying_dims_known_value(const ox_varying_dims *d, ox_vid v,
                                 int64_t vals[OX_VARYING_MAX_ELEMS], uint32_t *len, bool *scalar);

/* Terms: sizes that are equal on every run.  A dim that varies gets a term
 * where the analysis can tell which size it is: every dim of the inputs
 * named by one dim_param shares one (the file declares them one size), and
 * a rule that passes a dim through unchanged (elementwise ops, Transpose,
 * the batch of a Conv, the dims a Reshape target reads from a Shape ...)
 * passes its term on.  Two sizes with one term are equal however the inputs
 * vary, so a comparison of them comes out the same on every run: Equal,
 * LessOrEqual, GreaterOrEqual true, Less and Greater false.  Only for
 * deciding what a comparison the host made fixed (observed.h): a pass that
 * folds values into the file does not build on the names' promise. */
int ox_varying_dims_compute_with_terms(const ox_graph *g, const ox_static_shapes *shapes,
                                       ox_varying_dims *out);
/* Whether v, a small int64 or bool value the analysis follows element by
 * element, holds the same elements on every run (their values need not be
 * worked out).  Only after a compute that keeps values. */
bool ox_varying_dims_same_every_run(const ox_varying_dims *d, ox_vid v);
/* Whether an input of g has a named or unknown dim: without one nothing
 * varies, and the analysis need not run. */
bool ox_varying_dims_any_input(const ox_graph *g);
/* v's mask; every dim for ids past the table. */
uint64_t ox_varying_dims_of(const ox_varying_dims *d, ox_vid v);
void ox_varying_dims_free(ox_varying_dims *d);

/* The operator table is in strcmp order (for the unit test: bsearch). */
bool ox_varying_dims_table_sorted(void);

/* How n's output 0 takes its rank from its inputs' ranks alone, by the same
 * operator table: OX_RANK_OF_INPUT0 where its shape follows input 0's dim for
 * dim (Cast, the elementwise and normalising operators), OX_RANK_OF_WIDEST
 * where the inputs broadcast (the largest input rank), else
 * OX_RANK_NOT_RULED.  rank_of.c answers a symbolic's api->rank through it. */
typedef enum ox_rank_rule { OX_RANK_NOT_RULED, OX_RANK_OF_INPUT0, OX_RANK_OF_WIDEST } ox_rank_rule;
ox_rank_rule ox_varying_dims_rank_rule(const ox_node *n);

#endif /* OXPORT_VARYING_DIMS_H */
