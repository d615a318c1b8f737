/* SPDX-License-Identifier: MIT */
/*
 * append.c - a writer that starts from an existing image (writer.h,
 * sqfs_writer_create_append).
 *
 * The old image's data area is copied into the new output at the same
 * place, so that its block lists and fragment table stay valid without a
 * byte of data being unpacked or compressed again; the block processor
 * then takes over the fragment table and learns the old files' blocks and
 * tails for deduplication (block_processor/adopt.c); the old entries are
 * added to the tree as entries whose data is already there. From then on
 * the writer is an ordinary one: the tables are all written anew.
 *
 * Nothing of the old image is trusted beyond what sqfs_image_open and the
 * walker check: every block and fragment block an entry refers to must
 * lie in the old data area, or the new image's tables (which take the old
 * tables' place) would be read as data.
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/data_internal.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/walker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the copy of the old image's start needs. */
typedef struct {
	sqfs_image_t *img;
	uint64_t data_end;
} head_copy_t;

/* Everything between the superblock and the old tables (the options
 * block, the data and fragment blocks), byte for byte, at its place. */
static int copy_head(sqfs_writer_t *wr, void *user, const char **stage)
{
	const head_copy_t *hc = user;
	sqfs_file_t *in = image_file(hc->img);
	uint64_t pos = SQFS_SUPER_SIZE;
	uint8_t *buf;
	int ret = 0;

	*stage = "copying the old image's data";
	buf = malloc(1u << 16);
	if (buf == NULL)
		return SQFS_ERROR_ALLOC;
	while (ret == 0 && pos < hc->data_end) {
		size_t n = hc->data_end - pos < (1u << 16)
			       ? (size_t)(hc->data_end - pos)
			       : (1u << 16);

		ret = in->read_at(in, pos, buf, n);
		if (ret == 0)
			ret = wr->file->write_at(wr->file, pos, buf, n);
		pos += n;
	}
	free(buf);
	/* the options block came along; the superblock must say so */
	if (sqfs_image_super(hc->img)->flags & SQFS_FLAG_COMPRESSOR_OPTIONS)
		wr->super.flags |= SQFS_FLAG_COMPRESSOR_OPTIONS;
	return ret;
}

/* The walk of the old image and where its entries go. */
typedef struct {
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	const char *old_root;
	uint32_t block_size;
	uint64_t data_start;
	uint64_t data_end;
	uint32_t frag_count;
	/* the entry being added: its paths, and its xattrs */
	char *path;
	char *link;
	sqfs_xattr_t *xattrs;
	size_t xattr_count;
} adopt_t;

/* The new path of an old entry: below old_root. */
static char *new_path(const adopt_t *ad, const char *path)
{
	const char *root = ad->old_root;
	size_t a = strlen(root), b = strlen(path);
	char *out = malloc(a + b + 2);

	if (out == NULL)
		return NULL;
	memcpy(out, root, a);
	out[a] = '\0';
	if (a > 0 && b > 0)
		out[a++] = '/';
	memcpy(out + a, path, b + 1);
	return out;
}

/* The file data record of an old regular file, checked: every stored
 * block in the data area, the fragment one of the table's. block_sizes
 * points into the inode. */
