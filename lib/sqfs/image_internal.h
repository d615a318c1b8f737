/* SPDX-License-Identifier: MIT */
/*
 * image_internal.h - what the readers inside the library (directory
 * reader, data reader, walker) need from an open image beyond the public
 * API. Every region below was validated by sqfs_image_open.
 */
#ifndef SQFS_IMAGE_INTERNAL_H
#define SQFS_IMAGE_INTERNAL_H

#include "sqfs/image.h"
#include "sqfs/meta_reader.h"
#include "sqfs/table_internal.h"
#include "sqfs/error_internal.h"
#include "meta_reader_internal.h"

/*
 * The words of the image's last failure, shared by the readers made from
 * it: a reader's public call begins them and words its failures here, so
 * that sqfs_image_error describes the last call that failed.
 */
errtext_t *image_errtext(const sqfs_image_t *img);

/* The file the image reads from. */
sqfs_file_t *image_file(const sqfs_image_t *img);

/* The image's compressor (decompression only). */
sqfs_compressor_t *image_compressor(const sqfs_image_t *img);

/*
 * A new metadata reader confined to the directory table,
 * [directory_table_start, end of the directory table), for a caller that
 * keeps its own position (each directory reader has one).
 */
int image_open_dir_table(const sqfs_image_t *img, sqfs_meta_reader_t **out);

/* Where the directory table ends (the next table's first block). */
uint64_t image_dir_table_end(const sqfs_image_t *img);

/*
 * The region where data and fragment blocks may lie: from the end of the
 * superblock and options block up to inode_table_start.
 */
void image_data_region(const sqfs_image_t *img, uint64_t *start, uint64_t *end);

/* Xattr-id entry index, decoded on demand (table_internal.h says why)
 * and checked: ref's offset below 8192 and its block inside the
 * key/value stream (else SQFS_ERROR_CORRUPTED; SQFS_ERROR_OUT_OF_BOUNDS
 * past the table, and always when the image has no xattrs; or the error
 * of decoding its block). */
int image_xattr_id(const sqfs_image_t *img, uint32_t index,
		   xattr_id_entry_t *out);

/*
 * The image's reader of the xattr key/value stream [*start, *end) (xattr
 * refs are relative to *start); NULL when the image has no xattrs. Shared:
 * whoever uses it sets its position first.
 */
sqfs_meta_reader_t *image_kv_reader(sqfs_image_t *img, uint64_t *start,
				    uint64_t *end);

/*
 * A light copy of img for another thread: it shares img's validated
 * tables (ids, fragments, export refs, xattr ids; img must outlive it),
 * and has its own compressor, metadata readers and error text. Destroy
 * it with sqfs_image_destroy.
 */
int image_clone(const sqfs_image_t *img, sqfs_image_t **out);

/* Make every metadata reader of img, and those it makes later (directory
 * readers), fetch blocks through fn. */
void image_set_meta_fetch(sqfs_image_t *img, meta_fetch_fn fn, void *user);

/* Whether the image has an export table (sqfs_image_inode_ref works). */
bool image_has_export(const sqfs_image_t *img);

#endif /* SQFS_IMAGE_INTERNAL_H */
