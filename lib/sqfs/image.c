/* SPDX-License-Identifier: MIT */
/*
 * image.c - opening an image: the superblock, the compressor, and the
 * chain of tables behind the directory table.
 *
 * The tables are checked from the end of the image backwards, as Linux
 * does, because every link of that chain but one is an exact adjacency:
 * the xattr-id index ends at bytes_used, the id index ends where the xattr
 * key/value stream starts (or at bytes_used), the export index ends where
 * the id table's first block starts. Only the fragment index may be
 * followed by slack. Once the first block of each table is known, the end
 * of the directory table (the first block of whatever follows it) is
 * known too, and every later lookup can be confined to its own region.
 *
 * Only that order lives here: each table's decoding and the checks of its
 * entries are in its own file (sqfs/table_internal.h lists them), beside
 * its encoding.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "util/le.h"

#include "image_internal.h"
#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>
#include <string.h>

struct sqfs_image {
	sqfs_file_t *file;
	sqfs_super_t super;
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;

	/* [data_start, inode_table_start) holds data and fragment blocks. */
	uint64_t data_start;
	uint64_t dir_end;
	sqfs_meta_reader_t *inodes;

	uint32_t *ids;
	sqfs_fragment_t *fragments;
	/* NULL when the image has no export table. */
	uint64_t *export_refs;

	/* Xattrs: the key/value stream is [kv_start, kv_end). */
	uint64_t kv_start;
	uint64_t kv_end;
	uint32_t xattr_count;
	sqfs_xattr_id_entry_t *xattr_ids;
	sqfs_meta_reader_t *kv;
};

/*
 * Walk the chain from the end of the image to the directory table:
 * xattr header, id, export, fragment tables.
 */
static int load_tables(sqfs_image_t *img)
{
	const sqfs_super_t *s = &img->super;
	bool has_xattr = s->xattr_id_table_start != SQFS_TABLE_ABSENT;
	bool has_export = s->export_table_start != SQFS_TABLE_ABSENT;
	bool has_frag = s->fragment_entry_count > 0;
	uint64_t id_end, id_first, exp_end = 0, exp_first, frag_end = 0;
	uint64_t next_first, lower, frag_first;
	int ret;

	/* sqfs_super_validate placed each index inside bytes_used, so
	 * these ends cannot overflow */
	if (has_frag) {
		frag_end = s->fragment_table_start +
			   sqfs_table_index_size(s->fragment_entry_count,
						 SQFS_FRAGMENT_ENTRY_SIZE);
	}
	if (has_export) {
		exp_end = s->export_table_start +
			  sqfs_table_index_size(s->inode_count,
						SQFS_EXPORT_ENTRY_SIZE);
	}

	id_end = s->bytes_used;
	if (has_xattr) {
		ret = sqfs_xattr_id_table_header(img->file, s, &img->kv_start,
						 &img->xattr_count);
		if (ret != 0)
			return ret;
		id_end = img->kv_start;
	}

	/* the id index ends exactly where the next table starts */
	if (s->id_table_start +
		sqfs_table_index_size(s->id_count, SQFS_ID_ENTRY_SIZE) !=
	    id_end)
		return SQFS_ERROR_CORRUPTED;

	lower = has_export ? exp_end
			   : (has_frag ? frag_end : s->directory_table_start);
	ret = sqfs_id_table_load(img->file, img->cmp, s, lower, id_end,
				 &img->ids, &id_first);
	if (ret != 0)
		return ret;
	next_first = id_first;

	if (has_export) {
		/* ... and so does the export index */
		if (exp_end != id_first)
			return SQFS_ERROR_CORRUPTED;
		lower = has_frag ? frag_end : s->directory_table_start;
		ret = sqfs_export_table_load(img->file, img->cmp, s, lower,
					     id_first, &img->export_refs,
					     &exp_first);
		if (ret != 0)
			return ret;
		next_first = exp_first;
	}

	if (has_frag) {
		/* the fragment index alone may be followed by a gap */
		ret = sqfs_fragment_table_load(img->file, img->cmp, s,
					       img->data_start, next_first,
					       &img->fragments, &frag_first);
		if (ret != 0)
			return ret;
		next_first = frag_first;
	}

	if (next_first < s->directory_table_start)
		return SQFS_ERROR_CORRUPTED;
	img->dir_end = next_first;

	if (!has_xattr)
		return 0;
	ret = sqfs_xattr_id_table_load(img->file, img->cmp, s, img->kv_start,
				       img->xattr_count, &img->xattr_ids,
				       &img->kv_end);
	if (ret != 0)
		return ret;
	return sqfs_meta_reader_create(img->file, img->cmp, img->kv_start,
				       img->kv_end, &img->kv);
}

static int setup_compressor(sqfs_image_t *img)
{
	uint8_t header[2];
	int ret;

	ret = sqfs_compressor_config_init(
	    &img->cfg, (sqfs_compressor_id_t)img->super.compression_id,
	    img->super.block_size, SQFS_COMP_FLAG_UNCOMPRESS);
	if (ret != 0)
		return ret;

	img->data_start = SQFS_SUPER_SIZE;
	if (img->super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS) {
		ret = sqfs_compressor_config_read_options(&img->cfg, img->file);
		if (ret != 0)
			return ret;

		/* read_options accepted a raw block of this length */
		ret = sqfs_read_exact(img->file, SQFS_SUPER_SIZE, header,
				      sizeof(header));
		if (ret != 0)
			return ret;
		img->data_start +=
		    sizeof(header) + (get_le16(header) & SQFS_META_LENGTH);
	}

	if (img->data_start > img->super.inode_table_start)
		return SQFS_ERROR_CORRUPTED;

	return sqfs_compressor_create(&img->cfg, &img->cmp);
}

