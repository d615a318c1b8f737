/* SPDX-License-Identifier: MIT */
/*
 * dir_source.h - the entries of a directory tree on disk, in order, each
 * with its data: the mirror of image_source.h, for a program that packs
 * a tree into an image (with the writer, writer.h) or compares one with
 * an image.
 *
 * Order: depth first, a directory before its contents, each directory's
 * names in byte order (the order of an image's listings) whatever order
 * the file system gives; the root first, with the path "". So the same
 * tree gives the same entries, and the same image, on every machine.
 *
 * Entries: a neutral sqfs_entry_t (entry.h) as lstat saw each object:
 * type and permissions, numeric owner, time in seconds, size, device
 * number, a symlink's target (read with the symlink, never followed),
 * st_ino as inode_number and the link count; unless the options say
 * otherwise, the extended attributes an image can hold (keys in the
 * namespaces SquashFS stores; others, such as system.posix_acl_access,
 * are left out without a word).
 *
 * Trust: the tree may change while it is read, and may hold symlinks
 * anywhere (a user's tree, a build directory another process writes).
 * The walk never leaves it:
 * - every system call is relative to the descriptor of the directory the
 *   entry is in (openat, fstatat, readlinkat), never a path from the top;
 * - symlinks are reported, never followed: everything is opened with
 *   O_NOFOLLOW, and a symlink found where the walk saw a directory or a
 *   file is refused;
 * - a directory is entered, and a file's data or xattrs read, only from a
 *   descriptor opened for that entry and checked to be the object lstat
 *   saw (device and inode number); a file swapped for another object, a
 *   symlink or a FIFO since it was reported fails the source with
 *   SQFS_ERROR_CHANGED and words naming it, and nothing of the other
 *   object is read;
 * - files are opened with O_NONBLOCK, so a FIFO put in a file's place
 *   cannot block the walk before it is refused;
 * - a file's data is read up to the size lstat gave: a file that grew is
 *   read as it was; one that shrank ends early (its entry's size is then
 *   more than its data, which the writer takes as the file's size).
 * The path given to create is the program's own: symlinks in it are
 * followed, as in any open.
 *
 * Metadata comes from the C library's fstatat and *xattr wrappers, so
 * fakeroot and pseudo see and fake it.
 *
 * Depth: the walk keeps a stack of directories, not a recursion, and at
 * most 32 of them open; a deeper one is opened again from its open
 * ancestor, component by component, each checked, when the walk comes
 * back to it. So neither the stack nor the open-file limit bounds the
 * depth. Memory grows with the depth and with the names of the
 * directories on the way (each directory's names are read and sorted
 * when it is entered), and with one path per hard-link group.
 *
 * Hard links: a non-directory with more than one link is known by its
 * device and inode number; each later member of its group met is an entry
 * whose hard_link names the path of the first one met (as the image
 * source names them, and as the writer takes them), with the same
 * attributes.
 *
 * Errors: a failure ends the source: every later call returns the same
 * code, and sqfs_dir_source_error gives words naming the path
 * ("a/b: was replaced since it was scanned"; paths relative to the root,
 * the root itself as "."). SQFS_ERROR_IO is a system call's failure (the
 * words say which errno), SQFS_ERROR_CHANGED an object that is not the
 * one the walk saw, SQFS_ERROR_ALLOC a want of memory.
 *
 * Threads: a source is used by one thread at a time; separate sources are
 * independent. The walk does its work on the calling thread.
 */
#ifndef SQFS_DIR_SOURCE_H
#define SQFS_DIR_SOURCE_H

#include "sqfs/predef.h"
#include "sqfs/entry.h"

typedef struct sqfs_dir_source sqfs_dir_source_t;

typedef enum {
	/* Read no extended attributes with the entries: entries have none
	 * (sqfs_dir_source_xattrs still reads them on demand). */
	SQFS_DIR_SOURCE_NO_XATTRS = 0x01,
	/* Directories on another device than the root are reported but
	 * not entered: a mount point is kept, empty. */
	SQFS_DIR_SOURCE_ONE_FILESYSTEM = 0x02,
	/* Every entry stands alone: hard_link is never set, so each name
	 * of a multiply-linked file is a file of its own. */
	SQFS_DIR_SOURCE_NO_HARD_LINKS = 0x04,
	/* A directory that cannot be listed for want of permission is left
	 * out (told through the warn callback) instead of ending the walk:
	 * for a tree packed by a user who cannot read all of it. */
	SQFS_DIR_SOURCE_SKIP_UNREADABLE = 0x08,
} sqfs_dir_source_flags_t;

