/* SPDX-License-Identifier: MIT */
/*
 * fs_source.c - the walk of a directory tree on disk (fs_source.h says
 * what it guarantees and why).
 *
 * The stack: one frame per directory being listed, with its sorted names,
 * the next one to visit, its path, and the device and inode lstat gave
 * for it. The frames on top (FS_SOURCE_OPEN_DIRS of them) and the root
 * hold an open descriptor; when the walk comes back to a frame whose
 * descriptor was closed, it is opened again from the nearest open frame
 * below it, one component at a time with O_NOFOLLOW, each directory
 * checked to be the one the walk met (reopen).
 */
#include "config.h"

#include "common/fs_source.h"
#include "common/fs_dir.h"
#include "common/fs_links.h"
#include "common/fs_open.h"
#include "common/fs_xattrs.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Bytes read from a file at a time. */
#define READ_CHUNK (128u * 1024u)

/* Holes are handed out at most this large a run. */
#define HOLE_RUN_MAX (1u << 30)

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

struct fs_source {
	const char *label;
	unsigned int flags;
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
	 * (the directory's descriptor and its name in it); the root's
	 * listing is read when the walk opens */
	bool have_cur;
	bool cur_is_root;
	/* fs_source_skip: not entered, and not a hard link's first member */
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

	/* the current file's data: an open descriptor and a buffer */
	int data_fd;
	uint64_t data_pos;
	uint8_t *buf;
};

/* ---- messages ------------------------------------------------------------ */

static const char *shown(const char *path)
{
	return path[0] != '\0' ? path : ".";
}

static int fail_at(fs_source_t *s, const char *path, const char *why)
{
	if (s->label != NULL)
		tool_error(s->label, "%s: %s", shown(path), why);
	else
		tool_error(shown(path), "%s", why);
	return -1;
}

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* The object at name in the directory at dirfd, which the walk saw as
 * id, opened with flags and checked (fs_open_checked), or -1 printed. */
static int open_seen(fs_source_t *s, int dirfd, const char *name,
		     const char *path, const fs_id_t *id, int flags,
		     struct stat *st)
{
	int err, fd = fs_open_checked(dirfd, name, flags, id, st, &err);

