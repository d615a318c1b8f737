/* SPDX-License-Identifier: MIT */
/*
 * fs.h - an image as a file system: random access from many threads.
 *
 * The readers of image.h serve one thread each and read an image front to
 * back (extraction, conversion). A file system serves requests in any
 * order from any number of threads at once: look up a name, the
 * attributes of an inode, a page of a directory listing, a range of a
 * file. sqfsmount (FUSE) is made of it; a program that serves an image
 * (over the network, to a VM) can use it the same way.
 *
 * Inodes are named by a 64-bit id, which is either of:
 *
 *  - a node id, which every call that reports an inode hands out
 *    (sqfs_fs_stat_t.node, sqfs_fs_dirent_t.node, sqfs_fs_resolve,
 *    sqfs_fs_root). It says where the inode is stored, so using it needs
 *    no table and no search, and it stays valid as long as the image does
 *    (across opens too). A caller that keeps ids (FUSE does, for every
 *    inode the kernel caches) should keep these. Node ids are greater than
 *    UINT32_MAX.
 *  - the inode number (1 .. the superblock's inode count), as in the image
 *    and as the kernel reports it in st_ino, which is what to show. A
 *    number must be found first: through the export table if the image
 *    has one (a block of it decoded per lookup), else in a table of fixed
 *    size of the numbers that directory entries named lately (lookups,
 *    listings), else by walking the tree from the root until an entry
 *    names it. The walk takes time in proportion to the image (and is the
 *    price of asking by number an image without an export table) but
 *    memory only in proportion to its depth, with one bit per inode
 *    number while it runs; an image of at most 65536 inodes is walked
 *    once, after which every number is known.
 *
 * So the file system holds nothing per inode: its memory is its caches
 * and tables of fixed size, whatever the size of the image.
 *
 * Caches: decompressed metadata blocks (inodes, listings, xattrs) and
 * decompressed data and fragment blocks are kept in two caches whose
 * sizes in bytes the caller chooses. Blocks that were used once (a scan,
 * a file read front to back) are evicted before blocks that were used
 * again, so one big sequential read does not flush the fragment blocks
 * and metadata that every small file needs. A block that several threads
 * ask for at once is read and decompressed once, by the first of them;
 * the others wait for it; different blocks are decompressed in parallel.
 * A file read block after block has its next blocks decompressed ahead of
 * the reader by background threads.
 *
 * Trust: the image is untrusted, and checked as every reader of this
 * library checks it (image.h, dir_reader.h, data_reader.h): a damaged
 * image makes the calls that touch the damage fail with
 * SQFS_ERROR_CORRUPTED (or another code), never crash, hang, read outside
 * the image or allocate without bound. The rest of the image stays
 * readable.
 *
 * Threads: every function may be called from any number of threads at
 * once on the same file system, except sqfs_fs_destroy, which must be the
 * last call. The file the file system reads from must allow concurrent
 * read_at calls: those of sqfs_file_open (read only), sqfs_file_open_memory
 * and sqfs_file_open_window over either do. For a back end of your own
 * that does not, pass SQFS_FS_SERIALIZE_IO and the file system calls it
 * from one thread at a time.
 *
 * Ownership: the file system uses the file and never releases it; release
 * the file after sqfs_fs_destroy. Results are copied into the caller's
 * structures and buffers, so nothing a call returns depends on the cache.
 *
 * Errors: every function returns 0 (or a count) on success and a negative
 * sqfs_error_t on failure. Where a function takes `why`, it is NULL or
 * room for SQFS_ERROR_TEXT_SIZE bytes, and receives on failure the words
 * saying what went wrong ("inode 17: block list runs past the data"):
 * there is no shared error text, since many threads fail at once. Codes a
 * server maps to errno: SQFS_ERROR_NO_ENTRY (ENOENT), SQFS_ERROR_NOT_DIR
 * (ENOTDIR), SQFS_ERROR_NOT_FILE (EINVAL for readlink, EISDIR for read),
 * SQFS_ERROR_OUT_OF_BOUNDS (an inode number outside the image: ENOENT or
 * ESTALE), SQFS_ERROR_ALLOC (ENOMEM), anything else (EIO).
 */
