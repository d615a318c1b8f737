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

#include "util/fs_open.h"
#include "util/fs_xattrs.h"
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
	/* mksquashfs's xattr options: which keys read from an input are
	 * kept (NULL: all of them) ... */
	bool (*keep_xattr_key)(const void *user, const char *key);
	const void *xattr_user;
	/* ... and xattrs every entry gets on top (after its own, so they
	 * win): a user. one only a regular file or a directory, as
	 * user xattrs exist only there (xattr(7)) */
	const sqfs_xattr_t *add_xattrs;
	size_t add_xattr_count;
	/* a file that cannot be opened for want of permission is packed
	 * empty, with a warning, instead of ending the run (mksquashfs's
	 * default) */
	bool empty_unreadable_files;
} gs_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version, -X help), -1 on an error (already printed).
 */
int gs_parse_options(int argc, char **argv, gs_options_t *opt);

void gs_free_options(gs_options_t *opt);

/*
 * What the packer keeps of lstat: the image's attributes, the size, and
 * the device and inode that tell whether a file opened later is the one
 * the scan saw. A struct stat is three times as big, and a tree of a
 * million entries keeps one per entry until it is packed.
 */
typedef struct {
	union {
		/* a regular file's */
		uint64_t size;
		/* a device's number */
		uint64_t rdev;
	};
	int64_t mtime;
	union {
		/* the object the scan saw */
		struct {
			uint64_t dev;
			uint64_t ino;
		};
		/* a file whose data lies in a store (gs_entry_t.in_store):
		 * which store (gs_entries_t.stores) and where in it; such a
		 * file has no object of its own to check */
		struct {
			uint64_t store;
			uint64_t offset;
		} data;
	};
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
} gs_stat_t;

/* The fields of st that gs_stat_t keeps. */
void gs_stat_set(gs_stat_t *out, const struct stat *st);

/* One entry of the input, in the order it is packed. Its strings are
 * freed as soon as it is packed (gs_entry_release). It is kept small:
 * a tree's list is held whole until the last file is packed. */
typedef struct {
	/* the path in the image, relative to the root ("" is the root) and
	 * relative to the scanned directory at the same time */
	char *path;
	union {
		/* a symlink's target; for a hard link, the path of the
		 * entry it links to */
		char *target;
		/* a listing's regular file: where its data is, below the
		 * input folder; a glob's: below its root */
		char *source;
	};
	/* from the xattr file (owned: keys and values malloc'd); they
	 * replace the scan's xattrs of the same keys */
	sqfs_xattr_t *xattrs;
	/* lstat at scan time; a listing's entries: the mode, owner and
	 * device number it gives (a glob's: what the scan saw, with the
	 * line's overrides), and a file's input size */
	gs_stat_t st;
	/* from the sort file: files are packed by priority, lowest first,
	 * with these sqfs_file_flags_t */
	int64_t priority;
	uint32_t file_flags;
	uint32_t xattr_count;
	/* the listing's line, for messages */
	uint32_t line;
	/* the root (gs_root_t) a scanned entry was found below, whose
	 * walk saw st: its input is opened below that root, checked
	 * (fs_open.h); GS_ROOT_NONE for what a listing names itself */
	uint32_t root;
	bool hard_link;
	/* given by a listing: a file's data comes from source */
	bool from_listing;
	/* a listing entry that keeps st's mtime (glob -keeptime) */
	bool keep_time;
	/* its mode (a directory's), owner and time are the --defaults
	 * ones, not st's: the root of --pack-dir, and implicit entries */
	bool default_attrs;
	/* a directory no line of a listing gives but one implies (a parent
	 * of an entry, a glob's directory, the root): it is made with the
	 * --defaults attributes, as the writer would make it, but as an
	 * entry of its own, which --selinux and --xattr-file can label.
	 * The listing puts these last; the packer adds each just before the
	 * first entry below it, so that the image is the one the writer's
	 * implicit directories would give, and the root after the rest. */
	bool implicit;
	/* a regular file whose data is st.size bytes at st.data.offset of
	 * a store rather than a file of its own (mksquashfs's pseudo files
	 * with data); it is from_listing, with no source */
	bool in_store;
} gs_entry_t;

