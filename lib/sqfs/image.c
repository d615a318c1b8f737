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

#include "sqfs/error_internal.h"
#include "image_internal.h"
#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdio.h>
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
	/* The export table, read on demand (index NULL when the image has
	 * none); its decoded block is the reader's own. */
	table_lazy_t exports;

	/* Xattrs: the key/value stream is [kv_start, kv_end). */
	uint64_t kv_start;
	uint64_t kv_end;
	uint32_t xattr_count;
	table_lazy_t xattr_ids;
	sqfs_meta_reader_t *kv;

	/* Words of the last failure of the image or a reader made from it
	 * (sqfs_image_error); readers share them, as they share the image's
	 * one thread. */
	errtext_t err;

	/* A clone (image_clone) shares the tables above with its parent
	 * and frees none of them. */
	bool shared;
	/* Where the metadata readers made for this image fetch blocks
	 * (image_set_meta_fetch); NULL: from the file. */
	meta_fetch_fn fetch;
	void *fetch_user;
};

/* The error text is the one thing a const lookup may change. */
static errtext_t *err_of(const sqfs_image_t *img)
{
	return &((sqfs_image_t *)img)->err;
}

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
			   table_index_size(s->fragment_entry_count,
					    SQFS_FRAGMENT_ENTRY_SIZE);
	}
	if (has_export) {
		exp_end =
		    s->export_table_start +
		    table_index_size(s->inode_count, SQFS_EXPORT_ENTRY_SIZE);
	}

	id_end = s->bytes_used;
	if (has_xattr) {
		ret = xattr_id_table_header(img->file, s, &img->kv_start,
					    &img->xattr_count);
		if (ret != 0)
			return errtext_end(
			    &img->err, ret, "xattr id table header at %llu",
			    (unsigned long long)s->xattr_id_table_start);
		id_end = img->kv_start;
	}

	/* the id index ends exactly where the next table starts */
	if (s->id_table_start +
		table_index_size(s->id_count, SQFS_ID_ENTRY_SIZE) !=
	    id_end)
		return errtext_set(&img->err, SQFS_ERROR_CORRUPTED,
				   "id table: index at %llu for %u ids "
				   "does not end at %llu, where the next "
				   "table starts",
				   (unsigned long long)s->id_table_start,
				   (unsigned int)s->id_count,
				   (unsigned long long)id_end);

	lower = has_export ? exp_end
			   : (has_frag ? frag_end : s->directory_table_start);
	ret = id_table_load(img->file, img->cmp, s, lower, id_end, &img->ids,
			    &id_first);
	if (ret != 0)
		return errtext_end(&img->err, ret, "id table");
	next_first = id_first;

	if (has_export) {
		/* ... and so does the export index */
		if (exp_end != id_first)
			return errtext_set(
			    &img->err, SQFS_ERROR_CORRUPTED,
			    "export table: index does not end at %llu, where "
			    "the id table starts",
			    (unsigned long long)id_first);
		lower = has_frag ? frag_end : s->directory_table_start;
		ret = export_table_open(img->file, img->cmp, s, lower, id_first,
					&img->exports, &exp_first);
		if (ret != 0)
			return errtext_end(&img->err, ret, "export table");
		next_first = exp_first;
	}

	if (has_frag) {
		/* the fragment index alone may be followed by a gap */
		ret = fragment_table_load(img->file, img->cmp, s,
					  img->data_start, next_first,
					  &img->fragments, &frag_first);
		if (ret != 0)
			return errtext_end(&img->err, ret, "fragment table");
		next_first = frag_first;
	}

	if (next_first < s->directory_table_start)
		return errtext_set(
		    &img->err, SQFS_ERROR_CORRUPTED,
		    "the tables overlap the directory "
		    "table at %llu",
		    (unsigned long long)s->directory_table_start);
	img->dir_end = next_first;

	if (!has_xattr)
		return 0;
	ret = xattr_id_table_open(img->file, img->cmp, s, img->kv_start,
				  img->xattr_count, &img->xattr_ids,
				  &img->kv_end);
	if (ret != 0)
		return errtext_end(&img->err, ret, "xattr id table");
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
	if (ret != 0) {
		const char *name =
		    sqfs_compressor_name(img->super.compression_id);

		if (name == NULL)
			return errtext_set(&img->err, ret,
					   "unknown compressor id %u",
					   img->super.compression_id);
		return errtext_end(&img->err, ret, "compressor %s", name);
	}

	img->data_start = SQFS_SUPER_SIZE;
	if (img->super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS) {
		ret = sqfs_compressor_config_read_options(&img->cfg, img->file);
		if (ret != 0)
			return errtext_end(&img->err, ret,
					   "compressor options");

		/* read_options accepted a raw block of this length */
		ret = file_read_exact(img->file, SQFS_SUPER_SIZE, header,
				      sizeof(header));
		if (ret != 0)
			return errtext_end(&img->err, ret,
					   "compressor options");
		img->data_start +=
		    sizeof(header) + (get_le16(header) & SQFS_META_LENGTH);
	}

	if (img->data_start > img->super.inode_table_start)
		return errtext_set(
		    &img->err, SQFS_ERROR_CORRUPTED,
		    "the inode table starts at %llu, "
		    "inside the compressor options",
		    (unsigned long long)img->super.inode_table_start);

	ret = sqfs_compressor_create(&img->cfg, &img->cmp);
	return errtext_end(&img->err, ret, "compressor");
}

