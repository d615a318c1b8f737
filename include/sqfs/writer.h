/* SPDX-License-Identifier: MIT */
/*
 * writer.h - build a complete SquashFS image from a list of entries.
 *
 * The high-level writer is what tar2sqfs and gensquashfs are made of, and
 * what a program that wants to produce an image should use. Create a writer
 * on an output file, add entries in any order (directories, regular files
 * whose data is streamed in, symlinks, devices, FIFOs, sockets, hard links),
 * each with its owner, mode, time and extended attributes, then finish.
 *
 * - Paths are relative to the image root; "a/b", "/a/b", "./a//b/" all
 *   name the same entry. Components "." are dropped; ".." and names longer
 *   than 256 bytes are refused (SQFS_ERROR_ARG_INVALID). The empty path (or
 *   "/", ".") is the root: adding a directory there sets its attributes.
 * - Parents that were never added are created with the default attributes
 *   of sqfs_writer_options_t; adding such a directory later updates it.
 * - Adding a path that exists replaces the earlier entry, as extracting an
 *   archive does; a directory added over a directory keeps its children and
 *   takes the new attributes. A replaced file's data stays in the image
 *   (it may still serve deduplication) but nothing refers to it.
 * - File data is never held whole: it is cut into blocks, compressed and
 *   written as it arrives. Identical files and tails are stored once.
 * - The output is deterministic: the same entries with the same data, added
 *   in the same order, give the same image, whatever the number of jobs.
 *   Directory listings are sorted, so the order of entries only affects
 *   where file data lands.
 *
 * All functions return 0 or a negative sqfs_error_t, and every failure is
 * one of two kinds, which sqfs_writer_usable tells apart:
 * - a refusal: the call was wrong (an entry the image cannot hold, a call
 *   out of order) and changed nothing, not even a parent directory or an
 *   owner id for the refused entry; the caller may report it and go on;
 * - a failure of the writer (I/O, memory, the compressor, a file's data
 *   that cannot be stored): the image is incomplete, every later call
 *   fails with SQFS_ERROR_SEQUENCE and the words of that failure; destroy
 *   the writer and discard the output file.
 *
 * Every failure also leaves words saying what was wrong, for the caller to
 * show its user (sqfs_writer_error): "xattr 'foo.x': namespace not
 * supported (only user., trusted. and security.)", "'a/b' is not a
 * directory", "device number 4096:0 does not fit the image ...". They
 * describe the entry's content, not its path, which the caller knows
 * best how to name (an archive member, a listing line). A program need not
 * check the format's limits itself.
 */
#ifndef SQFS_WRITER_H
#define SQFS_WRITER_H

#include "sqfs/predef.h"
#include "sqfs/compressor.h"
#include "sqfs/entry.h"
#include "sqfs/image.h"

typedef struct sqfs_writer sqfs_writer_t;

