/* SPDX-License-Identifier: MIT */
/*
 * fragment_table.c - the fragment table: one entry per fragment block, its
 * position (u64) and size word (u32), and four unused bytes written as 0
 * and ignored on reading.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>

int fragment_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
			 const sqfs_fragment_t *list, size_t count,
			 sqfs_super_t *super)
{
	uint64_t start;
	uint8_t *raw;
	size_t i;
	int ret;

	if (count == 0) {
		super->fragment_entry_count = 0;
		super->fragment_table_start = SQFS_TABLE_ABSENT;
		return 0;
	}
	if (count > UINT32_MAX || count > SIZE_MAX / SQFS_FRAGMENT_ENTRY_SIZE)
		return SQFS_ERROR_OVERFLOW;

	raw = malloc(count * SQFS_FRAGMENT_ENTRY_SIZE);
	if (raw == NULL)
		return SQFS_ERROR_ALLOC;
	for (i = 0; i < count; ++i) {
		uint8_t *p = raw + i * SQFS_FRAGMENT_ENTRY_SIZE;

		put_le64(p, list[i].start);
		put_le32(p + 8, list[i].size);
		put_le32(p + 12, 0);
	}
	ret = sqfs_table_write(file, cmp, raw, count * SQFS_FRAGMENT_ENTRY_SIZE,
			       &start);
	free(raw);
	if (ret != 0)
		return ret;

	super->fragment_entry_count = (uint32_t)count;
	super->fragment_table_start = start;
	return 0;
}

/* A fragment block holds data, no more than a block, inside the data
 * region: the data reader relies on it. */
static int check_entry(const sqfs_super_t *super, uint64_t data_start,
		       const sqfs_fragment_t *frag)
{
	uint32_t len = frag->size & SQFS_SIZE_WORD_LENGTH;

	if ((frag->size & SQFS_SIZE_WORD_RESERVED) != 0 || len == 0 ||
	    len > super->block_size)
		return SQFS_ERROR_CORRUPTED;
	if (frag->start < data_start ||
	    frag->start > super->inode_table_start ||
	    len > super->inode_table_start - frag->start)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

int fragment_table_load(sqfs_file_t *file, sqfs_compressor_t *cmp,
			const sqfs_super_t *super, uint64_t data_start,
			uint64_t upper, sqfs_fragment_t **out,
			uint64_t *first_block)
{
	uint32_t count = super->fragment_entry_count, i;
	sqfs_fragment_t *list;
	const uint8_t *p;
	void *raw;
	int ret;

	*out = NULL;
	ret =
	    table_load(file, cmp, count, SQFS_FRAGMENT_ENTRY_SIZE,
		       super->fragment_table_start,
		       super->directory_table_start, upper, &raw, first_block);
	if (ret != 0)
		return ret;

	list = calloc(count, sizeof(list[0]));
	if (list == NULL) {
		free(raw);
		return SQFS_ERROR_ALLOC;
	}
	for (i = 0; i < count; ++i) {
		p = (const uint8_t *)raw + (size_t)i * SQFS_FRAGMENT_ENTRY_SIZE;
		list[i].start = get_le64(p);
		list[i].size = get_le32(p + 8);

		ret = check_entry(super, data_start, &list[i]);
		if (ret != 0)
			break;
	}
	free(raw);
	if (ret != 0) {
		free(list);
		return ret;
	}
	*out = list;
	return 0;
}
