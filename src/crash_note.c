/* Crash notes for pack code (crash_note.h). */
#include "crash_note.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct note {
    const char *what, *pack, *op, *scope;
    int active;
} note;

static _Thread_local note current;

static const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_SIGNALS (sizeof signals / sizeof signals[0])
static struct sigaction previous[N_SIGNALS];

static void put(const char *s)
{
    if (!s)
        return;
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "a signal";
    }
}

/* Async-signal-safe: write(2) only, then the previous action.  For a fault,
 * returning re-runs the faulting instruction, which now meets the previous
 * handler with the true context; a signal that was sent (abort, raise,
 * kill) is sent again. */
static void on_crash(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    size_t k = 0;
    while (k < N_SIGNALS && signals[k] != sig)
        k++;
    if (current.active) {
        current.active = 0; /* a crash inside the note never loops */
        put("oxport: pack ");
        put(current.pack);
        put(" crashed (");
        put(signal_name(sig));
        put(") in its ");
        put(current.what);
        if (current.op) {
            put(" for ");
            put(current.op);
        }
        if (current.scope && *current.scope) {
            put(" at ");
            put(current.scope);
        }
        put("\n");
    }
    if (k < N_SIGNALS)
        sigaction(sig, &previous[k], NULL);
    else
        signal(sig, SIG_DFL);
    if (sig == SIGABRT || !info || info->si_code <= 0) /* SI_USER, SI_TKILL, ...: sent */
        raise(sig);
}

static void install(void)
{
    const char *off = getenv("OXPORT_NO_CRASH_NOTE");
    if (off && *off && strcmp(off, "0") != 0)
        return;
    for (size_t k = 0; k < N_SIGNALS; k++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_crash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        if (sigaction(signals[k], NULL, &previous[k]) != 0)
            continue;
        /* a host that ignores the signal keeps doing so */
        if (previous[k].sa_handler == SIG_IGN)
            continue;
        sigaction(signals[k], &sa, NULL);
    }
}

void ox_crash_note_enter(const char *what, const char *pack, const char *op, const char *scope)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    current.what = what;
    current.pack = pack;
    current.op = op;
    current.scope = scope;
    current.active = 1;
}

void ox_crash_note_leave(void)
{
    current.active = 0;
}
