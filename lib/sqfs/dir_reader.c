/* SPDX-License-Identifier: MIT */
/*
 * dir_reader.c - parses directory listings, checking every field before it
 * is handed out, and looks names and paths up in them.
 *
 * A listing is read through the reader's own metadata reader, confined to
 * the directory table, so a listing can never lead the reader into another
 * table. The byte count of the listing is tracked exactly: a run whose
 * header or entries would cross the end is corruption, not the end.
 *
 * A lookup starts at the directory index where the listing has one, and
 * otherwise at a checkpoint the reader noted while reading the listing
 * before (see note_checkpoint), never at the top of a long listing again.
 */
#include "config.h"

#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"

#include "dir_reader_internal.h"
#include "path_internal.h"
#include "image_internal.h"
#include "util/le.h"
#include "sqfs/format_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The image's error text, where the reader words its failures. */
#define ERR(dr) image_errtext((dr)->img)

/* Checkpoints kept for one listing (about 17 KiB). */
#define MAX_CHECKPOINTS 64u

/* A run of a listing read before: what a directory index entry gives. */
typedef struct {
	/* Metadata reader position of the run's header. */
	uint64_t block;
	/* Listing bytes from the header on. */
	uint64_t remaining;
	uint16_t offset;
	/* The run's first name. */
	uint16_t name_len;
	char name[SQFS_NAME_MAX];
} checkpoint_t;

struct sqfs_dir_reader {
	sqfs_image_t *img;
	const sqfs_super_t *super;
	sqfs_meta_reader_t *mr;
	uint64_t table_start;

	/* block and offset of st are only filled in by a save */
	dir_state_t st;
	/* A listing that failed keeps failing until it is reopened. */
	errtext_kept_t failure;
	/* The inode number of the directory whose listing is open, for
	 * the words of an error. */
	uint32_t dir_number;

	char name[SQFS_NAME_MAX + 1];

	/* Checkpoints of the listing named by cp_block, cp_offset and
	 * cp_size (as in dir_state_t), in listing order and at least
	 * cp_spacing listing bytes apart. */
	uint64_t cp_block;
	uint32_t cp_size;
	uint16_t cp_offset;
	size_t cp_count;
	uint64_t cp_spacing;
	checkpoint_t cp[MAX_CHECKPOINTS];
};

/* Unsigned byte order; a prefix sorts first. */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int ret = memcmp(a, b, alen < blen ? alen : blen);

	if (ret != 0)
		return ret;
	return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

int sqfs_dir_reader_create(sqfs_image_t *img, sqfs_dir_reader_t **out)
{
	sqfs_dir_reader_t *dr;
	int ret;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	dr = calloc(1, sizeof(*dr));
	if (dr == NULL)
		return SQFS_ERROR_ALLOC;
	ret = image_open_dir_table(img, &dr->mr);
	if (ret != 0) {
		free(dr);
		return ret;
	}
	dr->img = img;
	dr->super = sqfs_image_super(img);
	dr->table_start = dr->super->directory_table_start;
	*out = dr;
	return 0;
}

void sqfs_dir_reader_destroy(sqfs_dir_reader_t *dr)
{
	if (dr == NULL)
		return;
	sqfs_meta_reader_destroy(dr->mr);
	free(dr);
}

static bool is_dir(const sqfs_inode_t *inode)
{
	return inode->type == SQFS_INODE_DIR ||
	       inode->type == SQFS_INODE_EXT_DIR;
}

static void close_listing(sqfs_dir_reader_t *dr)
{
	memset(&dr->st, 0, sizeof(dr->st));
	dr->failure.code = 0;
}

/* Mark the listing of dir open, with remaining bytes still to read from
 * the metadata reader's position. */
static void begin_listing(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
			  uint64_t remaining)
{
	dr->st.start_block = dr->table_start + dir->data.dir.start_block;
	dr->st.start_offset = (uint16_t)dir->data.dir.offset;
	dr->st.size = dir->data.dir.size;
	dr->st.remaining = remaining;
	dr->st.open = true;
}

