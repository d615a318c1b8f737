/* SPDX-License-Identifier: MIT */
/*
 * dir_source.c - the walk of a directory tree on disk (dir_source.h says
 * what it guarantees and why).
 *
 * The stack: one frame per directory being listed, with its sorted names,
 * the next one to visit, its path, and the device and inode lstat gave
 * for it. The frames on top (OPEN_DIRS of them) and the root hold an open
 * descriptor; when the walk comes back to a frame whose descriptor was
 * closed, it is opened again from the nearest open frame below it, one
 * component at a time with O_NOFOLLOW, each directory checked to be the
 * one the walk met (reopen). Opening again with a check, reading names
 * and xattrs are util/fs_open.h, fs_dir.h and fs_xattrs.h, which
 * gensquashfs uses too when it opens what its scan saw.
 */
#include "config.h"

#include "sqfs/dir_source.h"
#include "sqfs/error.h"
#include "util/fs_dir.h"
#include "util/fs_links.h"
#include "util/fs_open.h"
#include "util/fs_xattrs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Directories the walk keeps open at most, the root's aside. */
#define OPEN_DIRS 32u

/* Bytes read from a file at a time. */
#define READ_CHUNK (128u * 1024u)

/* Holes are handed out at most this large a run. */
#define HOLE_RUN_MAX (1u << 30)

#define KNOWN_FLAGS                                                   \
	(SQFS_DIR_SOURCE_NO_XATTRS | SQFS_DIR_SOURCE_ONE_FILESYSTEM | \
	 SQFS_DIR_SOURCE_NO_HARD_LINKS | SQFS_DIR_SOURCE_SKIP_UNREADABLE)

typedef struct {
	char **names;
	size_t count;
	size_t next;
	/* the directory's path from the root ("" for the root) */
	char *path;
	/* its own name in its parent, within path */
	const char *name;
	/* open, or -1 while closed */
	int fd;
	fs_id_t id;
} frame_t;

struct sqfs_dir_source {
	sqfs_dir_source_options_t opt;
	dev_t root_dev;

	frame_t *stack;
	size_t depth;
	size_t cap;
	/* the root entry has not been handed out yet */
	bool at_root;

	/* hard-link groups: each one's first member's path */
	fs_links_t links;
	char **link_paths;
	size_t link_count;
	size_t link_cap;

	/* the current entry: its lstat, path, symlink target, where it is
	 * (the directory's descriptor and its name in it) */
	bool have_cur;
	bool cur_is_root;
	/* sqfs_dir_source_skip: not entered, and not a hard link's first
	 * member */
	bool cur_skipped;
	/* the index in link_paths the current entry was remembered at, or
	 * SIZE_MAX */
	size_t cur_link;
	sqfs_entry_t entry;
	struct stat st;
	char *path;
	char *target;
	int dfd;
	const char *name;
	fs_xattrs_t xattrs;
	bool have_xattrs;

	/* the current file's data: its checked descriptor and a buffer */
	int data_fd;
	uint64_t data_pos;
	uint8_t *buf;

	/* a failure ends the source: its code, and the words */
	int failed;
	char error[SQFS_ERROR_TEXT_SIZE];
};

/* ---- failures ------------------------------------------------------------ */

static const char *shown(const char *path)
{
	return path[0] != '\0' ? path : ".";
}

/* End the source with code and "PATH: words". Returns code. */
__attribute__((format(printf, 4, 5))) static int
fail_at(sqfs_dir_source_t *s, int code, const char *path, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(s->error, sizeof(s->error), "%s: ", shown(path));
	if (n < sizeof(s->error)) {
		va_start(ap, fmt);
		vsnprintf(s->error + n, sizeof(s->error) - n, fmt, ap);
		va_end(ap);
	}
	s->failed = code;
	return code;
}

/* A system call's failure at path: errno says why. */
static int fail_errno(sqfs_dir_source_t *s, const char *path)
{
	int err = errno;

	if (err == ENOMEM)
		return fail_at(s, SQFS_ERROR_ALLOC, path, "%s", strerror(err));
	return fail_at(s, SQFS_ERROR_IO, path, "%s", strerror(err));
}

