/* SPDX-License-Identifier: MIT */
/*
 * fs_xattrs.h - the extended attributes of an entry of a directory tree
 * on disk, as an image can hold them.
 *
 * gensquashfs packs them and sqfsdiff compares them with an image's, so
 * both must read the same set: keys in the namespaces SquashFS stores
 * (sqfs_xattr_check), the others (system.posix_acl_access, say) left
 * out. They are read only from an object a walk saw and checked
 * (fs_open.h): through its open descriptor, or, for what cannot be opened
 * safely (a symlink, a device, a FIFO, a socket), by its one name in the
 * checked directory holding it, opened with O_PATH and without following
 * a symlink, checked, and read through that descriptor. A symlink's own
 * attributes are read, never its target's.
 */
#ifndef COMMON_FS_XATTRS_H
#define COMMON_FS_XATTRS_H

#include "common/fs_open.h"
#include "sqfs/xattr.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	/* count attributes; keys point into names, values into values */
	sqfs_xattr_t *list;
	size_t count;
	char *names;
	uint8_t *values;
} fs_xattrs_t;

/*
 * The xattrs of the object open at fd into *x. A file system without
 * xattr support gives none. path names the entry in messages; with
 * warn_skipped, each key left out is named in a warning ("...;
 * skipped"). Returns 0, or -1 after printing "tool: PATH: why"; free *x
 * either way.
 */
int fs_xattrs_read_fd(int fd, const char *path, bool warn_skipped,
		      fs_xattrs_t *x);

/*
 * The same for name (one component) in the checked directory at dirfd,
 * which must be the object id ("was replaced since it was scanned"
 * otherwise); the attributes are read from the object checked, whatever
 * happens to the name meanwhile.
 */
int fs_xattrs_read_at(int dirfd, const char *name, const fs_id_t *id,
		      const char *path, bool warn_skipped, fs_xattrs_t *x);

/* Free what the readers gave and empty *x. */
void fs_xattrs_free(fs_xattrs_t *x);

#endif /* COMMON_FS_XATTRS_H */
