/*
 * Running the CLI straight from a build directory (the README's first
 * command) should use that build's packs and the source tree's opset
 * descriptors, not whatever is installed.  The installed copy of the binary
 * lives elsewhere, so it never takes this path.
 */
#include "build_tree.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ox_cli_use_build_tree(void)
{
#if defined(OXPORT_CLI_BUILD_PATH) && defined(OXPORT_BUILD_ROOT) && defined(OXPORT_SOURCE_ROOT)
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    char built[PATH_MAX];
    if (!realpath(OXPORT_CLI_BUILD_PATH, built) || strcmp(self, built) != 0)
        return;
    /* Explicit settings from the user still win (setenv with overwrite 0). */
    /* This build's packs are the built-in ones: OXPORT_PLUGIN_PATH still adds in front. */
    setenv("OXPORT_BUILTIN_PLUGIN_PATH",
           OXPORT_BUILD_ROOT "/plugins/aten:" OXPORT_BUILD_ROOT "/plugins/nn_functions", 0);
    /* the built-in descriptors: OXPORT_OPSET_DIR and a config's opset_dir still rank above */
    setenv("OXPORT_BUILTIN_OPSET_DIR", OXPORT_SOURCE_ROOT "/opset", 0);
    /* `oxport diff --run`: the source tree's ONNX Runtime runner */
    setenv("OXPORT_ORT_RUNNER", OXPORT_SOURCE_ROOT "/tools/ort/run.js", 0);
#endif
}
