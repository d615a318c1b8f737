/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <string.h>

/*
 * The superblock of a 16-inode mksquashfs 4.5.1 zstd image:
 * one fragment, an export table, xattrs, -mkfs-time 1700000000.
 */
static const uint8_t reference[SQFS_SUPER_SIZE] = {
    0x68, 0x73, 0x71, 0x73, 0x10, 0x00, 0x00, 0x00, 0x00, 0xf1, 0x53, 0x65,
    0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x11, 0x00,
    0xc0, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x29, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x0b, 0x97, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x84, 0x96, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf3, 0x96, 0x06, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x94, 0x94, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x78, 0x95, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3c, 0x96, 0x06, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x76, 0x96, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* The padded size of that image. */
#define REFERENCE_IMAGE_SIZE 0x6a000u

static void decode_reference(void **state)
{
	sqfs_super_t super;
	uint8_t again[SQFS_SUPER_SIZE];

	(void)state;
	sqfs_super_decode(&super, reference);
	assert_int_equal(super.magic, SQFS_MAGIC);
	assert_int_equal(super.inode_count, 16);
	assert_int_equal(super.modification_time, 1700000000);
	assert_int_equal(super.block_size, 131072);
	assert_int_equal(super.fragment_entry_count, 1);
	assert_int_equal(super.compression_id, SQFS_COMP_ZSTD);
	assert_int_equal(super.block_log, 17);
	assert_int_equal(super.flags,
			 SQFS_FLAG_DEDUPLICATED | SQFS_FLAG_EXPORTABLE);
	assert_int_equal(super.id_count, 1);
	assert_int_equal(super.version_major, 4);
	assert_int_equal(super.version_minor, 0);
	assert_int_equal(super.root_inode_ref, 0x229);
	assert_int_equal(super.bytes_used, 0x6970b);
	assert_int_equal(super.id_table_start, 0x69684);
	assert_int_equal(super.xattr_id_table_start, 0x696f3);
	assert_int_equal(super.inode_table_start, 0x69494);
	assert_int_equal(super.directory_table_start, 0x69578);
	assert_int_equal(super.fragment_table_start, 0x6963c);
	assert_int_equal(super.export_table_start, 0x69676);

	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE), 0);

	sqfs_super_encode(&super, again);
	assert_memory_equal(again, reference, SQFS_SUPER_SIZE);
}

