/* SPDX-License-Identifier: MIT */
/*
 * block_writer.c - writes processed blocks in submission order and deduplicates
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

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

static uint64_t block_key(const bp_index_entry_t *e)
{
	return bp_dedup_key(e->hash, e->size_word);
}

static bp_index_entry_t *index_at(const bp_writer_t *wr, size_t i)
{
	return (bp_index_entry_t *)wr->index.data + i;
}

void bp_writer_init(bp_writer_t *wr, sqfs_file_t *file, uint32_t block_size,
		    uint32_t devblk_size, bp_frag_table_t *ftable)
{
	memset(wr, 0, sizeof(*wr));
	wr->file = file;
	wr->block_size = block_size;
	wr->devblk_size = devblk_size;
	wr->ftable = ftable;
	hash_table_init(&wr->index_map);
}

void bp_writer_cleanup(bp_writer_t *wr)
{
	free(wr->buf_a);
	free(wr->buf_b);
	wr->buf_a = NULL;
	wr->buf_b = NULL;
	array_cleanup(&wr->index);
	hash_table_cleanup(&wr->index_map);
}

/* Note which file the writer is on; a block of another file before the
 * current one's end marker means a back end broke the order of writing. */
static int writer_file(bp_writer_t *wr, const bp_block_t *blk)
{
	if (blk->fd == NULL)
		return SQFS_ERROR_INTERNAL;
	if (wr->fd == NULL) {
		wr->fd = blk->fd;
		wr->flags = blk->flags;
		wr->stored_any = false;
		wr->stored_bytes = 0;
		wr->first_entry = wr->index.count;
	} else if (wr->fd != blk->fd) {
		return SQFS_ERROR_INTERNAL;
	}
	return 0;
}

static bool writer_dedup(const bp_writer_t *wr)
{
	return !(wr->flags & BP_FILE_DONT_DEDUPLICATE);
}

static int index_append(bp_writer_t *wr, uint64_t pos, const bp_block_t *blk)
{
	bp_index_entry_t *e;
	int ret;

	/* entries are linked by u32 numbers; past that, stop recording
	 * (dedup is lost for later files, nothing else) */
	if (wr->index.count >= BP_NONE - 1) {
		wr->flags |= BP_FILE_DONT_DEDUPLICATE;
		wr->index.count = wr->first_entry;
		return 0;
	}

	ret = array_reserve(&wr->index, sizeof(*e), 1);
	if (ret != 0)
		return ret;

	e = index_at(wr, wr->index.count++);
	e->pos = pos;
	e->hash = blk->hash;
	e->size_word = blk->size_word;
	e->prev = BP_NONE;
	return 0;
}

static int write_file_block(bp_writer_t *wr, const bp_block_t *blk)
{
	sqfs_file_t *file = wr->file;
	file_data_t *fd;
	uint32_t len;
	uint64_t pos;
	int ret;

	ret = writer_file(wr, blk);
	if (ret != 0)
		return ret;
	fd = blk->fd;
	if (blk->index >= fd->block_count)
		return SQFS_ERROR_INTERNAL;

	if (blk->kind == BP_BLOCK_SPARSE || blk->size_word == 0) {
		fd->block_sizes[blk->index] = 0;
		fd->sparse_bytes += blk->size;
		wr->stats.sparse_blocks += 1;
		return 0;
	}

	len = blk->size_word & SQFS_SIZE_WORD_LENGTH;
	if (len == 0 || len > wr->block_size)
		return SQFS_ERROR_INTERNAL;

	pos = file->get_size(file);
	if (!wr->stored_any) {
		wr->cut_pos = pos;
		if (wr->flags & BP_FILE_ALIGN) {
			uint64_t rem = pos % wr->devblk_size;

			if (rem != 0) {
				uint64_t pad = wr->devblk_size - rem;

				if (pos > UINT64_MAX - pad)
					return SQFS_ERROR_OVERFLOW;
				ret = file->truncate(file, pos + pad);
				if (ret != 0)
					return ret;
				pos += pad;
			}
		}
		fd->blocks_start = pos;
		wr->first_entry = wr->index.count;
		wr->stored_any = true;
	}

	ret = file->write_at(file, pos, blk->stored, len);
	if (ret != 0)
		return ret;

	fd->block_sizes[blk->index] = blk->size_word;
	wr->stats.data_blocks += 1;
	wr->stats.bytes_written += len;
	wr->stored_bytes += len;

	if (writer_dedup(wr))
		return index_append(wr, pos, blk);
	return 0;
}

