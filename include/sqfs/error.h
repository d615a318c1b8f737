/* SPDX-License-Identifier: MIT */
/*
 * error.h - the error codes every libsquashfs function reports.
 *
 * Functions that can fail return 0 (or a non-negative count) on success and
 * one of the negative values below on failure. The library never prints,
 * exits or aborts: the caller decides what to tell the user.
 *
 * A code says what kind of failure it was; the objects a program talks to
 * also say in words what went wrong and where ("xattr 'foo.x': namespace
 * not supported", "inode 17: block list runs past the data"):
 * sqfs_writer_error for the writer, sqfs_image_error for an image and the
 * readers made from it, and the `why` buffer of sqfs_image_open. Codes
 * are for program logic, the words are for people; their wording may
 * change between versions.
 */
#ifndef SQFS_ERROR_H
#define SQFS_ERROR_H

#include "sqfs/predef.h"

typedef enum {
	SQFS_OK = 0,
	/* An allocation failed. */
	SQFS_ERROR_ALLOC = -1,
	/* A read, write or other system call failed; errno tells why. */
	SQFS_ERROR_IO = -2,
	/* The compression library reported an error while compressing. */
	SQFS_ERROR_COMPRESSOR = -3,
	/* A bug in the library: a state that should be impossible. */
	SQFS_ERROR_INTERNAL = -4,
	/* On-disk data is malformed: a bad header, length, or stream. */
	SQFS_ERROR_CORRUPTED = -5,
	/* Valid, but not supported by this build or this library. */
	SQFS_ERROR_UNSUPPORTED = -6,
	/* A value does not fit its field, or arithmetic would overflow. */
	SQFS_ERROR_OVERFLOW = -7,
	/* An offset, index or size lies outside the area it must stay in. */
	SQFS_ERROR_OUT_OF_BOUNDS = -8,
	/* The superblock does not carry the SquashFS magic number. */
	SQFS_ERROR_SUPER_MAGIC = -9,
	/* The superblock names a version other than 4.0. */
	SQFS_ERROR_SUPER_VERSION = -10,
	/* The block size is not a power of two in 4 KiB .. 1 MiB, or does
	 * not match the block log. */
	SQFS_ERROR_SUPER_BLOCK_SIZE = -11,
	/* A function was called with an argument outside its domain. */
	SQFS_ERROR_ARG_INVALID = -12,
	/* Functions were called in an order the object does not allow. */
	SQFS_ERROR_SEQUENCE = -13,
	/* Data ended before a complete structure could be read. */
	SQFS_ERROR_TRUNCATED = -14,
	/* A table would exceed the number of entries the format allows. */
	SQFS_ERROR_LIMIT = -15,
	/* A path component is not a directory. */
	SQFS_ERROR_NOT_DIR = -16,
	/* No entry of that name exists. */
	SQFS_ERROR_NO_ENTRY = -17,
	/* A link or directory loop was found. */
	SQFS_ERROR_LOOP = -18,
	/* The object is not a regular file. */
	SQFS_ERROR_NOT_FILE = -19,
	/* The entry already exists. */
	SQFS_ERROR_EXISTS = -20,
	/* An object on disk is no longer the one that was seen: replaced,
	 * or turned into another kind (a file into a symlink, say), while
	 * a tree was read. */
	SQFS_ERROR_CHANGED = -21,
	/* A callback of the program asked to stop. */
	SQFS_ERROR_ABORTED = -22,
} sqfs_error_t;

/* The last code above: codes run from -1 down to it. */
#define SQFS_ERROR_LAST SQFS_ERROR_ABORTED

/* Room for the words of one error, the terminating NUL included. */
#define SQFS_ERROR_TEXT_SIZE 320

SQFS_BEGIN_DECLS

/*
 * Describe an error code in a short English phrase, without a trailing
 * period. Returns a static string; unknown codes give "unknown error".
 */
SQFS_API const char *sqfs_error_string(int code);

SQFS_END_DECLS

#endif /* SQFS_ERROR_H */
