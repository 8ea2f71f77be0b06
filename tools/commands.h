/*
 * Subcommands of the oxport CLI.  Each takes the arguments after its name
 * (argv[0] is the subcommand name) and returns the process exit status:
 *   0 success, 1 the input was processed and found wanting (check violations,
 *   unsupported operators), 2 usage error or unreadable input, 3 internal or
 *   I/O failure while writing.
 */
#ifndef OXPORT_TOOLS_COMMANDS_H
#define OXPORT_TOOLS_COMMANDS_H

#define OX_EXIT_OK 0
#define OX_EXIT_FINDINGS 1
#define OX_EXIT_USAGE 2
#define OX_EXIT_FAILURE 3

int cmd_export(int argc, char **argv);  /* cmd_export.c: the C reference host's zoo */
int cmd_dump(int argc, char **argv);    /* cmd_dump.c */
int cmd_check(int argc, char **argv);   /* cmd_check.c */
int cmd_ops(int argc, char **argv);     /* cmd_ops.c */
int cmd_plugins(int argc, char **argv); /* cmd_plugins.c */
int cmd_diff(int argc, char **argv);    /* cmd_diff.c */

#endif /* OXPORT_TOOLS_COMMANDS_H */
