/* SPDX-License-Identifier: MIT */
/*
 * fs_dir.c - directories of the file system: lookup, path resolution and
 * listings that resume from a cookie.
 *
 * A cookie says where in the listing to go on, so that resuming costs one
 * run of entries (at most 256) rather than the listing up to there:
 *
 *   bits  0..7   entries of the run to skip
 *   bits  8..39  the run header's byte offset in the listing
 *   bits 40..63  the header's metadata block, relative to the listing's
 *                first block (COOKIE_FAR: too far to say)
 *
 * The offset inside the metadata block follows from the listing offset,
 * since every metadata block but the last unpacks to 8 KiB. Where that
 * does not hold, or the block is too far, the cookie says COOKIE_FAR and
 * resuming reads the listing from the top to that header (only for
 * listings of more than 16 MiB, or hostile ones). The header at offset 0
 * is the listing's start, which no entry's cookie names, so offset 0 with
 * a block of 1 or 2 marks the places after "." and "..".
 *
 * A resumed listing checks its entries as every listing is checked, but
 * the order check starts over at the run it resumes in.
 */
#include "fs_internal.h"
#include "dir_reader_internal.h"
#include "path_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define COOKIE_FAR 0xFFFFFFu
#define COOKIE_DOT (1ull << 40)
#define COOKIE_DOTDOT (2ull << 40)

static uint64_t cookie_make(uint32_t skip, uint64_t off, uint64_t delta)
{
	return ((uint64_t)delta << 40) | ((off & 0xFFFFFFFFu) << 8) | skip;
}

static bool is_dir(const sqfs_inode_t *inode)
{
	return sqfs_inode_type_basic(inode->type) == SQFS_INODE_DIR;
}

/* ---- lookup -------------------------------------------------------------- */

/* The inode number of dir's parent: the root is its own, as at a
 * mount's top, and so is a directory whose parent field is nonsense. */
static uint32_t parent_of(const sqfs_fs_t *fs, const sqfs_inode_t *dir)
{
	uint32_t parent = dir->data.dir.parent_inode;

	if (dir->inode_number == fs->root_ino || parent == 0 ||
	    parent > fs->super.inode_count)
		return fs->root_ino;
	return parent;
}

/* Find name in the directory inode dir and read what it names; *node
 * receives its node id. "." and ".." are dir and its parent. */
static int lookup_in(sqfs_fs_t *fs, fs_ctx_t *ctx, const sqfs_inode_t *dir,
		     uint64_t dir_node, const char *name, size_t len,
		     sqfs_inode_t **out, uint64_t *node)
{
	char buf[SQFS_NAME_MAX + 1];
	sqfs_dir_entry_t ent;
	int ret;

	*out = NULL;
	if (!is_dir(dir))
		return errtext_set(fs_err(ctx), SQFS_ERROR_NOT_DIR,
				   "inode %u: not a directory",
				   dir->inode_number);
	if (len == 1 && name[0] == '.')
		return fs_read_inode(fs, ctx, dir_node, out, node);
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		if (dir->inode_number == fs->root_ino)
			return fs_read_inode(fs, ctx, fs_node_of(fs->root_ref),
					     out, node);
		return fs_read_inode(fs, ctx, parent_of(fs, dir), out, node);
	}
	if (!sqfs_name_is_valid(name, len))
		return errtext_set(
		    fs_err(ctx), SQFS_ERROR_NO_ENTRY,
		    "directory inode %u: no entry '%.*s'", dir->inode_number,
		    (int)(len > SQFS_NAME_MAX ? SQFS_NAME_MAX : len), name);
	memcpy(buf, name, len);
	buf[len] = '\0';

	ret = sqfs_dir_reader_find(ctx->dr, dir, buf, &ent);
	if (ret != 0)
		return ret;
	number_map_record(&fs->numbers, ent.inode_number, ent.inode_ref);
	*node = fs_node_of(ent.inode_ref);
	return fs_read_inode_ref(ctx, ent.inode_ref, ent.inode_number, out);
}

int sqfs_fs_lookup(sqfs_fs_t *fs, uint64_t dir, const char *name,
		   size_t name_len, sqfs_fs_stat_t *st, char *why)
{
	sqfs_inode_t *di, *inode;
	uint64_t dir_node, node;
	fs_ctx_t *ctx;
	int ret;

	if (fs == NULL || (name == NULL && name_len > 0) || st == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, dir, &di, &dir_node);
	if (ret == 0) {
		ret = lookup_in(fs, ctx, di, dir_node, name, name_len, &inode,
				&node);
		free(di);
		if (ret == 0) {
			ret = fs_fill_stat(fs, ctx, inode, node, st);
			free(inode);
		}
	}
	return fs_ctx_done(fs, ctx, ret, why);
}

