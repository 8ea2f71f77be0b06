/*
 * oxport — command-line front end: dispatches to the subcommands declared in
 * commands.h.  Exit codes are theirs (see commands.h and docs/cli.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <oxport/oxport.h>

#include "build_tree.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"export", cmd_export, "trace a model of the C reference zoo and write an ONNX file"},
    {"dump", cmd_dump, "print an ONNX file in the verbose graph format"},
    {"check", cmd_check, "check an ONNX file against the ONNX rules and operator schemas"},
    {"ops", cmd_ops, "list the operators the symbolic packs convert, per opset"},
    {"plugins", cmd_plugins, "list the symbolic packs found, or check one .so"},
    {"diff", cmd_diff, "compare two ONNX files: structure, and outputs in ONNX Runtime"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* Interrupted mid-write (Ctrl-C, kill): drop the hidden temp file, then die
 * of the same signal so the caller sees what happened. */
static void on_fatal_signal(int sig)
{
    ox_discard_temp_files();
    raise(sig); /* SA_RESETHAND restored the default action */
}

static void handle_signals(void)
{
    /* Past a file size limit (ulimit -f) a write should fail with EFBIG,
     * which the writer reports and cleans up after, rather than kill the
     * process and leave its temp file behind. */
    signal(SIGXFSZ, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    const int fatal[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction old;
        /* a signal ignored on entry (a background job, nohup) stays ignored */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal[i], &sa, NULL);
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: oxport <command> [options] [args]\n"
                 "       oxport --version | --help | help <command>\n\n"
                 "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'oxport help <command>' for a command's options.\n"
                 "Exit status: 0 success, 1 findings (violations, unsupported operators),\n"
                 "2 usage error or unreadable input, 3 failure while writing.\n");
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* Levenshtein distance, capped: names are short, so a small table will do. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return (size_t)-1;
    size_t row[32];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int unknown_command(const char *name)
{
    const char *guess = NULL;
    size_t best = 3; /* suggest only close misspellings */
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t d = edit_distance(name, commands[i].name);
        if (d < best) {
            best = d;
            guess = commands[i].name;
        }
    }
    fprintf(stderr, "oxport: unknown command '%s'", name);
    if (guess)
        fprintf(stderr, "; did you mean '%s'?", guess);
    fprintf(stderr, "\nRun 'oxport --help' for the list of commands.\n");
    return OX_EXIT_USAGE;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return OX_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("oxport %s\n", ox_version());
        return OX_EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return OX_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return OX_EXIT_OK;
        }
        const command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        char help_flag[] = "--help";
        char *sub_argv[] = {argv[2], help_flag, NULL};
        return c->run(2, sub_argv);
    }
    if (name[0] == '-') {
        fprintf(stderr, "oxport: unknown option '%s'\nRun 'oxport --help' for usage.\n", name);
        return OX_EXIT_USAGE;
    }
    const command *c = find_command(name);
    if (!c)
        return unknown_command(name);
    return c->run(argc - 1, argv + 1);
}

/* What a command printed to standard output must have arrived: a listing
 * cut short by a full disk or a closed pipe is a failure (3), not a success. */
static int stdout_written(int rc)
{
    int e = 0;
    bool failed = ferror(stdout) != 0;
    if (fflush(stdout) != 0) {
        failed = true;
        e = errno;
    }
    if (!failed)
        return rc;
    if (e)
        fprintf(stderr, "oxport: cannot write to standard output: %s\n", strerror(e));
    else
        fprintf(stderr, "oxport: cannot write to standard output\n");
    return rc == OX_EXIT_OK || rc == OX_EXIT_FINDINGS ? OX_EXIT_FAILURE : rc;
}

int main(int argc, char **argv)
{
    ox_cli_use_build_tree();
    handle_signals();
    return stdout_written(dispatch(argc, argv));
}