typedef enum {
	/* Write the NFS export table. */
	SQFS_WRITER_EXPORTABLE = 0x01,
	/* Tails of files larger than a block are stored as a short last
	 * block rather than packed into a fragment block. */
	SQFS_WRITER_NO_TAIL_PACKING = 0x02,
	/* Store no fragments at all: every tail is a short last block. */
	SQFS_WRITER_NO_FRAGMENTS = 0x04,
	/* Drop every extended attribute given. */
	SQFS_WRITER_NO_XATTRS = 0x08,
	/* Run the compressor on every block. By default a quick test first
	 * finds blocks that would not shrink (high byte entropy and too few
	 * repeats for LZ4 to save 1/128), which are stored raw at once. */
	SQFS_WRITER_NO_PROBE = 0x10,
	/*
	 * Store parts of the image uncompressed (raw), as mksquashfs -noI,
	 * -noId, -noD, -noF and -noX do, and record it in the superblock's
	 * flags as they do (sqfs/super.h). Any reader reads such an image:
	 * every metadata block and data block says whether it is raw. The
	 * contents of the image are the same; only its size changes.
	 *
	 * The inode table, the directory table, the id table and the NFS
	 * export table; superblock flag UNCOMPRESSED_INODES. Readers older
	 * than the UNCOMPRESSED_IDS flag take this one to cover the id
	 * table, so it is not set as well, even with the next bit.
	 */
	SQFS_WRITER_UNCOMPRESSED_INODES = 0x20,
	/* The id table alone; superblock flag UNCOMPRESSED_IDS, unless
	 * SQFS_WRITER_UNCOMPRESSED_INODES is given too. */
	SQFS_WRITER_UNCOMPRESSED_IDS = 0x40,
	/* Every data block of every file, short last blocks included (not
	 * the fragment blocks, which hold tails packed together); flag
	 * UNCOMPRESSED_DATA. */
	SQFS_WRITER_UNCOMPRESSED_DATA = 0x80,
	/* Every fragment block, and the fragment table; flag
	 * UNCOMPRESSED_FRAGMENTS. */
	SQFS_WRITER_UNCOMPRESSED_FRAGMENTS = 0x100,
	/* The xattr key/value table and the xattr id table; flag
	 * UNCOMPRESSED_XATTRS. */
	SQFS_WRITER_UNCOMPRESSED_XATTRS = 0x200,
	/* All of the above: mksquashfs -no-compression (which sets the
	 * flags of -noI -noD -noF -noX, not UNCOMPRESSED_IDS). The
	 * compressor still names the image's codec and writes its options
	 * block, as mksquashfs does. */
	SQFS_WRITER_UNCOMPRESSED = 0x3E0,
	/* End the image where its last table ends (mksquashfs -nopad):
	 * no padding to a multiple of devblk_size. For an image read from a
	 * file or appended to another: the kernel reads a device in 1 KiB
	 * blocks and a loop device ends at the last whole 512 bytes, so it
	 * refuses to mount such an image (as it does mksquashfs's). */
	SQFS_WRITER_NO_PAD = 0x400,
	/* Look for no earlier copy of any file's blocks or tail (as if
	 * every file had SQFS_FILE_DONT_DEDUPLICATE); the superblock then
	 * says that duplicates are not removed. */
	SQFS_WRITER_NO_DEDUPLICATION = 0x800,
} sqfs_writer_flags_t;

typedef struct {
	/* Data block size: a power of two, 4 KiB .. 1 MiB. */
	uint32_t block_size;
	/* The image is padded to a multiple of this (at least 1024), unless
	 * SQFS_WRITER_NO_PAD is given. */
	uint32_t devblk_size;
	/* Compressor and its settings; block_size must match the above. */
	sqfs_compressor_config_t compressor;
	/* Worker threads compressing blocks: the data while entries are
	 * added, the inode and directory tables at sqfs_writer_finish
	 * (there, 1 works as 0); 0: none, everything on the calling thread
	 * (also what a build without pthreads does). The image is the same
	 * byte for byte whatever the number. */
	unsigned int num_jobs;
	/* Most block buffers in flight (blocks being compressed or waiting
	 * to be written: a data block holds one buffer, a fragment block
	 * two) before adding data waits; 0: 4 per job, which keeps every
	 * job busy. Never more than 64 MiB of them, nor a sixteenth of the
	 * memory limit, whatever the block size. The tails of small files
	 * and empty files take none. */
	unsigned int max_backlog;
	/* sqfs_writer_flags_t bits. */
	uint32_t flags;
	/* The superblock's modification time. */
	uint32_t mkfs_time;
	/* Attributes of directories created implicitly, and of the root
	 * unless it is added explicitly. mode holds permission bits. */
	uint32_t default_uid;
	uint32_t default_gid;
	uint16_t default_mode;
	uint32_t default_mtime;
	/*
	 * MiB the writer works in. What it must keep until finish (the
	 * records of the entries, the index of distinct tails of files)
	 * goes to sorted runs in temporary files in $TMPDIR (or /tmp) past
	 * its share, read back at finish; the filters that find records
	 * in those runs get fewer bits as they grow, so that a tight limit
	 * costs reads, not memory. What does not shrink with the limit
	 * comes off it first: the program (10 MiB are counted for it and
	 * malloc's own), the decoded fragment blocks (8 MiB), blocks in
	 * flight (max_backlog, at most a sixteenth), two blocks and 1 MiB
	 * per job; the rest is shared out, at least half the limit. A
	 * quarter of that is left for what is not spilled: the
	 * directories (about 100 bytes each), 8 bytes per hard link
	 * and, at finish, about 70 bytes per hard-linked file; as those
	 * grow, the spilled parts make room (doc/scale.md, "The memory
	 * limit"), and only trees with far more of them than of other
	 * entries go over the limit. 0: a sixteenth of the
	 * machine's memory, at least 64 and at most 768 MiB. The image is
	 * the same byte for byte whatever the limit.
	 */
	uint32_t mem_limit_mib;
	/* Room for options of later versions, so that the structure keeps
	 * its size: must be zero (sqfs_writer_options_init zeroes it;
	 * sqfs_writer_create refuses anything else). */
	uint32_t reserved[7];
} sqfs_writer_options_t;

