/* SPDX-License-Identifier: MIT */
/*
 * xattr_id_table.c - the xattr-id table: one 16-byte entry per xattr set
 * (the reference of its first key/value pair in the stream, the pair
 * count, a size), in metadata blocks that follow the key/value stream;
 * then a 16-byte header (the stream's start, the entry count, 4 unused
 * bytes), which the superblock points at; then the u64 index of the
 * blocks, which ends the image's tables.
 *
 * Unlike the other lookup tables, the blocks end at the header, not at
 * their index, and the stream before them has no index of its own: the
 * first block is where the stream ends.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/super.h"
#include "util/le.h"

#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>

int xattr_id_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
			 const xattr_id_entry_t *ids, size_t count,
			 uint64_t kv_start, sqfs_super_t *super)
{
	uint8_t *raw = NULL, *tail = NULL;
	uint64_t index_size, hdr_pos;
	size_t size, i;
	int ret;

	if (count == 0 || count > UINT32_MAX ||
	    count > SIZE_MAX / SQFS_XATTR_ID_ENTRY_SIZE)
		return SQFS_ERROR_OVERFLOW;
	size = count * SQFS_XATTR_ID_ENTRY_SIZE;
	index_size = table_index_size(count, SQFS_XATTR_ID_ENTRY_SIZE);
	raw = malloc(size);
	/* the header and the index are written together */
	tail = malloc(SQFS_XATTR_ID_HEADER_SIZE + (size_t)index_size);
	if (raw == NULL || tail == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto out;
	}
	for (i = 0; i < count; ++i) {
		uint8_t *p = raw + i * SQFS_XATTR_ID_ENTRY_SIZE;

		put_le64(p, ids[i].ref);
		put_le32(p + 8, ids[i].count);
		put_le32(p + 12, ids[i].size);
	}

	ret = table_write_blocks(file, cmp, raw, size,
				 tail + SQFS_XATTR_ID_HEADER_SIZE);
	if (ret != 0)
		goto out;

	hdr_pos = file->get_size(file);
	put_le64(tail, kv_start);
	put_le32(tail + 8, (uint32_t)count);
	put_le32(tail + 12, 0);
	ret = file->write_at(file, hdr_pos, tail,
			     SQFS_XATTR_ID_HEADER_SIZE + (size_t)index_size);
	if (ret != 0)
		goto out;

	super->xattr_id_table_start = hdr_pos;
	super->flags &= (uint16_t)~SQFS_FLAG_NO_XATTRS;
	if (cmp == NULL)
		super->flags |= SQFS_FLAG_UNCOMPRESSED_XATTRS;
out:
	free(tail);
	free(raw);
	return ret;
}

int xattr_id_table_header(sqfs_file_t *file, const sqfs_super_t *super,
			  uint64_t *kv_start, uint32_t *count)
{
	uint64_t header_pos = super->xattr_id_table_start;
	uint8_t header[SQFS_XATTR_ID_HEADER_SIZE];
	int ret;

	/* sqfs_super_validate: header_pos + 16 <= bytes_used */
	ret = file_read_exact(file, header_pos, header, sizeof(header));
	if (ret != 0)
		return ret;

	*kv_start = get_le64(header);
	*count = get_le32(header + 8);
	if (*count == 0)
		return SQFS_ERROR_CORRUPTED;

	if (super->bytes_used - (header_pos + SQFS_XATTR_ID_HEADER_SIZE) !=
	    table_index_size(*count, SQFS_XATTR_ID_ENTRY_SIZE))
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

/* An entry's reference must point into the key/value stream of kv_size
 * bytes: its offset below 8192, its block inside. */
static int check_entry(const uint8_t *p, uint64_t kv_size)
{
	uint64_t ref = get_le64(p);

	if ((ref & 0xFFFF) >= SQFS_META_BLOCK_SIZE || (ref >> 16) >= kv_size)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

int xattr_id_table_open(sqfs_file_t *file, sqfs_compressor_t *cmp,
			const sqfs_super_t *super, uint64_t kv_start,
			uint32_t count, table_lazy_t *t, uint64_t *kv_end)
{
	uint64_t header_pos = super->xattr_id_table_start;
	uint64_t index_pos = header_pos + SQFS_XATTR_ID_HEADER_SIZE;
	uint64_t size = super->bytes_used - index_pos;
	size_t blocks = (size_t)(size / sizeof(uint64_t)), len, i, k;
	int ret;

	memset(t, 0, sizeof(*t));
	/* xattr_id_table_header matched the index to count, and the
	 * index fits the file, which bounds this allocation */
	if (size > SIZE_MAX || blocks == 0 || kv_start >= header_pos)
		return SQFS_ERROR_CORRUPTED;
	if ((uint64_t)count * SQFS_XATTR_ID_ENTRY_SIZE > SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	t->size = (size_t)count * SQFS_XATTR_ID_ENTRY_SIZE;
	t->end = header_pos;
	ret = table_read_index(file, index_pos, blocks, &t->index);
	if (ret != 0)
		return ret;
	t->count = blocks;

	/* the key/value stream must not be empty: kv_start < index[0] */
	ret = table_check_index(t->index, blocks, header_pos, kv_start + 1);
	if (ret != 0) {
		ret = SQFS_ERROR_CORRUPTED;
		goto fail;
	}
	/* every entry is checked now, as the table is read a block at a
	 * time into one buffer: a bad one fails the open, and the memory
	 * is a block's whatever the table's size */
	t->data = malloc(SQFS_META_BLOCK_SIZE);
	if (t->data == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto fail;
	}
	for (i = 0; i < blocks; ++i) {
		ret = table_decode_block(file, cmp, t->index, blocks,
					 header_pos, t->size, i, t->data, &len);
		for (k = 0; ret == 0 && k < len; k += SQFS_XATTR_ID_ENTRY_SIZE)
			ret = check_entry(t->data + k, t->index[0] - kv_start);
		if (ret != 0)
			goto fail;
	}
	t->which = blocks;
	*kv_end = t->index[0];
	return 0;
fail:
	free(t->index);
	free(t->data);
	memset(t, 0, sizeof(*t));
	return ret;
}

int xattr_id_table_get(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       table_lazy_t *t, uint64_t kv_size, uint32_t index,
		       xattr_id_entry_t *out)
{
	const uint8_t *p;
	int ret;

	ret =
	    table_lazy_entry(file, cmp, t, SQFS_XATTR_ID_ENTRY_SIZE, index, &p);
	if (ret != 0)
		return ret;
	/* checked at open, and again: the block was decoded again */
	ret = check_entry(p, kv_size);
	if (ret != 0)
		return ret;
	out->ref = get_le64(p);
	out->count = get_le32(p + 8);
	out->size = get_le32(p + 12);
	return 0;
}
