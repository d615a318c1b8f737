/* SPDX-License-Identifier: MIT */
/*
 * test_fixtures.c - decode images written by Debian's mksquashfs 4.5.1
 * (tests/fixtures/make-fixtures.sh) with our compressors.
 *
 * The image structures are walked by hand here, on purpose: this test must
 * show that our codecs read the reference writer's data blocks, fragment
 * blocks and md-blocks, independently of the library's own readers.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What make-fixtures.sh puts into every image. */
#define FX_BLOCK_SIZE 4096u
#define FX_BLOCK_LOG 12
#define FX_TIME 1700000000u
#define FX_SEQ_COUNT 3000
#define FX_SEQ_SIZE 13893u
#define FX_SMALL_TEXT "hello squashfs\n"
#define FX_SMALL_SIZE 15u
/* EXPORTABLE | DEDUPLICATED | ALWAYS_FRAGMENTS | NO_XATTRS, and the
 * options block for every compressor but lzma */
#define FX_FLAGS 0x02E0
#define FX_NO_FRAG 0xFFFFFFFFu

typedef struct {
	const char *file;
	sqfs_compressor_id_t id;
	/* data and fragment blocks mksquashfs stored compressed */
	unsigned int compressed;
} fixture_t;

typedef struct {
	uint8_t *img;
	size_t size;
	sqfs_super_t super;
	sqfs_compressor_t *cmp;
	/* md-blocks that were stored compressed and that we decoded */
	unsigned int md_compressed;
	unsigned int blocks_compressed;
} image_t;

typedef struct {
	uint64_t blocks_start;
	uint64_t file_size;
	uint32_t fragment;
	uint32_t frag_offset;
	/* the block size words, inside the decoded inode md-block */
	const uint8_t *words;
	size_t nblocks;
} file_inode_t;

static uint8_t *expected_seq(void)
{
	uint8_t *buf = malloc(FX_SEQ_SIZE + 1);
	size_t pos = 0;

	assert_non_null(buf);
	for (int i = 1; i <= FX_SEQ_COUNT; ++i) {
		int n = snprintf((char *)buf + pos, FX_SEQ_SIZE + 1 - pos,
				 "%d\n", i);

		assert_true(n > 0);
		pos += (size_t)n;
	}
	assert_int_equal(pos, FX_SEQ_SIZE);
	return buf;
}