/* Numbers about the image, for the tools' statistics. */
typedef struct {
	/* File data given, and written after compression and dedup. */
	uint64_t bytes_in;
	uint64_t bytes_written;
	/* The final image size, padding included. */
	uint64_t image_size;
	uint64_t data_blocks;
	uint64_t fragment_blocks;
	/* Blocks of files found identical to data already written. */
	uint64_t duplicate_blocks;
	uint64_t duplicate_fragments;
	uint64_t sparse_blocks;
	uint64_t files;
	uint64_t inodes;
	uint64_t ids;
	/* Bytes of the inode and directory tables on disk. */
	uint64_t inode_table_bytes;
	uint64_t directory_table_bytes;
} sqfs_writer_stats_t;

SQFS_BEGIN_DECLS

/*
 * Fill opt with the tools' defaults: 128 KiB blocks, 4 KiB padding, the
 * default compressor with its defaults, no threads, root-owned 0755
 * implicit directories with time 0.
 */
SQFS_API void sqfs_writer_options_init(sqfs_writer_options_t *opt);

/*
 * Create a writer that builds an image in file, which must be empty. The
 * writer uses but does not own file. why is NULL or room for
 * SQFS_ERROR_TEXT_SIZE bytes; on failure it receives the words ("block
 * size 3000 is not a power of two from 4 KiB to 1 MiB"), on success "".
 */
SQFS_API int sqfs_writer_create(sqfs_file_t *file,
				const sqfs_writer_options_t *opt,
				sqfs_writer_t **out, char *why);

