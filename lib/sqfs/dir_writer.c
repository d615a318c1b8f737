/* SPDX-License-Identifier: MIT */
/*
 * dir_writer.c - lays out directory listings as runs of header + entries.
 *
 * A listing goes out as its entries come, a run at a time: a run's entry
 * count is only known when it ends, so the run being filled (at most 256
 * entries, inside one metadata block but for its first entry) waits in a
 * buffer, and is appended when the next entry does not fit it. Where the
 * listing starts in the uncompressed stream is known at dir_writer_begin,
 * so the run boundaries, which depend on it, are decided as entries come.
 * Before each header goes out, the position of the metadata block that
 * will hold it is noted for the directory index; which headers the index
 * takes depends on how many there are, so that is decided at the end from
 * the notes (a few dozen bytes per run). So a directory of a million
 * entries takes no more memory than one of a thousand.
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

struct dir_writer {
	meta_stream_t *ms;
	bool open;

	/* Where the listing starts, and its bytes appended so far. */
	uint64_t dir_ref;
	uint32_t start_off;
	uint64_t size;
	size_t count;

	/* The run being filled: its header's inode block and base number,
	 * its entries (encoded, without the header), the md-block where its
	 * first entry ends, and that entry's name, for the index. */
	size_t run_count;
	uint64_t run_block;
	uint32_t run_base;
	uint64_t anchor;
	array_t run; /* uint8_t */
	char run_name[SQFS_NAME_MAX + 1];
	size_t run_name_len;

	/* The last name added, for the order check. */
	char last[SQFS_NAME_MAX + 1];
	size_t last_len;

	/* An index entry for every run (on-disk form), and their count;
	 * index: those the directory index takes, set at the end. */
	array_t notes; /* uint8_t */
	size_t runs;
	array_t index; /* uint8_t */
	size_t index_count;
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
	array_cleanup(&dw->run);
	array_cleanup(&dw->notes);
	array_cleanup(&dw->index);
	free(dw);
}

