/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the parts of the block processor and how they meet.
 *
 * A file's data travels as bp_block_t structures through three stages:
 *
 *   front end (frontend.c, main thread)
 *     begin / append / append_hole / end cut the data into blocks and give
 *     them to the back end with submit. At end the tail is decided: an
 *     all-zero tail is a sparse short block; a tail allowed into a fragment
 *     is hashed and handed to the fragment packer (fragments.c) right
 *     there, after the file's BP_BLOCK_FILE_END marker has been submitted;
 *     any other tail is a short BP_BLOCK_DATA block, followed by the
 *     marker. The packer deduplicates tails and packs them into the open
 *     fragment block; a full fragment block is submitted like any block.
 *
 *   processing (bp_process_block in process.c, any thread)
 *     Pure: zero check, compression, hashing of one block with the
 *     compressor it is given. No I/O, no state shared with other blocks.
 *
 *   completion (bp_handle_completed in process.c, main thread, in
 *   submission order)
 *     Gives each block the next I/O number (queue_io); the block writer
 *     (bp_write_block, block_writer.c) then writes blocks strictly in I/O
 *     order and deduplicates whole files at their FILE_END marker.
 *     Completion never submits anything: the pipeline runs one way.
 *
 * Ordering rules a back end must keep:
 *   - bp_handle_completed sees blocks in the order they were submitted
 *     (the processing sequence number, proc_seq), so I/O order is
 *     submission order;
 *   - bp_write_block sees blocks in I/O order (io_seq). A file's blocks and
 *     its FILE_END marker therefore reach the writer back to back, and the
 *     fragment block that a file's tail fills up is written after that
 *     file's FILE_END (its deduplication and truncation), because the
 *     front end submits the marker before it packs the tail.
 *
 * Only blocks that carry data hold buffers: FILE_END markers are bare
 * structures (bp_marker_alloc), and tails never become blocks of their
 * own, so small files cost the pipeline no buffers and no backlog.
 *
 * The serial back end (serial.c) runs the three stages inside submit, one
 * block at a time. The thread-pool back end (pool.c) gives workers their
 * own copies of the compressor; the main thread keeps bp->cmp (the
 * fragment packer decompresses with it). A fragment block the packer
 * flushed may still be queued when a later tail needs its bytes; the
 * packer then reads them from the block in memory (frag.pending) instead
 * of from the output.
 *
 * Memory: a bounded number of block structures (two block_size buffers
 * each) and markers, the open fragment block, the writer's two
 * verification buffers and the packer's cache, plus per stored block one
 * bp_index_entry_t and per fragment one bp_fragment_t and per fragment
 * block one table entry.
 */
#ifndef SQFS_BLOCK_PROCESSOR_INTERNAL_H
#define SQFS_BLOCK_PROCESSOR_INTERNAL_H

#include "sqfs/block_processor/block_processor.h"
#include "util/array.h"
#include "util/hash_table.h"

/* Bit 24 of a size word: the block is stored raw. */
#define BP_SIZE_RAW 0x01000000u
#define BP_SIZE_MASK 0x00FFFFFFu

/* "No entry" in the index chains. */
#define BP_NONE UINT32_MAX

/* Candidate runs (or fragments) compared per lookup, so that a key shared
 * by very many blocks cannot make each lookup walk the whole image. */
#define BP_MAX_CANDIDATES 64

typedef enum {
	/* A full block of a file, or its short last block. Processing may
	 * find it all zero and make it sparse. */
	BP_BLOCK_DATA,
	/* A whole block of zeros that has no data (a hole, or a zero tail). */
	BP_BLOCK_SPARSE,
	/* The tail of a file, for the fragment packer (front end only;
	 * never submitted). */
	BP_BLOCK_TAIL,
	/* A fragment block ready to be compressed and written. */
	BP_BLOCK_FRAGMENTS,
	/* All blocks of the file have been submitted. */
	BP_BLOCK_FILE_END,
} bp_block_kind_t;

