/* SPDX-License-Identifier: MIT */
/*
 * sqfs_image_locate: a plain image, images after ELF executables built
 * here (32 and 64-bit, either byte order, the end set by the section
 * header table, by a section's data or by a segment's), SIF containers
 * built here from the layout of sylabs' SIF specification, a prefix of
 * arbitrary bytes found by the scan; and hostile headers (offsets past the
 * end, sums that overflow, huge counts, truncation), each refused with
 * words and without reading outside the file.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/squashfs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint8_t *image;
static size_t image_size;

/* A small valid image, made once. */
static int make_image(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *f;
	sqfs_entry_t e;
	const uint8_t *data;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&f, NULL, 0, 0), 0);
	sqfs_writer_options_init(&opt);
	assert_int_equal(sqfs_writer_create(f, &opt, &wr, NULL), 0);
	sqfs_entry_init(&e, "hello", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "hello world\n", 12), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	data = sqfs_file_memory_data(f, &image_size);
	image = malloc(image_size);
	assert_non_null(image);
	memcpy(image, data, image_size);
	sqfs_file_destroy(f);
	return 0;
}

static int free_image(void **state)
{
	(void)state;
	free(image);
	return 0;
}

/* A buffer being built: bytes at given places, zeros elsewhere. */
typedef struct {
	uint8_t *data;
	size_t size;
} buf_t;

static void buf_init(buf_t *b, size_t size)
{
	b->data = calloc(1, size);
	assert_non_null(b->data);
	b->size = size;
}

static void put(buf_t *b, size_t at, uint64_t v, size_t width, bool big)
{
	assert_true(at + width <= b->size);
	for (size_t i = 0; i < width; ++i) {
		size_t shift = big ? (width - 1 - i) * 8 : i * 8;

		b->data[at + i] = (uint8_t)(v >> shift);
	}
}

/* Append the image at offset (the buffer grows to hold it). */
static void append_image(buf_t *b, size_t at)
{
	uint8_t *grown = realloc(b->data, at + image_size);

	assert_non_null(grown);
	if (at > b->size)
		memset(grown + b->size, 0, at - b->size);
	b->data = grown;
	b->size = at + image_size;
	memcpy(b->data + at, image, image_size);
}

/* Run locate on the buffer; returns its code, *off and the words. */
static int locate(const buf_t *b, uint64_t scan, uint64_t *off, char *why)
{
	sqfs_file_t *f;
	int ret;

	assert_int_equal(sqfs_file_open_memory(&f, b->data, b->size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	*off = 12345;
	ret = sqfs_image_locate(f, scan, off, why);
	sqfs_file_destroy(f);
	return ret;
}

static void expect_found(const buf_t *b, uint64_t scan, uint64_t want,
			 const char *words)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t off;

	assert_int_equal(locate(b, scan, &off, why), 0);
	assert_int_equal(off, want);
	if (strstr(why, words) == NULL)
		fail_msg("found at %llu, but said '%s', not '%s'",
			 (unsigned long long)off, why, words);
}

static void expect_none(const buf_t *b, uint64_t scan, const char *words)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t off;

	assert_int_equal(locate(b, scan, &off, why), SQFS_ERROR_SUPER_MAGIC);
	assert_int_equal(off, 12345);
	if (strstr(why, words) == NULL)
		fail_msg("said '%s', not '%s'", why, words);
}

