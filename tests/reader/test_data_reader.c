/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"

#include "sqfs/comp/internal.h"
#include "sqfs/data_reader.h"
#include "sqfs/file_stream.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/image_internal.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/writer.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MKSQUASHFS "/usr/bin/mksquashfs"
#define RAW_BIT 0x01000000u
#define LEN_MASK 0x00FFFFFFu

/* ---- the files every image holds ---------------------------------------- */

typedef enum {
	K_TEXT,
	K_RANDOM,
	K_ZEROS,
	/* text with every odd block a hole */
	K_HOLEY,
} kind_t;

typedef struct {
	const char *name;
	/* size = mult * block_size + add */
	int mult;
	int add;
	kind_t kind;
	uint32_t seed;
	/* left out of images with 1 MiB blocks, to keep the test quick */
	bool small_only;
} spec_t;

/* Sizes are distinct per block size, so a file is known by its size;
 * the duplicates have the same size and content as their originals. */
static const spec_t specs[] = {
    {"empty", 0, 0, K_TEXT, 1, false},
    {"one", 0, 1, K_TEXT, 2, false},
    {"bm1", 1, -1, K_TEXT, 3, false},
    {"b", 1, 0, K_TEXT, 4, false},
    {"bp1", 1, 1, K_RANDOM, 5, false},
    {"multi", 3, 123, K_TEXT, 6, true},
    {"rand", 2, 77, K_RANDOM, 7, true},
    {"zeros", 3, 5, K_ZEROS, 0, false},
    {"holey", 4, 999, K_HOLEY, 8, false},
    {"small1", 0, 100, K_TEXT, 9, false},
    {"small2", 0, 200, K_TEXT, 10, false},
    {"multi_dup", 3, 123, K_TEXT, 6, true},
    {"bm1_dup", 1, -1, K_TEXT, 3, false},
    {"small1_dup", 0, 100, K_TEXT, 9, false},
};
#define SPEC_COUNT (sizeof(specs) / sizeof(specs[0]))

static bool spec_used(const spec_t *s, uint32_t block_size)
{
	return !(s->small_only && block_size > 65536);
}

static uint64_t spec_size(const spec_t *s, uint32_t block_size)
{
	return (uint64_t)((int64_t)s->mult * block_size + s->add);
}

static uint8_t *spec_data(const spec_t *s, uint32_t block_size)
{
	size_t size = (size_t)spec_size(s, block_size), i;
	uint8_t *buf = malloc(size + 1);

	assert_non_null(buf);
	switch (s->kind) {
	case K_TEXT:
	case K_HOLEY:
		test_fill_data(buf, size, TEST_DATA_TEXT, s->seed);
		break;
	case K_RANDOM:
		test_fill_data(buf, size, TEST_DATA_RANDOM, s->seed);
		break;
	case K_ZEROS:
		memset(buf, 0, size);
		break;
	}
	if (s->kind == K_HOLEY) {
		for (i = block_size; i < size; i += 2 * (size_t)block_size)
			memset(buf + i, 0,
			       size - i < block_size ? size - i : block_size);
	}
	return buf;
}

static const spec_t *spec_by_size(uint64_t size, uint32_t block_size)
{
	size_t i;

	for (i = 0; i < SPEC_COUNT; ++i) {
		if (spec_used(&specs[i], block_size) &&
		    spec_size(&specs[i], block_size) == size)
			return &specs[i];
	}
	return NULL;
}

/* ---- counting decompressions --------------------------------------------- */

static const compressor_ops_t *real_ops;
static compressor_ops_t counting_ops;
static unsigned long uncompress_calls;

static ptrdiff_t counting_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
				     size_t size, uint8_t *out, size_t outsize)
{
	++uncompress_calls;
	return real_ops->uncompress(cmp, in, size, out, outsize);
}

static void count_uncompress(sqfs_image_t *img)
{
	sqfs_compressor_t *cmp = image_compressor(img);

	real_ops = cmp->ops;
	counting_ops = *real_ops;
	counting_ops.uncompress = counting_uncompress;
	cmp->ops = &counting_ops;
	uncompress_calls = 0;
}

static void stop_counting(sqfs_image_t *img)
{
	image_compressor(img)->ops = real_ops;
}

/* ---- checking one file --------------------------------------------------- */

typedef struct {
	size_t files;
	size_t with_fragment;
	size_t sparse_words;
	size_t raw_words;
	size_t packed_words;
	bool multi_in_fragment;
} image_stats_t;

static void check_read(sqfs_data_reader_t *dr, const sqfs_inode_t *inode,
		       const uint8_t *expect, uint64_t size, uint64_t off,
		       size_t len, uint8_t *buf)
{
	size_t want =
	    off >= size ? 0 : (size - off < len ? (size_t)(size - off) : len);
	ptrdiff_t ret;

	memset(buf, 0xA5, len + 16);
	ret = sqfs_data_reader_read(dr, inode, off, buf, len);
	assert_int_equal(ret, (ptrdiff_t)want);
	if (want > 0)
		assert_memory_equal(buf, expect + off, want);
	/* nothing past what was read is touched */
	assert_int_equal(buf[want], 0xA5);
}

