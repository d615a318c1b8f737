/* SPDX-License-Identifier: MIT */
/*
 * unpack.c - --unpack-path: a subtree of the image onto the disk.
 *
 * The image is untrusted and so is whatever already lies in the target
 * directory. Nothing is ever looked up by a path with more than one
 * component: the target root is opened once, and every entry is created
 * relative to its parent's descriptor (mkdirat, openat with O_EXCL,
 * symlinkat, mknodat, linkat), each directory being entered with
 * O_DIRECTORY | O_NOFOLLOW. So a symlink, from the image or already on
 * the disk, is never followed, and names are checked once more here (no
 * empty, ".", ".." or '/' names) whatever the library let through.
 *
 * Levels: level 0 is the target root, levels 1 .. n-1 the directories
 * leading to the unpacked path (recreated below the root, as in the
 * image), level n the unpacked path itself and deeper levels what the
 * walker finds below it. A directory is created when it is reached, or
 * with --no-empty-dir only when something is put into it, and finished
 * (owner, xattrs, mode, times) after its contents.
 *
 * The entries come from an image source (sqfs/image_source.h), which walks
 * the image and unpacks the data of the next files on -j threads while one
 * is written. Everything is created here, on the main thread, in the
 * walk's order. A regular file's descriptor then goes to the finisher
 * (finish.h), which writes the bytes of a small file, sets the attributes
 * and closes it: it only ever works on descriptors, so the rules above
 * hold there too.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "finish.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

typedef struct {
	char *name;
	/* the open directory, or -1 while not created */
	int fd;
	/* the attributes of the directories leading to the unpacked path,
	 * set after everything below them (the source gives the others
	 * again after their contents) */
	rd_attrs_t attrs;
} level_t;

typedef struct {
	rd_ctx_t *ctx;
	unsigned int flags;
	bool quiet;
	/* what to set on entries, and how (finish.h) */
	rd_attr_ctx_t ac;
	/* the thread that writes and closes small files */
	rd_finisher_t *fin;
	level_t *lv;
	size_t lv_max;
	/* the highest level in use */
	size_t top;
	/* the components of the unpacked path */
	char **comp;
	size_t comp_count;
	/* scratch for the paths shown in messages */
	char *path;
	size_t path_max;
	/* the entries, and the data of the current one */
	sqfs_image_source_t *src;
	/* block_size zeros, for holes written out (--no-sparse) */
	uint8_t *zeros;
	/* the level of a directory left out by the selection hook, whose
	 * contents are left out too; 0 when none is */
	size_t skip_level;
} unpacker_t;

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

/* Split a user path into its components, in the library's one canonical
 * form (sqfs/path.h): ".." is refused, empty and "." components dropped,
 * as the image source resolves it. */
static int split_path(unpacker_t *u, const char *path)
{
	char *canon = strdup(path), *p, *slash;

	if (canon == NULL)
		goto fail_alloc;
	if (sqfs_path_canonical(canon) != 0) {
		free(canon);
		tool_error(path, "'..' is not allowed in a path");
		return -1;
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
	return 0;
fail_alloc:
	free(canon);
	tool_error(NULL, "out of memory");
	return -1;
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
			goto fail_alloc;
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
		goto fail_alloc;
	u->lv[level].fd = -1;
	rd_attrs_drop(&u->lv[level].attrs);
	return 0;
fail_alloc:
	tool_error(NULL, "out of memory");
	return -1;
}

static void close_level(unpacker_t *u, size_t level)
{
	if (u->lv[level].fd >= 0)
		close(u->lv[level].fd);
	u->lv[level].fd = -1;
	rd_attrs_drop(&u->lv[level].attrs);
}

static void report(const unpacker_t *u, const char *what, const char *path)
{
	if (!u->quiet)
		printf("%s %s\n", what, path);
}

/* Create (or take, if a real directory is already there) the directory
 * of level from its parent's descriptor. */
static int make_dir(unpacker_t *u, size_t level)
{
	int parent = u->lv[level - 1].fd, fd;
	const char *name = u->lv[level].name;
	mode_t mode = (u->flags & UNPACK_CHMOD) ? 0700 : 0755;

	report(u, "creating", join(u, level, NULL));
	if (mkdirat(parent, name, mode) != 0 && errno != EEXIST) {
		tool_error(join(u, level, NULL), "cannot create: %s",
			   strerror(errno));
		return -1;
	}
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			tool_error(join(u, level, NULL),
				   "exists and is not a directory (a symlink "
				   "is never followed)");
		else
			tool_error(join(u, level, NULL), "cannot open: %s",
				   strerror(errno));
		return -1;
	}
	u->lv[level].fd = fd;
	return 0;
}

