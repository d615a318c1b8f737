/* SPDX-License-Identifier: MIT */
/*
 * io.h - random-access files, the only way the library touches storage.
 *
 * The library never assumes stdio or a file descriptor: everything it reads
 * or writes goes through an sqfs_file_t. Two back ends come with it, a POSIX
 * file and an in-memory buffer; a program may supply its own by filling in
 * the function table (the struct is public for that reason).
 *
 * An sqfs_file_t is not thread safe. All functions return 0 on success or a
 * negative sqfs_error_t.
 */
#ifndef SQFS_IO_H
#define SQFS_IO_H

#include "sqfs/predef.h"

struct sqfs_file {
	/* Release the file and everything it owns. */
	void (*destroy)(sqfs_file_t *file);

	/* Read exactly size bytes at offset. Reading past the end of the
	 * file fails with SQFS_ERROR_OUT_OF_BOUNDS and reads nothing. */
	int (*read_at)(sqfs_file_t *file, uint64_t offset, void *buffer,
		       size_t size);

	/* Write size bytes at offset. Writing past the end grows the file;
	 * a gap left between the old end and offset reads back as zeros. */
	int (*write_at)(sqfs_file_t *file, uint64_t offset, const void *buffer,
			size_t size);

	/* The current size of the file in bytes. */
	uint64_t (*get_size)(const sqfs_file_t *file);

	/* Shrink or grow the file to exactly size bytes (growing adds
	 * zeros). */
	int (*truncate)(sqfs_file_t *file, uint64_t size);
};

typedef enum {
	/* Open an existing file for reading only. */
	SQFS_FILE_OPEN_READ_ONLY = 0x01,
	/* Create the file, replacing an existing one. Without this flag and
	 * without READ_ONLY, opening a path that exists fails with
	 * SQFS_ERROR_EXISTS. */
	SQFS_FILE_OPEN_OVERWRITE = 0x02,
} sqfs_file_open_flags_t;

SQFS_BEGIN_DECLS

/*
 * Open a file on disk. With SQFS_FILE_OPEN_READ_ONLY an existing file is
 * opened for reading; otherwise a new file is created for writing
 * (exclusively, unless SQFS_FILE_OPEN_OVERWRITE is given). On failure,
 * errno tells why and *out is left untouched.
 */
SQFS_API int sqfs_file_open(sqfs_file_t **out, const char *path,
			    unsigned int flags);

/*
 * Create a file that lives in memory. It starts as a copy of the size bytes
 * at data (data may be NULL when size is 0). With SQFS_FILE_OPEN_READ_ONLY
 * writes and truncation fail with SQFS_ERROR_UNSUPPORTED.
 */
SQFS_API int sqfs_file_open_memory(sqfs_file_t **out, const void *data,
				   size_t size, unsigned int flags);

/*
 * The contents of a file made by sqfs_file_open_memory, valid until the
 * next write, truncate or destroy. Returns NULL for any other kind of file.
 * *size receives the number of bytes.
 */
SQFS_API const uint8_t *sqfs_file_memory_data(const sqfs_file_t *file,
					      size_t *size);

/* Destroy a file of any kind; NULL is allowed and does nothing. */
SQFS_API void sqfs_file_destroy(sqfs_file_t *file);

SQFS_END_DECLS

#endif /* SQFS_IO_H */
