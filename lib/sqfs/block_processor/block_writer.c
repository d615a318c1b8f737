/* SPDX-License-Identifier: MIT */
/*
 * block_writer.c - writes processed blocks in I/O order and deduplicates
 * whole files.
 *
 * Every stored data block gets an index entry (position, size word, hash).
 * When a file ends, its run of entries is looked up: a hash map takes the
 * key of the first block's (size word, hash) to the latest entry with that
 * key, and each entry links to the previous one with the same key. A
 * candidate run must lie before the file's own blocks, match every (size
 * word, hash) pair and be contiguous on disk (fragment blocks, padding and
 * files that were not recorded break runs); then both runs are read back
 * and compared byte for byte. Equal stored bytes mean equal data, since
 * decompression is a function. The file's entries join the map only if it
 * was not a duplicate, so a run never overlaps the file itself.
 */
#include "config.h"

#include "sqfs/block_processor/internal.h"
#include "sqfs/error.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

static uint64_t block_key(const bp_index_entry_t *e)
{
	return bp_dedup_key(e->hash, e->size_word);
}

void bp_writer_cleanup(sqfs_block_processor_t *bp)
{
	free(bp->wr.buf_a);
	free(bp->wr.buf_b);
	bp->wr.buf_a = NULL;
	bp->wr.buf_b = NULL;
	array_cleanup(&bp->index);
	hash_table_cleanup(&bp->index_map);
}

/* Note which file the writer is on; a block of another file before the
 * current one's end marker means a back end broke the I/O order. */
static int writer_file(sqfs_block_processor_t *bp, const bp_block_t *blk)
{
	if (blk->fd == NULL)
		return SQFS_ERROR_INTERNAL;
	if (bp->wr.fd == NULL) {
		bp->wr.fd = blk->fd;
		bp->wr.flags = blk->flags;
		bp->wr.stored_any = false;
		bp->wr.stored_bytes = 0;
		bp->wr.first_entry = bp->index.count;
	} else if (bp->wr.fd != blk->fd) {
		return SQFS_ERROR_INTERNAL;
	}
	return 0;
}

static bool writer_dedup(const sqfs_block_processor_t *bp)
{
	return !(bp->wr.flags & SQFS_BLK_DONT_DEDUPLICATE);
}

static int index_append(sqfs_block_processor_t *bp, uint64_t pos,
			const bp_block_t *blk)
{
	bp_index_entry_t *e;
	int ret;

	/* entries are linked by u32 numbers; past that, stop recording
	 * (dedup is lost for later files, nothing else) */
	if (bp->index.count >= BP_NONE - 1) {
		bp->wr.flags |= SQFS_BLK_DONT_DEDUPLICATE;
		bp->index.count = bp->wr.first_entry;
		return 0;
	}

	ret = array_reserve(&bp->index, sizeof(*e), 1);
	if (ret != 0)
		return ret;

	e = bp_index(bp) + bp->index.count++;
	e->pos = pos;
	e->hash = blk->hash;
	e->size_word = blk->size_word;
	e->prev = BP_NONE;
	return 0;
}

static int write_file_block(sqfs_block_processor_t *bp, bp_block_t *blk)
{
	sqfs_file_t *file = bp->desc.file;
	sqfs_file_data_t *fd;
	uint32_t len;
	uint64_t pos;
	int ret;

	ret = writer_file(bp, blk);
	if (ret != 0)
		return ret;
	fd = blk->fd;
	if (blk->index >= fd->block_count)
		return SQFS_ERROR_INTERNAL;

	if (blk->kind == BP_BLOCK_SPARSE || blk->size_word == 0) {
		fd->block_sizes[blk->index] = 0;
		fd->sparse_bytes += blk->size;
		bp->stats.sparse_blocks += 1;
		return 0;
	}

	len = blk->size_word & BP_SIZE_MASK;
	if (len == 0 || len > bp->desc.block_size)
		return SQFS_ERROR_INTERNAL;

	pos = file->get_size(file);
	if (!bp->wr.stored_any) {
		bp->wr.cut_pos = pos;
		if (bp->wr.flags & SQFS_BLK_ALIGN) {
			uint64_t rem = pos % bp->desc.devblk_size;

			if (rem != 0) {
				uint64_t pad = bp->desc.devblk_size - rem;

				if (pos > UINT64_MAX - pad)
					return SQFS_ERROR_OVERFLOW;
				ret = file->truncate(file, pos + pad);
				if (ret != 0)
					return ret;
				pos += pad;
			}
		}
		fd->blocks_start = pos;
		bp->wr.first_entry = bp->index.count;
		bp->wr.stored_any = true;
	}

	ret = file->write_at(file, pos, blk->stored, len);
	if (ret != 0)
		return ret;

	fd->block_sizes[blk->index] = blk->size_word;
	bp->stats.data_blocks += 1;
	bp->stats.bytes_written += len;
	bp->wr.stored_bytes += len;

	if (writer_dedup(bp))
		return index_append(bp, pos, blk);
	return 0;
}

/* Whether the n entries at c carry the same size words and hashes as the
 * file's and lie back to back on disk. */
static bool run_matches(const sqfs_block_processor_t *bp, size_t c, size_t n)
{
	const bp_index_entry_t *cand = bp_index(bp) + c;
	const bp_index_entry_t *own = bp_index(bp) + bp->wr.first_entry;
	size_t k;

	if ((bp->wr.flags & SQFS_BLK_ALIGN) &&
	    cand[0].pos % bp->desc.devblk_size != 0)
		return false;

	for (k = 0; k < n; ++k) {
		if (cand[k].size_word != own[k].size_word ||
		    cand[k].hash != own[k].hash)
			return false;
		if (k > 0 &&
		    cand[k].pos != cand[k - 1].pos +
				       (cand[k - 1].size_word & BP_SIZE_MASK))
			return false;
	}
	return true;
}

