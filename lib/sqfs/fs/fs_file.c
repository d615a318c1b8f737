/* SPDX-License-Identifier: MIT */
/*
 * fs_file.c - regular files of the file system: handles, the read path
 * and the trigger of read-ahead.
 *
 * A handle decodes its inode once: the block list with the offset of
 * every block (so reading block i needs no summing), the tail's fragment
 * entry, checked. A read of a cached block is then a hash lookup and a
 * copy; a miss decodes the block into the shared data cache with a
 * context taken for it alone. The checks are those of the data reader
 * (data_internal.h), with its words.
 */
#include "fs_internal.h"
#include "data_internal.h"

#include <stdlib.h>
#include <string.h>

/* next_block before the first read: no block index (a file has fewer
 * than UINT32_MAX - 2 blocks, so no index of a block or the tail is
 * NO_READ_YET or one less). */
#define NO_READ_YET UINT32_MAX

/* ---- decoding a block ---------------------------------------------------- */

int fs_load_data_block(sqfs_fs_t *fs, fs_ctx_t *ctx, cache_block_t *blk)
{
	uint32_t word = (uint32_t)blk->aux;
	size_t len = word & SQFS_SIZE_WORD_LENGTH;
	ptrdiff_t ret;
	int err;

	if (word & SQFS_SIZE_WORD_RAW) {
		err = fs->file->read_at(fs->file, blk->pos, blk->data, len);
		if (err != 0)
			return err;
		blk->len = len;
		return 0;
	}
	err = fs->file->read_at(fs->file, blk->pos, ctx->packed, len);
	if (err != 0)
		return err;
	ret = data_uncompress(image_compressor(ctx->img), ctx->packed, len,
			      blk->data, fs->block_size);
	if (ret < 0)
		return (int)ret;
	blk->len = (size_t)ret;
	return 0;
}

typedef struct {
	sqfs_fs_t *fs;
	fs_ctx_t *ctx;
} reader_load_t;

/* A reader's miss: take a context for the decode only. */
static int reader_load(void *user, cache_block_t *blk)
{
	reader_load_t *rl = user;
	int ret;

	if (rl->ctx == NULL) {
		rl->ctx = fs_ctx_get(rl->fs);
		if (rl->ctx == NULL)
			return SQFS_ERROR_ALLOC;
	}
	ret = fs_load_data_block(rl->fs, rl->ctx, blk);
	return ret;
}

/* ---- handles ------------------------------------------------------------- */

int sqfs_fs_file_open(sqfs_fs_t *fs, uint64_t id, sqfs_fs_file_t **out,
		      char *why)
{
	sqfs_fs_file_t *f = NULL;
	sqfs_inode_t *inode;
	const char *bad;
	data_file_t fi;
	fs_ctx_t *ctx = NULL;
	uint64_t off = 0, node = id, ref;
	uint32_t i, ino;
	int ret;

	if (fs == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	/* kept handles are known by node id: a number's is looked up */
	if (!fs_id_is_node(id)) {
		ctx = fs_ctx_get(fs);
		if (ctx == NULL)
			return SQFS_ERROR_ALLOC;
		ret = fs_locate(fs, ctx, id, &ref);
		if (ret != 0)
			return fs_ctx_done(fs, ctx, ret, why);
		node = fs_node_of(ref);
	}
	*out = fs_handle_find(fs, node);
	if (*out != NULL) {
		if (ctx != NULL)
			fs_ctx_put(fs, ctx);
		return 0;
	}
	if (ctx == NULL)
		ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, id, &inode, NULL);
	if (ret != 0)
		return fs_ctx_done(fs, ctx, ret, why);
	ino = inode->inode_number;

	if (sqfs_inode_type_basic(inode->type) != SQFS_INODE_FILE) {
		ret = errtext_set(fs_err(ctx), SQFS_ERROR_NOT_FILE,
				  "inode %u: not a regular file", ino);
		goto fail;
	}
	bad = data_file_info(fs->block_size, inode, &fi);
	if (bad == NULL && fi.count > UINT32_MAX - 2)
		bad = "the block list is too long";
	if (bad != NULL) {
		ret = errtext_set(fs_err(ctx), SQFS_ERROR_CORRUPTED,
				  "inode %u: %s", ino, bad);
		goto fail;
	}

	f = calloc(1, sizeof(*f));
	if (f == NULL ||
	    (f->offsets = malloc((fi.count + 1) * sizeof(uint64_t))) == NULL) {
		ret = errtext_set(fs_err(ctx), SQFS_ERROR_ALLOC,
				  "inode %u: out of memory", ino);
		goto fail;
	}
	f->fs = fs;
	f->inode = inode;
	f->ino = ino;
	f->node = node;
	f->size = inode->data.file.file_size;
	f->count = (uint32_t)fi.count;
	f->tail = (uint32_t)fi.tail;
	f->bad_from = f->count;
	for (i = 0; i < f->count; ++i) {
		f->offsets[i] = off;
		if (data_check_word(fs->block_size, fi.words[i]) != NULL) {
			f->bad_from = i;
			break;
		}
		off += fi.words[i] & SQFS_SIZE_WORD_LENGTH;
	}
	if (f->tail > 0) {
		if (sqfs_image_get_fragment(ctx->img,
					    inode->data.file.fragment_index,
					    &f->frag) != 0) {
			f->frag_why = DATA_NO_FRAGMENT;
			f->frag_code = SQFS_ERROR_OUT_OF_BOUNDS;
		} else {
			f->frag_why =
			    data_check_fragment(fs->block_size, fs->data_start,
						fs->data_end, &f->frag);
			f->frag_code = SQFS_ERROR_CORRUPTED;
		}
	}
	/* no read yet: the first read alone is no sign of a sequential
	 * reader (a program that reads a file's head only) */
	atomic_init(&f->next_block, NO_READ_YET);
	atomic_init(&f->ra_until, 0);
	atomic_init(&f->refs, 1);
	fs_ctx_put(fs, ctx);
	*out = fs_handle_keep(fs, f);
	if (*out != f)
		sqfs_fs_file_close(f);
	return 0;
fail:
	if (f != NULL)
		free(f->offsets);
	free(f);
	free(inode);
	return fs_ctx_done(fs, ctx, ret, why);
}

