/* SPDX-License-Identifier: MIT */
/*
 * tar_reader.h - entries of a tar archive, read through libarchive.
 *
 * libarchive parses the archive (ustar, GNU, PAX, v7; long names, sparse
 * files, xattr records, base-256 numbers) and undoes a gzip, xz, zstd,
 * bzip2 or lz4 compression recognised by its magic bytes. This module turns
 * what it reports into plain values the tools can check and store: a
 * canonical path, a type, owners, times, link targets, device numbers,
 * extended attributes, and the data as a sequence of chunks where holes of
 * sparse files are holes rather than zeros.
 *
 * Names (paths, link targets, xattr keys) are the bytes the archive holds,
 * in every format and whatever the caller's locale: nothing is converted
 * between charsets or normalized (tar_reader.c says how).
 *
 * The archive is untrusted: nothing here is assumed to be in range. Values
 * are passed on as read (uid may be negative, a device number huge) for
 * the caller to judge. Functions return 0 (or 1 where stated) or a
 * negative sqfs_error_t; tar_reader_error() then says what and where, with
 * libarchive's text where it gave one.
 *
 * Not thread-safe: one reader is used by one thread at a time.
 */
#ifndef TAR_READER_H
#define TAR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tar_reader tar_reader_t;

typedef enum {
	TAR_TYPE_DIR,
	TAR_TYPE_FILE,
	TAR_TYPE_SYMLINK,
	TAR_TYPE_HARDLINK,
	TAR_TYPE_CHR,
	TAR_TYPE_BLK,
	TAR_TYPE_FIFO,
	TAR_TYPE_SOCKET,
	/* Anything else (volume labels, unknown type flags, ...). */
	TAR_TYPE_OTHER,
} tar_type_t;

/* The S_IF* file type of an entry of type t; 0 for a hard link and for
 * TAR_TYPE_OTHER, which have none of their own. Which types a tool
 * stores is its own policy (tar2sqfs leaves sockets out). */
uint32_t tar_type_mode(tar_type_t t);

/* One extended attribute; key keeps its namespace ("user.x"). Each key
 * appears once per entry; they are sorted by key. "%3D" and "%25" in a
 * key read from a SCHILY.xattr record stand for '=' and '%', as GNU tar
 * writes them. */
typedef struct {
	char *key;
	void *value;
	size_t size;
	/* position in the archive's records (internal) */
	size_t order;
} tar_xattr_t;

typedef struct {
	/* The name as stored, for messages. */
	const char *raw_path;
	/* Canonical (see tar/path.h); "" for the root. */
	const char *path;
	/* path has a ".." component. */
	bool unsafe;
	tar_type_t type;
	/* Permission bits (07777). */
	uint32_t mode;
	int64_t uid;
	int64_t gid;
	/* The owner's and group's names, as stored; NULL if the archive
	 * gives none (a name is what squashfs-tools' sqfstar maps to an id
	 * of the system it runs on, unless told -numeric-owner). */
	const char *uname;
	const char *gname;
	int64_t mtime;
	bool mtime_set;
	/* Size of a file's contents, holes included; 0 for other types. */
	uint64_t size;
	/* TAR_TYPE_SYMLINK: the target, as stored. */
	const char *symlink;
	/* TAR_TYPE_HARDLINK: the target, canonical, and whether it has a
	 * ".." component. */
	const char *hardlink;
	bool hardlink_unsafe;
	/* TAR_TYPE_CHR, TAR_TYPE_BLK. */
	uint64_t rdev_major;
	uint64_t rdev_minor;
	const tar_xattr_t *xattrs;
	size_t xattr_count;
} tar_entry_t;

/* A piece of an entry's contents: size bytes at offset, taken from data,
 * or a hole of zeros if data is NULL. */
typedef struct {
	uint64_t offset;
	const void *data;
	uint64_t size;
} tar_chunk_t;

/* Create a reader; open it with one of the tar_reader_open_* calls. */
int tar_reader_create(tar_reader_t **out);

/* Destroy a reader; NULL is allowed. It does not close a caller's fd. */
void tar_reader_destroy(tar_reader_t *rd);

/* Read on past the two zero blocks that end an archive, so that archives
 * concatenated into one stream read as one (GNU tar --ignore-zeros).
 * Call before opening. Returns 0 or a negative sqfs_error_t. */
int tar_reader_set_ignore_zeros(tar_reader_t *rd, bool ignore);

/* Read the archive from fd (not closed by the reader). */
int tar_reader_open_fd(tar_reader_t *rd, int fd);

/* Read the archive from the file at path. */
int tar_reader_open_path(tar_reader_t *rd, const char *path);

/* Read the archive from size bytes at data, which must stay valid. */
int tar_reader_open_memory(tar_reader_t *rd, const void *data, size_t size);

/*
 * Read the next entry header into *out (valid until the next call).
 * Returns 0 for an entry, 1 at the end of the archive, or a negative
 * error, with tar_reader_error() saying what, at which offset of the
 * (uncompressed) archive and after which entry, and
 * tar_reader_error_entry() naming the entry where possible:
 * - SQFS_ERROR_CORRUPTED: damage; something the archive holds was lost.
 *   A header with a bad checksum or garbage where a header should be
 *   (passed over up to the next good header), a numeric field that is not
 *   a valid number, an entry without a name or with a sparse map that
 *   does not fit its size, extension records libarchive could not make
 *   sense of. The damaged entry is dropped with its data.
 * - SQFS_ERROR_UNSUPPORTED: an intact record that is not an entry and
 *   cannot be stored (a volume label).
 * Reading may go on after either, unless tar_reader_is_fatal() says
 * otherwise (a truncated archive, garbage in a size field, a read error).
 */
int tar_reader_next(tar_reader_t *rd, const tar_entry_t **out);

/*
 * The next piece of the current entry's data, in order and without gaps:
 * data, holes, and at the end a hole up to the entry's size if the data
 * stopped short of it. Returns 0 for a chunk, 1 once the data is complete,
 * or a negative error. Skipping the rest of the data is done by calling
 * tar_reader_next().
 */
int tar_reader_read_chunk(tar_reader_t *rd, tar_chunk_t *chunk);

/* The reason for the last error (libarchive's text where it gave one). */
const char *tar_reader_error(const tar_reader_t *rd);

/* The name of the entry the last error concerns, or NULL if unknown. */
const char *tar_reader_error_entry(const tar_reader_t *rd);

/* Whether the archive can no longer be read. */
bool tar_reader_is_fatal(const tar_reader_t *rd);

/* Bytes of (uncompressed) archive read so far, for progress reports. */
uint64_t tar_reader_position(const tar_reader_t *rd);

#endif /* TAR_READER_H */
