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
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include "image_internal.h"
#include "sqfs/format_internal.h"

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
	sqfs_image_xattr_id_t *xattr_ids;
	sqfs_meta_reader_t *kv;
};

/* Bytes of the u64 index of a lookup table of count entries. */
static uint64_t index_size(uint64_t count, uint64_t entry_size)
{
	uint64_t bytes = count * entry_size;

	return (bytes / SQFS_META_BLOCK_SIZE +
		(bytes % SQFS_META_BLOCK_SIZE != 0 ? 1 : 0)) *
	       sizeof(uint64_t);
}

static int read_exact(sqfs_file_t *file, uint64_t pos, void *buf, size_t size)
{
	int ret = file->read_at(file, pos, buf, size);

	/* every position read here lies inside bytes_used */
	return ret == SQFS_ERROR_OUT_OF_BOUNDS ? SQFS_ERROR_TRUNCATED : ret;
}

/*
 * Read a lookup table and the position of its first block, which is where
 * the region of the table before it must end.
 */
static int load_table(sqfs_image_t *img, uint64_t count, uint64_t entry_size,
		      uint64_t index_start, uint64_t lower, uint64_t upper,
		      void **data, uint64_t *first_block)
{
	uint8_t raw[8];
	int ret;

	/* 32-bit hosts: a size_t must hold the table */
	if (count > SIZE_MAX / entry_size)
		return SQFS_ERROR_OVERFLOW;

	ret = sqfs_table_read(img->file, img->cmp, (size_t)(count * entry_size),
			      index_start, lower, upper, data);
	if (ret != 0)
		return ret;

	ret = read_exact(img->file, index_start, raw, sizeof(raw));
	if (ret != 0) {
		free(*data);
		*data = NULL;
		return ret;
	}
	*first_block = get_le64(raw);
	return 0;
}