static void check_blocks(sqfs_data_reader_t *dr, const sqfs_inode_t *inode,
			 const uint8_t *expect, uint64_t size,
			 uint32_t block_size)
{
	uint64_t count = sqfs_inode_block_count(inode, block_size);
	bool frag = inode->data.file.fragment_index != SQFS_NO_FRAGMENT;
	const uint32_t *words = sqfs_inode_block_sizes(inode);
	uint64_t pos = 0, i, pieces = count + (frag ? 1 : 0);
	sqfs_file_block_t blk;
	uint32_t flags;

	for (i = 0; i < pieces; ++i) {
		assert_int_equal(
		    sqfs_data_reader_get_block(dr, inode, (size_t)i, &blk), 0);
		if (i + 1 < pieces)
			assert_int_equal(blk.size, block_size);
		assert_true(blk.size > 0 && pos + blk.size <= size);
		assert_memory_equal(blk.data, expect + pos, blk.size);
		/* where it lies, and what it is: the reader says it */
		assert_int_equal(blk.offset, pos);
		assert_int_equal(blk.index, i);
		assert_null(blk.user);
		flags =
		    (i < count && words[i] == 0) ? SQFS_FILE_BLOCK_SPARSE : 0;
		if (i + 1 == pieces)
			flags |= SQFS_FILE_BLOCK_LAST;
		assert_int_equal(blk.flags, flags);
		pos += blk.size;
	}
	assert_true(pos == size);
	assert_int_equal(sqfs_data_reader_get_block(dr, inode, (size_t)i, &blk),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(
	    sqfs_data_reader_get_block(dr, inode, (size_t)i + 7, &blk),
	    SQFS_ERROR_OUT_OF_BOUNDS);
}

static void check_file(sqfs_data_reader_t *dr, const sqfs_inode_t *inode,
		       uint32_t block_size, uint32_t *rng)
{
	uint64_t size = inode->data.file.file_size, off, k;
	const spec_t *spec = spec_by_size(size, block_size);
	size_t bufsize = 3 * (size_t)block_size + 64, len, step;
	uint8_t *expect, *buf;
	int i;

	assert_non_null(spec);
	expect = spec_data(spec, block_size);
	if (size + 64 > bufsize)
		bufsize = (size_t)size + 64;
	buf = malloc(bufsize + 16);
	assert_non_null(buf);

	/* whole, and with a size far beyond the file */
	check_read(dr, inode, expect, size, 0, (size_t)size + 64, buf);
	memset(buf, 0, bufsize);
	assert_int_equal(sqfs_data_reader_read(dr, inode, 0, buf, SIZE_MAX),
			 (ptrdiff_t)size);
	assert_memory_equal(buf, expect, (size_t)size);

	/* at and past the end */
	check_read(dr, inode, expect, size, size, 10, buf);
	check_read(dr, inode, expect, size, size + 5000, 10, buf);
	assert_int_equal(sqfs_data_reader_read(dr, inode, UINT64_MAX, buf, 1),
			 0);
	check_read(dr, inode, expect, size, 0, 0, buf);

	/* across every block boundary */
	for (k = block_size; k < size + block_size; k += block_size)
		check_read(dr, inode, expect, size, k - 3, 7, buf);

	/* front to back in odd and even steps */
	for (step = 1000; step <= 4096; step += 3096) {
		for (off = 0; off < size; off += step)
			check_read(dr, inode, expect, size, off, step, buf);
	}

	/* fewer with big blocks: each read may unpack three of them */
	for (i = 0; i < (block_size > 65536 ? 6 : 24); ++i) {
		off = test_rand(rng) % (size + 16);
		len = test_rand(rng) % (3 * (size_t)block_size);
		check_read(dr, inode, expect, size, off, len, buf);
	}

	check_blocks(dr, inode, expect, size, block_size);
	free(buf);
	free(expect);
}

/* Read every file of the image (through the export table) and compare. */
static void check_image(sqfs_file_t *file, image_stats_t *st)
{
	const sqfs_super_t *super;
	sqfs_data_reader_t *dr;
	sqfs_inode_t *inode;
	sqfs_image_t *img;
	uint32_t n, rng = 12345;
	const uint32_t *words;
	size_t i, count;
	sqfs_file_block_t blk;
	uint8_t buf[16];
	uint64_t ref;

	memset(st, 0, sizeof(*st));
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	super = sqfs_image_super(img);
	assert_int_equal(sqfs_data_reader_create(img, &dr), 0);

	for (n = 1; n <= super->inode_count; ++n) {
		assert_int_equal(sqfs_image_inode_ref(img, n, &ref), 0);
		assert_int_equal(sqfs_image_read_inode(img, ref, &inode), 0);
		if (inode->type != SQFS_INODE_FILE &&
		    inode->type != SQFS_INODE_EXT_FILE) {
			assert_int_equal(
			    sqfs_data_reader_read(dr, inode, 0, buf, 16),
			    SQFS_ERROR_NOT_FILE);
			assert_int_equal(
			    sqfs_data_reader_get_block(dr, inode, 0, &blk),
			    SQFS_ERROR_NOT_FILE);
			free(inode);
			continue;
		}

		++st->files;
		if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT) {
			++st->with_fragment;
			if (inode->data.file.file_size >
			    2 * (uint64_t)super->block_size)
				st->multi_in_fragment = true;
		}
		words = (const uint32_t *)(const void *)inode->payload;
		count = inode->payload_size / 4;
		for (i = 0; i < count; ++i) {
			if (words[i] == 0)
				++st->sparse_words;
			else if (words[i] & RAW_BIT)
				++st->raw_words;
			else
				++st->packed_words;
		}

		check_file(dr, inode, super->block_size, &rng);
		free(inode);
	}

	sqfs_data_reader_destroy(dr);
	sqfs_image_destroy(img);
}

/* ---- images from our writer -----------------------------------------------
 */

static void writer_options(sqfs_writer_options_t *opt, uint32_t block_size,
			   int comp, uint32_t flags)
{
	sqfs_writer_options_init(opt);
	opt->block_size = block_size;
	opt->flags = flags | SQFS_WRITER_EXPORTABLE;
	if (comp == 0)
		comp = sqfs_compressor_default();
	assert_int_equal(
	    sqfs_compressor_config_init(&opt->compressor, comp, block_size, 0),
	    0);
	if (comp == SQFS_COMP_GZIP)
		opt->compressor.opt.gzip.level = 1;
}

static void add_spec_file(sqfs_writer_t *wr, const spec_t *s,
			  uint32_t block_size)
{
	uint64_t size = spec_size(s, block_size), off, n;
	uint8_t *data = spec_data(s, block_size);
	sqfs_entry_t ent;

	sqfs_entry_init(&ent, s->name, S_IFREG | 0644, 0, 0, 0);
	ent.size = size;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	for (off = 0; off < size; off += n) {
		n = size - off < 5000 ? size - off : 5000;
		if (s->kind == K_HOLEY && (off / block_size) % 2 == 1) {
			n = block_size - off % block_size;
			if (n > size - off)
				n = size - off;
			assert_int_equal(sqfs_writer_append_hole(wr, n), 0);
		} else {
			if (s->kind == K_HOLEY &&
			    n > block_size - off % block_size)
				n = block_size - off % block_size;
			assert_int_equal(
			    sqfs_writer_append(wr, data + off, (size_t)n), 0);
		}
	}
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	free(data);
}

