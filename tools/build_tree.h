#ifndef OXPORT_TOOLS_BUILD_TREE_H
#define OXPORT_TOOLS_BUILD_TREE_H

/* When this binary is the one in its build directory, point the engine at the
 * build's packs and the source opset descriptors (unless the user set them). */
void ox_cli_use_build_tree(void);

#endif
