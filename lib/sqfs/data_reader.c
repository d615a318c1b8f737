/* SPDX-License-Identifier: MIT */
/*
 * data_reader.c - random access to the contents of regular files.
 *
 * Nothing an inode claims is trusted: the block list must be exactly as
 * long as the file size implies, every stored block must lie inside the
 * data region, and every block must unpack to exactly the size its place
 * in the file implies. Blocks are unpacked into buffers of block_size
 * bytes that live as long as the reader, so a hostile size can neither
 * make the reader allocate nor write past a buffer.
 *
 * Small tails are offered to a tail cache (tail_cache_internal.h), made
 * at the first small tail read, so that duplicates of a file read long ago
 * (which share its tail) do not each unpack its fragment block again.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include "data_internal.h"
#include "image_internal.h"
#include "tail_cache_internal.h"

#include <stdlib.h>
#include <string.h>

struct sqfs_data_reader {
	data_source_t src;

	/* A stored block as read from disk, before unpacking. */
	uint8_t *packed;
	/* block_size zeros that sparse blocks point at. */
	uint8_t *zeros;

	/* The last data block unpacked, keyed by where it was stored. */
	uint8_t *block;
	size_t block_len;
	uint64_t block_pos;
	uint32_t block_word;
	bool block_valid;

	/* The last fragment block unpacked, keyed by its table index. */
	uint8_t *frag;
	size_t frag_len;
	uint32_t frag_index;
	bool frag_valid;

	/* Shared tails; made when first needed (table NULL until then). */
	tail_cache_t tails;

	/*
	 * Where block cur_index of the last file starts, relative to its
	 * blocks_start. Reading front to back moves this forward one block
	 * at a time instead of summing the list from the start each time.
	 * The key below identifies the inode; positions found through it
	 * are still checked against the data region before any read.
	 */
	const sqfs_inode_t *cur_inode;
	uint64_t cur_blocks_start;
	uint64_t cur_file_size;
	uint32_t cur_inode_number;
	uint32_t cur_fragment;
	size_t cur_payload_size;
	size_t cur_index;
	uint64_t cur_offset;

	/* What is wrong with the block that failed (data_internal.h's
	 * words), or NULL for the code's own phrase. */
	const char *why;
};

/* Record why a block failed; returns the code. */
static int bad(sqfs_data_reader_t *dr, const char *why)
{
	dr->why = why;
	return SQFS_ERROR_CORRUPTED;
}

typedef data_file_t file_info_t;

int sqfs_data_reader_create(sqfs_image_t *img, sqfs_data_reader_t **out)
{
	sqfs_data_reader_t *dr;
	uint32_t block_size;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	dr = calloc(1, sizeof(*dr));
	if (dr == NULL)
		return SQFS_ERROR_ALLOC;
	if (data_source_init(&dr->src, img) != 0) {
		free(dr);
		return SQFS_ERROR_CORRUPTED;
	}
	block_size = dr->src.block_size;

	dr->packed = malloc(block_size);
	dr->zeros = calloc(1, block_size);
	dr->block = malloc(block_size);
	dr->frag = malloc(block_size);
	if (dr->packed == NULL || dr->zeros == NULL || dr->block == NULL ||
	    dr->frag == NULL) {
		sqfs_data_reader_destroy(dr);
		return SQFS_ERROR_ALLOC;
	}

	*out = dr;
	return 0;
}

void sqfs_data_reader_destroy(sqfs_data_reader_t *dr)
{
	if (dr == NULL)
		return;
	free(dr->packed);
	free(dr->zeros);
	free(dr->block);
	free(dr->frag);
	tail_cache_cleanup(&dr->tails);
	free(dr);
}

static const char *check_word(const sqfs_data_reader_t *dr, uint32_t word)
{
	return data_check_word(dr->src.block_size, word);
}

static const char *check_place(const sqfs_data_reader_t *dr, uint64_t pos,
			       uint32_t len)
{
	return data_check_place(dr->src.region_start, dr->src.region_end, pos,
				len);
}

/* The start of every public call: the file's block list, checked. */
static int get_file_info(sqfs_data_reader_t *dr, const sqfs_inode_t *inode,
			 file_info_t *fi)
{
	const char *why;

	errtext_begin(image_errtext(dr->src.img));
	dr->why = NULL;
	if (inode->type != SQFS_INODE_FILE &&
	    inode->type != SQFS_INODE_EXT_FILE)
		return errtext_set(
		    image_errtext(dr->src.img), SQFS_ERROR_NOT_FILE,
		    "inode %u: not a regular file", inode->inode_number);
	why = data_file_info(dr->src.block_size, inode, fi);
	if (why != NULL)
		return errtext_set(image_errtext(dr->src.img),
				   SQFS_ERROR_CORRUPTED, "inode %u: %s",
				   inode->inode_number, why);
	return 0;
}

