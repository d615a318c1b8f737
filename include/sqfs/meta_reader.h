/* SPDX-License-Identifier: MIT */
/*
 * meta_reader.h - reading records from a stream of metadata blocks.
 *
 * The reader is confined to one region of the image, [start, limit): it
 * never reads a block header or payload outside it, so a reference from a
 * hostile image cannot send it into another table or past the end. Every
 * block header is checked (length 1 .. 8192, payload inside the region),
 * every block must unpack to at most 8192 bytes, and a read that runs past
 * the end of a block continues only into the block that directly follows
 * it. Recently decoded blocks are kept in a small cache of fixed size.
 *
 * A low-level building block. Most programs want the image writer
 * (sqfs/writer.h) or the image reader (sqfs/image.h), which use it; it is
 * public for programs that lay out or inspect tables themselves, and may
 * change between minor versions until the soname reaches 1.
 */
#ifndef SQFS_META_READER_H
#define SQFS_META_READER_H

#include "sqfs/predef.h"

/* Number of decoded blocks a reader keeps. */
#define SQFS_META_READER_CACHE_SIZE 8

SQFS_BEGIN_DECLS

/*
 * Create a reader for the metadata blocks in [start, limit) of file,
 * decompressing with cmp. The reader uses, but does not own, file and cmp.
 */
SQFS_API int sqfs_meta_reader_create(sqfs_file_t *file, sqfs_compressor_t *cmp,
				     uint64_t start, uint64_t limit,
				     sqfs_meta_reader_t **out);

/* Destroy a reader. NULL is allowed. */
SQFS_API void sqfs_meta_reader_destroy(sqfs_meta_reader_t *mr);

/*
 * Move to the block whose header is at absolute file position block_start
 * and to offset inside its uncompressed data. Fails with
 * SQFS_ERROR_OUT_OF_BOUNDS if block_start lies outside the region or offset
 * is not inside the block's data, SQFS_ERROR_CORRUPTED for a bad block.
 */
SQFS_API int sqfs_meta_reader_seek(sqfs_meta_reader_t *mr, uint64_t block_start,
				   size_t offset);

/*
 * Read size bytes from the current position and advance, crossing into
 * following blocks as needed. Fails with SQFS_ERROR_OUT_OF_BOUNDS when the
 * stream ends first (nothing past the region is read).
 */
SQFS_API int sqfs_meta_reader_read(sqfs_meta_reader_t *mr, void *data,
				   size_t size);

/* The current position: absolute block position and offset inside it. */
SQFS_API void sqfs_meta_reader_get_position(const sqfs_meta_reader_t *mr,
					    uint64_t *block_start,
					    size_t *offset);

SQFS_END_DECLS

#endif /* SQFS_META_READER_H */