typedef struct bp_block {
	/* Queue or free-list link. */
	struct bp_block *next;
	/* Every block structure ever allocated, for destroy. */
	struct bp_block *all_next;
	/* A FILE_END marker without buffers (data and out are NULL). */
	bool marker;

	bp_block_kind_t kind;
	/* The file's sqfs_blk_flags_t (for fragment blocks: DONT_COMPRESS
	 * if any tail in it asked for it). */
	unsigned int flags;
	/* NULL for fragment blocks. */
	sqfs_file_data_t *fd;
	/* Block number within the file; fragment table index for
	 * BP_BLOCK_FRAGMENTS. */
	uint32_t index;
	/* Bytes of file data the block stands for (in data unless sparse). */
	uint32_t size;

	uint64_t proc_seq;
	uint64_t io_seq;
	/* What processing returned (thread pool: read on the main thread). */
	int error;

	/* Results of processing: the size word (0: sparse), the bytes to
	 * store (data or out) and their hash; for tails, the hash of data. */
	uint32_t size_word;
	const uint8_t *stored;
	uint64_t hash;

	/* block_size bytes each. */
	uint8_t *data;
	uint8_t *out;
} bp_block_t;

/* One stored data block, in the order they were written. */
typedef struct {
	uint64_t pos;
	uint64_t hash;
	uint32_t size_word;
	/* The previous entry with the same key, or BP_NONE. */
	uint32_t prev;
} bp_index_entry_t;

/* One distinct fragment. */
typedef struct {
	uint64_t hash;
	uint32_t size;
	uint32_t block;
	uint32_t offset;
	/* The previous fragment with the same key, or BP_NONE. */
	uint32_t prev;
} bp_fragment_t;

typedef struct {
	uint64_t start;
	uint32_t size_word;
} bp_frag_entry_t;

/* A fragment block submitted but perhaps not yet written. */
typedef struct {
	uint32_t index;
	const struct bp_block *blk;
} bp_pending_t;

typedef uint64_t (*bp_hash_fn_t)(const void *data, size_t size);

typedef struct {
	/* A free block structure with its buffers (the front end fills it). */
	int (*get_block)(sqfs_block_processor_t *bp, bp_block_t **out);
	/* A free FILE_END marker (no buffers). */
	int (*get_marker)(sqfs_block_processor_t *bp, bp_block_t **out);
	/* Process and complete a block from the front end. Takes ownership
	 * of blk, also on failure. */
	int (*submit)(sqfs_block_processor_t *bp, bp_block_t *blk);
	/* From bp_handle_completed: give blk the next I/O number and write
	 * it in that order. Takes ownership. */
	int (*queue_io)(sqfs_block_processor_t *bp, bp_block_t *blk);
	/* Wait until everything submitted has been written. */
	int (*sync)(sqfs_block_processor_t *bp);
	/* Free the back end's own state (blocks are freed by the caller). */
	void (*destroy)(sqfs_block_processor_t *bp);
} bp_backend_t;

typedef enum {
	BP_STATE_IDLE,
	BP_STATE_FILE_OPEN,
	BP_STATE_FINISHED,
	BP_STATE_TABLE_WRITTEN,
	/* After an error: everything fails with SQFS_ERROR_SEQUENCE. */
	BP_STATE_BROKEN,
} bp_state_t;

struct sqfs_block_processor {
	sqfs_block_processor_desc_t desc;
	const bp_backend_t *ops;
	void *backend;
	bp_state_t state;
	/* Test hook: the hash of blocks and tails. */
	bp_hash_fn_t hash_fn;
	/* Test blocks before compressing them (see process.c). */
	bool probe;
	sqfs_block_stats_t stats;

	bp_block_t *all_blocks;
	bp_block_t *free_blocks;
	bp_block_t *free_markers;
	/* Block structures with buffers allocated (on all_blocks, as are
	 * markers), and those of them not on the free list; markers not on
	 * theirs. */
	size_t block_count;
	size_t blocks_in_use;
	size_t markers_in_use;
	uint64_t next_proc_seq;
	uint64_t next_io_seq;

	/* Front end: the open file. */
	struct {
		sqfs_file_data_t *fd;
		unsigned int flags;
		/* Entries allocated in fd->block_sizes. */
		uint32_t capacity;
		/* The block being filled, or NULL. */
		bp_block_t *blk;
	} in;

	/* Block writer: the file whose blocks are being written. */
	struct {
		sqfs_file_data_t *fd;
		unsigned int flags;
		bool stored_any;
		/* Output size before the file's first stored block (before
		 * alignment padding): where a duplicate is cut off. */
		uint64_t cut_pos;
		/* Index entry of the file's first stored block. */
		size_t first_entry;
		uint64_t stored_bytes;
		/* Verification buffers, block_size bytes each. */
		uint8_t *buf_a;
		uint8_t *buf_b;
	} wr;

