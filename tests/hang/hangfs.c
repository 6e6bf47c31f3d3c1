/* hangfs: a pass-through FUSE file system for the abandonable-I/O tests.
 *
 *   hangfs BACKING MOUNTPOINT REL [read|open|getattr|create] [fuse options...]
 *
 * Mirrors BACKING at MOUNTPOINT, read-only, except that the files named in
 * REL (comma-separated, relative to BACKING, e.g. "proj/AGENTS.md") never
 * answer: their reads
 * (the default), its opens, its getattr calls or (create) the creation of
 * such a file where none is yet sleep until the file system is unmounted;
 * any other creation is refused (EROFS). Every other file answers at once. Each stuck request holds a
 * daemon thread, so run it with a generous -o max_threads. */
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char hang_paths[4096]; /* ",/a,/b," */
static enum { HANG_READ, HANG_OPEN, HANG_GETATTR, HANG_CREATE } hang_mode = HANG_READ;
static int backing_fd = -1;

static int hangs(const char *path, int mode) {
  char key[4096];
  if (mode != (int)hang_mode) return 0;
  snprintf(key, sizeof key, ",%s,", path);
  if (!strstr(hang_paths, key)) return 0;
  for (;;) pause(); /* never answers; the thread is freed at unmount */
  return 1;
}

static const char *rel(const char *path) { return path[1] ? path + 1 : "."; }

static void *hang_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->use_ino = 1;
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->negative_timeout = 0;
  return NULL;
}

static int hang_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
  hangs(path, HANG_GETATTR);
  if (fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW) < 0) return -errno;
  return 0;
}

static int hang_readlink(const char *path, char *buf, size_t size) {
  ssize_t n = readlinkat(backing_fd, rel(path), buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = 0;
  return 0;
}

static int hang_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                        struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)off; (void)fi; (void)flags;
  int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return -errno;
  DIR *dir = fdopendir(fd);
  if (!dir) { close(fd); return -errno; }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    struct stat st = {0};
    st.st_ino = e->d_ino;
    st.st_mode = (mode_t)DTTOIF(e->d_type);
    if (fill(buf, e->d_name, &st, 0, 0)) break;
  }
  closedir(dir);
  return 0;
}

static int hang_open(const char *path, struct fuse_file_info *fi) {
  hangs(path, HANG_OPEN);
  if ((fi->flags & O_ACCMODE) != O_RDONLY) return -EROFS;
  int fd = openat(backing_fd, rel(path), O_RDONLY | O_NOFOLLOW);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int hang_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  hangs(path, HANG_READ);
  ssize_t n = pread((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int hang_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  (void)mode; (void)fi;
  hangs(path, HANG_CREATE);
  return -EROFS;
}

static int hang_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}

static const struct fuse_operations ops = {
    .init = hang_init,
    .getattr = hang_getattr,
    .readlink = hang_readlink,
    .readdir = hang_readdir,
    .open = hang_open,
    .read = hang_read,
    .create = hang_create,
    .release = hang_release,
};

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: hangfs BACKING MOUNTPOINT REL [read|open|getattr|create] [fuse options...]\n");
    return 2;
  }
  backing_fd = open(argv[1], O_RDONLY | O_DIRECTORY);
  if (backing_fd < 0) { perror(argv[1]); return 2; }
  /* "a,b" -> ",/a,/b," */
  size_t at = 0;
  hang_paths[at++] = ',';
  for (const char *c = argv[3]; *c && at + 3 < sizeof hang_paths; c++) {
    if (c == argv[3] || c[-1] == ',') hang_paths[at++] = '/';
    hang_paths[at++] = *c;
  }
  hang_paths[at++] = ',';
  hang_paths[at] = 0;
  int next = 4;
  if (argc > 4 && argv[4][0] != '-') {
    if (strcmp(argv[4], "open") == 0) hang_mode = HANG_OPEN;
    else if (strcmp(argv[4], "getattr") == 0) hang_mode = HANG_GETATTR;
    else if (strcmp(argv[4], "create") == 0) hang_mode = HANG_CREATE;
    else if (strcmp(argv[4], "read") != 0) { fprintf(stderr, "unknown mode %s\n", argv[4]); return 2; }
    next = 5;
  }
  /* fuse_main(prog, MOUNTPOINT, -f, options...) */
  char **fargv = calloc((size_t)argc + 2, sizeof *fargv);
  if (!fargv) return 2;
  int fargc = 0;
  fargv[fargc++] = argv[0];
  fargv[fargc++] = argv[2];
  fargv[fargc++] = "-f";
  for (int i = next; i < argc; i++) fargv[fargc++] = argv[i];
  return fuse_main(fargc, fargv, &ops, NULL);
}
