#include "write_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_write.h"

ox_write_fs_ops ox_write_fs = {rename, fsync};

char *ox_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

const char *ox_base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool ox_same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int ox_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = ox_write_fs.fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
    close(fd);
    return e;
}

/* ------------------------------------------------- signal-safe registry */

/* A slot is 0 free, 1 being filled, 2 holding a path; a write that finds no
 * free slot just is not cleaned up on a signal (the next export to the same
 * directory removes its temp as stale). */
#define LIVE_TEMPS 8
static struct {
    _Atomic int state;
    char path[PATH_MAX];
} live_temps[LIVE_TEMPS];

static int live_temp_add(const char *path)
{
    if (strlen(path) >= PATH_MAX)
        return -1;
    for (int i = 0; i < LIVE_TEMPS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&live_temps[i].state, &free_slot, 1)) {
            strcpy(live_temps[i].path, path);
            atomic_store(&live_temps[i].state, 2);
            return i;
        }
    }
    return -1;
}

static void live_temp_drop(int slot)
{
    if (slot >= 0)
        atomic_store(&live_temps[slot].state, 0);
}

void ox_write_discard_temps(void)
{
    for (int i = 0; i < LIVE_TEMPS; i++)
        if (atomic_load(&live_temps[i].state) == 2)
            unlink(live_temps[i].path);
}

OX_API void ox_discard_temp_files(void)
{
    ox_write_discard_temps();
}

/* ------------------------------------------------------------ temp files */

static mode_t current_umask(void)
{
    /* umask(2) cannot be read without changing it; /proc has it read-only */
    FILE *f = fopen("/proc/self/status", "r");
    mode_t m = 022;
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned v;
            if (sscanf(line, "Umask: %o", &v) == 1) {
                m = (mode_t)v;
                break;
            }
        }
        fclose(f);
    }
    return m;
}

/* Longest prefix of `s` of at most `max` bytes that does not end inside a
 * UTF-8 sequence, so a shortened name stays valid text. */
static size_t utf8_prefix(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return n;
    n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

int ox_temp_open(const char *target, ox_temp *t)
{
    t->path = NULL;
    t->fd = -1;
    t->slot = -1;
    char *dir = ox_dir_of(target);
    if (!dir)
        return ENOMEM;
    const char *base = ox_base_of(target);
    char suffix[64];
    int sl = snprintf(suffix, sizeof suffix, OX_TEMP_MARK "%ld-XXXXXX", (long)getpid());
    size_t keep = utf8_prefix(base, NAME_MAX - 1 - (size_t)sl);
    size_t n = strlen(dir) + 1 + 1 + keep + (size_t)sl + 1;
    t->path = malloc(n);
    if (!t->path) {
        free(dir);
        return ENOMEM;
    }
    snprintf(t->path, n, "%s/.%.*s%s", dir, (int)keep, base, suffix);
    free(dir);
    t->fd = mkostemp(t->path, O_CLOEXEC);
    if (t->fd < 0) {
        int e = errno;
        free(t->path);
        t->path = NULL;
        return e;
    }
    t->slot = live_temp_add(t->path);
    /* mkstemp makes 0600; a model file gets the usual permissions */
    mode_t mode = 0666 & ~current_umask();
    struct stat st;
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode))
        mode = st.st_mode & 07777;
    (void)fchmod(t->fd, mode);
    return 0;
}

