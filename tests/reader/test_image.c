/* SPDX-License-Identifier: MIT */
/*
 * test_image.c - opening images: ours, mksquashfs's and gensquashfs's with
 * every compressor and table combination, checked entry by entry; and
 * hostile variants of a valid image (tables moved, indexes and counts
 * broken, block headers damaged), each of which must give an error.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "reader/reader_util.h"
#include "sqfs/image_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BIG_FILES 2100
#define SMALL_FILES 40

/* Built once: a large image whose lookup tables all span several
 * blocks, and a small one without xattrs (the id table is last). */
static uint8_t *big_img, *small_img;
static size_t big_size, small_size;
static const ru_tree_t big_tree = {
    .files = BIG_FILES, .xattrs = true, .privileged = true};
static const ru_tree_t small_tree = {
    .files = SMALL_FILES, .xattrs = false, .privileged = false};

static sqfs_compressor_id_t fast_compressor(void)
{
	if (sqfs_compressor_is_available(SQFS_COMP_GZIP))
		return SQFS_COMP_GZIP;
	return sqfs_compressor_default();
}

static int group_setup(void **state)
{
	(void)state;
	big_img = ru_build_writer(&big_tree, fast_compressor(),
				  SQFS_WRITER_EXPORTABLE, &big_size);
	small_img = ru_build_writer(&small_tree, fast_compressor(),
				    SQFS_WRITER_EXPORTABLE, &small_size);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(big_img);
	free(small_img);
	return 0;
}

/* ---- valid images -------------------------------------------------------- */

static void check_writer_image(sqfs_compressor_id_t id, uint32_t flags,
			       const ru_tree_t *t)
{
	const sqfs_super_t *super;
	sqfs_compressor_config_t cfg;
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint8_t *data;
	size_t size;
	bool xattrs = t->xattrs && !(flags & SQFS_WRITER_NO_XATTRS);

	data = ru_build_writer(t, id, flags, &size);
	img = ru_open(data, size, &file);
	super = sqfs_image_super(img);

	assert_int_equal(super->block_size, 4096);
	assert_int_equal(super->compression_id, id);
	assert_int_equal(super->modification_time, 1700000000u);
	assert_int_equal(super->export_table_start != SQFS_TABLE_ABSENT,
			 (flags & SQFS_WRITER_EXPORTABLE) != 0);
	assert_int_equal(super->fragment_entry_count > 0,
			 (flags & SQFS_WRITER_NO_FRAGMENTS) == 0);
	assert_int_equal(super->xattr_id_table_start != SQFS_TABLE_ABSENT,
			 xattrs);

	sqfs_image_compressor_config(img, &cfg);
	assert_int_equal(cfg.id, id);
	assert_int_equal(cfg.block_size, 4096);
	assert_int_equal(cfg.flags & SQFS_COMP_FLAG_UNCOMPRESS, 0);
	assert_non_null(image_compressor(img));
	assert_ptr_equal(image_file(img), file);

	ru_check_tree(img, t, xattrs);
	ru_close(img, file);

	assert_int_equal(ru_probe(data, size), 0);
	free(data);
}

static void test_writer_compressors(void **state)
{
	const ru_tree_t t = {
	    .files = SMALL_FILES, .xattrs = true, .privileged = true};
	size_t i;

	(void)state;
	for (i = 0; i < test_compressor_id_count; ++i) {
		if (!sqfs_compressor_is_available(test_compressor_ids[i]))
			continue;
		check_writer_image(test_compressor_ids[i],
				   SQFS_WRITER_EXPORTABLE, &t);
	}
}

static void test_writer_variants(void **state)
{
	const ru_tree_t t = {
	    .files = SMALL_FILES, .xattrs = true, .privileged = true};
	sqfs_compressor_id_t id = fast_compressor();

	(void)state;
	check_writer_image(id, 0, &t);
	check_writer_image(id, SQFS_WRITER_NO_FRAGMENTS, &t);
	check_writer_image(id, SQFS_WRITER_NO_XATTRS, &t);
	check_writer_image(id,
			   SQFS_WRITER_EXPORTABLE | SQFS_WRITER_NO_XATTRS |
			       SQFS_WRITER_NO_FRAGMENTS,
			   &t);
	check_writer_image(id, SQFS_WRITER_NO_TAIL_PACKING, &t);
	check_writer_image(id, SQFS_WRITER_EXPORTABLE, &small_tree);
}

static void test_writer_big(void **state)
{
	const sqfs_super_t *super;
	xattr_id_entry_t xid;
	sqfs_file_t *file;
	sqfs_image_t *img;

	(void)state;
	img = ru_open(big_img, big_size, &file);
	super = sqfs_image_super(img);

	/* every lookup table spans more than one block */
	assert_true(super->id_count > 2048);
	assert_true(super->fragment_entry_count > 512);
	assert_true(super->inode_count > 1024);
	assert_int_equal(image_xattr_id(img, 512, &xid), 0);

	ru_check_tree(img, &big_tree, true);
	ru_close(img, file);
}

/* The same image through a file on disk rather than memory. */
static void test_file_backed(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	sqfs_image_t *img = NULL;
	sqfs_file_t *file;
	FILE *fp;

	(void)state;
	ru_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/img.sqfs", dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(small_img, 1, small_size, fp), small_size);
	assert_int_equal(fclose(fp), 0);

	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	ru_check_tree(img, &small_tree, false);
	ru_close(img, file);
	ru_rmrf(dir);
}

