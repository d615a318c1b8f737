/* SPDX-License-Identifier: MIT */
/*
 * fs_xattrs.h - the extended attributes of an entry of a directory tree
 * on disk, as an image can hold them.
 *
 * The directory source of the library (sqfs/dir_source.h) hands them out
 * and gensquashfs packs them again after its scan, so both must read the
 * same set: keys in the namespaces SquashFS stores
 * (sqfs_xattr_check), the others (system.posix_acl_access, say) left
 * out. They are read only from an object a walk saw and checked
 * (fs_open.h): through its open descriptor, or, for what cannot be opened
 * safely (a symlink, a device, a FIFO, a socket), by its one name in the
 * checked directory holding it, opened with O_PATH and without following
 * a symlink, checked, and read through that descriptor. A symlink's own
 * attributes are read, never its target's.
 */
#ifndef UTIL_FS_XATTRS_H
#define UTIL_FS_XATTRS_H

#include "util/fs_open.h"
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

/* Told of each key left out (what an image cannot hold), with why:
 * gensquashfs warns of them, the others leave them out without a word.
 * NULL: none is told. */
typedef void (*fs_xattrs_skip_t)(void *user, const char *key, const char *why);

/*
 * The xattrs of the object open at fd into *x. A file system without
 * xattr support gives none. Returns 0, or a negative sqfs_error_t with
 * words in why (room for SQFS_ERROR_TEXT_SIZE bytes) that do not name the
 * entry, for the caller to put its name before them ("listing xattrs:
 * Permission denied"): SQFS_ERROR_ALLOC, SQFS_ERROR_IO. Free *x either
 * way. Nothing is printed: the library reads xattrs with it too.
 */
int fs_xattrs_read_fd(int fd, fs_xattrs_skip_t skip, void *user, fs_xattrs_t *x,
		      char *why);

/*
 * The same for name (one component) in the checked directory at dirfd,
 * which must be the object id (SQFS_ERROR_CHANGED, "was replaced since it
 * was scanned", otherwise); the attributes are read from the object
 * checked, whatever happens to the name meanwhile.
 */
int fs_xattrs_read_at(int dirfd, const char *name, const fs_id_t *id,
		      fs_xattrs_skip_t skip, void *user, fs_xattrs_t *x,
		      char *why);

/* Free what the readers gave and empty *x. */
void fs_xattrs_free(fs_xattrs_t *x);

#endif /* UTIL_FS_XATTRS_H */
