/* SPDX-License-Identifier: MIT */
/*
 * fs_open.h - opening again, safely, what a walk of a tree on disk saw.
 *
 * The tree may change while a tool reads it: a directory on the way to a
 * file, or the file itself, may be swapped for a symlink to something
 * outside the tree, or for another object. The rules, kept here once for
 * every tool:
 * - a path below the tree's root is opened one component at a time, each
 *   relative to the descriptor of the directory before it, with
 *   O_NOFOLLOW: no symlink is ever followed, wherever it appears;
 * - the object opened must be the one the walk saw (same device and inode
 *   number, from fstat on the descriptor opened), or nothing is read;
 * - data and xattrs are read from that descriptor only. Objects that
 *   cannot be opened for reading safely (symlinks, devices, FIFOs,
 *   sockets) are opened with O_PATH and O_NOFOLLOW, which neither
 *   follows nor opens them for I/O, checked, and their xattrs read
 *   through that descriptor (fs_xattrs.h);
 * - files are opened with O_NONBLOCK, so that a FIFO swapped in for one
 *   cannot block the tool before it is refused.
 *
 * Metadata goes through the C library's wrappers (fstat, fstatat), so
 * that fakeroot and pseudo see and fake it.
 *
 * A chain keeps the directories of the last path open, so that opening
 * the next file in the same directory costs one openat; it holds at most
 * FS_CHAIN_MAX descriptors whatever the depth (deeper directories are
 * opened and closed again). A chain is used by one thread.
 */
#ifndef UTIL_FS_OPEN_H
#define UTIL_FS_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The *err of a failure when the object is not the one the walk saw. */
#define FS_ERR_REPLACED (-1)

/* Directories a chain keeps open at most. */
#define FS_CHAIN_MAX 64u

/* What a walk saw of an object, to tell whether it is still there. */
typedef struct {
	uint64_t dev;
	uint64_t ino;
} fs_id_t;

typedef struct {
	/* the tree's root (not owned) */
	int rootfd;
	/* the components of the directory path open, and their fds */
	char **names;
	int *fds;
	size_t depth;
	size_t cap;
	/* the directory of a path deeper than FS_CHAIN_MAX, until the next
	 * call */
	int deep_fd;
} fs_chain_t;

/* A chain below the directory at rootfd, which stays the caller's. */
void fs_chain_init(fs_chain_t *c, int rootfd);

/* Close what the chain holds. */
void fs_chain_cleanup(fs_chain_t *c);

/*
 * The directory holding path (a canonical path below the root: no empty,
 * "." or ".." components; "" is the root itself), opened component by
 * component without following a symlink. Returns its descriptor (the
 * chain's: valid until the chain's next call) with *name pointing at the
 * last component of path (NULL for the root), or -1 with *err an errno
 * value.
 */
int fs_chain_parent(fs_chain_t *c, const char *path, const char **name,
		    int *err);

/*
 * Open name (one component; "." for the directory itself) in the
 * directory at dirfd with flags (O_NOFOLLOW and O_CLOEXEC are added) and,
 * if id is not NULL, check that it is id: the descriptor (the caller's),
 * with its fstat in *st if st is not NULL, or -1 with *err an errno value
 * or FS_ERR_REPLACED (with an id, also for a symlink, or a non-directory
 * under O_DIRECTORY, where the walk saw the object). It is opened with
 * O_NONBLOCK, so that a FIFO swapped in for a file cannot block the
 * opening, and O_NONBLOCK is taken off again after the check unless
 * flags has it (or O_PATH, where it means nothing). Every opening again
 * of what a walk saw goes through here.
 */
int fs_open_checked(int dirfd, const char *name, int flags, const fs_id_t *id,
		    struct stat *st, int *err);

/*
 * Open path (as above, below the chain's root) with fs_open_checked: its
 * directory through the chain, then the last component.
 */
int fs_chain_open(fs_chain_t *c, const char *path, int flags, const fs_id_t *id,
		  struct stat *st, int *err);

/* Whether st is the object id. */
bool fs_id_matches(const fs_id_t *id, const struct stat *st);

/* The fs_id_t of st. */
fs_id_t fs_id_of(const struct stat *st);

/* Words for an *err of the calls above. */
const char *fs_err_string(int err);

/* The sqfs_error_t of an *err: SQFS_ERROR_CHANGED for FS_ERR_REPLACED
 * and ELOOP (a symlink where the walk saw something else), else
 * SQFS_ERROR_ALLOC or SQFS_ERROR_IO. */
int fs_err_code(int err);

#endif /* UTIL_FS_OPEN_H */
