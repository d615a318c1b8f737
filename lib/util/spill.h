/* SPDX-License-Identifier: MIT */
/*
 * spill.h - temporary files for what does not fit in memory.
 *
 * A spill file is an anonymous file in $TMPDIR (or /tmp when TMPDIR is
 * unset or empty): made with O_TMPFILE where the file system allows it,
 * else created under a random name and unlinked at once, and only when
 * its buffer first overflows: what fits in the buffer never touches the
 * disk, nor needs $TMPDIR. Either way it
 * has no name while it is used, so nothing is left behind however the
 * process ends, and two packers never meet in it.
 *
 * Writes are appended through a buffer of the caller's size; reads are
 * positional (pread) and see everything written, buffered or not. The
 * file keeps the words of its first failure ("temporary file in /tmp:
 * No space left on device"), naming the directory, since a user can do
 * something about a full $TMPDIR once told which it is; every later
 * call fails the same way.
 *
 * Not thread safe: one user at a time.
 */
#ifndef UTIL_SPILL_H
#define UTIL_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct spill_file spill_file_t;

/* Room for the words of a failure, as SQFS_ERROR_TEXT_SIZE. */
#define SPILL_WHY_SIZE 256

/*
 * Make a spill file with a write buffer of buffer_size bytes (at least
 * 4 KiB is used). Fails only for want of memory (SQFS_ERROR_ALLOC, with
 * words in why, SPILL_WHY_SIZE bytes or NULL): a $TMPDIR where no file
 * can be made fails the first append that needs the file, with words.
 */
int spill_file_create(size_t buffer_size, spill_file_t **out, char *why);

/* Close the file; its space is given back. NULL is allowed. */
void spill_file_destroy(spill_file_t *f);

/* Append size bytes. SQFS_ERROR_IO with words if the file system says
 * no (a full or read-only $TMPDIR). */
int spill_file_append(spill_file_t *f, const void *data, size_t size);

/* Bytes appended so far. */
uint64_t spill_file_size(const spill_file_t *f);

/* Read size bytes at offset, all of which must have been appended
 * (SQFS_ERROR_OUT_OF_BOUNDS otherwise). */
int spill_file_read_at(spill_file_t *f, uint64_t offset, void *data,
		       size_t size);

/* Give back the disk space of size bytes at offset (a run merged into
 * another); reading them afterwards gives zeros. Best effort: a file
 * system without hole punching keeps the space until the file is closed. */
void spill_file_discard(spill_file_t *f, uint64_t offset, uint64_t size);

/* Throw everything away: the file is empty again (its space given back). */
int spill_file_reset(spill_file_t *f);

/* The words of the first failure, or "" if there was none. */
const char *spill_file_error(const spill_file_t *f);

/* The directory spill files are made in ($TMPDIR or /tmp). */
const char *spill_dir(void);

#endif /* UTIL_SPILL_H */