static void init_defaults(void **state)
{
	sqfs_super_t super;
	uint8_t raw[SQFS_SUPER_SIZE];

	(void)state;
	assert_int_equal(sqfs_super_init(&super, 131072, 1234, SQFS_COMP_XZ),
			 0);
	assert_int_equal(super.magic, SQFS_MAGIC);
	assert_int_equal(super.block_size, 131072);
	assert_int_equal(super.block_log, 17);
	assert_int_equal(super.modification_time, 1234);
	assert_int_equal(super.compression_id, SQFS_COMP_XZ);
	assert_int_equal(super.version_major, 4);
	assert_int_equal(super.version_minor, 0);
	assert_int_equal(super.flags, 0);
	assert_int_equal(super.xattr_id_table_start, SQFS_TABLE_ABSENT);
	assert_int_equal(super.export_table_start, SQFS_TABLE_ABSENT);
	assert_int_equal(super.fragment_table_start, SQFS_TABLE_ABSENT);

	sqfs_super_encode(&super, raw);
	assert_memory_equal(raw, "hsqs", 4);

	for (uint32_t bs = SQFS_MIN_BLOCK_SIZE; bs <= SQFS_MAX_BLOCK_SIZE;
	     bs *= 2) {
		assert_int_equal(sqfs_super_init(&super, bs, 0, SQFS_COMP_GZIP),
				 0);
		assert_int_equal(1u << super.block_log, bs);
	}

	assert_int_equal(sqfs_super_init(&super, 2048, 0, SQFS_COMP_GZIP),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	assert_int_equal(
	    sqfs_super_init(&super, 2 * 1048576, 0, SQFS_COMP_GZIP),
	    SQFS_ERROR_SUPER_BLOCK_SIZE);
	assert_int_equal(sqfs_super_init(&super, 100000, 0, SQFS_COMP_GZIP),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	assert_int_equal(sqfs_super_init(&super, 0, 0, SQFS_COMP_GZIP),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	assert_int_equal(sqfs_super_init(&super, 4096, 0, 0),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(sqfs_super_init(&super, 4096, 0, 7),
			 SQFS_ERROR_UNSUPPORTED);
}

/* Mutate one field of the reference superblock; expect an error. */
static void expect_invalid(void (*mutate)(sqfs_super_t *), int expected)
{
	sqfs_super_t super;

	sqfs_super_decode(&super, reference);
	mutate(&super);
	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE),
			 expected);
}

#define MUTATION(name, stmt)              \
	static void name(sqfs_super_t *s) \
	{                                 \
		stmt;                     \
	}

MUTATION(bad_magic, s->magic = 0x53515348)
MUTATION(version_41, s->version_minor = 1)
MUTATION(version_30, s->version_major = 3)
MUTATION(version_50, s->version_major = 5)
MUTATION(block_2k, (s->block_size = 2048, s->block_log = 11))
MUTATION(block_log_mismatch, s->block_log = 16)
MUTATION(block_2m, (s->block_size = 2097152, s->block_log = 21))
MUTATION(block_not_pow2, s->block_size = 131073)
MUTATION(block_log_huge, s->block_log = 40)
MUTATION(comp_zero, s->compression_id = 0)
MUTATION(comp_seven, s->compression_id = 7)
MUTATION(bytes_used_past_end, s->bytes_used = REFERENCE_IMAGE_SIZE + 1)
MUTATION(no_ids, s->id_count = 0)
MUTATION(no_inodes, s->inode_count = 0)
MUTATION(inode_table_in_super, s->inode_table_start = 50)
MUTATION(inode_after_dir, s->inode_table_start = s->directory_table_start)
MUTATION(dir_past_end, s->directory_table_start = s->bytes_used + 1)
MUTATION(frag_before_dir, s->fragment_table_start = 0x100)
MUTATION(frag_past_end, s->fragment_table_start = s->bytes_used - 4)
MUTATION(frag_count_huge, s->fragment_entry_count = UINT32_MAX)
MUTATION(export_past_end, s->export_table_start = UINT64_MAX - 1)
MUTATION(export_before_frag, s->export_table_start = 0x69600)
MUTATION(id_past_end, s->id_table_start = s->bytes_used - 7)
MUTATION(id_before_export, s->id_table_start = 0x69670)
MUTATION(id_count_huge, s->id_count = 65535)
MUTATION(xattr_before_id, s->xattr_id_table_start = 0x69680)
MUTATION(xattr_header_cut, s->xattr_id_table_start = s->bytes_used - 8)
MUTATION(root_offset_8192, s->root_inode_ref = 0x2000)
MUTATION(root_outside_table, s->root_inode_ref = (uint64_t)0x1000 << 16)
MUTATION(root_high_bits, s->root_inode_ref |= (uint64_t)1 << 50)

static void validate_rejects(void **state)
{
	(void)state;
	expect_invalid(bad_magic, SQFS_ERROR_SUPER_MAGIC);
	expect_invalid(version_41, SQFS_ERROR_SUPER_VERSION);
	expect_invalid(version_30, SQFS_ERROR_SUPER_VERSION);
	expect_invalid(version_50, SQFS_ERROR_SUPER_VERSION);
	expect_invalid(block_2k, SQFS_ERROR_SUPER_BLOCK_SIZE);
	expect_invalid(block_log_mismatch, SQFS_ERROR_SUPER_BLOCK_SIZE);
	expect_invalid(block_2m, SQFS_ERROR_SUPER_BLOCK_SIZE);
	expect_invalid(block_not_pow2, SQFS_ERROR_SUPER_BLOCK_SIZE);
	expect_invalid(block_log_huge, SQFS_ERROR_SUPER_BLOCK_SIZE);
	expect_invalid(comp_zero, SQFS_ERROR_UNSUPPORTED);
	expect_invalid(comp_seven, SQFS_ERROR_UNSUPPORTED);
	expect_invalid(bytes_used_past_end, SQFS_ERROR_TRUNCATED);
	expect_invalid(no_ids, SQFS_ERROR_CORRUPTED);
	expect_invalid(no_inodes, SQFS_ERROR_CORRUPTED);
	expect_invalid(inode_table_in_super, SQFS_ERROR_CORRUPTED);
	expect_invalid(inode_after_dir, SQFS_ERROR_CORRUPTED);
	expect_invalid(dir_past_end, SQFS_ERROR_CORRUPTED);
	expect_invalid(frag_before_dir, SQFS_ERROR_CORRUPTED);
	expect_invalid(frag_past_end, SQFS_ERROR_CORRUPTED);
	expect_invalid(frag_count_huge, SQFS_ERROR_CORRUPTED);
	expect_invalid(export_past_end, SQFS_ERROR_CORRUPTED);
	expect_invalid(export_before_frag, SQFS_ERROR_CORRUPTED);
	expect_invalid(id_past_end, SQFS_ERROR_CORRUPTED);
	expect_invalid(id_before_export, SQFS_ERROR_CORRUPTED);
	expect_invalid(id_count_huge, SQFS_ERROR_CORRUPTED);
	expect_invalid(xattr_before_id, SQFS_ERROR_CORRUPTED);
	expect_invalid(xattr_header_cut, SQFS_ERROR_CORRUPTED);
	expect_invalid(root_offset_8192, SQFS_ERROR_CORRUPTED);
	expect_invalid(root_outside_table, SQFS_ERROR_CORRUPTED);
	expect_invalid(root_high_bits, SQFS_ERROR_CORRUPTED);
}

static void validate_accepts_absent_tables(void **state)
{
	sqfs_super_t super;

	(void)state;
	sqfs_super_decode(&super, reference);
	/* no fragments: the start field is ignored (mksquashfs writes the
	 * next table's offset, gensquashfs all-ones) */
	super.fragment_entry_count = 0;
	super.fragment_table_start = SQFS_TABLE_ABSENT;
	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE), 0);
	super.fragment_table_start = 12345;
	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE), 0);

	super.export_table_start = SQFS_TABLE_ABSENT;
	super.xattr_id_table_start = SQFS_TABLE_ABSENT;
	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE), 0);

	/* flags other than the options bit are advisory */
	super.flags = 0xFFFF;
	assert_int_equal(sqfs_super_validate(&super, REFERENCE_IMAGE_SIZE), 0);
}

