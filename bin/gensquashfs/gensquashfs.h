/* SPDX-License-Identifier: MIT */
/*
 * gensquashfs.h - what the parts of gensquashfs share.
 *
 * gensquashfs works in two passes. The scan (scan.c) walks the input and
 * lists every entry with what lstat said about it, so that the total is
 * known (for the progress line) before any data is read. The packer
 * (pack.c) then hands the entries to the writer in that order, reading
 * each regular file as it goes.
 */
#ifndef GENSQUASHFS_H
#define GENSQUASHFS_H

#include "common/packer_cli.h"
#include "common/progress.h"
#include "sqfs/writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

typedef struct {
	/* what every packer takes (common/packer_cli.h) */
	packer_options_t pk;
	/* --pack-dir: the tree to scan; with --pack-file, where the
	 * listing's input files are */
	const char *pack_dir;
	/* --pack-file: the listing */
	const char *pack_file;
	/* --sort-file: packing order and per-file flags */
	const char *sort_file;
	/* --xattr-file: xattrs in getfattr --dump form */
	const char *xattr_file;
	/* --selinux: a file_contexts file */
	const char *selinux;
	bool keep_time;
	bool keep_xattr;
	bool one_file_system;
} gs_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version, -X help), -1 on an error (already printed).
 */
int gs_parse_options(int argc, char **argv, gs_options_t *opt);

void gs_free_options(gs_options_t *opt);

/* One entry of the input, in the order it is packed. */
typedef struct {
	/* the path in the image, relative to the root ("" is the root) and
	 * relative to the scanned directory at the same time */
	char *path;
	/* lstat at scan time */
	struct stat st;
	/* a symlink's target; for a hard link, the path of the entry it
	 * links to */
	char *target;
	bool hard_link;
	/* given by a listing: st holds only the mode, owner and device
	 * number it gives (a glob's entries: what the scan saw, with the
	 * line's overrides); a file's data comes from source */
	bool from_listing;
	/* a listing entry that keeps st's mtime (glob -keeptime) */
	bool keep_time;
	char *source;
	/* the listing's line, for messages */
	size_t line;
	/* from the sort file: files are packed by priority, lowest first,
	 * with these sqfs_file_flags_t */
	int64_t priority;
	unsigned int file_flags;
	/* from the xattr file (owned: keys and values malloc'd); they
	 * replace the scan's xattrs of the same keys */
	sqfs_xattr_t *xattrs;
	size_t xattr_count;
} gs_entry_t;

typedef struct {
	gs_entry_t *list;
	size_t count;
	size_t capacity;
	/* bytes of regular files to read (hard links count once) */
	uint64_t total_bytes;
} gs_entries_t;

/*
 * Scan the directory at dirfd (named name in messages) into out: every
 * entry below it, depth first, each directory's entries sorted by name;
 * the directory itself is the root (path ""). Members of a hard-link
 * group after the first become hard links to it. With one_file_system,
 * directories on another device are listed but not entered. Returns 0, or
 * -1 after printing why.
 */
int gs_scan(int dirfd, const char *name, bool one_file_system,
	    gs_entries_t *out);

/* Give e the xattr key = value (size bytes), replacing a value of the
 * same key; key and value are taken over (freed on failure). Returns 0 or
 * -1 if out of memory. */
int gs_entry_set_xattr(gs_entry_t *e, char *key, uint8_t *value, size_t size);

/* "dir/rel" (just one of them if the other is empty), malloc'd; NULL if
 * out of memory. */
char *gs_path_join(const char *dir, const char *rel);

/* A new zeroed entry at the end of e, owning path (freed here if there is
 * no room); NULL if out of memory. */
gs_entry_t *gs_entries_push(gs_entries_t *e, char *path);

void gs_entries_free(gs_entries_t *e);

/*
 * Read the listing (pack file) name into out, checking every line; input
 * files are looked up relative to input_dir. Returns 0, or -1 after
 * printing "FILE:LINE: why".
 */
int gs_read_listing(const char *name, int input_dir, gs_entries_t *out);

/*
 * Read the sort file name and give each regular file (not a hard link) of
 * entries the priority and flags of the first rule that matches it.
 * Returns 0, or -1 after printing "FILE:LINE: why".
 */
int gs_apply_sort_file(const char *name, gs_entries_t *entries);

/* ---- text.c: the line-based input files ---- */

/* "gensquashfs: NAME:LINE: why". Returns -1. */
int gs_text_error(const char *name, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gs_text_verror(const char *name, size_t line, const char *fmt, va_list ap);

/* Hand every line of fp that is neither blank nor a '#' comment, leading
 * blanks skipped, to fn with its number, until fn returns nonzero (that is
 * returned). A NUL byte in a line is an error. */
int gs_text_lines(FILE *fp, const char *name,
		  int (*fn)(void *user, size_t line, char *text), void *user);

/* The same, '#' lines included (for files where they mean something). */
int gs_text_lines_all(FILE *fp, const char *name,
		      int (*fn)(void *user, size_t line, char *text),
		      void *user);

/* The double-quoted string at *p (on its opening quote), with \" and \\
 * escapes, unquoted in place into *out; *p then points past the closing
 * quote. Returns 1 if the quote is not closed on the line. */
int gs_text_unquote(char **p, char **out);

/*
 * Read the xattr file name (getfattr --dump form) into the entries it
 * names. Returns 0, or -1 after printing "FILE:LINE: why".
 */
int gs_apply_xattr_file(const char *name, gs_entries_t *entries);

/*
 * Label every entry (not hard links) from the SELinux file_contexts file
 * (security.selinux), as libselinux's selabel_lookup matches it. Returns
 * 0, or -1 after printing why (also in a build without libselinux).
 */
int gs_apply_selinux(const char *file, gs_entries_t *entries);

/* The same three from an open stream (the fuzz target's way in). */
int gs_read_listing_stream(FILE *fp, const char *name, int input_dir,
			   gs_entries_t *out);
int gs_apply_sort_stream(FILE *fp, const char *name, gs_entries_t *entries);
int gs_apply_xattr_stream(FILE *fp, const char *name, gs_entries_t *entries);

typedef struct {
	const gs_options_t *opt;
	sqfs_writer_t *wr;
	progress_t *progress;
	/* the scanned directory, or where a listing's inputs are: every
	 * input is opened relative to it */
	int dirfd;
	gs_entries_t entries;
	uint64_t bytes_done;
	uint64_t entries_done;
} gs_packer_t;

/* Hand every entry to the writer. Returns 0, or -1 after printing why. */
int gs_pack_entries(gs_packer_t *pk, const gs_entries_t *entries);

#endif /* GENSQUASHFS_H */