/* An image of every file, or of just the one named only. */
static void write_image_of(sqfs_file_t *file, const sqfs_writer_options_t *opt,
			   const char *only)
{
	sqfs_writer_t *wr;
	size_t i;

	assert_int_equal(sqfs_writer_create(file, opt, &wr, NULL), 0);
	for (i = 0; i < SPEC_COUNT; ++i) {
		if (only != NULL && strcmp(specs[i].name, only) != 0)
			continue;
		if (spec_used(&specs[i], opt->block_size))
			add_spec_file(wr, &specs[i], opt->block_size);
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
}

static void write_image(sqfs_file_t *file, const sqfs_writer_options_t *opt)
{
	write_image_of(file, opt, NULL);
}

static size_t used_count(uint32_t block_size)
{
	size_t i, n = 0;

	for (i = 0; i < SPEC_COUNT; ++i)
		n += spec_used(&specs[i], block_size) ? 1 : 0;
	return n;
}

static void writer_case(uint32_t block_size, int comp, uint32_t flags,
			image_stats_t *st)
{
	sqfs_writer_options_t opt;
	sqfs_file_t *file = test_memory_file(NULL, 0);

	writer_options(&opt, block_size, comp, flags);
	write_image(file, &opt);
	check_image(file, st);
	sqfs_file_destroy(file);
	assert_int_equal(st->files, used_count(block_size));
}

static void test_writer_default(void **state)
{
	image_stats_t st;

	(void)state;
	writer_case(4096, 0, 0, &st);
	assert_true(st.with_fragment > 0);
	assert_true(st.sparse_words > 0);
	assert_true(st.raw_words > 0);
	assert_true(st.packed_words > 0);
	/* tails of larger files are packed too */
	assert_true(st.multi_in_fragment);
}

static void test_writer_variants(void **state)
{
	image_stats_t st;
	size_t i;

	(void)state;
	writer_case(4096, 0, SQFS_WRITER_NO_TAIL_PACKING, &st);
	assert_true(st.with_fragment > 0);
	assert_false(st.multi_in_fragment);

	writer_case(4096, 0, SQFS_WRITER_NO_FRAGMENTS, &st);
	assert_int_equal(st.with_fragment, 0);

	for (i = 0; i < test_compressor_id_count; ++i) {
		if (sqfs_compressor_is_available(test_compressor_ids[i]))
			writer_case(8192, test_compressor_ids[i], 0, &st);
	}

	writer_case(
	    SQFS_MAX_BLOCK_SIZE,
	    sqfs_compressor_is_available(SQFS_COMP_GZIP) ? SQFS_COMP_GZIP : 0,
	    0, &st);
}

static void test_writer_temp_file(void **state)
{
	char path[] = "/tmp/sqfs-dr-img-XXXXXX";
	sqfs_writer_options_t opt;
	sqfs_file_t *file;
	image_stats_t st;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);

	writer_options(&opt, 4096, 0, 0);
	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_OVERWRITE),
			 0);
	write_image(file, &opt);
	sqfs_file_destroy(file);

	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY),
			 0);
	check_image(file, &st);
	sqfs_file_destroy(file);
	unlink(path);
	assert_int_equal(st.files, used_count(4096));
}

/* ---- images from mksquashfs ------------------------------------------------
 */

static char src_dir[64];

static void make_source(uint32_t block_size)
{
	char path[128];
	uint8_t *data;
	size_t i;
	FILE *fp;

	strcpy(src_dir, "/tmp/sqfs-dr-src-XXXXXX");
	assert_non_null(mkdtemp(src_dir));
	for (i = 0; i < SPEC_COUNT; ++i) {
		if (!spec_used(&specs[i], block_size))
			continue;
		snprintf(path, sizeof(path), "%s/%s", src_dir, specs[i].name);
		data = spec_data(&specs[i], block_size);
		fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(
		    fwrite(data, 1, (size_t)spec_size(&specs[i], block_size),
			   fp),
		    (size_t)spec_size(&specs[i], block_size));
		assert_int_equal(fclose(fp), 0);
		free(data);
	}
}

static void remove_source(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < SPEC_COUNT; ++i) {
		snprintf(path, sizeof(path), "%s/%s", src_dir, specs[i].name);
		unlink(path);
	}
	rmdir(src_dir);
}

/* Run mksquashfs on src_dir; false if it refused (e.g. a compressor it
 * lacks). */
static bool run_mksquashfs(const char *img_path, const char *comp,
			   const char *block, const char *extra)
{
	char cmd[512];
	int ret;

	snprintf(cmd, sizeof(cmd),
		 MKSQUASHFS " %s %s -noappend -quiet -no-progress "
			    "-processors 1 -all-root -no-xattrs -comp %s "
			    "-b %s %s >/dev/null 2>&1",
		 src_dir, img_path, comp, block, extra);
	ret = system(cmd);
	if (ret == -1 || !WIFEXITED(ret) || WEXITSTATUS(ret) != 0) {
		unlink(img_path);
		return false;
	}
	return true;
}

static bool mksquashfs_case(const char *comp, const char *block,
			    const char *extra, image_stats_t *st)
{
	char img_path[128];
	sqfs_file_t *file;

	snprintf(img_path, sizeof(img_path), "%s.img", src_dir);
	if (!run_mksquashfs(img_path, comp, block, extra))
		return false;
	assert_int_equal(
	    sqfs_file_open(&file, img_path, SQFS_FILE_OPEN_READ_ONLY), 0);
	check_image(file, st);
	sqfs_file_destroy(file);
	unlink(img_path);
	return true;
}

static bool have_mksquashfs(void)
{
	if (access(MKSQUASHFS, X_OK) != 0) {
		print_message("mksquashfs missing: skipped\n");
		return false;
	}
	return true;
}