static int oom(sqfs_dir_source_t *s)
{
	snprintf(s->error, sizeof(s->error), "out of memory");
	s->failed = SQFS_ERROR_ALLOC;
	return SQFS_ERROR_ALLOC;
}

/* The object at name in the directory at dirfd, which the walk saw as
 * id, opened with flags and checked (fs_open_checked), or a negative
 * error (the source failed). With type (S_IFREG, S_IFDIR), the object
 * must be of that type too: a file deleted and a FIFO made in its place
 * may get its inode number back, and must not be read as the file. */
static int open_seen(sqfs_dir_source_t *s, int dirfd, const char *name,
		     const char *path, const fs_id_t *id, int flags,
		     mode_t type)
{
	struct stat st;
	int err, fd = fs_open_checked(dirfd, name, flags, id, &st, &err);

	if (fd < 0)
		return fail_at(s, fs_err_code(err), path, "%s",
			       fs_err_string(err));
	if (type != 0 && (st.st_mode & S_IFMT) != type) {
		close(fd);
		return fail_at(s, SQFS_ERROR_CHANGED, path, "%s",
			       fs_err_string(FS_ERR_REPLACED));
	}
	return fd;
}

/* ---- the stack ----------------------------------------------------------- */

static void frame_free(frame_t *f)
{
	fs_dir_names_free(f->names, f->count);
	free(f->path);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/*
 * Push the directory open at fd (taken over), met as id at path: its
 * names are read now, through a second descriptor (fdopendir takes the
 * one it is given). The frame OPEN_DIRS below goes closed (never the
 * root's).
 */
static int push_dir(sqfs_dir_source_t *s, int fd, const char *path, fs_id_t id)
{
	frame_t f;
	int lfd;

	if (s->depth == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 16;
		frame_t *ns = realloc(s->stack, ncap * sizeof(ns[0]));

		if (ns == NULL) {
			close(fd);
			return oom(s);
		}
		s->stack = ns;
		s->cap = ncap;
	}
	memset(&f, 0, sizeof(f));
	f.fd = fd;
	f.id = id;
	f.path = strdup(path);
	if (f.path == NULL) {
		close(fd);
		return oom(s);
	}
	f.name = strrchr(f.path, '/');
	f.name = f.name != NULL ? f.name + 1 : f.path;
	lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0 || fs_dir_names(lfd, &f.names, &f.count) != 0) {
		int err = errno;

		frame_free(&f);
		if (err == ENOMEM)
			return oom(s);
		errno = err;
		return fail_errno(s, path);
	}
	s->stack[s->depth++] = f;
	if (s->depth > OPEN_DIRS + 1) {
		frame_t *old = &s->stack[s->depth - 1 - OPEN_DIRS];

		if (old->fd >= 0) {
			close(old->fd);
			old->fd = -1;
		}
	}
	return 0;
}

static void pop_dir(sqfs_dir_source_t *s)
{
	frame_free(&s->stack[--s->depth]);
}

/*
 * Open frame top again if it was closed: from the nearest open frame
 * below it, component by component, each directory checked to be the
 * one met. The frames on the way stay open if they are among the top
 * OPEN_DIRS.
 */
static int reopen(sqfs_dir_source_t *s, size_t top)
{
	size_t k = top;

	if (s->stack[top].fd >= 0)
		return 0;
	while (k > 0 && s->stack[k].fd < 0)
		--k;
	for (size_t j = k + 1; j <= top; ++j) {
		frame_t *f = &s->stack[j];
		int fd = open_seen(s, s->stack[j - 1].fd, f->name, f->path,
				   &f->id, O_PATH | O_DIRECTORY, S_IFDIR);

		if (fd < 0)
			return fd;
		f->fd = fd;
		/* the one before goes closed again unless it is kept */
		if (j - 1 > 0 && j - 1 + OPEN_DIRS < top) {
			close(s->stack[j - 1].fd);
			s->stack[j - 1].fd = -1;
		}
	}
	return 0;
}

/* ---- hard links ---------------------------------------------------------- */

/* The path of the group's first member if st was met before; else
 * remember path as it. NULL with *err set if out of memory. */