/* The exit of every public call that read block index of fi. */
static int block_failed(sqfs_data_reader_t *dr, const file_info_t *fi,
			size_t index, int code)
{
	return data_fault(image_errtext(dr->src.img), code,
			  fi->inode->inode_number, index, fi->count, dr->why);
}

/*
 * The offset of block index relative to blocks_start: the sum of the
 * lengths before it, continued from the last position found if that was
 * in the same file at or before index. Every word summed is checked, so
 * a bad word before index fails as it would when read itself.
 */
static int block_offset(sqfs_data_reader_t *dr, const file_info_t *fi,
			size_t index, uint64_t *out)
{
	const sqfs_inode_t *inode = fi->inode;
	size_t i = 0;
	uint64_t off = 0;

	if (dr->cur_inode == inode &&
	    dr->cur_blocks_start == inode->data.file.blocks_start &&
	    dr->cur_file_size == inode->data.file.file_size &&
	    dr->cur_inode_number == inode->inode_number &&
	    dr->cur_fragment == inode->data.file.fragment_index &&
	    dr->cur_payload_size == inode->payload_size &&
	    dr->cur_index <= index) {
		i = dr->cur_index;
		off = dr->cur_offset;
	}

	/* at most 2^32 words of at most 2^24 each: no overflow */
	for (; i < index; ++i) {
		if (check_word(dr, fi->words[i]) != NULL)
			return bad(dr, "the size word of an earlier block is "
				       "invalid");
		off += fi->words[i] & SQFS_SIZE_WORD_LENGTH;
	}

	dr->cur_inode = inode;
	dr->cur_blocks_start = inode->data.file.blocks_start;
	dr->cur_file_size = inode->data.file.file_size;
	dr->cur_inode_number = inode->inode_number;
	dr->cur_fragment = inode->data.file.fragment_index;
	dr->cur_payload_size = inode->payload_size;
	dr->cur_index = index;
	dr->cur_offset = off;
	*out = off;
	return 0;
}

/*
 * Read the stored block of size word word at pos and unpack it into out,
 * which holds outsize bytes. A raw block is its own unpacked form. Returns
 * the unpacked size.
 */
static ptrdiff_t unpack(sqfs_data_reader_t *dr, uint64_t pos, uint32_t word,
			uint8_t *out, size_t outsize)
{
	size_t len = word & SQFS_SIZE_WORD_LENGTH;
	ptrdiff_t ret;

	if (word & SQFS_SIZE_WORD_RAW) {
		if (len > outsize)
			return bad(dr, DATA_WRONG_SIZE);
		ret = dr->src.file->read_at(dr->src.file, pos, out, len);
		return ret != 0 ? ret : (ptrdiff_t)len;
	}

	ret = dr->src.file->read_at(dr->src.file, pos, dr->packed, len);
	if (ret != 0)
		return ret;
	return data_uncompress(dr->src.cmp, dr->packed, len, out, outsize);
}

static int load_block(sqfs_data_reader_t *dr, const file_info_t *fi,
		      size_t index, const uint8_t **data, size_t *size)
{
	const sqfs_inode_t *inode = fi->inode;
	uint32_t word = fi->words[index];
	size_t expect = data_block_expect(dr->src.block_size, fi, index);
	uint64_t pos;
	ptrdiff_t ret;

	dr->why = check_word(dr, word);
	if (dr->why != NULL)
		return SQFS_ERROR_CORRUPTED;

	if (word == 0) {
		*data = dr->zeros;
		*size = expect;
		return 0;
	}

	if (block_offset(dr, fi, index, &pos) != 0)
		return SQFS_ERROR_CORRUPTED;
	if (pos > UINT64_MAX - inode->data.file.blocks_start)
		return bad(dr, "block list runs past the data");
	pos += inode->data.file.blocks_start;
	dr->why = check_place(dr, pos, word & SQFS_SIZE_WORD_LENGTH);
	if (dr->why != NULL)
		return SQFS_ERROR_CORRUPTED;

	if (!dr->block_valid || dr->block_pos != pos ||
	    dr->block_word != word) {
		dr->block_valid = false;
		ret = unpack(dr, pos, word, dr->block, expect);
		if (ret < 0)
			return (int)ret;
		dr->block_len = (size_t)ret;
		dr->block_pos = pos;
		dr->block_word = word;
		dr->block_valid = true;
	}

	/* the same stored block cannot unpack to two different sizes */
	if (dr->block_len != expect)
		return bad(dr, DATA_WRONG_SIZE);

	*data = dr->block;
	*size = expect;
	return 0;
}

