/* SPDX-License-Identifier: MIT */
/*
 * entry.c - one image entry as a tar entry: header, then the data, block
 * by block as the file stream unpacked it, with holes where the image has
 * sparse blocks.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

/* Where the pieces of a file are: blocks 0 .. count - 1, then the tail in
 * a fragment if tail_size is not 0. */
typedef struct {
	uint64_t size;
	uint64_t count;
	uint32_t block_size;
	uint64_t tail_size;
	const uint8_t *words;
} file_layout_t;

static uint32_t block_word(const file_layout_t *fl, uint64_t i)
{
	uint32_t w;

	/* the payload is a byte array: no alignment to rely on */
	memcpy(&w, fl->words + i * sizeof(w), sizeof(w));
	return w;
}

/* Check the inode's block list against its size, so that every offset
 * below is inside the file. */
static int file_layout(sqfs2tar_t *s, const sqfs_inode_t *inode,
		       file_layout_t *fl)
{
	uint64_t full;

	memset(fl, 0, sizeof(*fl));
	fl->size = inode->data.file.file_size;
	fl->block_size = s->block_size;
	fl->count = sqfs_inode_block_count(inode, s->block_size);
	fl->words = inode->payload;

	if (fl->count > inode->payload_size / sizeof(uint32_t) ||
	    fl->count > UINT64_MAX / s->block_size)
		return SQFS_ERROR_CORRUPTED;
	full = fl->count * s->block_size;
	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT) {
		if (full > fl->size || fl->size - full >= s->block_size)
			return SQFS_ERROR_CORRUPTED;
		fl->tail_size = fl->size - full;
	} else if (fl->count > 0 &&
		   (full < fl->size || full - fl->size >= s->block_size)) {
		return SQFS_ERROR_CORRUPTED;
	} else if (fl->count == 0 && fl->size != 0) {
		return SQFS_ERROR_CORRUPTED;
	}
	return 0;
}

static uint64_t block_len(const file_layout_t *fl, uint64_t i)
{
	uint64_t off = i * fl->block_size;

	return fl->size - off < fl->block_size ? fl->size - off
					       : fl->block_size;
}

/*
 * Give the entry the data ranges of a file with sparse blocks, so that
 * libarchive writes a sparse map and only the data. A file without any
 * sparse block gets no map (a plain entry); one that is all holes gets an
 * empty range at its end, which keeps it sparse.
 */
static void add_sparse_map(struct archive_entry *e, const file_layout_t *fl)
{
	uint64_t i, start = 0, end = 0;
	bool holes = false, in_data = false, any = false;

	for (i = 0; i < fl->count; ++i) {
		if (block_word(fl, i) == 0) {
			holes = true;
			break;
		}
	}
	if (!holes)
		return;

	for (i = 0; i < fl->count; ++i) {
		uint64_t off = i * fl->block_size;

		if (block_word(fl, i) == 0) {
			if (in_data) {
				archive_entry_sparse_add_entry(
				    e, (int64_t)start, (int64_t)(end - start));
				in_data = false;
				any = true;
			}
			continue;
		}
		if (!in_data)
			start = off;
		in_data = true;
		end = off + block_len(fl, i);
	}
	if (fl->tail_size > 0) {
		if (!in_data)
			start = fl->size - fl->tail_size;
		in_data = true;
		end = fl->size;
	}
	if (in_data) {
		archive_entry_sparse_add_entry(e, (int64_t)start,
					       (int64_t)(end - start));
		any = true;
	}
	if (!any)
		archive_entry_sparse_add_entry(e, (int64_t)fl->size, 0);
}

static int put_data(sqfs2tar_t *s, const void *data, size_t size,
		    const char *what)
{
	la_ssize_t ret = archive_write_data(s->ar, data, size);

	if (ret < 0 || (size_t)ret != size) {
		tool_error(what, "writing the archive: %s",
			   tar_out_error(s->ar));
		return -1;
	}
	return 0;
}

/* A hole: libarchive skips the bytes of a range its sparse map leaves
 * out (and may take fewer at the end of the file); only a failure
 * counts. */
static int put_hole(sqfs2tar_t *s, uint64_t size, const char *what)
{
	while (size > 0) {
		size_t n = size < s->block_size ? (size_t)size : s->block_size;

		if (archive_write_data(s->ar, s->zeros, n) < 0) {
			tool_error(what, "writing the archive: %s",
				   tar_out_error(s->ar));
			return -1;
		}
		size -= n;
	}
	return 0;
}

/* The file's bytes, block by block as the read-ahead queue hands them
 * back for the oldest entry (this one). */
static int put_file_data(sqfs2tar_t *s, const file_layout_t *fl,
			 const char *what)
{
	sqfs_file_block_t blk;
	uint64_t expect;
	int ret;

	while ((ret = sqfs_read_ahead_read(s->ahead, &blk)) == 0) {
		expect = blk.index < fl->count ? block_len(fl, blk.index)
					       : fl->tail_size;
		if (blk.size != expect) {
			tool_error(what,
				   "block %llu unpacks to %zu bytes, not %llu",
				   (unsigned long long)blk.index, blk.size,
				   (unsigned long long)expect);
			return -1;
		}
		if (blk.size == 0)
			continue;
		if (blk.flags & SQFS_FILE_BLOCK_SPARSE)
			ret = put_hole(s, blk.size, what);
		else
			ret = put_data(s, blk.data, blk.size, what);
		if (ret != 0)
			return -1;
	}
	if (ret < 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		return -1;
	}
	return 0;
}

