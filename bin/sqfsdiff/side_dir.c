/* SPDX-License-Identifier: MIT */
/*
 * side_dir.c - a directory tree on disk as a side.
 *
 * Safety rules, as for gensquashfs's scan, so that a tree that changes
 * while it is compared, or holds symlinks anywhere, never leads the walk
 * outside it:
 * - every system call is relative to the descriptor of the directory the
 *   entry is in (openat, fstatat, readlinkat), never a path from the top;
 * - symlinks are compared, never followed: fstatat with
 *   AT_SYMLINK_NOFOLLOW, files and directories opened with O_NOFOLLOW;
 * - a directory or file is read only if the one opened is the one lstat
 *   saw (device and inode compared), else the comparison fails naming it.
 *
 * Each directory's names are sorted in byte order, the order of an
 * image's listings, whatever order readdir gives. The walk keeps a stack
 * of open directories, one per level, never a recursion.
 *
 * Hard links: a non-directory with more than one link is looked up by
 * (device, inode); later members of its group name the first one, as the
 * image walker names them.
 */
#include "config.h"

#include "side.h"
#include "common/fs_dir.h"
#include "common/fs_links.h"
#include "common/fs_xattrs.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Bytes read from a file at a time. */
#define READ_CHUNK (128u * 1024u)

/* One open directory of the walk. */
typedef struct {
	int fd;
	char **names;
	size_t count;
	size_t next;
	/* its path from the root ("" for the root) */
	char *path;
} frame_t;

typedef struct {
	sd_side_t base;
	int rootfd;

	frame_t *stack;
	size_t depth;
	size_t stack_cap;
	/* the root entry has not been handed out yet */
	bool at_root;

	/* hard-link groups: each one's first member, an index into
	 * link_paths */
	fs_links_t links;
	char **link_paths;
	size_t link_count;
	size_t link_cap;

	/* the head entry, when have_head */
	bool have_head;
	sqfs_entry_t head;
	struct stat st;
	char *path;
	char *target;
	/* where the head is: its directory's descriptor and its name */
	int dfd;
	const char *name;
	fs_xattrs_t xattrs;
	bool have_xattrs;

	/* the head's data: an open descriptor and a buffer */
	int data_fd;
	uint64_t data_pos;
	uint8_t *buf;
} dir_side_t;

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

static const char *shown(const char *path)
{
	return path[0] != '\0' ? path : ".";
}

/* "PATH: why" with the side's directory in front, so that the two sides
 * of a comparison of two directories can be told apart. */
static int fail_at(dir_side_t *s, const char *path, const char *why)
{
	tool_error(s->base.name, "%s: %s", shown(path), why);
	return -1;
}

/* Push the directory at fd (taken over), whose path is path. */
static int push_dir(dir_side_t *s, int fd, const char *path)
{
	frame_t f;

	if (s->depth == s->stack_cap) {
		size_t ncap = s->stack_cap ? 2 * s->stack_cap : 16;
		frame_t *ns = realloc(s->stack, ncap * sizeof(ns[0]));

		if (ns == NULL) {
			close(fd);
			return oom();
		}
		s->stack = ns;
		s->stack_cap = ncap;
	}
	memset(&f, 0, sizeof(f));
	/* the listing takes fd over; entries are looked up through a
	 * second descriptor of the same directory */
	f.fd = dup(fd);
	if (f.fd < 0) {
		close(fd);
		return fail_at(s, path, strerror(errno));
	}
	if (fs_dir_names(fd, &f.names, &f.count) != 0) {
		close(f.fd);
		return errno == ENOMEM ? oom()
				       : fail_at(s, path, strerror(errno));
	}
	f.path = strdup(path);
	if (f.path == NULL) {
		close(f.fd);
		fs_dir_names_free(f.names, f.count);
		return oom();
	}
	s->stack[s->depth++] = f;
	return 0;
}

