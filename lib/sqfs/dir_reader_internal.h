/* SPDX-License-Identifier: MIT */
/*
 * dir_reader_internal.h - what the walker needs from a directory reader
 * beyond the public API (internal to the library).
 *
 * The walker shares one directory reader, and so one metadata block cache,
 * between all levels of its descent: it saves a listing's state before it
 * opens a subdirectory and restores it when it comes back. That keeps its
 * memory at a few hundred bytes per level, whatever the listing sizes. It
 * also finds a name again from the position of its entry, so it can tell
 * where an inode was first seen without keeping every path.
 */
#ifndef SQFS_DIR_READER_INTERNAL_H
#define SQFS_DIR_READER_INTERNAL_H

#include "sqfs/dir_reader.h"
#include "sqfs/format_internal.h"

/* Where a listing is and what the order check must remember. */
typedef struct {
	/* Metadata reader position of the next byte of the listing. */
	uint64_t block;
	size_t offset;
	/* Listing bytes not yet read. */
	uint64_t remaining;
	/* The listing: its first block (absolute), the offset there and its
	 * size, which together name it for the reader's checkpoints. */
	uint64_t start_block;
	uint32_t size;
	uint16_t start_offset;
	/* Entries left in the current run, its inode block and base. */
	uint32_t run_left;
	uint32_t run_block;
	uint32_t run_base;
	/* Where the current run's header is, the listing bytes from it on,
	 * and its entry count: what resuming inside the run needs. */
	uint64_t hdr_block;
	uint64_t hdr_remaining;
	uint16_t hdr_offset;
	uint16_t run_count;
	bool open;
	/* The previous name (prev_len 0: none yet), for the order check. */
	uint16_t prev_len;
	char prev[SQFS_NAME_MAX];
} dir_state_t;

/* Copy the state of the open listing (or of none) into st. */
void dir_reader_save(const sqfs_dir_reader_t *dr, dir_state_t *st);

/* Continue the listing saved in st. */
int dir_reader_restore(sqfs_dir_reader_t *dr, const dir_state_t *st);

/*
 * Where to resume the open listing after the entry last read: a run
 * header's position and the listing bytes from it on, and how many
 * entries of that run to skip (0 when the next entry opens a run, or the
 * listing is over: then remaining is 0).
 */
typedef struct {
	uint64_t block;
	uint64_t remaining;
	size_t offset;
	uint32_t skip;
} dir_resume_t;

void dir_reader_resume_point(const sqfs_dir_reader_t *dr, dir_resume_t *out);

/*
 * Open the listing of dir at a run header: at block and offset (the
 * metadata position), with remaining bytes of the listing from there on
 * (at most the listing's size). Names before it are not known, so the
 * order check starts over there.
 */
int dir_reader_open_at(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		       uint64_t block, size_t offset, uint64_t remaining);

#endif /* SQFS_DIR_READER_INTERNAL_H */
