/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * What the file knows of each value's shape, in one analysis: which values
 * have a shape the file fixes, for the constant-folding sweep (fold.c: a
 * Shape or Size of such a value is a constant) and for the writer's
 * value_info; and which values have sizes that depend on the input's values
 * (data-sized), whose traced sizes the writer must not declare.
 */
#ifndef OXPORT_STATIC_SHAPES_H
#define OXPORT_STATIC_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef struct ox_static_shapes {
    uint8_t *fixed; /* per value id: its shape is the same on every run of the file */
    /* per value id: its sizes depend on the input's values, not only on its
     * shape: the outputs of NonZero, NonMaxSuppression, Compress and Unique,
     * and every output of a node that reads one */
    uint8_t *data_sized;
    uint32_t n;
    /* The shape rule ox_static_shapes_note found for a kind string, by its
     * address: the nodes of one kind share one string for the life of the
     * graph (ir.h), so the note looks each kind's rule up once instead of
     * hashing the op_type of every node.  Set by ox_static_shapes_init. */
    struct ox_shape_rule_memo {
        const char *kind;
        const void *rule;   /* its shape_rule, NULL without one */
        bool constant;      /* onnx Constant, which has its own rule */
    } memo[16];
} ox_static_shapes;

/* Graph inputs with every dim known and no dim_param, parameters and
 * constants start fixed; node outputs are decided by ox_static_shapes_note.
 * -1 out of memory. */
int ox_static_shapes_init(const ox_graph *g, ox_static_shapes *s);
void ox_static_shapes_free(ox_static_shapes *s);

/* The analysis of g: `given` when it still describes g (made by the fold
 * sweep, and g has gained no value since: pipeline.h), else one made in
 * *own (init, then every node noted in list order; the caller frees *own).
 * NULL out of memory. */
const ox_static_shapes *ox_static_shapes_of(const ox_graph *g, const ox_static_shapes *given,
                                            ox_static_shapes *own);

/* Turn n into a Constant when it is a Shape or Size of a fixed-shape value
 * whose dims are recorded: 1 folded, 0 left alone, -1 out of memory. */
int ox_static_shapes_fold(ox_graph *g, const ox_static_shapes *s, ox_node *n);

/* Decide whether n's outputs have fixed shapes and whether they are
 * data-sized.  Fixed: n is a Constant, or an
 * operator whose output shapes follow from its inputs' shapes and its
 * attributes, all inputs fixed, and every input whose values set the output
 * shape (Reshape's shape, Slice's starts ...) a constant.  Operators not in
 * the table (NonZero, Unique, Loop, other domains ...) never are.  Call on
 * nodes in topological order, after trying to fold n. */
void ox_static_shapes_note(const ox_graph *g, ox_static_shapes *s, const ox_node *n);

/* Whether value v's shape is fixed (false for ids past the table). */
static inline bool ox_static_shapes_is_fixed(const ox_static_shapes *s, ox_vid v)
{
    return v < s->n && s->fixed[v];
}
/* Whether value v's sizes depend on the input's values (false past the table). */
static inline bool ox_static_shapes_is_data_sized(const ox_static_shapes *s, ox_vid v)
{
    return v < s->n && s->data_sized[v];
}

/* Whether n is an operator of the table whose shape-setting inputs
 * (Reshape's shape, Slice's starts ...) are all absent or constants. */
bool ox_static_shapes_value_inputs_constant(const ox_graph *g, const ox_node *n);

/* The operator table is in strcmp order (for the unit test). */
bool ox_static_shapes_table_sorted(void);

#endif /* OXPORT_STATIC_SHAPES_H */