static int old_file_data(adopt_t *ad, const sqfs_inode_t *in, file_data_t *fd)
{
	data_file_t fi;
	const char *why;
	uint64_t pos;

	memset(fd, 0, sizeof(*fd));
	why = data_file_info(ad->block_size, in, &fi);
	if (why != NULL)
		return errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
				   "inode %u: %s", in->inode_number, why);
	if (fi.count > UINT32_MAX)
		return errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
				   "inode %u: too many blocks",
				   in->inode_number);
	fd->size = in->data.file.file_size;
	fd->blocks_start = in->data.file.blocks_start;
	fd->fragment_index = in->data.file.fragment_index;
	fd->fragment_offset = fd->fragment_index == SQFS_NO_FRAGMENT
				  ? 0
				  : in->data.file.fragment_offset;
	fd->block_count = (uint32_t)fi.count;
	fd->block_sizes = (uint32_t *)fi.words;

	pos = fd->blocks_start;
	for (size_t i = 0; i < fi.count; ++i) {
		uint32_t len = fi.words[i] & SQFS_SIZE_WORD_LENGTH;

		why = data_check_word(ad->block_size, fi.words[i]);
		if (why == NULL && fi.words[i] == 0) {
			fd->sparse_bytes +=
			    data_block_expect(ad->block_size, &fi, i);
			continue;
		}
		if (why == NULL)
			why = data_check_place(ad->data_start, ad->data_end,
					       pos, len);
		if (why != NULL)
			return errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
					   "inode %u: block %zu: %s",
					   in->inode_number, i, why);
		pos += len;
	}
	if (fd->fragment_index != SQFS_NO_FRAGMENT &&
	    fd->fragment_index >= ad->frag_count)
		return errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
				   "inode %u: fragment %u of %u",
				   in->inode_number, fd->fragment_index,
				   ad->frag_count);
	return 0;
}

/* An old entry in sqfs_entry_t terms, as image_source.c describes one. */
static int describe(adopt_t *ad, const sqfs_walk_entry_t *we, sqfs_entry_t *e)
{
	const sqfs_inode_t *in = we->inode;
	int ret;

	memset(e, 0, sizeof(*e));
	ad->path = new_path(ad, we->path);
	if (ad->path == NULL)
		return SQFS_ERROR_ALLOC;
	e->path = ad->path;
	if (we->link_target != NULL) {
		ad->link = new_path(ad, we->link_target);
		if (ad->link == NULL)
			return SQFS_ERROR_ALLOC;
		e->hard_link = ad->link;
		return 0;
	}
	e->mode = sqfs_inode_mode(in);
	e->mtime = in->mtime;
	ret = sqfs_image_inode_owner(ad->img, in, &e->uid, &e->gid);
	if (ret != 0)
		return ret;

	switch (sqfs_inode_type_basic(in->type)) {
	case SQFS_INODE_FILE:
		e->size = in->data.file.file_size;
		break;
	case SQFS_INODE_SLINK:
		/* the inode reader stores the target with a NUL after it */
		if (in->payload_size <= in->data.slink.target_size ||
		    in->payload[in->data.slink.target_size] != '\0')
			return errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
					   "inode %u: the symlink target "
					   "is damaged",
					   in->inode_number);
		e->symlink_target = (const char *)in->payload;
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(in->data.dev.rdev, &e->rdev_major,
				       &e->rdev_minor);
		break;
	default:
		break;
	}

	if (!(ad->wr->opt.flags & SQFS_WRITER_NO_XATTRS)) {
		ret = sqfs_image_read_xattrs(ad->img, in, &ad->xattrs,
					     &ad->xattr_count);
		if (ret != 0) {
			ad->xattrs = NULL;
			ad->xattr_count = 0;
			return ret;
		}
		e->xattrs = ad->xattrs;
		e->xattr_count = ad->xattr_count;
	}
	return 0;
}

static void entry_done(adopt_t *ad)
{
	free(ad->path);
	free(ad->link);
	sqfs_xattr_list_free(ad->xattrs, ad->xattr_count);
	ad->path = NULL;
	ad->link = NULL;
	ad->xattrs = NULL;
	ad->xattr_count = 0;
}

/* One old entry into the tree; a file's data offered for dedup. */
static int adopt_entry(adopt_t *ad, const sqfs_walk_entry_t *we)
{
	const sqfs_inode_t *in = we->inode;
	bool is_file = we->link_target == NULL &&
		       sqfs_inode_type_basic(in->type) == SQFS_INODE_FILE;
	file_data_t fd;
	sqfs_entry_t e;
	int ret;

	ret = describe(ad, we, &e);
	if (ret == 0 && is_file) {
		ret = old_file_data(ad, in, &fd);
		if (ret == 0)
			ret = block_processor_adopt_file(ad->wr->bp, &fd);
		if (ret == SQFS_ERROR_CORRUPTED && !ad->wr->err.fresh)
			errtext_set(&ad->wr->err, ret,
				    "inode %u: its tail is damaged",
				    in->inode_number);
	}
	if (ret == 0)
		ret = wr_add_existing(ad->wr, &e, is_file ? &fd : NULL);
	entry_done(ad);
	return ret;
}

