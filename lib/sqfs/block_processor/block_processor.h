/* SPDX-License-Identifier: MIT */
/*
 * block_processor.h - the block processor as the writer drives it: the
 * data of files in, blocks in the image out
 * (internal to the library; the high-level writer drives it).
 *
 * Front end: begin / append / end per file. The data is cut into blocks of
 * block_size; all-zero blocks become sparse blocks (size word 0, nothing
 * written); full blocks are compressed where that makes them smaller and
 * hashed. What remains at end becomes the file's tail: packed into a
 * fragment block (deduplicated against earlier tails by size, hash and a
 * byte comparison) or, with BP_FILE_DONT_FRAGMENT or when tail packing is
 * off and the file is larger than a block, written as a short last block.
 *
 * Block writer: blocks are written in submission order, each file's blocks
 * contiguous. When a file's last block is written its run of blocks is
 * looked up among the runs already written (an index keyed by block size
 * and hash, so the cost does not grow with the image); a match is verified
 * byte for byte on disk, then the duplicate is cut off the file and the
 * file points at the earlier run. Different data is never merged.
 *
 * Back ends: serial (the reference) and, with pthreads and num_workers > 0,
 * a thread pool (pool.c); both give byte-identical output.
 */
#ifndef SQFS_BLOCK_PROCESSOR_BLOCK_PROCESSOR_H
#define SQFS_BLOCK_PROCESSOR_BLOCK_PROCESSOR_H

#include "sqfs/predef.h"
#include "sqfs/super.h"
#include "sqfs/image.h"

/*
 * Where a file's data ended up. The caller owns the structure and keeps it
 * at a fixed address from block_processor_begin until
 * block_processor_finish; the processor fills it in as blocks are
 * written (with threads, after end returns), and it is complete after
 * finish.
 */
typedef struct file_data {
	/* Bytes given for the file, holes included. */
	uint64_t size;
	/* Absolute position of the first stored block; 0 if none. */
	uint64_t blocks_start;
	/* Bytes of the file in sparse blocks. */
	uint64_t sparse_bytes;
	/* Fragment table index and offset of the tail, or SQFS_NO_FRAGMENT
	 * (0xFFFFFFFF) and 0. */
	uint32_t fragment_index;
	uint32_t fragment_offset;
	/* Block size words (bit 24: stored raw; 0: sparse), malloc'd and
	 * owned by the structure: free with file_data_cleanup. */
	uint32_t block_count;
	uint32_t *block_sizes;
} file_data_t;

/* Per-file flags for block_processor_begin. */
typedef enum {
	/* Store the tail as a short last block, never in a fragment. */
	BP_FILE_DONT_FRAGMENT = 0x01,
	/* Store every block raw. */
	BP_FILE_DONT_COMPRESS = 0x02,
	/* Do not look for or record duplicates of this file. */
	BP_FILE_DONT_DEDUPLICATE = 0x04,
	/* Start the file's first block at a multiple of devblk_size. */
	BP_FILE_ALIGN = 0x08,
	/* Store zero blocks as data, not as sparse blocks. */
	BP_FILE_NO_SPARSE = 0x10,
} blk_flags_t;

/*
 * The default backlog per worker, in block buffers. Measured on 2 cores
 * (zstd level 15, 2 jobs, one run each): 3 to 6 per worker run equally
 * fast; 10 per worker takes 8% longer on rootfs.tar (more CPU time: the
 * buffers fall out of the caches) and holds 2 MiB more; 2 per worker
 * takes 7% longer on small.tar, a tree of small files (a worker idles).
 */
#define BP_DEFAULT_BACKLOG 4

typedef struct {
	/* Output; blocks are appended at its end. */
	sqfs_file_t *file;
	/* Compresses data and fragment blocks; copied per worker. */
	sqfs_compressor_t *cmp;
	uint32_t block_size;
	/* For BP_FILE_ALIGN. */
	uint32_t devblk_size;
	/* 0: serial; more: that many worker threads (if built). */
	unsigned int num_workers;
	/* Most block buffers in flight (of blocks handed to the workers,
	 * not yet written: one per data block, two per fragment block)
	 * before append waits (thread pool; 0: BP_DEFAULT_BACKLOG per
	 * worker); never more than backlog_memory bytes of them. Tails and
	 * end-of-file markers do not count. */
	unsigned int max_backlog;
	/* Bytes the buffers in flight may take (one block is always let
	 * through); 0: 64 MiB, also the most. How many are in flight
	 * changes how long adding waits, never the output. */
	size_t backlog_memory;
	/* Files larger than a block keep their tail as a short block. */
	bool no_tail_packing;
	/* No fragments at all. */
	bool no_fragments;
	/* Run the compressor on every block, also on those the quick test
	 * (see process.c) finds incompressible. */
	bool no_probe;
	/* Store every data block (short last blocks included) raw, as
	 * BP_FILE_DONT_COMPRESS does for one file, without touching the
	 * fragment blocks. */
	bool raw_data;
	/* Store every fragment block raw. */
	bool raw_fragments;
	/* Bytes for finding duplicate tails: the index of distinct tails
	 * (its newest records, and the filters of the older ones, which go
	 * to sorted runs in a spill file) and a buffer of raw copies of
	 * small tails (an eighth, before they go to a spill file too); 0:
	 * the index stays in memory. Dedup finds the same duplicates either
	 * way. The decoded fragment blocks it keeps (at most 8 MiB) come on
	 * top. */
	size_t tail_memory;
} block_processor_desc_t;