/* gs_entry_t.root of an entry no walk saw. */
#define GS_ROOT_NONE UINT32_MAX

/*
 * A directory a walk scanned: --pack-dir's, or a glob line's location.
 * Its location (relative to the input folder, which the user trusts:
 * symlinks in it are followed) is opened again when the inputs below it
 * are read, and must be the directory the walk saw.
 */
typedef struct {
	char *location;
	fs_id_t id;
	/* Where the walk's entries are in the image, when that is not where
	 * they are below location (mksquashfs's sources, which land in the
	 * image's root under a name of their own, maybe renamed): an entry's
	 * image path starts with image_name, which stands for real_name
	 * below location ("" for location itself). Both NULL: an entry's
	 * image path is its path below location. */
	char *image_name;
	char *real_name;
} gs_root_t;

typedef struct {
	gs_entry_t *list;
	size_t count;
	size_t capacity;
	/* the scanned directories, by gs_entry_t.root */
	gs_root_t *roots;
	size_t root_count;
	/* bytes of regular files to read (hard links count once) */
	uint64_t total_bytes;
	/* bytes at the start of list given back (gs_entries_drop_before) */
	size_t dropped;
	/* open descriptors holding the data of in_store entries, by
	 * st.data.store: read with pread only, so that readers on several
	 * threads share them */
	int *stores;
	size_t store_count;
} gs_entries_t;

/* Add the descriptor fd (taken over: closed on failure) as a store;
 * *index is its st.data.store. Returns 0, or -1 if out of memory. */
int gs_entries_add_store(gs_entries_t *e, int fd, uint32_t *index);

/*
 * Add a root for location (taken over: freed on failure), whose directory
 * a walk saw as id; *index is its gs_entry_t.root. Returns 0, or -1 if
 * out of memory (or out of root numbers).
 */
int gs_entries_add_root(gs_entries_t *e, char *location, fs_id_t id,
			uint32_t *index);

/*
 * Scan the directory open at fd (taken over), found at location (relative
 * to the input folder, which the user trusts: symlinks in it were
 * followed; "." for --pack-dir), with the walk of sqfs/dir_source.h,
 * appending to out every entry below
 * it, depth first, each directory's entries sorted by name, the
 * directory itself first (path ""). Each entry's path is relative to the
 * location, and its root is the new gs_root_t added for the location.
 * Members of a hard-link group after the first become hard links to it.
 * With one_file_system, directories on another device are listed but not
 * entered. Returns 0, or -1 after printing why.
 */
int gs_scan(int fd, const char *location, bool one_file_system,
	    gs_entries_t *out);

/* What else a scan can be told (mksquashfs's sources and exclusions). */
typedef struct {
	bool one_file_system;
	/* every name of a multiply-linked file packed on its own */
	bool no_hard_links;
	/* directories that cannot be listed left out with a warning */
	bool skip_unreadable_dirs;
	/* the image path of the scanned directory itself: "" or NULL for
	 * the image's root (gs_root_t.image_name) */
	const char *image_name;
	/* called for each entry but the scanned directory, with its path
	 * below it and its lstat: 1 leaves it out (a directory with all
	 * below it), 0 keeps it, -1 stops the scan (printed why) */
	int (*filter)(void *user, const char *path, const struct stat *st);
	void *user;
} gs_scan_opts_t;

/* gs_scan with opts. */
int gs_scan_opts(int fd, const char *location, const gs_scan_opts_t *opts,
		 gs_entries_t *out);

/* Give root index the names of gs_root_t (taken over: freed on
 * failure). Returns 0, or -1 if out of memory. */
int gs_entries_name_root(gs_entries_t *e, uint32_t index, char *image_name,
			 char *real_name);

