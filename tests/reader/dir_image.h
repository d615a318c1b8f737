/* SPDX-License-Identifier: MIT */
/*
 * dir_image.h - images for the directory reader and walker tests: built
 * with the library's writer, with mksquashfs, or crafted field by field
 * with raw (uncompressed) metadata so a test can put any bytes into a
 * directory listing.
 *
 * Include after <cmocka.h>. Every helper fails the test on error.
 */
#ifndef TESTS_READER_DIR_IMAGE_H
#define TESTS_READER_DIR_IMAGE_H

#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- with the library's writer ------------------------------------------ */

/* A writer on a new in-memory file. */
sqfs_writer_t *di_writer(sqfs_file_t **file);

void di_add_dir(sqfs_writer_t *wr, const char *path);
/* A FIFO: an entry with nothing but an inode. */
void di_add_fifo(sqfs_writer_t *wr, const char *path);
void di_add_file(sqfs_writer_t *wr, const char *path, const char *data);
void di_add_link(sqfs_writer_t *wr, const char *path, const char *target);

/* Finish and destroy the writer and open the image in file. */
sqfs_image_t *di_finish(sqfs_writer_t *wr, sqfs_file_t *file);

/* ---- with mksquashfs ----------------------------------------------------- */

/* Whether /usr/bin/mksquashfs can be run. */
bool di_have_mksquashfs(void);

/* A new temporary directory (malloc'd path). */
char *di_tempdir(void);

/* Create an empty file (and nothing else) at dir/name. */
void di_touch(const char *dir, const char *name);

/* Create the directory dir/name. */
void di_mkdir(const char *dir, const char *name);

/* Pack dir with mksquashfs into an image next to it and open it. */
sqfs_image_t *di_mksquashfs(const char *dir, sqfs_file_t **file);

/* Remove dir and everything below it, and the image next to it. */
void di_cleanup(char *dir);

/* ---- crafted images ------------------------------------------------------ */

/* Raw listing bytes: the directory claims size bytes, pad more follow. */
typedef struct {
	uint8_t data[16384];
	size_t size;
	size_t pad;
} di_listing_t;

void di_lst_header(di_listing_t *l, uint32_t count_m1, uint32_t block,
		   uint32_t base);
void di_lst_entry(di_listing_t *l, uint16_t offset, int16_t delta,
		  uint16_t type, const char *name, size_t len);
/* A header and entry for one inode at ref numbered number. */
void di_lst_one(di_listing_t *l, uint64_t ref, uint32_t number, uint16_t type,
		const char *name);

typedef struct di_craft di_craft_t;

di_craft_t *di_craft_new(void);

/* The reference the next inode will get. */
uint64_t di_craft_next_ref(const di_craft_t *c);

/* Append a FIFO inode; returns its reference. */
uint64_t di_craft_fifo(di_craft_t *c, uint32_t number);

/* The same with a link count of nlink. */
uint64_t di_craft_fifo_links(di_craft_t *c, uint32_t number, uint32_t nlink);

/*
 * Append the listing l (NULL: empty directory) and a directory inode for
 * it (extended if ext, with the index_count entries of index); returns
 * the inode's reference.
 */
uint64_t di_craft_dir(di_craft_t *c, uint32_t number, const di_listing_t *l,
		      bool ext, const void *index, size_t index_size,
		      uint16_t index_count);

/* Write the remaining tables and the superblock, free c and open the
 * image. */
sqfs_image_t *di_craft_finish(di_craft_t *c, uint32_t inode_count,
			      uint64_t root_ref, sqfs_file_t **file);

#endif /* TESTS_READER_DIR_IMAGE_H */