/* Words for a superblock sqfs_super_read refused, which it decoded into
 * img->super first whenever the file was long enough. */
static void super_failed(sqfs_image_t *img, int ret)
{
	const sqfs_super_t *s = &img->super;
	uint64_t size = img->file->get_size(img->file);

	switch (ret) {
	case SQFS_ERROR_SUPER_MAGIC:
		errtext_end(&img->err, ret, NULL);
		break;
	case SQFS_ERROR_TRUNCATED:
		if (size < SQFS_SUPER_SIZE)
			errtext_set(&img->err, ret,
				    "the file of %llu bytes is too "
				    "short for a superblock",
				    (unsigned long long)size);
		else
			errtext_set(&img->err, ret,
				    "the image is cut short: it says "
				    "%llu bytes, the file has %llu",
				    (unsigned long long)s->bytes_used,
				    (unsigned long long)size);
		break;
	case SQFS_ERROR_SUPER_VERSION:
		errtext_set(&img->err, ret, "SquashFS version %u.%u, not 4.0",
			    (unsigned int)s->version_major,
			    (unsigned int)s->version_minor);
		break;
	case SQFS_ERROR_SUPER_BLOCK_SIZE:
		errtext_set(&img->err, ret,
			    "superblock: block size %u with block log "
			    "%u",
			    s->block_size, (unsigned int)s->block_log);
		break;
	case SQFS_ERROR_UNSUPPORTED:
		errtext_set(&img->err, ret, "unknown compressor id %u",
			    (unsigned int)s->compression_id);
		break;
	default:
		errtext_end(&img->err, ret, "superblock");
		break;
	}
}

/* An open that fails before there is an image still has words. */
static int open_failed(char *why, int code, const char *what)
{
	if (why != NULL)
		snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s", what);
	return code;
}

int sqfs_image_open(sqfs_file_t *file, sqfs_image_t **out, char *why)
{
	sqfs_image_t *img;
	int ret;

	if (why != NULL)
		why[0] = '\0';
	if (file == NULL || out == NULL)
		return open_failed(why, SQFS_ERROR_ARG_INVALID,
				   "sqfs_image_open: no file or no out");
	*out = NULL;

	img = calloc(1, sizeof(*img));
	if (img == NULL)
		return open_failed(why, SQFS_ERROR_ALLOC, "out of memory");
	img->file = file;
	errtext_begin(&img->err);

	ret = sqfs_super_read(&img->super, file);
	if (ret != 0) {
		super_failed(img, ret);
		goto fail;
	}

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
	errtext_end(&img->err, ret, NULL);
	if (why != NULL)
		errtext_copy(&img->err, why);
	sqfs_image_destroy(img);
	return ret;
}

const char *sqfs_image_error(const sqfs_image_t *img)
{
	if (img == NULL)
		return "no image";
	return img->err.text[0] != '\0' ? img->err.text : "no error";
}

void sqfs_image_destroy(sqfs_image_t *img)
{
	if (img == NULL)
		return;
	sqfs_meta_reader_destroy(img->kv);
	sqfs_meta_reader_destroy(img->inodes);
	sqfs_compressor_destroy(img->cmp);
	free(img->exports.data);
	free(img->xattr_ids.data);
	if (!img->shared) {
		free(img->xattr_ids.index);
		free(img->exports.index);
		free(img->fragments);
		free(img->ids);
	}
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
	errtext_begin(&img->err);

	if (offset >= SQFS_META_BLOCK_SIZE ||
	    block >=
		img->super.directory_table_start - img->super.inode_table_start)
		return errtext_set(&img->err, SQFS_ERROR_OUT_OF_BOUNDS,
				   "inode reference %llu:%zu lies outside "
				   "the inode table",
				   (unsigned long long)block, offset);

	ret = sqfs_meta_reader_seek(
	    img->inodes, img->super.inode_table_start + block, offset);
	if (ret == 0)
		ret = sqfs_inode_read(img->inodes, &img->super, out);
	return errtext_end(&img->err, ret, "inode at %llu:%zu",
			   (unsigned long long)block, offset);
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
		return errtext_set(&img->err, SQFS_ERROR_CORRUPTED,
				   "the root inode is not a directory");
	}
	*out = root;
	return 0;
}

