/* SPDX-License-Identifier: MIT */
/*
 * writer_util.h - helpers for the high-level writer tests: temporary
 * directories, a model of the expected tree, and checks of an image with
 * the independent readers (unsquashfs, rdsquashfs).
 *
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h>.
 */
#ifndef WRITER_UTIL_H
#define WRITER_UTIL_H

#include "sqfs/squashfs.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNSQUASHFS "/usr/bin/unsquashfs"
#define RDSQUASHFS "/usr/bin/rdsquashfs"

typedef struct {
	char dir[PATH_MAX - 64];
	char image[PATH_MAX];
	char out[PATH_MAX];
} wt_tmp_t;

/* A fresh temporary directory (under $TMPDIR or /tmp) with image and out
 * paths inside it. */
void wt_tmp_init(wt_tmp_t *tmp);

/* Remove the directory and everything in it. */
void wt_tmp_cleanup(wt_tmp_t *tmp);

/* Default options with a fast compressor (gzip if built). */
void wt_options(sqfs_writer_options_t *opt);

/* Create the image file at path (replacing it) and a writer on it. */
sqfs_writer_t *wt_create(const char *path, const sqfs_writer_options_t *opt,
			 sqfs_file_t **file);

/* An entry with no xattrs, device number, symlink target or size
 * (sqfs_entry_init): callers fill in what their entry needs. */
sqfs_entry_t wt_make_entry(const char *path, uint32_t mode, uint32_t uid,
			   uint32_t gid, int64_t mtime);

/* sqfs_writer_add of a hard link at path to target. */
int wt_add_link(sqfs_writer_t *wr, const char *path, const char *target);

/* Run a shell command; returns its malloc'd stdout, *status its exit
 * status (or -1). */
char *wt_run(const char *cmd, int *status);

bool wt_have(const char *tool);

/* ---- the model of what an image should contain -------------------------- */

typedef struct {
	char *path;
	uint32_t mode; /* type | permissions */
	uint32_t uid, gid;
	uint32_t mtime;
	/* Regular files: size bytes of test data kind/seed, or holes where
	 * hole_size > 0 (hole_size zero bytes, then size - hole_size bytes
	 * of data). */
	uint64_t size;
	uint64_t hole_size;
	int kind;
	uint32_t seed;
	/* Symlinks. */
	char *target;
	uint32_t major, minor;
	/* Hard links: the path of the entry they share an inode with. */
	char *link_of;
	/* Regular files: sqfs_file_flags_t to write them with. */
	unsigned int file_flags;
	/* Expected xattrs: "key=value" pairs, NULL terminated (values are
	 * plain text here). */
	const char *const *xattrs;
} wt_entry_t;

typedef struct {
	wt_entry_t *entries;
	size_t count;
	size_t capacity;
} wt_model_t;

void wt_model_init(wt_model_t *m);
void wt_model_free(wt_model_t *m);

/* Add or replace (by path) an entry of the model; returns it. */
wt_entry_t *wt_model_set(wt_model_t *m, const char *path, uint32_t mode,
			 uint32_t uid, uint32_t gid, uint32_t mtime);

/* Add an entry known to be new (no search). */
wt_entry_t *wt_model_add(wt_model_t *m, const char *path, uint32_t mode,
			 uint32_t uid, uint32_t gid, uint32_t mtime);

/* Remove an entry and everything below it. */
void wt_model_remove(wt_model_t *m, const char *path);

wt_entry_t *wt_model_find(wt_model_t *m, const char *path);

/* Xattrs for the writer made from "key=value" strings (NULL terminated). */
#define WT_MAX_XATTRS 16
typedef struct {
	sqfs_xattr_t x[WT_MAX_XATTRS];
	char keys[WT_MAX_XATTRS][300];
	size_t count;
} wt_xattr_set_t;

void wt_xattr_set(wt_xattr_set_t *set, const char *const *kv);

/*
 * Write a file of the model's data for e into wr (add with its size and
 * file flags, append in pieces, end) and check every call succeeds.
 */
void wt_write_file(sqfs_writer_t *wr, const wt_entry_t *e,
		   const sqfs_xattr_t *xattrs, size_t xattr_count);

/*
 * Check the image against the model with unsquashfs -lln (listing,
 * modes, owners, sizes, times, link targets, devices) and by extracting
 * it and comparing every file, directory, link and xattr. Skips the test
 * if unsquashfs is missing.
 */
void wt_check_image(const wt_tmp_t *tmp, const wt_model_t *m);

/* Check rdsquashfs -l of one directory (its path without a leading '/',
 * "" for the root) against the model; nothing if rdsquashfs is missing. */
void wt_check_rd_list(const wt_tmp_t *tmp, const wt_model_t *m,
		      const char *dir);

/* Only the unsquashfs -lln part of wt_check_image (unsquashfs must be
 * there). */
void wt_check_listing(const wt_tmp_t *tmp, const wt_model_t *m);

/* The rdsquashfs -s line starting with field (e.g. "Inode type: ") for
 * path, malloc'd without the field name; NULL if there is none. */
char *wt_rd_stat(const char *image, const char *path, const char *field);

/* Compare two files byte for byte. */
bool wt_files_equal(const char *a, const char *b);

#endif /* WRITER_UTIL_H */
