/* The aten pack's descriptor.  Every family file (conv.c, pool.c, ...)
 * declares its operators next to their symbolics in a table of its own,
 * listed in aten_families.h; the entry point joins the tables once, so
 * adding an operator touches only its family's file. */
#include <pthread.h>
#include <string.h>

#include "aten_family.h"

#define AT_FAMILY(table) extern const ox_op_decl table[]; extern const uint32_t table##_n;
#include "aten_families.h"
#undef AT_FAMILY

typedef struct family {
    const ox_op_decl *ops;
    const uint32_t *n;
} family;

static const family families[] = {
#define AT_FAMILY(table) {table, &table##_n},
#include "aten_families.h"
#undef AT_FAMILY
};

/* Room for every row; a static assert in build_table() would need the sum at
 * compile time, so an overflow is reported by leaving the table empty (the
 * loader then refuses the pack with "no operators"). */
#define AT_MAX_OPS 1024
static ox_op_decl all_ops[AT_MAX_OPS];
static ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "aten",
    "0.2.0",
    "ATen operators: convolution, pooling, linear algebra, activations, shape ops, RNNs",
    all_ops,
    0,
    NULL,
    NULL,
};

static void build_table(void)
{
    uint32_t n = 0;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        if (n + *families[f].n > AT_MAX_OPS)
            return;
        memcpy(all_ops + n, families[f].ops, *families[f].n * sizeof(ox_op_decl));
        n += *families[f].n;
    }
    desc.n_ops = n;
}

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_table);
    return &desc;
}