/* The old fragment table, checked, taken over by the processor. */
static int adopt_fragments(adopt_t *ad)
{
	sqfs_fragment_t *list;
	int ret = 0;

	if (ad->frag_count == 0)
		return 0;
	list = calloc(ad->frag_count, sizeof(list[0]));
	if (list == NULL)
		return SQFS_ERROR_ALLOC;
	for (uint32_t i = 0; ret == 0 && i < ad->frag_count; ++i) {
		const char *why;

		ret = sqfs_image_get_fragment(ad->img, i, &list[i]);
		if (ret != 0)
			break;
		why = data_check_word(ad->block_size, list[i].size);
		if (why == NULL && list[i].size == 0)
			why = "it is empty";
		if (why == NULL)
			why = data_check_place(
			    ad->data_start, ad->data_end, list[i].start,
			    list[i].size & SQFS_SIZE_WORD_LENGTH);
		if (why != NULL)
			ret = errtext_set(&ad->wr->err, SQFS_ERROR_CORRUPTED,
					  "fragment block %u: %s", i, why);
	}
	if (ret == 0)
		ret = block_processor_adopt_fragments(ad->wr->bp, list,
						      ad->frag_count);
	free(list);
	return ret;
}

/* Every old entry, depth first, into the tree. */
static int adopt_tree(adopt_t *ad)
{
	sqfs_walk_entry_t we;
	sqfs_walker_t *w;
	int ret;

	ret = sqfs_walker_create(ad->img, "", 0, 0, &w);
	while (ret == 0) {
		ret = sqfs_walker_next(w, &we);
		if (ret == 1) {
			ret = 0;
			break;
		}
		if (ret == 0)
			ret = adopt_entry(ad, &we);
	}
	sqfs_walker_destroy(w);
	return ret;
}

static int append_failed(char *why, int code, const char *what)
{
	static const char intro[] = "appending to the image: ";
	size_t len;

	if (why == NULL)
		return code;
	/* cut to fit: the words of a deep failure can be long */
	memcpy(why, intro, sizeof(intro));
	len = strlen(what);
	if (len > SQFS_ERROR_TEXT_SIZE - sizeof(intro))
		len = SQFS_ERROR_TEXT_SIZE - sizeof(intro);
	memcpy(why + sizeof(intro) - 1, what, len);
	why[sizeof(intro) - 1 + len] = '\0';
	return code;
}