static const char *find_link(sqfs_dir_source_t *s, const struct stat *st,
			     const char *path, int *err)
{
	uint64_t first;
	int found;

	*err = 0;
	if (s->link_count == s->link_cap) {
		size_t ncap = s->link_cap ? 2 * s->link_cap : 64;
		char **np = realloc(s->link_paths, ncap * sizeof(np[0]));

		if (np == NULL)
			goto oom;
		s->link_paths = np;
		s->link_cap = ncap;
	}
	found = fs_links_find(&s->links, st, s->link_count, &first);
	if (found > 0 && s->link_paths[first] == NULL) {
		/* its first member was skipped: this one is the first now */
		s->link_paths[first] = strdup(path);
		if (s->link_paths[first] == NULL)
			goto oom;
		s->cur_link = (size_t)first;
		return NULL;
	}
	if (found > 0)
		return s->link_paths[first];
	if (found < 0)
		goto oom;
	s->link_paths[s->link_count] = strdup(path);
	/* the map now names this index: it must hold a path */
	if (s->link_paths[s->link_count] == NULL)
		goto oom;
	s->cur_link = s->link_count;
	s->link_count += 1;
	return NULL;
oom:
	*err = oom(s);
	return NULL;
}

/* ---- xattrs -------------------------------------------------------------- */

/* The current entry's xattrs into s->xattrs, from the object the walk
 * saw: a regular file through the descriptor its data is read from, a
 * directory through one of its own, anything else by its name in its
 * checked directory (fs_xattrs.h). */
static int read_xattrs(sqfs_dir_source_t *s)
{
	fs_id_t id = fs_id_of(&s->st);
	char why[SQFS_ERROR_TEXT_SIZE];
	int fd, ret;

	if (s->have_xattrs)
		return 0;
	if (S_ISREG(s->st.st_mode) && s->data_fd < 0) {
		/* its own stat: what the walk saw stays (the data is read
		 * up to the size lstat gave) */
		fd = open_seen(s, s->dfd, s->name, s->path, &id, O_RDONLY,
			       S_IFREG);
		if (fd < 0)
			return fd;
		s->data_fd = fd;
		s->data_pos = 0;
	}
	if (S_ISREG(s->st.st_mode)) {
		ret =
		    fs_xattrs_read_fd(s->data_fd, NULL, NULL, &s->xattrs, why);
	} else if (S_ISDIR(s->st.st_mode)) {
		fd = open_seen(s, s->dfd, s->name, s->path, &id,
			       O_RDONLY | O_NONBLOCK, S_IFDIR);
		if (fd < 0)
			return fd;
		ret = fs_xattrs_read_fd(fd, NULL, NULL, &s->xattrs, why);
		close(fd);
	} else {
		ret = fs_xattrs_read_at(s->dfd, s->name, &id, NULL, NULL,
					&s->xattrs, why);
	}
	if (ret != 0) {
		fs_xattrs_free(&s->xattrs);
		if (ret == SQFS_ERROR_ALLOC)
			return oom(s);
		return fail_at(s, ret, s->path, "%s", why);
	}
	s->have_xattrs = true;
	return 0;
}

