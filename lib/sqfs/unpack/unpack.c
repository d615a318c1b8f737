/* SPDX-License-Identifier: MIT */
/*
 * unpack.c - a subtree of an image onto the disk (sqfs/unpack.h says what
 * it guarantees).
 *
 * Levels: level 0 is the destination, then (SQFS_UNPACK_KEEP_PARENTS
 * only) levels 1 .. n-1 the directories leading to the unpacked path,
 * then the unpacked path itself (level base: 1, n with the parents, 0 for
 * the root) and deeper levels what the source finds below it. A
 * directory is made when it is reached, or with SQFS_UNPACK_NO_EMPTY_DIRS
 * only when something is put into it, and finished (owner, xattrs, mode,
 * times) after its contents, which the source hands out again after them
 * (SQFS_SOURCE_POST_DIRS).
 *
 * The entries come from an image source (sqfs/image_source.h), which walks
 * the image and unpacks the data of the next files on worker threads
 * while one is written. Everything is made here, on the calling thread,
 * in the walk's order. A regular file's descriptor then goes to the
 * finisher (internal.h), which writes the bytes of a small file, sets the
 * attributes and closes it: it only ever works on descriptors, so the
 * rules hold there too.
 */
#include "config.h"

#include "internal.h"
#include "sqfs/error.h"
#include "sqfs/image_source.h"
#include "sqfs/path.h"
#include "sqfs/super.h"
#include "sqfs/unpack.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define KNOWN_FLAGS                                                           \
	(SQFS_UNPACK_SET_XATTRS | SQFS_UNPACK_SET_TIMES | SQFS_UNPACK_CHMOD | \
	 SQFS_UNPACK_CHOWN | SQFS_UNPACK_OVERWRITE | SQFS_UNPACK_NO_DEVICES | \
	 SQFS_UNPACK_NO_SOCKETS | SQFS_UNPACK_NO_FIFOS |                      \
	 SQFS_UNPACK_NO_SYMLINKS | SQFS_UNPACK_NO_EMPTY_DIRS |                \
	 SQFS_UNPACK_NO_SPARSE | SQFS_UNPACK_KEEP_PARENTS |                   \
	 SQFS_UNPACK_ROOT_ATTRS | SQFS_UNPACK_FIXED_TIME |                    \
	 SQFS_UNPACK_MAKE_DEST)

typedef struct {
	char *name;
	/* the open directory, or -1 while not made */
	int fd;
	/* the attributes of the directories leading to the unpacked path,
	 * set after everything below them (the source gives the others
	 * again after their contents) */
	unpack_attrs_t attrs;
} level_t;

typedef struct {
	sqfs_image_t *img;
	const sqfs_unpack_options_t *opt;
	uint32_t flags;
	uint32_t block_size;
	/* what to set on entries, and how (internal.h) */
	unpack_attr_ctx_t ac;
	/* warnings of the calling thread: the program's callback */
	unpack_warn_t warn;
	/* the thread that writes and closes small files */
	unpack_finisher_t *fin;
	level_t *lv;
	size_t lv_max;
	/* the highest level in use */
	size_t top;
	/* the components of the unpacked path, and the level it is made at */
	char **comp;
	size_t comp_count;
	size_t base;
	/* scratch for the paths in words */
	char *path;
	size_t path_max;
	/* the entries, and the data of the current one */
	sqfs_image_source_t *src;
	/* block_size zeros, for holes written out (SQFS_UNPACK_NO_SPARSE) */
	uint8_t *zeros;
	/* the level of a directory left out by the selection, whose
	 * contents are left out too; 0 when none is */
	size_t skip_level;
	/* the words of a failure (the caller's why, or a buffer) */
	char *why;
} unpacker_t;

/* ------------------------------------------------------------ failures */

__attribute__((format(printf, 3, 4))) static int fail(unpacker_t *u, int code,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->why, SQFS_ERROR_TEXT_SIZE, fmt, ap);
	va_end(ap);
	return code;
}

