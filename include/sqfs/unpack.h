/* SPDX-License-Identifier: MIT */
/*
 * unpack.h - unpacking a subtree of an image into a directory, safely.
 *
 * What rdsquashfs -u and unsquashfs -d do, for any program: the entries
 * below a path of the image (image_source.h hands them out, the blocks
 * of the next files unpacked ahead on worker threads) are made as
 * directories, files, symlinks, devices, FIFOs, sockets and hard links
 * in a directory of the disk, with their owners, permissions, times and
 * extended attributes if asked for.
 *
 * Trust: the image is untrusted, and so is whatever already lies in the
 * destination (another user may be making symlinks there while it is
 * filled). Nothing is ever written outside the destination:
 * - nothing is looked up by a path with more than one component: the
 *   destination is opened once, and every entry is made relative to its
 *   parent's descriptor (mkdirat, openat with O_CREAT | O_EXCL,
 *   symlinkat, mknodat, linkat), each directory entered with
 *   O_DIRECTORY | O_NOFOLLOW;
 * - no symlink is ever followed, whether the image made it or it was
 *   there before: an existing file is never opened for writing (O_EXCL
 *   refuses it, a symlink included), and an existing directory is used
 *   only if it is a real directory;
 * - names are checked once more whatever the image says: no empty name,
 *   ".", "..", or a name with '/' (the unpack fails, naming the entry);
 * - a hard link's target is looked up below the unpacked path one
 *   component at a time, never through a symlink;
 * - attributes are set through the descriptor of the object made, or
 *   (symlinks, devices, FIFOs, sockets) by its one name in its parent
 *   without following it: xattrs through the /proc/self/fd magic link of
 *   an O_PATH descriptor of the object itself, so the process's working
 *   directory is never changed.
 * The destination path itself is the program's: symlinks on the way to
 * it are followed, as in any open.
 *
 * What goes where: the entry at path is made in dest under its own name
 * (its last component): a directory with everything below it as
 * dest/NAME, a file as dest/NAME. The root ("" or "/") has no name: its
 * contents go straight into dest. With SQFS_UNPACK_KEEP_PARENTS, the
 * directories leading to path are made too (dest/a/b/NAME for a/b/NAME),
 * as rdsquashfs does. An existing directory at a name is used as it is
 * (its contents stay); an existing file there fails the unpack with
 * SQFS_ERROR_EXISTS unless SQFS_UNPACK_OVERWRITE removes it first.
 *
 * Defaults are rdsquashfs's: entries get the permissions of the process's
 * umask (0644 and 0755), its owner, the time they are made and no
 * xattrs, unless flags ask for the image's (SET_XATTRS, SET_TIMES, CHMOD,
 * CHOWN). A directory is finished after its contents (so its times hold,
 * and a read-only directory is filled first). A refused chown (EPERM:
 * not root) is told once, and owners are left as they are; other
 * attributes that cannot be set are told and the unpack goes on.
 *
 * Errors: sqfs_unpack returns 0 or a negative sqfs_error_t, with words
 * in why naming the entry or the path ("a/b: cannot create: No space
 * left on device"; paths relative to dest). The image's own failures (a
 * bad block, a damaged listing) are its error codes with its words
 * (sqfs_image_error), after image_name if one is given. What was made
 * before a failure stays.
 *
 * Threads: img is used by the calling thread only, and must not be used
 * by another thread during the call. With num_jobs above 1 blocks are
 * unpacked on worker threads, and one more thread writes small files and
 * sets their attributes while the next ones are made. Every callback is
 * called on the calling thread, one at a time.
 *
 * Descriptors: one per directory level of the image is kept open while
 * the walk is below it; a program that unpacks very deep trees may have
 * to raise RLIMIT_NOFILE (rdsquashfs raises it to the hard limit).
 */
#ifndef SQFS_UNPACK_H
#define SQFS_UNPACK_H

#include "sqfs/predef.h"
#include "sqfs/entry.h"
#include "sqfs/image.h"