/* ---- entries ------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *out = malloc(a + b + 2);

	if (out == NULL)
		return NULL;
	memcpy(out, dir, a);
	if (a > 0)
		out[a++] = '/';
	memcpy(out + a, name, b + 1);
	return out;
}

/* The current entry from s->st, s->path, s->dfd and s->name. */
static int describe(sqfs_dir_source_t *s)
{
	sqfs_entry_t *e = &s->entry;
	int err;

	memset(e, 0, sizeof(*e));
	e->path = s->path;
	e->mode = (uint32_t)s->st.st_mode & (S_IFMT | 07777);
	e->uid = (uint32_t)s->st.st_uid;
	e->gid = (uint32_t)s->st.st_gid;
	e->mtime = (int64_t)s->st.st_mtime;
	e->size = (uint64_t)s->st.st_size;
	e->inode_number = (uint64_t)s->st.st_ino;
	e->nlink = (uint32_t)s->st.st_nlink;
	if (S_ISBLK(s->st.st_mode) || S_ISCHR(s->st.st_mode)) {
		e->rdev_major = (uint32_t)major(s->st.st_rdev);
		e->rdev_minor = (uint32_t)minor(s->st.st_rdev);
	}
	if (S_ISLNK(s->st.st_mode)) {
		if (fs_read_link(s->dfd, s->name, (size_t)s->st.st_size,
				 &s->target) != 0)
			return errno == ENOMEM ? oom(s)
					       : fail_errno(s, s->path);
		e->symlink_target = s->target;
	}
	s->cur_link = SIZE_MAX;
	s->cur_skipped = false;
	s->have_cur = true;
	if (!S_ISDIR(s->st.st_mode) && s->st.st_nlink > 1 &&
	    !(s->opt.flags & SQFS_DIR_SOURCE_NO_HARD_LINKS)) {
		e->hard_link = find_link(s, &s->st, s->path, &err);
		if (err != 0)
			return err;
	}
	if (!(s->opt.flags & SQFS_DIR_SOURCE_NO_XATTRS)) {
		err = read_xattrs(s);
		if (err != 0)
			return err;
		e->xattrs = s->xattrs.list;
		e->xattr_count = s->xattrs.count;
	}
	return 0;
}

static void drop_current(sqfs_dir_source_t *s)
{
	if (s->data_fd >= 0)
		close(s->data_fd);
	s->data_fd = -1;
	s->data_pos = 0;
	fs_xattrs_free(&s->xattrs);
	s->have_xattrs = false;
	s->have_cur = false;
}

/* Enter the current entry if it is a directory to walk into. */
static int enter_current(sqfs_dir_source_t *s)
{
	fs_id_t id = fs_id_of(&s->st);
	int fd;

	if (!S_ISDIR(s->st.st_mode) || s->cur_is_root || s->cur_skipped)
		return 0;
	/* a mount point is kept, but not entered */
	if ((s->opt.flags & SQFS_DIR_SOURCE_ONE_FILESYSTEM) &&
	    s->st.st_dev != s->root_dev)
		return 0;
	fd = open_seen(s, s->dfd, s->name, s->path, &id, O_PATH | O_DIRECTORY,
		       S_IFDIR);
	if (fd < 0)
		return fd;
	return push_dir(s, fd, s->path, id);
}

/* SQFS_DIR_SOURCE_SKIP_UNREADABLE: whether the current directory can be
 * listed; if not, it is told and left out. The walk enters a directory
 * through its own checked open later: this only asks. */
static bool readable_dir(sqfs_dir_source_t *s)
{
	char words[SQFS_ERROR_TEXT_SIZE];
	int fd = openat(s->dfd, s->name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != EACCES)
		return true;
	if (s->opt.warn != NULL) {
		snprintf(words, sizeof(words), "%s: cannot open: %s; skipped",
			 shown(s->path), strerror(EACCES));
		s->opt.warn(s->opt.user, words);
	}
	return false;
}

static int next_entry(sqfs_dir_source_t *s, const sqfs_entry_t **out)
{
	int ret;

	if (s->have_cur) {
		drop_current(s);
		ret = enter_current(s);
		if (ret != 0)
			return ret;
	}
	s->cur_is_root = s->at_root;
	if (s->at_root) {
		s->at_root = false;
		if (fstat(s->stack[0].fd, &s->st) != 0)
			return fail_errno(s, "");
		free(s->path);
		s->path = strdup("");
		if (s->path == NULL)
			return oom(s);
		s->dfd = s->stack[0].fd;
		s->name = ".";
		ret = describe(s);
		if (ret != 0)
			return ret;
		*out = &s->entry;
		return 0;
	}
	for (;;) {
		frame_t *f;

		if (s->depth == 0)
			return 1;
		f = &s->stack[s->depth - 1];
		if (f->next == f->count) {
			pop_dir(s);
			continue;
		}
		ret = reopen(s, s->depth - 1);
		if (ret != 0)
			return ret;
		s->name = f->names[f->next++];
		s->dfd = f->fd;
		free(s->path);
		s->path = join(f->path, s->name);
		if (s->path == NULL)
			return oom(s);
		if (fstatat(s->dfd, s->name, &s->st, AT_SYMLINK_NOFOLLOW) != 0)
			return fail_errno(s, s->path);
		if (S_ISDIR(s->st.st_mode) &&
		    (s->opt.flags & SQFS_DIR_SOURCE_SKIP_UNREADABLE) &&
		    !readable_dir(s))
			continue;
		ret = describe(s);
		if (ret != 0)
			return ret;
		*out = &s->entry;
		return 0;
	}
}

