/* SPDX-License-Identifier: MIT */
/*
 * fs_source.h - a directory tree on disk as a stream of neutral entries
 * (sqfs/entry.h) with their data: what gensquashfs scans and packs, and
 * what sqfsdiff compares with an image.
 *
 * Order: depth first, a directory before its contents, each directory's
 * names in byte order (the order of an image's listings), whatever order
 * readdir gives; the root first, with the path "".
 *
 * Safety, so that a tree that changes while it is read, or holds symlinks
 * anywhere, never leads the walk outside it (fs_open.h has the rules):
 * - every system call is relative to the descriptor of the directory the
 *   entry is in (openat, fstatat, readlinkat), never a path from the top;
 * - symlinks are reported, never followed: fstatat with
 *   AT_SYMLINK_NOFOLLOW, everything opened with O_NOFOLLOW;
 * - a directory is entered, and a file's data or xattrs read, only if the
 *   object opened is the one lstat saw (device and inode), else the walk
 *   fails naming it;
 * - metadata comes from the C library's fstatat and *xattr wrappers, so
 *   fakeroot and pseudo see and fake it.
 *
 * The walk keeps a stack of directories (their sorted names), not a
 * recursion, and at most FS_SOURCE_OPEN_DIRS of them open: a deeper
 * directory is opened again from its open ancestor, component by
 * component, each checked to be the one met, when the walk comes back to
 * it. So depth is limited neither by the stack nor by the open-file
 * limit.
 *
 * Hard links: a non-directory with more than one link is looked up by
 * (device, inode); later members of its group name the first one met in
 * hard_link, as the image source names them.
 *
 * Messages: a failure is printed as "tool: PATH: why", or with a label
 * "tool: LABEL: PATH: why" (sqfsdiff names its side so), and the call
 * returns -1; the walk cannot go on after one.
 */
#ifndef COMMON_FS_SOURCE_H
#define COMMON_FS_SOURCE_H

#include "sqfs/entry.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Directories the walk keeps open at most. */
#define FS_SOURCE_OPEN_DIRS 32u

typedef enum {
	/* Directories on another device than the root are reported but not
	 * entered (a mount point is kept, empty). */
	FS_SOURCE_ONE_FILE_SYSTEM = 0x01,
	/* Every entry stands alone: no hard_link is ever set, so that each
	 * name of a multiply-linked file is packed as a file of its own. */
	FS_SOURCE_NO_HARD_LINKS = 0x02,
	/* A directory that cannot be listed for want of permission is left
	 * out with a warning instead of ending the walk (mksquashfs's
	 * default, for trees packed by a user who cannot read all of
	 * them). */
	FS_SOURCE_SKIP_UNREADABLE_DIRS = 0x04,
} fs_source_flags_t;

typedef struct fs_source fs_source_t;

/*
 * A walk of the directory open at fd (taken over, closed by
 * fs_source_close or on failure). label is NULL or put before the paths
 * in messages. Returns 0, or -1 after printing why.
 */
int fs_source_open(int fd, const char *label, unsigned int flags,
		   fs_source_t **out);

/* Close every descriptor and free everything; NULL is allowed. */
void fs_source_close(fs_source_t *s);

/*
 * The next entry: 0 with *out pointing at it (valid until the next call
 * of next or close), 1 after the last, -1 after printing why. Its
 * xattrs are not filled in: fs_source_xattrs reads them.
 */
int fs_source_next(fs_source_t *s, const sqfs_entry_t **out);

/*
 * Leave the current entry out (an exclusion): a directory is not entered,
 * and if the entry was the first member of a hard-link group met so far,
 * the next member met becomes the group's first, so that no entry handed
 * out names a skipped one as its hard_link. The root cannot be skipped.
 */
void fs_source_skip(fs_source_t *s);

/* The current entry's lstat, as the walk saw it. */
const struct stat *fs_source_stat(const fs_source_t *s);

/* The current entry's path, for messages ("." for the root). */
const char *fs_source_shown(const fs_source_t *s);

/*
 * The current entry's xattrs that an image can hold (fs_xattrs.h), read
 * from the object the walk saw, checked. With warn_skipped, each key left
 * out is named in a warning. *list (*count of them) is valid until the
 * next call of next or close. Returns 0 or -1 (printed).
 */
int fs_source_xattrs(fs_source_t *s, bool warn_skipped,
		     const sqfs_xattr_t **list, size_t *count);

/*
 * Open the current entry, a regular file, for reading, checked to be the
 * one the walk saw. Returns the descriptor (the caller's), with its fstat
 * in *st, or -1 after printing why.
 */
int fs_source_open_file(fs_source_t *s, struct stat *st);

/*
 * The next run of the current regular file's data, from its start: a
 * hole is a run without data (SEEK_DATA and SEEK_HOLE find them, nothing
 * of them is read; at most 1 GiB a run). The data is read up to the size
 * lstat gave (a file that grew is read as it was then; one that shrank
 * ends early). Returns 0 with *out filled (valid until the next call), 1
 * at the end, -1 after printing why.
 */
int fs_source_read(fs_source_t *s, sqfs_data_run_t *out);

/* Read the current entry's data again from its start. */
int fs_source_rewind(fs_source_t *s);

#endif /* COMMON_FS_SOURCE_H */