static void pop_dir(dir_side_t *s)
{
	frame_t *f = &s->stack[--s->depth];

	fs_dir_names_free(f->names, f->count);
	free(f->path);
	close(f->fd);
}

/* The path of the group's first member if st was met before; else
 * remember path as it. NULL with *err set if out of memory. */
static const char *find_link(dir_side_t *s, const struct stat *st,
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
	if (found > 0)
		return s->link_paths[first];
	if (found < 0)
		goto oom;
	s->link_paths[s->link_count] = strdup(path);
	/* the map now names this index: it must hold a path */
	if (s->link_paths[s->link_count] == NULL)
		goto oom;
	s->link_count += 1;
	return NULL;
oom:
	*err = oom();
	return NULL;
}

/* Fill in the head from s->st, s->path, s->dfd and s->name. */
static int make_head(dir_side_t *s)
{
	sqfs_entry_t *h = &s->head;
	int err;

	memset(h, 0, sizeof(*h));
	h->path = s->path;
	h->mode = (uint32_t)s->st.st_mode & (S_IFMT | 07777);
	h->uid = (uint32_t)s->st.st_uid;
	h->gid = (uint32_t)s->st.st_gid;
	h->mtime = (int64_t)s->st.st_mtime;
	h->inode_number = (uint64_t)s->st.st_ino;
	if (S_ISREG(s->st.st_mode))
		h->size = (uint64_t)s->st.st_size;
	if (S_ISBLK(s->st.st_mode) || S_ISCHR(s->st.st_mode)) {
		h->rdev_major = (uint32_t)major(s->st.st_rdev);
		h->rdev_minor = (uint32_t)minor(s->st.st_rdev);
	}
	if (S_ISLNK(s->st.st_mode)) {
		if (fs_read_link(s->dfd, s->name, (size_t)s->st.st_size,
				 &s->target) != 0)
			return errno == ENOMEM
				   ? oom()
				   : fail_at(s, s->path, strerror(errno));
		h->symlink_target = s->target;
	}
	if (!S_ISDIR(s->st.st_mode) && s->st.st_nlink > 1) {
		h->hard_link = find_link(s, &s->st, s->path, &err);
		if (err != 0)
			return -1;
	}
	s->have_head = true;
	return 0;
}

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

static int dir_head(sd_side_t *side, const sqfs_entry_t **out)
{
	dir_side_t *s = (dir_side_t *)side;

	while (!s->have_head) {
		frame_t *f;

		if (s->at_root) {
			s->at_root = false;
			if (fstat(s->rootfd, &s->st) != 0)
				return fail_at(s, "", strerror(errno));
			s->path = strdup("");
			if (s->path == NULL)
				return oom();
			s->dfd = s->rootfd;
			s->name = ".";
			if (make_head(s) != 0)
				return -1;
			break;
		}
		if (s->depth == 0)
			return 1;
		f = &s->stack[s->depth - 1];
		if (f->next == f->count) {
			pop_dir(s);
			continue;
		}
		s->name = f->names[f->next++];
		s->dfd = f->fd;
		free(s->path);
		s->path = join(f->path, s->name);
		if (s->path == NULL)
			return oom();
		if (fstatat(s->dfd, s->name, &s->st, AT_SYMLINK_NOFOLLOW) != 0)
			return fail_at(s, s->path, strerror(errno));
		if (make_head(s) != 0)
			return -1;
	}
	*out = &s->head;
	return 0;
}

/* Open the head's name in its directory, checked to be what lstat saw. */
static int open_head(dir_side_t *s, int flags)
{
	struct stat opened;
	int fd;

	fd = openat(s->dfd, s->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | flags);
	if (fd < 0)
		return fail_at(s, s->path, strerror(errno));
	if (fstat(fd, &opened) != 0 || opened.st_dev != s->st.st_dev ||
	    opened.st_ino != s->st.st_ino) {
		close(fd);
		return fail_at(s, s->path,
			       "was replaced while it was compared");
	}
	return fd;
}

