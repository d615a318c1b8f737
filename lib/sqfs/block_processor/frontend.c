/* SPDX-License-Identifier: MIT */
/*
 * frontend.c - the block processor's public functions: creation (which
 * puts the parts of internal.h together), the begin / append / end
 * interface that cuts file data into blocks and decides what a tail
 * becomes, finish, the fragment table and the statistics.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

void file_data_cleanup(file_data_t *fd)
{
	if (fd == NULL)
		return;
	free(fd->block_sizes);
	memset(fd, 0, sizeof(*fd));
}

/* Every failure leaves the processor unusable: a half-written file or a
 * lost block cannot be repaired by retrying. */
static int bp_fail(block_processor_t *bp, int err)
{
	bp->state = BP_STATE_BROKEN;
	return err;
}

static bool is_pow2(uint32_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

/* The packer's way to the back end: fragment blocks travel like data. */
static int sink_get_block(void *ctx, bp_block_t **out)
{
	block_processor_t *bp = ctx;

	return bp->ops->get_block(bp, true, out);
}

static int sink_submit(void *ctx, bp_block_t *blk)
{
	block_processor_t *bp = ctx;

	return bp->ops->submit(bp, blk);
}

static void sink_release(void *ctx, bp_block_t *blk)
{
	block_processor_t *bp = ctx;

	bp_block_release(&bp->blocks, blk);
}

static void release(block_processor_t *bp, bp_block_t *blk)
{
	bp_block_release(&bp->blocks, blk);
}

int block_processor_create(const block_processor_desc_t *desc,
			   block_processor_t **out)
{
	sqfs_compressor_config_t cfg;
	block_processor_t *bp;
	int ret;

	if (out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;
	if (desc == NULL || desc->file == NULL || desc->cmp == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (!is_pow2(desc->block_size) ||
	    desc->block_size < SQFS_MIN_BLOCK_SIZE ||
	    desc->block_size > SQFS_MAX_BLOCK_SIZE)
		return SQFS_ERROR_SUPER_BLOCK_SIZE;

	/* the compressor refuses inputs larger than its block size */
	sqfs_compressor_get_config(desc->cmp, &cfg);
	if (cfg.block_size < desc->block_size)
		return SQFS_ERROR_ARG_INVALID;

	bp = calloc(1, sizeof(*bp));
	if (bp == NULL)
		return SQFS_ERROR_ALLOC;

	bp->desc = *desc;
	if (bp->desc.devblk_size == 0)
		bp->desc.devblk_size = SQFS_DEFAULT_DEVBLK_SIZE;
	bp->state = BP_STATE_IDLE;

	bp_proc_init(&bp->proc, desc->block_size, &cfg, desc->no_probe);
	bp->proc.raw_data = desc->raw_data;
	bp->proc.raw_fragments = desc->raw_fragments;
	bp_blocks_init(&bp->blocks, desc->block_size);
	bp_frag_table_init(&bp->ftable);
	bp_writer_init(&bp->writer, desc->file, desc->block_size,
		       bp->desc.devblk_size, &bp->ftable);
	{
		const bp_block_sink_t sink = {
		    .ctx = bp,
		    .get_block = sink_get_block,
		    .submit = sink_submit,
		    .release = sink_release,
		};

		bp_packer_init(&bp->packer, desc->block_size, desc->file,
			       desc->cmp, &bp->ftable, &sink,
			       desc->tail_memory);
	}

#ifdef WITH_PTHREAD
	if (desc->num_workers > 0)
		ret = bp_pool_init(bp);
	else
#endif
		ret = bp_serial_init(bp);
	if (ret != 0) {
		block_processor_destroy(bp);
		return ret;
	}

	*out = bp;
	return 0;
}

void block_processor_destroy(block_processor_t *bp)
{
	if (bp == NULL)
		return;

	/* the workers first: they may still read blocks (no ops: the back
	 * end failed to start and has cleaned up after itself) */
	if (bp->ops != NULL)
		bp->ops->destroy(bp);
	bp_packer_cleanup(&bp->packer);
	bp_writer_cleanup(&bp->writer);
	bp_frag_table_cleanup(&bp->ftable);
	bp_blocks_cleanup(&bp->blocks);
	free(bp);
}

int block_processor_begin(block_processor_t *bp, file_data_t *fd,
			  unsigned int flags)
{
	const unsigned int known =
	    BP_FILE_DONT_FRAGMENT | BP_FILE_DONT_COMPRESS |
	    BP_FILE_DONT_DEDUPLICATE | BP_FILE_ALIGN | BP_FILE_NO_SPARSE;

	if (bp->state != BP_STATE_IDLE)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);
	if (fd == NULL || (flags & ~known) != 0)
		return bp_fail(bp, SQFS_ERROR_ARG_INVALID);

	memset(fd, 0, sizeof(*fd));
	fd->fragment_index = SQFS_NO_FRAGMENT;

	bp->in.fd = fd;
	bp->in.flags = flags;
	bp->in.capacity = 0;
	bp->in.blk = NULL;
	bp->state = BP_STATE_FILE_OPEN;
	return 0;
}

/* Give a block of the open file (data or sparse) its number and slot in
 * the file's block list, then submit it. Takes ownership of blk. */
static int submit_file_block(block_processor_t *bp, bp_block_t *blk)
{
	file_data_t *fd = bp->in.fd;

	if (fd->block_count == bp->in.capacity) {
		uint32_t cap = bp->in.capacity;
		uint32_t *sizes;

		if (cap == UINT32_MAX) {
			release(bp, blk);
			return SQFS_ERROR_OVERFLOW;
		}
		cap = cap == 0 ? 16
			       : (cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2);
		sizes = realloc(fd->block_sizes, (size_t)cap * sizeof(*sizes));
		if (sizes == NULL) {
			release(bp, blk);
			return SQFS_ERROR_ALLOC;
		}
		fd->block_sizes = sizes;
		bp->in.capacity = cap;
	}

	blk->fd = fd;
	blk->flags = bp->in.flags;
	blk->index = fd->block_count;
	fd->block_sizes[fd->block_count++] = 0;
	return bp->ops->submit(bp, blk);
}

/* The block being filled, fetched from the back end when needed. */
static int fill_block(block_processor_t *bp, bp_block_t **out)
{
	int ret;

	if (bp->in.blk == NULL) {
		ret = bp->ops->get_block(bp, false, &bp->in.blk);
		if (ret != 0)
			return ret;
		bp->in.blk->kind = BP_BLOCK_DATA;
		bp->in.blk->size = 0;
	}
	*out = bp->in.blk;
	return 0;
}

/* Submit the block being filled if it is full. */
static int submit_if_full(block_processor_t *bp)
{
	bp_block_t *blk = bp->in.blk;

	if (blk == NULL || blk->size < bp->desc.block_size)
		return 0;
	bp->in.blk = NULL;
	blk->kind = BP_BLOCK_DATA;
	return submit_file_block(bp, blk);
}

static int grow_size(block_processor_t *bp, uint64_t size)
{
	const uint32_t bs = bp->desc.block_size;
	file_data_t *fd = bp->in.fd;
	uint64_t total;

	if (size > UINT64_MAX - fd->size ||
	    size > UINT64_MAX - bp->stats.bytes_in)
		return SQFS_ERROR_OVERFLOW;
	/* refuse at once what the u32 block list cannot describe, rather
	 * than after billions of sparse blocks */
	total = fd->size + size;
	if (total / bs + (total % bs != 0) > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	fd->size = total;
	bp->stats.bytes_in += size;
	return 0;
}

int block_processor_append(block_processor_t *bp, const void *data, size_t size)
{
	const uint8_t *src = data;
	bp_block_t *blk;
	size_t n;
	int ret;

	if (bp->state != BP_STATE_FILE_OPEN)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);
	if (size == 0)
		return 0;
	if (data == NULL)
		return bp_fail(bp, SQFS_ERROR_ARG_INVALID);

	ret = grow_size(bp, size);
	if (ret != 0)
		return bp_fail(bp, ret);

	while (size > 0) {
		ret = fill_block(bp, &blk);
		if (ret != 0)
			return bp_fail(bp, ret);

		n = bp->desc.block_size - blk->size;
		if (n > size)
			n = size;
		memcpy(blk->data + blk->size, src, n);
		blk->size += (uint32_t)n;
		src += n;
		size -= n;

		ret = submit_if_full(bp);
		if (ret != 0)
			return bp_fail(bp, ret);
	}
	return 0;
}

int block_processor_append_hole(block_processor_t *bp, uint64_t size)
{
	const uint32_t bs = bp->desc.block_size;
	bp_block_t *blk;
	uint64_t n;
	int ret;

	if (bp->state != BP_STATE_FILE_OPEN)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);
	if (size == 0)
		return 0;

	ret = grow_size(bp, size);
	if (ret != 0)
		return bp_fail(bp, ret);

	/* first complete the partly filled block */
	if (bp->in.blk != NULL && bp->in.blk->size > 0) {
		blk = bp->in.blk;
		n = bs - blk->size;
		if (n > size)
			n = size;
		memset(blk->data + blk->size, 0, (size_t)n);
		blk->size += (uint32_t)n;
		size -= n;

		ret = submit_if_full(bp);
		if (ret != 0)
			return bp_fail(bp, ret);
	}

	/* whole blocks of the hole need no data at all */
	while (size >= bs) {
		if (bp->in.blk != NULL) {
			blk = bp->in.blk;
			bp->in.blk = NULL;
		} else {
			ret = bp->ops->get_block(bp, false, &blk);
			if (ret != 0)
				return bp_fail(bp, ret);
		}
		blk->size = bs;
		if (bp->in.flags & BP_FILE_NO_SPARSE) {
			blk->kind = BP_BLOCK_DATA;
			memset(blk->data, 0, bs);
		} else {
			blk->kind = BP_BLOCK_SPARSE;
		}
		ret = submit_file_block(bp, blk);
		if (ret != 0)
			return bp_fail(bp, ret);
		size -= bs;
	}

	if (size > 0) {
		ret = fill_block(bp, &blk);
		if (ret != 0)
			return bp_fail(bp, ret);
		memset(blk->data, 0, (size_t)size);
		blk->size = (uint32_t)size;
	}
	return 0;
}

static int submit_file_end(block_processor_t *bp)
{
	bp_block_t *blk;
	int ret;

	ret = bp->ops->get_marker(bp, &blk);
	if (ret != 0)
		return ret;
	blk->kind = BP_BLOCK_FILE_END;
	blk->fd = bp->in.fd;
	blk->flags = bp->in.flags;
	blk->index = bp->in.fd->block_count;
	return bp->ops->submit(bp, blk);
}

static bool may_fragment(const block_processor_t *bp)
{
	if (bp->desc.no_fragments || (bp->in.flags & BP_FILE_DONT_FRAGMENT))
		return false;
	return !(bp->desc.no_tail_packing && bp->in.fd->block_count > 0);
}

/* Decide what the tail becomes (see internal.h) and submit it together with
 * the file's end marker. Takes ownership of tail. */
static int submit_tail(block_processor_t *bp, bp_block_t *tail)
{
	int ret;

	if (!(bp->in.flags & BP_FILE_NO_SPARSE) &&
	    bp_is_zero(tail->data, tail->size)) {
		/* like mksquashfs: a zero tail is a sparse short block,
		 * never a fragment */
		tail->kind = BP_BLOCK_SPARSE;
	} else if (may_fragment(bp)) {
		/* the marker first, so the writer finishes (and perhaps cuts
		 * off) the file's blocks before the fragment block this tail
		 * may fill up is written */
		ret = submit_file_end(bp);
		if (ret != 0) {
			release(bp, tail);
			return ret;
		}
		/* packed here, on the main thread, in file order: hashing
		 * a tail costs little next to compressing, and completion
		 * then never has to feed blocks back into the pipeline */
		tail->kind = BP_BLOCK_TAIL;
		tail->fd = bp->in.fd;
		tail->flags = bp->in.flags;
		tail->hash =
		    bp_tail_hash(bp->proc.hash_fn, tail->data, tail->size);
		ret = bp_packer_add(&bp->packer, tail);
		release(bp, tail);
		return ret;
	} else {
		tail->kind = BP_BLOCK_DATA;
	}

	ret = submit_file_block(bp, tail);
	if (ret != 0)
		return ret;
	return submit_file_end(bp);
}

int block_processor_end(block_processor_t *bp)
{
	bp_block_t *blk;
	int ret;

	if (bp->state != BP_STATE_FILE_OPEN)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);

	blk = bp->in.blk;
	bp->in.blk = NULL;
	if (blk != NULL && blk->size > 0) {
		ret = submit_tail(bp, blk);
	} else {
		if (blk != NULL)
			release(bp, blk);
		ret = submit_file_end(bp);
	}
	if (ret != 0)
		return bp_fail(bp, ret);

	bp->stats.files += 1;
	bp->in.fd = NULL;
	bp->state = BP_STATE_IDLE;
	return 0;
}

