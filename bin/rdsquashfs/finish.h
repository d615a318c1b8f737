/* SPDX-License-Identifier: MIT */
/*
 * finish.h - finishing unpacked entries: their attributes, and a thread
 * that writes and closes small files while the main thread creates the
 * next ones.
 *
 * Creating a tree of many small files costs three system calls per file
 * (openat, pwrite, close), and the kernel's work in them is most of the
 * time unpacking takes. The finisher splits them: the main thread walks
 * the image, creates each file (openat, so that hard links and names are
 * checked in order) and hands over the open descriptor with the file's
 * bytes and attributes; the finisher thread writes the bytes, sets the
 * attributes and closes the descriptor. It only ever works on
 * descriptors it was given, never on names, so the safety rules of
 * unpack.c hold on both threads.
 *
 * Attributes are copied from the image source's entry on the main thread
 * into an rd_attrs_t (the entry is valid only until the source's next
 * call) and applied on either thread.
 */
#ifndef RD_FINISH_H
#define RD_FINISH_H

#include "sqfs/entry.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What to apply, and the state both threads share. */
typedef struct {
	/* UNPACK_* flags (rdsquashfs.h) */
	unsigned int flags;
	/* where the process was, to return to after lsetxattr by name */
	int cwd_fd;
	/* chown was refused once: owners are left as they are */
	atomic_bool chown_denied;
	/* UNPACK_SET_TIMES: this time for every entry instead of its own */
	bool fixed_time;
	int64_t fixed_mtime;
} rd_attr_ctx_t;

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
} rd_attrs_t;

/*
 * Copy what the flags ask for from e into *out. Returns 0, or -1 when out
 * of memory (printed).
 */
int rd_attrs_gather(rd_attr_ctx_t *ac, const sqfs_entry_t *e, rd_attrs_t *out);

/*
 * Apply a: by the descriptor fd, or (fd < 0) by name in dirfd without
 * following it (main thread only: it may change the working directory
 * for a moment). The owner first (a chown clears set-id bits and
 * capabilities), xattrs before the mode (user.* needs write access), the
 * times last. A failure is a warning naming path. Frees a's xattrs.
 */
void rd_attrs_apply(rd_attr_ctx_t *ac, rd_attrs_t *a, int fd, int dirfd,
		    const char *name, const char *path);

/* Free what rd_attrs_gather allocated, for an entry not finished;
 * NULL-safe on an empty one. */
void rd_attrs_drop(rd_attrs_t *a);

/* A file handed to the finisher. */
typedef struct {
	/* open for writing; the finisher closes it */
	int fd;
	/* for messages (the finisher frees it) */
	char *path;
	/* bytes to write at offset 0, or NULL (the finisher frees it) */
	uint8_t *data;
	size_t size;
	/* ftruncate to file_size after writing */
	bool truncate;
	uint64_t file_size;
	rd_attrs_t attrs;
} rd_finish_job_t;

typedef struct rd_finisher rd_finisher_t;

/*
 * Start a finisher: a thread if threaded (and the build has threads),
 * else one that finishes each job as it is handed over. Returns 0, or -1
 * after saying why.
 */
int rd_finisher_create(rd_attr_ctx_t *ac, bool threaded, rd_finisher_t **out);

/*
 * Hand over job (its contents, not the structure): it is finished in the
 * order given, soon. Waits while the finisher holds too many files or
 * bytes. Returns 0, or -1 if a file handed over earlier (or, without
 * threads, this one) failed: the finisher has said why, and a job not
 * taken is closed and freed here.
 */
int rd_finisher_submit(rd_finisher_t *f, rd_finish_job_t *job);

/*
 * Finish every job handed over, stop the thread and free f (NULL is
 * allowed). Returns 0, or -1 if any job failed.
 */
int rd_finisher_destroy(rd_finisher_t *f);

#endif /* RD_FINISH_H */
