/* SPDX-License-Identifier: MIT */
/*
 * meta_pipeline_internal.h - the inode and directory tables, compressed
 * on worker threads (internal to the library; doc/metadata-pipeline.md
 * has the design).
 *
 * Both tables are made at once: a directory's listing names the inode
 * table blocks of its entries' inodes, and the directory's inode names
 * the directory table block of its listing. A position on disk is known
 * only when every block in front of it is compressed, so the pipeline
 * names blocks by number instead: every block is 8 KiB of the
 * uncompressed stream but the last, so block n of a table starts at
 * byte n * 8192 of the stream whatever the compressor does. A reference
 * given out by the pipeline, "virtual", is (block number << 16) | offset.
 *
 * A field that holds a block number of the other table is declared
 * (meta_stream_refer) before it is appended; once the block is complete
 * and the sizes of the blocks in front of the one it names are known,
 * the field is overwritten with that block's position on disk (the sum
 * of their sizes) and the block goes to a worker. Blocks come back in
 * any order and go to their table's sink strictly in order. So the bytes
 * are those of one thread compressing one block after the other, for
 * any number of workers.
 *
 * The caller (serialize.c) only appends records through the two streams
 * and, after meta_pipe_finish, turns the virtual references it kept (the
 * root inode, the export table) into real ones with meta_pipe_resolve.
 * Everything runs on the calling thread but compression: patching, the
 * sinks, and the scheduling that a worker's completion triggers are done
 * under the worker pool's lock.
 */
#ifndef SQFS_META_PIPELINE_INTERNAL_H
#define SQFS_META_PIPELINE_INTERNAL_H

#include "sqfs/predef.h"
#include "sqfs/meta_sink_internal.h"
#include "sqfs/meta_stream_internal.h"

typedef enum {
	META_PIPE_INODES = 0,
	META_PIPE_DIRS = 1,
	META_PIPE_TABLES = 2,
} meta_pipe_table_t;

typedef struct {
	/* The image's compressor (the pipeline copies it for each worker),
	 * or NULL to store every block raw (mksquashfs -noI). */
	sqfs_compressor_t *cmp;
	/* Where each table's blocks go, in order: a table starts with the
	 * first block its sink takes. */
	meta_sink_t *sinks[META_PIPE_TABLES];
	/* Compressor threads. 0 or 1: every block is compressed on the
	 * calling thread as soon as it is complete. A build without
	 * pthreads, or a pool that cannot start, does the same. */
	size_t num_workers;
	/* How many complete blocks may wait for compression or for their
	 * turn to be written before an append waits (at least 1); 0 picks
	 * a default from the number of workers. */
	size_t max_blocks;
} meta_pipe_desc_t;

typedef struct meta_pipe meta_pipe_t;

int meta_pipe_create(const meta_pipe_desc_t *desc, meta_pipe_t **out);

/* Stop the workers (their blocks are dropped) and free everything. NULL
 * is allowed. */
void meta_pipe_destroy(meta_pipe_t *mp);

/*
 * A table's stream, for inode_write_stream and the directory writer:
 * positions are virtual block numbers; refer declares a field that holds
 * a virtual block number of the other table (which must exist: at most
 * that table's current block), at a position after every field declared
 * before. The stream lives as long as the pipeline.
 */
meta_stream_t *meta_pipe_stream(meta_pipe_t *mp, meta_pipe_table_t table);

/*
 * Complete the last block of each table and wait until every block is in
 * its sink. After this, the streams refuse appends (SQFS_ERROR_SEQUENCE).
 *
 * Every function returns the first error met by any part of the pipeline
 * (a compressor, a sink, a value that does not fit its field) from the
 * call that learns of it on: a failed pipeline is only destroyed.
 */
int meta_pipe_finish(meta_pipe_t *mp);

/* After meta_pipe_finish: the real reference of a virtual one of table
 * (its block's position relative to the table's start). */
int meta_pipe_resolve(const meta_pipe_t *mp, meta_pipe_table_t table,
		      uint64_t vref, uint64_t *ref);

/* After meta_pipe_finish: the bytes that went to a table's sink. */
uint64_t meta_pipe_table_size(const meta_pipe_t *mp, meta_pipe_table_t table);

/* Blocks of a table so far (the one being filled not counted). */
uint64_t meta_pipe_block_count(const meta_pipe_t *mp, meta_pipe_table_t table);

#endif /* SQFS_META_PIPELINE_INTERNAL_H */
