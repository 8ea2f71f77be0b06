/* Every declaration table of the aten pack, one per family file: pack.c
 * includes this list twice (declarations, then the table of tables).  A new
 * family file adds its line here and to meson.build. */
AT_FAMILY(at_ops_activation)
AT_FAMILY(at_ops_conv)
AT_FAMILY(at_ops_pool)
AT_FAMILY(at_ops_dropout)
AT_FAMILY(at_ops_linear)
AT_FAMILY(at_ops_normalization)
AT_FAMILY(at_ops_softmax)
AT_FAMILY(at_ops_embedding)
AT_FAMILY(at_ops_rnn)
AT_FAMILY(at_ops_triangle)
AT_FAMILY(at_ops_roll)
AT_FAMILY(at_ops_pad)
AT_FAMILY(at_ops_unsorted)