typedef struct {
	/* sqfs_dir_source_flags_t bits. */
	uint32_t flags;
	/*
	 * Told, in words naming the path, of what the walk leaves out and
	 * goes on without ("d: cannot open: Permission denied; skipped");
	 * called on the thread calling sqfs_dir_source_next. NULL: nothing
	 * is told.
	 */
	void (*warn)(void *user, const char *words);
	void *user;
	/* Room for options of later versions: must be zero. */
	uint32_t reserved[8];
} sqfs_dir_source_options_t;

SQFS_BEGIN_DECLS

/* Fill opt with the defaults: no flags, no callback. */
SQFS_API void sqfs_dir_source_options_init(sqfs_dir_source_options_t *opt);

/*
 * A source of the directory tree at path (opened as given: symlinks on
 * the way to it are followed; it must be a directory). opt may be NULL
 * for the defaults. The root's names are read here. Returns 0 with *out,
 * or SQFS_ERROR_ARG_INVALID (unknown flags, reserved room not zero),
 * SQFS_ERROR_IO (path cannot be opened or listed), SQFS_ERROR_NOT_DIR,
 * SQFS_ERROR_ALLOC; why (NULL, or room for SQFS_ERROR_TEXT_SIZE bytes)
 * then holds words naming path.
 */
SQFS_API int sqfs_dir_source_create(const char *path,
				    const sqfs_dir_source_options_t *opt,
				    sqfs_dir_source_t **out, char *why);

/*
 * The same for the directory open at fd, which stays the caller's (the
 * source works on a duplicate): for a program that opened and checked
 * the directory itself. Words name the root as ".".
 */
SQFS_API int sqfs_dir_source_create_fd(int fd,
				       const sqfs_dir_source_options_t *opt,
				       sqfs_dir_source_t **out, char *why);

/* Close every descriptor and free everything; NULL is allowed. */
SQFS_API void sqfs_dir_source_destroy(sqfs_dir_source_t *src);

/*
 * The next entry: 0 with *out pointing at it (valid, with everything it
 * points at, until the next call of next or destroy), 1 after the last,
 * or a negative error (sqfs_dir_source_error says why). Paths are
 * relative to the root ("" is the root itself). Entering the previous
 * entry, if it was a directory, happens here, and fails here if it was
 * replaced since it was reported.
 */
SQFS_API int sqfs_dir_source_next(sqfs_dir_source_t *src,
				  const sqfs_entry_t **out);

/*
 * The next run (entry.h) of the current entry's data, from its start, in
 * file order: data, or a hole (found with SEEK_DATA and SEEK_HOLE, not
 * read; at most 1 GiB a run). 0 with *out filled (out->data valid until
 * the next call on the source), 1 when the data is complete (at once for
 * an entry that is not a regular file), or a negative error. The data is
 * read from the descriptor opened and checked for that entry, never
 * through its name again.
 */
SQFS_API int sqfs_dir_source_read(sqfs_dir_source_t *src, sqfs_data_run_t *out);

/* Read the current entry's data again from its start (with the next call
 * of sqfs_dir_source_read), from the same descriptor. */
SQFS_API int sqfs_dir_source_rewind(sqfs_dir_source_t *src);

/*
 * The current entry's extended attributes, read from the object checked
 * as above: those the entry carries, or, with SQFS_DIR_SOURCE_NO_XATTRS,
 * read now (a program that wants them for some entries only). *list
 * (*count of them) is valid until the next call of next or destroy.
 * SQFS_ERROR_SEQUENCE before the first entry and after the last.
 */
SQFS_API int sqfs_dir_source_xattrs(sqfs_dir_source_t *src,
				    const sqfs_xattr_t **list, size_t *count);

/*
 * Leave the current entry out (an exclusion): a directory is not
 * entered; if the entry is the first member met of a hard-link group,
 * the next member met becomes the first, so that no entry handed out
 * names a skipped one as its hard_link. The root cannot be skipped
 * (SQFS_ERROR_ARG_INVALID); SQFS_ERROR_SEQUENCE before the first entry
 * and after the last.
 */
SQFS_API int sqfs_dir_source_skip(sqfs_dir_source_t *src);

/*
 * The device (st_dev) the current entry is on, as lstat saw it: with the
 * entry's inode_number, what tells whether an object opened later is the
 * one the walk reported.
 */
SQFS_API uint64_t sqfs_dir_source_device(const sqfs_dir_source_t *src);

/* Words on the last failure, naming the path ("" if there was none);
 * valid until the next call on the source. */
SQFS_API const char *sqfs_dir_source_error(const sqfs_dir_source_t *src);

SQFS_END_DECLS

#endif /* SQFS_DIR_SOURCE_H */
