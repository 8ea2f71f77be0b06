/*
 * ENGINE-INTERNAL (src/README.md): not installed, not for hosts or packs.
 *
 * The writer's file-system side: temp files next to their target (named so a
 * later export can tell a dead writer's leftovers from a live one's), the
 * registry that lets a signal handler unlink them, symlink resolution, and
 * the rename/fsync calls tests replace to inject faults.
 * See docs/onnx-writer.md, "Atomic writes".
 */
#ifndef OXPORT_WRITE_FILES_H
#define OXPORT_WRITE_FILES_H

#include <stdbool.h>

/* The calls a commit makes that can fail after every byte is written.
 * Tests swap them (a failing rename, a counting fsync); nothing else does. */
typedef struct ox_write_fs_ops {
    int (*rename)(const char *from, const char *to);
    int (*fsync)(int fd);
} ox_write_fs_ops;
extern ox_write_fs_ops ox_write_fs;

/* Temp files are ".<base>.oxtmp-<pid>-XXXXXX" in the target's directory;
 * <base> is cut so the name fits NAME_MAX. */
#define OX_TEMP_MARK ".oxtmp-"

typedef struct ox_temp {
    char *path; /* malloc'd, NULL when none */
    int fd;     /* -1 when closed */
    int slot;   /* in the signal-safe registry, -1 when none */
} ox_temp;

#define OX_TEMP_NONE {NULL, -1, -1}

/* Create a temp file next to `target` with the permissions a new file (or the
 * replaced one) would get.  Returns 0 or an errno (ENOMEM included). */
int ox_temp_open(const char *target, ox_temp *t);
/* Close (fsync first when `sync`); the file stays.  Returns 0 or an errno. */
int ox_temp_close(ox_temp *t, bool sync);
/* The temp was renamed into place: forget it without unlinking. */
void ox_temp_committed(ox_temp *t);
/* Close and unlink whatever is left. */
void ox_temp_discard(ox_temp *t);

/* Unlink temps in `dir` left by writers that no longer run (their pid is not
 * alive).  Best effort, errors ignored. */
void ox_temp_clean_stale(const char *dir);

/* The file a write through `path` must replace: `path` itself, or for a
 * symbolic link the end of its chain, which need not exist yet (a dangling
 * link is written through, never replaced).  NULL with errno on ENOMEM or a
 * link loop (ELOOP). */
char *ox_link_destination(const char *path);

/* "dir" of "dir/base" ("." without a slash); malloc'd. */
char *ox_dir_of(const char *path);
const char *ox_base_of(const char *path);
/* Whether two paths name the same directory. */
bool ox_same_dir(const char *a, const char *b);
/* fsync a directory so renames in it survive a power loss; 0 or errno. */
int ox_sync_dir(const char *dir);

/* Put `src`, a finished and closed file (a temp beside `path`), at `path`
 * the way the model writer puts a model: through a symbolic link at the end
 * of its chain; into an existing target that is no regular file (a device
 * such as /dev/null, a FIFO with a reader) by copying, since a rename would
 * replace the device node with a regular file; else by a rename.  `src` is
 * gone afterwards, whatever the result.  0 or an errno (EISDIR for a
 * directory, ENXIO for a FIFO nobody reads). */
int ox_put_in_place(const char *src, const char *path);

#endif /* OXPORT_WRITE_FILES_H */