static const char *tool_comp_name(sqfs_compressor_id_t id)
{
	return sqfs_compressor_name(id);
}

/* Pack dir with a tool command (the image path is appended last by the
 * format), check the result against t. */
static void check_tool_image(const char *image, const ru_tree_t *t, bool xattrs,
			     sqfs_compressor_id_t id)
{
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint8_t *data;
	size_t size;

	data = ru_load(image, &size);
	img = ru_open(data, size, &file);
	assert_int_equal(sqfs_image_super(img)->compression_id, id);
	ru_check_tree(img, t, xattrs);
	ru_close(img, file);
	assert_int_equal(ru_probe(data, size), 0);
	free(data);
}

static void test_mksquashfs(void **state)
{
	static const char *const variants[] = {
	    "",
	    "-no-exports -no-fragments -no-xattrs",
	    "-noI -noD -noF -noX",
	    "-no-exports -always-use-fragments",
	    "-no-duplicates",
	};
	ru_tree_t t = {
	    .files = SMALL_FILES, .xattrs = true, .privileged = true};
	char dir[PATH_MAX], src[PATH_MAX + 8], image[PATH_MAX + 16];
	bool xattrs;
	size_t i, v;

	(void)state;
	if (!ru_have(RU_MKSQUASHFS))
		skip();
	ru_tmpdir(dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(image, sizeof(image), "%s/img.sqfs", dir);
	assert_int_equal(mkdir(src, 0755), 0);
	xattrs = ru_build_dir(&t, src);
	if (!xattrs) {
		ru_rmrf(dir);
		skip();
	}

	for (i = 0; i < test_compressor_id_count; ++i) {
		if (!sqfs_compressor_is_available(test_compressor_ids[i]))
			continue;
		for (v = 0; v < sizeof(variants) / sizeof(variants[0]); ++v) {
			/* one compressor is enough for the table variants */
			if (v > 0 && i > 0)
				break;
			assert_int_equal(
			    ru_run("%s %s %s -comp %s -b 4096 -noappend "
				   "-quiet -no-progress -mkfs-time 1700000000 "
				   "-processors 1 %s >/dev/null 2>&1",
				   RU_MKSQUASHFS, src, image,
				   tool_comp_name(test_compressor_ids[i]),
				   variants[v]),
			    0);
			check_tool_image(image, &t,
					 strstr(variants[v], "-no-xattrs") ==
					     NULL,
					 test_compressor_ids[i]);
		}
	}

	/* settings other than the defaults: an options block */
	if (sqfs_compressor_is_available(SQFS_COMP_GZIP)) {
		assert_int_equal(
		    ru_run("%s %s %s -comp gzip -Xcompression-level 5 -b 4096 "
			   "-noappend -quiet -no-progress >/dev/null 2>&1",
			   RU_MKSQUASHFS, src, image),
		    0);
		check_tool_image(image, &t, true, SQFS_COMP_GZIP);
	}
	ru_rmrf(dir);
}

static void test_gensquashfs(void **state)
{
	static const char *const variants[] = {"-e -x", "", "-x -T"};
	ru_tree_t t = {.files = SMALL_FILES,
		       .xattrs = true,
		       .privileged = true,
		       .no_hard_link = true};
	char dir[PATH_MAX], src[PATH_MAX + 8], image[PATH_MAX + 16];
	size_t i, v;

	(void)state;
	if (!ru_have(RU_GENSQUASHFS))
		skip();
	ru_tmpdir(dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(image, sizeof(image), "%s/img.sqfs", dir);
	assert_int_equal(mkdir(src, 0755), 0);
	if (!ru_build_dir(&t, src)) {
		ru_rmrf(dir);
		skip();
	}

	for (i = 0; i < test_compressor_id_count; ++i) {
		/* gensquashfs writes no lzma */
		if (!sqfs_compressor_is_available(test_compressor_ids[i]) ||
		    test_compressor_ids[i] == SQFS_COMP_LZMA)
			continue;
		for (v = 0; v < sizeof(variants) / sizeof(variants[0]); ++v) {
			if (v > 0 && i > 0)
				break;
			assert_int_equal(
			    ru_run("%s -D %s -k -c %s -b 4096 -q -f -j 1 %s "
				   "%s >/dev/null 2>&1",
				   RU_GENSQUASHFS, src,
				   tool_comp_name(test_compressor_ids[i]),
				   variants[v], image),
			    0);
			check_tool_image(image, &t,
					 strstr(variants[v], "-x") != NULL,
					 test_compressor_ids[i]);
		}
	}
	ru_rmrf(dir);
}

static void check_empty(const uint8_t *data, size_t size)
{
	sqfs_meta_reader_t *mr;
	sqfs_inode_t *root;
	sqfs_file_t *file;
	sqfs_image_t *img;

	img = ru_open(data, size, &file);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(root->type, SQFS_INODE_DIR);
	assert_int_equal(root->data.dir.size, 3);
	free(root);
	assert_true(image_dir_table_end(img) >=
		    sqfs_image_super(img)->directory_table_start);
	assert_int_equal(image_open_dir_table(img, &mr), 0);
	sqfs_meta_reader_destroy(mr);
	ru_close(img, file);
	assert_int_equal(ru_probe(data, size), 0);
}

/* An empty root: the directory table may be 0 bytes. */
static void test_empty_root(void **state)
{
	const ru_tree_t t = {.files = 0, .xattrs = false, .privileged = false};
	char dir[PATH_MAX], src[PATH_MAX + 8], image[PATH_MAX + 16];
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	const uint8_t *mem;
	uint8_t *data;
	size_t size;

	(void)state;
	(void)t;
	sqfs_writer_options_init(&opt);
	assert_int_equal(sqfs_compressor_config_init(&opt.compressor,
						     fast_compressor(),
						     opt.block_size, 0),
			 0);
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	mem = sqfs_file_memory_data(file, &size);
	check_empty(mem, size);
	sqfs_file_destroy(file);

	ru_tmpdir(dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(image, sizeof(image), "%s/img.sqfs", dir);
	assert_int_equal(mkdir(src, 0755), 0);
	if (ru_have(RU_MKSQUASHFS)) {
		assert_int_equal(
		    ru_run("%s %s %s -noappend -quiet -no-progress "
			   ">/dev/null 2>&1",
			   RU_MKSQUASHFS, src, image),
		    0);
		data = ru_load(image, &size);
		check_empty(data, size);
		free(data);
	}
	if (ru_have(RU_GENSQUASHFS)) {
		assert_int_equal(ru_run("%s -D %s -q -f %s >/dev/null 2>&1",
					RU_GENSQUASHFS, src, image),
				 0);
		data = ru_load(image, &size);
		check_empty(data, size);
		free(data);
	}
	ru_rmrf(dir);
}

/* Tables emitted again, uncompressed: the kernel's tolerances. */
static void test_rebuilt_tables(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img;
	ru_tables_t t;
	uint8_t *data;
	size_t size;

	(void)state;
	ru_tables_extract(big_img, big_size, &t);

	/* unchanged: still the same image */
	data = ru_tables_emit(&t, &size);
	img = ru_open(data, size, &file);
	ru_check_tree(img, &big_tree, true);
	ru_close(img, file);
	free(data);

	/* slack after the fragment index is accepted, as Linux does */
	t.gap_frag = 8;
	data = ru_tables_emit(&t, &size);
	img = ru_open(data, size, &file);
	ru_check_tree(img, &big_tree, true);
	ru_close(img, file);
	free(data);
	t.gap_frag = 0;

	/* ... but after no other index */
	t.gap_exp = 8;
	data = ru_tables_emit(&t, &size);
	assert_int_equal(ru_probe(data, size), SQFS_ERROR_CORRUPTED);
	free(data);
	t.gap_exp = 0;

	t.gap_id = 8;
	data = ru_tables_emit(&t, &size);
	assert_int_equal(ru_probe(data, size), SQFS_ERROR_CORRUPTED);
	free(data);
	t.gap_id = 0;

	ru_tables_free(&t);
}

static void test_inode_mode(void **state)
{
	static const struct {
		uint16_t type;
		uint32_t fmt;
	} map[] = {
	    {SQFS_INODE_DIR, S_IFDIR},	    {SQFS_INODE_FILE, S_IFREG},
	    {SQFS_INODE_SLINK, S_IFLNK},    {SQFS_INODE_BDEV, S_IFBLK},
	    {SQFS_INODE_CDEV, S_IFCHR},	    {SQFS_INODE_FIFO, S_IFIFO},
	    {SQFS_INODE_SOCKET, S_IFSOCK},  {SQFS_INODE_EXT_DIR, S_IFDIR},
	    {SQFS_INODE_EXT_FILE, S_IFREG}, {SQFS_INODE_EXT_SLINK, S_IFLNK},
	    {SQFS_INODE_EXT_BDEV, S_IFBLK}, {SQFS_INODE_EXT_CDEV, S_IFCHR},
	    {SQFS_INODE_EXT_FIFO, S_IFIFO}, {SQFS_INODE_EXT_SOCKET, S_IFSOCK},
	};
	sqfs_inode_t *inode = sqfs_inode_alloc(0);
	size_t i;

	(void)state;
	assert_non_null(inode);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
		inode->type = map[i].type;
		inode->mode = 04751;
		assert_int_equal(sqfs_inode_mode(inode), map[i].fmt | 04751);
	}
	inode->type = 0;
	assert_int_equal(sqfs_inode_mode(inode) & S_IFMT, 0);
	free(inode);
}

static void test_args(void **state)
{
	sqfs_image_t *img = (sqfs_image_t *)(uintptr_t)1;
	sqfs_file_t *file;
	sqfs_inode_t *inode;
	uint64_t ref;
	uint32_t id;

	(void)state;
	assert_int_equal(sqfs_image_open(NULL, &img, NULL),
			 SQFS_ERROR_ARG_INVALID);
	sqfs_image_destroy(NULL);

	img = ru_open(small_img, small_size, &file);
	assert_int_equal(sqfs_image_open(file, NULL, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_read_inode(img, 0, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_read_root(img, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_get_id(img, 0, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_inode_ref(img, 1, NULL),
			 SQFS_ERROR_ARG_INVALID);

	/* refs outside the inode table or past a block */
	assert_int_equal(sqfs_image_read_inode(img, 8192, &inode),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_image_read_inode(img, 0xFFFF, &inode),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	ref = (sqfs_image_super(img)->directory_table_start -
	       sqfs_image_super(img)->inode_table_start)
	      << 16;
	assert_int_equal(sqfs_image_read_inode(img, ref, &inode),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_image_read_inode(img, UINT64_MAX, &inode),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_image_read_inode(img, UINT64_C(1) << 48, &inode),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	/* inside the table, but not on a block header */
	assert_true(sqfs_image_read_inode(img, UINT64_C(1) << 16, &inode) < 0);

	assert_int_equal(sqfs_image_get_id(img, 0xFFFF, &id),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_image_inode_ref(img, 0xFFFFFFFF, &ref),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	ru_close(img, file);
}

/* ---- hostile images ------------------------------------------------------ */

/* Patch a copy of base with one u64, u32 or u16 and expect an error. */
static void expect_fail64(const uint8_t *base, size_t size, uint64_t off,
			  uint64_t value)
{
	uint8_t *data = ru_dup(base, size);
	int ret;

	ru_put64(data, off, value);
	ret = ru_probe(data, size);
	if (ret >= 0) {
		fail_msg("u64 at %llu = 0x%llx accepted",
			 (unsigned long long)off, (unsigned long long)value);
	}
	free(data);
}

static void expect_fail32(const uint8_t *base, size_t size, uint64_t off,
			  uint32_t value)
{
	uint8_t *data = ru_dup(base, size);

	ru_put32(data, off, value);
	if (ru_probe(data, size) >= 0) {
		fail_msg("u32 at %llu = 0x%x accepted", (unsigned long long)off,
			 value);
	}
	free(data);
}

static void expect_fail16(const uint8_t *base, size_t size, uint64_t off,
			  uint16_t value)
{
	uint8_t *data = ru_dup(base, size);

	ru_put16(data, off, value);
	if (ru_probe(data, size) >= 0) {
		fail_msg("u16 at %llu = 0x%x accepted", (unsigned long long)off,
			 value);
	}
	free(data);
}

static void move_tables(const uint8_t *base, size_t size)
{
	static const uint64_t fields[] = {
	    RU_SB_INODE_START,	RU_SB_DIR_START, RU_SB_FRAG_START,
	    RU_SB_EXPORT_START, RU_SB_ID_START,	 RU_SB_XATTR_START,
	};
	static const int64_t deltas[] = {1, -1, 8, -8, 2, -2, 16, -16};
	uint64_t used = ru_get64(base, RU_SB_BYTES_USED), v;
	size_t f, d;

	assert_int_equal(ru_probe(base, size), 0);

	for (f = 0; f < sizeof(fields) / sizeof(fields[0]); ++f) {
		v = ru_get64(base, fields[f]);
		if (v == SQFS_TABLE_ABSENT)
			continue;
		for (d = 0; d < sizeof(deltas) / sizeof(deltas[0]); ++d)
			expect_fail64(base, size, fields[f], v + deltas[d]);
		expect_fail64(base, size, fields[f], 0);
		expect_fail64(base, size, fields[f], used);
		expect_fail64(base, size, fields[f], UINT64_MAX - 7);
		expect_fail64(base, size, fields[f], UINT64_MAX - 15);
	}

	/* a gap after the last index, or a table cut short */
	expect_fail64(base, size, RU_SB_BYTES_USED, used + 8);
	expect_fail64(base, size, RU_SB_BYTES_USED, used - 8);
	expect_fail64(base, size, RU_SB_BYTES_USED, used + 1);
	expect_fail64(base, size, RU_SB_BYTES_USED, used - 1);
	expect_fail64(base, size, RU_SB_BYTES_USED, size + 4096);
	expect_fail64(base, size, RU_SB_BYTES_USED, UINT64_MAX);

	/* without the xattr table, the id index no longer ends the image */
	if (ru_get64(base, RU_SB_XATTR_START) != SQFS_TABLE_ABSENT)
		expect_fail64(base, size, RU_SB_XATTR_START, SQFS_TABLE_ABSENT);

	/* a dropped export table just leaves slack after the fragment
	 * index, which Linux accepts too */
	if (ru_get64(base, RU_SB_EXPORT_START) != SQFS_TABLE_ABSENT &&
	    ru_get32(base, RU_SB_FRAG_COUNT) > 0) {
		uint8_t *data = ru_dup(base, size);

		ru_put64(data, RU_SB_EXPORT_START, SQFS_TABLE_ABSENT);
		assert_int_equal(ru_probe(data, size), 0);
		free(data);
	}
}

/* The words sqfs_image_open gives for a patched copy of base. */
static int open_words(const uint8_t *base, size_t size, uint64_t off,
		      uint64_t value, int width, char *why)
{
	uint8_t *data = ru_dup(base, size);
	sqfs_image_t *img = NULL;
	sqfs_file_t *file;
	int ret;

	if (width == 64)
		ru_put64(data, off, value);
	else if (width == 32)
		ru_put32(data, off, (uint32_t)value);
	else
		ru_put16(data, off, (uint16_t)value);
	assert_int_equal(
	    sqfs_file_open_memory(&file, data, size, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	memset(why, 'x', SQFS_ERROR_TEXT_SIZE);
	ret = sqfs_image_open(file, &img, why);
	if (ret == 0)
		assert_string_equal(why, "");
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	free(data);
	return ret;
}

/* What sqfs_image_open alone says about a patched copy of base. */
static int open_result(const uint8_t *base, size_t size, uint64_t off,
		       uint64_t value, int width)
{
	char why[SQFS_ERROR_TEXT_SIZE];

	return open_words(base, size, off, value, width, why);
}

#define assert_prefix(s, p) assert_memory_equal((s), (p), strlen(p))

/* A refused image says which part of it is at fault. */
static void test_open_words(void **state)
{
	const uint8_t *b = big_img;
	size_t n = big_size;
	char why[SQFS_ERROR_TEXT_SIZE], want[SQFS_ERROR_TEXT_SIZE];
	uint64_t xattr = ru_get64(b, RU_SB_XATTR_START);

	(void)state;
	assert_int_equal(open_words(b, n, 0, 0x12345678, 32, why),
			 SQFS_ERROR_SUPER_MAGIC);
	assert_string_equal(why, "not a SquashFS image (bad magic)");

	assert_int_equal(open_words(b, n, RU_SB_BYTES_USED, n + 4096, 64, why),
			 SQFS_ERROR_TRUNCATED);
	snprintf(want, sizeof(want),
		 "the image is cut short: it says %zu bytes, the file has %zu",
		 n + 4096, n);
	assert_string_equal(why, want);
	assert_int_equal(open_words(b, n, 28, 5, 16, why),
			 SQFS_ERROR_SUPER_VERSION);
	assert_string_equal(why, "SquashFS version 5.0, not 4.0");

	assert_true(open_words(b, n, RU_SB_ID_START,
			       ru_get64(b, RU_SB_ID_START) + 8, 64, why) < 0);
	assert_prefix(why, "id table");

	assert_true(
	    open_words(b, n, ru_get64(b, RU_SB_FRAG_START), 0, 64, why) < 0);
	assert_prefix(why, "fragment table: ");

	assert_true(
	    open_words(b, n, ru_get64(b, RU_SB_EXPORT_START), 0, 64, why) < 0);
	assert_prefix(why, "export table: ");

	assert_true(open_words(b, n, xattr + 16, 0, 64, why) < 0);
	assert_prefix(why, "xattr id table: ");

	assert_int_equal(open_words(b, n, 0, SQFS_MAGIC, 32, why), 0);
}

/*
 * The export table is decoded a block at a time, when a lookup needs it
 * (8 bytes per inode are not worth loading for readers that never ask by
 * number): a broken middle block does not keep the image from opening,
 * fails the lookups it holds, and leaves the other blocks' working.
 */
static void test_export_on_demand(void **state)
{
	uint32_t inodes = ru_get32(big_img, RU_SB_INODE_COUNT);
	uint64_t index = ru_get64(big_img, RU_SB_EXPORT_START);
	uint64_t second = ru_get64(big_img, index + 8);
	uint8_t *data = ru_dup(big_img, big_size);
	sqfs_inode_t *inode;
	sqfs_image_t *img;
	sqfs_file_t *file;
	uint64_t ref;

	(void)state;
	assert_true(inodes > 2048);
	/* stored raw or not: the block no longer unpacks */
	ru_put16(data, second, (uint16_t)(ru_get16(data, second) ^ 0x8000));
	assert_int_equal(sqfs_file_open_memory(&file, data, big_size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	assert_int_equal(sqfs_image_inode_ref(img, 1, &ref), 0);
	assert_int_equal(sqfs_image_read_inode(img, ref, &inode), 0);
	assert_int_equal(inode->inode_number, 1);
	free(inode);
	assert_true(sqfs_image_inode_ref(img, 1025, &ref) < 0);
	assert_non_null(strstr(sqfs_image_error(img), "export table"));
	assert_true(sqfs_image_inode_ref(img, 2048, &ref) < 0);
	assert_int_equal(sqfs_image_inode_ref(img, 1024, &ref), 0);
	assert_int_equal(sqfs_image_inode_ref(img, inodes, &ref), 0);
	assert_int_equal(sqfs_image_read_inode(img, ref, &inode), 0);
	assert_int_equal(inode->inode_number, inodes);
	free(inode);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	free(data);
}

static void test_hostile_table_starts(void **state)
{
	(void)state;
	move_tables(big_img, big_size);
	move_tables(small_img, small_size);
}

static void test_hostile_counts(void **state)
{
	const uint8_t *b = big_img;
	size_t n = big_size;
	uint32_t inodes = ru_get32(b, RU_SB_INODE_COUNT);
	uint32_t frags = ru_get32(b, RU_SB_FRAG_COUNT);
	uint16_t ids = ru_get16(b, RU_SB_ID_COUNT);

	(void)state;
	expect_fail16(b, n, RU_SB_ID_COUNT, 0xFFFF);
	expect_fail16(b, n, RU_SB_ID_COUNT, 0);
	expect_fail16(b, n, RU_SB_ID_COUNT, (uint16_t)(ids + 2048));
	expect_fail32(b, n, RU_SB_FRAG_COUNT, 0xFFFFFFFF);
	expect_fail32(b, n, RU_SB_FRAG_COUNT, frags + 512);
	expect_fail32(b, n, RU_SB_FRAG_COUNT, 0x10000000);
	expect_fail32(b, n, RU_SB_INODE_COUNT, 0xFFFFFFFF);
	expect_fail32(b, n, RU_SB_INODE_COUNT, 0);
	expect_fail32(b, n, RU_SB_INODE_COUNT, inodes + 1024);
	expect_fail32(b, n, RU_SB_INODE_COUNT, 0x80000000);

	/* the last block short or long by one entry: the index has the
	 * same length, but the block does not unpack to the size */
	expect_fail16(b, n, RU_SB_ID_COUNT, (uint16_t)(ids + 1));
	expect_fail16(b, n, RU_SB_ID_COUNT, (uint16_t)(ids - 1));
	expect_fail32(b, n, RU_SB_FRAG_COUNT, frags + 1);
	expect_fail32(b, n, RU_SB_FRAG_COUNT, frags - 1);
	expect_fail32(b, n, RU_SB_INODE_COUNT, inodes + 1);

	/* fewer fragments than one block holds: none at all */
	expect_fail32(small_img, small_size, RU_SB_FRAG_COUNT, 0);
}

/* Break the index of the table whose index starts at pos (count u64s). */
static void break_index(const uint8_t *b, size_t n, uint64_t pos, size_t count)
{
	uint64_t first = ru_get64(b, pos);
	uint64_t last = ru_get64(b, pos + (count - 1) * 8);

	expect_fail64(b, n, pos, 0);
	expect_fail64(b, n, pos, first - 1);
	expect_fail64(b, n, pos, first + 1);
	expect_fail64(b, n, pos, pos);
	expect_fail64(b, n, pos, ru_get64(b, RU_SB_BYTES_USED));
	expect_fail64(b, n, pos, UINT64_MAX);
	expect_fail64(b, n, pos + (count - 1) * 8, pos);
	expect_fail64(b, n, pos + (count - 1) * 8, last + 1);
	expect_fail64(b, n, pos + (count - 1) * 8, UINT64_MAX - 1);

	if (count < 2)
		return;
	/* equal, decreasing, and too far apart */
	expect_fail64(b, n, pos + 8, first);
	expect_fail64(b, n, pos + 8, first - 1);
	expect_fail64(b, n, pos + 8, first + 9000);
	{
		uint8_t *data = ru_dup(b, n);

		ru_put64(data, pos, ru_get64(b, pos + 8));
		ru_put64(data, pos + 8, first);
		assert_true(ru_probe(data, n) < 0);
		free(data);
	}
}

static void test_hostile_indexes(void **state)
{
	const uint8_t *b = big_img;
	size_t n = big_size;
	uint64_t xattr = ru_get64(b, RU_SB_XATTR_START);
	uint32_t frags = ru_get32(b, RU_SB_FRAG_COUNT);
	uint32_t inodes = ru_get32(b, RU_SB_INODE_COUNT);
	uint16_t ids = ru_get16(b, RU_SB_ID_COUNT);
	uint32_t xcount = ru_get32(b, xattr + 8);

	(void)state;
	break_index(b, n, ru_get64(b, RU_SB_ID_START), (ids * 4 + 8191) / 8192);
	break_index(b, n, ru_get64(b, RU_SB_FRAG_START),
		    (frags * 16 + 8191) / 8192);
	break_index(b, n, ru_get64(b, RU_SB_EXPORT_START),
		    (inodes * 8 + 8191) / 8192);
	break_index(b, n, xattr + 16, (xcount * 16 + 8191) / 8192);
}

static void test_hostile_xattr_header(void **state)
{
	const uint8_t *b = big_img;
	size_t n = big_size;
	uint64_t xattr = ru_get64(b, RU_SB_XATTR_START);
	uint64_t kv = ru_get64(b, xattr);
	uint64_t first = ru_get64(b, xattr + 16);
	uint32_t count = ru_get32(b, xattr + 8);

	(void)state;
	expect_fail32(b, n, xattr + 8, 0);
	expect_fail32(b, n, xattr + 8, 0xFFFFFFFF);
	expect_fail32(b, n, xattr + 8, count + 1);
	expect_fail32(b, n, xattr + 8, count - 1);
	/* same index length, but the last block unpacks to more or less
	 * than the count needs */
	assert_true(count % 512 > 1 && count % 512 < 511);
	/* (the table decoder every lookup table shares: a block that would
	 * unpack past its share overflows the exact output cap, one that
	 * unpacks short is damage) */
	assert_int_equal(open_result(b, n, xattr + 8, count - 1, 32),
			 SQFS_ERROR_OVERFLOW);
	assert_int_equal(open_result(b, n, xattr + 8, count + 1, 32),
			 SQFS_ERROR_CORRUPTED);
	expect_fail32(b, n, xattr + 8, count + 512);
	expect_fail64(b, n, xattr, first);
	expect_fail64(b, n, xattr, first + 1);
	expect_fail64(b, n, xattr, kv + 1);
	expect_fail64(b, n, xattr, kv - 1);
	expect_fail64(b, n, xattr, 0);
	expect_fail64(b, n, xattr, UINT64_MAX);
}

/* md-block headers of length 0 and 8193 at the first block of a table. */
static void break_block(const uint8_t *b, size_t n, uint64_t pos)
{
	expect_fail16(b, n, pos, 0x0000);
	expect_fail16(b, n, pos, 0x8000);
	expect_fail16(b, n, pos, 0x2001);
	expect_fail16(b, n, pos, 0xA001);
	expect_fail16(b, n, pos, 0xFFFF);
	expect_fail16(b, n, pos, (uint16_t)(ru_get16(b, pos) ^ 0x8000));
	expect_fail16(b, n, pos, (uint16_t)(ru_get16(b, pos) + 1));
	expect_fail16(b, n, pos, (uint16_t)(ru_get16(b, pos) - 1));
}

static void test_hostile_blocks(void **state)
{
	const uint8_t *b = big_img;
	size_t n = big_size;
	uint64_t xattr = ru_get64(b, RU_SB_XATTR_START);

	(void)state;
	break_block(b, n, ru_get64(b, ru_get64(b, RU_SB_ID_START)));
	break_block(b, n, ru_get64(b, ru_get64(b, RU_SB_FRAG_START)));
	break_block(b, n, ru_get64(b, ru_get64(b, RU_SB_EXPORT_START)));
	break_block(b, n, ru_get64(b, xattr + 16));
	break_block(b, n, ru_get64(b, xattr));
	break_block(b, n, ru_get64(b, RU_SB_INODE_START));

	/* the directory table's content is for the directory reader to
	 * judge; its block headers are checked here */
	expect_fail16(b, n, ru_get64(b, RU_SB_DIR_START), 0x0000);
	expect_fail16(b, n, ru_get64(b, RU_SB_DIR_START), 0x8000);
	expect_fail16(b, n, ru_get64(b, RU_SB_DIR_START), 0x2001);
	expect_fail16(b, n, ru_get64(b, RU_SB_DIR_START), 0xA001);
	expect_fail16(b, n, ru_get64(b, RU_SB_DIR_START), 0xFFFF);
}

static void test_hostile_root(void **state)
{
	const uint8_t *b = small_img;
	size_t n = small_size;
	uint64_t root = ru_get64(b, RU_SB_ROOT);
	uint64_t itable =
	    ru_get64(b, RU_SB_DIR_START) - ru_get64(b, RU_SB_INODE_START);

	(void)state;
	expect_fail64(b, n, RU_SB_ROOT, (root & ~UINT64_C(0xFFFF)) | 8192);
	expect_fail64(b, n, RU_SB_ROOT, (root & ~UINT64_C(0xFFFF)) | 0xFFFF);
	expect_fail64(b, n, RU_SB_ROOT, itable << 16);
	expect_fail64(b, n, RU_SB_ROOT, (itable + 1000) << 16);
	expect_fail64(b, n, RU_SB_ROOT, UINT64_MAX);
	expect_fail64(b, n, RU_SB_ROOT, root | (UINT64_C(1) << 48));
	expect_fail64(b, n, RU_SB_ROOT, root + 1);
	expect_fail64(b, n, RU_SB_ROOT, root + (UINT64_C(1) << 16));

	/* a root that is not a directory */
	{
		sqfs_inode_t *inode, *root_inode;
		sqfs_file_t *file;
		sqfs_image_t *img;
		uint64_t ref = 0;
		uint8_t *data;
		uint32_t i;

		img = ru_open(b, n, &file);
		for (i = 1;; ++i) {
			assert_int_equal(sqfs_image_inode_ref(img, i, &ref), 0);
			assert_int_equal(
			    sqfs_image_read_inode(img, ref, &inode), 0);
			if (inode->type == SQFS_INODE_FILE)
				break;
			free(inode);
		}
		free(inode);
		ru_close(img, file);

		data = ru_dup(b, n);
		ru_put64(data, RU_SB_ROOT, ref);
		img = ru_open(data, n, &file);
		assert_int_equal(sqfs_image_read_root(img, &root_inode),
				 SQFS_ERROR_CORRUPTED);
		ru_close(img, file);
		free(data);
	}
}

/* The fragment table made again with one entry changed. */
static void expect_bad_fragment(ru_tables_t *t, size_t index, uint64_t start,
				uint32_t size)
{
	uint64_t old_start = ru_get64(t->frag, index * 16);
	uint32_t old_size = ru_get32(t->frag, index * 16 + 8);
	uint8_t *data;
	size_t n;

	ru_put64(t->frag, index * 16, start);
	ru_put32(t->frag, index * 16 + 8, size);
	data = ru_tables_emit(t, &n);
	if (ru_probe(data, n) != SQFS_ERROR_CORRUPTED) {
		fail_msg("fragment %zu {0x%llx, 0x%x} accepted", index,
			 (unsigned long long)start, size);
	}
	free(data);
	ru_put64(t->frag, index * 16, old_start);
	ru_put32(t->frag, index * 16 + 8, old_size);
}

static void test_hostile_fragments(void **state)
{
	uint64_t data_start, data_end, start;
	sqfs_file_t *file;
	sqfs_image_t *img;
	ru_tables_t t;
	uint32_t size, len;
	size_t last;

	(void)state;
	img = ru_open(small_img, small_size, &file);
	image_data_region(img, &data_start, &data_end);
	ru_close(img, file);
	/* gzip level 1: an options block of 2 + 8 bytes */
	assert_int_equal(data_start, 96 + 10);

	ru_tables_extract(small_img, small_size, &t);
	last = t.frag_size / 16 - 1;
	start = ru_get64(t.frag, last * 16);
	size = ru_get32(t.frag, last * 16 + 8);
	len = size & 0xFFFFFF;

	expect_bad_fragment(&t, last, start, size | 0x02000000);
	expect_bad_fragment(&t, last, start, size | 0x80000000);
	expect_bad_fragment(&t, last, start, 0x01000000);
	expect_bad_fragment(&t, last, start, 0);
	expect_bad_fragment(&t, last, start, 4097);
	expect_bad_fragment(&t, last, start, 0x01000000 | 4097);
	expect_bad_fragment(&t, last, data_end - len + 1, size);
	expect_bad_fragment(&t, last, data_end, size);
	expect_bad_fragment(&t, last, UINT64_MAX - 10, size);
	expect_bad_fragment(&t, 0, data_start - 1, size);
	expect_bad_fragment(&t, 0, 96, size);
	expect_bad_fragment(&t, 0, 0, size);
	ru_tables_free(&t);
}

/* Every proper prefix of an image, and an image that is too short. */
static void test_truncated(void **state)
{
	static const size_t cuts[] = {0, 1, 95, 96, 97, 4096};
	uint64_t used = ru_get64(small_img, RU_SB_BYTES_USED);
	uint8_t *data;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); ++i)
		assert_true(ru_probe(small_img, cuts[i]) < 0);
	assert_true(ru_probe(small_img, (size_t)used - 1) < 0);
	assert_true(ru_probe(small_img, (size_t)used - 8) < 0);
	assert_int_equal(ru_probe(small_img, (size_t)used), 0);

	/* an unknown compressor */
	data = ru_dup(small_img, small_size);
	ru_put16(data, 20, 7);
	assert_int_equal(ru_probe(data, small_size), SQFS_ERROR_UNSUPPORTED);
	free(data);
}

/* The options block: compressed, of the wrong length, or missing. */
static void test_hostile_options(void **state)
{
	const ru_tree_t t = {.files = 2, .xattrs = false, .privileged = false};
	uint8_t *data;
	size_t size;

	(void)state;
	if (!sqfs_compressor_is_available(SQFS_COMP_GZIP))
		skip();
	assert_int_equal(ru_get16(small_img, 96), 0x8008);
	expect_fail16(small_img, small_size, 96, 0x0008);
	expect_fail16(small_img, small_size, 96, 0x8010);
	expect_fail16(small_img, small_size, 96, 0x8004);
	expect_fail16(small_img, small_size, 96, 0x8000);
	/* level 0 */
	expect_fail32(small_img, small_size, 98, 0);

	/* an options block reaching into the inode table */
	{
		const ru_tree_t empty = {.files = 0};
		uint8_t *img =
		    ru_build_writer(&empty, SQFS_COMP_GZIP, 0, &size);

		assert_int_equal(ru_get64(img, RU_SB_INODE_START), 96 + 10);
		assert_int_equal(
		    open_result(img, size, RU_SB_INODE_START, 96 + 9, 64),
		    SQFS_ERROR_CORRUPTED);
		free(img);
	}

	/* zstd at its default level has no options block: the flag makes
	 * the first data block one */
	if (!sqfs_compressor_is_available(SQFS_COMP_ZSTD))
		return;
	data = ru_build_writer(&t, SQFS_COMP_ZSTD, 0, &size);
	assert_int_equal(ru_get16(data, 24) & 0x0400, 0);
	assert_int_equal(ru_probe(data, size), 0);
	ru_put16(data, 24, (uint16_t)(ru_get16(data, 24) | 0x0400));
	assert_true(ru_probe(data, size) < 0);
	free(data);
}

/* Random damage in the tables: whatever the result, no crash, no leak,
 * no read outside the image (run under ASan). */
static void flip_bytes(const uint8_t *base, size_t size, uint32_t seed,
		       size_t rounds)
{
	uint64_t from = ru_get64(base, RU_SB_INODE_START);
	uint64_t used = ru_get64(base, RU_SB_BYTES_USED);
	uint32_t state = seed;
	size_t i, j, flips, accepted = 0;
	uint8_t *data;

	for (i = 0; i < rounds; ++i) {
		data = ru_dup(base, size);
		flips = 1 + test_rand(&state) % 4;
		for (j = 0; j < flips; ++j) {
			data[from + test_rand(&state) % (used - from)] ^=
			    (uint8_t)(1u << (test_rand(&state) % 8));
		}
		if (ru_probe(data, size) == 0)
			accepted++;
		free(data);
	}
	/* most damage is noticed */
	assert_true(accepted < rounds / 2);
}

static void test_random_damage(void **state)
{
	const ru_tree_t t = {.files = 12, .xattrs = true, .privileged = true};
	ru_tables_t tables;
	uint8_t *data, *raw;
	size_t size, raw_size;

	(void)state;
	data = ru_build_writer(&t, fast_compressor(), SQFS_WRITER_EXPORTABLE,
			       &size);
	flip_bytes(data, size, 1, 300);

	/* uncompressed tables: the flips hit the entries themselves */
	ru_tables_extract(data, size, &tables);
	raw = ru_tables_emit(&tables, &raw_size);
	flip_bytes(raw, raw_size, 2, 300);
	ru_tables_free(&tables);
	free(raw);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_compressors),
	    cmocka_unit_test(test_writer_variants),
	    cmocka_unit_test(test_writer_big),
	    cmocka_unit_test(test_file_backed),
	    cmocka_unit_test(test_mksquashfs),
	    cmocka_unit_test(test_gensquashfs),
	    cmocka_unit_test(test_empty_root),
	    cmocka_unit_test(test_rebuilt_tables),
	    cmocka_unit_test(test_inode_mode),
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_open_words),
	    cmocka_unit_test(test_export_on_demand),
	    cmocka_unit_test(test_hostile_table_starts),
	    cmocka_unit_test(test_hostile_counts),
	    cmocka_unit_test(test_hostile_indexes),
	    cmocka_unit_test(test_hostile_xattr_header),
	    cmocka_unit_test(test_hostile_blocks),
	    cmocka_unit_test(test_hostile_root),
	    cmocka_unit_test(test_hostile_fragments),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_hostile_options),
	    cmocka_unit_test(test_random_damage),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