int sqfs_dir_source_next(sqfs_dir_source_t *src, const sqfs_entry_t **out)
{
	if (src->failed != 0)
		return src->failed;
	return next_entry(src, out);
}

int sqfs_dir_source_skip(sqfs_dir_source_t *src)
{
	if (src->failed != 0)
		return src->failed;
	if (!src->have_cur)
		return SQFS_ERROR_SEQUENCE;
	if (src->cur_is_root)
		return SQFS_ERROR_ARG_INVALID;
	src->cur_skipped = true;
	/* the next member of its group, if any, is the first one kept */
	if (src->cur_link != SIZE_MAX) {
		free(src->link_paths[src->cur_link]);
		src->link_paths[src->cur_link] = NULL;
		src->cur_link = SIZE_MAX;
	}
	return 0;
}

uint64_t sqfs_dir_source_device(const sqfs_dir_source_t *src)
{
	return (uint64_t)src->st.st_dev;
}

const char *sqfs_dir_source_error(const sqfs_dir_source_t *src)
{
	return src->error;
}

int sqfs_dir_source_xattrs(sqfs_dir_source_t *src, const sqfs_xattr_t **list,
			   size_t *count)
{
	int ret;

	*list = NULL;
	*count = 0;
	if (src->failed != 0)
		return src->failed;
	if (!src->have_cur)
		return SQFS_ERROR_SEQUENCE;
	ret = read_xattrs(src);
	if (ret != 0)
		return ret;
	*list = src->xattrs.list;
	*count = src->xattrs.count;
	return 0;
}

/* ---- data ---------------------------------------------------------------- */