int sqfs_dir_reader_open(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir)
{
	uint32_t size;
	int ret;

	if (dr == NULL || dir == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(dr));
	close_listing(dr);
	dr->dir_number = dir->inode_number;
	if (!is_dir(dir))
		return errtext_set(ERR(dr), SQFS_ERROR_NOT_DIR,
				   "inode %u: not a directory",
				   dir->inode_number);

	size = dir->data.dir.size;
	if (size < SQFS_DIR_SIZE_EMPTY ||
	    (size > SQFS_DIR_SIZE_EMPTY && size < SQFS_DIR_SIZE_MIN) ||
	    dir->data.dir.offset >= SQFS_META_BLOCK_SIZE)
		return errtext_set(ERR(dr), SQFS_ERROR_CORRUPTED,
				   "directory inode %u: listing of %u "
				   "bytes at offset %u is impossible",
				   dir->inode_number, size,
				   (unsigned int)dir->data.dir.offset);

	/* an empty directory's position may be the very end of the table */
	if (size > SQFS_DIR_SIZE_EMPTY) {
		ret = sqfs_meta_reader_seek(
		    dr->mr, dr->table_start + dir->data.dir.start_block,
		    dir->data.dir.offset);
		if (ret != 0)
			return errtext_end(ERR(dr), ret,
					   "directory inode %u: listing",
					   dir->inode_number);
	}
	begin_listing(dr, dir, size - SQFS_DIR_SIZE_EMPTY);
	return 0;
}