/*
 * Appending: a writer that starts from an existing image, as mksquashfs
 * appends to one. The new image holds the old one's entries (below
 * old_root) and whatever is added after; the old files' data is not
 * unpacked or compressed again, and new files are deduplicated against
 * it.
 *
 * - The old data area (the compressor options block, the data and
 *   fragment blocks: everything between the superblock and the first
 *   table) is copied into file byte for byte, at the same place, so the
 *   old block lists and fragment table entries stay valid as they are;
 *   new data follows it. The tables (inodes, directories, fragments,
 *   export, ids, xattrs) are written anew at finish. file is a new, empty
 *   file: the old image is only read, never changed, so that a failure
 *   anywhere leaves it as it was.
 * - The old entries are added as if by sqfs_writer_add, depth first, at
 *   old_root: "" (or NULL) puts the old root's entries into the new root
 *   and gives it the old root's attributes; "old" makes the old root the
 *   directory "old" (mksquashfs -root-becomes). Hard links stay hard
 *   links. After that the writer behaves as one made by
 *   sqfs_writer_create: an entry added at the path of an old one replaces
 *   it (its data stays in the image, unused), a directory added over an
 *   old directory takes the new attributes and keeps the old children,
 *   and the root may be added to set its attributes. Which names a new
 *   entry should take instead (mksquashfs's "_1") is the caller's choice.
 * - The image's block size and compressor are the new image's:
 *   opt->block_size and opt->compressor.id must be the image's
 *   (SQFS_ERROR_ARG_INVALID otherwise) and the image's compressor options
 *   block is kept. sqfs_writer_options_from_image fills them in, with the
 *   flags that describe how the old image was made.
 *
 * Trust: the old image is untrusted. img must have been opened with
 * sqfs_image_open, which checked its superblock and tables; every entry
 * is then read with the checks of the readers (image_source.h), every
 * block of an old file and every fragment block must lie inside the old
 * data area (so the new image never points into its own tables), and the
 * fragment blocks that hold old tails are decoded (to deduplicate new
 * tails against them). Old data blocks are copied, not decoded: a block
 * that was damaged in the old image stays damaged in the new one, where
 * a reader finds it as it would have in the old one. Anything wrong fails
 * with SQFS_ERROR_CORRUPTED (or the readers' codes), nothing written is
 * kept, and why receives the words ("appending to the image: 'a/b':
 * inode 17: block list runs past the data").
 *
 * Ownership and threads: img is used during the call only, and not
 * owned; file as for sqfs_writer_create. The call runs on the calling
 * thread; the writer's jobs start only after it.
 *
 * Returns 0, or the codes of sqfs_writer_create, SQFS_ERROR_IO for a
 * failed copy, and those above.
 */
SQFS_API int sqfs_writer_create_append(sqfs_file_t *file, sqfs_image_t *img,
				       const char *old_root,
				       const sqfs_writer_options_t *opt,
				       sqfs_writer_t **out, char *why);

/*
 * Make opt describe the image img as it was made, for appending to it:
 * its block size, its compressor with its settings, and the flags the
 * superblock records (exportable, no fragments, tails not packed, no
 * deduplication, no xattrs, the parts stored uncompressed). What the
 * superblock cannot say (jobs, padding, times, default attributes) is
 * left as it is. Returns 0, or SQFS_ERROR_ARG_INVALID for NULL.
 */
SQFS_API int sqfs_writer_options_from_image(sqfs_writer_options_t *opt,
					    const sqfs_image_t *img);

/* Destroy a writer; NULL is allowed. The output is not finished. */
SQFS_API void sqfs_writer_destroy(sqfs_writer_t *wr);

/* How one file's data is stored (the file_flags of sqfs_writer_add). */
typedef enum {
	/* Store every block, and the tail, uncompressed. A tail packed into
	 * a fragment makes its whole fragment block uncompressed. */
	SQFS_FILE_DONT_COMPRESS = 0x01,
	/* Store the tail as a short last block, never in a fragment block. */
	SQFS_FILE_DONT_FRAGMENT = 0x02,
	/* Neither look for an earlier copy of the file's blocks or tail nor
	 * offer them to later files. */
	SQFS_FILE_DONT_DEDUPLICATE = 0x04,
	/* Store blocks of zeros (and holes) as data, not as sparse blocks
	 * that take no space. */
	SQFS_FILE_NO_SPARSE = 0x08,
	/* Start the file's first block at a multiple of the device block
	 * size (sqfs_writer_options_t devblk_size), padding before it. */
	SQFS_FILE_ALIGN = 0x10,
} sqfs_file_flags_t;