int sqfs_image_open(sqfs_file_t *file, sqfs_image_t **out)
{
	sqfs_image_t *img;
	int ret;

	if (file == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	img = calloc(1, sizeof(*img));
	if (img == NULL)
		return SQFS_ERROR_ALLOC;
	img->file = file;

	ret = sqfs_super_read(&img->super, file);
	if (ret != 0)
		goto fail;

	ret = setup_compressor(img);
	if (ret != 0)
		goto fail;

	ret = load_tables(img);
	if (ret != 0)
		goto fail;

	ret = sqfs_meta_reader_create(
	    file, img->cmp, img->super.inode_table_start,
	    img->super.directory_table_start, &img->inodes);
	if (ret != 0)
		goto fail;

	*out = img;
	return 0;
fail:
	sqfs_image_destroy(img);
	return ret;
}

void sqfs_image_destroy(sqfs_image_t *img)
{
	if (img == NULL)
		return;
	sqfs_meta_reader_destroy(img->kv);
	sqfs_meta_reader_destroy(img->inodes);
	sqfs_compressor_destroy(img->cmp);
	free(img->xattr_ids);
	free(img->export_refs);
	free(img->fragments);
	free(img->ids);
	free(img);
}

const sqfs_super_t *sqfs_image_super(const sqfs_image_t *img)
{
	return &img->super;
}

void sqfs_image_compressor_config(const sqfs_image_t *img,
				  sqfs_compressor_config_t *cfg)
{
	*cfg = img->cfg;
	/* the image decodes only; a caller reusing the settings for a new
	 * image wants a compressor that can encode */
	cfg->flags &= (uint16_t)~SQFS_COMP_FLAG_UNCOMPRESS;
}

int sqfs_image_read_inode(sqfs_image_t *img, uint64_t ref, sqfs_inode_t **out)
{
	uint64_t block = ref >> 16;
	size_t offset = (size_t)(ref & 0xFFFF);
	int ret;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;

	if (offset >= SQFS_META_BLOCK_SIZE ||
	    block >=
		img->super.directory_table_start - img->super.inode_table_start)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	ret = sqfs_meta_reader_seek(
	    img->inodes, img->super.inode_table_start + block, offset);
	if (ret != 0)
		return ret;
	return sqfs_inode_read(img->inodes, &img->super, out);
}

int sqfs_image_read_root(sqfs_image_t *img, sqfs_inode_t **out)
{
	sqfs_inode_t *root;
	int ret;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;

	ret = sqfs_image_read_inode(img, img->super.root_inode_ref, &root);
	if (ret != 0)
		return ret;

	if (sqfs_inode_type_basic(root->type) != SQFS_INODE_DIR) {
		free(root);
		return SQFS_ERROR_CORRUPTED;
	}
	*out = root;
	return 0;
}

int sqfs_image_get_id(const sqfs_image_t *img, uint16_t index, uint32_t *id)
{
	if (img == NULL || id == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (index >= img->super.id_count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*id = img->ids[index];
	return 0;
}

int sqfs_image_get_fragment(const sqfs_image_t *img, uint32_t index,
			    sqfs_fragment_t *frag)
{
	if (img == NULL || frag == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (index >= img->super.fragment_entry_count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*frag = img->fragments[index];
	return 0;
}

int sqfs_image_inode_ref(const sqfs_image_t *img, uint32_t inode_number,
			 uint64_t *ref)
{
	if (img == NULL || ref == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (img->export_refs == NULL)
		return SQFS_ERROR_UNSUPPORTED;
	if (inode_number == 0 || inode_number > img->super.inode_count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*ref = img->export_refs[inode_number - 1];
	return 0;
}

int sqfs_image_inode_owner(const sqfs_image_t *img, const sqfs_inode_t *inode,
			   uint32_t *uid, uint32_t *gid)
{
	int ret;

	if (img == NULL || inode == NULL || uid == NULL || gid == NULL)
		return SQFS_ERROR_ARG_INVALID;

	ret = sqfs_image_get_id(img, inode->uid_idx, uid);
	if (ret == 0)
		ret = sqfs_image_get_id(img, inode->gid_idx, gid);
	return ret;
}

/* ---- internal ------------------------------------------------------------ */

sqfs_file_t *sqfs_image_file(const sqfs_image_t *img)
{
	return img->file;
}

sqfs_compressor_t *sqfs_image_compressor(const sqfs_image_t *img)
{
	return img->cmp;
}

int sqfs_image_open_dir_table(const sqfs_image_t *img, sqfs_meta_reader_t **out)
{
	return sqfs_meta_reader_create(img->file, img->cmp,
				       img->super.directory_table_start,
				       img->dir_end, out);
}

uint64_t sqfs_image_dir_table_end(const sqfs_image_t *img)
{
	return img->dir_end;
}

void sqfs_image_data_region(const sqfs_image_t *img, uint64_t *start,
			    uint64_t *end)
{
	*start = img->data_start;
	*end = img->super.inode_table_start;
}

int sqfs_image_xattr_id(const sqfs_image_t *img, uint32_t index,
			sqfs_xattr_id_entry_t *out)
{
	if (index >= img->xattr_count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*out = img->xattr_ids[index];
	return 0;
}

sqfs_meta_reader_t *sqfs_image_kv_reader(sqfs_image_t *img, uint64_t *start,
					 uint64_t *end)
{
	*start = img->kv_start;
	*end = img->kv_end;
	return img->kv;
}
