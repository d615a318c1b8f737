/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the FUSE low-level operations of a read-only SquashFS image.
 *
 * Every operation runs in any of libfuse's worker threads at once; the
 * file system (fs.h) is made for that, and the operations keep no state
 * of their own but the handles of open files. Nothing in an image ever
 * changes while it is mounted, so the kernel is told to keep everything
 * it learns: entries (and their absence), attributes, file pages,
 * directory listings and symlink targets, for as long as it likes.
 */
#include "config.h"

#include "sqfsmount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* How long the kernel may trust what it was told: a year, which the
 * kernel reads as "for ever" (nothing changes under a read-only image). */
#define FOREVER (365.0 * 24 * 3600)

/* The longest name SquashFS stores (and the kernel's f_namemax for it). */
#define NAME_MAX_SQFS 256

static mount_ctx_t *ctx_of(fuse_req_t req)
{
	mount_ctx_t *ctx = fuse_req_userdata(req);

	mount_busy(ctx);
	return ctx;
}

static void reply_err(mount_ctx_t *ctx, fuse_req_t req, int err)
{
	fuse_reply_err(req, err);
	mount_idle(ctx);
}

static void op_init(void *user, struct fuse_conn_info *conn)
{
	mount_ctx_t *ctx = user;

	/* the same pages for every reader, and nothing to invalidate:
	 * the image never changes */
	if (conn->capable & FUSE_CAP_EXPORT_SUPPORT)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	if (conn->capable & FUSE_CAP_ASYNC_READ)
		conn->want |= FUSE_CAP_ASYNC_READ;
	if (conn->capable & FUSE_CAP_EXPLICIT_INVAL_DATA)
		conn->want |= FUSE_CAP_EXPLICIT_INVAL_DATA;
	conn->want &= ~(unsigned int)FUSE_CAP_AUTO_INVAL_DATA;
	/* every listing with its entries' attributes: `ls -l`, `find` and
	 * the like then need no lookup per entry */
	if (conn->capable & FUSE_CAP_READDIRPLUS) {
		conn->want |= FUSE_CAP_READDIRPLUS;
		conn->want &= ~(unsigned int)FUSE_CAP_READDIRPLUS_AUTO;
	}
	/* large requests: libfuse takes max_write as the size of a request
	 * buffer (and the kernel's max_pages), which reads use too; it
	 * lowers both to what it and the kernel support */
	conn->max_write = 1u << 20;
	/* the mount option's value, which libfuse insists on hearing twice */
	conn->max_read = ctx->opt->max_read;
	/* conn->max_readahead already is the most the kernel offers */

	/* reads smaller than the read-ahead window are random: their
	 * blocks go whole to the page cache (store.c) */
	ctx->read_ahead_bytes = conn->max_readahead;
	ctx->store = conn->proto_major > 7 ||
		     (conn->proto_major == 7 && conn->proto_minor >= 15);

	/* Opens without a request: open() answers ENOSYS, after which the
	 * kernel opens files (directories) itself and sends neither open
	 * nor release, halving the requests of reading a small file
	 * (lookup, open, read, release -> lookup, read). Reads then come
	 * without a handle and find the file by number (the library keeps
	 * the handles of recent files). Not with -o timeout, which must
	 * know of every open file, nor with -o allow_root, which libfuse
	 * enforces on every request but reads: an open nobody asks for
	 * would let any user read. */
	if (ctx->opt->timeout == 0 && !ctx->opt->root_only) {
		ctx->no_open = (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) != 0;
		ctx->no_opendir =
		    (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) != 0;
	}
}

/* ---------------------------------------------------------------- names */

static void fill_entry(mount_ctx_t *ctx, const sqfs_fs_stat_t *st,
		       struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = mount_node_of(ctx, st->node);
	e->generation = 0;
	mount_fill_stat(ctx, st, &e->attr);
	e->attr_timeout = FOREVER;
	e->entry_timeout = FOREVER;
}