int sqfs_dir_source_read(sqfs_dir_source_t *src, sqfs_data_run_t *out)
{
	sqfs_dir_source_t *s = src;
	uint64_t end = (uint64_t)s->st.st_size, next;
	size_t want = READ_CHUNK;
	fs_id_t id;
	off_t at;
	ssize_t n;
	int fd;

	if (s->failed != 0)
		return s->failed;
	if (!s->have_cur || !S_ISREG(s->st.st_mode))
		return 1;
	if (s->data_fd < 0) {
		id = fs_id_of(&s->st);
		fd = open_seen(s, s->dfd, s->name, s->path, &id, O_RDONLY,
			       S_IFREG);
		if (fd < 0)
			return fd;
		s->data_fd = fd;
		s->data_pos = 0;
	}
	if (s->data_pos >= end)
		return 1;

	/* a hole is one run of zeros, not read: a sparse file of a
	 * terabyte costs no time. A file system without SEEK_DATA says the
	 * whole file is data. */
	at = lseek(s->data_fd, (off_t)s->data_pos, SEEK_DATA);
	if (at < 0 && errno == ENXIO)
		at = (off_t)end;
	if (at >= 0 && (uint64_t)at > s->data_pos) {
		next = (uint64_t)at < end ? (uint64_t)at : end;
		if (next - s->data_pos > HOLE_RUN_MAX)
			next = s->data_pos + HOLE_RUN_MAX;
		out->offset = s->data_pos;
		out->size = next - s->data_pos;
		out->data = NULL;
		s->data_pos = next;
		return 0;
	}
	at = lseek(s->data_fd, (off_t)s->data_pos, SEEK_HOLE);
	if (at >= 0 && (uint64_t)at > s->data_pos &&
	    (uint64_t)at - s->data_pos < want)
		want = (size_t)((uint64_t)at - s->data_pos);
	if (end - s->data_pos < want)
		want = (size_t)(end - s->data_pos);

	if (s->buf == NULL && (s->buf = malloc(READ_CHUNK)) == NULL)
		return oom(s);
	do {
		n = pread(s->data_fd, s->buf, want, (off_t)s->data_pos);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail_errno(s, s->path);
	/* the file shrank since lstat: the data ends early */
	if (n == 0)
		return 1;
	out->offset = s->data_pos;
	out->size = (uint64_t)n;
	out->data = s->buf;
	s->data_pos += (uint64_t)n;
	return 0;
}

int sqfs_dir_source_rewind(sqfs_dir_source_t *src)
{
	if (src->failed != 0)
		return src->failed;
	src->data_pos = 0;
	return 0;
}

/* ---- creating and destroying --------------------------------------------- */

void sqfs_dir_source_options_init(sqfs_dir_source_options_t *opt)
{
	memset(opt, 0, sizeof(*opt));
}

static int check_options(const sqfs_dir_source_options_t *opt)
{
	if (opt->flags & ~(uint32_t)KNOWN_FLAGS)
		return SQFS_ERROR_ARG_INVALID;
	for (size_t i = 0; i < sizeof(opt->reserved) / sizeof(opt->reserved[0]);
	     ++i) {
		if (opt->reserved[i] != 0)
			return SQFS_ERROR_ARG_INVALID;
	}
	return 0;
}

/* A source of the directory open at fd (taken over), named name in the
 * words of a failure here. */
static int create(int fd, const char *name,
		  const sqfs_dir_source_options_t *opt, sqfs_dir_source_t **out,
		  char *why)
{
	sqfs_dir_source_t *s;
	struct stat st;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		close(fd);
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE, "out of memory");
		return SQFS_ERROR_ALLOC;
	}
	if (opt != NULL)
		s->opt = *opt;
	s->data_fd = -1;
	s->at_root = true;
	fs_links_init(&s->links);
	if (fstat(fd, &st) != 0) {
		ret = fail_errno(s, name);
		close(fd);
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = fail_at(s, SQFS_ERROR_NOT_DIR, name, "not a directory");
		close(fd);
		goto fail;
	}
	s->root_dev = st.st_dev;
	ret = push_dir(s, fd, name, fs_id_of(&st));
	if (ret != 0)
		goto fail;
	/* the root's path is "" in entries and words after this */
	free(s->stack[0].path);
	s->stack[0].path = strdup("");
	if (s->stack[0].path == NULL) {
		ret = oom(s);
		goto fail;
	}
	s->stack[0].name = s->stack[0].path;
	*out = s;
	return 0;
fail:
	if (why != NULL)
		memcpy(why, s->error, sizeof(s->error));
	sqfs_dir_source_destroy(s);
	return ret;
}

int sqfs_dir_source_create(const char *path,
			   const sqfs_dir_source_options_t *opt,
			   sqfs_dir_source_t **out, char *why)
{
	int fd, ret;

	*out = NULL;
	ret = opt != NULL ? check_options(opt) : 0;
	if (ret != 0) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE,
				 "unknown options (flags or reserved room)");
		return ret;
	}
	/* the program's own path: symlinks on the way are followed */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s: %s", path,
				 strerror(err));
		if (err == ENOMEM)
			return SQFS_ERROR_ALLOC;
		return err == ENOTDIR ? SQFS_ERROR_NOT_DIR : SQFS_ERROR_IO;
	}
	return create(fd, path, opt, out, why);
}

int sqfs_dir_source_create_fd(int fd, const sqfs_dir_source_options_t *opt,
			      sqfs_dir_source_t **out, char *why)
{
	int own, ret;

	*out = NULL;
	ret = opt != NULL ? check_options(opt) : 0;
	if (ret != 0) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE,
				 "unknown options (flags or reserved room)");
		return ret;
	}
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE, ".: %s",
				 strerror(errno));
		return SQFS_ERROR_IO;
	}
	return create(own, "", opt, out, why);
}

void sqfs_dir_source_destroy(sqfs_dir_source_t *src)
{
	if (src == NULL)
		return;
	drop_current(src);
	while (src->depth > 0)
		pop_dir(src);
	free(src->stack);
	for (size_t i = 0; i < src->link_count; ++i)
		free(src->link_paths[i]);
	free(src->link_paths);
	fs_links_cleanup(&src->links);
	free(src->path);
	free(src->target);
	free(src->buf);
	free(src);
}
