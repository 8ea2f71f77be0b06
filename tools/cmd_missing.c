/*
 * Stand-ins for subcommands whose source was not present when this binary
 * was configured (meson defines OX_MISSING_<NAME> for each), so the CLI
 * still links and says plainly what is absent.
 */
#include <stdio.h>

#include "commands.h"

static int not_built(const char *name)
{
    fprintf(stderr, "oxport %s: this command was not built into this binary "
                    "(tools/cmd_%s.c was missing at configure time; re-run meson setup --reconfigure)\n",
            name, name);
    return OX_EXIT_FAILURE;
}

#ifdef OX_MISSING_EXPORT
int cmd_export(int argc, char **argv) { return not_built("export"); }
#endif
#ifdef OX_MISSING_DUMP
int cmd_dump(int argc, char **argv) { return not_built("dump"); }
#endif
#ifdef OX_MISSING_CHECK
int cmd_check(int argc, char **argv) { return not_built("check"); }
#endif
#ifdef OX_MISSING_OPS
int cmd_ops(int argc, char **argv) { return not_built("ops"); }
#endif
#ifdef OX_MISSING_PLUGINS
int cmd_plugins(int argc, char **argv) { return not_built("plugins"); }
#endif
#ifdef OX_MISSING_DIFF
int cmd_diff(int argc, char **argv) { return not_built("diff"); }
#endif