static int check_fragment(const sqfs_image_t *img, const sqfs_fragment_t *frag)
{
	uint32_t len = frag->size & SQFS_SIZE_WORD_LENGTH;

	if ((frag->size & SQFS_SIZE_WORD_RESERVED) != 0 || len == 0 ||
	    len > img->super.block_size)
		return SQFS_ERROR_CORRUPTED;
	if (frag->start < img->data_start ||
	    frag->start > img->super.inode_table_start ||
	    len > img->super.inode_table_start - frag->start)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int load_fragments(sqfs_image_t *img, uint64_t upper,
			  uint64_t *first_block)
{
	uint32_t count = img->super.fragment_entry_count;
	const uint8_t *p;
	uint32_t i;
	void *raw;
	int ret;

	ret = load_table(img, count, SQFS_FRAGMENT_ENTRY_SIZE,
			 img->super.fragment_table_start,
			 img->super.directory_table_start, upper, &raw,
			 first_block);
	if (ret != 0)
		return ret;

	img->fragments = calloc(count, sizeof(img->fragments[0]));
	if (img->fragments == NULL) {
		free(raw);
		return SQFS_ERROR_ALLOC;
	}

	for (i = 0; i < count; ++i) {
		p = (const uint8_t *)raw + (size_t)i * SQFS_FRAGMENT_ENTRY_SIZE;
		img->fragments[i].start = get_le64(p);
		img->fragments[i].size = get_le32(p + 8);

		ret = check_fragment(img, &img->fragments[i]);
		if (ret != 0)
			break;
	}
	free(raw);
	return ret;
}

static int load_ids(sqfs_image_t *img, uint64_t lower, uint64_t upper,
		    uint64_t *first_block)
{
	uint16_t count = img->super.id_count;
	uint16_t i;
	void *raw;
	int ret;

	ret = load_table(img, count, SQFS_ID_ENTRY_SIZE,
			 img->super.id_table_start, lower, upper, &raw,
			 first_block);
	if (ret != 0)
		return ret;

	/* the buffer comes from malloc, so it is aligned for uint32_t;
	 * each entry is read before it is overwritten */
	img->ids = raw;
	for (i = 0; i < count; ++i)
		img->ids[i] =
		    get_le32((const uint8_t *)raw + i * SQFS_ID_ENTRY_SIZE);
	return 0;
}

static int load_export(sqfs_image_t *img, uint64_t lower, uint64_t upper,
		       uint64_t *first_block)
{
	uint32_t count = img->super.inode_count;
	uint32_t i;
	void *raw;
	int ret;

	ret = load_table(img, count, SQFS_EXPORT_ENTRY_SIZE,
			 img->super.export_table_start, lower, upper, &raw,
			 first_block);
	if (ret != 0)
		return ret;

	img->export_refs = raw;
	for (i = 0; i < count; ++i) {
		img->export_refs[i] = get_le64(
		    (const uint8_t *)raw + (size_t)i * SQFS_EXPORT_ENTRY_SIZE);
	}
	return 0;
}

/* Check the xattr-id index alone, before any block is decoded. */
static int check_xattr_index(const uint64_t *index, size_t count,
			     uint64_t kv_start, uint64_t header_pos)
{
	size_t i;

	for (i = 0; i < count; ++i) {
		if (index[i] <= kv_start || index[i] >= header_pos)
			return SQFS_ERROR_CORRUPTED;
		if (i > 0 &&
		    (index[i] <= index[i - 1] ||
		     index[i] - index[i - 1] > SQFS_META_MAX_DISK_SIZE))
			return SQFS_ERROR_CORRUPTED;
	}
	if (header_pos - index[count - 1] > SQFS_META_MAX_DISK_SIZE)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int append_xattr_ids(sqfs_image_t *img, const uint8_t *chunk,
			    size_t entries, size_t *used, size_t *capacity)
{
	uint64_t region = img->kv_end - img->kv_start;
	sqfs_image_xattr_id_t *grown, *ent;
	size_t want, i;

	/* grow with the data actually decoded, never ahead of it; doubling
	 * keeps the copying linear */
	if (entries > *capacity - *used) {
		want = *capacity * 2;
		if (want < *used + entries)
			want = *used + entries;
		if (want > img->xattr_count)
			want = img->xattr_count;
		grown = realloc(img->xattr_ids, want * sizeof(*grown));
		if (grown == NULL)
			return SQFS_ERROR_ALLOC;
		img->xattr_ids = grown;
		*capacity = want;
	}

	for (i = 0; i < entries; ++i) {
		ent = &img->xattr_ids[*used + i];
		ent->ref = get_le64(chunk + i * SQFS_XATTR_ID_ENTRY_SIZE);
		ent->count = get_le32(chunk + i * SQFS_XATTR_ID_ENTRY_SIZE + 8);
		ent->size = get_le32(chunk + i * SQFS_XATTR_ID_ENTRY_SIZE + 12);

		if ((ent->ref & 0xFFFF) >= SQFS_META_BLOCK_SIZE ||
		    (ent->ref >> 16) >= region)
			return SQFS_ERROR_CORRUPTED;
	}
	*used += entries;
	return 0;
}

/*
 * The xattr-id blocks end at the 16-byte header, not at their index, so
 * sqfs_table_read cannot take them; decode them one by one with a reader
 * confined to [index[0], header) and require that each block unpacks to
 * exactly its share and ends where the next one starts.
 */
static int read_xattr_ids(sqfs_image_t *img, const uint64_t *index,
			  size_t blocks, uint64_t header_pos)
{
	uint64_t total = (uint64_t)img->xattr_count * SQFS_XATTR_ID_ENTRY_SIZE;
	sqfs_meta_reader_t *mr;
	uint8_t *chunk = NULL;
	size_t i, len, used = 0, capacity = 0, offset;
	uint64_t pos, next;
	int ret;

	ret = sqfs_meta_reader_create(img->file, img->cmp, index[0], header_pos,
				      &mr);
	if (ret != 0)
		return ret;

	chunk = malloc(SQFS_META_BLOCK_SIZE);
	if (chunk == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto out;
	}

	for (i = 0; i < blocks; ++i) {
		len = SQFS_META_BLOCK_SIZE;
		if (total - (uint64_t)i * SQFS_META_BLOCK_SIZE < len)
			len = (size_t)(total -
				       (uint64_t)i * SQFS_META_BLOCK_SIZE);

		ret = sqfs_meta_reader_seek(mr, index[i], 0);
		if (ret == 0)
			ret = sqfs_meta_reader_read(mr, chunk, len);
		if (ret != 0)
			goto out;

		next = i + 1 < blocks ? index[i + 1] : header_pos;
		sqfs_meta_reader_get_position(mr, &pos, &offset);
		if (pos != next || offset != 0) {
			ret = SQFS_ERROR_CORRUPTED;
			goto out;
		}

		ret =
		    append_xattr_ids(img, chunk, len / SQFS_XATTR_ID_ENTRY_SIZE,
				     &used, &capacity);
		if (ret != 0)
			goto out;
	}
out:
	free(chunk);
	sqfs_meta_reader_destroy(mr);
	return ret;
}

/*
 * The xattr table: key/value stream, xattr-id blocks, the 16-byte header
 * the superblock points at, and the index, which ends at bytes_used.
 * Returns the start of the key/value stream in *kv_start.
 */
static int load_xattr_header(sqfs_image_t *img, uint64_t *kv_start)
{
	uint64_t header_pos = img->super.xattr_id_table_start;
	uint8_t header[SQFS_XATTR_ID_HEADER_SIZE];
	int ret;

	/* sqfs_super_validate: header_pos + 16 <= bytes_used */
	ret = read_exact(img->file, header_pos, header, sizeof(header));
	if (ret != 0)
		return ret;

	*kv_start = get_le64(header);
	img->xattr_count = get_le32(header + 8);
	if (img->xattr_count == 0)
		return SQFS_ERROR_CORRUPTED;

	if (img->super.bytes_used - (header_pos + SQFS_XATTR_ID_HEADER_SIZE) !=
	    index_size(img->xattr_count, SQFS_XATTR_ID_ENTRY_SIZE))
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int load_xattr_ids(sqfs_image_t *img)
{
	uint64_t header_pos = img->super.xattr_id_table_start;
	uint64_t index_pos = header_pos + SQFS_XATTR_ID_HEADER_SIZE;
	uint64_t size = img->super.bytes_used - index_pos;
	size_t blocks = (size_t)(size / sizeof(uint64_t)), i;
	uint8_t *raw = NULL;
	uint64_t *index = NULL;
	int ret;

	/* the index fits the file, which bounds this allocation */
	if (size > SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	raw = malloc((size_t)size);
	index = calloc(blocks, sizeof(index[0]));
	if (raw == NULL || index == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto out;
	}

	ret = read_exact(img->file, index_pos, raw, (size_t)size);
	if (ret != 0)
		goto out;
	for (i = 0; i < blocks; ++i)
		index[i] = get_le64(raw + i * sizeof(uint64_t));

	/* the key/value stream must not be empty: kv_start < index[0] */
	ret = check_xattr_index(index, blocks, img->kv_start, header_pos);
	if (ret != 0)
		goto out;
	img->kv_end = index[0];

	ret = read_xattr_ids(img, index, blocks, header_pos);
	if (ret != 0)
		goto out;

	ret = sqfs_meta_reader_create(img->file, img->cmp, img->kv_start,
				      img->kv_end, &img->kv);
out:
	free(index);
	free(raw);
	return ret;
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
			   index_size(s->fragment_entry_count,
				      SQFS_FRAGMENT_ENTRY_SIZE);
	}
	if (has_export) {
		exp_end = s->export_table_start +
			  index_size(s->inode_count, SQFS_EXPORT_ENTRY_SIZE);
	}

	id_end = s->bytes_used;
	if (has_xattr) {
		ret = load_xattr_header(img, &img->kv_start);
		if (ret != 0)
			return ret;
		id_end = img->kv_start;
	}

	/* the id index ends exactly where the next table starts */
	if (s->id_table_start + index_size(s->id_count, SQFS_ID_ENTRY_SIZE) !=
	    id_end)
		return SQFS_ERROR_CORRUPTED;

	lower = has_export ? exp_end
			   : (has_frag ? frag_end : s->directory_table_start);
	ret = load_ids(img, lower, id_end, &id_first);
	if (ret != 0)
		return ret;
	next_first = id_first;

	if (has_export) {
		/* ... and so does the export index */
		if (exp_end != id_first)
			return SQFS_ERROR_CORRUPTED;
		lower = has_frag ? frag_end : s->directory_table_start;
		ret = load_export(img, lower, id_first, &exp_first);
		if (ret != 0)
			return ret;
		next_first = exp_first;
	}

	if (has_frag) {
		/* the fragment index alone may be followed by a gap */
		ret = load_fragments(img, next_first, &frag_first);
		if (ret != 0)
			return ret;
		next_first = frag_first;
	}

	if (next_first < s->directory_table_start)
		return SQFS_ERROR_CORRUPTED;
	img->dir_end = next_first;

	if (has_xattr)
		return load_xattr_ids(img);
	return 0;
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
		ret = read_exact(img->file, SQFS_SUPER_SIZE, header,
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
			sqfs_image_xattr_id_t *out)
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