/* Whether the n entries at c carry the same size words and hashes as the
 * file's and lie back to back on disk. */
static bool run_matches(const bp_writer_t *wr, size_t c, size_t n)
{
	const bp_index_entry_t *cand = index_at(wr, c);
	const bp_index_entry_t *own = index_at(wr, wr->first_entry);
	size_t k;

	if ((wr->flags & BP_FILE_ALIGN) && cand[0].pos % wr->devblk_size != 0)
		return false;

	for (k = 0; k < n; ++k) {
		if (cand[k].size_word != own[k].size_word ||
		    cand[k].hash != own[k].hash)
			return false;
		if (k > 0 &&
		    cand[k].pos != cand[k - 1].pos + (cand[k - 1].size_word &
						      SQFS_SIZE_WORD_LENGTH))
			return false;
	}
	return true;
}

/* Compare size bytes on disk at a and b. Returns 1 if equal, 0 if not. */
static int same_bytes(bp_writer_t *wr, uint64_t a, uint64_t b, uint64_t size)
{
	sqfs_file_t *file = wr->file;
	size_t chunk;
	int ret;

	if (wr->buf_a == NULL) {
		wr->buf_a = malloc(wr->block_size);
		if (wr->buf_a == NULL)
			return SQFS_ERROR_ALLOC;
	}
	if (wr->buf_b == NULL) {
		wr->buf_b = malloc(wr->block_size);
		if (wr->buf_b == NULL)
			return SQFS_ERROR_ALLOC;
	}

	while (size > 0) {
		chunk = wr->block_size;
		if (chunk > size)
			chunk = (size_t)size;

		ret = file->read_at(file, a, wr->buf_a, chunk);
		if (ret != 0)
			return ret;
		ret = file->read_at(file, b, wr->buf_b, chunk);
		if (ret != 0)
			return ret;
		if (memcmp(wr->buf_a, wr->buf_b, chunk) != 0)
			return 0;

		a += chunk;
		b += chunk;
		size -= chunk;
	}
	return 1;
}

/* Look for an earlier run equal to the file's: *out receives the entry
 * starting it, or BP_NONE. */
static int find_duplicate(bp_writer_t *wr, size_t *out)
{
	size_t first = wr->first_entry;
	size_t n = wr->index.count - first;
	unsigned int tried = 0;
	uint64_t c;
	int ret;

	*out = BP_NONE;
	if (!hash_table_get(&wr->index_map, block_key(index_at(wr, first)), &c))
		return 0;

	/* The chain runs backwards. Entries too late for a run of n (fewer
	 * than n of them) are skipped without counting as a try. */
	for (; c != BP_NONE; c = index_at(wr, c)->prev) {
		if (c >= first)
			return SQFS_ERROR_INTERNAL;
		if (c + n > first)
			continue;
		if (tried++ == BP_MAX_CANDIDATES)
			break;
		if (!run_matches(wr, (size_t)c, n))
			continue;

		ret = same_bytes(wr, index_at(wr, c)->pos,
				 index_at(wr, first)->pos, wr->stored_bytes);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			*out = (size_t)c;
			return 0;
		}
	}
	return 0;
}

