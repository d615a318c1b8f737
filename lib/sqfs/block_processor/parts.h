/* SPDX-License-Identifier: MIT */
/*
 * parts.h - the parts of the block processor and how they meet.
 *
 * The processor is a front end that owns five small objects, each in a
 * file of its own, each reached only through the functions declared
 * below:
 *
 *   block pool      (blocks.c)       block structures and their buffers,
 *                                    and bare FILE_END markers
 *   processing      (process.c)      zero check, probe, compression and
 *                                    hash of one block; pure, any thread
 *   fragment packer (fragments.c)    deduplicates tails and packs them
 *                                    into fragment blocks
 *   fragment table  (frag_table.c)   one entry per fragment block: where
 *                                    it was written; encodes the table
 *   block writer    (block_writer.c) writes blocks in submission order and
 *                                    deduplicates whole files with its
 *                                    index of stored blocks
 *
 * and a back end (serial.c, or the thread pool in pool.c) that runs
 * processing and hands finished blocks to the writer in order.
 *
 * A file's data travels one way:
 *
 *   front end (frontend.c, main thread)
 *     begin / append / append_hole / end cut the data into blocks and
 *     submit them to the back end. At end the tail is decided: an
 *     all-zero tail is a sparse short block; a tail allowed into a
 *     fragment is hashed and given to the packer right there, after the
 *     file's FILE_END marker has been submitted; any other tail is a
 *     short BP_BLOCK_DATA block, followed by the marker. The packer
 *     submits a full fragment block through the front end like any block.
 *
 *   processing (bp_process_block, a worker or the main thread)
 *     No I/O, no state shared with other blocks.
 *
 *   writing (bp_writer_write, main thread, in submission order)
 *     The back end hands finished blocks to the writer strictly in the
 *     order they were submitted (their processing sequence number,
 *     proc_seq). The writer records where each fragment block went in the
 *     fragment table, which is how the packer learns that a block is on
 *     disk.
 *
 * The ordering rule a back end must keep: bp_writer_write sees blocks in
 * submission order. A file's blocks and its FILE_END marker therefore
 * reach the writer back to back, and the fragment block that a file's
 * tail fills up is written after that file's FILE_END (its deduplication
 * and truncation), because the front end submits the marker before it
 * packs the tail.
 *
 * Only blocks that carry data hold buffers: FILE_END markers are bare
 * structures, and tails never become blocks of their own, so small files
 * cost the pipeline no buffers and no backlog.
 *
 * The serial back end runs processing and writing inside submit, one
 * block at a time, with the processor's compressor. The thread pool gives
 * workers their own copies of the compressor; the main thread keeps
 * desc.cmp (the packer decompresses with it). A fragment block the packer
 * flushed may still be queued when a later tail needs its bytes; the
 * packer then reads them from the block in memory instead of the output.
 *
 * Statistics: each object counts what it does in its own
 * block_stats_t (the fields it owns); get_stats adds them up.
 *
 * Memory: the buffers of the blocks in flight (one block_size buffer per
 * data block, two per fragment block; at most the backlog's blocks and 64
 * MiB), the block the front end fills, the open fragment block, a scratch
 * buffer per worker, the writer's two verification buffers and the
 * packer's cache of decoded fragment blocks (BP_FRAG_CACHE_BYTES), plus per
 * stored block one bp_index_entry_t, per fragment one bp_fragment_t and per
 * fragment block one table entry.
 */
#ifndef SQFS_BLOCK_PROCESSOR_PARTS_H
#define SQFS_BLOCK_PROCESSOR_PARTS_H

