/* SPDX-License-Identifier: MIT */
/*
 * test_util.h - helpers shared by the unit tests: test data of several
 * kinds, fixtures, and the compressor round-trip checks every codec runs.
 *
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h>.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include "sqfs/compressor.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
	TEST_DATA_RANDOM, /* incompressible */
	TEST_DATA_ZEROS,
	TEST_DATA_TEXT,	  /* English-like words */
	TEST_DATA_BINARY, /* bytes of this test's own executable */
	TEST_DATA_KIND_COUNT,
} test_data_kind_t;

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

#endif /* TEST_UTIL_H */