int sqfs_fs_resolve(sqfs_fs_t *fs, const char *path, uint64_t *node, char *why)
{
	sqfs_inode_t *cur, *next;
	uint64_t cur_node, next_node;
	const char *rest, *p;
	fs_ctx_t *ctx;
	size_t len;
	int ret;

	if (fs == NULL || path == NULL || node == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;

	for (rest = path; (len = path_next(&rest, &p)) > 0;) {
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			ret = errtext_set(fs_err(ctx), SQFS_ERROR_ARG_INVALID,
					  "'..' in path '%s'", path);
			return fs_ctx_done(fs, ctx, ret, why);
		}
	}

	ret = fs_read_inode(fs, ctx, fs_node_of(fs->root_ref), &cur, &cur_node);
	for (rest = path; ret == 0 && (len = path_next(&rest, &p)) > 0;) {
		ret = lookup_in(fs, ctx, cur, cur_node, p, len, &next,
				&next_node);
		ret = path_walk_failed(fs_err(ctx), ret, path, p, len);
		free(cur);
		cur = next;
		cur_node = next_node;
	}
	if (ret == 0)
		*node = cur_node;
	free(cur);
	return fs_ctx_done(fs, ctx, ret, why);
}

/* ---- readdir ------------------------------------------------------------- */

typedef struct {
	sqfs_fs_t *fs;
	fs_ctx_t *ctx;
	const sqfs_inode_t *dir;
	uint32_t flags;
	sqfs_fs_readdir_cb cb;
	void *user;
	uint64_t listing;
	uint64_t first_block;
} listing_t;

/* The cookie that resumes the open listing after the entry last read. */
static uint64_t next_cookie(const listing_t *l)
{
	dir_resume_t r;
	uint64_t off, delta;

	dir_reader_resume_point(l->ctx->dr, &r);
	off = l->listing - r.remaining;
	if (r.remaining == 0)
		return cookie_make(0, l->listing, 0);
	delta = r.block - l->first_block;
	if (r.block < l->first_block || delta >= COOKIE_FAR ||
	    (l->dir->data.dir.offset + off) % SQFS_META_BLOCK_SIZE != r.offset)
		delta = COOKIE_FAR;
	return cookie_make(r.skip, off, delta);
}

/* Hand one entry to the callback; > 0: it stopped the listing. An
 * entry without a node (".." below the root) goes without attributes. */
static int emit(listing_t *l, const char *name, size_t len, uint32_t ino,
		uint32_t type, uint64_t node, uint64_t cookie)
{
	sqfs_fs_dirent_t ent;
	sqfs_fs_stat_t st;
	sqfs_inode_t *inode = NULL;
	int ret;

	memset(&ent, 0, sizeof(ent));
	ent.name = name;
	ent.name_len = len;
	ent.ino = ino;
	ent.node = node;
	ent.type = type;
	ent.next_cookie = cookie;
	if ((l->flags & SQFS_FS_READDIR_STAT) && node != 0) {
		ret =
		    fs_read_inode_ref(l->ctx, node - FS_NODE_BASE, ino, &inode);
		if (ret == 0) {
			ret = fs_fill_stat(l->fs, l->ctx, inode, node, &st);
			free(inode);
		}
		if (ret != 0)
			return ret;
		ent.stat = &st;
	}
	ret = l->cb(l->user, &ent);
	if (ret < 0)
		return errtext_set(fs_err(l->ctx), ret,
				   "directory inode %u: the readdir callback "
				   "failed",
				   l->dir->inode_number);
	return ret;
}

/* Entry type bits for a basic inode type. */
static uint32_t type_bits(uint16_t type)
{
	sqfs_inode_t probe;

	memset(&probe, 0, sizeof(probe));
	probe.type = type;
	return sqfs_inode_mode(&probe);
}

