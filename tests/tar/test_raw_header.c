/* SPDX-License-Identifier: MIT */
/*
 * test_raw_header.c - the look at raw tar headers (lib/tar/raw_header.c):
 * names, checksums, type flags and numeric fields, good and garbage.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tar/raw_header.h"

#include <stdio.h>
#include <string.h>

static void set_checksum(uint8_t *h, bool signed_sum)
{
	long sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_HEADER_SIZE; ++i)
		sum += signed_sum ? (long)(int8_t)h[i] : (long)h[i];
	snprintf((char *)h + 148, 8, "%06lo", sum);
	h[155] = ' ';
}

static void make(uint8_t *h, const char *name, char type)
{
	memset(h, 0, TAR_HEADER_SIZE);
	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0001750", 8);
	memcpy(h + 116, "0000144", 8);
	memcpy(h + 124, "00000000004", 12);
	memcpy(h + 136, "14223246400", 12);
	h[156] = (uint8_t)type;
	memcpy(h + 257,
	       "ustar\0"
	       "00",
	       8);
	set_checksum(h, false);
}

static void test_name(void **state)
{
	uint8_t h[TAR_HEADER_SIZE];
	char buf[300];
	(void)state;

	make(h, "dir/file", '0');
	tar_header_name(h, buf, sizeof(buf));
	assert_string_equal(buf, "dir/file");

	/* ustar prefix */
	memcpy(h + 345, "some/prefix", 11);
	tar_header_name(h, buf, sizeof(buf));
	assert_string_equal(buf, "some/prefix/dir/file");

	/* GNU: the prefix area is not a prefix */
	memcpy(h + 257, "ustar  \0", 8);
	tar_header_name(h, buf, sizeof(buf));
	assert_string_equal(buf, "dir/file");

	/* 100 bytes without a terminator, and unprintable bytes */
	memset(h, 'n', 100);
	h[3] = 0x1b;
	h[4] = 0xff;
	tar_header_name(h, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 100);
	assert_int_equal(buf[3], '?');
	assert_int_equal(buf[4], '?');

	/* a small buffer is not overrun */
	memset(buf, 'X', sizeof(buf));
	tar_header_name(h, buf, 10);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(buf[10], 'X');

	memset(h, 0, TAR_HEADER_SIZE);
	tar_header_name(h, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_checksum(void **state)
{
	uint8_t h[TAR_HEADER_SIZE];
	(void)state;

	make(h, "file", '0');
	assert_true(tar_header_checksum_ok(h));
	assert_int_equal(tar_header_type(h), '0');

	h[10] ^= 1;
	assert_false(tar_header_checksum_ok(h));

	/* old tars summed signed bytes */
	make(h, "caf\xc3\xa9", '0');
	assert_true(tar_header_checksum_ok(h));
	set_checksum(h, true);
	assert_true(tar_header_checksum_ok(h));

	/* a checksum field that is no number */
	memcpy(h + 148, "zzzzzz\0 ", 8);
	assert_false(tar_header_checksum_ok(h));
	h[148] = 0x80;
	assert_false(tar_header_checksum_ok(h));
}

static void test_fields(void **state)
{
	uint8_t h[TAR_HEADER_SIZE];
	(void)state;

	make(h, "file", '0');
	assert_null(tar_header_bad_field(h));

	/* leading spaces, a space terminator, all zero bytes */
	memcpy(h + 100, "   644 \0", 8);
	memcpy(h + 108, "\0\0\0\0\0\0\0\0", 8);
	assert_null(tar_header_bad_field(h));

	/* base-256 */
	memset(h + 124, 0, 12);
	h[124] = 0x80;
	h[135] = 0x01;
	assert_null(tar_header_bad_field(h));
	/* a negative size, a size beyond 64 bits, a negative uid: bad;
	 * a negative mtime (before 1970): fine */
	memset(h + 124, 0xff, 12);
	assert_string_equal(tar_header_bad_field(h), "size");
	memset(h + 124, 0, 12);
	h[124] = 0x80;
	h[127] = 0x01;
	assert_string_equal(tar_header_bad_field(h), "size");
	memset(h + 124, 0, 12);
	h[124] = 0x80;
	h[128] = 0x80;
	assert_string_equal(tar_header_bad_field(h), "size");
	h[128] = 0x7f;
	assert_null(tar_header_bad_field(h));
	memcpy(h + 124, "00000000004", 12);
	memset(h + 108, 0xff, 8);
	assert_string_equal(tar_header_bad_field(h), "uid");
	memcpy(h + 108, "0000000\0", 8);
	memset(h + 136, 0xff, 12);
	assert_null(tar_header_bad_field(h));
	memcpy(h + 136, "00000000000\0", 12);

	memcpy(h + 124, "zz9zz9zz9zz\0", 12);
	assert_string_equal(tar_header_bad_field(h), "size");
	memcpy(h + 124, "00000000004", 12);

	memcpy(h + 100, "0000648\0", 8);
	assert_string_equal(tar_header_bad_field(h), "mode");
	memcpy(h + 100, "0000644\0", 8);

	memcpy(h + 116, "12 34\0\0\0", 8);
	assert_string_equal(tar_header_bad_field(h), "gid");
	memcpy(h + 116, "0000144\0", 8);

	memcpy(h + 136, "-1\0\0\0\0\0\0\0\0\0\0", 12);
	assert_string_equal(tar_header_bad_field(h), "mtime");
	memcpy(h + 136, "14223246400", 12);

	memcpy(h + 108, "x", 1);
	assert_string_equal(tar_header_bad_field(h), "uid");

	/* extension records are not checked */
	h[156] = 'x';
	assert_null(tar_header_bad_field(h));
	h[156] = 'L';
	assert_null(tar_header_bad_field(h));
	h[156] = 'V';
	assert_null(tar_header_bad_field(h));
	memcpy(h + 108, "0001750", 8);

	/* device numbers of devices */
	h[156] = '3';
	memcpy(h + 329, "0000004\0", 8);
	memcpy(h + 337, "zz\0\0\0\0\0\0", 8);
	assert_string_equal(tar_header_bad_field(h), "devminor");
	h[156] = '0';
	assert_null(tar_header_bad_field(h));
	h[156] = '4';
	memcpy(h + 329, "9\0\0\0\0\0\0\0", 8);
	assert_string_equal(tar_header_bad_field(h), "devmajor");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_checksum),
	    cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