#include "util/workers.h"
#include "sqfs/block_processor/block_processor.h"
#include "util/array.h"
#include "util/hash_table.h"
#include "sqfs/compressor.h"
#include "sqfs/format_internal.h"
#include "sqfs/image.h"

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
	/* The worker pool's link while on its work queue (pool.c). */
	util_job_t job;
	/* Queue or free-list link. */
	struct bp_block *next;
	/* Every block structure ever allocated, for destroy. */
	struct bp_block *all_next;
	/* A FILE_END marker without buffers (data and out are NULL). */
	bool marker;

	bp_block_kind_t kind;
	/* The file's blk_flags_t (for fragment blocks: DONT_COMPRESS
	 * if any tail in it asked for it). */
	unsigned int flags;
	/* NULL for fragment blocks. */
	file_data_t *fd;
	/* Block number within the file; fragment table index for
	 * BP_BLOCK_FRAGMENTS. */
	uint32_t index;
	/* Bytes of file data the block stands for (in data unless sparse). */
	uint32_t size;

	/* Its place in submission order, which is also the order of
	 * writing. */
	uint64_t proc_seq;
	/* What processing returned (thread pool: read on the main thread). */
	int error;

	/* Results of processing: the size word (0: sparse), the bytes to
	 * store (data or out) and their hash; for tails, the hash of data. */
	uint32_t size_word;
	const uint8_t *stored;
	uint64_t hash;

	/* block_size bytes each; out only for fragment blocks (see
	 * blocks.c), NULL otherwise. */
	uint8_t *data;
	uint8_t *out;
} bp_block_t;

/* Whatever the block size and --queue-backlog, blocks in flight hold at
 * most this many bytes of buffers. */
#define BP_MAX_BACKLOG_BYTES (64u * 1024u * 1024u)

/* The backlog in buffers (frontend.c, for pool.c): max_backlog, bounded
 * in bytes by backlog_memory. */
size_t bp_backlog_buffers(const block_processor_desc_t *desc);

/* ---- blocks.c: the block pool ------------------------------------------- */

typedef struct {
	uint32_t block_size;
	/* Every block structure ever allocated, for cleanup, and the free
	 * ones (for blocks and markers alike). */
	bp_block_t *all;
	bp_block_t *free_structs;
	/* Every buffer ever allocated (uint8_t *), the free ones, and their
	 * bytes in all. */
	array_t buffers;
	uint8_t *free_buffers;
	size_t buffer_bytes;
	/* Blocks with buffers handed out, and markers. */
	size_t blocks_in_use;
	size_t markers_in_use;
} bp_block_pool_t;

void bp_blocks_init(bp_block_pool_t *pool, uint32_t block_size);

void bp_blocks_cleanup(bp_block_pool_t *pool);

/* A block structure with a data buffer, and an out buffer if with_out
 * (fragment blocks), reset. */
int bp_block_alloc(bp_block_pool_t *pool, bool with_out, bp_block_t **out);

/* A FILE_END marker (no buffers), reset. */
int bp_marker_alloc(bp_block_pool_t *pool, bp_block_t **out);

/* Give a block or marker back. */
void bp_block_release(bp_block_pool_t *pool, bp_block_t *blk);

/* ---- process.c: what happens to one block -------------------------------- */

typedef uint64_t (*bp_hash_fn_t)(const void *data, size_t size);

/* What processing needs to know; read-only while blocks are in flight. */
typedef struct {
	uint32_t block_size;
	/* Test blocks before compressing them (see process.c). */
	bool probe;
	/* Store every data block, or every fragment block, raw. */
	bool raw_data;
	bool raw_fragments;
	bp_hash_fn_t hash_fn;
} bp_proc_t;

/* Set up for blocks of block_size; cfg is the compressor's (the probe is
 * off for LZ4, which is as quick as the probe). */
void bp_proc_init(bp_proc_t *proc, uint32_t block_size,
		  const sqfs_compressor_config_t *cfg, bool no_probe);

/* Zero check, compression and hashing of one block with cmp; scratch is
 * block_size bytes of the caller's (one per thread). */
int bp_process_block(const bp_proc_t *proc, sqfs_compressor_t *cmp,
		     uint8_t *scratch, bp_block_t *blk);

/* Whether the incompressible-block probe was built (it needs LZ4). */
bool bp_probe_available(void);

