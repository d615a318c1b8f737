/* SPDX-License-Identifier: MIT */
/*
 * format_internal.h - the on-disk facts of SquashFS 4.0 that more than one part
 * of the library needs: bit layouts, the sizes of table entries and record
 * headers, and the format's limits (internal to the library).
 *
 * One home for each fact, so that a reader and a writer can never
 * disagree about it. The superblock's own constants (magic, block sizes,
 * the metadata block size) are public, in sqfs/super.h. A constant that
 * only one file uses and that is that file's policy rather than the
 * format's (a bound a reader chooses, a threshold a writer tunes) stays
 * in that file.
 */
#ifndef SQFS_FORMAT_INTERNAL_H
#define SQFS_FORMAT_INTERNAL_H

#include "sqfs/path.h"

#include "sqfs/super.h"

#include <string.h>

/* ---- block size words (inodes' block lists, the fragment table) -------- */

/* Bit 24: the block is stored raw (not compressed). */
#define SQFS_SIZE_WORD_RAW 0x01000000u
/* Bits 0-23: the stored length; 0 in a block list is a sparse block. */
#define SQFS_SIZE_WORD_LENGTH 0x00FFFFFFu
/* Bits 25-31: never set in a valid word. */
#define SQFS_SIZE_WORD_RESERVED 0xFE000000u

/* ---- metadata blocks ----------------------------------------------------- */

/* A metadata block starts with a 16-bit header: bit 15 set when stored
 * raw, bits 0-14 the stored length. */
#define SQFS_META_HEADER_SIZE 2u
#define SQFS_META_RAW 0x8000u
#define SQFS_META_LENGTH 0x7FFFu
/* The least and the most a metadata block takes on disk: its header and
 * one byte, or its header and a full block stored raw; so two positions
 * in a table's index are at most the latter apart. */
#define SQFS_META_MIN_DISK_SIZE (SQFS_META_HEADER_SIZE + 1u)
#define SQFS_META_MAX_DISK_SIZE (SQFS_META_HEADER_SIZE + SQFS_META_BLOCK_SIZE)

/* ---- lookup tables (each an index of 64-bit metadata block positions) -- */

/* Fragment table: start (u64), size word (u32), unused (u32). */
#define SQFS_FRAGMENT_ENTRY_SIZE 16u
/* Export table: inode reference (u64) per inode number. */
#define SQFS_EXPORT_ENTRY_SIZE 8u
/* Id table: one u32 id. */
#define SQFS_ID_ENTRY_SIZE 4u
/* Xattr id table: key-value reference (u64), count (u32), size (u32). */
#define SQFS_XATTR_ID_ENTRY_SIZE 16u
/* Before the xattr id table's index: where the key-value metadata starts
 * (u64), the id count (u32), unused (u32). */
#define SQFS_XATTR_ID_HEADER_SIZE 16u

/* ---- inodes ----------------------------------------------------------------
 */

/* type, mode, uid index, gid index (u16 each), mtime, inode number (u32). */
#define SQFS_INODE_HEADER_SIZE 16u
/* Permission bits of the mode field. */
#define SQFS_INODE_MODE_MASK 07777u
/* A directory inode's size counts 3 bytes for "." and ".." beyond its
 * listing; so an empty directory has size 3. */
#define SQFS_DIR_SIZE_EMPTY 3u
/* The smallest non-empty listing: a header, an entry and a one-byte name,
 * plus the 3. */
#define SQFS_DIR_SIZE_MIN 24u
/* ("No fragment" and "no xattrs" in an inode are public: sqfs/inode.h.) */

/* ---- directory listings -------------------------------------------------- */

/* Run header: count - 1, start block, base inode number (u32 each). */
#define SQFS_DIR_HEADER_SIZE 12u
/* Entry: offset (u16), inode number delta (s16), type (u16), name size - 1
 * (u16), then the name. */
#define SQFS_DIR_ENTRY_SIZE 8u
/* Directory index entry: index (u32), start block (u32), name size - 1
 * (u32), then the name. */
#define SQFS_DIR_INDEX_HEADER_SIZE 12u
/* Entries in one run. The longest name is SQFS_NAME_MAX (sqfs/path.h):
 * the size field stores the length minus one in 8 bits as the kernel
 * reads it. */
#define SQFS_DIR_MAX_RUN_ENTRIES 256u

/* ---- device numbers ---------------------------------------------------- */

/* A device inode's 32-bit rdev holds a 12-bit major and a 20-bit minor
 * (minor bits 0-7 in bits 0-7, major in bits 8-19, minor bits 8-19 in
 * bits 20-31), as Linux's new_encode_dev lays them out. */
#define SQFS_RDEV_MAJOR_MAX 0xFFFu
#define SQFS_RDEV_MINOR_MAX 0xFFFFFu

/* ---- extended attributes ----------------------------------------------- */

/* Key header: type (u16: prefix id, bit 8 out-of-line), name size (u16). */
#define SQFS_XATTR_KEY_HEADER_SIZE 4u
/* Value header: size (u32); an out-of-line value is a u64 reference. */
#define SQFS_XATTR_VALUE_HEADER_SIZE 4u
#define SQFS_XATTR_TYPE_PREFIX_MASK 0x00FFu
#define SQFS_XATTR_TYPE_OOL 0x0100u
/* The namespaces a key's prefix id names; a key is stored without its
 * prefix ("user.foo" as prefix 0 and "foo"). Others are not storable. */
#define SQFS_XATTR_PREFIX_USER 0u
#define SQFS_XATTR_PREFIX_TRUSTED 1u
#define SQFS_XATTR_PREFIX_SECURITY 2u
#define SQFS_XATTR_PREFIX_COUNT 3u
/* Linux's XATTR_NAME_MAX and XATTR_SIZE_MAX: what the kernel can hand
 * on, so neither writer nor reader goes beyond. */
#define SQFS_XATTR_MAX_KEY_SIZE 255u
#define SQFS_XATTR_MAX_VALUE_SIZE 65536u
/* Linux's XATTR_LIST_MAX: the most bytes of names (each with its NUL) a
 * listxattr call can return, so the most one inode's set may take: the
 * writer refuses a bigger set, the reader a listing that grows past it. */
#define SQFS_XATTR_MAX_LIST_SIZE 65536u

/* The prefix of namespace id ("user." for 0), or NULL past the last. */
static inline const char *xattr_prefix(unsigned int id)
{
	static const char *const prefixes[SQFS_XATTR_PREFIX_COUNT] = {
	    "user.", "trusted.", "security."};

	return id < SQFS_XATTR_PREFIX_COUNT ? prefixes[id] : NULL;
}

/* The namespace id of a full key ("user.foo": 0), with the length of its
 * prefix in *prefix_len; -1 if the format cannot store its namespace. */
static inline int xattr_namespace(const char *key, size_t *prefix_len)
{
	unsigned int id;

	for (id = 0; id < SQFS_XATTR_PREFIX_COUNT; ++id) {
		const char *prefix = xattr_prefix(id);
		size_t len = strlen(prefix);

		if (strncmp(key, prefix, len) == 0) {
			*prefix_len = len;
			return (int)id;
		}
	}
	return -1;
}

#endif /* SQFS_FORMAT_INTERNAL_H */