static int add_xattrs(sqfs2tar_t *s, const sqfs_inode_t *inode,
		      const char *what)
{
	sqfs_xattr_t *list = NULL;
	size_t count = 0;
	int ret;

	ret = sqfs_image_read_xattrs(s->img, inode, &list, &count);
	if (ret != 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		return -1;
	}
	for (size_t i = 0; i < count; ++i)
		archive_entry_xattr_add_entry(s->ent, list[i].key,
					      list[i].value, list[i].size);
	sqfs_xattr_list_free(list, count);
	return 0;
}

static int set_attributes(sqfs2tar_t *s, const char *name,
			  const sqfs_inode_t *inode, const char *what)
{
	struct archive_entry *e = s->ent;
	uint32_t uid, gid;
	int ret;

	archive_entry_clear(e);
	archive_entry_copy_pathname(e, name);
	archive_entry_set_mode(e, (mode_t)sqfs_inode_mode(inode));
	archive_entry_set_mtime(e, (time_t)inode->mtime, 0);

	ret = sqfs_image_inode_owner(s->img, inode, &uid, &gid);
	if (ret != 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		return -1;
	}
	/* numeric only: names of this machine's users would not be the
	 * image's */
	archive_entry_set_uid(e, uid);
	archive_entry_set_gid(e, gid);
	return 0;
}

static int set_type_data(sqfs2tar_t *s, const sqfs_inode_t *inode,
			 file_layout_t *fl, const char *what)
{
	struct archive_entry *e = s->ent;
	uint32_t major, minor;
	int ret;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_FILE:
		ret = file_layout(s, inode, fl);
		if (ret != 0) {
			tool_error(what,
				   "inode %u: the block list does not match "
				   "the file size",
				   inode->inode_number);
			return -1;
		}
		archive_entry_set_size(e, (int64_t)fl->size);
		add_sparse_map(e, fl);
		break;
	case SQFS_INODE_SLINK:
		if (inode->payload_size <= inode->data.slink.target_size ||
		    inode->payload[inode->data.slink.target_size] != '\0') {
			tool_error(what,
				   "inode %u: the symlink target is "
				   "damaged",
				   inode->inode_number);
			return -1;
		}
		archive_entry_copy_symlink(e, (const char *)inode->payload);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		archive_entry_set_rdevmajor(e, major);
		archive_entry_set_rdevminor(e, minor);
		break;
	default:
		break;
	}
	return 0;
}

bool s2t_entry_has_data(const sqfs2tar_t *s, const sqfs_inode_t *inode,
			const char *link)
{
	(void)s;
	return link == NULL &&
	       sqfs_inode_type_basic(inode->type) == SQFS_INODE_FILE;
}

int s2t_write_entry(sqfs2tar_t *s, const s2t_item_t *item)
{
	const sqfs_inode_t *inode = item->inode;
	uint16_t type = sqfs_inode_type_basic(inode->type);
	const char *name = item->name, *what = item->what;
	char *dir_name = NULL;
	file_layout_t fl;
	int ret, status = -1;

	if (type == SQFS_INODE_SOCKET) {
		if (s->opt->no_skip) {
			tool_error(what, "a tar archive cannot hold a socket");
			return -1;
		}
		tool_warning(what,
			     "a tar archive cannot hold a socket; skipped");
		return 0;
	}

	if (type == SQFS_INODE_DIR) {
		/* a trailing '/' marks a directory for every tar reader */
		dir_name = malloc(strlen(name) + 2);
		if (dir_name == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		strcpy(dir_name, name);
		strcat(dir_name, "/");
		name = dir_name;
	}
	if (set_attributes(s, name, inode, what) != 0)
		goto out;

	memset(&fl, 0, sizeof(fl));
	if (item->link != NULL) {
		archive_entry_copy_hardlink(s->ent, item->link);
		archive_entry_set_size(s->ent, 0);
	} else {
		if (set_type_data(s, inode, &fl, what) != 0)
			goto out;
		if (!s->opt->no_xattr && add_xattrs(s, inode, what) != 0)
			goto out;
	}

	ret = archive_write_header(s->ar, s->ent);
	if (ret == ARCHIVE_WARN) {
		/* e.g. a name that is not UTF-8: written as raw bytes */
		tool_warning(what, "%s; written anyway", tar_out_error(s->ar));
	} else if (ret != ARCHIVE_OK) {
		tool_error(what, "writing the archive: %s",
			   tar_out_error(s->ar));
		goto out;
	}

	if (item->has_data && put_file_data(s, &fl, what) != 0)
		goto out;
	status = 0;
out:
	free(dir_name);
	return status;
}