/* Give e the xattr key = value (size bytes), which replaces an earlier
 * value of the same key (given or read) when the entry is packed; key and
 * value are taken over (freed on failure). Returns 0 or -1 if out of
 * memory. */
int gs_entry_set_xattr(gs_entry_t *e, char *key, uint8_t *value, size_t size);

/* "dir/rel" (just one of them if the other is empty), malloc'd; NULL if
 * out of memory. */
char *gs_path_join(const char *dir, const char *rel);

/*
 * The canonical form of an image path, in place: no leading '/' or "./",
 * no empty or "." components, no trailing '/'. Returns NULL for a path
 * with a ".." component. Every path a user file names goes through it,
 * so that "./usr//bin/" and "usr/bin" are the same entry everywhere.
 */
const char *gs_path_canonical(char *path);

/* The hash of a path, for the path index and the sort file's table of
 * exact rules: FNV-1a, since paths share long prefixes and every byte
 * counts. */
uint64_t gs_path_hash(const char *path);

/*
 * The entries of a list by path (open addressing, at most half full), so
 * that finding one by its path costs the same in a list of a million.
 * Zero-initialise; the list's paths must not change while it is used.
 */
typedef struct {
	/* an entry's index, or SIZE_MAX for a free slot */
	size_t *slots;
	size_t mask;
} gs_path_index_t;

/* Make room for one more entry than e holds. Returns 0, or -1 if out of
 * memory (the index is unchanged). */
int gs_path_index_reserve(gs_path_index_t *idx, const gs_entries_t *e);

/* The slot of path: the one holding its entry's index, or the free one
 * (SIZE_MAX) where it would go. The index must have room (reserve). */
size_t *gs_path_index_slot(gs_path_index_t *idx, const gs_entries_t *e,
			   const char *path);

void gs_path_index_free(gs_path_index_t *idx);

/* A new zeroed entry at the end of e, owning path (freed here if there is
 * no room); NULL if out of memory. */
gs_entry_t *gs_entries_push(gs_entries_t *e, char *path);

/* Free what e owns (its strings and xattrs), once it is packed. */
void gs_entry_release(gs_entry_t *e);

/* Give back the room the list grew into but does not use. The list
 * stays where it is. */
void gs_entries_trim(gs_entries_t *e);

/* Give the memory of the first n entries back to the system, once they
 * are released; they read as empty entries after. */
void gs_entries_drop_before(gs_entries_t *e, size_t n);

void gs_entries_free(gs_entries_t *e);

/*
 * Read the listing (pack file) name into out, checking every line; input
 * files are looked up relative to input_dir. The directories the lines
 * imply but do not give (and the root, if no line gives it) follow the
 * entries as implicit ones. Returns 0, or -1 after printing
 * "FILE:LINE: why".
 */
int gs_read_listing(const char *name, int input_dir, gs_entries_t *out);

/*
 * Read the sort file name and give each regular file (not a hard link) of
 * entries the priority and flags of the first rule that matches it.
 * Returns 0, or -1 after printing "FILE:LINE: why".
 */
int gs_apply_sort_file(const char *name, gs_entries_t *entries);

/* ---- text.c: the line-based input files ---- */

/* The file name opened for reading, or NULL after saying why. */
FILE *gs_text_open(const char *name);

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

/* ---- input.c: opening the inputs again ---- */

/*
 * Opens the inputs of entries: what a listing names (a file line's
 * location), as given, below the input folder; what a walk saw, below
 * its root, without following a symlink and checked to be the object the
 * walk saw (fs_open.h). One per thread; it keeps the directories of the
 * last input open.
 */
typedef struct {
	int input_dir;
	const gs_entries_t *entries;
	/* the root the chain is below (GS_ROOT_NONE: none), and its fd */
	uint32_t root;
	int root_fd;
	fs_chain_t chain;
} gs_opener_t;

/* An opener below input_dir (the caller's) for the entries' roots. */
void gs_opener_init(gs_opener_t *o, int input_dir, const gs_entries_t *entries);
void gs_opener_cleanup(gs_opener_t *o);

