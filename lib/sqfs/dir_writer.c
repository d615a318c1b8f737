/* SPDX-License-Identifier: MIT */
/*
 * dir_writer.c - lays out directory listings as runs of header + entries.
 *
 * A listing is first encoded into a buffer that is reused from one
 * directory to the next: a run's entry count is only known when it ends,
 * and the run boundaries depend on where the listing sits in the
 * uncompressed stream, which is fixed before anything is written. The
 * buffer is then appended in pieces, stopping at each header to learn the
 * position of the metadata block that holds it for the directory index.
 */
#include "config.h"

#include "sqfs/dir_writer_internal.h"
#include "sqfs/error.h"
#include "sqfs/path.h"
#include "sqfs/inode.h"
#include "sqfs/meta_stream_internal.h"
#include "sqfs/super.h"
#include "util/array.h"
#include "util/le.h"
#include "sqfs/format_internal.h"

#include <stdlib.h>
#include <string.h>

/* ng's bound: safe for every reader, whatever it does with -32768 */
#define MAX_DELTA 32767
#define MAX_INDEX_COUNT 0xFFFFu
/* The inode stores the listing size + 3 in a u32. */
#define MAX_LISTING_SIZE (UINT32_MAX - 3u)
/* From this many entries a listing gets a directory index. */
#define INDEX_MIN_ENTRIES 256u

typedef struct {
	size_t name_off;
	uint16_t name_len;
	uint16_t type;
	uint32_t inode_number;
	uint64_t inode_ref;
} dir_entry_t;

typedef struct {
	/* Byte offset of the header within the listing. */
	size_t offset;
	/* The entry that opens the run. */
	size_t first;
} run_t;

/* A growable array of fixed-size items. */
struct dir_writer {
	meta_stream_t *ms;
	bool open;

	array_t entries; /* dir_entry_t */
	array_t names;	 /* char */
	array_t runs;	 /* run_t */
	array_t listing; /* uint8_t */
	array_t index;	 /* uint8_t */

	size_t index_count;
	uint64_t dir_ref;
	uint64_t size;
};