size_t bp_backlog_buffers(const block_processor_desc_t *desc)
{
	size_t limit = desc->max_backlog, bytes = desc->backlog_memory;

	if (bytes == 0 || bytes > BP_MAX_BACKLOG_BYTES)
		bytes = BP_MAX_BACKLOG_BYTES;
	if (limit == 0)
		limit = BP_DEFAULT_BACKLOG * (size_t)desc->num_workers;
	if (limit > bytes / desc->block_size)
		limit = bytes / desc->block_size;
	return limit > 0 ? limit : 1;
}

size_t block_processor_fixed_memory(const block_processor_desc_t *desc)
{
	size_t workers = desc->num_workers > 0 ? desc->num_workers : 1;

	if (desc->block_size == 0)
		return 0;
	return BP_FRAG_CACHE_BYTES +
	       bp_backlog_buffers(desc) * desc->block_size +
	       workers * (2 * (size_t)desc->block_size + BP_WORKER_MEMORY);
}

void block_processor_set_tail_memory(block_processor_t *bp, size_t bytes)
{
	bp_packer_set_tail_memory(&bp->packer, bytes);
}

int block_processor_finish(block_processor_t *bp)
{
	int ret;

	if (bp->state != BP_STATE_IDLE)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);

	ret = bp_packer_flush(&bp->packer);
	if (ret == 0)
		ret = bp->ops->sync(bp);
	if (ret != 0)
		return bp_fail(bp, ret);

	/* Every block is written and no file comes any more: what dedup
	 * looks duplicates up in (the index of tails with its filters, the
	 * decoded fragment blocks, the stored blocks' index) goes now, not
	 * at destroy, for the writer's tables want the memory. Both are
	 * left empty, as cleanup leaves them. */
	bp_packer_cleanup(&bp->packer);
	bp_writer_cleanup(&bp->writer);
	bp->state = BP_STATE_FINISHED;
	return 0;
}