int sqfs_image_get_id(const sqfs_image_t *img, uint16_t index, uint32_t *id)
{
	if (img == NULL || id == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (index >= img->super.id_count)
		return errtext_set(err_of(img), SQFS_ERROR_OUT_OF_BOUNDS,
				   "id index %u is past the id table "
				   "(%u ids)",
				   (unsigned int)index,
				   (unsigned int)img->super.id_count);
	*id = img->ids[index];
	return 0;
}

int sqfs_image_get_fragment(const sqfs_image_t *img, uint32_t index,
			    sqfs_fragment_t *frag)
{
	if (img == NULL || frag == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (index >= img->super.fragment_entry_count)
		return errtext_set(err_of(img), SQFS_ERROR_OUT_OF_BOUNDS,
				   "fragment %u is past the fragment "
				   "table (%u entries)",
				   index, img->super.fragment_entry_count);
	*frag = img->fragments[index];
	return 0;
}

int sqfs_image_inode_ref(const sqfs_image_t *img, uint32_t inode_number,
			 uint64_t *ref)
{
	sqfs_image_t *mut = (sqfs_image_t *)img;
	int ret;

	if (img == NULL || ref == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (img->exports.index == NULL)
		return errtext_set(err_of(img), SQFS_ERROR_UNSUPPORTED,
				   "the image has no export table");
	if (inode_number == 0 || inode_number > img->super.inode_count)
		return errtext_set(err_of(img), SQFS_ERROR_OUT_OF_BOUNDS,
				   "inode number %u is outside 1..%u",
				   inode_number, img->super.inode_count);
	/* the decoded block, like the error text, is the reader's state,
	 * which a lookup may change (one thread per image) */
	ret = export_table_ref(img->file, img->cmp, &mut->exports, inode_number,
			       ref);
	if (ret != 0)
		return errtext_set(err_of(img), ret,
				   "export table: the block of inode %u: %s",
				   inode_number, sqfs_error_string(ret));
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
	if (ret != 0)
		return errtext_set(err_of(img), ret,
				   "inode %u: owner or group index "
				   "past the id table (%u ids)",
				   inode->inode_number,
				   (unsigned int)img->super.id_count);
	return 0;
}

/* ---- internal ------------------------------------------------------------ */

errtext_t *image_errtext(const sqfs_image_t *img)
{
	return err_of(img);
}

sqfs_file_t *image_file(const sqfs_image_t *img)
{
	return img->file;
}

sqfs_compressor_t *image_compressor(const sqfs_image_t *img)
{
	return img->cmp;
}

int image_open_dir_table(const sqfs_image_t *img, sqfs_meta_reader_t **out)
{
	int ret = sqfs_meta_reader_create(img->file, img->cmp,
					  img->super.directory_table_start,
					  img->dir_end, out);

	if (ret == 0 && img->fetch != NULL)
		meta_reader_set_fetch(*out, img->fetch, img->fetch_user);
	return ret;
}

uint64_t image_dir_table_end(const sqfs_image_t *img)
{
	return img->dir_end;
}

void image_data_region(const sqfs_image_t *img, uint64_t *start, uint64_t *end)
{
	*start = img->data_start;
	*end = img->super.inode_table_start;
}

int image_xattr_id(const sqfs_image_t *img, uint32_t index,
		   xattr_id_entry_t *out)
{
	sqfs_image_t *mut = (sqfs_image_t *)img;

	if (index >= img->xattr_count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	/* the decoded block is the reader's state, as the error text is */
	return xattr_id_table_get(img->file, img->cmp, &mut->xattr_ids,
				  img->kv_end - img->kv_start, index, out);
}

sqfs_meta_reader_t *image_kv_reader(sqfs_image_t *img, uint64_t *start,
				    uint64_t *end)
{
	*start = img->kv_start;
	*end = img->kv_end;
	return img->kv;
}

int image_clone(const sqfs_image_t *img, sqfs_image_t **out)
{
	sqfs_image_t *c;
	int ret;

	*out = NULL;
	c = malloc(sizeof(*c));
	if (c == NULL)
		return SQFS_ERROR_ALLOC;
	*c = *img;
	c->shared = true;
	c->exports.which = 0;
	c->exports.data = NULL;
	c->xattr_ids.which = 0;
	c->xattr_ids.data = NULL;
	c->cmp = NULL;
	c->inodes = NULL;
	c->kv = NULL;
	errtext_begin(&c->err);
	c->err.text[0] = '\0';

	/* a compressor holds the state of the stream it decodes */
	ret = sqfs_compressor_copy(img->cmp, &c->cmp);
	if (ret == 0)
		ret = sqfs_meta_reader_create(
		    c->file, c->cmp, c->super.inode_table_start,
		    c->super.directory_table_start, &c->inodes);
	if (ret == 0 && img->kv != NULL)
		ret = sqfs_meta_reader_create(c->file, c->cmp, c->kv_start,
					      c->kv_end, &c->kv);
	if (ret != 0) {
		sqfs_image_destroy(c);
		return ret;
	}
	if (c->fetch != NULL)
		image_set_meta_fetch(c, c->fetch, c->fetch_user);
	*out = c;
	return 0;
}

void image_set_meta_fetch(sqfs_image_t *img, meta_fetch_fn fn, void *user)
{
	img->fetch = fn;
	img->fetch_user = user;
	meta_reader_set_fetch(img->inodes, fn, user);
	if (img->kv != NULL)
		meta_reader_set_fetch(img->kv, fn, user);
}

bool image_has_export(const sqfs_image_t *img)
{
	return img->exports.index != NULL;
}