	if (fd < 0)
		return fail_at(s, path, fs_err_string(err));
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
 * one it is given). The frame FS_SOURCE_OPEN_DIRS below goes closed
 * (never the root's).
 */
static int push_dir(fs_source_t *s, int fd, const char *path, fs_id_t id)
{
	frame_t f;
	int lfd;

	if (s->depth == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 16;
		frame_t *ns = realloc(s->stack, ncap * sizeof(ns[0]));

		if (ns == NULL) {
			close(fd);
			return oom();
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
		return oom();
	}
	f.name = strrchr(f.path, '/');
	f.name = f.name != NULL ? f.name + 1 : f.path;
	lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0 || fs_dir_names(lfd, &f.names, &f.count) != 0) {
		int err = errno;

		frame_free(&f);
		return err == ENOMEM ? oom() : fail_at(s, path, strerror(err));
	}
	s->stack[s->depth++] = f;
	if (s->depth > FS_SOURCE_OPEN_DIRS + 1) {
		frame_t *old = &s->stack[s->depth - 1 - FS_SOURCE_OPEN_DIRS];

		if (old->fd >= 0) {
			close(old->fd);
			old->fd = -1;
		}
	}
	return 0;
}

static void pop_dir(fs_source_t *s)
{
	frame_free(&s->stack[--s->depth]);
}

/*
 * Open frame top again if it was closed: from the nearest open frame
 * below it, component by component, each directory checked to be the
 * one met. The frames on the way stay open if they are among the top
 * FS_SOURCE_OPEN_DIRS.
 */
static int reopen(fs_source_t *s, size_t top)
{
	size_t k = top;

	if (s->stack[top].fd >= 0)
		return 0;
	while (k > 0 && s->stack[k].fd < 0)
		--k;
	for (size_t j = k + 1; j <= top; ++j) {
		frame_t *f = &s->stack[j];

		f->fd = open_seen(s, s->stack[j - 1].fd, f->name, f->path,
				  &f->id, O_PATH | O_DIRECTORY, NULL);
		if (f->fd < 0)
			return -1;
		/* the one before goes closed again unless it is kept */
		if (j - 1 > 0 && j - 1 + FS_SOURCE_OPEN_DIRS < top) {
			close(s->stack[j - 1].fd);
			s->stack[j - 1].fd = -1;
		}
	}
	return 0;
}

/* ---- hard links ---------------------------------------------------------- */

/* The path of the group's first member if st was met before; else
 * remember path as it. NULL with *err set if out of memory. */
static const char *find_link(fs_source_t *s, const struct stat *st,
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
	*err = oom();
	return NULL;
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
static int describe(fs_source_t *s)
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
			return errno == ENOMEM
				   ? oom()
				   : fail_at(s, s->path, strerror(errno));
		e->symlink_target = s->target;
	}
	s->cur_link = SIZE_MAX;
	s->cur_skipped = false;
	if (!S_ISDIR(s->st.st_mode) && s->st.st_nlink > 1 &&
	    !(s->flags & FS_SOURCE_NO_HARD_LINKS)) {
		e->hard_link = find_link(s, &s->st, s->path, &err);
		if (err != 0)
			return -1;
	}
	s->have_cur = true;
	return 0;
}

static void drop_current(fs_source_t *s)
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
static int enter_current(fs_source_t *s)
{
	fs_id_t id = fs_id_of(&s->st);
	int fd;

	if (!S_ISDIR(s->st.st_mode) || s->cur_is_root || s->cur_skipped)
		return 0;
	/* a mount point is kept, but not entered */
	if ((s->flags & FS_SOURCE_ONE_FILE_SYSTEM) &&
	    s->st.st_dev != s->root_dev)
		return 0;
	fd = open_seen(s, s->dfd, s->name, s->path, &id, O_PATH | O_DIRECTORY,
		       NULL);
	if (fd < 0)
		return -1;
	return push_dir(s, fd, s->path, id);
}

/* FS_SOURCE_SKIP_UNREADABLE_DIRS: whether the current directory can be
 * listed; if not, it is named in a warning and left out. The walk enters
 * a directory through its own checked open later: this only asks. */
static bool readable_dir(fs_source_t *s)
{
	int fd = openat(s->dfd, s->name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != EACCES)
		return true;
	tool_warning(shown(s->path), "cannot open: %s; skipped",
		     strerror(EACCES));
	return false;
}

int fs_source_next(fs_source_t *s, const sqfs_entry_t **out)
{
	if (s->have_cur) {
		drop_current(s);
		if (enter_current(s) != 0)
			return -1;
	}
	s->cur_is_root = s->at_root;
	if (s->at_root) {
		s->at_root = false;
		if (fstat(s->stack[0].fd, &s->st) != 0)
			return fail_at(s, "", strerror(errno));
		free(s->path);
		s->path = strdup("");
		if (s->path == NULL)
			return oom();
		s->dfd = s->stack[0].fd;
		s->name = ".";
		if (describe(s) != 0)
			return -1;
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
		if (reopen(s, s->depth - 1) != 0)
			return -1;
		s->name = f->names[f->next++];
		s->dfd = f->fd;
		free(s->path);
		s->path = join(f->path, s->name);
		if (s->path == NULL)
			return oom();
		if (fstatat(s->dfd, s->name, &s->st, AT_SYMLINK_NOFOLLOW) != 0)
			return fail_at(s, s->path, strerror(errno));
		if (S_ISDIR(s->st.st_mode) &&
		    (s->flags & FS_SOURCE_SKIP_UNREADABLE_DIRS) &&
		    !readable_dir(s))
			continue;
		if (describe(s) != 0)
			return -1;
		*out = &s->entry;
		return 0;
	}
}

void fs_source_skip(fs_source_t *s)
{
	if (!s->have_cur || s->cur_is_root)
		return;
	s->cur_skipped = true;
	/* the next member of its group, if any, is the first one kept */
	if (s->cur_link != SIZE_MAX) {
		free(s->link_paths[s->cur_link]);
		s->link_paths[s->cur_link] = NULL;
		s->cur_link = SIZE_MAX;
	}
}

const struct stat *fs_source_stat(const fs_source_t *s)
{
	return &s->st;
}

const char *fs_source_shown(const fs_source_t *s)
{
	return s->path != NULL ? shown(s->path) : ".";
}

int fs_source_xattrs(fs_source_t *s, bool warn_skipped,
		     const sqfs_xattr_t **list, size_t *count)
{
	fs_id_t id = fs_id_of(&s->st);
	int fd, ret;

	if (!s->have_xattrs) {
		if (S_ISREG(s->st.st_mode) || S_ISDIR(s->st.st_mode)) {
			/* its own stat: what the walk saw stays (the data is
			 * read up to the size lstat gave) */
			fd = open_seen(s, s->dfd, s->name, s->path, &id,
				       O_RDONLY | O_NONBLOCK, NULL);
			if (fd < 0)
				return -1;
			ret = fs_xattrs_read_fd(fd, s->path, warn_skipped,
						&s->xattrs);
			close(fd);
		} else {
			ret = fs_xattrs_read_at(s->dfd, s->name, &id, s->path,
						warn_skipped, &s->xattrs);
		}
		if (ret != 0) {
			fs_xattrs_free(&s->xattrs);
			return -1;
		}
		s->have_xattrs = true;
	}
	*list = s->xattrs.list;
	*count = s->xattrs.count;
	return 0;
}

int fs_source_open_file(fs_source_t *s, struct stat *st)
{
	fs_id_t id = fs_id_of(&s->st);

	return open_seen(s, s->dfd, s->name, s->path, &id, O_RDONLY, st);
}

int fs_source_read(fs_source_t *s, sqfs_data_run_t *out)
{
	uint64_t end = (uint64_t)s->st.st_size, next;
	size_t want = READ_CHUNK;
	struct stat st;
	off_t at;
	ssize_t n;

	if (!S_ISREG(s->st.st_mode))
		return 1;
	if (s->data_fd < 0) {
		s->data_fd = fs_source_open_file(s, &st);
		if (s->data_fd < 0)
			return -1;
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
		return oom();
	do {
		n = pread(s->data_fd, s->buf, want, (off_t)s->data_pos);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail_at(s, s->path, strerror(errno));
	/* the file shrank since lstat: the data ends early */
	if (n == 0)
		return 1;
	out->offset = s->data_pos;
	out->size = (uint64_t)n;
	out->data = s->buf;
	s->data_pos += (uint64_t)n;
	return 0;
}

int fs_source_rewind(fs_source_t *s)
{
	s->data_pos = 0;
	return 0;
}

/* ---- opening and closing ------------------------------------------------- */

int fs_source_open(int fd, const char *label, unsigned int flags,
		   fs_source_t **out)
{
	fs_source_t *s = calloc(1, sizeof(*s));
	struct stat st;

	*out = NULL;
	if (s == NULL) {
		close(fd);
		return oom();
	}
	s->label = label;
	s->flags = flags;
	s->data_fd = -1;
	s->at_root = true;
	fs_links_init(&s->links);
	if (fstat(fd, &st) != 0) {
		fail_at(s, "", strerror(errno));
		close(fd);
		fs_source_close(s);
		return -1;
	}
	s->root_dev = st.st_dev;
	if (push_dir(s, fd, "", fs_id_of(&st)) != 0) {
		fs_source_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void fs_source_close(fs_source_t *s)
{
	if (s == NULL)
		return;
	drop_current(s);
	while (s->depth > 0)
		pop_dir(s);
	free(s->stack);
	for (size_t i = 0; i < s->link_count; ++i)
		free(s->link_paths[i]);
	free(s->link_paths);
	fs_links_cleanup(&s->links);
	free(s->path);
	free(s->target);
	free(s->buf);
	free(s);
}
