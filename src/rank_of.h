/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The rank of a value a symbolic built, where ONNX's own rules fix it: a
 * Cast or another elementwise operator keeps its input's rank, a
 * broadcasting one takes the largest of its inputs'.  Symbolics ask
 * api->rank of values they just made (a promoted operand is a Cast of the
 * recorded one), and the conversion records no shape for those.
 */
#ifndef OXPORT_RANK_OF_H
#define OXPORT_RANK_OF_H
#include "ir.h"

/* v's rank: its recorded one when known, else the one ONNX's rules give
 * its producer's output from its inputs' ranks (followed a few producers
 * deep); -1 when neither tells. */
int ox_rank_of(const ox_graph *g, const ox_value *v);

#endif /* OXPORT_RANK_OF_H */
