/* SPDX-License-Identifier: MIT */
/*
 * fs_image.h - the image the file system tests read: built in memory with
 * the library's writer, with files of every shape (empty, one byte,
 * around each block boundary, several blocks, sparse, incompressible,
 * tails in fragments and as short blocks), a directory whose listing is
 * over 64 KiB (so it has an index), deep directories, a symlink of the
 * longest target, devices, a hard link and xattrs.
 *
 * Include after <cmocka.h>. Every helper fails the test on error.
 */
#ifndef TESTS_READER_FS_IMAGE_H
#define TESTS_READER_FS_IMAGE_H

#include "sqfs/squashfs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Regular files "files/fNN" of the tree. */
#define FI_FILES 12
/* Entries of "big" (the directory with an index). */
#define FI_BIG_ENTRIES 2200

/* The size of file i in an image of block size bs. */
uint64_t fi_file_size(size_t i, uint32_t bs);

/* The bytes of file i at offset off. */
void fi_file_data(size_t i, uint32_t bs, uint64_t off, uint8_t *buf,
		  size_t size);

/* The name of entry i of "big" (into buf of 64 bytes). */
void fi_big_name(size_t i, char *buf);

/*
 * Build the tree with block size bs and sqfs_writer_flags_t flags (e.g.
 * SQFS_WRITER_EXPORTABLE); small: leave out "big" and most files, for
 * the damaged-image test. Returns the malloc'd image.
 */
uint8_t *fi_build(uint32_t bs, uint32_t flags, bool small, size_t *size);

/* Open an in-memory copy of data as a file (sqfs_file_close it). */
sqfs_file_t *fi_file(const uint8_t *data, size_t size);

#endif /* TESTS_READER_FS_IMAGE_H */
