/* SPDX-License-Identifier: MIT */
/*
 * reader_util.h - helpers for the image reader tests: one test tree that
 * our writer, mksquashfs and gensquashfs all pack, a check of an opened
 * image against it (every inode, owner, export ref, fragment and xattr),
 * and a way to take an image's lookup tables apart and emit them again
 * uncompressed, so that hostile tests can change single entries.
 *
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h>.
 */
#ifndef READER_UTIL_H
#define READER_UTIL_H

#include "sqfs/squashfs.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RU_MKSQUASHFS "/usr/bin/mksquashfs"
#define RU_GENSQUASHFS "/usr/bin/gensquashfs"

/* Superblock field offsets (FORMAT §2). */
#define RU_SB_INODE_COUNT 4
#define RU_SB_FRAG_COUNT 16
#define RU_SB_ID_COUNT 26
#define RU_SB_ROOT 32
#define RU_SB_BYTES_USED 40
#define RU_SB_ID_START 48
#define RU_SB_XATTR_START 56
#define RU_SB_INODE_START 64
#define RU_SB_DIR_START 72
#define RU_SB_FRAG_START 80
#define RU_SB_EXPORT_START 88

/* ---- the test tree --------------------------------------------------------
 */

typedef struct {
	/* Regular files f0000 .. ; file i has uid 1000 + i. */
	size_t files;
	/* Give files and the directory "sub" xattrs. */
	bool xattrs;
	/* Also trusted.* and security.* keys (needs root for the tools). */
	bool privileged;
	/* Leave out sub/hard, the hard link to f0001 (gensquashfs 1.2
	 * packing a directory stores hard links as separate files). */
	bool no_hard_link;
} ru_tree_t;

#define RU_MAX_XATTRS 6

typedef struct {
	sqfs_xattr_t x[RU_MAX_XATTRS];
	char keys[RU_MAX_XATTRS][32];
	uint8_t values[RU_MAX_XATTRS][256];
	size_t count;
} ru_xattrs_t;

uint64_t ru_file_size(size_t i);
void ru_file_data(size_t i, uint8_t *buf, size_t size);
uint32_t ru_file_gid(size_t i);

/* The xattrs file i (or "sub" for i == SIZE_MAX) carries in tree t. */
void ru_file_xattrs(const ru_tree_t *t, size_t i, ru_xattrs_t *out);

/* Pack tree t with our writer (block size 4096, compressor id, flags
 * sqfs_writer_flags_t); returns the malloc'd image. */
uint8_t *ru_build_writer(const ru_tree_t *t, sqfs_compressor_id_t id,
			 uint32_t flags, size_t *size);

/* Create tree t under dir. Returns false if the xattrs could not be set
 * (the caller skips). */
bool ru_build_dir(const ru_tree_t *t, const char *dir);

/* ---- files and tools ---------------------------------------------------- */

bool ru_have(const char *tool);

/* A fresh temporary directory (PATH_MAX buffer); remove it with
 * ru_rmrf. */
void ru_tmpdir(char *dir);
void ru_rmrf(const char *dir);

/* Run a shell command built like printf; returns its exit status. */
int ru_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load a whole file (malloc'd). */
uint8_t *ru_load(const char *path, size_t *size);

/* ---- opening and checking ----------------------------------------------- */

/* Open a copy of the image in memory; asserts success. */
sqfs_image_t *ru_open(const uint8_t *data, size_t size, sqfs_file_t **file);

/* Close what ru_open opened. */
void ru_close(sqfs_image_t *img, sqfs_file_t *file);

/*
 * Check an open image against tree t: every inode read in table order
 * (numbers 1 .. inode count, each once), the export table (if any)
 * giving the same refs, owners, file sizes, fragment entries of the
 * files, the root, and the xattrs of every file (compared as sets).
 */
void ru_check_tree(sqfs_image_t *img, const ru_tree_t *t, bool with_xattrs);

/*
 * Try everything a reader does with a possibly hostile image: open, then
 * read the root, every inode through the inode table and the export
 * table, and each inode's xattrs. Returns 0 if all worked, else the first
 * error (open errors included). Never fails the test by itself.
 */
int ru_probe(const uint8_t *data, size_t size);

/* ---- patching ----------------------------------------------------------- */

void ru_put16(uint8_t *data, uint64_t off, uint16_t v);
void ru_put32(uint8_t *data, uint64_t off, uint32_t v);
void ru_put64(uint8_t *data, uint64_t off, uint64_t v);
uint16_t ru_get16(const uint8_t *data, uint64_t off);
uint32_t ru_get32(const uint8_t *data, uint64_t off);
uint64_t ru_get64(const uint8_t *data, uint64_t off);

/* A copy of size bytes at data (malloc'd). */
uint8_t *ru_dup(const uint8_t *data, size_t size);

/*
 * An image's lookup tables in their on-disk entry form, plus everything
 * before them. ru_tables_emit writes them again, uncompressed, directly
 * after head (the image up to the directory table's end), optionally
 * with gaps after an index, and fixes the superblock.
 */
typedef struct {
	uint8_t *head;
	size_t head_size;
	uint8_t *frag;
	size_t frag_size;
	uint8_t *exp;
	size_t exp_size;
	uint8_t *ids;
	size_t ids_size;
	/* The key/value stream as stored (md-blocks); NULL: no xattrs. */
	uint8_t *kv;
	size_t kv_size;
	uint8_t *xids;
	size_t xids_size;
	/* The count in the xattr-id header. */
	uint32_t xattr_count;
	/* Zero bytes after the fragment, export and id indexes. */
	size_t gap_frag, gap_exp, gap_id;
} ru_tables_t;

void ru_tables_extract(const uint8_t *data, size_t size, ru_tables_t *t);
uint8_t *ru_tables_emit(const ru_tables_t *t, size_t *size);
void ru_tables_free(ru_tables_t *t);

/*
 * Replace t's key/value stream with size bytes of stream, cut into raw
 * md-blocks, and its xattr-id entries with count copies from ids (16
 * bytes each, on-disk form).
 */
void ru_tables_set_xattrs(ru_tables_t *t, const uint8_t *stream, size_t size,
			  const uint8_t *ids, uint32_t count);

/* The ref of byte pos of a stream that ru_tables_set_xattrs stored. */
uint64_t ru_kv_ref(size_t pos);

#endif /* READER_UTIL_H */