static void read_and_write(void **state)
{
	sqfs_file_t *file = NULL;
	sqfs_super_t super, back;
	uint8_t image[REFERENCE_IMAGE_SIZE];

	(void)state;
	memset(image, 0, sizeof(image));
	memcpy(image, reference, sizeof(reference));
	assert_int_equal(sqfs_file_open_memory(&file, image, sizeof(image), 0),
			 0);
	assert_int_equal(sqfs_super_read(&super, file), 0);
	assert_int_equal(super.bytes_used, 0x6970b);

	super.modification_time = 42;
	assert_int_equal(sqfs_super_write(&super, file), 0);
	assert_int_equal(sqfs_super_read(&back, file), 0);
	assert_memory_equal(&back, &super, sizeof(super));

	/* an image cut short of bytes_used is refused */
	assert_int_equal(file->truncate(file, 0x69000), 0);
	assert_int_equal(sqfs_super_read(&back, file), SQFS_ERROR_TRUNCATED);
	/* shorter than a superblock */
	assert_int_equal(file->truncate(file, 95), 0);
	assert_int_equal(sqfs_super_read(&back, file), SQFS_ERROR_TRUNCATED);
	assert_int_equal(file->truncate(file, 0), 0);
	assert_int_equal(sqfs_super_read(&back, file), SQFS_ERROR_TRUNCATED);
	sqfs_file_destroy(file);
}

static void flag_names(void **state)
{
	int named = 0;

	(void)state;
	for (unsigned bit = 0; bit < 16; ++bit) {
		const char *name = sqfs_super_flag_name((uint16_t)(1u << bit));

		if (bit < 12) {
			assert_non_null(name);
			++named;
		} else {
			assert_null(name);
		}
	}
	assert_int_equal(named, 12);
	assert_string_equal(sqfs_super_flag_name(SQFS_FLAG_COMPRESSOR_OPTIONS),
			    "COMPRESSOR_OPTIONS");
	assert_string_equal(sqfs_super_flag_name(SQFS_FLAG_EXPORTABLE),
			    "EXPORTABLE");
	assert_null(sqfs_super_flag_name(0));
	assert_null(sqfs_super_flag_name(0x0003));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decode_reference),
	    cmocka_unit_test(init_defaults),
	    cmocka_unit_test(validate_rejects),
	    cmocka_unit_test(validate_accepts_absent_tables),
	    cmocka_unit_test(read_and_write),
	    cmocka_unit_test(flag_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