static void test_mksquashfs_4k(void **state)
{
	static const char *const comps[] = {"gzip", "lzo",  "lz4",
					    "xz",   "zstd", "lzma"};
	image_stats_t st;
	size_t i, done = 0;

	(void)state;
	if (!have_mksquashfs())
		skip();
	make_source(4096);

	for (i = 0; i < sizeof(comps) / sizeof(comps[0]); ++i) {
		if (sqfs_compressor_id_from_name(comps[i]) < 0 ||
		    !sqfs_compressor_is_available(
			sqfs_compressor_id_from_name(comps[i])))
			continue;
		if (!mksquashfs_case(comps[i], "4K", "", &st)) {
			print_message("mksquashfs lacks %s\n", comps[i]);
			continue;
		}
		++done;
		assert_int_equal(st.files, used_count(4096));
		assert_true(st.with_fragment > 0);
		assert_true(st.sparse_words > 0);
		assert_true(st.raw_words > 0);
		assert_false(st.multi_in_fragment);
	}
	assert_true(done > 0);

	if (sqfs_compressor_is_available(SQFS_COMP_GZIP)) {
		assert_true(
		    mksquashfs_case("gzip", "4K", "-no-fragments", &st));
		assert_int_equal(st.with_fragment, 0);

		assert_true(mksquashfs_case("gzip", "4K",
					    "-always-use-fragments", &st));
		assert_true(st.multi_in_fragment);

		/* data blocks raw, fragments compressed, then both raw */
		assert_true(mksquashfs_case("gzip", "4K", "-noD", &st));
		assert_int_equal(st.packed_words, 0);
		assert_true(st.raw_words > 0);
		assert_true(mksquashfs_case(
		    "gzip", "4K", "-noD -noF -always-use-fragments", &st));
		assert_int_equal(st.packed_words, 0);
		assert_true(st.multi_in_fragment);
	}
	remove_source();
}

static void test_mksquashfs_1m(void **state)
{
	image_stats_t st;
	const char *comp = "gzip";

	(void)state;
	if (!have_mksquashfs())
		skip();
	if (!sqfs_compressor_is_available(SQFS_COMP_GZIP))
		comp = sqfs_compressor_name(sqfs_compressor_default());
	make_source(SQFS_MAX_BLOCK_SIZE);
	assert_true(mksquashfs_case(comp, "1M", "-Xcompression-level 1", &st) ||
		    mksquashfs_case(comp, "1M", "", &st));
	assert_int_equal(st.files, used_count(SQFS_MAX_BLOCK_SIZE));
	assert_true(st.with_fragment > 0);
	assert_true(st.sparse_words > 0);
	remove_source();
}

/* ---- hostile inodes and images ------------------------------------------- */

typedef struct {
	sqfs_file_t *file;
	sqfs_image_t *img;
	sqfs_data_reader_t *dr;
	/* the inodes of the spec files, by name */
	sqfs_inode_t *multi, *rand, *small1, *bm1, *b;
	uint32_t block_size;
	uint64_t region_start, region_end;
} fixture_t;

static sqfs_inode_t *find_file(sqfs_image_t *img, uint64_t size)
{
	const sqfs_super_t *super = sqfs_image_super(img);
	sqfs_inode_t *inode;
	uint64_t ref;
	uint32_t n;

	for (n = 1; n <= super->inode_count; ++n) {
		assert_int_equal(sqfs_image_inode_ref(img, n, &ref), 0);
		assert_int_equal(sqfs_image_read_inode(img, ref, &inode), 0);
		if ((inode->type == SQFS_INODE_FILE ||
		     inode->type == SQFS_INODE_EXT_FILE) &&
		    inode->data.file.file_size == size)
			return inode;
		free(inode);
	}
	fail_msg("no file of %llu bytes", (unsigned long long)size);
	return NULL;
}

/* An image (4 KiB blocks; tails of big files as short last blocks) in
 * memory, to build hostile inodes from. */