/* The settings make-fixtures.sh chose; everything else at its default. */
static void check_options(const sqfs_compressor_config_t *cfg)
{
	sqfs_compressor_config_t def;

	assert_int_equal(sqfs_compressor_config_init(
			     &def, (sqfs_compressor_id_t)cfg->id, FX_BLOCK_SIZE,
			     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);

	switch (cfg->id) {
	case SQFS_COMP_GZIP:
		/* -Xcompression-level 6 -Xwindow-size 12 */
		assert_int_equal(cfg->opt.gzip.level, 6);
		assert_int_equal(cfg->opt.gzip.window_size, 12);
		assert_int_equal(cfg->opt.gzip.strategies, 0);
		break;
	case SQFS_COMP_XZ:
		/* -Xbcj x86,arm; mksquashfs stores the 4 KiB block size as
		 * the dictionary size, below the usual 8 KiB minimum */
		assert_int_equal(cfg->opt.xz.filters,
				 SQFS_XZ_FILTER_X86 | SQFS_XZ_FILTER_ARM);
		assert_int_equal(cfg->opt.xz.dict_size, FX_BLOCK_SIZE);
		assert_int_equal(cfg->opt.xz.level, def.opt.xz.level);
		break;
	case SQFS_COMP_LZMA:
		assert_memory_equal(&cfg->opt, &def.opt, sizeof(def.opt));
		break;
	case SQFS_COMP_LZ4:
		/* -Xhc */
		assert_int_equal(cfg->opt.lz4.flags, SQFS_LZ4_HC);
		break;
	case SQFS_COMP_ZSTD:
		/* -Xcompression-level 3 */
		assert_int_equal(cfg->opt.zstd.level, 3);
		break;
	case SQFS_COMP_LZO:
		/* -Xalgorithm lzo1x_1: the level is unused and stored 0 */
		assert_int_equal(cfg->opt.lzo.algorithm, SQFS_LZO1X_1);
		assert_int_equal(cfg->opt.lzo.level, 0);
		break;
	default:
		fail_msg("unknown compressor %u", cfg->id);
	}
}

/*
 * Decode the md-block at pos into out (8192 bytes); returns its
 * uncompressed size and sets *next to the following block.
 */
static size_t read_md(image_t *im, uint64_t pos, uint8_t *out, uint64_t *next)
{
	uint16_t header, len;
	ptrdiff_t ret;

	assert_true(pos + 2 <= im->size);
	header = get_le16(im->img + pos);
	len = header & 0x7FFF;
	assert_true(len >= 1 && len <= SQFS_META_BLOCK_SIZE);
	assert_true(pos + 2 + len <= im->size);
	*next = pos + 2 + len;

	if (header & 0x8000) {
		memcpy(out, im->img + pos + 2, len);
		return len;
	}

	ret = sqfs_compressor_uncompress(im->cmp, im->img + pos + 2, len, out,
					 SQFS_META_BLOCK_SIZE);
	if (ret <= 0)
		fail_msg("md-block at %llu: uncompress gave %td",
			 (unsigned long long)pos, ret);
	im->md_compressed++;
	return (size_t)ret;
}

/* Decode the data or fragment block of size word `word` at pos; returns
 * its uncompressed size. */
static size_t read_block(image_t *im, uint64_t pos, uint32_t word, uint8_t *out)
{
	uint32_t len = word & 0x00FFFFFF;
	ptrdiff_t ret;

	/* bits 25..31 must be clear, and no sparse blocks in these files */
	assert_int_equal(word & 0xFE000000, 0);
	assert_true(len >= 1 && len <= FX_BLOCK_SIZE);
	assert_true(pos + len <= im->size);

	if (word & 0x01000000) {
		memcpy(out, im->img + pos, len);
		return len;
	}

	ret = sqfs_compressor_uncompress(im->cmp, im->img + pos, len, out,
					 FX_BLOCK_SIZE);
	if (ret <= 0)
		fail_msg("block at %llu (word 0x%08x): uncompress gave %td",
			 (unsigned long long)pos, word, ret);
	im->blocks_compressed++;
	return (size_t)ret;
}

/* Parse the basic or extended file inode at off of the decoded inode
 * md-block ino (ino_len bytes). */
static void parse_file_inode(const uint8_t *ino, size_t ino_len, size_t off,
			     file_inode_t *fi)
{
	size_t head;

	assert_true(off + 16 <= ino_len);
	switch (get_le16(ino + off)) {
	case 2:
		head = 32;
		assert_true(off + head <= ino_len);
		fi->blocks_start = get_le32(ino + off + 16);
		fi->fragment = get_le32(ino + off + 20);
		fi->frag_offset = get_le32(ino + off + 24);
		fi->file_size = get_le32(ino + off + 28);
		break;
	case 9:
		head = 56;
		assert_true(off + head <= ino_len);
		fi->blocks_start = get_le64(ino + off + 16);
		fi->file_size = get_le64(ino + off + 24);
		fi->fragment = get_le32(ino + off + 44);
		fi->frag_offset = get_le32(ino + off + 48);
		break;
	default:
		fail_msg("inode at %zu: type %u is not a file", off,
			 get_le16(ino + off));
		return;
	}

	fi->nblocks = fi->file_size / FX_BLOCK_SIZE;
	if (fi->fragment == FX_NO_FRAG && fi->file_size % FX_BLOCK_SIZE)
		fi->nblocks++;
	assert_true(off + head + 4 * fi->nblocks <= ino_len);
	fi->words = ino + off + head;
}

/* Compare a file's tail, stored in a fragment, with expect. */
static void check_fragment(image_t *im, const file_inode_t *fi,
			   const uint8_t *expect, size_t tail)
{
	uint8_t md[SQFS_META_BLOCK_SIZE], block[FX_BLOCK_SIZE];
	uint64_t index_pos, md_pos, next, start;
	size_t md_len, entry, got;
	uint32_t word;

	assert_true(fi->fragment < im->super.fragment_entry_count);

	/* one index entry suffices: a few fragments fit one md-block */
	index_pos = im->super.fragment_table_start;
	assert_true(index_pos + 8 <= im->size);
	md_pos = get_le64(im->img + index_pos);
	assert_true(md_pos < index_pos);
	md_len = read_md(im, md_pos, md, &next);
	assert_true(next <= index_pos);

	entry = (size_t)fi->fragment * 16;
	assert_true(entry + 16 <= md_len);
	start = get_le64(md + entry);
	word = get_le32(md + entry + 8);

	got = read_block(im, start, word, block);
	assert_true((size_t)fi->frag_offset + tail <= got);
	assert_memory_equal(block + fi->frag_offset, expect, tail);
}

static void check_seq(image_t *im, const file_inode_t *fi)
{
	uint8_t *expect = expected_seq();
	uint8_t block[FX_BLOCK_SIZE];
	uint64_t pos = fi->blocks_start;
	size_t done = 0;

	assert_int_equal(fi->file_size, FX_SEQ_SIZE);
	/* mksquashfs puts the first file's data right after the options */
	assert_true(pos >= SQFS_SUPER_SIZE);

	for (size_t i = 0; i < fi->nblocks; ++i) {
		uint32_t word = get_le32(fi->words + 4 * i);
		size_t want = FX_SEQ_SIZE - done < FX_BLOCK_SIZE
				  ? FX_SEQ_SIZE - done
				  : FX_BLOCK_SIZE;

		assert_int_equal(read_block(im, pos, word, block), want);
		assert_memory_equal(block, expect + done, want);
		pos += word & 0x00FFFFFF;
		done += want;
	}

	if (fi->fragment != FX_NO_FRAG)
		check_fragment(im, fi, expect + done, FX_SEQ_SIZE - done);
	else
		assert_int_equal(done, FX_SEQ_SIZE);

	free(expect);
}

static void check_small(image_t *im, const file_inode_t *fi)
{
	assert_int_equal(fi->file_size, FX_SMALL_SIZE);
	assert_int_equal(fi->nblocks, 0);
	assert_int_not_equal(fi->fragment, FX_NO_FRAG);
	check_fragment(im, fi, (const uint8_t *)FX_SMALL_TEXT, FX_SMALL_SIZE);
}

/*
 * Walk the root directory: its inode (from the superblock's root ref), its
 * listing in the directory table, and the file inodes the entries name.
 */
static void check_tree(image_t *im)
{
	uint8_t ino[SQFS_META_BLOCK_SIZE], dir[SQFS_META_BLOCK_SIZE];
	size_t ino_len, dir_len, root, pos, end;
	uint64_t next;
	uint32_t listing, dir_block;
	uint16_t dir_offset;
	bool seen_seq = false, seen_small = false;

	/* three inodes of a few dozen bytes: one md-block each */
	ino_len = read_md(im, im->super.inode_table_start, ino, &next);
	assert_int_equal(next, im->super.directory_table_start);
	dir_len = read_md(im, im->super.directory_table_start, dir, &next);
	assert_true(next <= im->super.fragment_table_start);

	assert_int_equal(im->super.root_inode_ref >> 16, 0);
	root = (size_t)(im->super.root_inode_ref & 0xFFFF);
	assert_true(root + 32 <= ino_len);
	switch (get_le16(ino + root)) {
	case 1:
		dir_block = get_le32(ino + root + 16);
		listing = get_le16(ino + root + 24);
		dir_offset = get_le16(ino + root + 26);
		break;
	case 8:
		assert_true(root + 40 <= ino_len);
		listing = get_le32(ino + root + 20);
		dir_block = get_le32(ino + root + 24);
		dir_offset = get_le16(ino + root + 34);
		break;
	default:
		fail_msg("root inode has type %u", get_le16(ino + root));
		return;
	}
	assert_int_equal(dir_block, 0);
	assert_true(listing > 3);
	pos = dir_offset;
	end = pos + listing - 3;
	assert_true(end <= dir_len);

	while (pos < end) {
		uint32_t count, start;

		assert_true(pos + 12 <= end);
		count = get_le32(dir + pos) + 1;
		start = get_le32(dir + pos + 4);
		assert_int_equal(start, 0);
		pos += 12;

		for (uint32_t i = 0; i < count; ++i) {
			file_inode_t fi;
			size_t name_len;
			const char *name;

			assert_true(pos + 8 <= end);
			name_len = (size_t)get_le16(dir + pos + 6) + 1;
			assert_true(pos + 8 + name_len <= end);
			name = (const char *)dir + pos + 8;
			parse_file_inode(ino, ino_len, get_le16(dir + pos),
					 &fi);

			if (name_len == 7 && memcmp(name, "seq.txt", 7) == 0) {
				check_seq(im, &fi);
				seen_seq = true;
			} else if (name_len == 9 &&
				   memcmp(name, "small.txt", 9) == 0) {
				check_small(im, &fi);
				seen_small = true;
			} else {
				fail_msg("unexpected entry '%.*s'",
					 (int)name_len, name);
			}
			pos += 8 + name_len;
		}
	}
	assert_int_equal(pos, end);
	assert_true(seen_seq);
	assert_true(seen_small);
}

static void check_fixture(void **state)
{
	const fixture_t *fx = *state;
	sqfs_compressor_config_t cfg, got;
	sqfs_file_t *file = NULL;
	image_t im;

	if (!sqfs_compressor_is_available(fx->id))
		skip();

	memset(&im, 0, sizeof(im));
	im.img = test_load_fixture(fx->file, &im.size);

	assert_int_equal(sqfs_file_open(&file, test_fixture_path(fx->file),
					SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_super_read(&im.super, file), 0);
	assert_int_equal(im.super.magic, SQFS_MAGIC);
	assert_int_equal(im.super.version_major, 4);
	assert_int_equal(im.super.version_minor, 0);
	assert_int_equal(im.super.block_size, FX_BLOCK_SIZE);
	assert_int_equal(im.super.block_log, FX_BLOCK_LOG);
	assert_int_equal(im.super.compression_id, fx->id);
	assert_int_equal(im.super.modification_time, FX_TIME);
	assert_int_equal(im.super.inode_count, 3);
	assert_int_equal(im.super.id_count, 1);
	assert_int_equal(im.super.fragment_entry_count, 2);
	assert_true(im.super.bytes_used <= im.size);
	assert_int_equal(
	    im.super.flags,
	    FX_FLAGS |
		(fx->id == SQFS_COMP_LZMA ? 0 : SQFS_FLAG_COMPRESSOR_OPTIONS));

	assert_int_equal(sqfs_compressor_config_init(&cfg, fx->id,
						     im.super.block_size,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	if (im.super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS)
		assert_int_equal(
		    sqfs_compressor_config_read_options(&cfg, file), 0);
	sqfs_file_destroy(file);
	check_options(&cfg);

	assert_int_equal(sqfs_compressor_create(&cfg, &im.cmp), 0);
	sqfs_compressor_get_config(im.cmp, &got);
	assert_memory_equal(&got, &cfg, sizeof(cfg));

	check_tree(&im);

	/* so both the compressed and the raw paths were taken: small.txt's
	 * 15-byte fragment is always raw; at least one md-block is
	 * compressed, except for xz, whose stream overhead exceeds these
	 * tiny tables */
	assert_int_equal(im.blocks_compressed, fx->compressed);
	if (fx->id != SQFS_COMP_XZ)
		assert_true(im.md_compressed >= 1);

	sqfs_compressor_destroy(im.cmp);
	free(im.img);
}

/* The three data blocks of seq.txt and the fragment with its tail are
 * compressed, except that lzo1x_1 could not shrink the first data block. */
static const fixture_t fixtures[] = {
    {"gzip.sqfs", SQFS_COMP_GZIP, 4}, {"xz.sqfs", SQFS_COMP_XZ, 4},
    {"lzma.sqfs", SQFS_COMP_LZMA, 4}, {"lz4.sqfs", SQFS_COMP_LZ4, 4},
    {"zstd.sqfs", SQFS_COMP_ZSTD, 4}, {"lzo.sqfs", SQFS_COMP_LZO, 3},
};

#define FIXTURE_TEST(i)                                      \
	{                                                    \
		fixtures[i].file, check_fixture, NULL, NULL, \
		    (void *)&fixtures[i]                     \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    FIXTURE_TEST(0), FIXTURE_TEST(1), FIXTURE_TEST(2),
	    FIXTURE_TEST(3), FIXTURE_TEST(4), FIXTURE_TEST(5),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
