/* SPDX-License-Identifier: MIT */
/*
 * mksquashfs.h - what the parts of the mksquashfs personality share.
 *
 * This command takes squashfs-tools' mksquashfs command line and packs with
 * gensquashfs's engine (bin/gensquashfs/gensquashfs.h: the checked tree
 * walk, reopening inputs below checked descriptors, reading ahead, the
 * writer on every core). What is its own is policy, each in a file:
 *
 *   options.c  the grammar: SOURCE... DEST [OPTIONS] [-e LIST...]
 *   sources.c  the sources merged into one tree, as mksquashfs merges them
 *   exclude.c  -e, -ef, -wildcards, -regex, -max-depth
 *   pseudo.c   -p, -pf, -pd: pseudo definitions
 *   sort.c     -sort: where files' data goes
 *   policy.c   owners, modes and times (-all-root, -force-*, -root-*,
 *              -inode-time, SOURCE_DATE_EPOCH ...) and the xattr filters
 *   mode.c     symbolic and octal modes ("u+rwX,go=rx")
 *   report.c   what mksquashfs prints: the progress bar, -percentage,
 *              -info, the summary
 *   run.c      the output: claimed, written at -offset, moved into place
 *   tar.c      -tar and sqfstar: a tar archive from stdin, streamed into
 *              the writer with the same policy
 *   sqfstar.c  sqfstar's main
 *
 * doc/compat.md says which options do what, and why.
 */
#ifndef MKSQUASHFS_H
#define MKSQUASHFS_H

#include "../gensquashfs/gensquashfs.h"

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- mode.c ---------------------------------------------------------- */

/* One clause of a symbolic mode ("ug+rx"), or an octal mode. */
typedef struct {
	/* 'o' for an octal mode (bits), else '+', '-' or '=' */
	char op;
	/* the bits of u, g, o (07777 masks) the clause touches */
	uint32_t who;
	/* rwxst as bits for all of ugo, before masking with who */
	uint32_t bits;
	/* X: x only for directories or where some x is set */
	bool cond_x;
	/* copy from the class: 'u', 'g', 'o' or 0 */
	char copy;
} mk_mode_clause_t;

typedef struct {
	mk_mode_clause_t *clauses;
	size_t count;
} mk_mode_t;

/* Parse "0755" or "u=rwx,go=rx" into out. Returns NULL, or a message
 * saying what is wrong. */
const char *mk_mode_parse(const char *text, mk_mode_t *out);

/* The permission bits (07777) of mode after applying m. */
uint32_t mk_mode_apply(const mk_mode_t *m, uint32_t mode, bool is_dir);

void mk_mode_free(mk_mode_t *m);

/* ---- options ----------------------------------------------------------- */

/* A time option's value: "inode" (the latest inode time), or seconds. */
typedef struct {
	bool set;
	bool inode;
	uint32_t seconds;
} mk_time_t;

/* An owner option's value. */
typedef struct {
	bool set;
	uint32_t id;
} mk_id_t;

typedef enum {
	MK_MATCH_PLAIN = 0,
	MK_MATCH_WILDCARDS,
	MK_MATCH_REGEX,
} mk_match_t;

