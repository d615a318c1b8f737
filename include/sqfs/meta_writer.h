/* SPDX-License-Identifier: MIT */
/*
 * meta_writer.h - writing a stream of metadata blocks.
 *
 * The inode, directory and xattr tables are streams of 8 KiB metadata
 * blocks: each block is a u16 header (bit 15 set: stored raw; low 15 bits:
 * length on disk) and a payload that unpacks to 8192 bytes, the last block
 * to fewer. Records are appended back to back and may straddle blocks. A
 * record is found again by its reference: (block position relative to the
 * start of the stream << 16) | offset inside the uncompressed block.
 *
 * Blocks are compressed only when that makes them strictly smaller.
 * Finished blocks are appended at the end of the file, or kept in memory
 * until sqfs_meta_writer_write_out (the directory table is built while the
 * inode table is written, but must follow it on disk).
 *
 * A low-level building block. Most programs want the image writer
 * (sqfs/writer.h) or the image reader (sqfs/image.h), which use it; it is
 * public for programs that lay out or inspect tables themselves, and may
 * change between minor versions until the soname reaches 1.
 */
#ifndef SQFS_META_WRITER_H
#define SQFS_META_WRITER_H

#include "sqfs/predef.h"

typedef enum {
	/* Keep finished blocks in memory until sqfs_meta_writer_write_out. */
	SQFS_META_WRITER_KEEP_IN_MEMORY = 0x01,
	/* Store every block raw, never compressed. */
	SQFS_META_WRITER_NO_COMPRESS = 0x02,
} sqfs_meta_writer_flags_t;

SQFS_BEGIN_DECLS

/*
 * Create a writer that appends to file, compressing with cmp (which may be
 * NULL only together with SQFS_META_WRITER_NO_COMPRESS). flags are
 * sqfs_meta_writer_flags_t bits. The writer uses, but does not own, file
 * and cmp.
 */
SQFS_API int sqfs_meta_writer_create(sqfs_file_t *file, sqfs_compressor_t *cmp,
				     unsigned int flags,
				     sqfs_meta_writer_t **out);

/* Destroy a writer, discarding anything not yet flushed. NULL is allowed. */
SQFS_API void sqfs_meta_writer_destroy(sqfs_meta_writer_t *mw);

/*
 * Append size bytes to the stream. Every 8192 bytes a block is finished and
 * written (or kept in memory).
 */
SQFS_API int sqfs_meta_writer_append(sqfs_meta_writer_t *mw, const void *data,
				     size_t size);

/*
 * Where the next appended byte will go: *block_start is the position of its
 * block relative to the start of the stream, *offset its offset inside the
 * uncompressed block (0 .. 8191). The reference of a record appended next
 * is (*block_start << 16) | *offset.
 */
SQFS_API void sqfs_meta_writer_get_position(const sqfs_meta_writer_t *mw,
					    uint64_t *block_start,
					    uint32_t *offset);

/* Finish the current partial block, if it holds anything. */
SQFS_API int sqfs_meta_writer_flush(sqfs_meta_writer_t *mw);

/*
 * With SQFS_META_WRITER_KEEP_IN_MEMORY: append every finished block to the
 * file, in order, and free them. Call sqfs_meta_writer_flush first to
 * include the partial block. Without the flag this does nothing.
 */
SQFS_API int sqfs_meta_writer_write_out(sqfs_meta_writer_t *mw);

/*
 * Start a new stream: positions count from 0 again. Fails with
 * SQFS_ERROR_SEQUENCE if data is still unflushed or blocks are still kept
 * in memory.
 */
SQFS_API int sqfs_meta_writer_reset(sqfs_meta_writer_t *mw);

SQFS_END_DECLS

#endif /* SQFS_META_WRITER_H */
