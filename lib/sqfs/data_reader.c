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
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include "image_internal.h"

#include <stdlib.h>
#include <string.h>

#define SIZE_WORD_RESERVED 0xFE000000u
#define SIZE_WORD_RAW 0x01000000u
#define SIZE_WORD_LENGTH 0x00FFFFFFu

struct sqfs_data_reader {
	sqfs_image_t *img;
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	uint32_t block_size;
	uint64_t region_start;
	uint64_t region_end;

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
};

/* What one call needs to know about the file it reads. */
typedef struct {
	const sqfs_inode_t *inode;
	const uint32_t *words;
	size_t count;
	/* Bytes of the tail in the fragment block; 0 if there is none. */
	size_t tail;
} file_info_t;

int sqfs_data_reader_create(sqfs_image_t *img, sqfs_data_reader_t **out)
{
	sqfs_data_reader_t *dr;
	uint32_t block_size;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	block_size = sqfs_image_super(img)->block_size;
	if (block_size < SQFS_MIN_BLOCK_SIZE ||
	    block_size > SQFS_MAX_BLOCK_SIZE)
		return SQFS_ERROR_CORRUPTED;

	dr = calloc(1, sizeof(*dr));
	if (dr == NULL)
		return SQFS_ERROR_ALLOC;

	dr->img = img;
	dr->file = sqfs_image_file(img);
	dr->cmp = sqfs_image_compressor(img);
	dr->block_size = block_size;
	sqfs_image_data_region(img, &dr->region_start, &dr->region_end);

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
	free(dr);
}

static int check_word(const sqfs_data_reader_t *dr, uint32_t word)
{
	if ((word & SIZE_WORD_RESERVED) != 0 || word == SIZE_WORD_RAW ||
	    (word & SIZE_WORD_LENGTH) > dr->block_size)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

/* A stored block of len bytes at pos must lie inside the data region. */
static int check_place(const sqfs_data_reader_t *dr, uint64_t pos, uint32_t len)
{
	if (pos < dr->region_start || pos > dr->region_end ||
	    len > dr->region_end - pos)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int get_file_info(const sqfs_data_reader_t *dr,
			 const sqfs_inode_t *inode, file_info_t *fi)
{
	uint64_t count, size;

	if (inode->type != SQFS_INODE_FILE &&
	    inode->type != SQFS_INODE_EXT_FILE)
		return SQFS_ERROR_NOT_FILE;

	size = inode->data.file.file_size;
	count = sqfs_inode_block_count(inode, dr->block_size);
	if (inode->payload_size % sizeof(uint32_t) != 0 ||
	    count != inode->payload_size / sizeof(uint32_t))
		return SQFS_ERROR_CORRUPTED;

	fi->inode = inode;
	fi->words = (const uint32_t *)(const void *)inode->payload;
	fi->count = (size_t)count;
	fi->tail = 0;

	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT) {
		fi->tail = (size_t)(size % dr->block_size);
		if (fi->tail == 0)
			return SQFS_ERROR_CORRUPTED;
	}
	return 0;
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
		if (check_word(dr, fi->words[i]) != 0)
			return SQFS_ERROR_CORRUPTED;
		off += fi->words[i] & SIZE_WORD_LENGTH;
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
	size_t len = word & SIZE_WORD_LENGTH;
	ptrdiff_t ret;

	if (word & SIZE_WORD_RAW) {
		if (len > outsize)
			return SQFS_ERROR_CORRUPTED;
		ret = dr->file->read_at(dr->file, pos, out, len);
		return ret != 0 ? ret : (ptrdiff_t)len;
	}

	ret = dr->file->read_at(dr->file, pos, dr->packed, len);
	if (ret != 0)
		return ret;
	ret =
	    sqfs_compressor_uncompress(dr->cmp, dr->packed, len, out, outsize);
	if (ret == SQFS_ERROR_OVERFLOW)
		return SQFS_ERROR_CORRUPTED;
	return ret;
}

static int load_block(sqfs_data_reader_t *dr, const file_info_t *fi,
		      size_t index, const uint8_t **data, size_t *size)
{
	const sqfs_inode_t *inode = fi->inode;
	uint32_t word = fi->words[index];
	size_t expect = dr->block_size;
	uint64_t pos;
	ptrdiff_t ret;

	if (check_word(dr, word) != 0)
		return SQFS_ERROR_CORRUPTED;

	/* only the last block of a file without a fragment may be short */
	if (index == fi->count - 1 && fi->tail == 0) {
		expect = (size_t)(inode->data.file.file_size -
				  (uint64_t)index * dr->block_size);
	}

	if (word == 0) {
		*data = dr->zeros;
		*size = expect;
		return 0;
	}

	if (block_offset(dr, fi, index, &pos) != 0)
		return SQFS_ERROR_CORRUPTED;
	if (pos > UINT64_MAX - inode->data.file.blocks_start)
		return SQFS_ERROR_CORRUPTED;
	pos += inode->data.file.blocks_start;
	if (check_place(dr, pos, word & SIZE_WORD_LENGTH) != 0)
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
		return SQFS_ERROR_CORRUPTED;

	*data = dr->block;
	*size = expect;
	return 0;
}

static int load_tail(sqfs_data_reader_t *dr, const file_info_t *fi,
		     const uint8_t **data, size_t *size)
{
	uint32_t index = fi->inode->data.file.fragment_index;
	uint32_t offset = fi->inode->data.file.fragment_offset;
	sqfs_fragment_t frag;
	ptrdiff_t ret;

	if (!dr->frag_valid || dr->frag_index != index) {
		dr->frag_valid = false;
		ret = sqfs_image_get_fragment(dr->img, index, &frag);
		if (ret < 0)
			return (int)ret;
		/* a fragment block holds data: it is never sparse */
		if (frag.size == 0 || check_word(dr, frag.size) != 0 ||
		    check_place(dr, frag.start, frag.size & SIZE_WORD_LENGTH))
			return SQFS_ERROR_CORRUPTED;

		ret =
		    unpack(dr, frag.start, frag.size, dr->frag, dr->block_size);
		if (ret < 0)
			return (int)ret;
		dr->frag_len = (size_t)ret;
		dr->frag_index = index;
		dr->frag_valid = true;
	}

	if (offset > dr->frag_len || fi->tail > dr->frag_len - offset)
		return SQFS_ERROR_CORRUPTED;

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
			       size_t index, const uint8_t **data, size_t *size)
{
	file_info_t fi;
	int ret;

	if (dr == NULL || file == NULL || data == NULL || size == NULL)
		return SQFS_ERROR_ARG_INVALID;

	ret = get_file_info(dr, file, &fi);
	if (ret != 0)
		return ret;
	return load(dr, &fi, index, data, size);
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
		index = (size_t)(offset / dr->block_size);
		skip = (size_t)(offset % dr->block_size);

		ret = load(dr, &fi, (size_t)index, &data, &len);
		if (ret != 0)
			return ret;
		/* every block but the last is full, and the last one ends
		 * the file, so the block always covers offset */
		if (skip >= len)
			return SQFS_ERROR_INTERNAL;

		n = len - skip;
		if (n > size - done)
			n = size - done;
		memcpy((uint8_t *)buffer + done, data + skip, n);
		done += n;
		offset += n;
	}
	return (ptrdiff_t)done;
}