	/* Stored data blocks (bp_index_entry_t, see bp_index), and key ->
	 * latest entry with that key. */
	array_t index;
	hash_table_t index_map;

	/* Fragment packer. */
	struct {
		/* The open fragment block or NULL; its index is
		 * table_count - 1 when open. */
		bp_block_t *blk;
		uint32_t fill;
		/* Distinct fragments (bp_fragment_t), and key -> latest. */
		array_t list;
		hash_table_t map;
		/* Fragment table (bp_frag_entry_t), one entry per fragment
		 * block. */
		array_t table;
		/* Fragment blocks submitted but perhaps not yet written
		 * (table entry still 0; bp_pending_t): their data is read
		 * from memory. */
		array_t pending;
		/* The last fragment block read back and decoded. */
		uint8_t *cache;
		uint32_t cache_index;
		uint32_t cache_size;
		uint8_t *scratch;
	} frag;
};

/* The typed items of the processor's arrays. */
static inline bp_index_entry_t *bp_index(const sqfs_block_processor_t *bp)
{
	return bp->index.data;
}

static inline bp_fragment_t *bp_frag_list(const sqfs_block_processor_t *bp)
{
	return bp->frag.list.data;
}

static inline bp_frag_entry_t *bp_frag_table(const sqfs_block_processor_t *bp)
{
	return bp->frag.table.data;
}

static inline bp_pending_t *bp_frag_pending(const sqfs_block_processor_t *bp)
{
	return bp->frag.pending.data;
}

/*
 * The hash table key of a stored block or a fragment: its hash mixed with
 * its size (a block's size word), so that equal hashes of different sizes
 * land apart.
 */
static inline uint64_t bp_dedup_key(uint64_t hash, uint32_t size)
{
	return hash ^ ((uint64_t)size * 0x9e3779b97f4a7c15ull);
}

/* ---- process.c ----------------------------------------------------------- */

/* A block structure from the free list, or a new one. */
int bp_block_alloc(sqfs_block_processor_t *bp, bp_block_t **out);

/* A FILE_END marker (no buffers) from its free list, or a new one. */
int bp_marker_alloc(sqfs_block_processor_t *bp, bp_block_t **out);

/* Put a block or marker back on its free list. */
void bp_block_release(sqfs_block_processor_t *bp, bp_block_t *blk);

/* Zero check, compression and hashing of one block (see above). */
int bp_process_block(const sqfs_block_processor_t *bp, sqfs_compressor_t *cmp,
		     bp_block_t *blk);

/* Main-thread completion of a processed block. Takes ownership. */
int bp_handle_completed(sqfs_block_processor_t *bp, bp_block_t *blk);

/* Whether the incompressible-block probe was built (it needs LZ4). */
bool bp_probe_available(void);

/* Whether size bytes at data are all zero. */
bool bp_is_zero(const uint8_t *data, size_t size);

/* Test hook: replace the hash function (NULL restores XXH3). */
void sqfs_block_processor_set_hash_fn(sqfs_block_processor_t *bp,
				      bp_hash_fn_t fn);

/* ---- block_writer.c ------------------------------------------------------ */

/* Write one block (or act on a FILE_END marker), in I/O order. Does not
 * take ownership. */
int bp_write_block(sqfs_block_processor_t *bp, bp_block_t *blk);

void bp_writer_cleanup(sqfs_block_processor_t *bp);

/* ---- fragments.c --------------------------------------------------------- */

/* Deduplicate a hashed tail (front end) or pack it into the open fragment
 * block, submitting the block when it is full. Does not take ownership. */
int bp_pack_tail(sqfs_block_processor_t *bp, const bp_block_t *tail);

/* Submit the open fragment block, if it holds anything. */
int bp_flush_fragments(sqfs_block_processor_t *bp);

void bp_fragments_cleanup(sqfs_block_processor_t *bp);

/* ---- serial.c ------------------------------------------------------------ */

extern const bp_backend_t bp_serial_backend;

/* ---- pool.c -------------------------------------------------------------- */

#ifdef WITH_PTHREAD
/* Start num_workers threads and make the pool bp's back end. */
int bp_pool_init(sqfs_block_processor_t *bp);
#endif

#endif /* SQFS_BLOCK_PROCESSOR_INTERNAL_H */
