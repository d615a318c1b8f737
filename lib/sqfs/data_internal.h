/* SPDX-License-Identifier: MIT */
/*
 * data_internal.h - the checks every reader of file contents makes (the
 * random-access data reader and the in-order file stream), written once so
 * that both refuse exactly the same images.
 *
 * Nothing an inode claims is trusted: the block list must be exactly as
 * long as the file size implies, every stored block must lie inside the
 * data region, and every block must unpack to exactly the size its place
 * in the file implies.
 */
#ifndef SQFS_DATA_INTERNAL_H
#define SQFS_DATA_INTERNAL_H

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/format_internal.h"
#include "sqfs/error_internal.h"
#include "image_internal.h"

/*
 * The checks below return NULL when a value passes, and otherwise the
 * words for what is wrong with it (the fault is SQFS_ERROR_CORRUPTED);
 * data_fault turns them into the image's error text, so that both
 * readers describe a bad file in the same words.
 */

/* What both readers read with: the image, its file and compressor, the
 * block size every buffer is sized by, and the data region. */
typedef struct {
	sqfs_image_t *img;
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	uint32_t block_size;
	uint64_t region_start;
	uint64_t region_end;
} data_source_t;

/* What a reader needs to know about a file it reads. */
typedef struct {
	const sqfs_inode_t *inode;
	const uint32_t *words;
	size_t count;
	/* Bytes of the tail in the fragment block; 0 if there is none. */
	size_t tail;
} data_file_t;

/* The image's block size, which every buffer of a reader is sized by:
 * refused (SQFS_ERROR_CORRUPTED) outside what the format allows. */
static inline int data_block_size(const sqfs_image_t *img, uint32_t *out)
{
	uint32_t block_size = sqfs_image_super(img)->block_size;

	if (block_size < SQFS_MIN_BLOCK_SIZE ||
	    block_size > SQFS_MAX_BLOCK_SIZE)
		return SQFS_ERROR_CORRUPTED;
	*out = block_size;
	return 0;
}

/* Fill src from img; SQFS_ERROR_CORRUPTED for a block size outside what
 * the format allows. */
static inline int data_source_init(data_source_t *src, sqfs_image_t *img)
{
	if (data_block_size(img, &src->block_size) != 0)
		return SQFS_ERROR_CORRUPTED;
	src->img = img;
	src->file = image_file(img);
	src->cmp = image_compressor(img);
	image_data_region(img, &src->region_start, &src->region_end);
	return 0;
}

/* A block size word: no reserved bits, not "raw of length 0", at most a
 * block long. */
static inline const char *data_check_word(uint32_t block_size, uint32_t word)
{
	if ((word & SQFS_SIZE_WORD_RESERVED) != 0 ||
	    word == SQFS_SIZE_WORD_RAW ||
	    (word & SQFS_SIZE_WORD_LENGTH) > block_size)
		return "its size word is invalid";
	return NULL;
}

/* A stored block of len bytes at pos must lie inside the data region
 * [start, end). */
static inline const char *data_check_place(uint64_t start, uint64_t end,
					   uint64_t pos, uint32_t len)
{
	if (pos < start)
		return "block list starts before the data";
	if (pos > end || len > end - pos)
		return "block list runs past the data";
	return NULL;
}

/* The block list of a regular file, checked against its size; the
 * caller has made sure the inode is a regular file. */
static inline const char *
data_file_info(uint32_t block_size, const sqfs_inode_t *inode, data_file_t *fi)
{
	uint64_t count, size;

	size = inode->data.file.file_size;
	count = sqfs_inode_block_count(inode, block_size);
	if (inode->payload_size % sizeof(uint32_t) != 0 ||
	    count != inode->payload_size / sizeof(uint32_t))
		return "the block list does not match the file size";

	fi->inode = inode;
	fi->words = (const uint32_t *)(const void *)inode->payload;
	fi->count = (size_t)count;
	fi->tail = 0;

	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT) {
		fi->tail = (size_t)(size % block_size);
		if (fi->tail == 0)
			return "a fragment for a file of whole blocks";
	}
	return NULL;
}

/* The unpacked size of listed block index: a full block, except the last
 * of a file without a fragment. */
static inline size_t data_block_expect(uint32_t block_size,
				       const data_file_t *fi, size_t index)
{
	if (index == fi->count - 1 && fi->tail == 0)
		return (size_t)(fi->inode->data.file.file_size -
				(uint64_t)index * block_size);
	return block_size;
}

/* Whether listed block index is sparse: a size word of 0 stands for a
 * block of zeros that takes no room. The tail (index == count) never is. */
static inline bool data_block_is_sparse(const data_file_t *fi, size_t index)
{
	return index < fi->count && fi->words[index] == 0;
}

/* A fragment-table entry: a fragment block holds data, so it is never
 * sparse, and it lies inside the data region. */
static inline const char *data_check_fragment(uint32_t block_size,
					      uint64_t start, uint64_t end,
					      const sqfs_fragment_t *frag)
{
	if (frag->size == 0 || data_check_word(block_size, frag->size) != NULL)
		return "its fragment table entry has an invalid size";
	if (data_check_place(start, end, frag->start,
			     frag->size & SQFS_SIZE_WORD_LENGTH) != NULL)
		return "its fragment block lies outside the data";
	return NULL;
}

/* A tail of tail bytes at offset must lie inside the frag_len bytes its
 * fragment block unpacked to. */
static inline const char *data_check_tail(size_t frag_len, uint32_t offset,
					  size_t tail)
{
	if (offset > frag_len || tail > frag_len - offset)
		return "it runs past the end of its fragment block";
	return NULL;
}

/* Words for a block that unpacked to a size its place does not allow. */
#define DATA_WRONG_SIZE "it unpacks to the wrong size"
/* ... for a tail whose fragment index is past the table ... */
#define DATA_NO_FRAGMENT "its fragment index is past the fragment table"
/* ... and for a stream the codec refused. */
#define DATA_BAD_STREAM "it does not decompress"

/*
 * Word a failure reading block index of inode number ino (index == count:
 * the tail; DATA_WHOLE_FILE: the file as a whole) with code: why, if
 * given, says what is wrong; otherwise the code's phrase. Returns code.
 */
#define DATA_WHOLE_FILE SIZE_MAX

static inline int data_fault(errtext_t *e, int code, uint32_t ino, size_t index,
			     size_t count, const char *why)
{
	if (why == NULL && code == SQFS_ERROR_CORRUPTED)
		why = DATA_BAD_STREAM;
	if (why == NULL)
		why = sqfs_error_string(code);
	if (index == DATA_WHOLE_FILE)
		return errtext_set(e, code, "inode %u: %s", ino, why);
	if (index >= count)
		return errtext_set(e, code, "inode %u: tail: %s", ino, why);
	return errtext_set(e, code, "inode %u: block %zu: %s", ino, index, why);
}

/* Unpack a compressed block; a stream that would not fit is as corrupt as
 * one that does not decode. */
static inline ptrdiff_t data_uncompress(sqfs_compressor_t *cmp,
					const uint8_t *in, size_t len,
					uint8_t *out, size_t outsize)
{
	ptrdiff_t ret = sqfs_compressor_uncompress(cmp, in, len, out, outsize);

	return ret == SQFS_ERROR_OVERFLOW ? SQFS_ERROR_CORRUPTED : ret;
}

#endif /* SQFS_DATA_INTERNAL_H */