#ifndef SQFS_FS_H
#define SQFS_FS_H

#include "sqfs/predef.h"
#include "sqfs/super.h"
#include "sqfs/xattr.h"

typedef struct sqfs_fs sqfs_fs_t;
typedef struct sqfs_fs_file sqfs_fs_file_t;

typedef enum {
	/* Call the file's read_at from one thread at a time. */
	SQFS_FS_SERIALIZE_IO = 0x01,
	/* Never decompress ahead of a sequential reader. */
	SQFS_FS_NO_READ_AHEAD = 0x02,
} sqfs_fs_flags_t;

/* Defaults of sqfs_fs_options_t's zero fields. */
#define SQFS_FS_DEFAULT_META_CACHE (8u << 20)
#define SQFS_FS_DEFAULT_DATA_CACHE (64u << 20)
#define SQFS_FS_DEFAULT_READ_AHEAD 4u

typedef struct {
	/* sqfs_fs_flags_t bits. */
	uint32_t flags;
	/* Bytes of decompressed metadata blocks to keep; 0: the default.
	 * At least 64 blocks are kept whatever is asked. */
	uint64_t meta_cache_bytes;
	/* Bytes of decompressed data and fragment blocks to keep; 0: the
	 * default. At least 8 blocks of the image's block size are kept
	 * whatever is asked. */
	uint64_t data_cache_bytes;
	/* Blocks to decompress ahead of a sequential reader; 0: the
	 * default (SQFS_FS_NO_READ_AHEAD turns it off). */
	uint32_t read_ahead_blocks;
	/* Background threads decompressing ahead; 0: the number of cores,
	 * at most 8. */
	uint32_t read_ahead_threads;
	/* Must be zero: room for later options. */
	uint64_t reserved[6];
} sqfs_fs_options_t;

/* The attributes of an inode, as stat(2) would report them on a kernel
 * mount of the image. */
typedef struct {
	/* The inode number (st_ino). */
	uint32_t ino;
	/* File type (S_IF*) and permission bits (st_mode). */
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	/* Seconds since the epoch, as stored (atime, mtime and ctime). */
	uint32_t mtime;
	/* Device numbers of a character or block device, else 0. */
	uint32_t rdev_major;
	uint32_t rdev_minor;
	/* The file's size, a symlink target's length, a directory's
	 * listing size as the kernel reports it (st_size). */
	uint64_t size;
	/* 512-byte units the file's data and its xattrs take in the image
	 * (st_blocks). */
	uint64_t blocks;
	/* A directory's parent's inode number (the root's is the root);
	 * else 0. Its node id is found by a lookup of ".." (a number
	 * lookup: see above). */
	uint32_t parent;
	/* The inode has extended attributes. */
	uint32_t has_xattrs;
	/* The inode's node id. */
	uint64_t node;
} sqfs_fs_stat_t;

/* One directory entry, valid during the callback that receives it. */
typedef struct {
	const char *name;
	size_t name_len;
	/* The inode number the entry claims (the inode's, as checked with
	 * SQFS_FS_READDIR_STAT), and the node id of the inode it names. */
	uint32_t ino;
	uint64_t node;
	/* File type bits (S_IF*) the entry claims; the inode decides. */
	uint32_t type;
	/* The cookie that continues the listing after this entry. */
	uint64_t next_cookie;
	/* With SQFS_FS_READDIR_STAT, the entry's attributes. */
	const sqfs_fs_stat_t *stat;
} sqfs_fs_dirent_t;