/*
 * Add one entry (entry.h): a directory, a regular file, a symbolic link, a
 * character or block device, a FIFO, a socket, or (entry->hard_link not
 * NULL) a hard link.
 *
 * - The root ("" or "/") can only be a directory: adding it sets the
 *   root's attributes. A directory added over a directory keeps its
 *   children and takes the new attributes.
 * - A symlink needs a target of 1 to 4096 bytes. A device number must fit
 *   the image (major up to 4095, minor up to 1048575).
 * - A hard link refers to the object its target path names at the time
 *   of the call, even if that path is replaced later (as extracting an
 *   archive keeps the old file); a target that does not exist yet is
 *   looked up when sqfs_writer_finish resolves forward references. Links
 *   to links resolve to the final entry. The entry's other attributes are
 *   ignored: a hard link has its target's.
 * - A regular file (not a hard link) stays open: its data follows through
 *   sqfs_writer_append and sqfs_writer_append_hole, and
 *   sqfs_writer_end_file completes it; no other entry may be added in
 *   between (SQFS_ERROR_SEQUENCE). file_flags, a set of sqfs_file_flags_t,
 *   choose how its data is stored, never what a reader gets back; they
 *   must be 0 for every other entry.
 *
 * Refusals (the writer is unchanged, sqfs_writer_usable stays true):
 * SQFS_ERROR_ARG_INVALID (a path with "..", a name over 256 bytes, a file
 * type or mode bits that do not exist, a bad symlink target, a root that
 * is not a directory, reserved room or unknown flags that are not zero),
 * SQFS_ERROR_NOT_DIR (a parent in the path is not a directory),
 * SQFS_ERROR_OVERFLOW (a device number, an xattr value or a file size the
 * image cannot hold), SQFS_ERROR_UNSUPPORTED (an xattr namespace the
 * format lacks), SQFS_ERROR_LIMIT (a 65536th owner or group id, the
 * default ids counted while the root has not been added, or more entries
 * than the format numbers), SQFS_ERROR_SEQUENCE (a file is open, or the
 * image is finished). Other failures (SQFS_ERROR_ALLOC, say) leave the
 * writer unusable.
 */
SQFS_API int sqfs_writer_add(sqfs_writer_t *wr, const sqfs_entry_t *entry,
			     unsigned int file_flags);

/* Append size bytes of data to the current file. */
SQFS_API int sqfs_writer_append(sqfs_writer_t *wr, const void *data,
				size_t size);

/* Append size bytes of zeros (a hole of a sparse file) without data. */
SQFS_API int sqfs_writer_append_hole(sqfs_writer_t *wr, uint64_t size);

/* Complete the current file. */
SQFS_API int sqfs_writer_end_file(sqfs_writer_t *wr);

/*
 * Resolve hard links, number the inodes, and write the inode, directory,
 * fragment, export, id and xattr tables, the superblock and the padding.
 * A hard link whose target does not exist (or is a directory) fails with
 * SQFS_ERROR_NO_ENTRY; call sqfs_writer_drop_broken_links first to drop
 * such links instead. The image is then written, not yet durable: to know
 * it reached storage, sqfs_file_sync and sqfs_file_close the file (io.h).
 */
SQFS_API int sqfs_writer_finish(sqfs_writer_t *wr);

/*
 * Remove every hard link whose target does not exist or is a directory,
 * calling report (if not NULL) with each link's path and its target before
 * it goes. Returns the number removed.
 */
SQFS_API int sqfs_writer_drop_broken_links(sqfs_writer_t *wr,
					   void (*report)(void *user,
							  const char *path,
							  const char *target),
					   void *user);

/*
 * What the last failing call went wrong on, in words (no trailing period
 * or newline); "no error" before any failure. The text stays until the
 * next failure: check the return code first. Never NULL; valid until the
 * next call on wr.
 */
SQFS_API const char *sqfs_writer_error(const sqfs_writer_t *wr);

/*
 * Whether the writer can go on: true until a call fails for any reason
 * other than a refusal (see the top of this header). A program that skips
 * entries the image cannot hold asks here after each failure whether to
 * skip or to stop.
 */
SQFS_API bool sqfs_writer_usable(const sqfs_writer_t *wr);

/* Statistics so far; complete after sqfs_writer_finish. */
SQFS_API void sqfs_writer_get_stats(const sqfs_writer_t *wr,
				    sqfs_writer_stats_t *stats);

SQFS_END_DECLS

#endif /* SQFS_WRITER_H */
