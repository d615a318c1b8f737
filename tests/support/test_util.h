/* SPDX-License-Identifier: MIT */
/*
 * test_util.h - helpers shared by the unit tests: test data of several
 * kinds, fixtures, the checks every compressor test runs (round trips,
 * option strings, the options block, bounds and bombs), and in-memory files
 * for the metadata tests.
 *
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h>.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include "sqfs/compressor.h"
#include "sqfs/io.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	TEST_DATA_RANDOM, /* incompressible */
	TEST_DATA_ZEROS,
	TEST_DATA_TEXT,	  /* English-like words */
	TEST_DATA_BINARY, /* bytes of this test's own executable */
	TEST_DATA_KIND_COUNT,
} test_data_kind_t;

/* The next value of a xorshift32 sequence; *state must not be 0. */
uint32_t test_rand(uint32_t *state);

/* Name of a data kind, for messages. */
const char *test_data_kind_name(test_data_kind_t kind);

/* Fill buf with size bytes of the given kind; seed varies the content. */
void test_fill_data(uint8_t *buf, size_t size, test_data_kind_t kind,
		    uint32_t seed);

/* A malloc'd buffer of size bytes of the given kind. */
uint8_t *test_make_data(size_t size, test_data_kind_t kind, uint32_t seed);

/* The absolute path of a file in tests/fixtures (static buffer). */
const char *test_fixture_path(const char *name);

/* Load a fixture into a malloc'd buffer; fails the test if missing. */
uint8_t *test_load_fixture(const char *name, size_t *size);

/*
 * The checks every compressor must pass for one configuration:
 * - each data kind, at the block size and at a short odd size, compresses
 *   (random data must be reported as not shrinking) and decompresses to
 *   the same bytes into a buffer of exactly the original size;
 * - a compressed block decompressed into a buffer one byte too small fails
 *   with an error and writes nothing past that buffer (decompression bomb);
 * - truncated and bit-flipped compressed blocks give an error or, where the
 *   codec has no checksum, never more bytes than the bound (no crash);
 * - a copy of the compressor gives identical output.
 * Also metadata-sized (8192-byte) blocks when the block size is 4 KiB.
 */
void test_compressor_roundtrip(const sqfs_compressor_config_t *cfg);

/*
 * Write cfg's options block to an in-memory file and read it back into a
 * fresh default configuration; assert the result equals cfg (all fields the
 * block can carry) and return the number of bytes written (0: no block).
 */
int test_options_roundtrip(const sqfs_compressor_config_t *cfg);

/* ---- compressor configurations and instances ---------------------------- */

/* Asserts that cfg holds its compressor's defaults for block_size (for xz
 * and lzma the dictionary is the block size). */
void test_assert_defaults(const sqfs_compressor_config_t *cfg,
			  uint32_t block_size);

/* Defaults for id and block_size with options applied; fails the test if
 * either step fails (options may be NULL). */
void test_config_parse(sqfs_compressor_config_t *cfg, sqfs_compressor_id_t id,
		       uint32_t block_size, const char *options);

/* test_compressor_roundtrip on test_config_parse(id, block_size, options). */
void test_compressor_roundtrip_parsed(sqfs_compressor_id_t id,
				      uint32_t block_size, const char *options);

/* A compressor for cfg; asserts that creating it succeeds. */
sqfs_compressor_t *test_create_compressor(const sqfs_compressor_config_t *cfg);

/* Asserts that creating a compressor for cfg fails with expect and leaves
 * the result pointer NULL. */
void test_create_fails(const sqfs_compressor_config_t *cfg, int expect);

/* The compressors in the order the metadata tests try them. */
extern const sqfs_compressor_id_t test_compressor_ids[];
extern const size_t test_compressor_id_count;

/* A compressor with the defaults for id, or NULL if this build cannot make
 * one. Asserts nothing. */
sqfs_compressor_t *test_try_compressor(sqfs_compressor_id_t id,
				       uint32_t block_size);

/* The first of test_compressor_ids that test_try_compressor can make, or
 * NULL if none. */
sqfs_compressor_t *test_first_compressor(uint32_t block_size);

/* ---- option strings and the options block ------------------------------- */

/*
 * Format cfg and parse the text into a copy of start; assert the text's
 * length is what format returned, that a buffer one byte short (and an empty
 * one) gives SQFS_ERROR_OVERFLOW without writing past it, and that the
 * parsed copy equals cfg. Returns the text's length.
 */
int test_format_reparse(const sqfs_compressor_config_t *cfg,
			const sqfs_compressor_config_t *start);

/*
 * Parse options into a copy of start; assert SQFS_ERROR_ARG_INVALID and a
 * non-empty, terminated message that contains named (unless it is NULL).
 */
void test_bad_option(const sqfs_compressor_config_t *start, const char *options,
		     const char *named);

/*
 * Write cfg's options block to an empty in-memory file; assert it returns
 * len and the file holds exactly 96 bytes and then expect.
 */
void test_options_written(const sqfs_compressor_config_t *cfg,
			  const uint8_t *expect, size_t len);

/*
 * Initialise cfg for id, block_size and flags, then read an options block
 * from an in-memory file of 96 zero bytes followed by the len bytes at
 * block (header and payload). Returns what
 * sqfs_compressor_config_read_options returns.
 */
int test_read_options_block(sqfs_compressor_config_t *cfg,
			    sqfs_compressor_id_t id, uint32_t block_size,
			    uint16_t flags, const void *block, size_t len);

/*
 * test_read_options_block for id, block_size and flags on the len bytes at
 * block; fails the test, showing the block, unless the result is expect.
 */
void test_options_block_gives(sqfs_compressor_id_t id, uint32_t block_size,
			      uint16_t flags, const void *block, size_t len,
			      int expect);

