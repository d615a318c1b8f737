/* SPDX-License-Identifier: MIT */
/*
 * bp_test.h - a harness for the block processor tests: an in-memory output
 * with a 96-byte prefix standing in for the superblock, a fast compressor,
 * and a decoder that reads every block and fragment of a file back and
 * compares it with what was given.
 *
 * Include after <cmocka.h>.
 */
#ifndef BP_TEST_H
#define BP_TEST_H

#include "sqfs/block_processor/parts.h"
#include "sqfs/compressor.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

/* Bytes in front of the first block (a superblock would be there). */
#define BP_TEST_PREFIX 96

typedef enum {
	BP_TEST_GZIP = 0x01,
	BP_TEST_NO_TAIL_PACKING = 0x02,
	BP_TEST_NO_FRAGMENTS = 0x04,
} bp_test_opt_t;

typedef struct {
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	block_processor_t *bp;
	block_processor_desc_t desc;
	sqfs_super_t super;
	/* The fragment table as read back after finish. */
	uint8_t *ftable;
	uint32_t fcount;
	/* Some file was aligned: the output holds padding. */
	bool padded;
} bp_ctx_t;

/* Back end bp_ctx_open asks for: 0 (default) is the serial one, more is
 * the thread pool with that many workers and bp_test_backlog. Tests that
 * look at a file's record before finish need the serial back end. */
extern unsigned int bp_test_workers;
extern unsigned int bp_test_backlog;
/* Bytes for the index of distinct tails before it spills (0: no limit). */
extern size_t bp_test_tail_memory;

/* zstd (or gzip with BP_TEST_GZIP, or the other if one is missing) at
 * level 1 for speed, for blocks up to block_size. */
sqfs_compressor_t *bp_test_compressor(uint32_t block_size, bool gzip);

/* Open an output and a processor; opts: bp_test_opt_t. Uses file instead
 * of a fresh memory file if it is not NULL (the context then owns it; it
 * must already hold BP_TEST_PREFIX bytes). */
void bp_ctx_open(bp_ctx_t *c, uint32_t block_size, unsigned int opts,
		 sqfs_file_t *file);

/* Pack one file, appending in chunks of varying size. */
void bp_ctx_add(bp_ctx_t *c, file_data_t *fd, const uint8_t *data, size_t size,
		unsigned int flags);

/* finish, write the fragment table and read it back; checks that the
 * output holds exactly the prefix and the bytes the stats report. */
void bp_ctx_finish(bp_ctx_t *c);

void bp_ctx_close(bp_ctx_t *c);

/* The current size of the output. */
uint64_t bp_ctx_size(const bp_ctx_t *c);

/* Decode the file's blocks and fragment and compare with data. */
void bp_check_file(const bp_ctx_t *c, const file_data_t *fd,
		   const uint8_t *data, size_t size);

/* The fragment table entry of fragment block idx. */
void bp_fragment_entry(const bp_ctx_t *c, uint32_t idx, uint64_t *start,
		       uint32_t *size_word);

#endif /* BP_TEST_H */