int ox_temp_close(ox_temp *t, bool sync)
{
    int e = 0;
    if (sync && ox_write_fs.fsync(t->fd) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (close(t->fd) != 0 && !e)
        e = errno;
    t->fd = -1;
    return e;
}

void ox_temp_committed(ox_temp *t)
{
    live_temp_drop(t->slot);
    free(t->path);
    t->path = NULL;
    t->slot = -1;
}

void ox_temp_discard(ox_temp *t)
{
    if (t->fd >= 0)
        close(t->fd);
    if (t->path)
        unlink(t->path);
    ox_temp_committed(t);
    t->fd = -1;
}

/* The pid in ".<base>.oxtmp-<pid>-XXXXXX", or 0 when the name is not one. */
static long temp_owner(const char *name)
{
    if (name[0] != '.')
        return 0;
    const char *mark = NULL;
    for (const char *p = strstr(name, OX_TEMP_MARK); p; p = strstr(p + 1, OX_TEMP_MARK))
        mark = p; /* the base may itself contain the mark: the last one counts */
    if (!mark)
        return 0;
    char *end;
    long pid = strtol(mark + strlen(OX_TEMP_MARK), &end, 10);
    if (pid <= 0 || end[0] != '-' || strlen(end + 1) != 6)
        return 0;
    return pid;
}

void ox_temp_clean_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = temp_owner(e->d_name);
        if (pid == 0 || pid == (long)getpid())
            continue;
        /* EPERM means alive under another user: only ESRCH is dead */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            (void)unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* ------------------------------------------------------------- symlinks */

char *ox_link_destination(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur; /* a file, or where a dangling link's target will be */
        char *target = malloc(PATH_MAX);
        if (!target) {
            free(cur);
            errno = ENOMEM;
            return NULL;
        }
        ssize_t k = readlink(cur, target, PATH_MAX - 1);
        if (k <= 0) {
            free(target);
            return cur;
        }
        target[k] = '\0';
        char *next;
        if (target[0] == '/') {
            next = target;
        } else {
            char *dir = ox_dir_of(cur);
            size_t n = (dir ? strlen(dir) : 0) + strlen(target) + 2;
            next = dir ? malloc(n) : NULL;
            if (next)
                snprintf(next, n, "%s/%s", dir, target);
            free(dir);
            free(target);
            if (!next) {
                free(cur);
                errno = ENOMEM;
                return NULL;
            }
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    } else {
        errno = ENOMEM;
    }
    return NULL;
}

/* ------------------------------------------------------ whole small files */

/* Copy the file at src into the open fd; 0 or an errno. */
static int copy_into(const char *src, int fd)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno;
    char buf[65536];
    int e = 0;
    for (;;) {
        ssize_t k = read(in, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            e = k < 0 ? errno : 0;
            break;
        }
        for (ssize_t off = 0; off < k;) {
            ssize_t w = write(fd, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                e = errno;
                break;
            }
            off += w;
        }
        if (e)
            break;
    }
    close(in);
    return e;
}

int ox_put_in_place(const char *src, const char *path)
{
    char *dest = ox_link_destination(path);
    if (!dest) {
        int e = errno ? errno : ENOMEM;
        unlink(src);
        return e;
    }
    struct stat st;
    bool exists = stat(dest, &st) == 0;
    int e = 0;
    if (exists && S_ISDIR(st.st_mode)) {
        e = EISDIR;
    } else if (exists && !S_ISREG(st.st_mode)) {
        /* O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) */
        int fd = open(dest, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            e = errno;
        } else {
            int fl = fcntl(fd, F_GETFL);
            if (fl >= 0)
                (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
            e = copy_into(src, fd);
            if (close(fd) != 0 && !e)
                e = errno;
        }
    } else if (ox_write_fs.rename(src, dest) != 0) {
        e = errno;
        if (e == EXDEV) {
            /* a link to another file system: a temp beside its end, then the rename */
            ox_temp t = OX_TEMP_NONE;
            e = ox_temp_open(dest, &t);
            if (!e)
                e = copy_into(src, t.fd);
            if (!e)
                e = ox_temp_close(&t, false);
            if (!e && ox_write_fs.rename(t.path, dest) != 0)
                e = errno;
            if (!e)
                ox_temp_committed(&t);
            else
                ox_temp_discard(&t);
        }
    }
    unlink(src); /* after a rename there is nothing at src: ENOENT, ignored */
    free(dest);
    return e;
}