static int oom(unpacker_t *u)
{
	return fail(u, SQFS_ERROR_ALLOC, "out of memory");
}

/* The code of a system call's failure (errno). */
static int errno_code(int err)
{
	if (err == ENOMEM)
		return SQFS_ERROR_ALLOC;
	return err == EEXIST ? SQFS_ERROR_EXISTS : SQFS_ERROR_IO;
}

/* A failure of the image, in its words (after its name, if given). */
static int image_fail(unpacker_t *u, int code)
{
	if (u->opt->image_name != NULL)
		return fail(u, code, "%s: %s", u->opt->image_name,
			    sqfs_image_error(u->img));
	return fail(u, code, "%s", sqfs_image_error(u->img));
}

/* ------------------------------------------------------------ paths */

static const char *join(unpacker_t *u, size_t level, const char *name)
{
	size_t len = 0, need = 1;

	for (size_t i = 1; i <= level; ++i)
		need += strlen(u->lv[i].name) + 1;
	if (name != NULL)
		need += strlen(name) + 1;
	if (need > u->path_max) {
		char *p = realloc(u->path, need);

		if (p == NULL)
			return name != NULL ? name : "";
		u->path = p;
		u->path_max = need;
	}
	u->path[0] = '\0';
	for (size_t i = 1; i <= level; ++i) {
		size_t n = strlen(u->lv[i].name);

		if (len > 0)
			u->path[len++] = '/';
		memcpy(u->path + len, u->lv[i].name, n);
		len += n;
	}
	if (name != NULL) {
		size_t n = strlen(name);

		if (len > 0)
			u->path[len++] = '/';
		memcpy(u->path + len, name, n);
		len += n;
	}
	u->path[len] = '\0';
	return len > 0 ? u->path : ".";
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* Split the path into its components, in the library's one canonical
 * form (sqfs/path.h): ".." is refused, empty and "." components dropped,
 * as the image source resolves it. */
static int split_path(unpacker_t *u, const char *path)
{
	char *canon = strdup(path), *p, *slash;

	if (canon == NULL)
		return oom(u);
	if (sqfs_path_canonical(canon) != 0) {
		free(canon);
		return fail(u, SQFS_ERROR_ARG_INVALID,
			    "%s: '..' is not allowed in a path", path);
	}
	for (p = canon; p != NULL; p = slash != NULL ? slash + 1 : NULL) {
		char **list;

		if (*p == '\0')
			break;
		slash = strchr(p, '/');
		if (slash != NULL)
			*slash = '\0';
		list = realloc(u->comp, (u->comp_count + 1) * sizeof(list[0]));
		if (list == NULL)
			goto fail_alloc;
		u->comp = list;
		u->comp[u->comp_count] = strdup(p);
		if (u->comp[u->comp_count] == NULL)
			goto fail_alloc;
		u->comp_count++;
	}
	free(canon);
	if (u->comp_count == 0)
		u->base = 0;
	else if (u->flags & SQFS_UNPACK_KEEP_PARENTS)
		u->base = u->comp_count;
	else
		u->base = 1;
	return 0;
fail_alloc:
	free(canon);
	return oom(u);
}

/* ------------------------------------------------------------ levels */

static int set_level(unpacker_t *u, size_t level, const char *name)
{
	if (level >= u->lv_max) {
		size_t max = u->lv_max ? u->lv_max * 2 : 64;
		level_t *lv;

		while (max <= level)
			max *= 2;
		lv = realloc(u->lv, max * sizeof(lv[0]));
		if (lv == NULL)
			return oom(u);
		for (size_t i = u->lv_max; i < max; ++i) {
			memset(&lv[i], 0, sizeof(lv[i]));
			lv[i].fd = -1;
		}
		u->lv = lv;
		u->lv_max = max;
	}
	free(u->lv[level].name);
	u->lv[level].name = strdup(name);
	if (u->lv[level].name == NULL)
		return oom(u);
	u->lv[level].fd = -1;
	unpack_attrs_drop(&u->lv[level].attrs);
	return 0;
}

static void close_level(unpacker_t *u, size_t level)
{
	if (u->lv[level].fd >= 0)
		close(u->lv[level].fd);
	u->lv[level].fd = -1;
	unpack_attrs_drop(&u->lv[level].attrs);
}

static void report(const unpacker_t *u, const char *what, const char *path)
{
	if (u->opt->report != NULL)
		u->opt->report(u->opt->user, what, path);
}

/* Make (or take, if a real directory is already there) the directory of
 * level from its parent's descriptor. */
static int make_dir(unpacker_t *u, size_t level)
{
	int parent = u->lv[level - 1].fd, fd, err;
	const char *name = u->lv[level].name;
	mode_t mode = (u->flags & SQFS_UNPACK_CHMOD) ? 0700 : 0755;

	report(u, "creating", join(u, level, NULL));
	if (mkdirat(parent, name, mode) != 0 && errno != EEXIST) {
		err = errno;
		return fail(u, errno_code(err), "%s: cannot create: %s",
			    join(u, level, NULL), strerror(err));
	}
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP || err == ENOTDIR)
			return fail(u, SQFS_ERROR_EXISTS,
				    "%s: exists and is not a directory (a "
				    "symlink is never followed)",
				    join(u, level, NULL));
		return fail(u, errno_code(err), "%s: cannot open: %s",
			    join(u, level, NULL), strerror(err));
	}
	u->lv[level].fd = fd;
	return 0;
}

