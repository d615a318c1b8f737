/* SPDX-License-Identifier: MIT */
/*
 * inode.c - how inodes of the image look through FUSE: node ids,
 * attributes, error codes.
 */
#include "config.h"

#include "common/print.h"
#include "sqfsmount.h"

#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>

/*
 * FUSE names the root node 1, whatever the file system calls it; every
 * other node is the library's node id (fs.h), which says where the inode
 * is stored and is never 1 (node ids are above 2^32). So a FUSE node id
 * costs no table, however many inodes the kernel keeps, and stays valid
 * as long as the mount.
 */
uint64_t mount_node_of(const mount_ctx_t *ctx, uint64_t id)
{
	return id == ctx->root ? FUSE_ROOT_ID : id;
}

uint64_t mount_id_of(const mount_ctx_t *ctx, fuse_ino_t node)
{
	/* an id the kernel never got from us names whatever the library
	 * finds there, or nothing (the library checks) */
	return node == FUSE_ROOT_ID ? ctx->root : (uint64_t)node;
}

/* What stat(2) on a kernel mount of the image says, but the owner that
 * -o uid/gid impose; st_ino is the image's inode number, so that hard
 * links show as one inode. */
void mount_fill_stat(const mount_ctx_t *ctx, const sqfs_fs_stat_t *in,
		     struct stat *out)
{
	const sqfs_super_t *super = sqfs_fs_super(ctx->fs);

	memset(out, 0, sizeof(*out));
	out->st_ino = in->ino;
	out->st_mode = in->mode;
	out->st_nlink = in->nlink;
	out->st_uid = ctx->opt->set_uid ? ctx->opt->uid : in->uid;
	out->st_gid = ctx->opt->set_gid ? ctx->opt->gid : in->gid;
	out->st_size = (off_t)in->size;
	out->st_blocks = (blkcnt_t)in->blocks;
	out->st_blksize = (blksize_t)super->block_size;
	out->st_rdev = makedev(in->rdev_major, in->rdev_minor);
	out->st_atim.tv_sec = (time_t)in->mtime;
	out->st_mtim.tv_sec = (time_t)in->mtime;
	out->st_ctim.tv_sec = (time_t)in->mtime;
}

int mount_errno(mount_ctx_t *ctx, int err, bool read_op, const char *what,
		fuse_ino_t node, const char *why)
{
	switch (err) {
	case SQFS_ERROR_NO_ENTRY:
		return ENOENT;
	case SQFS_ERROR_NOT_DIR:
		return ENOTDIR;
	case SQFS_ERROR_NOT_FILE:
		return read_op ? EISDIR : EINVAL;
	case SQFS_ERROR_OUT_OF_BOUNDS:
		/* a node id that names nothing in this image */
		return ESTALE;
	case SQFS_ERROR_ALLOC:
		return ENOMEM;
	default:
		break;
	}
	/* the image is damaged (or unreadable) there: say where, once per
	 * failing request, and give the caller EIO */
	if (ctx->verbose) {
		tool_error(ctx->opt->image, "%s of node %llu: %s", what,
			   (unsigned long long)node,
			   why != NULL && why[0] != '\0'
			       ? why
			       : sqfs_error_string(err));
	}
	return EIO;
}