/* A listing that breaks the format; the words name the directory. */
static int listing_damaged(sqfs_dir_reader_t *dr, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(2, 3);

static int listing_damaged(sqfs_dir_reader_t *dr, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errtext_set(ERR(dr), SQFS_ERROR_CORRUPTED,
			   "directory inode %u: listing holds %s",
			   dr->dir_number, what);
}

static int read_header(sqfs_dir_reader_t *dr)
{
	dir_state_t *st = &dr->st;
	uint8_t raw[SQFS_DIR_HEADER_SIZE];
	uint32_t count, block;
	int ret;

	/* a header needs at least one entry with a one-byte name after it */
	if (st->remaining < SQFS_DIR_HEADER_SIZE + SQFS_DIR_ENTRY_SIZE + 1)
		return listing_damaged(dr, "a run header with no room for an "
					   "entry after it");
	ret = sqfs_meta_reader_read(dr->mr, raw, sizeof(raw));
	if (ret != 0)
		return ret;
	st->remaining -= SQFS_DIR_HEADER_SIZE;

	count = get_le32(raw);
	block = get_le32(raw + 4);
	if (count >= SQFS_DIR_MAX_RUN_ENTRIES)
		return listing_damaged(dr, "a run of %u entries",
				       (unsigned int)count + 1);
	if (dr->super->inode_table_start + block >=
	    dr->super->directory_table_start)
		return listing_damaged(dr,
				       "a run's inode block %u is past "
				       "the inode table",
				       (unsigned int)block);

	st->run_left = count + 1;
	st->run_count = (uint16_t)(count + 1);
	st->run_block = block;
	st->run_base = get_le32(raw + 8);
	return 0;
}

/*
 * A lookup in a listing without a usable index reads from the top to its
 * name, and once the listing is longer than the metadata reader's cache,
 * every such lookup decodes all the blocks before its name again: no
 * cache of fixed size helps a scan that always restarts at the top. So
 * while a listing is read, the first run that starts in each new block is
 * noted (position, bytes left, first name: what a directory index entry
 * gives) for lookups to start from. Listings within one block get none,
 * so a short listing read in between (the parent's, on a path) leaves the
 * checkpoints of a long one alone. Only one listing's are kept; when
 * MAX_CHECKPOINTS are taken, every second one is dropped and the spacing
 * doubles, so memory is fixed and a lookup reads a few blocks at most.
 */
static void note_checkpoint(sqfs_dir_reader_t *dr, uint64_t block,
			    size_t offset, uint64_t remaining, const char *name,
			    size_t len)
{
	const dir_state_t *st = &dr->st;
	checkpoint_t *cp;
	size_t i;

	if (block == st->start_block)
		return;
	if (dr->cp_block != st->start_block ||
	    dr->cp_offset != st->start_offset || dr->cp_size != st->size) {
		dr->cp_block = st->start_block;
		dr->cp_offset = st->start_offset;
		dr->cp_size = st->size;
		dr->cp_count = 0;
		dr->cp_spacing = 0;
	}

	/*
	 * A listing is read forwards: only past the last one is new. Names
	 * must increase too, which a read that began at a hostile directory
	 * index need not have checked; the search relies on it.
	 */
	if (dr->cp_count > 0) {
		cp = &dr->cp[dr->cp_count - 1];
		if (remaining >= cp->remaining || block == cp->block ||
		    cp->remaining - remaining < dr->cp_spacing ||
		    name_cmp(cp->name, cp->name_len, name, len) >= 0)
			return;
	}
	if (dr->cp_count == MAX_CHECKPOINTS) {
		for (i = 1; i < MAX_CHECKPOINTS / 2; ++i)
			dr->cp[i] = dr->cp[2 * i];
		dr->cp_count = MAX_CHECKPOINTS / 2;
		dr->cp_spacing = 2 * dr->cp_spacing + SQFS_META_BLOCK_SIZE;
		cp = &dr->cp[dr->cp_count - 1];
		if (cp->remaining - remaining < dr->cp_spacing)
			return;
	}

	cp = &dr->cp[dr->cp_count++];
	cp->block = block;
	cp->offset = (uint16_t)offset;
	cp->remaining = remaining;
	cp->name_len = (uint16_t)len;
	memcpy(cp->name, name, len);
}

static int read_entry(sqfs_dir_reader_t *dr, sqfs_dir_entry_t *ent)
{
	dir_state_t *st = &dr->st;
	uint64_t hdr_block = 0, hdr_remaining = 0;
	size_t len, hdr_offset = 0;
	uint8_t raw[SQFS_DIR_ENTRY_SIZE];
	uint16_t offset, type;
	bool new_run = false;
	int64_t number;
	int ret;

	if (st->run_left == 0) {
		if (st->remaining == 0)
			return 1;
		sqfs_meta_reader_get_position(dr->mr, &hdr_block, &hdr_offset);
		hdr_remaining = st->remaining;
		ret = read_header(dr);
		if (ret != 0)
			return ret;
		new_run = true;
		st->hdr_block = hdr_block;
		st->hdr_offset = (uint16_t)hdr_offset;
		st->hdr_remaining = hdr_remaining;
	}
	if (st->remaining < SQFS_DIR_ENTRY_SIZE + 1)
		return listing_damaged(dr, "a run that ends past the listing");

	ret = sqfs_meta_reader_read(dr->mr, raw, sizeof(raw));
	if (ret != 0)
		return ret;
	st->remaining -= SQFS_DIR_ENTRY_SIZE;

	offset = get_le16(raw);
	number = (int64_t)st->run_base + (int16_t)get_le16(raw + 2);
	type = get_le16(raw + 4);
	len = (size_t)get_le16(raw + 6) + 1;

	if (offset >= SQFS_META_BLOCK_SIZE)
		return listing_damaged(dr, "an inode offset of %u",
				       (unsigned int)offset);
	if (number < 1 || number > (int64_t)UINT32_MAX ||
	    number > (int64_t)dr->super->inode_count)
		return listing_damaged(dr, "inode number %lld, outside 1..%u",
				       (long long)number,
				       dr->super->inode_count);
	if (type < SQFS_INODE_DIR || type > SQFS_INODE_SOCKET)
		return listing_damaged(dr, "an entry of unknown type %u",
				       (unsigned int)type);
	if (len > SQFS_NAME_MAX || len > st->remaining)
		return listing_damaged(dr, "a name of %zu bytes", len);

	ret = sqfs_meta_reader_read(dr->mr, dr->name, len);
	if (ret != 0)
		return ret;
	st->remaining -= len;
	dr->name[len] = '\0';

	if (!sqfs_name_is_valid(dr->name, len))
		return listing_damaged(dr, "an invalid name (empty, '.', "
					   "'..', or with '/' or NUL)");
	if (st->prev_len > 0 &&
	    name_cmp(st->prev, st->prev_len, dr->name, len) >= 0)
		return listing_damaged(dr,
				       "names out of order or twice "
				       "('%s')",
				       dr->name);
	memcpy(st->prev, dr->name, len);
	st->prev_len = (uint16_t)len;
	st->run_left -= 1;

	/* only now that its first entry passed every check */
	if (new_run)
		note_checkpoint(dr, hdr_block, hdr_offset, hdr_remaining,
				dr->name, len);

	ent->name = dr->name;
	ent->name_len = len;
	ent->inode_ref = ((uint64_t)st->run_block << 16) | offset;
	ent->inode_number = (uint32_t)number;
	ent->type = type;
	return 0;
}

int sqfs_dir_reader_next(sqfs_dir_reader_t *dr, sqfs_dir_entry_t *ent)
{
	int ret;

	if (dr == NULL || ent == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(dr));
	ret = errtext_repeat(ERR(dr), &dr->failure);
	if (ret != 0)
		return ret;
	if (!dr->st.open)
		return errtext_set(ERR(dr), SQFS_ERROR_SEQUENCE,
				   "no directory listing is open");
	ret = read_entry(dr, ent);
	if (ret >= 0)
		return ret;
	errtext_end(ERR(dr), ret, "directory inode %u: listing",
		    dr->dir_number);
	return errtext_keep(ERR(dr), &dr->failure, ret);
}

/*
 * Position the listing at the last indexed header whose name is <= the
 * target, so that the next entry read is the one the index names. Returns
 * false (and leaves the listing alone) when there is no such header or
 * anything about the index is off: it only ever saves time.
 */
static bool seek_index(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		       const char *name, size_t len, const uint8_t **iname,
		       size_t *ilen)
{
	uint32_t listing = dir->data.dir.size - SQFS_DIR_SIZE_EMPTY;
	uint32_t index = 0, start = 0, best_index = 0, best_start = 0;
	const uint8_t *p, *prev = NULL, *best = NULL;
	size_t pos = 0, size = 0, prev_size = 0, best_size = 0;
	uint64_t off, blocks, dist;
	uint32_t i;

	if (dir->type != SQFS_INODE_EXT_DIR)
		return false;
	for (i = 0; i < dir->data.dir.index_count; ++i) {
		if (dir->payload_size - pos < SQFS_DIR_INDEX_HEADER_SIZE)
			return false;
		p = dir->payload + pos;
		size = (size_t)get_le32(p + 8) + 1;
		if (size == 0 || size > SQFS_NAME_MAX ||
		    size > dir->payload_size - pos - SQFS_DIR_INDEX_HEADER_SIZE)
			return false;
		if (prev != NULL &&
		    (get_le32(p) <= index || get_le32(p + 4) < start ||
		     name_cmp((const char *)prev, prev_size,
			      (const char *)p + SQFS_DIR_INDEX_HEADER_SIZE,
			      size) >= 0))
			return false;
		index = get_le32(p);
		start = get_le32(p + 4);
		if (index >= listing)
			return false;
		prev = p + SQFS_DIR_INDEX_HEADER_SIZE;
		prev_size = size;
		pos += SQFS_DIR_INDEX_HEADER_SIZE + size;

		/* names increase, so no later entry can be <= the target */
		if (name_cmp((const char *)prev, size, name, len) > 0)
			break;
		best = prev;
		best_size = size;
		best_index = index;
		best_start = start;
	}
	if (best == NULL || best_index == 0)
		return false;

	/*
	 * Only full 8 KiB blocks make (offset + index) % 8192 the header's
	 * place in its block; the block must be as far on as that many
	 * blocks can be on disk.
	 */
	off = (uint64_t)dir->data.dir.offset + best_index;
	blocks = off / SQFS_META_BLOCK_SIZE;
	if (best_start < dir->data.dir.start_block)
		return false;
	dist = best_start - dir->data.dir.start_block;
	if (dist < blocks * SQFS_META_MIN_DISK_SIZE ||
	    dist > blocks * SQFS_META_MAX_DISK_SIZE)
		return false;
	if (listing - best_index <
	    SQFS_DIR_HEADER_SIZE + SQFS_DIR_ENTRY_SIZE + best_size)
		return false;
	if (sqfs_meta_reader_seek(dr->mr, dr->table_start + best_start,
				  off % SQFS_META_BLOCK_SIZE) != 0)
		return false;

	close_listing(dr);
	begin_listing(dr, dir, listing - best_index);
	*iname = best;
	*ilen = best_size;
	return true;
}

/*
 * Position the listing at the last checkpoint of dir's listing whose name
 * is <= the target. Returns false (and leaves the listing alone) when
 * there is none.
 */
static bool seek_checkpoint(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
			    const char *name, size_t len, const uint8_t **cname,
			    size_t *clen)
{
	size_t lo = 0, hi = dr->cp_count, mid;
	const checkpoint_t *cp;

	if (dr->cp_count == 0 ||
	    dr->cp_block != dr->table_start + dir->data.dir.start_block ||
	    dr->cp_offset != dir->data.dir.offset ||
	    dr->cp_size != dir->data.dir.size)
		return false;

	/* checkpoint names increase, as the listing's do */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (name_cmp(dr->cp[mid].name, dr->cp[mid].name_len, name,
			     len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	cp = &dr->cp[lo - 1];
	if (sqfs_meta_reader_seek(dr->mr, cp->block, cp->offset) != 0) {
		/* it worked before: the file changed, start over */
		dr->cp_count = 0;
		return false;
	}

	close_listing(dr);
	begin_listing(dr, dir, cp->remaining);
	/* reading the run at cp again adds no checkpoint, so this stays */
	*cname = (const uint8_t *)cp->name;
	*clen = cp->name_len;
	return true;
}

/* Read the entry that opens the run the listing was positioned at, and
 * check it is the one named (as an index or checkpoint said). */
static bool run_starts_with(sqfs_dir_reader_t *dr, const uint8_t *name,
			    size_t len, sqfs_dir_entry_t *ent)
{
	int ret = sqfs_dir_reader_next(dr, ent);

	return ret == 0 &&
	       name_cmp(ent->name, ent->name_len, (const char *)name, len) == 0;
}

static int find_name(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		     const char *name, size_t len, sqfs_dir_entry_t *ent)
{
	const uint8_t *iname = NULL;
	bool have = false;
	size_t ilen = 0;
	int ret;

	if (!is_dir(dir))
		return SQFS_ERROR_NOT_DIR;
	if (!sqfs_name_is_valid(name, len))
		return SQFS_ERROR_NO_ENTRY;

	if (seek_index(dr, dir, name, len, &iname, &ilen))
		have = run_starts_with(dr, iname, ilen, ent);
	if (!have && seek_checkpoint(dr, dir, name, len, &iname, &ilen)) {
		have = run_starts_with(dr, iname, ilen, ent);
		/* only a file changed underneath (or a failed read) can
		 * do this: start over */
		if (!have)
			dr->cp_count = 0;
	}
	if (!have) {
		ret = sqfs_dir_reader_open(dr, dir);
		if (ret != 0)
			return ret;
	}

	for (;;) {
		if (!have) {
			ret = sqfs_dir_reader_next(dr, ent);
			if (ret < 0)
				return ret;
			if (ret > 0)
				return SQFS_ERROR_NO_ENTRY;
		}
		have = false;
		ret = name_cmp(ent->name, ent->name_len, name, len);
		if (ret == 0)
			return 0;
		if (ret > 0)
			return SQFS_ERROR_NO_ENTRY;
	}
}

int sqfs_dir_reader_find(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
			 const char *name, sqfs_dir_entry_t *ent)
{
	size_t len;
	int ret;

	if (dr == NULL || dir == NULL || name == NULL || ent == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(dr));
	len = strlen(name);
	if (len == 0 || memchr(name, '/', len) != NULL)
		return errtext_set(ERR(dr), SQFS_ERROR_ARG_INVALID,
				   "'%s': not a name", name);
	ret = find_name(dr, dir, name, len, ent);
	if (ret == SQFS_ERROR_NO_ENTRY)
		return errtext_set(ERR(dr), ret,
				   "directory inode %u: no entry "
				   "'%s'",
				   dir->inode_number, name);
	return errtext_end(ERR(dr), ret, "looking up '%s'", name);
}

int sqfs_dir_reader_resolve(sqfs_dir_reader_t *dr, const char *path,
			    sqfs_inode_t **out)
{
	sqfs_inode_t *cur, *next;
	sqfs_dir_entry_t ent;
	const char *rest, *p;
	size_t len;
	int ret;

	if (dr == NULL || path == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(dr));

	/* refuse ".." before any lookup, so the answer never depends on
	 * what happens to exist */
	for (rest = path; (len = path_next(&rest, &p)) > 0;) {
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return errtext_set(ERR(dr), SQFS_ERROR_ARG_INVALID,
					   "'..' in path '%s'", path);
	}

	ret = sqfs_image_read_root(dr->img, &cur);
	if (ret != 0)
		return ret;

	for (rest = path; (len = path_next(&rest, &p)) > 0;) {
		ret = find_name(dr, cur, p, len, &ent);
		ret = path_walk_failed(ERR(dr), ret, path, p, len);
		if (ret != 0)
			goto fail;
		ret = sqfs_image_read_inode(dr->img, ent.inode_ref, &next);
		if (ret != 0)
			goto fail;
		free(cur);
		cur = next;
		if (cur->inode_number != ent.inode_number) {
			ret = errtext_set(
			    ERR(dr), SQFS_ERROR_CORRUPTED,
			    "'%.*s': the listing says inode %u, the inode "
			    "says %u",
			    (int)((size_t)(p - path) + len), path,
			    ent.inode_number, cur->inode_number);
			goto fail;
		}
	}
	*out = cur;
	return 0;
fail:
	free(cur);
	return errtext_end(ERR(dr), ret, "path '%s'", path);
}

/* ---- for the walker ----------------------------------------------------- */

void dir_reader_save(const sqfs_dir_reader_t *dr, dir_state_t *st)
{
	*st = dr->st;
	sqfs_meta_reader_get_position(dr->mr, &st->block, &st->offset);
}

int dir_reader_restore(sqfs_dir_reader_t *dr, const dir_state_t *st)
{
	int ret;

	close_listing(dr);
	/* at the end the position may be just past the table */
	if (st->open && st->remaining > 0) {
		ret = sqfs_meta_reader_seek(dr->mr, st->block, st->offset);
		if (ret != 0) {
			/* the walk, the one caller, words it */
			dr->failure.code = ret;
			return ret;
		}
	}
	dr->st = *st;
	return 0;
}

/* ---- for the file system's readdir cookies ------------------------------ */

void dir_reader_resume_point(const sqfs_dir_reader_t *dr, dir_resume_t *out)
{
	const dir_state_t *st = &dr->st;

	if (st->run_left > 0) {
		out->block = st->hdr_block;
		out->offset = st->hdr_offset;
		out->remaining = st->hdr_remaining;
		out->skip = (uint32_t)st->run_count - st->run_left;
		return;
	}
	sqfs_meta_reader_get_position(dr->mr, &out->block, &out->offset);
	out->remaining = st->remaining;
	out->skip = 0;
}

int dir_reader_open_at(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		       uint64_t block, size_t offset, uint64_t remaining)
{
	int ret = sqfs_dir_reader_open(dr, dir);

	if (ret != 0)
		return ret;
	if (remaining > dr->st.remaining)
		return errtext_set(ERR(dr), SQFS_ERROR_ARG_INVALID,
				   "directory inode %u: resuming past the "
				   "end of the listing",
				   dir->inode_number);
	if (remaining > 0 && remaining < dr->st.remaining) {
		ret = sqfs_meta_reader_seek(dr->mr, block, offset);
		if (ret != 0)
			return errtext_end(ERR(dr), ret,
					   "directory inode %u: resuming the "
					   "listing",
					   dir->inode_number);
	}
	dr->st.remaining = remaining;
	return 0;
}