/* ".." (which the kernel asks for only to export the file system, e.g.
 * over NFS) at the mount's root is the root: a subdir's real parent is
 * not in the mount. The library answers the rest ("." and ".." below). */
static int lookup_name(mount_ctx_t *ctx, uint64_t dir, const char *name,
		       size_t len, sqfs_fs_stat_t *st, char *why)
{
	if (dir == ctx->root && len == 2 && strcmp(name, "..") == 0)
		return sqfs_fs_lookup(ctx->fs, dir, ".", 1, st, why);
	return sqfs_fs_lookup(ctx->fs, dir, name, len, st, why);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t dir = mount_id_of(ctx, parent);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	struct fuse_entry_param e;
	size_t len = strlen(name);
	sqfs_fs_stat_t st;
	int ret;

	if (len > NAME_MAX_SQFS) {
		reply_err(ctx, req, ENAMETOOLONG);
		return;
	}
	ret = lookup_name(ctx, dir, name, len, &st, why);

	if (ret == SQFS_ERROR_NO_ENTRY) {
		/* absence is for ever too: a negative entry */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = FOREVER;
		fuse_reply_entry(req, &e);
		mount_idle(ctx);
		return;
	}
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "lookup", parent, why));
		return;
	}
	fill_entry(ctx, &st, &e);
	fuse_reply_entry(req, &e);
	mount_idle(ctx);
}

static void op_getattr(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_stat_t st;
	struct stat out;
	int ret;

	(void)fi;
	ret = sqfs_fs_stat(ctx->fs, ino, &st, why);
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "getattr", node, why));
		return;
	}
	mount_fill_stat(ctx, &st, &out);
	fuse_reply_attr(req, &out, FOREVER);
	mount_idle(ctx);
}

static void op_readlink(fuse_req_t req, fuse_ino_t node)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	char target[SQFS_MAX_SYMLINK_SIZE + 1];
	int ret;

	ret = sqfs_fs_readlink(ctx->fs, ino, target, sizeof(target), NULL, why);
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "readlink", node, why));
		return;
	}
	fuse_reply_readlink(req, target);
	mount_idle(ctx);
}

/* ---------------------------------------------------------------- files */

static void op_open(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_file_t *file;
	mount_handle_t *h;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		reply_err(ctx, req, EROFS);
		return;
	}
	/* the mount is read only: the kernel refuses writers itself */
	if (ctx->no_open) {
		reply_err(ctx, req, ENOSYS);
		return;
	}
	ret = sqfs_fs_file_open(ctx->fs, ino, &file, why);
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, true, "open", node, why));
		return;
	}
	h = mount_handle_add(ctx, file);
	if (h == NULL) {
		sqfs_fs_file_close(file);
		reply_err(ctx, req, ENOMEM);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	/* the pages of an earlier open are still the file's */
	fi->keep_cache = 1;
	fi->noflush = 1;
	/* the opener gone (interrupted): no release will come */
	if (fuse_reply_open(req, fi) != 0)
		mount_handle_close(ctx, h);
	mount_idle(ctx);
}

static void op_read(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);
	sqfs_fs_file_t *file = NULL;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	ptrdiff_t got;
	void *buf;

	if (off < 0) {
		reply_err(ctx, req, EINVAL);
		return;
	}
	/* no handle when the kernel opened the file itself */
	if (fi->fh != 0)
		file = mount_handle_file((mount_handle_t *)(uintptr_t)fi->fh);
	if (size == 0 ||
	    (file != NULL && (uint64_t)off >= sqfs_fs_file_size(file))) {
		fuse_reply_buf(req, NULL, 0);
		mount_idle(ctx);
		return;
	}
	buf = malloc(size);
	if (buf == NULL) {
		reply_err(ctx, req, ENOMEM);
		return;
	}
	if (file != NULL)
		got = sqfs_fs_file_read(file, (uint64_t)off, buf, size, why);
	else
		got = sqfs_fs_read(ctx->fs, mount_id_of(ctx, node),
				   (uint64_t)off, buf, size, why);
	if (got < 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, (int)got, true, "read", node, why));
	} else {
		fuse_reply_buf(req, buf, (size_t)got);
		/* after the answer: its pages are unlocked */
		mount_store_read(ctx, node, mount_id_of(ctx, node),
				 (uint64_t)off, size, (size_t)got);
		mount_idle(ctx);
	}
	free(buf);
}