int dir_writer_begin(dir_writer_t *dw)
{
	uint64_t block;
	uint32_t offset;

	if (dw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	meta_stream_position(dw->ms, &block, &offset);
	if (block > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	dw->dir_ref = (block << 16) | offset;
	dw->start_off = offset;
	dw->size = 0;
	dw->count = 0;
	dw->run_count = 0;
	dw->run.count = 0;
	dw->last_len = 0;
	dw->notes.count = 0;
	dw->runs = 0;
	dw->index.count = 0;
	dw->index_count = 0;
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
	size_t n = len < dw->last_len ? len : dw->last_len;
	int cmp;

	if (dw->count == 0)
		return true;
	cmp = memcmp(dw->last, name, n);
	if (cmp != 0)
		return cmp < 0;
	return dw->last_len < len;
}

/*
 * Whether an entry (inode_ref, inode_number, a name of len bytes) can
 * join the run being filled; next_pos is where it would go, counted in the
 * uncompressed stream.
 */
static bool fits_run(const dir_writer_t *dw, uint64_t inode_ref,
		     uint32_t inode_number, size_t len, uint64_t next_pos)
{
	int64_t delta;

	if (dw->run_count >= SQFS_DIR_MAX_RUN_ENTRIES)
		return false;
	if ((inode_ref >> 16) != dw->run_block)
		return false;
	delta = (int64_t)inode_number - (int64_t)dw->run_base;
	if (delta < -MAX_DELTA || delta > MAX_DELTA)
		return false;
	/* a run crosses no block boundary after its first entry, so every
	 * md-block boundary is followed closely by an indexable header */
	return (next_pos + SQFS_DIR_ENTRY_SIZE + len - 1) /
		   SQFS_META_BLOCK_SIZE ==
	       dw->anchor;
}

/* Append the run being filled: note where its header lands for the
 * index, declare its start_block to the stream, then header and entries. */
static int flush_run(dir_writer_t *dw)
{
	uint8_t hdr[SQFS_DIR_HEADER_SIZE];
	uint64_t block;
	uint32_t offset;
	int ret;

	if (dw->run_count == 0)
		return 0;
	meta_stream_position(dw->ms, &block, &offset);
	if (block > UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	put_le32(hdr, (uint32_t)dw->size);
	put_le32(hdr + 4, (uint32_t)block);
	put_le32(hdr + 8, (uint32_t)dw->run_name_len - 1);
	ret = array_append_bytes(&dw->notes, hdr, sizeof(hdr));
	if (ret == 0)
		ret = array_append_bytes(&dw->notes, dw->run_name,
					 dw->run_name_len);
	if (ret != 0)
		return ret;
	dw->runs += 1;

	ret = meta_stream_refer(dw->ms, 4, dw->run_block);
	if (ret != 0)
		return ret;
	put_le32(hdr, (uint32_t)(dw->run_count - 1));
	put_le32(hdr + 4, (uint32_t)dw->run_block);
	put_le32(hdr + 8, dw->run_base);
	ret = meta_stream_append(dw->ms, hdr, sizeof(hdr));
	if (ret == 0)
		ret = meta_stream_append(dw->ms, dw->run.data, dw->run.count);
	if (ret != 0)
		return ret;
	dw->size += sizeof(hdr) + dw->run.count;
	dw->run.count = 0;
	dw->run_count = 0;
	return 0;
}

int dir_writer_add_entry(dir_writer_t *dw, const char *name,
			 uint32_t inode_number, uint64_t inode_ref,
			 uint16_t inode_type)
{
	uint8_t buf[SQFS_DIR_ENTRY_SIZE];
	uint64_t pos, end;
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

	/* where the entry goes: after the listing so far and the run */
	pos = (uint64_t)dw->start_off + dw->size +
	      (dw->run_count > 0 ? SQFS_DIR_HEADER_SIZE + dw->run.count : 0);
	if (dw->run_count == 0 ||
	    !fits_run(dw, inode_ref, inode_number, len, pos)) {
		ret = flush_run(dw);
		if (ret != 0)
			return ret;
		dw->run_block = inode_ref >> 16;
		dw->run_base = inode_number;
		memcpy(dw->run_name, name, len);
		dw->run_name_len = len;
		pos = (uint64_t)dw->start_off + dw->size + SQFS_DIR_HEADER_SIZE;
	}
	end = pos + sizeof(buf) + len;
	if (end - dw->start_off > MAX_LISTING_SIZE)
		return SQFS_ERROR_OVERFLOW;

	put_le16(buf, (uint16_t)(inode_ref & 0xFFFF));
	put_le16(buf + 2,
		 (uint16_t)(int16_t)((int64_t)inode_number - dw->run_base));
	put_le16(buf + 4, sqfs_inode_type_basic(inode_type));
	put_le16(buf + 6, (uint16_t)(len - 1));
	ret = array_append_bytes(&dw->run, buf, sizeof(buf));
	if (ret == 0)
		ret = array_append_bytes(&dw->run, name, len);
	if (ret != 0)
		return ret;
	if (dw->run_count++ == 0)
		dw->anchor = (end - 1) / SQFS_META_BLOCK_SIZE;

	memcpy(dw->last, name, len);
	dw->last_len = len;
	dw->count += 1;
	return 0;
}

/*
 * The directory index: a header per run, or past 65535 runs only every
 * stride-th (the index is a lookup shortcut and a subset of headers is
 * still valid).
 */
static int make_index(dir_writer_t *dw)
{
	const uint8_t *p = dw->notes.data;
	size_t stride, i;
	int ret;

	if (dw->count < INDEX_MIN_ENTRIES)
		return 0;
	stride = dw->runs / MAX_INDEX_COUNT +
		 (dw->runs % MAX_INDEX_COUNT != 0 ? 1 : 0);
	for (i = 0; i < dw->runs; ++i) {
		size_t bytes = SQFS_DIR_INDEX_HEADER_SIZE + get_le32(p + 8) + 1;

		if (i % stride == 0) {
			ret = array_append_bytes(&dw->index, p, bytes);
			if (ret != 0)
				return ret;
			++dw->index_count;
		}
		p += bytes;
	}
	return 0;
}

int dir_writer_end(dir_writer_t *dw)
{
	int ret;

	if (dw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (!dw->open)
		return SQFS_ERROR_SEQUENCE;
	dw->open = false;

	ret = flush_run(dw);
	if (ret == 0)
		ret = make_index(dw);
	return ret;
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
	return dw->count;
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