/* ---- compressing and decompressing -------------------------------------- */

/*
 * cfg (without SQFS_COMP_FLAG_UNCOMPRESS) compresses size bytes of text made
 * with seed. An instance made from cfg plus SQFS_COMP_FLAG_UNCOMPRESS must
 * report that configuration, refuse to compress (SQFS_ERROR_SEQUENCE) and
 * decode the block to the input, and so must a copy of it. Returns the
 * compressed size.
 */
size_t test_decoder_only(const sqfs_compressor_config_t *cfg, size_t size,
			 uint32_t seed);

/*
 * Decode the size bytes at in with cmp: into out (outsize bytes, more than
 * n) it gives n bytes, which it leaves there; into exactly n bytes it gives
 * n, and into n - 1 bytes SQFS_ERROR_OVERFLOW.
 */
void test_decode_fits(sqfs_compressor_t *cmp, const uint8_t *in, size_t size,
		      uint8_t *out, size_t outsize, size_t n);

/*
 * Compress size bytes of in with cmp: into an out of size bytes it must
 * shrink; into 0 bytes, or 1 byte of input, it gives 0; into one byte less
 * than it needs it gives 0 and writes nothing from that byte (from the start
 * if untouched_all) to 64 bytes past it; into exactly the bytes it needs it
 * gives the same size. out holds size + 64 bytes and is left holding the
 * compressed block; returns its size.
 */
size_t test_exact_fit(sqfs_compressor_t *cmp, const uint8_t *in, size_t size,
		      uint8_t *out, bool untouched_all);

/* test_exact_fit on 128 KiB of text (cmp must take 128 KiB blocks). */
void test_compress_bound(sqfs_compressor_t *cmp, bool untouched_all);

/*
 * Decode size bytes at packed with cmp into a 4096-byte buffer followed by
 * 64 guard bytes: it must fail with expect (with any error if expect is 0)
 * and leave the buffer from untouched_from to the end of the guard as it
 * was.
 */
void test_decode_bomb(sqfs_compressor_t *cmp, const uint8_t *packed,
		      size_t size, int expect, size_t untouched_from);

/*
 * Decompression bomb: 1 MiB of zeros compressed by cmp (made for 1 MiB
 * blocks) passes test_exact_fit and takes fewer than max_packed bytes, and
 * decoding it passes test_decode_bomb. If packed is not NULL it receives the
 * compressed block (malloc'd; the caller frees it). Returns its size.
 */
size_t test_zeros_bomb(sqfs_compressor_t *cmp, size_t max_packed, int expect,
		       size_t untouched_from, uint8_t **packed);

/* ---- in-memory files ----------------------------------------------------- */

/* A writable in-memory file starting as a copy of size bytes at data (NULL
 * when size is 0); asserts it could be made. */
sqfs_file_t *test_memory_file(const void *data, size_t size);

/* A writable in-memory file starting with size bytes of value fill. */
sqfs_file_t *test_memory_file_filled(size_t size, uint8_t fill);

/*
 * A file that passes every call on to inner, which it takes over (destroyed
 * with it), and tells on_read(user, offset, size) of each read first: for
 * tests that count how often the library reads what.
 */
sqfs_file_t *test_observed_file(sqfs_file_t *inner,
				void (*on_read)(void *user, uint64_t offset,
						size_t size),
				void *user);

/*
 * A file that passes every call on to inner (taken over: destroyed with
 * it) and fails on demand with SQFS_ERROR_IO: a write once write_calls
 * writes were made, or when it would take more than write_bytes bytes
 * (then write_bytes drops to 0); every read with fail_read; every
 * truncate with fail_truncate. It counts the writes and bytes that got
 * through and the failures. Both budgets start at UINT64_MAX (no limit);
 * sync forwards, so the wrapper is as durable as what it wraps.
 */
typedef struct {
	sqfs_file_t base;
	sqfs_file_t *inner;
	uint64_t write_calls;
	uint64_t write_bytes;
	bool fail_read;
	bool fail_truncate;
	uint64_t writes;
	uint64_t written;
	unsigned int failures;
} test_failing_file_t;

test_failing_file_t *test_failing_file(sqfs_file_t *inner);

/* The contents of an in-memory file; asserts there are some to see. */
const uint8_t *test_memory_file_data(const sqfs_file_t *file, size_t *size);

/* Append size bytes at data to the end of file; asserts it worked. */
void test_file_append(sqfs_file_t *file, const void *data, size_t size);

/* Append a metadata block: the 16-bit little-endian header, then size bytes
 * of payload (which may be NULL when size is 0). */
void test_file_append_block(sqfs_file_t *file, uint16_t header,
			    const void *payload, size_t size);

/* ---- temporary directories ---------------------------------------------- */

/* Make a new empty directory $TMPDIR/PREFIX-XXXXXX (/tmp without TMPDIR),
 * its path in buf (size bytes, which the path must fit). Returns 0 or -1. */
int test_mkdtemp(char *buf, size_t size, const char *prefix);

/* Remove dir and everything in it; symlinks are removed themselves,
 * never followed. Returns 0 or -1. */
int test_remove_tree(const char *dir);

/* The directory test_tmpdir_setup made (test_mkdtemp, "sqfs-test"). */
extern char test_tmpdir[256];

/* A cmocka setup: make a new empty test_tmpdir. */
int test_tmpdir_setup(void **state);

/* A cmocka teardown: test_remove_tree(test_tmpdir). */
int test_tmpdir_teardown(void **state);

/* test_tmpdir opened as a directory; asserts it could be. */
int test_tmpdir_open(void);

#endif /* TEST_UTIL_H */