static void open_fixture(fixture_t *fx, const uint8_t *data, size_t size)
{
	assert_int_equal(sqfs_file_open_memory(&fx->file, data, size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(fx->file, &fx->img, NULL), 0);
	assert_int_equal(sqfs_data_reader_create(fx->img, &fx->dr), 0);
	fx->block_size = sqfs_image_super(fx->img)->block_size;
	image_data_region(fx->img, &fx->region_start, &fx->region_end);
	fx->multi = find_file(fx->img, 3 * 4096 + 123);
	fx->rand = find_file(fx->img, 2 * 4096 + 77);
	fx->small1 = find_file(fx->img, 100);
	fx->bm1 = find_file(fx->img, 4095);
	fx->b = find_file(fx->img, 4096);
}

static void close_fixture(fixture_t *fx)
{
	free(fx->multi);
	free(fx->rand);
	free(fx->small1);
	free(fx->bm1);
	free(fx->b);
	sqfs_data_reader_destroy(fx->dr);
	sqfs_image_destroy(fx->img);
	sqfs_file_destroy(fx->file);
}

static uint8_t *fixture_image(size_t *size)
{
	sqfs_writer_options_t opt;
	sqfs_file_t *file = test_memory_file(NULL, 0);
	const uint8_t *data;
	uint8_t *copy;

	writer_options(
	    &opt, 4096,
	    sqfs_compressor_is_available(SQFS_COMP_GZIP) ? SQFS_COMP_GZIP : 0,
	    SQFS_WRITER_NO_TAIL_PACKING);
	write_image(file, &opt);
	data = test_memory_file_data(file, size);
	copy = malloc(*size);
	assert_non_null(copy);
	memcpy(copy, data, *size);
	sqfs_file_destroy(file);
	return copy;
}

/*
 * A copy of a file inode with words block size words. Each copy gets its
 * own inode number, as distinct inodes of an image have: the reader may
 * remember where it was in the last file it read.
 */
static sqfs_inode_t *clone_file(const sqfs_inode_t *src, size_t words)
{
	static uint32_t next_number = 0x10000;
	sqfs_inode_t *inode = sqfs_inode_alloc(words * 4);
	size_t n =
	    src->payload_size < words * 4 ? src->payload_size : words * 4;

	assert_non_null(inode);
	inode->type = src->type;
	inode->mode = src->mode;
	inode->inode_number = next_number++;
	inode->nlink = src->nlink;
	inode->xattr_index = src->xattr_index;
	inode->data.file = src->data.file;
	memcpy(inode->payload, src->payload, n);
	return inode;
}

static uint32_t *words_of(sqfs_inode_t *inode)
{
	return sqfs_inode_block_sizes(inode);
}

/* Both ways of reading the inode fail with an error (no crash). */
static void expect_fail(fixture_t *fx, const sqfs_inode_t *inode, int err)
{
	uint8_t buf[3 * 4096];
	sqfs_file_block_t blk;
	uint64_t count;
	ptrdiff_t ret;
	size_t i;
	bool failed = false;

	ret = sqfs_data_reader_read(fx->dr, inode, 0, buf, sizeof(buf));
	if (err != 0)
		assert_int_equal(ret, err);
	assert_true(ret < 0);

	count = sqfs_inode_block_count(inode, fx->block_size) + 1;
	for (i = 0; i < count && i < 64; ++i) {
		ret = sqfs_data_reader_get_block(fx->dr, inode, i, &blk);
		if (ret < 0)
			failed = true;
		else
			assert_true(blk.size <= fx->block_size);
	}
	assert_true(failed);
}

static void test_hostile_words(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size);
	uint8_t buf[64];
	sqfs_inode_t *h;
	fixture_t fx;
	uint32_t w0;

	(void)state;
	open_fixture(&fx, image, size);
	w0 = words_of(fx.multi)[0];
	assert_true(w0 != 0 && (w0 & RAW_BIT) == 0);

	/* bits 25..31, a length beyond the block size, 0x01000000 */
	h = clone_file(fx.multi, 4);
	words_of(h)[0] = w0 | 0x02000000u;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	h = clone_file(fx.multi, 4);
	words_of(h)[2] = 0x80000000u | (words_of(h)[2] & LEN_MASK);
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	/* a bad word before the one read also fails */
	assert_true(sqfs_data_reader_read(fx.dr, h, 3 * 4096, buf, 16) < 0);
	free(h);

	h = clone_file(fx.multi, 4);
	words_of(h)[0] = 4097;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	h = clone_file(fx.multi, 4);
	words_of(h)[0] = RAW_BIT | 4097;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	h = clone_file(fx.multi, 4);
	words_of(h)[0] = RAW_BIT;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* a block count that does not match the payload */
	h = clone_file(fx.multi, 3);
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);
	h = clone_file(fx.multi, 5);
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);
	h = clone_file(fx.multi, 4);
	h->payload_size = 15;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* not a file */
	h = clone_file(fx.multi, 4);
	h->type = SQFS_INODE_DIR;
	assert_int_equal(sqfs_data_reader_read(fx.dr, h, 0, buf, 16),
			 SQFS_ERROR_NOT_FILE);
	h->type = SQFS_INODE_SLINK;
	assert_int_equal(sqfs_data_reader_read(fx.dr, h, 0, buf, 16),
			 SQFS_ERROR_NOT_FILE);
	free(h);

	close_fixture(&fx);
	free(image);
}

/*
 * The words a bad file gets, from the data reader and the file stream
 * alike: inode number, block, and what is wrong with it.
 */
static void expect_words(fixture_t *fx, const sqfs_inode_t *inode, int err,
			 const char *fmt)
{
	char want[SQFS_ERROR_TEXT_SIZE];
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	uint8_t buf[16];
	int ret;

	snprintf(want, sizeof(want), fmt, inode->inode_number);
	assert_int_equal(sqfs_data_reader_read(fx->dr, inode, 0, buf, 16), err);
	assert_string_equal(sqfs_image_error(fx->img), want);

	assert_int_equal(sqfs_file_stream_create(fx->img, 2, &fs), 0);
	ret = sqfs_file_stream_enqueue(fs, inode, NULL);
	if (ret == 0)
		ret = sqfs_file_stream_next(fs, &blk);
	assert_int_equal(ret, err);
	assert_string_equal(sqfs_image_error(fx->img), want);
	sqfs_file_stream_destroy(fs);
}

static void test_error_words(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size);
	sqfs_inode_t *h;
	fixture_t fx;

	(void)state;
	open_fixture(&fx, image, size);
	assert_string_equal(sqfs_image_error(fx.img), "no error");

	h = clone_file(fx.multi, 4);
	h->data.file.blocks_start = fx.region_end;
	expect_words(&fx, h, SQFS_ERROR_CORRUPTED,
		     "inode %u: block 0: block list runs past the data");
	h->data.file.blocks_start = 0;
	expect_words(&fx, h, SQFS_ERROR_CORRUPTED,
		     "inode %u: block 0: block list starts before the data");
	free(h);

	h = clone_file(fx.multi, 4);
	words_of(h)[0] |= 0x02000000u;
	expect_words(&fx, h, SQFS_ERROR_CORRUPTED,
		     "inode %u: block 0: its size word is invalid");
	free(h);

	h = clone_file(fx.multi, 3);
	expect_words(&fx, h, SQFS_ERROR_CORRUPTED,
		     "inode %u: the block list does not match the file size");
	free(h);

	h = clone_file(fx.multi, 4);
	h->type = SQFS_INODE_DIR;
	expect_words(&fx, h, SQFS_ERROR_NOT_FILE,
		     "inode %u: not a regular file");
	free(h);

	/* a block that unpacks short: the raw bit on a compressed block */
	h = clone_file(fx.multi, 4);
	words_of(h)[0] |= RAW_BIT;
	expect_words(&fx, h, SQFS_ERROR_CORRUPTED,
		     "inode %u: block 0: it unpacks to the wrong size");
	free(h);

	/* a tail whose fragment does not exist */
	h = clone_file(fx.small1, 0);
	h->data.file.fragment_index = 1000000;
	expect_words(&fx, h, SQFS_ERROR_OUT_OF_BOUNDS,
		     "inode %u: tail: its fragment index is past the fragment "
		     "table");
	free(h);

	close_fixture(&fx);
	free(image);
}

