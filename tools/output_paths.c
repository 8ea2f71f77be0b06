#include "output_paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "dir" of "dir/base" ("." without a slash, "/" for "/base"), into out. */
static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* realpath of path's directory, then its last component. */
static bool canonical(const char *path, char *out, size_t size)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    char *real = realpath(dir, NULL);
    if (!real)
        return false;
    const char *slash = strrchr(path, '/');
    int n = snprintf(out, size, "%s/%s", real, slash ? slash + 1 : path);
    free(real);
    return n > 0 && (size_t)n < size;
}

bool ox_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX + NAME_MAX + 2], cb[PATH_MAX + NAME_MAX + 2];
    return canonical(a, ca, sizeof ca) && canonical(b, cb, sizeof cb) && strcmp(ca, cb) == 0;
}

bool ox_cli_dir_exists(const char *path, char *dir, size_t dir_size)
{
    char d[PATH_MAX];
    dir_of(path, d, sizeof d);
    struct stat st;
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    snprintf(dir, dir_size, "%s", d);
    return false;
}