/* Make every directory up to level that is not there yet. */
static int need_dirs(unpacker_t *u, size_t level)
{
	for (size_t i = 1; i <= level; ++i) {
		if (u->lv[i].fd < 0) {
			int ret = make_dir(u, i);

			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ attributes */

/* Finish an entry on this thread: by its descriptor fd, or (fd < 0) by
 * name in dirfd without following it (internal.h). */
static int set_attrs(unpacker_t *u, const sqfs_entry_t *e, int fd, int dirfd,
		     const char *name, const char *path)
{
	unpack_attrs_t a;

	if (unpack_attrs_gather(&u->ac, e, &a) != 0)
		return oom(u);
	unpack_attrs_apply(&u->ac, &a, fd, dirfd, name, path, &u->warn);
	return 0;
}

/* ------------------------------------------------------------ entries */

/* With SQFS_UNPACK_OVERWRITE, remove a non-directory already at name
 * (unlinkat removes a symlink itself, never its target); a directory
 * stays and the making after this fails on it as it would have. */
static void clear_name(const unpacker_t *u, int dirfd, const char *name)
{
	if (u->flags & SQFS_UNPACK_OVERWRITE)
		(void)unlinkat(dirfd, name, 0);
}

/*
 * Where a file's pieces go. A file of up to a block is gathered in buf
 * and written by the finisher; a bigger one, or one with a hole, is
 * written here as its pieces come.
 */
typedef struct {
	int fd;
	bool sparse_ok;
	/* where the last byte written ends: if that is the file's size,
	 * the file needs no ftruncate (a system call per file saved) */
	uint64_t end;
	/* the bytes from offset 0 not yet written, cap of them at most */
	uint8_t *buf;
	size_t buf_len;
	size_t cap;
} file_sink_t;

static int write_at(file_sink_t *s, uint64_t offset, const uint8_t *data,
		    size_t size)
{
	while (size > 0) {
		ssize_t n = pwrite(s->fd, data, size, (off_t)offset);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		data += n;
		size -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

static int write_piece(file_sink_t *s, uint64_t offset, const uint8_t *data,
		       size_t size)
{
	bool hole = data == NULL;

	if (s->buf != NULL && !hole && offset == s->buf_len &&
	    size <= s->cap - s->buf_len) {
		memcpy(s->buf + s->buf_len, data, size);
		s->buf_len += size;
	} else {
		/* from here on, straight to the file */
		if (s->buf != NULL && write_at(s, 0, s->buf, s->buf_len) != 0)
			return 1;
		free(s->buf);
		s->buf = NULL;
		s->buf_len = 0;
		/* a hole needs nothing written: the final size makes it */
		if (hole)
			return 0;
		if (write_at(s, offset, data, size) != 0)
			return 1;
	}
	if (offset + size > s->end)
		s->end = offset + size;
	return 0;
}

/* One run of the source: a hole is skipped if the file may be sparse,
 * else written as zeros a block at a time. */
static int write_run(unpacker_t *u, file_sink_t *s, const sqfs_data_run_t *run)
{
	uint64_t offset = run->offset, left = run->size;

	if (run->data != NULL)
		return write_piece(s, offset, run->data, (size_t)run->size);
	if (s->sparse_ok)
		return write_piece(s, offset, NULL, (size_t)run->size);
	while (left > 0) {
		size_t n = left < u->block_size ? (size_t)left : u->block_size;

		if (write_piece(s, offset, u->zeros, n) != 0)
			return 1;
		offset += n;
		left -= n;
	}
	return 0;
}

/* The current entry's data into the sink: 0, a negative library error,
 * or 1 for a failed write (errno says why). */
static int fill_file(unpacker_t *u, file_sink_t *sink)
{
	sqfs_data_run_t run;
	int ret;

	while ((ret = sqfs_image_source_read(u->src, &run)) == 0) {
		if (write_run(u, sink, &run) != 0)
			return 1;
	}
	return ret == 1 ? 0 : ret;
}

/*
 * Make a file and fill it; the finisher writes what was gathered, sets
 * the attributes and closes it. Its failures after the hand-over come
 * back at a later hand-over, or at the end.
 */
static int make_file(unpacker_t *u, int dirfd, const char *name,
		     const sqfs_entry_t *e, const char *path)
{
	uint64_t size = e->size;
	unpack_job_t job;
	file_sink_t sink;
	int fd, ret, err;

	report(u, "unpacking", path);
	clear_name(u, dirfd, name);
	/* O_EXCL: an existing name, a symlink included, is refused */
	fd = openat(dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (u->flags & SQFS_UNPACK_CHMOD) ? 0600 : 0644);
	if (fd < 0) {
		err = errno;
		return fail(u, errno_code(err), "%s: cannot create: %s", path,
			    strerror(err));
	}

	memset(&sink, 0, sizeof(sink));
	sink.fd = fd;
	sink.sparse_ok = !(u->flags & SQFS_UNPACK_NO_SPARSE);
	if (size > 0 && size <= u->block_size) {
		sink.cap = (size_t)size;
		sink.buf = malloc(sink.cap);
		if (sink.buf == NULL) {
			ret = oom(u);
			goto fail;
		}
	}
	ret = fill_file(u, &sink);
	if (ret < 0) {
		fail(u, ret, "%s: %s", path, sqfs_image_error(u->img));
		goto fail;
	}
	if (ret > 0) {
		err = errno;
		ret = fail(u, errno_code(err), "%s: cannot write: %s", path,
			   strerror(err));
		goto fail;
	}

	memset(&job, 0, sizeof(job));
	job.fd = fd;
	job.data = sink.buf;
	job.size = sink.buf_len;
	/* a hole at the end was not written: the size makes it */
	job.truncate = sink.end != size;
	job.file_size = size;
	job.path = strdup(path);
	if (job.path == NULL) {
		ret = oom(u);
		goto fail;
	}
	if (unpack_attrs_gather(&u->ac, e, &job.attrs) != 0) {
		free(job.path);
		ret = oom(u);
		goto fail;
	}
	return unpack_finisher_submit(u->fin, &job, u->why);
fail:
	free(sink.buf);
	close(fd);
	return ret;
}

/* Make a symlink, device, FIFO or socket: 0 when made or left out with a
 * warning, or a negative error. */
static int make_special(unpacker_t *u, int dirfd, const char *name,
			const sqfs_entry_t *e, const char *path)
{
	uint32_t type = e->mode & S_IFMT;
	mode_t perm = (u->flags & SQFS_UNPACK_CHMOD) ? 0600 : 0644;
	int ret, err;

	report(u, "creating", path);
	clear_name(u, dirfd, name);
	switch (type) {
	case S_IFLNK:
		if (e->symlink_target[0] == '\0') {
			unpack_warnf(&u->warn,
				     "%s: empty symlink target; skipped", path);
			return 0;
		}
		ret = symlinkat(e->symlink_target, dirfd, name);
		break;
	case S_IFBLK:
	case S_IFCHR:
		ret = mknodat(dirfd, name, type | perm,
			      makedev(e->rdev_major, e->rdev_minor));
		break;
	case S_IFIFO:
		ret = mknodat(dirfd, name, S_IFIFO | perm, 0);
		break;
	default:
		ret = mknodat(dirfd, name, S_IFSOCK | perm, 0);
		break;
	}
	if (ret != 0) {
		err = errno;
		if (err == EPERM && type != S_IFLNK) {
			unpack_warnf(&u->warn, "%s: cannot create: %s; skipped",
				     path, strerror(err));
			return 0;
		}
		return fail(u, errno_code(err), "%s: cannot create: %s", path,
			    strerror(err));
	}
	return set_attrs(u, e, -1, dirfd, name, path);
}

/*
 * Hard-link name in dirfd to the entry already unpacked at target (a
 * path relative to the unpacked path). The target's directories are
 * entered one by one without following symlinks, like everything else.
 * Returns 0 when linked, 1 when the entry must be unpacked on its own
 * (the first one was not made, or the link failed), or a negative error.
 */
static int make_link(unpacker_t *u, int dirfd, const char *name,
		     const char *target, const char *path)
{
	int fd = u->lv[u->base].fd, next, ret = 0, err;
	const char *p = target;
	char part[260];

	/* the target lies below the unpacked path, which (being a
	 * directory, as it has more than one entry) is level base */
	if (fd < 0)
		return 1;
	fd = dup(fd);
	if (fd < 0) {
		err = errno;
		return fail(u, errno_code(err), "%s: %s", path, strerror(err));
	}

	for (;;) {
		const char *start = p;
		size_t n;

		while (*p != '\0' && *p != '/')
			++p;
		n = (size_t)(p - start);
		if (n >= sizeof(part))
			goto fail_name;
		memcpy(part, start, n);
		part[n] = '\0';
		if (!sqfs_name_is_valid(part, n))
			goto fail_name;
		if (*p == '\0')
			break;
		++p;
		next = openat(fd, part,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			ret = 1;
			goto out;
		}
		close(fd);
		fd = next;
	}

	report(u, "linking", path);
	clear_name(u, dirfd, name);
	if (linkat(fd, part, dirfd, name, 0) != 0) {
		err = errno;
		if (err == EEXIST) {
			ret =
			    fail(u, SQFS_ERROR_EXISTS, "%s: cannot create: %s",
				 path, strerror(err));
		} else if (err == ENOENT) {
			/* the first was left out (and told why) */
			ret = 1;
		} else {
			unpack_warnf(&u->warn,
				     "%s: cannot link to %s: %s; unpacked "
				     "as a copy",
				     path, target, strerror(err));
			ret = 1;
		}
	}
out:
	close(fd);
	return ret;
fail_name:
	ret = fail(u, SQFS_ERROR_CORRUPTED,
		   "%s: bad hard-link target '%s' in the image", path, target);
	goto out;
}

static bool filtered(const unpacker_t *u, uint32_t type)
{
	switch (type) {
	case S_IFBLK:
	case S_IFCHR:
		return (u->flags & SQFS_UNPACK_NO_DEVICES) != 0;
	case S_IFSOCK:
		return (u->flags & SQFS_UNPACK_NO_SOCKETS) != 0;
	case S_IFIFO:
		return (u->flags & SQFS_UNPACK_NO_FIFOS) != 0;
	case S_IFLNK:
		return (u->flags & SQFS_UNPACK_NO_SYMLINKS) != 0;
	default:
		return false;
	}
}

/* A non-directory at level (its parent: level - 1). */
static int unpack_leaf(unpacker_t *u, size_t level, const char *name,
		       const sqfs_entry_t *e)
{
	uint32_t type = e->mode & S_IFMT;
	const char *path;
	int dirfd, ret;

	if (filtered(u, type))
		return 0;
	ret = need_dirs(u, level - 1);
	if (ret != 0)
		return ret;
	dirfd = u->lv[level - 1].fd;
	path = join(u, level - 1, name);

	if (e->hard_link != NULL) {
		ret = make_link(u, dirfd, name, e->hard_link, path);
		if (ret <= 0)
			return ret;
		path = join(u, level - 1, name);
	}
	if (type == S_IFREG)
		return make_file(u, dirfd, name, e, path);
	return make_special(u, dirfd, name, e, path);
}

/* A directory's first report: remember it, make it unless only
 * contents may make it. */
static int enter_dir(unpacker_t *u, size_t level, const char *name)
{
	int ret = set_level(u, level, name);

	if (ret != 0)
		return ret;
	u->top = level;
	if (!(u->flags & SQFS_UNPACK_NO_EMPTY_DIRS))
		return make_dir(u, level);
	return 0;
}

/* A directory's second report: finish it if it was made. */
static int leave_dir(unpacker_t *u, size_t level, const sqfs_entry_t *e)
{
	level_t *lv = &u->lv[level];
	int ret = 0;

	if (lv->fd >= 0)
		ret = set_attrs(u, e, lv->fd, u->lv[level - 1].fd, lv->name,
				join(u, level, NULL));
	close_level(u, level);
	u->top = level - 1;
	return ret;
}

/* How deep below the unpacked path an entry of the source lies. */
static size_t depth_of(const char *path)
{
	size_t depth = path[0] != '\0';

	for (; *path != '\0'; ++path)
		depth += *path == '/';
	return depth;
}

static int unpack_entry(unpacker_t *u, const sqfs_entry_t *e)
{
	size_t depth = depth_of(e->path), level = u->base + depth;
	bool dir = (e->mode & S_IFMT) == S_IFDIR;
	bool post = (e->flags & SQFS_ENTRY_POST) != 0;
	const char *name;

	/* below a directory the selection left out */
	if (u->skip_level > 0 && level >= u->skip_level) {
		if (level == u->skip_level && dir && post)
			u->skip_level = 0;
		return 0;
	}
	if (!post && u->opt->select != NULL) {
		int sel = u->opt->select(u->opt->user, e);

		if (sel < 0) {
			u->why[0] = '\0';
			return sel;
		}
		if (sel == 0) {
			if (dir && level > 0)
				u->skip_level = level;
			return 0;
		}
	}

	/* the destination itself is the program's: it keeps its
	 * attributes, unless told to take the image root's */
	if (level == 0) {
		if (dir && post && (u->flags & SQFS_UNPACK_ROOT_ATTRS))
			return set_attrs(u, e, u->lv[0].fd, -1, ".", ".");
		return 0;
	}

	name = depth == 0 ? u->comp[u->comp_count - 1] : base_name(e->path);
	if (!sqfs_name_is_valid(name, strlen(name)))
		return fail(u, SQFS_ERROR_CORRUPTED,
			    "%s: unsafe name in the image", e->path);
	/* every entry lies directly in the last directory entered */
	if (post ? (!dir || u->top != level) : u->top != level - 1)
		return fail(u, SQFS_ERROR_CORRUPTED,
			    "%s: entry out of order in the walk", e->path);
	if (!dir)
		return unpack_leaf(u, level, name, e);
	if (post)
		return leave_dir(u, level, e);
	return enter_dir(u, level, name);
}

/* ------------------------------------------------------------ setup */

/* SQFS_UNPACK_MAKE_DEST: the destination with its parents, if missing.
 * It is the program's own path, so symlinks in it are its choice. */
static int make_dest(unpacker_t *u, const char *path)
{
	char *copy = strdup(path);
	int err;

	if (copy == NULL)
		return oom(u);
	for (char *p = copy + 1; *p != '\0'; ++p) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST)
			break;
		*p = '/';
	}
	free(copy);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		err = errno;
		return fail(u, errno_code(err), "%s: cannot create: %s", path,
			    strerror(err));
	}
	return 0;
}

/* The destination, opened as given. */
static int open_dest(unpacker_t *u, const char *path)
{
	int fd, err;

	if (path[0] == '\0')
		return fail(u, SQFS_ERROR_ARG_INVALID,
			    "the destination is an empty path");
	if (u->flags & SQFS_UNPACK_MAKE_DEST) {
		int ret = make_dest(u, path);

		if (ret != 0)
			return ret;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return fail(
		    u, err == ENOTDIR ? SQFS_ERROR_NOT_DIR : errno_code(err),
		    "%s: cannot open: %s", path, strerror(err));
	}
	u->lv[0].fd = fd;
	return 0;
}

/* An image source over path, with flags and the jobs asked for. */
static int open_source(unpacker_t *u, const char *path, uint32_t flags,
		       sqfs_image_source_t **out)
{
	sqfs_image_source_options_t opt;
	int ret;

	sqfs_image_source_options_init(&opt);
	opt.flags = flags;
	opt.num_jobs = u->opt->num_jobs;
	ret = sqfs_image_source_create(u->img, path, &opt, out);
	if (ret != 0) {
		*out = NULL;
		/* the words name the path, and the part of it that fails */
		return image_fail(u, ret);
	}
	return 0;
}

/* The flags of every image source: xattrs only if they are set. */
static uint32_t source_flags(const unpacker_t *u)
{
	return (u->flags & SQFS_UNPACK_SET_XATTRS) ? 0 : SQFS_SOURCE_NO_XATTRS;
}

/* The attributes of the entry at path into *out. */
static int gather_at(unpacker_t *u, const char *path, unpack_attrs_t *out)
{
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	int ret;

	ret = open_source(u, path,
			  source_flags(u) | SQFS_SOURCE_NO_DATA |
			      SQFS_SOURCE_START_ONLY,
			  &src);
	if (ret != 0)
		return ret;
	ret = sqfs_image_source_next(src, &e);
	if (ret < 0)
		ret = image_fail(u, ret);
	else if (ret > 0)
		ret = fail(u, SQFS_ERROR_NO_ENTRY, "%s: no such entry", path);
	else if (unpack_attrs_gather(&u->ac, e, out) != 0)
		ret = oom(u);
	sqfs_image_source_destroy(src);
	return ret;
}

/* SQFS_UNPACK_KEEP_PARENTS: the directories leading to the unpacked
 * path, as levels 1 .. n-1. */
static int add_parents(unpacker_t *u)
{
	size_t len = 0;
	char *path;
	int ret = 0;

	for (size_t i = 0; i < u->comp_count; ++i)
		len += strlen(u->comp[i]) + 1;
	path = malloc(len + 1);
	if (path == NULL)
		return oom(u);
	path[0] = '\0';
	for (size_t i = 0; i + 1 < u->comp_count && ret == 0; ++i) {
		if (i > 0)
			strcat(path, "/");
		strcat(path, u->comp[i]);
		ret = set_level(u, i + 1, u->comp[i]);
		if (ret == 0)
			ret = gather_at(u, path, &u->lv[i + 1].attrs);
		u->top = i + 1;
		if (ret == 0 && !(u->flags & SQFS_UNPACK_NO_EMPTY_DIRS))
			ret = make_dir(u, i + 1);
	}
	free(path);
	return ret;
}

/*
 * Everything the source hands out, in its order. A failure of the walk is
 * returned after everything before it was unpacked, as if the source read
 * nothing ahead.
 */
static int walk(unpacker_t *u)
{
	const sqfs_entry_t *e;
	int ret;

	while ((ret = sqfs_image_source_next(u->src, &e)) == 0) {
		ret = unpack_entry(u, e);
		if (ret != 0)
			return ret;
	}
	return ret < 0 ? image_fail(u, ret) : 0;
}

static int check_options(const sqfs_unpack_options_t *opt)
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

void sqfs_unpack_options_init(sqfs_unpack_options_t *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->num_jobs = 1;
}

int sqfs_unpack(sqfs_image_t *img, const char *path, const char *dest,
		const sqfs_unpack_options_t *opt, char *why)
{
	char words[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t defaults;
	unpacker_t u;
	int ret;

	if (opt == NULL) {
		sqfs_unpack_options_init(&defaults);
		opt = &defaults;
	}
	memset(&u, 0, sizeof(u));
	u.why = why != NULL ? why : words;
	u.why[0] = '\0';
	if (check_options(opt) != 0)
		return fail(&u, SQFS_ERROR_ARG_INVALID,
			    "unknown options (flags or reserved room)");
	u.img = img;
	u.opt = opt;
	u.flags = opt->flags;
	u.block_size = sqfs_image_super(img)->block_size;
	u.ac.flags = u.flags;
	atomic_init(&u.ac.chown_denied, false);
	u.ac.fixed_mtime = opt->mtime;
	u.warn.fn = opt->warn;
	u.warn.user = opt->user;

	u.zeros = calloc(1, u.block_size);
	if (u.zeros == NULL) {
		ret = oom(&u);
		goto out;
	}
	/* the path is resolved before anything is made */
	ret = split_path(&u, path);
	if (ret == 0)
		ret = open_source(
		    &u, path, source_flags(&u) | SQFS_SOURCE_POST_DIRS, &u.src);
	if (ret != 0)
		goto out;
	if (unpack_finisher_create(&u.ac, opt->num_jobs > 1, &u.warn, &u.fin) !=
	    0) {
		ret = oom(&u);
		goto out;
	}
	ret = set_level(&u, 0, "");
	if (ret == 0)
		ret = open_dest(&u, dest);
	if (ret == 0 && u.base > 1)
		ret = add_parents(&u);
	if (ret != 0)
		goto out;

	/* a directory with everything below it, or one entry */
	ret = walk(&u);
	/* every file is finished before the directories holding them; a
	 * failure of the walk is told before one of the finisher's */
	if (ret == 0)
		ret = unpack_finisher_destroy(u.fin, u.why);
	else
		unpack_finisher_destroy(u.fin, NULL);
	u.fin = NULL;

	/* the directories leading to the path, innermost first */
	for (size_t i = u.base; ret == 0 && i-- > 1;) {
		level_t *lv = &u.lv[i];

		if (lv->fd >= 0)
			unpack_attrs_apply(&u.ac, &lv->attrs, lv->fd,
					   u.lv[i - 1].fd, lv->name,
					   join(&u, i, NULL), &u.warn);
	}
out:
	unpack_finisher_destroy(u.fin, NULL);
	sqfs_image_source_destroy(u.src);
	for (size_t i = 0; i < u.lv_max; ++i) {
		close_level(&u, i);
		free(u.lv[i].name);
	}
	for (size_t i = 0; i < u.comp_count; ++i)
		free(u.comp[i]);
	free(u.comp);
	free(u.lv);
	free(u.path);
	free(u.zeros);
	return ret;
}