/* Flags of sqfs_fs_readdir. */
typedef enum {
	/* Begin with "." and ".." (the directory and its parent). ".."
	 * gives only its inode number: node 0 and no attributes, since
	 * the parent is known by number only (a lookup of ".." finds
	 * it), except at the root, which is its own parent. */
	SQFS_FS_READDIR_DOTS = 0x01,
	/* Read each entry's inode and hand its attributes out too. */
	SQFS_FS_READDIR_STAT = 0x02,
} sqfs_fs_readdir_flags_t;

/* Returns 0 to go on, a positive value to stop (the caller's buffer is
 * full: the entry was not taken, the next call starts with it again), a
 * negative value to fail (returned by sqfs_fs_readdir). */
typedef int (*sqfs_fs_readdir_cb)(void *user, const sqfs_fs_dirent_t *ent);

/* What the caches hold and did, for tests and for the curious. */
typedef struct {
	uint64_t meta_bytes, meta_limit, meta_hits, meta_misses;
	uint64_t data_bytes, data_limit, data_hits, data_misses;
	/* Blocks decompressed ahead of a reader, and of those, used. */
	uint64_t read_ahead_done, read_ahead_used;
	/* Blocks decompressed in all (each at most once while cached). */
	uint64_t decompressed;
} sqfs_fs_cache_stats_t;

SQFS_BEGIN_DECLS

/*
 * Open the image in file as a file system. opt may be NULL (every
 * default). Fails as sqfs_image_open does (image.h), with
 * SQFS_ERROR_ARG_INVALID for reserved fields not zero or unknown flags,
 * or SQFS_ERROR_ALLOC; why receives the words.
 */
SQFS_API int sqfs_fs_open(sqfs_file_t *file, const sqfs_fs_options_t *opt,
			  sqfs_fs_t **out, char *why);

/* Close the file system (no call may be running or follow); NULL is
 * allowed. Background read-ahead is stopped and waited for. */
SQFS_API void sqfs_fs_destroy(sqfs_fs_t *fs);

/* The validated superblock. */
SQFS_API const sqfs_super_t *sqfs_fs_super(const sqfs_fs_t *fs);

/* The root directory's node id. */
SQFS_API uint64_t sqfs_fs_root(const sqfs_fs_t *fs);

/* The attributes of the inode id (a node id or an inode number). */
SQFS_API int sqfs_fs_stat(sqfs_fs_t *fs, uint64_t id, sqfs_fs_stat_t *st,
			  char *why);

/*
 * Look up name (name_len bytes, not NUL-terminated necessarily) in the
 * directory dir, using its directory index, and give the attributes of
 * what it names. "." is dir itself and ".." its parent (the root's is
 * the root), found by number (see above). SQFS_ERROR_NO_ENTRY if it is
 * not there, SQFS_ERROR_NOT_DIR if dir is not a directory.
 */
SQFS_API int sqfs_fs_lookup(sqfs_fs_t *fs, uint64_t dir, const char *name,
			    size_t name_len, sqfs_fs_stat_t *st, char *why);

/*
 * Resolve a path from the root ("a/b/c"; empty, "/" and "." components
 * are ignored, ".." is refused with SQFS_ERROR_ARG_INVALID, symlinks are
 * not followed) to a node id.
 */
SQFS_API int sqfs_fs_resolve(sqfs_fs_t *fs, const char *path, uint64_t *node,
			     char *why);

/*
 * List the directory dir from cookie on (0: from the start), calling cb
 * for each entry in the listing's (sorted) order until the listing ends
 * or cb stops it. Cookies are opaque, never 0, and stay valid as long as
 * the file system is open, so a listing may be continued from any entry's
 * next_cookie in any thread. Returns 0 at the end of the listing or when
 * cb stopped it, a negative error otherwise (entries handed out before
 * the damage stay valid).
 */
SQFS_API int sqfs_fs_readdir(sqfs_fs_t *fs, uint64_t dir, uint64_t cookie,
			     uint32_t flags, sqfs_fs_readdir_cb cb, void *user,
			     char *why);

