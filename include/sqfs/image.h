/* SPDX-License-Identifier: MIT */
/*
 * image.h - opening an existing image for reading.
 *
 * sqfs_image_open reads and checks everything a reader must trust before it
 * follows a single reference: the superblock, the compressor and its
 * options, the chain of tables (each index array exactly as long as its
 * entry count needs, strictly increasing, gap-free up to the next table),
 * and loads the id and fragment tables. The export table (8 bytes per
 * inode) and the xattr-id table (16 bytes per xattr set) are not kept:
 * the first's index and last block are checked, every entry of the
 * second, and a lookup decodes the block it needs. Images are
 * untrusted input: every later lookup (inodes, ids, fragments, xattrs)
 * is bounds-checked against what was validated here, so a hostile image
 * yields an error code, never a crash, a hang, an unbounded allocation or
 * a read outside the image.
 *
 * An image object is not thread safe; open the file once per thread.
 *
 * Errors: besides its code, every failing call of the image, or of a
 * reader made from it (directory reader, walker, data reader, file
 * stream), leaves words saying what went wrong and where, which
 * sqfs_image_error returns: "inode 17: block list runs past the data",
 * "'..' in path 'a/../b'". The image and its readers share the one text,
 * as they share the image's thread.
 */
#ifndef SQFS_IMAGE_H
#define SQFS_IMAGE_H

#include "sqfs/predef.h"
#include "sqfs/inode.h"
#include "sqfs/xattr.h"

typedef struct sqfs_image sqfs_image_t;

/* One fragment-table entry. */
typedef struct {
	/* Absolute position of the fragment block. */
	uint64_t start;
	/* Size word: bits 0..23 the size on disk, bit 24 stored raw. */
	uint32_t size;
} sqfs_fragment_t;

SQFS_BEGIN_DECLS

/*
 * Open the image in file (which the image uses but does not own). Fails
 * with the superblock's errors, SQFS_ERROR_UNSUPPORTED for a compressor
 * this build lacks, or SQFS_ERROR_CORRUPTED for a table that is out of
 * place, overlapping, or inconsistent with its count.
 *
 * why is NULL or room for SQFS_ERROR_TEXT_SIZE bytes; on failure it
 * receives the words ("fragment table: offset or index out of bounds"),
 * on success the empty string.
 */
SQFS_API int sqfs_image_open(sqfs_file_t *file, sqfs_image_t **out, char *why);

/*
 * Find where an image starts inside file, for an image that is part of a
 * bigger file; open it then through sqfs_file_open_window (io.h). Tried
 * in this order:
 * - a plain image: a valid superblock at offset 0;
 * - an AppImage (type 2): an ELF executable (32 or 64-bit, either byte
 *   order) with the image right where the ELF file ends, the furthest of
 *   its header, its section and program header tables and the data of
 *   its sections and segments;
 * - a SIF container (Singularity, Apptainer): the data object of its
 *   squashfs partition, the primary system partition if there are
 *   several;
 * - with scan_limit not 0, a scan of the file's first scan_limit bytes
 *   for a superblock (the magic "hsqs" followed by a superblock that
 *   sqfs_super_validate accepts for the rest of the file), the first one
 *   found: an image after a prefix of any kind, as mksquashfs -offset
 *   leaves it. A scan may be fooled by an image stored inside another
 *   file's data; the structured ways above are not.
 *
 * "Valid" means sqfs_super_validate accepts the superblock against what
 * follows it in the file; sqfs_image_open checks the rest. The file is
 * untrusted: every offset, size and count read from it is checked against
 * the file's size before use, descriptor counts are capped (4096), and
 * the work is bounded by the ELF format's 16-bit counts and by
 * scan_limit.
 *
 * Returns 0 with the image's first byte in *offset, and in why (NULL or
 * room for SQFS_ERROR_TEXT_SIZE bytes) what was found ("an image after an
 * ELF executable (an AppImage) at 188392"). Fails with
 * SQFS_ERROR_SUPER_MAGIC if no image was found, why saying what each way
 * came to ("ELF: section 12 runs past the end of the file; no valid
 * superblock in the first 4096 bytes"), SQFS_ERROR_IO if reading failed,
 * SQFS_ERROR_ARG_INVALID for NULL arguments.
 */
SQFS_API int sqfs_image_locate(sqfs_file_t *file, uint64_t scan_limit,
			       uint64_t *offset, char *why);

/* A scan limit for sqfs_image_locate that the tools use: 64 MiB. */
#define SQFS_LOCATE_SCAN_LIMIT (64u << 20)

/*
 * What the last failing call of img or of a reader made from it went
 * wrong on, in words (no trailing period or newline); "no error" before
 * any failure. The text stays until the next failure: check the code
 * first. Never NULL; valid until the next call on img or its readers.
 */
SQFS_API const char *sqfs_image_error(const sqfs_image_t *img);

/* Close the image; NULL is allowed. */
SQFS_API void sqfs_image_destroy(sqfs_image_t *img);

/* The validated superblock. */
SQFS_API const sqfs_super_t *sqfs_image_super(const sqfs_image_t *img);

/* The image's compressor configuration (from the options block, if any). */
SQFS_API void sqfs_image_compressor_config(const sqfs_image_t *img,
					   sqfs_compressor_config_t *cfg);

/*
 * Read the inode at ref (block relative to the inode table << 16 |
 * offset), checked as sqfs_inode_read describes. *out is a new inode to
 * free(). A ref whose offset is 8192 or more, or whose block lies outside
 * the inode table, gives SQFS_ERROR_OUT_OF_BOUNDS.
 */
SQFS_API int sqfs_image_read_inode(sqfs_image_t *img, uint64_t ref,
				   sqfs_inode_t **out);

/* Read the root directory's inode (which must be a directory). */
SQFS_API int sqfs_image_read_root(sqfs_image_t *img, sqfs_inode_t **out);

/* The uid or gid an inode's index stands for. */
SQFS_API int sqfs_image_get_id(const sqfs_image_t *img, uint16_t index,
			       uint32_t *id);

/* Fragment-table entry index (SQFS_ERROR_OUT_OF_BOUNDS past the table). */
SQFS_API int sqfs_image_get_fragment(const sqfs_image_t *img, uint32_t index,
				     sqfs_fragment_t *frag);

/*
 * The inode reference of inode_number through the export table:
 * SQFS_ERROR_UNSUPPORTED if the image has none, SQFS_ERROR_OUT_OF_BOUNDS
 * for a number outside 1 .. inode count, or the error of decoding the
 * table's block that holds it (the image keeps the block decoded last,
 * so lookups of nearby numbers decode nothing).
 */
SQFS_API int sqfs_image_inode_ref(const sqfs_image_t *img,
				  uint32_t inode_number, uint64_t *ref);

/*
 * The extended attributes of inode: *list receives an array of *count
 * entries (keys with their namespace prefix, NUL-terminated; values of
 * size bytes) in on-disk order, to free with sqfs_xattr_list_free
 * (xattr.h). An
 * inode without xattrs gives count 0 and a NULL list. Keys of unknown
 * namespaces are skipped, as Linux does.
 */
SQFS_API int sqfs_image_read_xattrs(sqfs_image_t *img,
				    const sqfs_inode_t *inode,
				    sqfs_xattr_t **list, size_t *count);

/* The uid and gid of an inode, looked up in the id table. */
SQFS_API int sqfs_image_inode_owner(const sqfs_image_t *img,
				    const sqfs_inode_t *inode, uint32_t *uid,
				    uint32_t *gid);

SQFS_END_DECLS

#endif /* SQFS_IMAGE_H */