static void op_release(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);

	(void)node;
	mount_handle_close(ctx, (mount_handle_t *)(uintptr_t)fi->fh);
	reply_err(ctx, req, 0);
}

/* ---------------------------------------------------------- directories */

static void op_opendir(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_stat_t st;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		reply_err(ctx, req, EISDIR);
		return;
	}
	/* the kernel then opens directories itself and keeps their
	 * listings (FOPEN_KEEP_CACHE | FOPEN_CACHE_DIR) */
	if (ctx->no_opendir) {
		reply_err(ctx, req, ENOSYS);
		return;
	}
	ret = sqfs_fs_stat(ctx->fs, ino, &st, why);
	if (ret == 0 && !S_ISDIR(st.mode))
		ret = SQFS_ERROR_NOT_DIR;
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "opendir", node, why));
		return;
	}
	/* the kernel keeps listings it read, across opens */
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	atomic_fetch_add(&ctx->open_handles, 1);
	if (fuse_reply_open(req, fi) != 0)
		atomic_fetch_sub(&ctx->open_handles, 1);
	mount_idle(ctx);
}

typedef struct {
	fuse_req_t req;
	mount_ctx_t *ctx;
	uint64_t dir;
	bool plus;
	char *buf;
	size_t size, used;
} dir_fill_t;

static int fill_one(void *user, const sqfs_fs_dirent_t *ent)
{
	dir_fill_t *f = user;
	char name[NAME_MAX_SQFS + 1];
	const sqfs_fs_stat_t *st = ent->stat;
	uint32_t ino = ent->ino;
	size_t n, room = f->size - f->used;

	if (ent->name_len == 0 || ent->name_len > NAME_MAX_SQFS)
		return SQFS_ERROR_CORRUPTED;
	memcpy(name, ent->name, ent->name_len);
	name[ent->name_len] = '\0';

	/* the mount's root is its own parent (a subdir's real parent is
	 * not in the mount) */
	if (f->dir == f->ctx->root && strcmp(name, "..") == 0)
		ino = f->ctx->root_ino;

	if (f->plus && st != NULL && strcmp(name, "..") != 0) {
		struct fuse_entry_param e;

		fill_entry(f->ctx, st, &e);
		n = fuse_add_direntry_plus(f->req, f->buf + f->used, room, name,
					   &e, (off_t)ent->next_cookie);
	} else if (f->plus) {
		/* "..", whose attributes the library does not read (its
		 * node is known by number only): node id 0 tells the
		 * kernel to take the name, number and type alone, as it
		 * does anyway for "." and ".." */
		struct fuse_entry_param e;

		memset(&e, 0, sizeof(e));
		e.attr.st_ino = ino;
		e.attr.st_mode = ent->type & S_IFMT;
		n = fuse_add_direntry_plus(f->req, f->buf + f->used, room, name,
					   &e, (off_t)ent->next_cookie);
	} else {
		struct stat sb;

		memset(&sb, 0, sizeof(sb));
		sb.st_ino = ino;
		sb.st_mode = ent->type & S_IFMT;
		n = fuse_add_direntry(f->req, f->buf + f->used, room, name, &sb,
				      (off_t)ent->next_cookie);
	}
	if (n > room)
		return 1;
	f->used += n;
	return 0;
}