typedef struct {
	/* the engine's options: writer settings, output, keep_time ... */
	gs_options_t gs;

	char **sources;
	size_t source_count;
	const char *dest;

	/* -e and the lines of -ef files, in order */
	char **excludes;
	size_t exclude_count;
	const char **exclude_files;
	size_t exclude_file_count;
	mk_match_t match;
	/* -max-depth: levels below a source that are scanned; -1: all */
	long max_depth;
	/* -one-file-system-x: directories on another device left out */
	bool one_file_system_x;

	/* -p definitions and -pf files, in command-line order */
	struct mk_pseudo_arg {
		bool is_file;
		const char *text;
	} * pseudo;
	size_t pseudo_count;
	/* -pd: the default pseudo directory */
	const char *pseudo_dir;
	bool pseudo_override;

	bool noappend;
	/* -root-becomes: the old root's name when appending, or NULL */
	const char *root_becomes;
	bool keep_as_directory;
	bool no_hard_links;
	bool exit_on_error;
	bool no_sparse;
	bool no_duplicates;
	bool no_fragments;
	bool tail_ends;

	/* times */
	mk_time_t mkfs_time;
	mk_time_t inode_time;
	mk_time_t root_time;
	bool repro;
	/* SOURCE_DATE_EPOCH, if set and valid */
	bool have_sde;
	uint32_t sde;

	/* owners and modes */
	bool all_root;
	mk_id_t force_uid;
	mk_id_t force_gid;
	mk_id_t root_uid;
	mk_id_t root_gid;
	mk_id_t default_uid;
	mk_id_t default_gid;
	bool have_root_mode;
	mk_mode_t root_mode;
	bool have_default_mode;
	mk_mode_t default_mode;
	bool have_file_mode;
	mk_mode_t file_mode;
	bool have_dir_mode;
	mk_mode_t dir_mode;
	bool have_id_offset;
	uint32_t id_offset;

	/* xattrs */
	bool no_xattrs;
	regex_t *xattr_exclude;
	regex_t *xattr_include;
	sqfs_xattr_t *xattr_add;
	size_t xattr_add_count;

	/* output and reporting */
	uint64_t offset;
	bool nopad;
	bool quiet;
	bool info;
	const char *info_file;
	bool no_progress;
	bool progress;
	bool percentage;
	unsigned int processors;
	/* -mem, -mem-percent: the writer's memory limit, 0: default */
	uint32_t mem_mib;

	/* tar input (tar.c): sqfstar, or mksquashfs - DEST -tar */
	bool sqfstar;
	bool tar;
	/* sqfstar -force: replace an existing DEST */
	bool force;
	bool ignore_zeros;
	bool numeric_owner;
	bool no_strip;
	/* whether -default-mode/-uid/-gid came after -root-mode/-uid/-gid:
	 * sqfstar's root takes the one given last */
	bool root_mode_from_default;
	bool root_uid_from_default;
	bool root_gid_from_default;
} mk_options_t;

/* Parse argv into opt. Returns 0 to go on, 1 when done (-version, help),
 * -1 on an error (printed). */
int mk_parse_options(int argc, char **argv, mk_options_t *opt);

/* The same for sqfstar's grammar: [OPTIONS] FILESYSTEM [EXCLUDES...]. */
int mk_parse_sqfstar_options(int argc, char **argv, mk_options_t *opt);

void mk_free_options(mk_options_t *opt);

/* An xattr value of -xattrs-add and of pseudo "x" definitions: raw, or
 * 0s base64, 0x hex, or 0t text with \ooo escapes, into *out (malloc'd,
 * *size bytes). Returns NULL, or why not. */
const char *mk_xattr_value_decode(const char *text, uint8_t **out,
				  size_t *size);

/* ---- exclude.c --------------------------------------------------------- */

typedef struct mk_exclude mk_exclude_t;

/* The rules of opt's -e list and -ef files. Returns 0, or -1 (printed). */
int mk_exclude_create(const mk_options_t *opt, mk_exclude_t **out);

/*
 * Whether the entry at path (below its source, with its lstat) is left
 * out, the filter of gs_scan_opts_t: 1 out, 0 in.
 */
int mk_exclude_filter(void *user, const char *path, const struct stat *st);

void mk_exclude_destroy(mk_exclude_t *ex);

/* Leave out the object st describes wherever the scan meets it (the
 * image being written, when it lies inside a source). Returns 0 or -1
 * (out of memory, printed). */
int mk_exclude_add_object(mk_exclude_t *ex, const struct stat *st);

/* Before each source's scan: how deep below the image's root the source
 * is (-max-depth), and its device (-one-file-system-x). */
void mk_exclude_set_source(mk_exclude_t *ex, unsigned int base_depth,
			   dev_t dev);

/* ---- sources.c --------------------------------------------------------- */

/* Scan every source into entries, merged as mksquashfs merges them.
 * Returns 0, or -1 (printed). */