/* The found image opens through a window and holds the file. */
static void expect_opens(const buf_t *b, uint64_t off)
{
	sqfs_file_t *f, *w;
	sqfs_image_t *img;

	assert_int_equal(sqfs_file_open_memory(&f, b->data, b->size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(
	    sqfs_file_open_window(&w, f, off, SQFS_FILE_WINDOW_OWN), 0);
	assert_int_equal(sqfs_image_open(w, &img, NULL), 0);
	assert_int_equal(sqfs_image_super(img)->inode_count, 2);
	sqfs_image_destroy(img);
	sqfs_file_destroy(w);
}

static void test_plain(void **state)
{
	buf_t b = {image, image_size};
	buf_t t;

	(void)state;
	expect_found(&b, 0, 0, "plain image");

	/* cut off: the superblock claims more than there is (bytes_used
	 * is at 40) */
	buf_init(&t, (size_t)image[40] + ((size_t)image[41] << 8) - 1);
	memcpy(t.data, image, t.size);
	expect_none(&t, 0, "superblock at 0 that is not valid");
	expect_none(&t, SQFS_LOCATE_SCAN_LIMIT, "no valid superblock");
	free(t.data);

	/* nothing at all, and an empty file */
	buf_init(&t, 1000);
	expect_none(&t, 0, "neither an image");
	free(t.data);
	t.data = NULL;
	t.size = 0;
	expect_none(&t, 4096, "no valid superblock");
}

/*
 * An ELF file: header, program headers at phoff, section headers at
 * shoff, one PROGBITS section (data at sec_off, sec_size bytes), one
 * NOBITS section (.bss: takes no room, however large), one segment.
 */
typedef struct {
	bool is64, big;
	uint64_t phoff, shoff, sec_off, sec_size, seg_off, seg_size;
	unsigned int phnum, shnum;
} elf_desc_t;

static size_t elf_build(buf_t *b, const elf_desc_t *d)
{
	size_t ehsize = d->is64 ? 64 : 52, phent = d->is64 ? 56 : 32;
	size_t shent = d->is64 ? 64 : 40, end = ehsize;
	bool big = d->big;

	if (d->phoff + d->phnum * phent > end)
		end = d->phoff + d->phnum * phent;
	if (d->shoff + d->shnum * shent > end)
		end = d->shoff + d->shnum * shent;
	if (d->sec_off + d->sec_size > end)
		end = d->sec_off + d->sec_size;
	if (d->seg_off + d->seg_size > end)
		end = d->seg_off + d->seg_size;
	buf_init(b, end);

	memcpy(b->data,
	       "\x7f"
	       "ELF",
	       4);
	b->data[4] = d->is64 ? 2 : 1;
	b->data[5] = big ? 2 : 1;
	b->data[6] = 1;
	put(b, 16, 2, 2, big); /* ET_EXEC */
	if (d->is64) {
		put(b, 32, d->phoff, 8, big);
		put(b, 40, d->shoff, 8, big);
		put(b, 52, ehsize, 2, big);
		put(b, 54, phent, 2, big);
		put(b, 56, d->phnum, 2, big);
		put(b, 58, shent, 2, big);
		put(b, 60, d->shnum, 2, big);
	} else {
		put(b, 28, d->phoff, 4, big);
		put(b, 32, d->shoff, 4, big);
		put(b, 40, ehsize, 2, big);
		put(b, 42, phent, 2, big);
		put(b, 44, d->phnum, 2, big);
		put(b, 46, shent, 2, big);
		put(b, 48, d->shnum, 2, big);
	}
	for (unsigned int i = 0; i < d->phnum; ++i) {
		size_t p = d->phoff + i * phent;

		put(b, p, 1, 4, big); /* PT_LOAD */
		if (d->is64) {
			put(b, p + 8, d->seg_off, 8, big);
			put(b, p + 32, d->seg_size, 8, big);
		} else {
			put(b, p + 4, d->seg_off, 4, big);
			put(b, p + 16, d->seg_size, 4, big);
		}
	}
	/* section 0 is SHT_NULL; 1 PROGBITS; 2 NOBITS; more: PROGBITS of
	 * the same data */
	for (unsigned int i = 1; i < d->shnum; ++i) {
		size_t s = d->shoff + i * shent;
		uint64_t size = i == 2 ? 0x7FFFFFFFu : d->sec_size;

		put(b, s + 4, i == 2 ? 8 : 1, 4, big);
		if (d->is64) {
			put(b, s + 24, d->sec_off, 8, big);
			put(b, s + 32, size, 8, big);
		} else {
			put(b, s + 16, d->sec_off, 4, big);
			put(b, s + 20, size, 4, big);
		}
	}
	return end;
}

static void test_elf(void **state)
{
	static const struct {
		elf_desc_t d;
		const char *what;
	} cases[] = {
	    /* section headers last, as linkers put them */
	    {{true, false, 64, 5000, 400, 3000, 0, 3400, 2, 4}, "shdr"},
	    {{true, true, 64, 5000, 400, 3000, 0, 3400, 2, 4}, "shdr BE"},
	    {{false, false, 52, 5000, 400, 3000, 0, 3400, 2, 4}, "shdr 32"},
	    {{false, true, 52, 5000, 400, 3000, 0, 3400, 2, 4}, "shdr 32BE"},
	    /* a section's data beyond the tables */
	    {{true, false, 64, 1000, 2000, 7000, 0, 1500, 1, 3}, "section"},
	    {{false, true, 52, 1000, 2000, 7001, 0, 1500, 1, 3}, "sec 32BE"},
	    /* a segment beyond everything */
	    {{true, true, 64, 1000, 2000, 100, 0, 9999, 1, 3}, "segment"},
	    {{false, false, 52, 1000, 2000, 100, 0, 9999, 1, 3}, "seg 32"},
	    /* no sections at all */
	    {{true, false, 64, 0, 0, 0, 0, 777, 1, 0}, "no sections"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		size_t end;
		buf_t b;

		print_message("%s\n", cases[i].what);
		end = elf_build(&b, &cases[i].d);
		append_image(&b, end);
		expect_found(&b, 0, end, "ELF");
		expect_opens(&b, end);

		/* one byte of padding more: only the scan finds it */
		free(b.data);
		elf_build(&b, &cases[i].d);
		append_image(&b, end + 1);
		expect_none(&b, 0, "no image where the executable ends");
		expect_found(&b, 1u << 20, end + 1, "scan");
		free(b.data);
	}
}

/* Hostile ELF headers: refused with words, never a read outside. */
static void test_elf_hostile(void **state)
{
	elf_desc_t d = {true, false, 64, 5000, 400, 3000, 0, 3400, 2, 4};
	buf_t b;
	size_t end;

	(void)state;

	/* section header table far past the end */
	end = elf_build(&b, &d);
	append_image(&b, end);
	put(&b, 40, UINT64_MAX - 100, 8, false);
	expect_none(&b, 0, "section header table");
	/* the scan still finds the image after it */
	expect_found(&b, 1u << 20, end, "scan");
	/* program header table offset that overflows with its size */
	put(&b, 40, d.shoff, 8, false);
	put(&b, 32, UINT64_MAX - 10, 8, false);
	expect_none(&b, 0, "program header table");
	put(&b, 32, d.phoff, 8, false);
	expect_found(&b, 0, end, "ELF");

	/* a section whose offset + size overflows */
	put(&b, d.shoff + 64 + 24, UINT64_MAX - 5, 8, false);
	put(&b, d.shoff + 64 + 32, 100, 8, false);
	expect_none(&b, 0, "section 1 runs past the end");
	put(&b, d.shoff + 64 + 24, 16, 8, false);
	put(&b, d.shoff + 64 + 32, UINT64_MAX, 8, false);
	expect_none(&b, 0, "section 1 runs past the end");
	put(&b, d.shoff + 64 + 24, d.sec_off, 8, false);
	put(&b, d.shoff + 64 + 32, d.sec_size, 8, false);

	/* a segment past the end */
	put(&b, d.phoff + 8, b.size, 8, false);
	put(&b, d.phoff + 32, 1, 8, false);
	expect_none(&b, 0, "segment 0 runs past the end");
	put(&b, d.phoff + 8, 0, 8, false);
	put(&b, d.phoff + 32, d.seg_size, 8, false);

	/* 65535 entries of a table that does not fit */
	put(&b, 60, 0xFFFF, 2, false);
	expect_none(&b, 0, "65535 entries");
	put(&b, 60, d.shnum, 2, false);
	/* entries too small to hold a section header */
	put(&b, 58, 8, 2, false);
	expect_none(&b, 0, "too small");
	put(&b, 58, 64, 2, false);

	/* unknown class and byte order */
	b.data[4] = 3;
	expect_none(&b, 0, "class 3");
	b.data[4] = 2;
	b.data[5] = 0;
	expect_none(&b, 0, "byte order 0");
	b.data[5] = 1;
	expect_found(&b, 0, end, "ELF");
	free(b.data);

	/* a header cut off */
	buf_init(&b, 30);
	memcpy(b.data,
	       "\x7f"
	       "ELF\x02\x01",
	       6);
	expect_none(&b, 0, "header is cut off");
	free(b.data);
}

/*
 * A SIF container: the 128-byte global header, total descriptors of 585
 * bytes at 4096, a definition file, an ext3 partition, then a squashfs
 * partition (parttype part) holding the image at 8192 (or at the offset
 * given).
 */
#define SIF_DESC 585

static void sif_desc(buf_t *b, unsigned int i, uint32_t type, uint32_t fs,
		     uint32_t part, uint64_t off, uint64_t size)
{
	size_t d = 4096 + (size_t)i * SIF_DESC;

	put(b, d, type, 4, false);
	b->data[d + 4] = 1; /* used */
	put(b, d + 5, i + 1, 4, false);
	put(b, d + 9, 0xf0000001u, 4, false);
	put(b, d + 17, off, 8, false);
	put(b, d + 25, size, 8, false);
	put(b, d + 33, size, 8, false);
	memcpy(b->data + d + 73, "part", 4);
	put(b, d + 201, fs, 4, false);
	put(b, d + 205, part, 4, false);
	memcpy(b->data + d + 209, "02", 3);
}

static void sif_build(buf_t *b, unsigned int total)
{
	buf_init(b, 8192);
	memcpy(b->data, "#!/usr/bin/env run-singularity\n", 31);
	memcpy(b->data + 32, "SIF_MAGIC", 10);
	memcpy(b->data + 42, "01", 3);
	memcpy(b->data + 45, "02", 3);
	put(b, 80, total - 3, 8, false);
	put(b, 88, total, 8, false);
	put(b, 96, 4096, 8, false);
	put(b, 104, 3 * SIF_DESC, 8, false);
	put(b, 112, 8192, 8, false);
	put(b, 120, image_size, 8, false);
	sif_desc(b, 0, 0x4001, 0, 0, 7000, 100);	/* definition file */
	sif_desc(b, 1, 0x4004, 2, 3, 7100, 1000);	/* ext3 data */
	sif_desc(b, 2, 0x4004, 1, 2, 8192, image_size); /* squashfs */
	append_image(b, 8192);
}

static void test_sif(void **state)
{
	buf_t b;

	(void)state;
	sif_build(&b, 5);
	expect_found(&b, 0, 8192, "primary squashfs partition of a SIF");
	expect_opens(&b, 8192);

	/* a second, non-primary squashfs partition first: the primary
	 * one still wins */
	sif_desc(&b, 3, 0x4004, 1, 3, 8192, image_size);
	expect_found(&b, 0, 8192, "primary");
	/* without a primary one, the first */
	put(&b, 4096 + 2 * SIF_DESC + 205, 1, 4, false);
	expect_found(&b, 0, 8192, "the squashfs partition of a SIF");
	put(&b, 4096 + 2 * SIF_DESC + 205, 2, 4, false);

	/* an unused descriptor is ignored */
	b.data[4096 + 2 * SIF_DESC + 4] = 0;
	b.data[4096 + 3 * SIF_DESC + 4] = 0;
	expect_none(&b, 0, "SIF: no squashfs partition");
	/* an encrypted one is named */
	b.data[4096 + 2 * SIF_DESC + 4] = 1;
	put(&b, 4096 + 2 * SIF_DESC + 201, 5, 4, false);
	expect_none(&b, 0, "encrypted");
	/* the scan finds the image the descriptors do not offer */
	expect_found(&b, 1u << 20, 8192, "scan");
	free(b.data);
}

static void test_sif_hostile(void **state)
{
	const size_t p = 4096 + 2 * SIF_DESC; /* the squashfs descriptor */
	buf_t b;

	(void)state;
	sif_build(&b, 5);

	/* a huge count, a negative one, one past the end */
	put(&b, 88, UINT64_MAX / 2, 8, false);
	expect_none(&b, 0, "descriptors, more than");
	put(&b, 88, UINT64_MAX, 8, false);
	expect_none(&b, 0, "out of range");
	put(&b, 88, 4000, 8, false);
	expect_none(&b, 0, "run past the end");
	put(&b, 88, 5, 8, false);
	/* descriptors at a negative offset, past the end, inside the
	 * header */
	put(&b, 96, UINT64_MAX - 4, 8, false);
	expect_none(&b, 0, "out of range");
	put(&b, 96, (uint64_t)1 << 62, 8, false);
	expect_none(&b, 0, "run past the end");
	put(&b, 96, 64, 8, false);
	expect_none(&b, 0, "out of range");
	put(&b, 96, 4096, 8, false);
	expect_found(&b, 0, 8192, "SIF");

	/* the partition past the end, negative, overflowing, too small */
	put(&b, p + 17, b.size, 8, false);
	expect_none(&b, 0, "lies outside the file");
	put(&b, p + 17, UINT64_MAX - 3, 8, false);
	expect_none(&b, 0, "lies outside the file");
	put(&b, p + 17, 8192, 8, false);
	put(&b, p + 25, INT64_MAX, 8, false);
	expect_none(&b, 0, "lies outside the file");
	put(&b, p + 25, 10, 8, false);
	expect_none(&b, 0, "lies outside the file");
	put(&b, p + 25, image_size, 8, false);
	/* pointing at something that is not an image */
	put(&b, p + 17, 7000, 8, false);
	expect_none(&b, 0, "holds no valid superblock");
	put(&b, p + 17, 8192, 8, false);
	expect_found(&b, 0, 8192, "SIF");

	/* a header cut off */
	b.size = 100;
	expect_none(&b, 0, "");
	free(b.data);
}

/* A prefix of arbitrary bytes: only the scan finds the image, and only
 * within its limit. */
static void test_scan(void **state)
{
	buf_t b;

	(void)state;
	buf_init(&b, 10000);
	test_fill_data(b.data, b.size, TEST_DATA_RANDOM, 7);
	/* decoys: magic without a valid superblock behind it */
	memcpy(b.data + 10, "hsqs", 4);
	memcpy(b.data + 9990, "hsq", 3);
	b.data[0] = 'h';
	append_image(&b, 10000);
	expect_none(&b, 0, "neither an image");
	expect_found(&b, SQFS_LOCATE_SCAN_LIMIT, 10000, "found by a scan");
	expect_found(&b, 10001, 10000, "scan");
	expect_none(&b, 10000, "first 10000 bytes");
	expect_opens(&b, 10000);
	free(b.data);

	/* an image bigger than the scan's pieces, after 70000 bytes */
	buf_init(&b, 70000);
	append_image(&b, 70000);
	expect_found(&b, SQFS_LOCATE_SCAN_LIMIT, 70000, "scan");
	free(b.data);
}

static void test_bad_args(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t off;
	sqfs_file_t *f;

	(void)state;
	assert_int_equal(sqfs_image_locate(NULL, 0, &off, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_open_memory(&f, image, image_size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_locate(f, 0, NULL, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_locate(f, 0, &off, NULL), 0);
	sqfs_file_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),	cmocka_unit_test(test_elf),
	    cmocka_unit_test(test_elf_hostile), cmocka_unit_test(test_sif),
	    cmocka_unit_test(test_sif_hostile), cmocka_unit_test(test_scan),
	    cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, make_image, free_image);
}