/* Compare size bytes on disk at a and b. Returns 1 if equal, 0 if not. */
static int same_bytes(sqfs_block_processor_t *bp, uint64_t a, uint64_t b,
		      uint64_t size)
{
	sqfs_file_t *file = bp->desc.file;
	size_t chunk;
	int ret;

	if (bp->wr.buf_a == NULL) {
		bp->wr.buf_a = malloc(bp->desc.block_size);
		if (bp->wr.buf_a == NULL)
			return SQFS_ERROR_ALLOC;
	}
	if (bp->wr.buf_b == NULL) {
		bp->wr.buf_b = malloc(bp->desc.block_size);
		if (bp->wr.buf_b == NULL)
			return SQFS_ERROR_ALLOC;
	}

	while (size > 0) {
		chunk = bp->desc.block_size;
		if (chunk > size)
			chunk = (size_t)size;

		ret = file->read_at(file, a, bp->wr.buf_a, chunk);
		if (ret != 0)
			return ret;
		ret = file->read_at(file, b, bp->wr.buf_b, chunk);
		if (ret != 0)
			return ret;
		if (memcmp(bp->wr.buf_a, bp->wr.buf_b, chunk) != 0)
			return 0;

		a += chunk;
		b += chunk;
		size -= chunk;
	}
	return 1;
}

/* Look for an earlier run equal to the file's: *out receives the entry
 * starting it, or BP_NONE. */
static int find_duplicate(sqfs_block_processor_t *bp, size_t *out)
{
	size_t first = bp->wr.first_entry;
	size_t n = bp->index.count - first;
	unsigned int tried = 0;
	uint64_t c;
	int ret;

	*out = BP_NONE;
	if (!hash_table_get(&bp->index_map, block_key(bp_index(bp) + first),
			    &c))
		return 0;

	/* The chain runs backwards. Entries too late for a run of n (fewer
	 * than n of them) are skipped without counting as a try. */
	for (; c != BP_NONE; c = bp_index(bp)[c].prev) {
		if (c >= first)
			return SQFS_ERROR_INTERNAL;
		if (c + n > first)
			continue;
		if (tried++ == BP_MAX_CANDIDATES)
			break;
		if (!run_matches(bp, (size_t)c, n))
			continue;

		ret = same_bytes(bp, bp_index(bp)[c].pos,
				 bp_index(bp)[first].pos, bp->wr.stored_bytes);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			*out = (size_t)c;
			return 0;
		}
	}
	return 0;
}

static int record_run(sqfs_block_processor_t *bp)
{
	size_t i;
	uint64_t prev;
	int ret;

	for (i = bp->wr.first_entry; i < bp->index.count; ++i) {
		uint64_t key = block_key(bp_index(bp) + i);

		if (hash_table_get(&bp->index_map, key, &prev))
			bp_index(bp)[i].prev = (uint32_t)prev;
		ret = hash_table_put(&bp->index_map, key, i);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int finish_file(sqfs_block_processor_t *bp, const bp_block_t *blk)
{
	sqfs_file_t *file = bp->desc.file;
	sqfs_file_data_t *fd = blk->fd;
	size_t match, n;
	int ret;

	ret = writer_file(bp, blk);
	if (ret != 0)
		return ret;

	n = bp->index.count - bp->wr.first_entry;
	if (bp->wr.stored_any && writer_dedup(bp) && n > 0) {
		ret = find_duplicate(bp, &match);
		if (ret != 0)
			return ret;

		if (match != BP_NONE) {
			ret = file->truncate(file, bp->wr.cut_pos);
			if (ret != 0)
				return ret;
			fd->blocks_start = bp_index(bp)[match].pos;
			bp->index.count = bp->wr.first_entry;
			bp->stats.duplicate_blocks += n;
			bp->stats.data_blocks -= n;
			bp->stats.bytes_written -= bp->wr.stored_bytes;
		} else {
			ret = record_run(bp);
			if (ret != 0)
				return ret;
		}
	}

	bp->wr.fd = NULL;
	return 0;
}

static int write_fragment_block(sqfs_block_processor_t *bp, bp_block_t *blk)
{
	sqfs_file_t *file = bp->desc.file;
	uint32_t len = blk->size_word & BP_SIZE_MASK;
	uint64_t pos;
	int ret;

	/* inside a file's run it would split the file's blocks */
	if (bp->wr.fd != NULL || blk->index >= bp->frag.table.count)
		return SQFS_ERROR_INTERNAL;
	if (len == 0 || len > bp->desc.block_size)
		return SQFS_ERROR_INTERNAL;

	pos = file->get_size(file);
	ret = file->write_at(file, pos, blk->stored, len);
	if (ret != 0)
		return ret;

	bp_frag_table(bp)[blk->index].start = pos;
	bp_frag_table(bp)[blk->index].size_word = blk->size_word;
	bp->stats.fragment_blocks += 1;
	bp->stats.bytes_written += len;
	return 0;
}

int bp_write_block(sqfs_block_processor_t *bp, bp_block_t *blk)
{
	switch (blk->kind) {
	case BP_BLOCK_DATA:
	case BP_BLOCK_SPARSE:
		return write_file_block(bp, blk);
	case BP_BLOCK_FILE_END:
		return finish_file(bp, blk);
	case BP_BLOCK_FRAGMENTS:
		return write_fragment_block(bp, blk);
	case BP_BLOCK_TAIL:
		break;
	}
	return SQFS_ERROR_INTERNAL;
}