int dir_writer_create(meta_stream_t *ms, dir_writer_t **out)
{
	dir_writer_t *dw;

	if (ms == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	dw = calloc(1, sizeof(*dw));
	if (dw == NULL)
		return SQFS_ERROR_ALLOC;
	dw->ms = ms;
	*out = dw;
	return 0;
}

void dir_writer_destroy(dir_writer_t *dw)
{
	if (dw == NULL)
		return;
	array_cleanup(&dw->entries);
	array_cleanup(&dw->names);
	array_cleanup(&dw->runs);
	array_cleanup(&dw->listing);
	array_cleanup(&dw->index);
	free(dw);
}

int dir_writer_begin(dir_writer_t *dw)
{
	if (dw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	dw->entries.count = 0;
	dw->names.count = 0;
	dw->runs.count = 0;
	dw->listing.count = 0;
	dw->index.count = 0;
	dw->index_count = 0;
	dw->size = 0;
	dw->dir_ref = 0;
	dw->open = true;
	return 0;
}

static int check_name(const char *name, size_t len)
{
	return sqfs_name_is_valid(name, len) ? 0 : SQFS_ERROR_ARG_INVALID;
}

/* Whether name sorts strictly after the last entry (unsigned bytes, a
 * prefix first). */
static bool sorts_after_last(const dir_writer_t *dw, const char *name,
			     size_t len)
{
	const dir_entry_t *last;
	const char *prev;
	size_t n;
	int cmp;

	if (dw->entries.count == 0)
		return true;
	last = (const dir_entry_t *)dw->entries.data + dw->entries.count - 1;
	prev = (const char *)dw->names.data + last->name_off;
	n = len < last->name_len ? len : last->name_len;
	cmp = memcmp(prev, name, n);
	if (cmp != 0)
		return cmp < 0;
	return last->name_len < len;
}

int dir_writer_add_entry(dir_writer_t *dw, const char *name,
			 uint32_t inode_number, uint64_t inode_ref,
			 uint16_t inode_type)
{
	dir_entry_t *ent;
	size_t len;
	int ret;

	if (dw == NULL || name == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (!dw->open)
		return SQFS_ERROR_SEQUENCE;

	/* stop at 257 bytes: a longer name is refused whatever its end */
	for (len = 0; len <= SQFS_NAME_MAX && name[len] != '\0'; ++len)
		;
	ret = check_name(name, len);
	if (ret != 0)
		return ret;
	if (inode_type < SQFS_INODE_DIR || inode_type > SQFS_INODE_EXT_SOCKET ||
	    inode_number == 0)
		return SQFS_ERROR_ARG_INVALID;
	if ((inode_ref & 0xFFFF) >= SQFS_META_BLOCK_SIZE)
		return SQFS_ERROR_ARG_INVALID;
	if ((inode_ref >> 16) > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	if (!sorts_after_last(dw, name, len))
		return SQFS_ERROR_SEQUENCE;

	ret = array_reserve(&dw->entries, sizeof(dir_entry_t), 1);
	if (ret != 0)
		return ret;
	ret = array_reserve(&dw->names, 1, len);
	if (ret != 0)
		return ret;

	ent = (dir_entry_t *)dw->entries.data + dw->entries.count++;
	ent->name_off = dw->names.count;
	ent->name_len = (uint16_t)len;
	ent->type = sqfs_inode_type_basic(inode_type);
	ent->inode_number = inode_number;
	ent->inode_ref = inode_ref;
	memcpy((char *)dw->names.data + dw->names.count, name, len);
	dw->names.count += len;
	return 0;
}

/*
 * Whether ent can join the run that opened with first. anchor is the
 * md-block (counted in the uncompressed stream) where the run's first
 * entry ends; next_pos is where ent would go.
 */
static bool fits_run(const dir_entry_t *first, size_t run_count,
		     const dir_entry_t *ent, uint64_t anchor, uint64_t next_pos)
{
	int64_t delta;

	if (run_count >= SQFS_DIR_MAX_RUN_ENTRIES)
		return false;
	if ((ent->inode_ref >> 16) != (first->inode_ref >> 16))
		return false;
	delta = (int64_t)ent->inode_number - (int64_t)first->inode_number;
	if (delta < -MAX_DELTA || delta > MAX_DELTA)
		return false;
	/* a run crosses no block boundary after its first entry, so every
	 * md-block boundary is followed closely by an indexable header */
	return (next_pos + SQFS_DIR_ENTRY_SIZE + ent->name_len - 1) /
		   SQFS_META_BLOCK_SIZE ==
	       anchor;
}

static void finish_run(dir_writer_t *dw, size_t run_count)
{
	const run_t *run = (const run_t *)dw->runs.data + dw->runs.count - 1;

	put_le32((uint8_t *)dw->listing.data + run->offset,
		 (uint32_t)(run_count - 1));
}

static int open_run(dir_writer_t *dw, size_t first)
{
	const dir_entry_t *ent = (const dir_entry_t *)dw->entries.data + first;
	uint8_t hdr[SQFS_DIR_HEADER_SIZE];
	run_t *run;
	int ret;

	ret = array_reserve(&dw->runs, sizeof(run_t), 1);
	if (ret != 0)
		return ret;
	run = (run_t *)dw->runs.data + dw->runs.count++;
	run->offset = dw->listing.count;
	run->first = first;

	/* the count is patched in when the run is finished */
	put_le32(hdr, 0);
	put_le32(hdr + 4, (uint32_t)(ent->inode_ref >> 16));
	put_le32(hdr + 8, ent->inode_number);
	return array_append_bytes(&dw->listing, hdr, sizeof(hdr));
}

/* Encode the whole listing; start_off is its offset in the first block. */
static int encode_listing(dir_writer_t *dw, uint32_t start_off)
{
	const dir_entry_t *ents = dw->entries.data, *first = NULL;
	size_t i, run_count = 0;
	uint64_t anchor = 0, pos;
	uint8_t buf[SQFS_DIR_ENTRY_SIZE];
	int ret;

	for (i = 0; i < dw->entries.count; ++i) {
		const dir_entry_t *ent = ents + i;

		pos = (uint64_t)start_off + dw->listing.count;
		if (run_count == 0 ||
		    !fits_run(first, run_count, ent, anchor, pos)) {
			if (run_count > 0)
				finish_run(dw, run_count);
			first = ent;
			run_count = 0;
			ret = open_run(dw, i);
			if (ret != 0)
				return ret;
		}

		put_le16(buf, (uint16_t)(ent->inode_ref & 0xFFFF));
		put_le16(buf + 2,
			 (uint16_t)(int16_t)((int64_t)ent->inode_number -
					     first->inode_number));
		put_le16(buf + 4, ent->type);
		put_le16(buf + 6, (uint16_t)(ent->name_len - 1));
		ret = array_append_bytes(&dw->listing, buf, sizeof(buf));
		if (ret == 0)
			ret = array_append_bytes(&dw->listing,
						 (const char *)dw->names.data +
						     ent->name_off,
						 ent->name_len);
		if (ret != 0)
			return ret;
		if (run_count++ == 0) {
			anchor = ((uint64_t)start_off + dw->listing.count - 1) /
				 SQFS_META_BLOCK_SIZE;
		}

		if (dw->listing.count > MAX_LISTING_SIZE)
			return SQFS_ERROR_OVERFLOW;
	}
	if (run_count > 0)
		finish_run(dw, run_count);
	return 0;
}

static int add_index_entry(dir_writer_t *dw, const run_t *run, uint64_t block)
{
	const dir_entry_t *ent =
	    (const dir_entry_t *)dw->entries.data + run->first;
	uint8_t hdr[SQFS_DIR_INDEX_HEADER_SIZE];
	int ret;

	if (block > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	put_le32(hdr, (uint32_t)run->offset);
	put_le32(hdr + 4, (uint32_t)block);
	put_le32(hdr + 8, (uint32_t)ent->name_len - 1);
	ret = array_append_bytes(&dw->index, hdr, sizeof(hdr));
	if (ret == 0)
		ret = array_append_bytes(
		    &dw->index, (const char *)dw->names.data + ent->name_off,
		    ent->name_len);
	if (ret == 0)
		++dw->index_count;
	return ret;
}

/*
 * Append the listing, pausing at each header to be indexed to note the
 * block it lands in. Past 65535 headers only every stride-th is indexed:
 * the index is a lookup shortcut and a subset of headers is still valid.
 * Every header's start_block is an inode-table block number, declared to
 * the stream before any of the listing is appended.
 */
static int emit_listing(dir_writer_t *dw)
{
	const run_t *runs = dw->runs.data;
	const dir_entry_t *ents = dw->entries.data;
	const uint8_t *data = dw->listing.data;
	size_t i, done = 0, stride = 1;
	bool indexed = dw->entries.count >= INDEX_MIN_ENTRIES;
	uint64_t block;
	uint32_t offset;
	int ret;

	for (i = 0; i < dw->runs.count; ++i) {
		ret = meta_stream_refer(dw->ms, runs[i].offset + 4,
					ents[runs[i].first].inode_ref >> 16);
		if (ret != 0)
			return ret;
	}

	if (indexed) {
		stride = dw->runs.count / MAX_INDEX_COUNT +
			 (dw->runs.count % MAX_INDEX_COUNT != 0 ? 1 : 0);
		for (i = 0; i < dw->runs.count; i += stride) {
			ret = meta_stream_append(dw->ms, data + done,
						 runs[i].offset - done);
			if (ret != 0)
				return ret;
			done = runs[i].offset;

			meta_stream_position(dw->ms, &block, &offset);
			ret = add_index_entry(dw, runs + i, block);
			if (ret != 0)
				return ret;
		}
	}
	return meta_stream_append(dw->ms, data + done,
				  dw->listing.count - done);
}

int dir_writer_end(dir_writer_t *dw)
{
	uint64_t block;
	uint32_t offset;
	int ret;

	if (dw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (!dw->open)
		return SQFS_ERROR_SEQUENCE;
	dw->open = false;

	meta_stream_position(dw->ms, &block, &offset);
	if (block > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	dw->dir_ref = (block << 16) | offset;

	ret = encode_listing(dw, offset);
	if (ret == 0)
		ret = emit_listing(dw);
	if (ret != 0)
		return ret;
	dw->size = dw->listing.count;
	return 0;
}

uint64_t dir_writer_get_size(const dir_writer_t *dw)
{
	return dw->size;
}

uint64_t dir_writer_get_dir_reference(const dir_writer_t *dw)
{
	return dw->dir_ref;
}

size_t dir_writer_get_entry_count(const dir_writer_t *dw)
{
	return dw->entries.count;
}

const uint8_t *dir_writer_get_index(const dir_writer_t *dw, size_t *size,
				    size_t *count)
{
	if (size != NULL)
		*size = dw->index.count;
	if (count != NULL)
		*count = dw->index_count;
	return dw->index.data;
}
