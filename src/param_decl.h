/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * A pack's parameter declarations in the engine's one form.  Packs built
 * for ABI 1.0 declare {name, kind}; 1.1 packs add alternative kinds, an
 * optional flag and a default.  The loader reads either layout into full
 * ox_param_decl rows (this file), so everything after loading — the
 * pre-scan, argument reads, `oxport ops`, generated docs — reads one form
 * and asks one function whether a recorded argument fits.
 */
#ifndef OXPORT_PARAM_DECL_H
#define OXPORT_PARAM_DECL_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"
#include "report.h"
#include "oxport/plugin.h"

/* Engine-only flag on rows read from a 1.0 pack: the parameter may be left
 * out or None, and the symbolic's code supplies its default (1.0 had no way
 * to say either, so every non-tensor parameter was treated so). */
#define OX_PARAM_CODE_DEFAULT 0x80000000u

/* The 1.0 row layout, as the frozen 1.0 header defines it. */
typedef struct ox_param_decl_1_0 {
    const char *name;
    ox_arg_kind kind;
} ox_param_decl_1_0;

/* Smallest stride a 1.1 pack may declare: the 1.1 row up to its default. */
#define OX_PARAM_DECL_MIN_1_1 (offsetof(ox_param_decl, dflt) + sizeof(ox_default))

/* Read an operator's n parameter rows, laid out with `stride` bytes each
 * (abi_minor 0: the 1.0 layout, stride ignored), into out[n].  Every
 * problem goes to r naming pack `path` and operator `op`; returns the
 * number of problems. */
size_t ox_params_read(const char *path, const char *op, unsigned abi_minor, const void *rows,
                      uint32_t n, uint32_t stride, ox_param_decl *out, ox_report *r);

/* The declared parameter called name, or NULL: the one lookup by name. */
const ox_param_decl *ox_param_find(const ox_op_decl *d, const char *name);
/* The same, trying parameter `hint` first: hosts record the arguments in
 * their declared order, so the pre-scan's i-th argument is nearly always
 * the i-th parameter, found without a scan. */
const ox_param_decl *ox_param_find_at(const ox_op_decl *d, const char *name, uint32_t hint);

/* Whether a recorded argument of kind `got` fits the parameter: its kind or
 * an alternative kind accepts it, or it is None and the parameter is
 * optional.  The one kind-compatibility rule of the engine. */
bool ox_param_accepts(const ox_param_decl *p, ox_arg_kind got);

/* Whether the host must record the argument. */
bool ox_param_required(const ox_param_decl *p);

/* The parameter's default as a recorded argument (name set, pointers into
 * the pack's static data).  False when it has none. */
bool ox_param_default_arg(const ox_param_decl *p, ox_targ *out);

/* "ints|string" (kind and alternatives); "?" appended when optional. */
void ox_param_kind_text(const ox_param_decl *p, char *buf, size_t cap);

/* The default as Python would write it ("None", "1", "0.5", "True",
 * "'none'", "[1, 1]"), "" when there is none or the code supplies it. */
void ox_param_default_text(const ox_param_decl *p, char *buf, size_t cap);

#endif