/* How messages name e's input: below the input folder. Valid until the
 * next call (a static buffer of the calling thread). */
const char *gs_input_name(const gs_entries_t *entries, const gs_entry_t *e);

/*
 * Open e's input with flags (O_RDONLY for a file's data, O_RDONLY |
 * O_DIRECTORY for a directory's xattrs): the descriptor, with its fstat in
 * *st, or -1 with *err an errno value or FS_ERR_REPLACED. Prints nothing
 * (readers call it): gs_input_error says it.
 */
int gs_input_open(gs_opener_t *o, const gs_entry_t *e, int flags,
		  struct stat *st, int *err);

/*
 * Where e's data is in the descriptor gs_input_open gave, whose fstat is
 * st: the bytes [*base, *base + the size returned). For most entries the
 * whole file (base 0, st's size); for one in a store, its range, cut
 * short where the store ends.
 */
uint64_t gs_input_extent(const gs_entry_t *e, const struct stat *st,
			 uint64_t *base);

/*
 * The xattrs of e that an image can hold (--keep-xattr), read from its
 * input checked as gs_input_open checks it: through fd if e is open
 * there (fd >= 0), else opened here. Returns 0 or -1 (printed).
 */
int gs_input_xattrs(gs_opener_t *o, const gs_entry_t *e, int fd,
		    fs_xattrs_t *x);

/* Print err (from gs_input_open) for e. Returns -1. */
int gs_input_error(const gs_entries_t *entries, const gs_entry_t *e, int err);

/* What a reader made of one file (ahead.c). */
typedef enum {
	/* data holds got bytes of the size it had when opened (fewer: it
	 * shrank); size_after is its size once read (more: it grew) */
	GS_AHEAD_READ,
	/* not read ahead (big, sparse, or grown since the scan): the
	 * packer reads it itself */
	GS_AHEAD_SELF,
	/* err says why, as gs_input_error says it: an errno from opening
	 * or reading it, or GS_ERR_REPLACED */
	GS_AHEAD_FAILED,
} gs_ahead_state_t;

typedef struct {
	gs_ahead_state_t state;
	uint8_t *data;
	uint64_t size;
	uint64_t got;
	uint64_t size_after;
	int err;
} gs_ahead_file_t;

/*
 * Readers that read the small ones of files (count regular files, in
 * packing order, opened by gs_input_open with openers of their own below
 * input_dir) ahead of the packer, on threads, within a bounded budget
 * (ahead.c says how much). files and entries must stay as they are until
 * gs_ahead_destroy. Returns 0, or -1 if out of memory.
 */
typedef struct gs_ahead gs_ahead_t;

int gs_ahead_create(int input_dir, const gs_entries_t *entries,
		    gs_entry_t *const *files, size_t count, gs_ahead_t **out);

/* What became of the next file, in order, waiting for it if need be;
 * valid until the next call. NULL after the last. */
const gs_ahead_file_t *gs_ahead_next(gs_ahead_t *a);

/* Stop the readers and free what they read. NULL is allowed. */
void gs_ahead_destroy(gs_ahead_t *a);

typedef struct {
	const gs_options_t *opt;
	sqfs_writer_t *wr;
	progress_t *progress;
	/* the input folder: the scanned directory, or where a listing's
	 * inputs are; every input is opened relative to it */
	int dirfd;
	gs_opener_t opener;
	gs_entries_t entries;
	uint64_t bytes_done;
	uint64_t entries_done;
	/* told of each entry once it is packed (mksquashfs -info), or
	 * NULL */
	void (*on_packed)(void *user, const gs_entry_t *e);
	void *on_packed_user;
} gs_packer_t;

/* Hand every entry to the writer, releasing each once it is packed.
 * Returns 0, or -1 after printing why. */
int gs_pack_entries(gs_packer_t *pk, gs_entries_t *entries);

#endif /* GENSQUASHFS_H */
