/* SPDX-License-Identifier: MIT */
/*
 * io.h - random-access files, the only way the library touches storage.
 *
 * The library never assumes stdio or a file descriptor: everything it reads
 * or writes goes through an sqfs_file_t. Two back ends come with it, a POSIX
 * file and an in-memory buffer; a program may supply its own by filling in
 * the function table (the struct is public for that reason).
 *
 * Durability: writing an image does not make it durable. The writer writes
 * and finishes; whether the bytes reached storage is the caller's question,
 * asked with sqfs_file_sync (fsync for a file on disk), and a program that
 * wants to know that nothing was lost on the way ends with sqfs_file_close,
 * which reports what closing the file reports (some file systems, NFS
 * among them, tell of a failed write-back only then). sqfs_file_destroy
 * releases a file and tells nothing: use it on paths that discard the
 * file anyway. The tools write to a temporary file and sync, close, rename
 * and sync the directory in that order (doc/format.md, "Putting the image
 * in place").
 *
 * Trust: a back end is trusted to do what its table says (read_at fills
 * the buffer when it returns 0, get_size tells the truth, sync returns 0
 * only once the data is on storage). What is read through it is untrusted
 * image data and checked as such (image.h).
 *
 * Threads: an sqfs_file_t is not thread safe in general. The library
 * calls a file only from the thread that called the library with it (the
 * writer's and the readers' worker threads never touch the file), with
 * one exception: the file system object (fs.h) calls read_at from many
 * threads at once. The read-only files of this header allow that:
 * sqfs_file_open's read_at is a pread with no shared offset,
 * sqfs_file_open_memory's a copy from memory that nothing changes while
 * it is read, and sqfs_file_open_window's that of the file under it.
 *
 * Ownership: the caller owns a file and releases it (sqfs_file_destroy or
 * sqfs_file_close) after every object that uses it; objects made on a file
 * use it and never release it.
 *
 * Errors: all functions return 0 on success or a negative sqfs_error_t.
 * SQFS_ERROR_IO means a system call failed and errno says why.
 *
 * A back end of a program's own: start from a zeroed structure (calloc, or
 * memset to 0) and fill in what it has. destroy, read_at, write_at,
 * get_size and truncate are required. The operations after them may be
 * NULL, which means what each one says; `reserved` must stay NULL: later
 * versions put new operations there, and a NULL one will mean "not
 * provided", so a program built today keeps working with them.
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

	/*
	 * Make everything written so far durable: once it returns 0, the
	 * data and the size survive a crash or a power loss (fsync for a
	 * file on disk; nothing to do for one in memory). Returns 0 or
	 * SQFS_ERROR_IO with errno set; a write-back that failed earlier
	 * (EIO, ENOSPC, EDQUOT) is reported here. NULL: the back end cannot
	 * make its data durable, and sqfs_file_sync fails with
	 * SQFS_ERROR_UNSUPPORTED.
	 */
	int (*sync)(sqfs_file_t *file);

	/*
	 * Release the file and everything it owns, as destroy does, and
	 * report a failure to let go of it: for a file on disk, close(2)
	 * failing (a write-back error some file systems only report then).
	 * The file is released whatever it returns. NULL: sqfs_file_close
	 * calls destroy and returns 0.
	 */
	int (*close)(sqfs_file_t *file);

	/* Room for the operations of later versions: must be NULL. */
	void (*reserved[6])(void);
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
 * next write, truncate, destroy or close. Returns NULL for any other kind
 * of file. *size receives the number of bytes.
 */
SQFS_API const uint8_t *sqfs_file_memory_data(const sqfs_file_t *file,
					      size_t *size);

/* Flags of sqfs_file_open_window. */
typedef enum {
	/* The view takes file over: releasing the view (destroy, close)
	 * releases file too, and close reports what closing file reports. */
	SQFS_FILE_WINDOW_OWN = 0x01,
} sqfs_file_window_flags_t;

/*
 * A view of file from offset on: byte 0 of the view is byte offset of
 * file, its size is what lies past offset (0 if the file is shorter), and
 * writes and truncation land there too, leaving the bytes before offset
 * as they are. For an image inside a bigger file: an AppImage or a SIF
 * container (sqfs_image_locate in image.h finds where), or the space
 * mksquashfs -offset keeps before it. By default the view uses file and
 * never releases it, as every object made on a file: the caller releases
 * the view, then the file. With SQFS_FILE_WINDOW_OWN the view takes file
 * over (on success; on failure file stays the caller's). Syncing the view
 * syncs file.
 * Errors: SQFS_ERROR_ARG_INVALID (NULL, unknown flags), SQFS_ERROR_ALLOC.
 * Access past 2^64 bytes of file fails with SQFS_ERROR_OUT_OF_BOUNDS.
 */
SQFS_API int sqfs_file_open_window(sqfs_file_t **out, sqfs_file_t *file,
				   uint64_t offset, unsigned int flags);

/*
 * Make everything written to file so far durable (its sync operation).
 * Returns 0, SQFS_ERROR_IO with errno set when the data could not be
 * written back (the file's contents on storage are then unknown: do not
 * use it as a complete image), or SQFS_ERROR_UNSUPPORTED (errno ENOTSUP)
 * for a back end without sync; SQFS_ERROR_ARG_INVALID for NULL. A file
 * opened read-only may be synced too.
 */
SQFS_API int sqfs_file_sync(sqfs_file_t *file);

/*
 * Release a file of any kind, reporting what releasing it reports: for a
 * file from sqfs_file_open, SQFS_ERROR_IO with errno set when close(2)
 * fails. The file is gone whatever the result (never call close twice).
 * Other files from this library always give 0. NULL is allowed and gives
 * 0. To know that an image reached storage, sync first: close alone does
 * not wait for the disk on most file systems.
 */
SQFS_API int sqfs_file_close(sqfs_file_t *file);

/* Release a file of any kind without a word about it; NULL is allowed
 * and does nothing. For paths that discard the file anyway. */
SQFS_API void sqfs_file_destroy(sqfs_file_t *file);

SQFS_END_DECLS

#endif /* SQFS_IO_H */