/* Create every directory up to level that is not there yet. */
static int need_dirs(unpacker_t *u, size_t level)
{
	for (size_t i = 1; i <= level; ++i) {
		if (u->lv[i].fd < 0 && make_dir(u, i) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ attributes */

/* Finish an entry on this thread: by its descriptor fd, or (fd < 0) by
 * name in dirfd without following it (finish.h). */
static int set_attrs(unpacker_t *u, const sqfs_entry_t *e, int fd, int dirfd,
		     const char *name, const char *path)
{
	rd_attrs_t a;

	if (rd_attrs_gather(&u->ac, e, &a) != 0)
		return -1;
	rd_attrs_apply(&u->ac, &a, fd, dirfd, name, path);
	return 0;
}

/* ------------------------------------------------------------ entries */

/* With UNPACK_FORCE, remove a non-directory already at name (unlinkat
 * removes a symlink itself, never its target); a directory stays and the
 * creation after this fails on it as it would have. */
static void clear_name(const unpacker_t *u, int dirfd, const char *name)
{
	if (u->flags & UNPACK_FORCE)
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
	bool failed_io;
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
			s->failed_io = true;
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
		size_t n = left < u->ctx->block_size ? (size_t)left
						     : u->ctx->block_size;

		if (write_piece(s, offset, u->zeros, n) != 0)
			return 1;
		offset += n;
		left -= n;
	}
	return 0;
}

/* The current entry's data into the sink: 0, a negative library error,
 * or 1 for a failed write. */
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
 * Create a file and fill it; the finisher writes what was gathered, sets
 * the attributes and closes it. Errors after the hand-over are the
 * finisher's to report, and stop the unpacking at the next file.
 */
static int make_file(unpacker_t *u, int dirfd, const char *name,
		     const sqfs_entry_t *e, const char *path)
{
	uint64_t size = e->size;
	rd_finish_job_t job;
	file_sink_t sink;
	int fd, ret;

	report(u, "unpacking", path);
	clear_name(u, dirfd, name);
	/* O_EXCL: an existing name, a symlink included, is refused */
	fd = openat(dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (u->flags & UNPACK_CHMOD) ? 0600 : 0644);
	if (fd < 0) {
		tool_error(path, "cannot create: %s", strerror(errno));
		return -1;
	}

	memset(&sink, 0, sizeof(sink));
	sink.fd = fd;
	sink.sparse_ok = !(u->flags & UNPACK_NO_SPARSE);
	if (size > 0 && size <= u->ctx->block_size) {
		sink.cap = (size_t)size;
		sink.buf = malloc(sink.cap);
		if (sink.buf == NULL) {
			tool_error(NULL, "out of memory");
			goto fail;
		}
	}
	ret = fill_file(u, &sink);
	if (ret < 0) {
		tool_error(path, "%s", sqfs_image_error(u->ctx->img));
		goto fail;
	}
	if (ret > 0) {
		tool_error(path, "cannot write: %s", strerror(errno));
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
		tool_error(NULL, "out of memory");
		goto fail;
	}
	if (rd_attrs_gather(&u->ac, e, &job.attrs) != 0) {
		free(job.path);
		goto fail;
	}
	return rd_finisher_submit(u->fin, &job);
fail:
	free(sink.buf);
	close(fd);
	return -1;
}

/* 0: created, 1: skipped with a warning, -1: failed */
static int make_special(unpacker_t *u, int dirfd, const char *name,
			const sqfs_entry_t *e, const char *path)
{
	uint32_t type = e->mode & S_IFMT;
	mode_t perm = (u->flags & UNPACK_CHMOD) ? 0600 : 0644;
	int ret;

	report(u, "creating", path);
	clear_name(u, dirfd, name);
	switch (type) {
	case S_IFLNK:
		if (e->symlink_target[0] == '\0') {
			tool_warning(path, "empty symlink target; skipped");
			return 1;
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
		if (errno == EPERM && type != S_IFLNK) {
			tool_warning(path, "cannot create: %s; skipped",
				     strerror(errno));
			return 1;
		}
		tool_error(path, "cannot create: %s", strerror(errno));
		return -1;
	}
	return set_attrs(u, e, -1, dirfd, name, path);
}

/*
 * Hard-link name in dirfd to the entry already unpacked at target (a
 * path relative to the unpacked path). The target's directories are
 * entered one by one without following symlinks, like everything else.
 * Returns 0 when linked, 1 when the entry must be unpacked on its own
 * (the first one was not created, or the link failed), -1 on failure.
 */
static int make_link(unpacker_t *u, int dirfd, const char *name,
		     const char *target, const char *path)
{
	size_t base = u->comp_count;
	int fd = u->lv[0].fd, next, ret = 0;
	const char *p = target;
	char part[260];

	/* the target lies below the unpacked path, which (being a
	 * directory, as it has more than one entry) is level n */
	if (base > 0)
		fd = u->lv[base].fd;
	if (fd < 0)
		return 1;
	fd = dup(fd);
	if (fd < 0)
		goto fail_errno;

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
		if (errno == EEXIST) {
			tool_error(path, "cannot create: %s", strerror(errno));
			ret = -1;
		} else if (errno == ENOENT) {
			/* the first was skipped (and said why) */
			ret = 1;
		} else {
			tool_warning(path,
				     "cannot link to %s: %s; unpacked "
				     "as a copy",
				     target, strerror(errno));
			ret = 1;
		}
	}
out:
	close(fd);
	return ret;
fail_name:
	tool_error(path, "bad hard-link target '%s' in the image", target);
	ret = -1;
	goto out;
fail_errno:
	tool_error(path, "%s", strerror(errno));
	return -1;
}

static bool filtered(const unpacker_t *u, uint32_t type)
{
	switch (type) {
	case S_IFBLK:
	case S_IFCHR:
		return (u->flags & UNPACK_NO_DEV) != 0;
	case S_IFSOCK:
		return (u->flags & UNPACK_NO_SOCK) != 0;
	case S_IFIFO:
		return (u->flags & UNPACK_NO_FIFO) != 0;
	case S_IFLNK:
		return (u->flags & UNPACK_NO_SLINK) != 0;
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
	if (need_dirs(u, level - 1) != 0)
		return -1;
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
	return make_special(u, dirfd, name, e, path) < 0 ? -1 : 0;
}

/* A directory's first report: remember it, create it unless only
 * contents may create it. */
static int enter_dir(unpacker_t *u, size_t level, const char *name)
{
	if (set_level(u, level, name) != 0)
		return -1;
	u->top = level;
	if (!(u->flags & UNPACK_NO_EMPTY_DIR))
		return make_dir(u, level);
	return 0;
}

/* A directory's second report: finish it if it was created. */
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
	size_t depth = depth_of(e->path), level = u->comp_count + depth;
	bool dir = (e->mode & S_IFMT) == S_IFDIR;
	bool post = (e->flags & SQFS_ENTRY_POST) != 0;
	const char *name;

	/* below a directory the selection left out */
	if (u->skip_level > 0 && level >= u->skip_level) {
		if (level == u->skip_level && dir && post)
			u->skip_level = 0;
		return 0;
	}
	if (!post && u->ctx->opt->select != NULL) {
		rd_select_t sel =
		    u->ctx->opt->select(u->ctx->opt->select_user, e);

		if (sel == RD_SELECT_STOP)
			return -1;
		if (sel == RD_SELECT_SKIP) {
			if (dir && level > 0)
				u->skip_level = level;
			return 0;
		}
	}

	/* the target root itself is the user's: it keeps its attributes,
	 * unless the front end makes it the image's root */
	if (level == 0) {
		if (dir && post && u->ctx->opt->root_attrs)
			return set_attrs(u, e, u->lv[0].fd, -1, ".", ".");
		return 0;
	}

	name = depth == 0 ? u->comp[u->comp_count - 1] : base_name(e->path);
	if (!sqfs_name_is_valid(name, strlen(name))) {
		tool_error(e->path, "unsafe name in the image");
		return -1;
	}
	/* every entry lies directly in the last directory entered */
	if (post ? (!dir || u->top != level) : u->top != level - 1) {
		tool_error(e->path, "entry out of order in the walk");
		return -1;
	}
	if (!dir)
		return unpack_leaf(u, level, name, e);
	if (post)
		return leave_dir(u, level, e);
	return enter_dir(u, level, name);
}

/* ------------------------------------------------------------ setup */

/* The target root: created with its parents if missing, then opened.
 * It is the user's own path, so symlinks in it are the user's choice. */
static int open_root(const char *path)
{
	char *copy;
	int fd;

	if (path[0] == '\0') {
		tool_error(NULL, "--unpack-root: empty path");
		return -1;
	}
	copy = strdup(path);
	if (copy == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
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
		tool_error(path, "cannot create: %s", strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tool_error(path, "cannot open: %s", strerror(errno));
	return fd;
}

/* One descriptor per directory level is kept open: allow as many as
 * the hard limit does. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The flags of every image source: xattrs only if they are set. */
static uint32_t source_flags(const unpacker_t *u)
{
	return (u->flags & UNPACK_SET_XATTR) ? 0 : SQFS_SOURCE_NO_XATTRS;
}

/* The directories leading to the unpacked path, as levels 1 .. n-1. */
static int add_parents(unpacker_t *u)
{
	size_t len = 0;
	char *path;
	int ret = 0;

	for (size_t i = 0; i < u->comp_count; ++i)
		len += strlen(u->comp[i]) + 1;
	path = malloc(len + 1);
	if (path == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	path[0] = '\0';
	for (size_t i = 0; i + 1 < u->comp_count && ret == 0; ++i) {
		sqfs_image_source_t *src = NULL;
		const sqfs_entry_t *e;

		if (i > 0)
			strcat(path, "/");
		strcat(path, u->comp[i]);
		ret = set_level(u, i + 1, u->comp[i]);
		if (ret == 0)
			ret = rd_entry_at(u->ctx, path,
					  source_flags(u) | SQFS_SOURCE_NO_DATA,
					  &src, &e);
		if (ret == 0)
			ret = rd_attrs_gather(&u->ac, e, &u->lv[i + 1].attrs);
		sqfs_image_source_destroy(src);
		u->top = i + 1;
		if (ret == 0 && !(u->flags & UNPACK_NO_EMPTY_DIR))
			ret = make_dir(u, i + 1);
	}
	free(path);
	return ret;
}

/*
 * Everything the source hands out, in its order. A failure of the walk is
 * reported after everything before it was unpacked, as if the source read
 * nothing ahead.
 */
static int walk(unpacker_t *u)
{
	const sqfs_entry_t *e;
	int ret;

	while ((ret = sqfs_image_source_next(u->src, &e)) == 0) {
		if (unpack_entry(u, e) != 0)
			return -1;
	}
	if (ret < 0) {
		rd_image_error(u->ctx, NULL);
		return -1;
	}
	return 0;
}

int rd_unpack(rd_ctx_t *ctx)
{
	const char *path = ctx->opt->cmdpath;
	unpacker_t u;
	int ret = -1;

	memset(&u, 0, sizeof(u));
	u.ctx = ctx;
	u.flags = ctx->opt->flags;
	u.quiet = ctx->opt->quiet;
	u.ac.flags = u.flags;
	u.ac.cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	atomic_init(&u.ac.chown_denied, false);
	u.ac.fixed_time = ctx->opt->fixed_time;
	u.ac.fixed_mtime = ctx->opt->fixed_mtime;

	u.zeros = calloc(1, ctx->block_size);
	if (u.zeros == NULL) {
		tool_error(NULL, "out of memory");
		goto out;
	}
	/* the path is resolved before anything is created */
	if (split_path(&u, path) != 0 ||
	    rd_open_source(ctx, path, source_flags(&u) | SQFS_SOURCE_POST_DIRS,
			   &u.src) != 0)
		goto out;
	if (rd_finisher_create(&u.ac, ctx->opt->num_jobs > 1, &u.fin) != 0)
		goto out;
	raise_fd_limit();
	if (set_level(&u, 0, "") != 0)
		goto out;
	u.lv[0].fd = open_root(
	    ctx->opt->unpack_root != NULL ? ctx->opt->unpack_root : ".");
	if (u.lv[0].fd < 0)
		goto out;
	if (add_parents(&u) != 0)
		goto out;

	/* a directory with everything below it, or one entry */
	ret = walk(&u);
	/* every file is finished before the directories holding them */
	if (rd_finisher_destroy(u.fin) != 0)
		ret = -1;
	u.fin = NULL;

	/* the directories leading to the path, innermost first */
	for (size_t i = u.comp_count; ret == 0 && i-- > 1;) {
		level_t *lv = &u.lv[i];

		if (lv->fd >= 0)
			rd_attrs_apply(&u.ac, &lv->attrs, lv->fd,
				       u.lv[i - 1].fd, lv->name,
				       join(&u, i, NULL));
	}
out:
	rd_finisher_destroy(u.fin);
	sqfs_image_source_destroy(u.src);
	for (size_t i = 0; i < u.lv_max; ++i) {
		close_level(&u, i);
		free(u.lv[i].name);
	}
	for (size_t i = 0; i < u.comp_count; ++i)
		free(u.comp[i]);
	if (u.ac.cwd_fd >= 0)
		close(u.ac.cwd_fd);
	free(u.comp);
	free(u.lv);
	free(u.path);
	free(u.zeros);
	return ret;
}
