/* SPDX-License-Identifier: MIT */
/*
 * export_table.c - the export table, which lets an NFS server find an
 * inode by its number: entry n - 1 is the inode reference (block << 16 |
 * offset) of inode n, one u64 each. Read a block at a time, on demand
 * (table_internal.h says why).
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>

int export_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       const uint64_t *refs, uint32_t count,
		       sqfs_super_t *super)
{
	uint8_t *raw;
	uint32_t i;
	int ret;

	/* 32-bit hosts: a size_t must hold the table */
	if (count == 0 ||
	    (uint64_t)count * SQFS_EXPORT_ENTRY_SIZE > (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	raw = malloc((size_t)count * SQFS_EXPORT_ENTRY_SIZE);
	if (raw == NULL)
		return SQFS_ERROR_ALLOC;
	for (i = 0; i < count; ++i)
		put_le64(raw + (size_t)i * SQFS_EXPORT_ENTRY_SIZE, refs[i]);
	ret = sqfs_table_write(file, cmp, raw,
			       (size_t)count * SQFS_EXPORT_ENTRY_SIZE,
			       &super->export_table_start);
	free(raw);
	if (ret == 0)
		super->flags |= SQFS_FLAG_EXPORTABLE;
	return ret;
}

static size_t table_size(const sqfs_super_t *super)
{
	return (size_t)super->inode_count * SQFS_EXPORT_ENTRY_SIZE;
}

int export_table_open(sqfs_file_t *file, sqfs_compressor_t *cmp,
		      const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		      uint64_t **index, size_t *count, uint64_t *first_block)
{
	export_block_t last = {0, NULL};
	uint64_t ref;
	int ret;

	*index = NULL;
	/* 32-bit hosts: a size_t must hold the table's size */
	if ((uint64_t)super->inode_count * SQFS_EXPORT_ENTRY_SIZE >
	    (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	ret =
	    table_open_index(file, table_size(super), super->export_table_start,
			     lower, upper, index, count);
	if (ret != 0)
		return ret;
	/* the last block must unpack to what the inode count leaves for
	 * it: a count that does not match the table fails here */
	ret = export_table_ref(file, cmp, super, *index, *count, &last,
			       super->inode_count, &ref);
	free(last.data);
	if (ret != 0) {
		free(*index);
		*index = NULL;
		return ret;
	}
	*first_block = (*index)[0];
	return 0;
}

int export_table_ref(sqfs_file_t *file, sqfs_compressor_t *cmp,
		     const sqfs_super_t *super, const uint64_t *index,
		     size_t count, export_block_t *blk, uint32_t number,
		     uint64_t *ref)
{
	uint64_t pos = (uint64_t)(number - 1) * SQFS_EXPORT_ENTRY_SIZE;
	size_t i = (size_t)(pos / SQFS_META_BLOCK_SIZE), len;
	int ret;

	if (blk->data == NULL) {
		blk->data = malloc(SQFS_META_BLOCK_SIZE);
		if (blk->data == NULL)
			return SQFS_ERROR_ALLOC;
	}
	if (blk->which != i + 1) {
		blk->which = 0;
		ret = table_decode_block(file, cmp, index, count,
					 super->export_table_start,
					 table_size(super), i, blk->data, &len);
		if (ret != 0)
			return ret;
		blk->which = i + 1;
	}
	*ref = get_le64(blk->data + pos % SQFS_META_BLOCK_SIZE);
	return 0;
}