/*
 * The target of the symlink id, NUL-terminated, in buf of size bytes
 * (SQFS_MAX_SYMLINK_SIZE + 1 always suffice; a shorter buf gets
 * SQFS_ERROR_OVERFLOW). *len, if not NULL, receives its length.
 * SQFS_ERROR_NOT_FILE if id is not a symlink.
 */
SQFS_API int sqfs_fs_readlink(sqfs_fs_t *fs, uint64_t id, char *buf,
			      size_t size, size_t *len, char *why);

/*
 * The extended attributes of id, as sqfs_image_read_xattrs gives them
 * (image.h): *list of *count entries to free with sqfs_xattr_list_free,
 * NULL and 0 for none.
 */
SQFS_API int sqfs_fs_xattrs(sqfs_fs_t *fs, uint64_t id, sqfs_xattr_t **list,
			    size_t *count, char *why);

/*
 * Open the regular file id for reading: a handle that holds its decoded
 * block list, to read from any number of threads at once and to close
 * with sqfs_fs_file_close. SQFS_ERROR_NOT_FILE for other inodes.
 *
 * The file system keeps the handles of the files opened last (a few
 * hundred) and hands out the same handle, counted, to every open of a
 * file it still keeps: opening a file again costs a hash lookup. Opens of
 * one file thus share its read-ahead position.
 */
SQFS_API int sqfs_fs_file_open(sqfs_fs_t *fs, uint64_t id, sqfs_fs_file_t **out,
			       char *why);

/*
 * Read up to size bytes at offset into buf. Returns the number of bytes
 * read (fewer only at the end of the file, 0 at or past it) or a negative
 * error (SQFS_ERROR_CORRUPTED for a block that is out of place or does
 * not unpack to its size; the rest of the file stays readable). Reading
 * blocks in order starts the read-ahead.
 */
SQFS_API ptrdiff_t sqfs_fs_file_read(sqfs_fs_file_t *file, uint64_t offset,
				     void *buf, size_t size, char *why);

/* The size of the open file. */
SQFS_API uint64_t sqfs_fs_file_size(const sqfs_fs_file_t *file);

/* Close a handle; NULL is allowed. Not while a read on it runs. */
SQFS_API void sqfs_fs_file_close(sqfs_fs_file_t *file);

/* Read size bytes at offset of the regular file id without a handle
 * (opens and closes one: for a file read recently, a lookup of its kept
 * handle, so reading by number costs little more than through a handle). */
SQFS_API ptrdiff_t sqfs_fs_read(sqfs_fs_t *fs, uint64_t id, uint64_t offset,
				void *buf, size_t size, char *why);

/*
 * Say that the regular file id is about to be read from its start, as
 * posix_fadvise's WILLNEED does: its first blocks, as many as read-ahead
 * keeps ahead of a reader (the fragment block of its tail counting as its
 * last block), are queued for the read-ahead threads, and this returns
 * without waiting for them.
 * A reader that goes through many small files in an order it knows (the
 * files of a directory, in listing order) names the next few this way
 * and finds each decoded when it gets there, where read-ahead within a
 * file never starts. Only a hint: nothing happens with read-ahead off
 * (SQFS_FS_NO_READ_AHEAD) or for blocks cached or queued already, and
 * when the queue is full the rest is dropped. Any thread, as
 * sqfs_fs_file_open. Errors: sqfs_fs_file_open's (SQFS_ERROR_NOT_FILE,
 * a damaged inode).
 */
SQFS_API int sqfs_fs_prefetch(sqfs_fs_t *fs, uint64_t id, char *why);

/* A snapshot of the caches' sizes and counters. */
SQFS_API void sqfs_fs_cache_stats(sqfs_fs_t *fs, sqfs_fs_cache_stats_t *out);

SQFS_END_DECLS

#endif /* SQFS_FS_H */
