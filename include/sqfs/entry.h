/* SPDX-License-Identifier: MIT */
/*
 * entry.h - one entry of a directory tree: what every reader hands out and
 * what the writer takes.
 *
 * A program that copies a tree from one place to another (a tar archive to
 * an image, an image to a directory, an image to another image) should not
 * have to translate between the way each side stores an entry. So there is
 * one neutral description, in the terms of lstat(2) rather than of the
 * on-disk inode: a path, a file type and permissions, numeric owners, a
 * time in seconds, a device number as major and minor, a symlink target,
 * the path of the entry a hard link shares its inode with, extended
 * attributes and a size. The image source (image_source.h) yields entries
 * of an image, each regular file's data following as runs (data or
 * holes); the writer (writer.h) takes them with sqfs_writer_add, a file's
 * data following through sqfs_writer_append and sqfs_writer_append_hole.
 *
 * An entry is a view: it points at strings and xattrs it does not own.
 * What a reader hands out stays valid until the reader's next call; what a
 * program gives the writer needs to stay valid only during the call (the
 * writer copies what it keeps).
 *
 * Start from a zeroed structure (or sqfs_entry_init): fields added in
 * later versions take the room of `reserved`, and zero means "not given"
 * for each of them. The writer refuses an entry whose reserved room is not
 * zero rather than ignore what it cannot understand.
 */
#ifndef SQFS_ENTRY_H
#define SQFS_ENTRY_H

#include "sqfs/predef.h"
#include "sqfs/xattr.h"

/* Bits of sqfs_entry_t.flags. */
typedef enum {
	/*
	 * Readers only: the second report of a directory, after everything
	 * below it (sqfs_image_source_options_t SQFS_SOURCE_POST_DIRS), so
	 * that a program restoring a tree can set a directory's times and
	 * permissions last. The writer takes it as nothing new: 0, and no
	 * change.
	 */
	SQFS_ENTRY_POST = 0x01,
} sqfs_entry_flags_t;

typedef struct sqfs_entry {
	/*
	 * The path, '/' separated, relative to the root of the tree: "" is
	 * the root itself. Readers give the canonical form ("a/b"); the
	 * writer also takes "/a//b/" and "./a/./b", and refuses ".." and
	 * names longer than 256 bytes.
	 */
	const char *path;
	/*
	 * File type (S_IFDIR, S_IFREG, S_IFLNK, S_IFCHR, S_IFBLK, S_IFIFO,
	 * S_IFSOCK) and permission bits (07777). The root is a directory.
	 */
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	/*
	 * S_IFCHR and S_IFBLK: the device number. An image holds a major up
	 * to 4095 and a minor up to 1048575 (the writer refuses more).
	 */
	uint32_t rdev_major;
	uint32_t rdev_minor;
	/* sqfs_entry_flags_t bits. */
	uint32_t flags;
	/*
	 * Seconds since the epoch. An image holds 0 .. 2^32 - 1: the writer
	 * clamps earlier times to 0 and later ones to 2^32 - 1.
	 */
	int64_t mtime;
	/*
	 * What lstat reports as st_size: a regular file's length in bytes
	 * (holes included), a symlink target's length; for a directory of an
	 * image, the size of its listing as the kernel reports it.
	 * The writer reads it for regular files only, as the length the
	 * caller is about to append: a file the image could not address is
	 * refused before anything is stored (0: not known beforehand). What
	 * is appended decides the size stored.
	 */
	uint64_t size;
	/* S_IFLNK: the target, 1 to 4096 bytes, stored as given. */
	const char *symlink_target;
	/*
	 * Not NULL: the entry is a hard link to the entry at this path (not
	 * a directory), and shares its inode. Readers give the path where
	 * they first met the inode, with the inode's attributes in the
	 * fields above; the writer ignores those fields and takes the
	 * target's (a target added later is resolved when the image is
	 * finished: sqfs_writer_add).
	 */
	const char *hard_link;
	/* Extended attributes, keys with their namespace prefix. */
	const sqfs_xattr_t *xattrs;
	size_t xattr_count;
	/*
	 * Readers only (the writer numbers inodes itself and ignores both):
	 * the inode number in the image (or st_ino on a disk), and the link
	 * count.
	 */
	uint64_t inode_number;
	uint32_t nlink;
	/* Room for fields of later versions: must be zero. */
	uint32_t reserved[7];
} sqfs_entry_t;

/*
 * A piece of a regular file's data, as readers hand it out: size bytes at
 * offset, from data, or a hole of size zero bytes where data is NULL.
 */
typedef struct {
	uint64_t offset;
	uint64_t size;
	const uint8_t *data;
} sqfs_data_run_t;

SQFS_BEGIN_DECLS

/*
 * Zero *entry and set path, mode, owner and time: the start of every entry
 * a program builds. Strings are not copied.
 */
SQFS_API void sqfs_entry_init(sqfs_entry_t *entry, const char *path,
			      uint32_t mode, uint32_t uid, uint32_t gid,
			      int64_t mtime);

SQFS_END_DECLS

#endif /* SQFS_ENTRY_H */