static void test_hostile_places(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size);
	uint32_t w0, len;
	sqfs_inode_t *h;
	fixture_t fx;

	(void)state;
	open_fixture(&fx, image, size);
	w0 = words_of(fx.multi)[0];
	len = w0 & LEN_MASK;

	/* runs past the end of the data region */
	h = clone_file(fx.multi, 4);
	h->data.file.blocks_start = fx.region_end - len + 1;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.blocks_start = fx.region_end;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	/* starts before it (in the superblock) */
	h->data.file.blocks_start = 0;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	/* later blocks past the region, through the running sum */
	h->data.file.blocks_start = fx.region_end - len;
	assert_true(
	    sqfs_data_reader_read(fx.dr, h, 4096, &(uint8_t[16]){0}, 16) < 0);
	free(h);

	/* near UINT64_MAX: position + length and the running sum overflow */
	h = clone_file(fx.multi, 4);
	h->data.file.blocks_start = UINT64_MAX - 5;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.blocks_start = UINT64_MAX - len + 1;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	assert_true(sqfs_data_reader_read(fx.dr, h, 2 * 4096, &(uint8_t[16]){0},
					  16) < 0);
	free(h);

	/* a sparse block lies nowhere: any start is fine */
	h = clone_file(fx.multi, 1);
	h->data.file.file_size = 4096;
	h->data.file.fragment_index = SQFS_NO_FRAGMENT;
	h->data.file.blocks_start = UINT64_MAX;
	words_of(h)[0] = 0;
	{
		uint8_t buf[4096], zero[4096];

		memset(buf, 1, sizeof(buf));
		memset(zero, 0, sizeof(zero));
		assert_int_equal(
		    sqfs_data_reader_read(fx.dr, h, 0, buf, sizeof(buf)), 4096);
		assert_memory_equal(buf, zero, sizeof(buf));
	}
	free(h);

	close_fixture(&fx);
	free(image);
}

static void test_hostile_sizes(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size);
	uint32_t *mw, *rw;
	uint64_t last_pos;
	uint8_t buf[64];
	sqfs_inode_t *h;
	fixture_t fx;

	(void)state;
	open_fixture(&fx, image, size);
	mw = words_of(fx.multi);
	rw = words_of(fx.rand);
	/* multi: 3 full compressed blocks and a short one of 123 bytes */
	assert_int_equal(fx.multi->payload_size, 16);
	assert_int_equal(fx.multi->data.file.fragment_index, SQFS_NO_FRAGMENT);
	assert_true((mw[3] & RAW_BIT) == 0 && mw[3] != 0);
	/* rand: raw blocks */
	assert_true((rw[0] & RAW_BIT) != 0);
	assert_int_equal(rw[0] & LEN_MASK, 4096);

	/* the short last block where a full one is expected: unpacks short */
	h = clone_file(fx.multi, 1);
	h->data.file.file_size = 4096;
	h->data.file.blocks_start = fx.multi->data.file.blocks_start +
				    (mw[0] & LEN_MASK) + (mw[1] & LEN_MASK) +
				    (mw[2] & LEN_MASK);
	last_pos = h->data.file.blocks_start;
	words_of(h)[0] = mw[3];
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* a full block where 123 bytes are expected: unpacks long */
	h = clone_file(fx.multi, 1);
	h->data.file.file_size = 123;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	/* once it is cached, the other expectation still fails */
	assert_int_equal(sqfs_data_reader_read(fx.dr, fx.multi, 0, buf, 64),
			 64);
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* the two short-block cases with the short block cached first */
	assert_int_equal(
	    sqfs_data_reader_read(fx.dr, fx.multi, 3 * 4096, buf, 64), 64);
	h = clone_file(fx.multi, 1);
	h->data.file.file_size = 122;
	h->data.file.blocks_start = last_pos;
	words_of(h)[0] = mw[3];
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.file_size = 124;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* a raw block whose size is not the expected one */
	h = clone_file(fx.rand, 3);
	words_of(h)[0] = RAW_BIT | 4095;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);
	h = clone_file(fx.rand, 3);
	words_of(h)[2] = RAW_BIT | 78;
	assert_int_equal(sqfs_data_reader_read(fx.dr, h, 2 * 4096, buf, 64),
			 SQFS_ERROR_CORRUPTED);
	free(h);

	/* a compressed block cut short, or claimed raw */
	h = clone_file(fx.multi, 4);
	words_of(h)[0] = mw[0] - 1;
	expect_fail(&fx, h, 0);
	words_of(h)[0] = mw[0] | RAW_BIT;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* the real inodes still read after all that */
	assert_int_equal(sqfs_data_reader_read(fx.dr, fx.multi, 0, buf, 64),
			 64);
	assert_int_equal(sqfs_data_reader_read(fx.dr, fx.rand, 0, buf, 64), 64);

	close_fixture(&fx);
	free(image);
}

static void test_hostile_fragment_inode(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size);
	const sqfs_super_t *super;
	sqfs_fragment_t frag;
	uint8_t buf[256];
	sqfs_inode_t *h;
	fixture_t fx;

	(void)state;
	open_fixture(&fx, image, size);
	super = sqfs_image_super(fx.img);
	assert_true(fx.small1->data.file.fragment_index != SQFS_NO_FRAGMENT);
	assert_int_equal(
	    sqfs_image_get_fragment(fx.img, fx.small1->data.file.fragment_index,
				    &frag),
	    0);

	/* index out of range */
	h = clone_file(fx.small1, 0);
	h->data.file.fragment_index = super->fragment_entry_count;
	expect_fail(&fx, h, 0);
	h->data.file.fragment_index = SQFS_NO_FRAGMENT - 1;
	expect_fail(&fx, h, 0);
	free(h);

	/* the tail runs past the unpacked fragment */
	h = clone_file(fx.small1, 0);
	/* past any fragment block, however full */
	h->data.file.fragment_offset = 4096 - 99;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.fragment_offset = UINT32_MAX;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.fragment_offset = UINT32_MAX - 50;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	free(h);

	/* a fragment for a size that is a multiple of the block size */
	h = clone_file(fx.b, 1);
	h->data.file.fragment_index = 0;
	h->data.file.fragment_offset = 0;
	expect_fail(&fx, h, SQFS_ERROR_CORRUPTED);
	h->data.file.file_size = 0;
	h->payload_size = 0;
	assert_int_equal(sqfs_data_reader_read(fx.dr, h, 0, buf, 16),
			 SQFS_ERROR_CORRUPTED);
	free(h);

	/* and the real one still reads */
	assert_int_equal(
	    sqfs_data_reader_read(fx.dr, fx.small1, 0, buf, sizeof(buf)), 100);

	close_fixture(&fx);
	free(image);
}

