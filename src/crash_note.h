/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * A note on stderr naming the pack, operator and scope when pack code
 * crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) inside a call the
 * engine made into it — symbolic, check hook or init — instead of a bare
 * "Segmentation fault".  The handlers are installed once, on the first
 * call, and chain to whatever was installed before (the host's, ASan's, the
 * default): after the note the previous action runs as if oxport had not
 * been there.  OXPORT_NO_CRASH_NOTE=1 leaves the signal handlers alone.
 */
#ifndef OXPORT_CRASH_NOTE_H
#define OXPORT_CRASH_NOTE_H

/* What the calling thread is about to run: `what` ("symbolic", "check
 * hook", "init"), the pack's path, the operator and its scope (may be NULL).
 * The strings must stay valid until ox_crash_note_leave. */
void ox_crash_note_enter(const char *what, const char *pack, const char *op, const char *scope);
void ox_crash_note_leave(void);

#endif