static int load_tail(sqfs_data_reader_t *dr, const file_info_t *fi,
		     const uint8_t **data, size_t *size)
{
	uint32_t index = fi->inode->data.file.fragment_index;
	uint32_t offset = fi->inode->data.file.fragment_offset;
	uint32_t tail = (uint32_t)fi->tail;
	bool small = tail_cache_fits(tail);
	tail_entry_t *e;
	sqfs_fragment_t frag;
	ptrdiff_t ret;

	/* no cache if it cannot be had: only slower */
	if (small && dr->tails.table == NULL)
		(void)tail_cache_init(&dr->tails, TAIL_CACHE_READER_BYTES);
	if (small && (!dr->frag_valid || dr->frag_index != index)) {
		/* the same key passed the same checks when it was copied */
		e = tail_cache_get(&dr->tails, index, offset, tail);
		if (e != NULL) {
			*data = e->data;
			*size = fi->tail;
			return 0;
		}
	}

	if (!dr->frag_valid || dr->frag_index != index) {
		dr->frag_valid = false;
		ret = sqfs_image_get_fragment(dr->src.img, index, &frag);
		if (ret < 0) {
			dr->why = DATA_NO_FRAGMENT;
			return (int)ret;
		}
		dr->why = data_check_fragment(dr->src.block_size,
					      dr->src.region_start,
					      dr->src.region_end, &frag);
		if (dr->why != NULL)
			return SQFS_ERROR_CORRUPTED;

		ret = unpack(dr, frag.start, frag.size, dr->frag,
			     dr->src.block_size);
		if (ret < 0)
			return (int)ret;
		dr->frag_len = (size_t)ret;
		dr->frag_index = index;
		dr->frag_valid = true;
	}

	dr->why = data_check_tail(dr->frag_len, offset, fi->tail);
	if (dr->why != NULL)
		return SQFS_ERROR_CORRUPTED;

	/* a copy may serve its duplicates */
	if (small)
		tail_cache_offer(&dr->tails, index, offset, tail,
				 dr->frag + offset);
	*data = dr->frag + offset;
	*size = fi->tail;
	return 0;
}

/* Block index of the file (index == count: the tail), unpacked. */
static int load(sqfs_data_reader_t *dr, const file_info_t *fi, size_t index,
		const uint8_t **data, size_t *size)
{
	if (index < fi->count)
		return load_block(dr, fi, index, data, size);
	if (index == fi->count && fi->tail > 0)
		return load_tail(dr, fi, data, size);
	return SQFS_ERROR_OUT_OF_BOUNDS;
}

int sqfs_data_reader_get_block(sqfs_data_reader_t *dr, const sqfs_inode_t *file,
			       size_t index, sqfs_file_block_t *out)
{
	file_info_t fi;
	int ret;

	if (dr == NULL || file == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;

	ret = get_file_info(dr, file, &fi);
	if (ret != 0)
		return ret;
	memset(out, 0, sizeof(*out));
	ret = load(dr, &fi, index, &out->data, &out->size);
	if (ret == SQFS_ERROR_OUT_OF_BOUNDS)
		return errtext_set(image_errtext(dr->src.img), ret,
				   "inode %u: no block %zu", file->inode_number,
				   index);
	if (ret != 0)
		return block_failed(dr, &fi, index, ret);
	out->index = index;
	out->offset = (uint64_t)index * dr->src.block_size;
	if (data_block_is_sparse(&fi, index))
		out->flags |= SQFS_FILE_BLOCK_SPARSE;
	if (index == fi.count || (index + 1 == fi.count && fi.tail == 0))
		out->flags |= SQFS_FILE_BLOCK_LAST;
	return 0;
}

ptrdiff_t sqfs_data_reader_read(sqfs_data_reader_t *dr,
				const sqfs_inode_t *file, uint64_t offset,
				void *buffer, size_t size)
{
	uint64_t file_size;
	const uint8_t *data;
	size_t done = 0, index, skip, n, len;
	file_info_t fi;
	int ret;

	if (dr == NULL || file == NULL || (buffer == NULL && size > 0))
		return SQFS_ERROR_ARG_INVALID;

	ret = get_file_info(dr, file, &fi);
	if (ret != 0)
		return ret;

	file_size = file->data.file.file_size;
	if (offset >= file_size)
		return 0;
	if (size > file_size - offset)
		size = (size_t)(file_size - offset);
	if (size > PTRDIFF_MAX)
		size = PTRDIFF_MAX;

	while (done < size) {
		/* at most the block count, which is a size_t */
		index = (size_t)(offset / dr->src.block_size);
		skip = (size_t)(offset % dr->src.block_size);

		ret = load(dr, &fi, (size_t)index, &data, &len);
		if (ret != 0)
			return block_failed(dr, &fi, index, ret);
		/* every block but the last is full, and the last one ends
		 * the file, so the block always covers offset */
		if (skip >= len)
			return block_failed(dr, &fi, index,
					    SQFS_ERROR_INTERNAL);

		n = len - skip;
		if (n > size - done)
			n = size - done;
		memcpy((uint8_t *)buffer + done, data + skip, n);
		done += n;
		offset += n;
	}
	return (ptrdiff_t)done;
}