typedef enum {
	/* Set the image's extended attributes (keys the file system
	 * refuses are told and left out). */
	SQFS_UNPACK_SET_XATTRS = 0x0001,
	/* Set each entry's modification time (and access time) to the
	 * image's. */
	SQFS_UNPACK_SET_TIMES = 0x0002,
	/* Set the image's permission bits (set-id bits included). */
	SQFS_UNPACK_CHMOD = 0x0004,
	/* Set the image's owner and group (as root; a refusal is told
	 * once and owners are left as they are). */
	SQFS_UNPACK_CHOWN = 0x0008,
	/* A non-directory already at an entry's name is removed first
	 * (unlinked: a symlink itself, never its target); a directory in
	 * the way still fails the entry. */
	SQFS_UNPACK_OVERWRITE = 0x0010,
	/* Leave out devices, sockets, FIFOs, symlinks. */
	SQFS_UNPACK_NO_DEVICES = 0x0020,
	SQFS_UNPACK_NO_SOCKETS = 0x0040,
	SQFS_UNPACK_NO_FIFOS = 0x0080,
	SQFS_UNPACK_NO_SYMLINKS = 0x0100,
	/* Make a directory only when something is put into it. */
	SQFS_UNPACK_NO_EMPTY_DIRS = 0x0200,
	/* Write holes out as zeros rather than leave them unwritten. */
	SQFS_UNPACK_NO_SPARSE = 0x0400,
	/* Make the directories leading to path too (with the image's
	 * attributes, as asked), as rdsquashfs -u does. */
	SQFS_UNPACK_KEEP_PARENTS = 0x0800,
	/* With path the root: dest takes the root's attributes, after
	 * everything below it (as unsquashfs makes its destination). */
	SQFS_UNPACK_ROOT_ATTRS = 0x1000,
	/* With SET_TIMES: every entry gets opt.mtime instead of its own. */
	SQFS_UNPACK_FIXED_TIME = 0x2000,
	/* Make dest (mode 0755, and any missing parent) if it is not
	 * there, once path was found in the image. */
	SQFS_UNPACK_MAKE_DEST = 0x4000,
} sqfs_unpack_flags_t;

typedef struct {
	/* sqfs_unpack_flags_t bits. */
	uint32_t flags;
	/* Threads unpacking blocks ahead; 0 or 1: everything on the calling
	 * thread. */
	unsigned int num_jobs;
	/* SQFS_UNPACK_FIXED_TIME: the time every entry gets. */
	int64_t mtime;
	/* The image's name in the words of its failures ("img.sqfs: ...");
	 * NULL: the image's words alone. */
	const char *image_name;
	/*
	 * Called for each entry before it is made (a directory before its
	 * contents), in walk order, if not NULL: 1 makes it, 0 leaves it
	 * out with everything below it, a negative sqfs_error_t stops the
	 * unpack, which returns it (the program says why: why is left
	 * empty). A program that lists what it unpacks, or picks entries.
	 */
	int (*select)(void *user, const sqfs_entry_t *entry);
	/* Told of each entry as it is made: what ("creating", "unpacking",
	 * "linking") and its path below dest. NULL: nothing is told. */
	void (*report)(void *user, const char *what, const char *path);
	/* Told, in words naming the path, of what could not be done and
	 * was left out ("a/f: cannot set the times: ...; skipped").
	 * NULL: nothing is told. */
	void (*warn)(void *user, const char *words);
	void *user;
	/* Room for options of later versions: must be zero. */
	uint32_t reserved[8];
} sqfs_unpack_options_t;

SQFS_BEGIN_DECLS

/* Fill opt with the defaults: no flags, one job, no callbacks. */
SQFS_API void sqfs_unpack_options_init(sqfs_unpack_options_t *opt);

/*
 * Unpack the entry at path in img ("" or "/" for the root; resolved as
 * sqfs_dir_reader_resolve does, symlinks in the image not followed, ".."
 * refused) into the directory dest (which must exist unless
 * SQFS_UNPACK_MAKE_DEST), as the top of this header says. opt may be NULL
 * for the defaults. Returns 0, or a negative sqfs_error_t with words in
 * why (NULL, or room for SQFS_ERROR_TEXT_SIZE bytes): SQFS_ERROR_ARG_INVALID
 * for unknown flags or reserved room not zero, the image's codes for a
 * path not found or damage, SQFS_ERROR_IO for a system call that failed
 * on the disk, SQFS_ERROR_EXISTS for a file in the way,
 * SQFS_ERROR_CORRUPTED for a name the image should not hold,
 * SQFS_ERROR_ALLOC, or what select returned.
 */
SQFS_API int sqfs_unpack(sqfs_image_t *img, const char *path, const char *dest,
			 const sqfs_unpack_options_t *opt, char *why);

SQFS_END_DECLS

#endif /* SQFS_UNPACK_H */