static void do_readdir(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		       bool plus)
{
	mount_ctx_t *ctx = ctx_of(req);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	dir_fill_t f;
	uint32_t flags = SQFS_FS_READDIR_DOTS;
	int ret = 0;

	memset(&f, 0, sizeof(f));
	f.req = req;
	f.ctx = ctx;
	f.dir = mount_id_of(ctx, node);
	f.plus = plus;
	f.size = size;
	if (plus)
		flags |= SQFS_FS_READDIR_STAT;
	f.buf = malloc(size > 0 ? size : 1);
	if (f.buf == NULL)
		ret = SQFS_ERROR_ALLOC;
	if (ret == 0)
		ret = sqfs_fs_readdir(ctx->fs, f.dir, (uint64_t)off, flags,
				      fill_one, &f, why);
	/* what was listed before damage is worth giving; the next call
	 * starts after it and gets the error */
	if (ret != 0 && f.used == 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "readdir", node, why));
	} else {
		fuse_reply_buf(req, f.buf, f.used);
		mount_idle(ctx);
	}
	free(f.buf);
}

static void op_readdir(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, node, size, off, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t node, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, node, size, off, true);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t node,
			  struct fuse_file_info *fi)
{
	mount_ctx_t *ctx = ctx_of(req);

	(void)node;
	(void)fi;
	atomic_fetch_sub(&ctx->open_handles, 1);
	reply_err(ctx, req, 0);
}

/* ---------------------------------------------------------------- other */

/* What the kernel's squashfs driver says of the image. */
static void op_statfs(fuse_req_t req, fuse_ino_t node)
{
	mount_ctx_t *ctx = ctx_of(req);
	const sqfs_super_t *super = sqfs_fs_super(ctx->fs);
	struct statvfs sv;

	(void)node;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = super->block_size;
	sv.f_frsize = super->block_size;
	sv.f_blocks = super->bytes_used == 0
			  ? 0
			  : ((super->bytes_used - 1) >> super->block_log) + 1;
	sv.f_files = super->inode_count;
	sv.f_namemax = NAME_MAX_SQFS;
	fuse_reply_statfs(req, &sv);
	mount_idle(ctx);
}

/* Reply a value of len bytes to a request for size bytes: the length
 * alone when size is 0 (a probe), ERANGE when it does not fit. */
static void reply_sized(fuse_req_t req, const void *data, size_t len,
			size_t size)
{
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (len > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, data, len);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t node, const char *name,
			size_t size)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_xattr_t *list = NULL;
	size_t count = 0, i;
	int ret;

	ret = sqfs_fs_xattrs(ctx->fs, ino, &list, &count, why);
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "getxattr", node, why));
		return;
	}
	for (i = 0; i < count; ++i) {
		if (strcmp(list[i].key, name) == 0)
			break;
	}
	if (i == count)
		fuse_reply_err(req, ENODATA);
	else
		reply_sized(req, list[i].value, list[i].size, size);
	sqfs_xattr_list_free(list, count);
	mount_idle(ctx);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t node, size_t size)
{
	mount_ctx_t *ctx = ctx_of(req);
	uint64_t ino = mount_id_of(ctx, node);
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_xattr_t *list = NULL;
	size_t count = 0, i, total = 0, at = 0;
	char *names = NULL;
	int ret;

	ret = sqfs_fs_xattrs(ctx->fs, ino, &list, &count, why);
	if (ret != 0) {
		reply_err(ctx, req,
			  mount_errno(ctx, ret, false, "listxattr", node, why));
		return;
	}
	for (i = 0; i < count; ++i)
		total += strlen(list[i].key) + 1;
	if (size != 0 && total <= size && total > 0) {
		names = malloc(total);
		if (names == NULL) {
			sqfs_xattr_list_free(list, count);
			reply_err(ctx, req, ENOMEM);
			return;
		}
		for (i = 0; i < count; ++i) {
			size_t n = strlen(list[i].key) + 1;

			memcpy(names + at, list[i].key, n);
			at += n;
		}
	}
	reply_sized(req, names, total, size);
	free(names);
	sqfs_xattr_list_free(list, count);
	mount_idle(ctx);
}

const struct fuse_lowlevel_ops mount_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .getattr = op_getattr,
    .readlink = op_readlink,
    .open = op_open,
    .read = op_read,
    .release = op_release,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .readdirplus = op_readdirplus,
    .releasedir = op_releasedir,
    .statfs = op_statfs,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
};
