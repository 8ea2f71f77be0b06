/* Every declaration table of the aten pack, one per family file: pack.c
 * includes this list twice (declarations, then the table of tables).  A new
 * family file adds its line here and to meson.build. */
AT_FAMILY(at_ops_unsorted)