static int record_run(bp_writer_t *wr)
{
	size_t i;
	uint64_t prev;
	int ret;

	for (i = wr->first_entry; i < wr->index.count; ++i) {
		uint64_t key = block_key(index_at(wr, i));

		if (hash_table_get(&wr->index_map, key, &prev))
			index_at(wr, i)->prev = (uint32_t)prev;
		ret = hash_table_put(&wr->index_map, key, i);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int bp_writer_adopt_run(bp_writer_t *wr, const file_data_t *fd, bp_hash_fn_t fn)
{
	uint64_t pos = fd->blocks_start;
	bp_block_t blk;
	int ret;

	if (wr->fd != NULL)
		return SQFS_ERROR_INTERNAL;
	if (wr->buf_a == NULL) {
		wr->buf_a = malloc(wr->block_size);
		if (wr->buf_a == NULL)
			return SQFS_ERROR_ALLOC;
	}

	/* the run's entries, as write_file_block makes them for a file
	 * just written: sparse blocks take none and do not break the run */
	wr->flags = 0;
	wr->first_entry = wr->index.count;
	memset(&blk, 0, sizeof(blk));
	for (uint32_t i = 0; i < fd->block_count; ++i) {
		uint32_t len = fd->block_sizes[i] & SQFS_SIZE_WORD_LENGTH;

		if (fd->block_sizes[i] == 0)
			continue;
		if (len == 0 || len > wr->block_size)
			return SQFS_ERROR_CORRUPTED;
		ret = wr->file->read_at(wr->file, pos, wr->buf_a, len);
		if (ret != 0)
			return ret;
		blk.size_word = fd->block_sizes[i];
		blk.hash = fn(wr->buf_a, len);
		ret = index_append(wr, pos, &blk);
		if (ret != 0)
			return ret;
		/* index_append stopped recording: the index is full */
		if (wr->flags & BP_FILE_DONT_DEDUPLICATE)
			break;
		pos += len;
	}
	ret = 0;
	if (!(wr->flags & BP_FILE_DONT_DEDUPLICATE))
		ret = record_run(wr);
	wr->flags = 0;
	return ret;
}

static int finish_file(bp_writer_t *wr, const bp_block_t *blk)
{
	sqfs_file_t *file = wr->file;
	file_data_t *fd = blk->fd;
	size_t match, n;
	int ret;

	ret = writer_file(wr, blk);
	if (ret != 0)
		return ret;

	n = wr->index.count - wr->first_entry;
	if (wr->stored_any && writer_dedup(wr) && n > 0) {
		ret = find_duplicate(wr, &match);
		if (ret != 0)
			return ret;

		if (match != BP_NONE) {
			ret = file->truncate(file, wr->cut_pos);
			if (ret != 0)
				return ret;
			fd->blocks_start = index_at(wr, match)->pos;
			wr->index.count = wr->first_entry;
			wr->stats.duplicate_blocks += n;
			wr->stats.data_blocks -= n;
			wr->stats.bytes_written -= wr->stored_bytes;
		} else {
			ret = record_run(wr);
			if (ret != 0)
				return ret;
		}
	}

	wr->fd = NULL;
	wr->files_written += 1;
	return 0;
}

static int write_fragment_block(bp_writer_t *wr, const bp_block_t *blk)
{
	sqfs_file_t *file = wr->file;
	uint32_t len = blk->size_word & SQFS_SIZE_WORD_LENGTH;
	uint64_t pos;
	int ret;

	/* inside a file's run it would split the file's blocks */
	if (wr->fd != NULL || bp_frag_table_get(wr->ftable, blk->index) == NULL)
		return SQFS_ERROR_INTERNAL;
	if (len == 0 || len > wr->block_size)
		return SQFS_ERROR_INTERNAL;

	pos = file->get_size(file);
	ret = file->write_at(file, pos, blk->stored, len);
	if (ret != 0)
		return ret;

	ret = bp_frag_table_set(wr->ftable, blk->index, pos, blk->size_word);
	if (ret != 0)
		return ret;
	wr->stats.fragment_blocks += 1;
	wr->stats.bytes_written += len;
	return 0;
}

int bp_writer_write(bp_writer_t *wr, const bp_block_t *blk)
{
	switch (blk->kind) {
	case BP_BLOCK_DATA:
	case BP_BLOCK_SPARSE:
		return write_file_block(wr, blk);
	case BP_BLOCK_FILE_END:
		return finish_file(wr, blk);
	case BP_BLOCK_FRAGMENTS:
		return write_fragment_block(wr, blk);
	case BP_BLOCK_TAIL:
		break;
	}
	return SQFS_ERROR_INTERNAL;
}
