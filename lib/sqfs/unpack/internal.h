/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the parts of the unpacker (sqfs/unpack.h) share:
 * finishing unpacked entries (their attributes), and a thread that
 * writes and closes small files while the calling thread makes the next
 * ones.
 *
 * Making a tree of many small files costs three system calls per file
 * (openat, pwrite, close), and the kernel's work in them is most of the
 * time unpacking takes. The finisher splits them: the calling thread
 * walks the image, makes each file (openat, so that hard links and names
 * are checked in order) and hands over the open descriptor with the
 * file's bytes and attributes; the finisher thread writes the bytes,
 * sets the attributes and closes the descriptor. It only ever works on
 * descriptors it was given, never on names, so the safety rules of
 * unpack.c hold on both threads.
 *
 * Attributes are copied from the image source's entry on the calling
 * thread into an unpack_attrs_t (the entry is valid only until the
 * source's next call) and applied on either thread.
 *
 * Words: what goes wrong on the finisher's thread is kept there and
 * handed to the calling thread, which tells the program (its callbacks
 * run on the calling thread only).
 */
#ifndef SQFS_UNPACK_INTERNAL_H
#define SQFS_UNPACK_INTERNAL_H

#include "sqfs/entry.h"
#include "sqfs/error.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where warnings go: the program's callback on the calling thread, or
 * the finisher's list on its thread. fn NULL: nowhere. */
typedef struct {
	void (*fn)(void *user, const char *words);
	void *user;
} unpack_warn_t;

/* Format a warning and hand it to w. */
void unpack_warnf(const unpack_warn_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What to apply, and the state both threads share. */
typedef struct {
	/* SQFS_UNPACK_* flags */
	uint32_t flags;
	/* chown was refused once: owners are left as they are */
	atomic_bool chown_denied;
	/* SQFS_UNPACK_FIXED_TIME: this time for every entry */
	int64_t fixed_mtime;
} unpack_attr_ctx_t;

/* An entry's attributes, copied from the image source's entry. */
typedef struct {
	bool set_owner;
	uint32_t uid;
	uint32_t gid;
	/* one allocation: the list, then the keys and values */
	sqfs_xattr_t *xattrs;
	size_t xattr_count;
	bool set_mode;
	mode_t mode;
	bool set_times;
	int64_t mtime;
} unpack_attrs_t;

/* Copy what the flags ask for from e into *out. Returns 0, or
 * SQFS_ERROR_ALLOC. */
int unpack_attrs_gather(unpack_attr_ctx_t *ac, const sqfs_entry_t *e,
			unpack_attrs_t *out);

/*
 * Apply a: by the descriptor fd, or (fd < 0) by name in dirfd without
 * following it. The owner first (a chown clears set-id bits and
 * capabilities), xattrs before the mode (user.* needs write access), the
 * times last. A failure is a warning to w naming path. Frees a's xattrs.
 */
void unpack_attrs_apply(unpack_attr_ctx_t *ac, unpack_attrs_t *a, int fd,
			int dirfd, const char *name, const char *path,
			const unpack_warn_t *w);

/* Free what unpack_attrs_gather allocated, for an entry not finished;
 * safe on an empty one. */
void unpack_attrs_drop(unpack_attrs_t *a);

/* A file handed to the finisher. */
typedef struct {
	/* open for writing; the finisher closes it */
	int fd;
	/* for words (the finisher frees it) */
	char *path;
	/* bytes to write at offset 0, or NULL (the finisher frees it) */
	uint8_t *data;
	size_t size;
	/* ftruncate to file_size after writing */
	bool truncate;
	uint64_t file_size;
	unpack_attrs_t attrs;
} unpack_job_t;

typedef struct unpack_finisher unpack_finisher_t;

/*
 * Start a finisher: a thread if threaded (and the build has threads),
 * else one that finishes each job as it is handed over. Its warnings go
 * to w, from the calling thread. Returns 0 or SQFS_ERROR_ALLOC.
 */
int unpack_finisher_create(unpack_attr_ctx_t *ac, bool threaded,
			   const unpack_warn_t *w, unpack_finisher_t **out);

/*
 * Hand over job (its contents, not the structure): it is finished in the
 * order given, soon. Waits while the finisher holds too many files or
 * bytes. Returns 0, or a negative error if a file handed over earlier
 * (or, without threads, this one) failed, with its words in why (room
 * for SQFS_ERROR_TEXT_SIZE bytes); a job not taken is closed and freed
 * here.
 */
int unpack_finisher_submit(unpack_finisher_t *f, unpack_job_t *job, char *why);

/*
 * Finish every job handed over, stop the thread and free f (NULL is
 * allowed). Returns 0, or a negative error if any job failed (words in
 * why, which may be NULL).
 */
int unpack_finisher_destroy(unpack_finisher_t *f, char *why);

#endif /* SQFS_UNPACK_INTERNAL_H */
