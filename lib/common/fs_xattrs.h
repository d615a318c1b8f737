/* SPDX-License-Identifier: MIT */
/*
 * fs_xattrs.h - the extended attributes of an entry of a directory tree
 * on disk, as an image can hold them.
 *
 * gensquashfs packs them and sqfsdiff compares them with an image's, so
 * both must read the same set: keys in the namespaces SquashFS stores
 * (sqfs_xattr_check), the others (system.posix_acl_access, say) left
 * out. A symlink's own attributes are read, never its target's.
 */
#ifndef COMMON_FS_XATTRS_H
#define COMMON_FS_XATTRS_H

#include "sqfs/xattr.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	/* count attributes; keys point into names, values are malloc'd */
	sqfs_xattr_t *list;
	size_t count;
	char *names;
} fs_xattrs_t;

/*
 * Read the xattrs of path (relative to the directory at rootfd; "" is that
 * directory) into *x. A file system without xattr support gives none. With
 * warn_skipped, each key left out is named in a warning ("...; skipped").
 * Returns 0, or -1 after printing "tool: PATH: why"; free *x either way.
 */
int fs_xattrs_read(int rootfd, const char *path, bool warn_skipped,
		   fs_xattrs_t *x);

/* Free what fs_xattrs_read gave and empty *x. */
void fs_xattrs_free(fs_xattrs_t *x);

#endif /* COMMON_FS_XATTRS_H */
