/* SPDX-License-Identifier: MIT */
/*
 * meta_stream_internal.h - what the inode and directory encoders write
 * into: a stream of 8 KiB metadata blocks (internal to the library).
 *
 * Two streams stand behind this interface. The plain metadata writer
 * (sqfs_meta_writer_t, through meta_writer_stream_init) names a block by
 * its position on disk, as references do, and compresses on the calling
 * thread. The metadata pipeline (meta_pipeline_internal.h) names a block
 * by its index, the only thing known before the blocks in front of it are
 * compressed, and compresses on worker threads; a field that holds such a
 * block number is declared with refer, before its bytes are appended, and
 * the pipeline overwrites it with the block's position on disk once that
 * is known.
 *
 * A block number changes exactly when the block does, in both streams:
 * what is decided by comparing block numbers (the directory writer's run
 * breaks) comes out the same whichever stream is written.
 */
#ifndef SQFS_META_STREAM_INTERNAL_H
#define SQFS_META_STREAM_INTERNAL_H

#include "sqfs/predef.h"

typedef struct meta_stream meta_stream_t;

struct meta_stream {
	/* Append size bytes; 0 or a negative sqfs_error_t. */
	int (*append)(meta_stream_t *ms, const void *data, size_t size);

	/* Where the next byte goes: *block names its metadata block (the
	 * upper part of a reference), *offset is its offset in the block's
	 * 8 KiB (the lower part). */
	void (*position)(const meta_stream_t *ms, uint64_t *block,
			 uint32_t *offset);

	/*
	 * The u32 that starts ahead bytes after the current position (not
	 * appended yet) holds block, a block number of the other table of
	 * the image's pair (the directory table for the inode table, the
	 * inode table for the directory table), as given by that table's
	 * position. NULL when the numbers are final already.
	 */
	int (*refer)(meta_stream_t *ms, size_t ahead, uint64_t block);
};

static inline int meta_stream_append(meta_stream_t *ms, const void *data,
				     size_t size)
{
	return ms->append(ms, data, size);
}

static inline void meta_stream_position(const meta_stream_t *ms,
					uint64_t *block, uint32_t *offset)
{
	ms->position(ms, block, offset);
}

static inline int meta_stream_refer(meta_stream_t *ms, size_t ahead,
				    uint64_t block)
{
	return ms->refer != NULL ? ms->refer(ms, ahead, block) : 0;
}

/* The plain metadata writer as a stream (meta_writer.c). */
typedef struct {
	meta_stream_t base;
	sqfs_meta_writer_t *mw;
} meta_writer_stream_t;

void meta_writer_stream_init(meta_writer_stream_t *s, sqfs_meta_writer_t *mw);

#endif /* SQFS_META_STREAM_INTERNAL_H */
