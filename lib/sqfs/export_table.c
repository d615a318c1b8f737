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
#include <string.h>

int export_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       uint32_t count, export_source_t source, void *user,
		       sqfs_super_t *super)
{
	enum { PER_BLOCK = SQFS_META_BLOCK_SIZE / SQFS_EXPORT_ENTRY_SIZE };
	uint64_t refs[PER_BLOCK];
	uint8_t raw[SQFS_META_BLOCK_SIZE];
	uint64_t blocks, pos;
	uint8_t *index;
	int ret = 0;

	if (count == 0)
		return SQFS_ERROR_OVERFLOW;
	blocks = ((uint64_t)count + PER_BLOCK - 1) / PER_BLOCK;
	index = malloc((size_t)blocks * sizeof(uint64_t));
	if (index == NULL)
		return SQFS_ERROR_ALLOC;

	/* one metadata block per call: the same blocks as the whole
	 * table written at once */
	for (uint64_t b = 0; ret == 0 && b < blocks; ++b) {
		uint64_t first = b * PER_BLOCK;
		size_t n = count - first < PER_BLOCK ? (size_t)(count - first)
						     : PER_BLOCK;

		ret = source(user, first, refs, n);
		for (size_t i = 0; ret == 0 && i < n; ++i)
			put_le64(raw + i * SQFS_EXPORT_ENTRY_SIZE, refs[i]);
		if (ret == 0)
			ret = table_write_blocks(file, cmp, raw,
						 n * SQFS_EXPORT_ENTRY_SIZE,
						 index + b * sizeof(uint64_t));
	}
	if (ret == 0) {
		pos = file->get_size(file);
		ret = file->write_at(file, pos, index,
				     (size_t)blocks * sizeof(uint64_t));
		if (ret == 0) {
			super->export_table_start = pos;
			super->flags |= SQFS_FLAG_EXPORTABLE;
		}
	}
	free(index);
	return ret;
}

int export_table_open(sqfs_file_t *file, sqfs_compressor_t *cmp,
		      const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		      table_lazy_t *t, uint64_t *first_block)
{
	uint64_t ref;
	int ret;

	memset(t, 0, sizeof(*t));
	/* 32-bit hosts: a size_t must hold the table's size */
	if ((uint64_t)super->inode_count * SQFS_EXPORT_ENTRY_SIZE >
	    (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	t->size = (size_t)super->inode_count * SQFS_EXPORT_ENTRY_SIZE;
	t->end = super->export_table_start;
	ret = table_open_index(file, t->size, t->end, lower, upper, &t->index,
			       &t->count);
	/* the last block must unpack to what the inode count leaves for
	 * it: a count that does not match the table fails here */
	if (ret == 0)
		ret = export_table_ref(file, cmp, t, super->inode_count, &ref);
	if (ret != 0) {
		free(t->index);
		free(t->data);
		memset(t, 0, sizeof(*t));
		return ret;
	}
	*first_block = t->index[0];
	return 0;
}

int export_table_ref(sqfs_file_t *file, sqfs_compressor_t *cmp, table_lazy_t *t,
		     uint32_t number, uint64_t *ref)
{
	const uint8_t *entry;
	int ret;

	if (number == 0)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	ret = table_lazy_entry(file, cmp, t, SQFS_EXPORT_ENTRY_SIZE,
			       (uint64_t)number - 1, &entry);
	if (ret == 0)
		*ref = get_le64(entry);
	return ret;
}