int block_processor_write_fragment_table(block_processor_t *bp,
					 sqfs_super_t *super)
{
	int ret;

	if (bp->state != BP_STATE_FINISHED)
		return bp_fail(bp, SQFS_ERROR_SEQUENCE);
	if (super == NULL)
		return bp_fail(bp, SQFS_ERROR_ARG_INVALID);

	/* raw fragment blocks come with a raw fragment table, as
	 * mksquashfs -noF writes them */
	ret = bp_frag_table_write(&bp->ftable, bp->desc.file,
				  bp->desc.raw_fragments ? NULL : bp->desc.cmp,
				  super);
	if (ret != 0)
		return bp_fail(bp, ret);
	bp->state = BP_STATE_TABLE_WRITTEN;
	return 0;
}

static void add_stats(block_stats_t *sum, const block_stats_t *s)
{
	sum->bytes_in += s->bytes_in;
	sum->bytes_written += s->bytes_written;
	sum->data_blocks += s->data_blocks;
	sum->fragment_blocks += s->fragment_blocks;
	sum->duplicate_blocks += s->duplicate_blocks;
	sum->duplicate_fragments += s->duplicate_fragments;
	sum->sparse_blocks += s->sparse_blocks;
	sum->files += s->files;
}

void block_processor_get_stats(const block_processor_t *bp,
			       block_stats_t *stats)
{
	memset(stats, 0, sizeof(*stats));
	add_stats(stats, &bp->stats);
	add_stats(stats, &bp->writer.stats);
	add_stats(stats, &bp->packer.stats);
}

uint64_t block_processor_files_complete(const block_processor_t *bp)
{
	/* Asked between calls: a file's end marker is written at the
	 * earliest during its end, which places the tail before returning,
	 * so a written marker means a complete record. */
	uint64_t ended = bp->stats.files;

	return bp->writer.files_written < ended ? bp->writer.files_written
						: ended;
}

const char *block_processor_spill_error(const block_processor_t *bp)
{
	if (bp->packer.why[0] != '\0')
		return bp->packer.why;
	return bp->packer.tails.why;
}