static void drop_head(dir_side_t *s)
{
	if (s->data_fd >= 0)
		close(s->data_fd);
	s->data_fd = -1;
	s->data_pos = 0;
	fs_xattrs_free(&s->xattrs);
	s->have_xattrs = false;
	s->have_head = false;
}

static int dir_pop(sd_side_t *side)
{
	dir_side_t *s = (dir_side_t *)side;
	int fd;

	if (!s->have_head)
		return 0;
	drop_head(s);
	/* its entries come next */
	if (S_ISDIR(s->st.st_mode)) {
		fd = open_head(s, O_DIRECTORY);
		if (fd < 0)
			return -1;
		return push_dir(s, fd, s->path);
	}
	return 0;
}

static int dir_xattrs(sd_side_t *side, sqfs_xattr_t **list, size_t *count)
{
	dir_side_t *s = (dir_side_t *)side;

	if (!s->have_xattrs) {
		if (fs_xattrs_read(s->rootfd, s->path, false, &s->xattrs) !=
		    0) {
			fs_xattrs_free(&s->xattrs);
			return -1;
		}
		s->have_xattrs = true;
	}
	*list = s->xattrs.list;
	*count = s->xattrs.count;
	return 0;
}

/* Holes are handed out at most this large a piece. */
#define HOLE_PIECE_MAX (1u << 30)

static int dir_read(sd_side_t *side, sd_piece_t *out)
{
	dir_side_t *s = (dir_side_t *)side;
	uint64_t end = s->head.size, next;
	size_t want = READ_CHUNK;
	off_t at;
	ssize_t n;

	if (s->data_fd < 0) {
		s->data_fd = open_head(s, 0);
		if (s->data_fd < 0)
			return -1;
		s->data_pos = 0;
	}
	/* past the size lstat saw: a file that grew is compared as it was
	 * (its size was taken then) */
	if (s->data_pos >= end)
		return 1;

	/* a hole is one piece of zeros, not read: a sparse file of a
	 * terabyte compares in no time. A file system without SEEK_DATA
	 * says the whole file is data. */
	at = lseek(s->data_fd, (off_t)s->data_pos, SEEK_DATA);
	if (at < 0 && errno == ENXIO)
		at = (off_t)end;
	if (at >= 0 && (uint64_t)at > s->data_pos) {
		next = (uint64_t)at < end ? (uint64_t)at : end;
		if (next - s->data_pos > HOLE_PIECE_MAX)
			next = s->data_pos + HOLE_PIECE_MAX;
		out->data = NULL;
		out->zeros = true;
		out->size = (size_t)(next - s->data_pos);
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
	/* the file shrank since lstat: the comparison sees it end early */
	if (n == 0)
		return 1;
	s->data_pos += (uint64_t)n;
	out->data = s->buf;
	out->size = (size_t)n;
	out->zeros = false;
	return 0;
}

static int dir_rewind(sd_side_t *side)
{
	((dir_side_t *)side)->data_pos = 0;
	return 0;
}

static const sqfs_super_t *dir_super(const sd_side_t *side)
{
	(void)side;
	return NULL;
}

static void dir_close(sd_side_t *side)
{
	dir_side_t *s = (dir_side_t *)side;

	drop_head(s);
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
	if (s->rootfd >= 0)
		close(s->rootfd);
	free(s);
}

static const sd_side_ops_t dir_ops = {
    .head = dir_head,
    .pop = dir_pop,
    .xattrs = dir_xattrs,
    .read = dir_read,
    .rewind = dir_rewind,
    .super = dir_super,
    .close = dir_close,
};

sd_side_t *sd_dir_side_open(const char *path, int fd)
{
	dir_side_t *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		close(fd);
		oom();
		return NULL;
	}
	s->base.ops = &dir_ops;
	s->base.name = path;
	s->rootfd = fd;
	s->data_fd = -1;
	s->at_root = true;
	fs_links_init(&s->links);
	return &s->base;
}
