#ifndef OXPORT_TOOLS_OUTPUT_PATHS_H
#define OXPORT_TOOLS_OUTPUT_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Checks a command makes on the files it will write, before it does any work:
 * that two paths it reads or writes are not one file (-o m.json --report
 * m.json would leave the report where the model was), and that a file's
 * directory exists. */

/* Whether a and b name the same file: the same inode when both exist, else
 * the same directory (symbolic links resolved) and name. */
bool ox_cli_same_file(const char *a, const char *b);

/* Whether the directory path would be written in exists; when it does not,
 * its name is copied to dir (dir_size bytes). */
bool ox_cli_dir_exists(const char *path, char *dir, size_t dir_size);

#endif