int mk_scan_sources(const mk_options_t *opt, mk_exclude_t *ex,
		    gs_entries_t *entries, int *input_dir);

/* ---- pseudo.c ---------------------------------------------------------- */

/* Apply every -p and -pf definition to entries. Returns 0, or -1
 * (printed, naming the definition). */
int mk_apply_pseudo(const mk_options_t *opt, gs_entries_t *entries);

/* The same from one stream (the fuzz target's way in). */
int mk_pseudo_stream(FILE *fp, const char *name, const mk_options_t *opt,
		     gs_entries_t *entries);

/* ---- sort.c ------------------------------------------------------------ */

/* The -sort file name: priorities of the files it names. Returns 0, or
 * -1 (printed). */
int mk_apply_sort_file(const mk_options_t *opt, const char *name,
		       gs_entries_t *entries);

/* ---- policy.c ---------------------------------------------------------- */

/* Owners, modes and times on every entry, as the options say. Returns 0
 * or -1 (printed). */
int mk_apply_policy(mk_options_t *opt, gs_entries_t *entries);

/* The xattr key filter of gs_options_t for -xattrs-exclude/-include. */
bool mk_keep_xattr_key(const void *user, const char *key);

/* A user or group given by name or number. Returns NULL or why not. */
const char *mk_parse_user(const char *text, uint32_t *out);
const char *mk_parse_group(const char *text, uint32_t *out);

/* A time option: "inode", seconds, or a date(1) string. Returns NULL or
 * why not. */
const char *mk_parse_time(const char *text, mk_time_t *out);

/* ---- report.c ---------------------------------------------------------- */

typedef struct mk_report mk_report_t;

int mk_report_create(const mk_options_t *opt, mk_report_t **out);
void mk_report_destroy(mk_report_t *r);

/* What there is to pack: bytes of file data, and the blocks the bar
 * counts. */
void mk_report_set_total(mk_report_t *r, uint64_t bytes, uint64_t blocks);

/* "Parallel mksquashfs: Using N processors" and "Creating ...". */
void mk_report_start(mk_report_t *r);

/* The progress bar or percentage, from the packer's progress. */
void mk_report_progress(void *user, uint64_t bytes, uint64_t total, bool last);

/* -info lines, per entry as packed. */
void mk_report_entry(mk_report_t *r, const gs_entry_t *e);

/* The summary after the image is complete. */
void mk_report_summary(mk_report_t *r, const sqfs_writer_stats_t *st);

/* ---- append.c ---------------------------------------------------------- */

typedef struct mk_append mk_append_t;

/* Open the image in DEST (at -offset) to append to it, checked; refused
 * when damaged. Returns 0, or -1 (printed). */
int mk_append_open(const mk_options_t *opt, mk_append_t **out);

void mk_append_close(mk_append_t *ap);

/* The old image's block size, compressor and choices into wr. */
void mk_append_options(const mk_append_t *ap, sqfs_writer_options_t *wr);

/* Give new entries of the root whose names the old image takes (or
 * -root-becomes's) the name _1, _2 ... Returns 0 or -1 (printed). */
int mk_append_rename(const mk_append_t *ap, gs_entries_t *entries);

/* The writer on file, with the old entries in it. Returns 0 or -1
 * (printed). */
int mk_append_writer(mk_append_t *ap, const mk_options_t *opt,
		     sqfs_file_t *file, sqfs_writer_t **wr);

/* ---- run.c ------------------------------------------------------------- */

/* Claim DEST, pack, put the image in place. Returns EXIT_SUCCESS or
 * EXIT_FAILURE. */
int mk_run(mk_options_t *opt);

/* DEST's first -offset bytes (zeros past its end) into file. Returns 0
 * or -1 (printed). */
int mk_copy_prefix(const mk_options_t *opt, sqfs_file_t *file);

/* ---- tar.c ------------------------------------------------------------- */

/* The -tar / sqfstar run: the archive on stdin into DEST. Returns
 * EXIT_SUCCESS or EXIT_FAILURE. */
int mk_run_tar(mk_options_t *opt);

#endif /* MKSQUASHFS_H */