int sqfs_writer_create_append(sqfs_file_t *file, sqfs_image_t *img,
			      const char *old_root,
			      const sqfs_writer_options_t *opt,
			      sqfs_writer_t **out, char *why)
{
	const sqfs_super_t *super;
	head_copy_t hc;
	adopt_t ad;
	size_t depth;
	int ret;

	if (why != NULL)
		why[0] = '\0';
	if (out != NULL)
		*out = NULL;
	if (img == NULL || opt == NULL || out == NULL)
		return append_failed(why, SQFS_ERROR_ARG_INVALID,
				     "no image, options or out");
	if (old_root == NULL)
		old_root = "";
	if (wr_path_check(old_root, &depth) != 0)
		return append_failed(why, SQFS_ERROR_ARG_INVALID,
				     "the old root's new path is not valid");

	super = sqfs_image_super(img);
	if (opt->block_size != super->block_size ||
	    opt->compressor.id != super->compression_id) {
		char buf[SQFS_ERROR_TEXT_SIZE];

		snprintf(buf, sizeof(buf),
			 "the image has blocks of %u bytes and compressor "
			 "%u, the options %u bytes and compressor %u",
			 (unsigned int)super->block_size,
			 (unsigned int)super->compression_id,
			 (unsigned int)opt->block_size,
			 (unsigned int)opt->compressor.id);
		return append_failed(why, SQFS_ERROR_ARG_INVALID, buf);
	}

	memset(&ad, 0, sizeof(ad));
	ad.img = img;
	ad.block_size = super->block_size;
	ad.frag_count = super->fragment_entry_count;
	image_data_region(img, &ad.data_start, &ad.data_end);
	/* old_root in its canonical form, for the paths made from it */
	ad.old_root = old_root;
	while (*ad.old_root == '/')
		++ad.old_root;

	hc.img = img;
	hc.data_end = ad.data_end;
	ret = wr_create(file, opt, copy_head, &hc, &ad.wr, why);
	if (ret != 0)
		return ret;

	errtext_begin(&ad.wr->err);
	ret = adopt_fragments(&ad);
	if (ret == 0)
		ret = adopt_tree(&ad);
	if (ret != 0) {
		char buf[SQFS_ERROR_TEXT_SIZE];

		/* the words are the writer's, or else the image's */
		if (ad.wr->err.fresh)
			snprintf(buf, sizeof(buf), "%s", ad.wr->err.text);
		else
			snprintf(buf, sizeof(buf), "%s", sqfs_image_error(img));
		sqfs_writer_destroy(ad.wr);
		return append_failed(why, ret, buf);
	}
	*out = ad.wr;
	return 0;
}

int sqfs_writer_options_from_image(sqfs_writer_options_t *opt,
				   const sqfs_image_t *img)
{
	static const struct {
		uint16_t super;
		uint32_t writer;
	} same[] = {
	    {SQFS_FLAG_EXPORTABLE, SQFS_WRITER_EXPORTABLE},
	    {SQFS_FLAG_NO_FRAGMENTS, SQFS_WRITER_NO_FRAGMENTS},
	    {SQFS_FLAG_NO_XATTRS, SQFS_WRITER_NO_XATTRS},
	    {SQFS_FLAG_UNCOMPRESSED_INODES, SQFS_WRITER_UNCOMPRESSED_INODES},
	    {SQFS_FLAG_UNCOMPRESSED_IDS, SQFS_WRITER_UNCOMPRESSED_IDS},
	    {SQFS_FLAG_UNCOMPRESSED_DATA, SQFS_WRITER_UNCOMPRESSED_DATA},
	    {SQFS_FLAG_UNCOMPRESSED_FRAGMENTS,
	     SQFS_WRITER_UNCOMPRESSED_FRAGMENTS},
	    {SQFS_FLAG_UNCOMPRESSED_XATTRS, SQFS_WRITER_UNCOMPRESSED_XATTRS},
	};
	const uint32_t recorded =
	    SQFS_WRITER_EXPORTABLE | SQFS_WRITER_NO_FRAGMENTS |
	    SQFS_WRITER_NO_XATTRS | SQFS_WRITER_UNCOMPRESSED |
	    SQFS_WRITER_UNCOMPRESSED_IDS | SQFS_WRITER_NO_TAIL_PACKING |
	    SQFS_WRITER_NO_DEDUPLICATION;
	const sqfs_super_t *super;

	if (opt == NULL || img == NULL)
		return SQFS_ERROR_ARG_INVALID;
	super = sqfs_image_super(img);
	opt->block_size = super->block_size;
	sqfs_image_compressor_config(img, &opt->compressor);
	opt->flags &= ~recorded;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); ++i) {
		if (super->flags & same[i].super)
			opt->flags |= same[i].writer;
	}
	/* the writer sets ALWAYS_FRAGMENTS when it packs tails of files
	 * larger than a block, and DEDUPLICATED unless told not to */
	if (!(super->flags & SQFS_FLAG_ALWAYS_FRAGMENTS))
		opt->flags |= SQFS_WRITER_NO_TAIL_PACKING;
	if (!(super->flags & SQFS_FLAG_DEDUPLICATED))
		opt->flags |= SQFS_WRITER_NO_DEDUPLICATION;
	return 0;
}