/* The fragment index of the 100-byte file. */
static uint32_t small1_fragment(const uint8_t *image, size_t size)
{
	sqfs_inode_t *small;
	sqfs_image_t *img;
	sqfs_file_t *file;
	uint32_t index;

	assert_int_equal(
	    sqfs_file_open_memory(&file, image, size, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	small = find_file(img, 100);
	index = small->data.file.fragment_index;
	free(small);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	assert_true(index != SQFS_NO_FRAGMENT);
	return index;
}

/* Where fragment-table entry index lies in the image, if its md-block is
 * stored raw (a small table is: it does not shrink); 0 if not. */
static size_t fragment_entry_pos(const uint8_t *image, size_t size,
				 uint32_t index)
{
	sqfs_super_t super;
	uint64_t table, block;
	uint16_t header;

	sqfs_super_decode(&super, image);
	table = super.fragment_table_start;
	assert_true(index < super.fragment_entry_count && index < 512);
	assert_true(table + 8 <= size);
	block = get_le64(image + table);
	assert_true(block + 2 + 16 * (index + 1) <= size);
	header = get_le16(image + block);
	if ((header & 0x8000) == 0)
		return 0;
	return (size_t)block + 2 + 16 * index;
}

/* Patch the fragment entry at pos; opening the image or reading the file
 * whose tail it holds must fail. Returns whether the image opened. */
static bool patched_fragment(const uint8_t *image, size_t size, size_t pos,
			     uint64_t start, uint32_t word)
{
	sqfs_data_reader_t *dr;
	sqfs_inode_t *small;
	sqfs_image_t *img;
	sqfs_file_t *file;
	uint8_t *copy, buf[128];
	sqfs_file_block_t blk;
	int ret;

	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, image, size);
	put_le64(copy + pos, start);
	put_le32(copy + pos + 8, word);

	assert_int_equal(
	    sqfs_file_open_memory(&file, copy, size, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	ret = sqfs_image_open(file, &img, NULL);
	if (ret == 0) {
		assert_int_equal(sqfs_data_reader_create(img, &dr), 0);
		small = find_file(img, 100);
		assert_true(
		    sqfs_data_reader_read(dr, small, 0, buf, sizeof(buf)) < 0);
		assert_true(sqfs_data_reader_get_block(dr, small, 0, &blk) < 0);
		free(small);
		sqfs_data_reader_destroy(dr);
		sqfs_image_destroy(img);
	} else {
		assert_true(ret < 0);
	}
	sqfs_file_destroy(file);
	free(copy);
	return ret == 0;
}

/* The bytes of a file on disk. */
static uint8_t *load_file(const char *path, size_t *size)
{
	struct stat sb;
	uint8_t *data;
	FILE *fp;

	assert_int_equal(stat(path, &sb), 0);
	*size = (size_t)sb.st_size;
	data = malloc(*size);
	assert_non_null(data);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(data, 1, *size, fp), *size);
	fclose(fp);
	return data;
}

/*
 * An image whose fragment table is stored raw, so its entries can be
 * patched in place: ours with a single fragment entry (which may still
 * shrink), else one from mksquashfs -noF. NULL if neither works.
 */
static uint8_t *raw_fragment_table_image(size_t *size, size_t *pos)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_writer_options_t opt;
	char img_path[128];
	const uint8_t *data;
	uint8_t *image;

	writer_options(
	    &opt, 4096,
	    sqfs_compressor_is_available(SQFS_COMP_LZ4) ? SQFS_COMP_LZ4 : 0, 0);
	write_image_of(file, &opt, "small1");
	data = test_memory_file_data(file, size);
	image = malloc(*size);
	assert_non_null(image);
	memcpy(image, data, *size);
	sqfs_file_destroy(file);

	*pos = fragment_entry_pos(image, *size, small1_fragment(image, *size));
	if (*pos != 0)
		return image;
	free(image);

	if (access(MKSQUASHFS, X_OK) != 0 ||
	    !sqfs_compressor_is_available(SQFS_COMP_GZIP))
		return NULL;
	make_source(4096);
	snprintf(img_path, sizeof(img_path), "%s.img", src_dir);
	assert_true(run_mksquashfs(img_path, "gzip", "4K", "-noF"));
	image = load_file(img_path, size);
	unlink(img_path);
	remove_source();

	*pos = fragment_entry_pos(image, *size, small1_fragment(image, *size));
	assert_true(*pos != 0);
	return image;
}

static void test_hostile_fragment_table(void **state)
{
	sqfs_super_t super;
	size_t size, pos;
	uint8_t *image;
	uint64_t start;
	uint32_t word;

	(void)state;
	image = raw_fragment_table_image(&size, &pos);
	if (image == NULL) {
		print_message("no raw fragment table: skipped\n");
		skip();
	}
	sqfs_super_decode(&super, image);
	start = get_le64(image + pos);
	word = get_le32(image + pos + 8);

	patched_fragment(image, size, pos, start, word | 0x02000000u);
	patched_fragment(image, size, pos, start, 4097);
	patched_fragment(image, size, pos, start, RAW_BIT | 4097);
	patched_fragment(image, size, pos, start, RAW_BIT);
	patched_fragment(image, size, pos, start, 0);
	patched_fragment(image, size, pos, super.inode_table_start - 1,
			 RAW_BIT | 16);
	patched_fragment(image, size, pos, UINT64_MAX - 3, word);
	patched_fragment(image, size, pos, 0, word);
	/* well placed, so left to the reader: a compressed block cut
	 * short, a raw one too short for the tail */
	if ((word & RAW_BIT) == 0 && (word & LEN_MASK) > 1)
		assert_true(
		    patched_fragment(image, size, pos, start, word - 1));
	assert_true(patched_fragment(image, size, pos, start, RAW_BIT | 50));
	free(image);
}

/* Flipped bytes inside stored blocks give errors, not crashes. */
static void test_hostile_block_data(void **state)
{
	size_t size, i;
	uint8_t *image = fixture_image(&size), buf[4 * 4096 + 200];
	sqfs_data_reader_t *dr;
	sqfs_inode_t *multi;
	sqfs_image_t *img;
	sqfs_file_t *file;
	uint64_t pos;
	uint32_t w0;
	ptrdiff_t ret;

	(void)state;
	for (i = 0; i < 8; ++i) {
		assert_int_equal(sqfs_file_open_memory(&file, image, size, 0),
				 0);
		assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
		multi = find_file(img, 3 * 4096 + 123);
		pos = multi->data.file.blocks_start;
		w0 = sqfs_inode_block_sizes(multi)[0];
		/* spoil the first block, in several places */
		{
			uint8_t junk[4] = {0xde, 0xad, 0xbe, 0xef};
			uint64_t at = pos + (w0 & LEN_MASK) * i / 8;

			assert_int_equal(file->write_at(file, at, junk, 4), 0);
		}
		assert_int_equal(sqfs_data_reader_create(img, &dr), 0);
		ret = sqfs_data_reader_read(dr, multi, 0, buf, sizeof(buf));
		/* a codec without a checksum may still unpack a full block:
		 * then the bytes simply differ */
		assert_true(ret < 0 || ret == 3 * 4096 + 123);
		sqfs_data_reader_destroy(dr);
		free(multi);
		sqfs_image_destroy(img);
		sqfs_file_destroy(file);
	}
	free(image);
}

/* ---- decompress each block once ------------------------------------------ */

static void test_sequential_once(void **state)
{
	const uint64_t size = 64u << 20;
	sqfs_writer_options_t opt;
	sqfs_data_reader_t *dr;
	sqfs_entry_t ent;
	sqfs_inode_t *inode;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *file;
	uint8_t *chunk, expect[4096], buf[4096];
	uint64_t off, blocks;
	size_t i;
	int comp;

	(void)state;
	comp =
	    sqfs_compressor_is_available(SQFS_COMP_LZ4)
		? SQFS_COMP_LZ4
		: (sqfs_compressor_is_available(SQFS_COMP_GZIP) ? SQFS_COMP_GZIP
								: 0);
	writer_options(&opt, SQFS_DEFAULT_BLOCK_SIZE, comp, 0);
	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	sqfs_entry_init(&ent, "big", S_IFREG | 0644, 0, 0, 0);
	ent.size = size;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);

	/* each 4 KiB: its own number, then a pattern; never all zeros */
	chunk = malloc(1 << 20);
	assert_non_null(chunk);
	for (off = 0; off < size; off += 1 << 20) {
		for (i = 0; i < (1 << 20); i += 4096) {
			memset(chunk + i, (int)(((off + i) >> 12) * 7 + 1),
			       4096);
			put_le64(chunk + i, off + i);
		}
		assert_int_equal(sqfs_writer_append(wr, chunk, 1 << 20), 0);
	}
	free(chunk);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	inode = find_file(img, size);
	blocks = sqfs_inode_block_count(inode, SQFS_DEFAULT_BLOCK_SIZE);
	assert_true(blocks == size / SQFS_DEFAULT_BLOCK_SIZE);
	assert_int_equal(sqfs_data_reader_create(img, &dr), 0);

	count_uncompress(img);
	for (off = 0; off < size; off += 4096) {
		memset(expect, (int)((off >> 12) * 7 + 1), 4096);
		put_le64(expect, off);
		assert_int_equal(
		    sqfs_data_reader_read(dr, inode, off, buf, 4096), 4096);
		if (memcmp(buf, expect, 4096) != 0)
			fail_msg("data differ at %llu",
				 (unsigned long long)off);
	}
	/* every block compressed (a pattern shrinks), each unpacked once */
	assert_int_equal(uncompress_calls, blocks);

	/* reading one block's pieces in reverse order also unpacks it once */
	uncompress_calls = 0;
	for (off = 2 * SQFS_DEFAULT_BLOCK_SIZE; off > SQFS_DEFAULT_BLOCK_SIZE;
	     off -= 4096)
		assert_int_equal(
		    sqfs_data_reader_read(dr, inode, off - 4096, buf, 4096),
		    4096);
	assert_int_equal(uncompress_calls, 1);
	stop_counting(img);

	free(inode);
	sqfs_data_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

static void test_args(void **state)
{
	size_t size;
	uint8_t *image = fixture_image(&size), buf[16];
	sqfs_file_block_t blk;
	fixture_t fx;

	(void)state;
	open_fixture(&fx, image, size);
	assert_int_equal(sqfs_data_reader_create(NULL, &fx.dr),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_data_reader_read(fx.dr, NULL, 0, buf, 16),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_data_reader_read(fx.dr, fx.multi, 0, NULL, 16),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_data_reader_get_block(fx.dr, fx.multi, 0, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_data_reader_get_block(NULL, fx.multi, 0, &blk),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_data_reader_get_block(fx.dr, NULL, 0, &blk),
			 SQFS_ERROR_ARG_INVALID);
	sqfs_data_reader_destroy(NULL);
	close_fixture(&fx);
	free(image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_default),
	    cmocka_unit_test(test_writer_variants),
	    cmocka_unit_test(test_writer_temp_file),
	    cmocka_unit_test(test_mksquashfs_4k),
	    cmocka_unit_test(test_mksquashfs_1m),
	    cmocka_unit_test(test_hostile_words),
	    cmocka_unit_test(test_error_words),
	    cmocka_unit_test(test_hostile_places),
	    cmocka_unit_test(test_hostile_sizes),
	    cmocka_unit_test(test_hostile_fragment_inode),
	    cmocka_unit_test(test_hostile_fragment_table),
	    cmocka_unit_test(test_hostile_block_data),
	    cmocka_unit_test(test_sequential_once),
	    cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