typedef struct {
	uint64_t bytes_in;
	uint64_t bytes_written;
	uint64_t data_blocks;
	uint64_t fragment_blocks;
	uint64_t duplicate_blocks;
	uint64_t duplicate_fragments;
	uint64_t sparse_blocks;
	uint64_t files;
} block_stats_t;

typedef struct block_processor block_processor_t;

/* Free what a file data record owns and zero it. */
void file_data_cleanup(file_data_t *fd);

int block_processor_create(const block_processor_desc_t *desc,
			   block_processor_t **out);

/* Destroy; discards work in flight (after an error). NULL allowed. */
void block_processor_destroy(block_processor_t *bp);

/* Start a file; fd is zeroed and then filled in. flags: blk_flags_t. */
int block_processor_begin(block_processor_t *bp, file_data_t *fd,
			  unsigned int flags);

/* Append data to the current file. */
int block_processor_append(block_processor_t *bp, const void *data,
			   size_t size);

/* Append size bytes of zeros to the current file without data. */
int block_processor_append_hole(block_processor_t *bp, uint64_t size);

/* Finish the current file (its tail goes to a fragment or a last block). */
int block_processor_end(block_processor_t *bp);

/*
 * Flush the last fragment block and wait until everything is written; all
 * file data records are then complete. No file may be open.
 */
int block_processor_finish(block_processor_t *bp);

/* While adding: a new tail_memory (block_processor_desc_t), for a writer
 * whose other holdings grew. Ignored when it was 0 (no limit). The index
 * of tails fits it from its next spill on; the buffer of raw tails keeps
 * its size. */
void block_processor_set_tail_memory(block_processor_t *bp, size_t bytes);

/*
 * Bytes a block processor made from desc may hold besides tail_memory, at
 * most: the decoded fragment blocks it caches (8 MiB), the buffers in
 * flight (max_backlog and backlog_memory), and per worker thread, or for
 * the serial back end, two blocks and BP_WORKER_MEMORY for its copy of
 * the compressor's state. For a caller that
 * shares a memory limit out: this part does not shrink with the limit,
 * so it is taken off the limit first.
 */
size_t block_processor_fixed_memory(const block_processor_desc_t *desc);

/* The allowance per worker (block_processor_fixed_memory) besides two
 * blocks: the compressor's state (lz4 takes 0.1 MiB). */
#define BP_WORKER_MEMORY (1u << 20)

/*
 * After finish: append the fragment table (if there are fragments) and set
 * super->fragment_entry_count and fragment_table_start.
 */
int block_processor_write_fragment_table(block_processor_t *bp,
					 sqfs_super_t *super);

/*
 * Appending to an existing image whose data area has been copied into the
 * output (adopt.c). Before any file: take over the image's fragment table
 * (count entries, each of which the caller has checked lies in the data
 * area), so that its entries keep their numbers and new fragment blocks
 * follow them.
 */
int block_processor_adopt_fragments(block_processor_t *bp,
				    const sqfs_fragment_t *list, size_t count);

/*
 * Before any file: a file of the old image, complete in fd (its blocks,
 * already in the output and checked by the caller to lie in the data
 * area, and its tail in an adopted fragment block), is offered to later
 * files for deduplication, as a file just written would be. Nothing is
 * written; stored blocks are read back and hashed, fragment blocks read
 * back and decoded (SQFS_ERROR_CORRUPTED if one does not decode).
 */
int block_processor_adopt_file(block_processor_t *bp, const file_data_t *fd);

void block_processor_get_stats(const block_processor_t *bp,
			       block_stats_t *stats);

/*
 * How many files, counted from the first begin, are complete: their file
 * data records are final and the processor no longer touches them (their
 * blocks written and deduplicated, their tails placed). Files complete in
 * the order they began, so a caller that keeps records in that order can
 * hand off (and free) every record before this count.
 */
uint64_t block_processor_files_complete(const block_processor_t *bp);

/* The words of a failure of the processor's temporary files ("temporary
 * file in /tmp: No space left on device"), or "" if there was none. */
const char *block_processor_spill_error(const block_processor_t *bp);

#endif /* SQFS_BLOCK_PROCESSOR_BLOCK_PROCESSOR_H */