static int list_from(listing_t *l, uint64_t cookie)
{
	uint32_t skip = (uint32_t)(cookie & 0xFF);
	uint64_t off = (cookie >> 8) & 0xFFFFFFFFu;
	uint64_t delta = cookie >> 40;
	const sqfs_inode_t *dir = l->dir;
	uint64_t c, want = cookie;
	bool emitting = true;
	sqfs_dir_entry_t ent;
	int ret;

	if (off > l->listing)
		return errtext_set(fs_err(l->ctx), SQFS_ERROR_ARG_INVALID,
				   "directory inode %u: cookie %llu is past "
				   "the listing",
				   dir->inode_number,
				   (unsigned long long)cookie);
	if (off == l->listing)
		return 0;

	if (off == 0 && skip == 0) {
		ret = sqfs_dir_reader_open(l->ctx->dr, dir);
	} else if (delta != COOKIE_FAR) {
		ret = dir_reader_open_at(
		    l->ctx->dr, dir, l->first_block + delta,
		    (dir->data.dir.offset + off) % SQFS_META_BLOCK_SIZE,
		    l->listing - off);
	} else {
		/* from the top, emitting once past the cookie's place */
		ret = sqfs_dir_reader_open(l->ctx->dr, dir);
		emitting = false;
		want = cookie_make(skip, off, 0);
	}
	if (ret != 0)
		return ret;

	if (emitting && skip > 0) {
		while (skip-- > 0) {
			ret = sqfs_dir_reader_next(l->ctx->dr, &ent);
			if (ret > 0)
				return errtext_set(
				    fs_err(l->ctx), SQFS_ERROR_ARG_INVALID,
				    "directory inode %u: cookie %llu is past "
				    "the listing",
				    dir->inode_number,
				    (unsigned long long)cookie);
			if (ret < 0)
				return ret;
		}
	}

	for (;;) {
		ret = sqfs_dir_reader_next(l->ctx->dr, &ent);
		if (ret > 0)
			return 0;
		if (ret < 0)
			return ret;
		number_map_record(&l->fs->numbers, ent.inode_number,
				  ent.inode_ref);
		c = next_cookie(l);
		if (!emitting) {
			/* compare without the block, which that cookie
			 * could not give */
			if ((c & ((1ull << 40) - 1)) == want)
				emitting = true;
			continue;
		}
		ret = emit(l, ent.name, ent.name_len, ent.inode_number,
			   type_bits(ent.type), fs_node_of(ent.inode_ref), c);
		if (ret != 0)
			return ret;
	}
}

int sqfs_fs_readdir(sqfs_fs_t *fs, uint64_t dir, uint64_t cookie,
		    uint32_t flags, sqfs_fs_readdir_cb cb, void *user,
		    char *why)
{
	sqfs_inode_t *di;
	uint64_t node;
	fs_ctx_t *ctx;
	listing_t l;
	int ret;

	if (fs == NULL || cb == NULL ||
	    (flags & ~(uint32_t)(SQFS_FS_READDIR_DOTS | SQFS_FS_READDIR_STAT)))
		return SQFS_ERROR_ARG_INVALID;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, dir, &di, &node);
	if (ret != 0)
		return fs_ctx_done(fs, ctx, ret, why);
	if (!is_dir(di)) {
		ret =
		    errtext_set(fs_err(ctx), SQFS_ERROR_NOT_DIR,
				"inode %u: not a directory", di->inode_number);
		goto out;
	}

	memset(&l, 0, sizeof(l));
	l.fs = fs;
	l.ctx = ctx;
	l.dir = di;
	l.flags = flags;
	l.cb = cb;
	l.user = user;
	l.first_block =
	    fs->super.directory_table_start + di->data.dir.start_block;
	l.listing = di->data.dir.size >= 3 ? di->data.dir.size - 3 : 0;

	if ((flags & SQFS_FS_READDIR_DOTS) && cookie == 0) {
		ret = emit(&l, ".", 1, di->inode_number, S_IFDIR, node,
			   COOKIE_DOT);
		if (ret != 0)
			goto out;
		cookie = COOKIE_DOT;
	}
	if ((flags & SQFS_FS_READDIR_DOTS) && cookie == COOKIE_DOT) {
		/* the parent is known by number only: finding its node
		 * could take a walk, which a listing must never cost */
		bool root = di->inode_number == fs->root_ino;

		ret = emit(&l, "..", 2, parent_of(fs, di), S_IFDIR,
			   root ? fs_node_of(fs->root_ref) : 0, COOKIE_DOTDOT);
		if (ret != 0)
			goto out;
	}
	if (cookie == COOKIE_DOT || cookie == COOKIE_DOTDOT)
		cookie = 0;
	ret = list_from(&l, cookie);
out:
	free(di);
	/* the callback stopping the listing is no failure */
	return fs_ctx_done(fs, ctx, ret > 0 ? 0 : ret, why);
}