void sqfs_fs_file_close(sqfs_fs_file_t *file)
{
	if (file == NULL || atomic_fetch_sub_explicit(
				&file->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(file->offsets);
	free(file->inode);
	free(file);
}

uint64_t sqfs_fs_file_size(const sqfs_fs_file_t *file)
{
	return file->size;
}

/* ---- reading ------------------------------------------------------------- */

static const uint32_t *words_of(const sqfs_fs_file_t *f)
{
	return (const uint32_t *)(const void *)f->inode->payload;
}

/* Where listed block index is stored, checked; NULL words: fine. */
static const char *block_place(const sqfs_fs_file_t *f, uint32_t index,
			       uint64_t *pos)
{
	const sqfs_fs_t *fs = f->fs;
	uint32_t word = words_of(f)[index];
	uint64_t off;

	if (index > f->bad_from)
		return "the size word of an earlier block is invalid";
	if (index == f->bad_from)
		return "its size word is invalid";
	/* a sparse block is stored nowhere (an all-sparse file may say its
	 * blocks start anywhere), as the data reader has it */
	if (word == 0)
		return NULL;
	off = f->offsets[index];
	if (off > UINT64_MAX - f->inode->data.file.blocks_start)
		return "block list runs past the data";
	*pos = f->inode->data.file.blocks_start + off;
	return data_check_place(fs->data_start, fs->data_end, *pos,
				word & SQFS_SIZE_WORD_LENGTH);
}

/* Queue the blocks from start on (the tail's fragment block counting as
 * block count) for the read-ahead workers, as many as read-ahead keeps
 * ahead, skipping those queued for this handle before. */
static void read_ahead(sqfs_fs_file_t *f, uint32_t start)
{
	sqfs_fs_t *fs = f->fs;
	prefetch_job_t jobs[64];
	uint32_t from, until, i, n = 0;
	uint64_t pos;
	uint32_t word;

	until = start + (fs->read_ahead < 64 ? fs->read_ahead : 64);
	if (until > f->count + (f->tail > 0 ? 1u : 0u))
		until = f->count + (f->tail > 0 ? 1u : 0u);
	from = (uint32_t)atomic_load(&f->ra_until);
	if (from < start)
		from = start;
	if (from >= until)
		return;
	atomic_store(&f->ra_until, until);

	/* A block already in the cache gets no job: it would only wake a
	 * worker to find it there. That is most tails of small files read
	 * in a row (their fragment block is the one before); skipping them
	 * cuts the context switches of a walk that reads every file. */
	for (i = from; i < until && n < 64; ++i) {
		if (i == f->count) {
			if (f->frag_why != NULL)
				break;
			if (block_cache_has(fs->data, f->frag.start,
					    f->frag.size))
				break;
			jobs[n].pos = f->frag.start;
			jobs[n].word = f->frag.size;
			jobs[n].expect = 0;
			n++;
			break;
		}
		word = words_of(f)[i];
		if (word == 0)
			continue;
		if (block_place(f, i, &pos) != NULL)
			break;
		if (block_cache_has(fs->data, pos, word))
			continue;
		jobs[n].pos = pos;
		jobs[n].word = word;
		jobs[n].expect = 0;
		n++;
	}
	if (n > 0)
		prefetch_queue(fs->prefetch, jobs, n);
}

static void note_use(sqfs_fs_t *fs, cache_block_t *blk)
{
	if (atomic_load_explicit(&blk->ahead, memory_order_relaxed) &&
	    atomic_exchange(&blk->ahead, false))
		atomic_fetch_add(&fs->ra_used, 1);
}

ptrdiff_t sqfs_fs_file_read(sqfs_fs_file_t *f, uint64_t offset, void *buf,
			    size_t size, char *why)
{
	sqfs_fs_t *fs;
	reader_load_t rl;
	cache_block_t *blk;
	errtext_t err;
	const char *bad = NULL;
	uint32_t index = 0, first, prev;
	size_t done = 0, skip, n, expect;
	uint64_t pos = 0;
	int ret = 0;

	if (f == NULL || (buf == NULL && size > 0))
		return SQFS_ERROR_ARG_INVALID;
	fs = f->fs;
	if (offset >= f->size || size == 0)
		return 0;
	if (size > f->size - offset)
		size = (size_t)(f->size - offset);
	if (size > PTRDIFF_MAX)
		size = PTRDIFF_MAX;

	rl.fs = fs;
	rl.ctx = NULL;
	first = (uint32_t)(offset / fs->block_size);
	while (done < size) {
		index = (uint32_t)(offset / fs->block_size);
		skip = (size_t)(offset % fs->block_size);
		bad = NULL;

		if (index < f->count) {
			uint32_t word = words_of(f)[index];

			expect = (index == f->count - 1 && f->tail == 0)
				     ? (size_t)(f->size - (uint64_t)index *
							      fs->block_size)
				     : fs->block_size;
			n = expect - skip;
			if (n > size - done)
				n = size - done;
			bad = block_place(f, index, &pos);
			if (bad != NULL) {
				ret = SQFS_ERROR_CORRUPTED;
				break;
			}
			if (word == 0) {
				memset((uint8_t *)buf + done, 0, n);
			} else {
				ret = block_cache_get(fs->data, pos, word,
						      reader_load, &rl, &blk,
						      NULL);
				if (ret != 0)
					break;
				if (blk->len != expect) {
					block_cache_put(fs->data, blk);
					bad = DATA_WRONG_SIZE;
					ret = SQFS_ERROR_CORRUPTED;
					break;
				}
				note_use(fs, blk);
				memcpy((uint8_t *)buf + done, blk->data + skip,
				       n);
				block_cache_put(fs->data, blk);
			}
		} else {
			/* the tail: only past the listed blocks, and the
			 * size says there is one */
			if (f->frag_why != NULL) {
				bad = f->frag_why;
				ret = f->frag_code;
				break;
			}
			ret = block_cache_get(fs->data, f->frag.start,
					      f->frag.size, reader_load, &rl,
					      &blk, NULL);
			if (ret != 0)
				break;
			bad = data_check_tail(
			    blk->len, f->inode->data.file.fragment_offset,
			    f->tail);
			if (bad != NULL || skip >= f->tail) {
				block_cache_put(fs->data, blk);
				ret = SQFS_ERROR_CORRUPTED;
				break;
			}
			note_use(fs, blk);
			n = f->tail - skip;
			if (n > size - done)
				n = size - done;
			memcpy((uint8_t *)buf + done,
			       blk->data + f->inode->data.file.fragment_offset +
				   skip,
			       n);
			block_cache_put(fs->data, blk);
		}
		done += n;
		offset += n;
	}
	if (rl.ctx != NULL)
		fs_ctx_put(fs, rl.ctx);
	if (ret != 0) {
		errtext_begin(&err);
		data_fault(&err, ret, f->ino, index, f->count, bad);
		if (why != NULL)
			errtext_copy(&err, why);
		return ret;
	}

	/* a read that starts in the block where the last one ended, or
	 * right after it, is sequential */
	prev = (uint32_t)atomic_exchange(&f->next_block, index + 1);
	if (fs->prefetch != NULL && (first == prev || first + 1 == prev))
		read_ahead(f, index + 1);
	return (ptrdiff_t)done;
}

int sqfs_fs_prefetch(sqfs_fs_t *fs, uint64_t id, char *why)
{
	sqfs_fs_file_t *f;
	int ret;

	if (fs == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (fs->prefetch == NULL)
		return 0;
	ret = sqfs_fs_file_open(fs, id, &f, why);
	if (ret != 0)
		return ret;
	/* the handle stays among the kept ones, so the open that follows
	 * finds it, with what was queued */
	read_ahead(f, 0);
	sqfs_fs_file_close(f);
	return 0;
}

ptrdiff_t sqfs_fs_read(sqfs_fs_t *fs, uint64_t id, uint64_t offset, void *buf,
		       size_t size, char *why)
{
	sqfs_fs_file_t *f;
	ptrdiff_t ret;

	ret = sqfs_fs_file_open(fs, id, &f, why);
	if (ret != 0)
		return ret;
	ret = sqfs_fs_file_read(f, offset, buf, size, why);
	sqfs_fs_file_close(f);
	return ret;
}