/* Whether size bytes at data are all zero. */
bool bp_is_zero(const uint8_t *data, size_t size);

/* Test hook: replace the hash function (NULL restores XXH3). */
void block_processor_set_hash_fn(block_processor_t *bp, bp_hash_fn_t fn);

/*
 * Tails of up to BP_EXACT_TAIL bytes are their own hash: the bytes,
 * little-endian, zero-padded. With the size, equal hashes then mean equal
 * bytes, and the packer never reads a written fragment block back (and
 * decodes it) to compare them. A tree of tiny files has many duplicates
 * of one or two bytes, spread over every fragment block: the million-file
 * corpus made 72,803 read-backs of whole blocks for them.
 */
#define BP_EXACT_TAIL 8

static inline uint64_t bp_tail_hash(bp_hash_fn_t fn, const uint8_t *data,
				    size_t size)
{
	uint64_t v = 0;

	if (size > BP_EXACT_TAIL)
		return fn(data, size);
	for (size_t i = size; i-- > 0;)
		v = (v << 8) | data[i];
	return v;
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

/* ---- frag_table.c: the fragment table ------------------------------------ */

/* One fragment block (sqfs_fragment_t): where it was written; size 0
 * until then. */
typedef sqfs_fragment_t bp_frag_entry_t;

typedef struct {
	array_t entries;
} bp_frag_table_t;

void bp_frag_table_init(bp_frag_table_t *tbl);

void bp_frag_table_cleanup(bp_frag_table_t *tbl);

static inline size_t bp_frag_table_count(const bp_frag_table_t *tbl)
{
	return tbl->entries.count;
}

/* Add an entry for a new fragment block, not written yet; *index receives
 * its number. SQFS_ERROR_LIMIT past what an inode can name. */
int bp_frag_table_add(bp_frag_table_t *tbl, uint32_t *index);

/* The entry of block idx, or NULL if there is none. */
const bp_frag_entry_t *bp_frag_table_get(const bp_frag_table_t *tbl,
					 uint32_t idx);

/* Block idx has been written at start with size_word (never 0). */
int bp_frag_table_set(bp_frag_table_t *tbl, uint32_t idx, uint64_t start,
		      uint32_t size_word);

/* Take over the count entries of an existing image's fragment table
 * (appending to it), as entries 0 .. count - 1, already written; the table
 * must be empty and every entry's size word not 0 (the caller checks where
 * they lie). */
int bp_frag_table_adopt(bp_frag_table_t *tbl, const sqfs_fragment_t *list,
			size_t count);

/* Append the table to file (metadata blocks compressed with cmp, then the
 * index of their positions) and point super at it; no fragments: the
 * table is absent. */
int bp_frag_table_write(const bp_frag_table_t *tbl, sqfs_file_t *file,
			sqfs_compressor_t *cmp, sqfs_super_t *super);

/* ---- block_writer.c: the block writer ------------------------------------ */

/* One stored data block, in the order they were written. */
typedef struct {
	uint64_t pos;
	uint64_t hash;
	uint32_t size_word;
	/* The previous entry with the same key, or BP_NONE. */
	uint32_t prev;
} bp_index_entry_t;

typedef struct {
	sqfs_file_t *file;
	uint32_t block_size;
	uint32_t devblk_size;
	/* Where fragment blocks are recorded when written. */
	bp_frag_table_t *ftable;
	/* Counts data, sparse, fragment and duplicate blocks and bytes
	 * written. */
	block_stats_t stats;

	/* The file whose blocks are being written. */
	file_data_t *fd;
	unsigned int flags;
	bool stored_any;
	/* Output size before the file's first stored block (before
	 * alignment padding): where a duplicate is cut off. */
	uint64_t cut_pos;
	/* Index entry of the file's first stored block. */
	size_t first_entry;
	uint64_t stored_bytes;

	/* Stored data blocks (bp_index_entry_t), and key -> latest entry
	 * with that key. */
	array_t index;
	hash_table_t index_map;

	/* Verification buffers, block_size bytes each, made on first use. */
	uint8_t *buf_a;
	uint8_t *buf_b;

	/* Files whose end marker was written: their records are final but
	 * for the tail, which the front end places when it ends the file. */
	uint64_t files_written;
} bp_writer_t;

void bp_writer_init(bp_writer_t *wr, sqfs_file_t *file, uint32_t block_size,
		    uint32_t devblk_size, bp_frag_table_t *ftable);

void bp_writer_cleanup(bp_writer_t *wr);

/* Write one processed block (or act on a FILE_END marker), in submission order.
 * Does not take ownership. */
int bp_writer_write(bp_writer_t *wr, const bp_block_t *blk);

/*
 * Offer the blocks of a file that is already in the output (the image
 * appended to) to later files, as if it had just been written: each
 * stored block is read back and hashed with fn, and the run joins the
 * index. No file may be in the middle of being written.
 */
int bp_writer_adopt_run(bp_writer_t *wr, const file_data_t *fd,
			bp_hash_fn_t fn);

/* ---- fragments.c: the fragment packer ------------------------------------ */

/* What the packer needs from its owner: block structures for fragment
 * blocks, and the way on for a full one. */
typedef struct {
	void *ctx;
	int (*get_block)(void *ctx, bp_block_t **out);
	/* Takes ownership, also on failure. */
	int (*submit)(void *ctx, bp_block_t *blk);
	void (*release)(void *ctx, bp_block_t *blk);
} bp_block_sink_t;

/*
 * One distinct tail: its size, hash and place (fragment block number,
 * offset), and where its bytes are kept raw for the byte comparison with
 * a later equal tail (the tail store's offset + 1; 0: not kept, read the
 * fragment block back instead).
 */
typedef struct {
	uint64_t hash;
	uint32_t size;
	uint32_t block;
	uint32_t offset;
	uint64_t store;
} bp_tail_t;

/* A distinct tail in memory, linked to the previous one of its key
 * (BP_NONE: none). */
typedef struct {
	bp_tail_t tail;
	uint32_t prev;
} bp_fragment_t;

/*
 * Written fragment blocks read back and decoded to compare a tail with an
 * earlier one are kept, the least recently used going first: duplicates
 * of popular files (licences, boilerplate, generated stubs) point at a few
 * blocks again and again, and with xz each read-back costs the decoding
 * of a whole block (1 to 3 ms). With one block kept, a million small
 * files with 10% duplicates spent 90% of the pack decoding. At most
 * BP_FRAG_CACHE_SLOTS blocks and BP_FRAG_CACHE_BYTES, at least 2 blocks.
 */
#define BP_FRAG_CACHE_BYTES (8u << 20)

/*
 * Distinct tails up to this size also go, raw, to a spill file (the tail
 * store), and a later tail of the same size and hash is compared with
 * them there: one read of a few bytes from the page cache instead of
 * decoding a whole fragment block. A tree of small files whose
 * duplicates point anywhere in the image (not at a few popular blocks)
 * otherwise decodes a block per duplicate: 244 s instead of seconds for
 * half a million files with xz. Larger tails are rare by count and cost
 * the decoding of a block no larger than themselves twice over.
 */
#define BP_STORED_TAIL_MAX 4096u
#define BP_FRAG_CACHE_SLOTS 64u

typedef struct {
	uint8_t *data;
	uint64_t last_use;
	/* Fragment block number, or BP_NONE for an empty slot. */
	uint32_t index;
	uint32_t size;
} bp_frag_cache_slot_t;

/* ---- tail_index.c: the index of distinct tails ----------------------------
 */

/*
 * Every distinct tail packed is recorded (size, hash, where it is), so
 * that a later equal tail is found. The newest records are in memory: an
 * array and a hash map from key (bp_dedup_key) to the newest record of
 * that key, each record linking to the previous one. Past what its memory
 * allows they are sorted by key and written to a run in a spill file,
 * with a filter (a blocked Bloom filter, 10 bits per record, folded when
 * the filters outgrow their share) and the first key of each page kept
 * in memory; runs of one size are merged
 * four at a time (a tiered log-structured merge), so a lookup checks a
 * few filters, not one per run. A lookup visits the records of a size
 * and hash newest first, in memory and then in the runs from the newest:
 * the same order as with everything in memory, so dedup decisions, and
 * images, do not depend on the limit.
 */
typedef struct bp_tail_run bp_tail_run_t;

typedef struct {
	/* Bytes the index may hold (bp_tail_index_memory); 0: no limit,
	 * nothing spills. The runs' filters and page keys take at most
	 * three quarters, the records in memory what the runs leave. The
	 * page keys cannot fold: only if they alone outgrow three
	 * quarters (10^9 records in 100 MiB) is the memory exceeded. */
	size_t memory;
	/* Records in memory before the next spill (the array is sized for
	 * them, the map grows up to what they need); 0 before the first
	 * add. */
	size_t max_records;
	/* Bytes of filters and page keys held for the runs. */
	size_t lookup_bytes;
	/* In memory: distinct fragments (bp_fragment_t), key -> newest. */
	array_t list;
	hash_table_t map;
	/* Spilled runs, oldest first, in one spill file. */
	bp_tail_run_t *runs;
	size_t run_count;
	struct spill_file *file;
	/* Records spilled and merge passes, for tests and figures. */
	uint64_t spilled;
	uint64_t merges;
	/* The words of a spill failure. */
	char why[256];
} bp_tail_index_t;

/* Visit a candidate: 1 stops the lookup (found), 0 goes on, < 0 fails. */
typedef int (*bp_tail_visit_fn)(void *user, const bp_tail_t *rec);

void bp_tail_index_init(bp_tail_index_t *ti, size_t memory);

/* A new memory (not 0): the records in memory and the filters fit it
 * from the next spill on. */
void bp_tail_index_set_memory(bp_tail_index_t *ti, size_t memory);

/* Bytes the index holds: its array and map, its runs' filters and page
 * keys (not the merge's read buffers, 1 MiB for a moment). */
size_t bp_tail_index_memory(const bp_tail_index_t *ti);

void bp_tail_index_cleanup(bp_tail_index_t *ti);

/* Record a distinct tail (newer than every record so far). */
int bp_tail_index_add(bp_tail_index_t *ti, const bp_tail_t *rec);

/* Visit the records of rec's size and hash, newest first, until visit
 * stops it: 1 if it did, 0 if every record was visited. */
int bp_tail_index_find(bp_tail_index_t *ti, uint64_t hash, uint32_t size,
		       bp_tail_visit_fn visit, void *user);

/* A fragment block submitted but perhaps not yet written. */
typedef struct {
	uint32_t index;
	const struct bp_block *blk;
} bp_pending_t;

typedef struct {
	uint32_t block_size;
	/* Where written fragment blocks are read back from, and how. */
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	bp_frag_table_t *ftable;
	bp_block_sink_t sink;
	/* Counts duplicate_fragments. */
	block_stats_t stats;

	/* The open fragment block or NULL, and the bytes in it. */
	bp_block_t *blk;
	uint32_t fill;
	/* Distinct fragments. */
	bp_tail_index_t tails;
	/* Fragment blocks submitted whose table entry is still 0
	 * (bp_pending_t): their data is read from memory. */
	array_t pending;
	/* Raw bytes of distinct tails of BP_EXACT_TAIL + 1 to
	 * BP_STORED_TAIL_MAX bytes (bp_tail_t.store), and room to read one
	 * back; why: the words of a failure of the store. */
	struct spill_file *store;
	size_t store_memory;
	uint8_t *store_buf;
	char why[256];
	/* Fragment blocks read back and decoded, least recently used first
	 * to go; clock counts the uses. */
	bp_frag_cache_slot_t cache[BP_FRAG_CACHE_SLOTS];
	size_t cache_slots;
	uint64_t clock;
	uint8_t *scratch;
} bp_packer_t;

/* tail_memory: bytes for the index of distinct tails (bp_tail_index_t)
 * and the buffer of raw tails (block_processor_desc_t); 0: no limit. */
void bp_packer_init(bp_packer_t *pk, uint32_t block_size, sqfs_file_t *file,
		    sqfs_compressor_t *cmp, bp_frag_table_t *ftable,
		    const bp_block_sink_t *sink, size_t tail_memory);

/* A new tail_memory (bp_packer_init; not from or to 0). */
void bp_packer_set_tail_memory(bp_packer_t *pk, size_t tail_memory);

/* Frees what the packer owns; an open fragment block goes back to the
 * sink. */
void bp_packer_cleanup(bp_packer_t *pk);

/* Deduplicate a hashed tail or pack it into the open fragment block,
 * submitting the block when it is full; sets the tail's fd fragment index
 * and offset. Does not take ownership. */
int bp_packer_add(bp_packer_t *pk, const bp_block_t *tail);

/* Submit the open fragment block, if it holds anything. */
int bp_packer_flush(bp_packer_t *pk);

/*
 * Offer a tail that is already in the output (size bytes at offset in
 * written fragment block number block) to later tails: its block is read
 * back and decoded (and cached), the tail hashed with fn
 * and recorded, once however many files share it. SQFS_ERROR_CORRUPTED
 * if the block does not decode or the tail lies outside it.
 */
int bp_packer_adopt_tail(bp_packer_t *pk, uint32_t block, uint32_t offset,
			 uint32_t size, bp_hash_fn_t fn);

/* ---- the back ends: serial.c, pool.c ------------------------------------- */

typedef struct {
	/* A free block structure with its buffers (the front end fills it),
	 * with an out buffer for a fragment block. May wait for blocks in
	 * flight to be written. */
	int (*get_block)(block_processor_t *bp, bool fragment,
			 bp_block_t **out);
	/* A free FILE_END marker (no buffers). */
	int (*get_marker)(block_processor_t *bp, bp_block_t **out);
	/* Process blk and hand it to the writer in submission order. Takes
	 * ownership of blk, also on failure. */
	int (*submit)(block_processor_t *bp, bp_block_t *blk);
	/* Wait until everything submitted has been written. */
	int (*sync)(block_processor_t *bp);
	/* Free the back end's own state (blocks are freed by the caller). */
	void (*destroy)(block_processor_t *bp);
} bp_backend_t;

/* Make the serial back end bp's back end. */
int bp_serial_init(block_processor_t *bp);

#ifdef WITH_PTHREAD
/* Start num_workers threads and make the pool bp's back end. */
int bp_pool_init(block_processor_t *bp);
#endif

/* ---- frontend.c ---------------------------------------------------------- */

typedef enum {
	BP_STATE_IDLE,
	BP_STATE_FILE_OPEN,
	BP_STATE_FINISHED,
	BP_STATE_TABLE_WRITTEN,
	/* After an error: everything fails with SQFS_ERROR_SEQUENCE. */
	BP_STATE_BROKEN,
} bp_state_t;

struct block_processor {
	block_processor_desc_t desc;
	const bp_backend_t *ops;
	void *backend;
	bp_state_t state;
	/* Counts files and bytes_in. */
	block_stats_t stats;

	bp_proc_t proc;
	bp_block_pool_t blocks;
	bp_frag_table_t ftable;
	bp_writer_t writer;
	bp_packer_t packer;

	/* Sequence numbers given so far (for the back ends). */
	uint64_t next_proc_seq;

	/* The open file. */
	struct {
		file_data_t *fd;
		unsigned int flags;
		/* Entries allocated in fd->block_sizes. */
		uint32_t capacity;
		/* The block being filled, or NULL. */
		bp_block_t *blk;
	} in;
};

#endif /* SQFS_BLOCK_PROCESSOR_PARTS_H */
