/* SPDX-License-Identifier: MIT */
/*
 * The high-level writer refuses what it must: calls out of sequence, bad
 * paths and attributes, bad options; and it handles broken hard links.
 * A refused call leaves no trace in the image (not a parent, not an id)
 * and the writer usable; a failure of the writer (a write that fails)
 * leaves it unusable, and every later call says so.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "writer/writer_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static sqfs_writer_t *memory_writer(sqfs_file_t **file)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;

	wt_options(&opt);
	*file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(*file, &opt, &wr, NULL), 0);
	return wr;
}

/* sqfs_writer_add of an entry with a path, a mode and nothing else. */
static int add_mode(sqfs_writer_t *wr, const char *path, uint32_t mode)
{
	sqfs_entry_t e = wt_make_entry(path, mode, 0, 0, 0);

	return sqfs_writer_add(wr, &e, 0);
}

static int add_symlink(sqfs_writer_t *wr, const char *path, const char *target)
{
	sqfs_entry_t e = wt_make_entry(path, S_IFLNK | 0777, 0, 0, 0);

	e.symlink_target = target;
	return sqfs_writer_add(wr, &e, 0);
}

static void test_create_errors(void **state)
{
	sqfs_writer_options_t opt, bad;
	sqfs_writer_t *wr = (sqfs_writer_t *)&wr;
	sqfs_file_t *file;

	(void)state;
	wt_options(&opt);
	file = test_memory_file("x", 1);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(wr);
	sqfs_file_destroy(file);

	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(NULL, &opt, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_create(file, NULL, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_create(file, &opt, NULL, NULL),
			 SQFS_ERROR_ARG_INVALID);

	bad = opt;
	bad.block_size = 1000;
	bad.compressor.block_size = 1000;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	bad = opt;
	bad.block_size = 2u << 20;
	bad.compressor.block_size = 2u << 20;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	bad = opt;
	bad.devblk_size = 512;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	bad = opt;
	bad.block_size = 65536;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	bad = opt;
	bad.flags = 0x1000;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	bad = opt;
	bad.default_mode = S_IFREG | 0644;
	assert_int_equal(sqfs_writer_create(file, &bad, &wr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	bad = opt;
	bad.compressor.id = 77;
	assert_true(sqfs_writer_create(file, &bad, &wr, NULL) < 0);
	assert_null(wr);

	/* Nothing was written by the refused attempts. */
	assert_int_equal(file->get_size(file), 0);
	sqfs_file_destroy(file);

	sqfs_writer_destroy(NULL);
}

static void test_sequence(void **state)
{
	sqfs_writer_t *wr;
	sqfs_file_t *file;

	(void)state;
	wr = memory_writer(&file);

	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_append_hole(wr, 5), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_end_file(wr), SQFS_ERROR_SEQUENCE);

	assert_int_equal(add_mode(wr, "f", S_IFREG | 0644), 0);
	assert_int_equal(add_mode(wr, "d", S_IFDIR | 0755),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(add_symlink(wr, "s", "t"), SQFS_ERROR_SEQUENCE);
	assert_int_equal(add_mode(wr, "c", S_IFCHR | 0644),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(wt_add_link(wr, "h", "f"), SQFS_ERROR_SEQUENCE);
	assert_int_equal(add_mode(wr, "g", S_IFREG | 0644),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_append(wr, "abc", 3), 0);
	assert_int_equal(sqfs_writer_append(wr, NULL, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, NULL, 1),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_end_file(wr), SQFS_ERROR_SEQUENCE);

	assert_int_equal(sqfs_writer_finish(wr), 0);

	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_SEQUENCE);
	assert_int_equal(add_mode(wr, "d", S_IFDIR | 0755),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(add_mode(wr, "g", S_IFREG | 0644),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(wt_add_link(wr, "h", "f"), SQFS_ERROR_SEQUENCE);
	/* calls out of order are refusals: the finished image stands */
	assert_true(sqfs_writer_usable(wr));

	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	/* Destroying a writer in the middle of a file is fine. */
	wr = memory_writer(&file);
	assert_int_equal(add_mode(wr, "f", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_append(wr, "abc", 3), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
}

static void test_bad_arguments(void **state)
{
	sqfs_entry_t ent;
	sqfs_xattr_t x;
	char name[300], target[4200];
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_tmp_t tmp;
	wt_entry_t *e;

	(void)state;
	wt_tmp_init(&tmp);
	{
		sqfs_writer_options_t opt;

		wt_options(&opt);
		wr = wt_create(tmp.image, &opt, &file);
	}
	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);

	/* Paths. */
	assert_int_equal(add_mode(wr, NULL, S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "..", S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "p/../q", S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "p/q/..", S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "", S_IFREG | 0644),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "/./", S_IFREG | 0644),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_symlink(wr, "/", "x"), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wt_add_link(wr, ".", "x"), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wt_add_link(wr, "h", "a/../b"),
			 SQFS_ERROR_ARG_INVALID);
	/* Without a target an entry is no hard link: with mode 0 it is of
	 * no file type at all. */
	assert_int_equal(add_mode(wr, "h", 0), SQFS_ERROR_ARG_INVALID);
	memset(name, 'x', 259);
	name[259] = '\0';
	assert_int_equal(add_mode(wr, name, S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	name[0] = 'p';
	name[1] = '/';
	assert_int_equal(add_mode(wr, name, S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	/* 256 bytes is the format's limit and allowed (extraction on most
	 * file systems would fail, so it is removed again below). */
	memset(name, 'y', 256);
	name[256] = '\0';
	assert_int_equal(add_mode(wr, name, S_IFDIR | 0755), 0);

	/* Attributes. */
	assert_int_equal(sqfs_writer_add(wr, NULL, 0), SQFS_ERROR_ARG_INVALID);
	/* the file type: none, one the format does not have, all bits */
	assert_int_equal(add_mode(wr, "d", 0755), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "d", 0030755), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_mode(wr, "f", S_IFMT | 0644),
			 SQFS_ERROR_ARG_INVALID);
	/* file flags are for regular files only */
	ent = wt_make_entry("d", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &ent, SQFS_FILE_DONT_COMPRESS),
			 SQFS_ERROR_ARG_INVALID);
	ent = wt_make_entry("c", S_IFCHR | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &ent, SQFS_FILE_ALIGN),
			 SQFS_ERROR_ARG_INVALID);
	ent.rdev_major = 4096;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_OVERFLOW);
	ent.rdev_major = 1;
	ent.rdev_minor = 0x100000;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_OVERFLOW);
	assert_int_equal(add_mode(wr, "f", 0100000000 | S_IFREG | 0644),
			 SQFS_ERROR_ARG_INVALID);
	ent = wt_make_entry("f", S_IFREG | 0644, 0, 0, 0);
	ent.flags = 0x80;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	ent.flags = 0;
	ent.reserved[0] = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);

	/* Symlink targets: 1 .. 4096 bytes. */
	assert_int_equal(add_symlink(wr, "s", ""), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(add_symlink(wr, "s", NULL), SQFS_ERROR_ARG_INVALID);
	memset(target, 't', 4097);
	target[4097] = '\0';
	assert_int_equal(add_symlink(wr, "s", target), SQFS_ERROR_ARG_INVALID);
	target[4096] = '\0';
	assert_int_equal(add_symlink(wr, "s", target), 0);
	/* Linux cannot extract a target of PAGE_SIZE: replace it. */
	target[4000] = '\0';
	assert_int_equal(add_symlink(wr, "s", target), 0);
	e = wt_model_set(&model, "s", S_IFLNK | 0777, 0, 0, 0);
	e->target = strdup(target);

	/* Xattrs. */
	ent = wt_make_entry("x/y", S_IFDIR | 0755, 0, 0, 0);
	ent.xattrs = &x;
	ent.xattr_count = 1;
	x.key = "system.posix_acl_access";
	x.value = "v";
	x.size = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_UNSUPPORTED);
	x.key = "user.";
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	memset(name, 'k', 299);
	memcpy(name, "user.", 5);
	name[256] = '\0';
	x.key = name;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	x.key = "user.big";
	x.size = 65537;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_OVERFLOW);
	x.size = 1;
	x.value = NULL;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	ent.xattrs = NULL;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);

	/* A path through a non-directory. */
	assert_int_equal(add_mode(wr, "file", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	wt_model_set(&model, "file", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(add_mode(wr, "file/sub", S_IFDIR | 0755),
			 SQFS_ERROR_NOT_DIR);
	assert_int_equal(add_mode(wr, "file/a/b", S_IFREG | 0644),
			 SQFS_ERROR_NOT_DIR);
	assert_int_equal(wt_add_link(wr, "file/h", "s"), SQFS_ERROR_NOT_DIR);

	/* Every refusal above left the writer usable. */
	assert_true(sqfs_writer_usable(wr));

	/* The 256-byte name goes again. */
	memset(name, 'y', 256);
	name[256] = '\0';
	assert_int_equal(add_mode(wr, name, S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(wt_add_link(wr, name, "file"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 0);
	/* replaced by a link to nothing, the long name is dropped again
	 * (extraction could not create it) */
	assert_int_equal(wt_add_link(wr, name, "missing"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 1);
	/* a link to itself keeps the object the path named (GNU tar keeps
	 * the file too) */
	assert_int_equal(wt_add_link(wr, "file", "file"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 0);
	/* two links naming each other before either exists form a loop */
	assert_int_equal(wt_add_link(wr, "loop1", "loop2"), 0);
	assert_int_equal(wt_add_link(wr, "loop2", "loop1"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 2);

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	/* None of the refused calls left anything behind. */
	wt_check_image(&tmp, &model);
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

typedef struct {
	char text[4096];
	int count;
} report_t;

static void report(void *user, const char *path, const char *target)
{
	report_t *r = user;
	size_t len = strlen(r->text);

	snprintf(r->text + len, sizeof(r->text) - len, "%s->%s;", path, target);
	r->count += 1;
}

static void add_broken_links(sqfs_writer_t *wr, wt_model_t *m)
{
	wt_entry_t *e;

	wt_model_set(m, "", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(wt_add_link(wr, "a/missing", "nope"), 0);
	assert_int_equal(wt_add_link(wr, "a/todir", "/a/"), 0);
	assert_int_equal(wt_add_link(wr, "a/toroot", "/"), 0);
	assert_int_equal(wt_add_link(wr, "loop1", "loop2"), 0);
	assert_int_equal(wt_add_link(wr, "loop2", "./loop1"), 0);
	assert_int_equal(wt_add_link(wr, "self", "self"), 0);
	assert_int_equal(wt_add_link(wr, "chain", "a/missing"), 0);
	assert_int_equal(wt_add_link(wr, "through", "f/x"), 0);
	assert_int_equal(wt_add_link(wr, "good", "f"), 0);
	assert_int_equal(wt_add_link(wr, "good2", "good"), 0);
	assert_int_equal(wt_add_link(wr, "gone", "d/gone"), 0);
	assert_int_equal(add_mode(wr, "d", S_IFDIR | 0755), 0);
	assert_int_equal(add_mode(wr, "d/gone", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	e = wt_model_set(m, "f", S_IFREG | 0644, 0, 0, 0);
	e->size = 4;
	e->kind = TEST_DATA_TEXT;
	e->seed = 1;
	wt_write_file(wr, e, NULL, 0);
	/* The directory holding the target of "gone" goes away. */
	assert_int_equal(add_mode(wr, "d", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);

	wt_model_set(m, "a", S_IFDIR | 0755, 0, 0, 0);
	wt_model_set(m, "d", S_IFREG | 0644, 0, 0, 0);
	e = wt_model_set(m, "good", 0, 0, 0, 0);
	e->link_of = strdup("f");
	e = wt_model_set(m, "good2", 0, 0, 0, 0);
	e->link_of = strdup("f");
}

static void test_broken_links(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	report_t r;
	wt_tmp_t tmp;

	(void)state;
	wt_tmp_init(&tmp);
	wt_options(&opt);
	opt.flags = SQFS_WRITER_EXPORTABLE;
	wr = wt_create(tmp.image, &opt, &file);
	wt_model_init(&model);
	add_broken_links(wr, &model);

	/* Refused without dropping, and nothing written yet. */
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_NO_ENTRY);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sqfs_writer_drop_broken_links(wr, report, &r), 9);
	assert_int_equal(r.count, 9);
	/* In the order the links were added. */
	assert_string_equal(r.text,
			    "a/missing->nope;a/todir->a;a/toroot->;"
			    "loop1->loop2;loop2->loop1;self->self;"
			    "chain->a/missing;through->f/x;gone->d/gone;");
	assert_int_equal(sqfs_writer_drop_broken_links(wr, report, &r), 0);
	assert_int_equal(r.count, 9);

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	if (wt_have(UNSQUASHFS)) {
		char cmd[PATH_MAX + 64], *out;
		int status;

		snprintf(cmd, sizeof(cmd), "%s -s '%s'", UNSQUASHFS, tmp.image);
		out = wt_run(cmd, &status);
		assert_int_equal(status, 0);
		assert_non_null(strstr(out, "exportable via NFS"));
		free(out);
	}
	wt_check_image(&tmp, &model);
	wt_tmp_cleanup(&tmp);
	wt_model_free(&model);
}

/* The words of the last failure contain want. */
#define assert_words(wr, want)                                          \
	do {                                                            \
		const char *got_ = sqfs_writer_error(wr);               \
		if (strstr(got_, (want)) == NULL)                       \
			fail_msg("words '%s' lack '%s'", got_, (want)); \
	} while (0)

/*
 * Every refusal says what was wrong, in words a tool can pass on: the
 * format's limits, the offending value, the part of the path at fault.
 * A failure never shows the words of an earlier one.
 */
static void test_error_words(void **state)
{
	sqfs_entry_t ent;
	sqfs_writer_options_t opt;
	char why[SQFS_ERROR_TEXT_SIZE], name[300], target[4200];
	sqfs_xattr_t x;
	sqfs_writer_t *wr;
	sqfs_file_t *file;

	(void)state;
	wr = memory_writer(&file);
	assert_string_equal(sqfs_writer_error(wr), "no error");
	assert_string_equal(sqfs_writer_error(NULL), "no writer");

	assert_int_equal(add_mode(wr, "a/../b", S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "'..' in the path");
	assert_int_equal(wt_add_link(wr, "h", "x/../y"),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "'..' in the hard link target");
	assert_int_equal(add_mode(wr, NULL, S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "the path is missing");
	assert_int_equal(sqfs_writer_add(wr, NULL, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "no entry");

	memset(name, 'n', 257);
	name[257] = '\0';
	assert_int_equal(add_mode(wr, name, S_IFDIR | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "a name in the path is 257 bytes long, more than "
			    "256");

	assert_int_equal(add_mode(wr, "", S_IFREG | 0644),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "the root can only be a directory");
	assert_int_equal(wt_add_link(wr, "/", "f"), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "the root can only be a directory");

	assert_int_equal(add_mode(wr, "f", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(add_mode(wr, "f/g/h", S_IFDIR | 0755),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_writer_error(wr), "'f': not a directory");
	assert_int_equal(add_mode(wr, "d/e", S_IFDIR | 0755), 0);
	assert_int_equal(add_mode(wr, "d/e/f", S_IFREG | 0644), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(add_mode(wr, "//d/./e/f/x", S_IFDIR | 0755),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_writer_error(wr),
			    "'d/./e/f': not a directory");

	ent = wt_make_entry("d", S_IFDIR | 0755, 0, 0, 0);
	x.key = "foo.x";
	x.value = "v";
	x.size = 1;
	ent.xattrs = &x;
	ent.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_UNSUPPORTED);
	assert_words(wr, "xattr 'foo.x': namespace not supported");
	x.key = "user.";
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "xattr 'user.': empty name");
	ent.xattrs = NULL;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "1 xattrs but no list");

	ent = wt_make_entry("c", S_IFCHR | 0600, 0, 0, 0);
	ent.rdev_major = 4096;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_OVERFLOW);
	assert_words(wr, "device number 4096:0 does not fit the image "
			 "(major up to 4095, minor up to 1048575)");
	/* With the type taken from the mode, a wrong type cannot be asked
	 * for; a mode of no type at all can. */
	assert_int_equal(add_mode(wr, "c", 0644), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "mode 0644 is of no file type");
	assert_int_equal(add_mode(wr, "c", 0030644), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "mode 030644 is of no file type");
	assert_int_equal(add_mode(wr, "d", S_IFDIR | 0200000 | 0755),
			 SQFS_ERROR_ARG_INVALID);
	assert_words(wr, "has bits besides the type and 07777");
	ent = wt_make_entry("d", S_IFDIR | 0755, 0, 0, 0);
	ent.reserved[6] = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "the reserved room of the entry is not zero");
	ent.reserved[6] = 0;
	ent.flags = 0x8;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "unknown entry flags 0x8");
	ent.flags = 0;
	assert_int_equal(sqfs_writer_add(wr, &ent, SQFS_FILE_NO_SPARSE),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "file flags 0x8 for an entry that is not a regular "
			    "file");
	ent = wt_make_entry("c", S_IFIFO | 0600, 0, 0, 0);
	ent.flags = SQFS_ENTRY_POST;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "a second report of an entry that is not a "
			    "directory");
	ent = wt_make_entry("h", 0, 0, 0, 0);
	ent.hard_link = "f";
	assert_int_equal(sqfs_writer_add(wr, &ent, SQFS_FILE_DONT_FRAGMENT),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "file flags 0x2 for a hard link");

	assert_int_equal(add_symlink(wr, "s", ""), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "symlink with an empty target");
	assert_int_equal(add_symlink(wr, "s", NULL), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "no symlink target");
	memset(target, 't', 4097);
	target[4097] = '\0';
	assert_int_equal(add_symlink(wr, "s", target), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "symlink target longer than 4096 bytes");

	ent = wt_make_entry("g", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &ent, 0x80),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "unknown file flags 0x80");
	ent.size = UINT64_MAX;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), SQFS_ERROR_OVERFLOW);
	assert_words(wr, "is too large for the image (at most 1073741824 "
			 "blocks of 131072 bytes)");

	/* a success leaves the words; the next failure has its own */
	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_words(wr, "no file is open");
	ent.size = 0;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	assert_words(wr, "no file is open");
	assert_int_equal(add_mode(wr, "x", S_IFDIR | 0755),
			 SQFS_ERROR_SEQUENCE);
	assert_words(wr, "a file is still open");
	assert_int_equal(sqfs_writer_end_file(wr), 0);

	assert_int_equal(wt_add_link(wr, "l", "nowhere"), 0);
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_NO_ENTRY);
	assert_string_equal(sqfs_writer_error(wr),
			    "hard link 'l': target 'nowhere' does not exist "
			    "or is a directory");
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 1);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), "the image is finished");
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	/* create has no object to keep words on: they go to why */
	wt_options(&opt);
	opt.block_size = 3000;
	opt.compressor.block_size = 3000;
	file = test_memory_file(NULL, 0);
	memset(why, 'x', sizeof(why));
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, why),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	assert_string_equal(why, "block size 3000 is not a power of two from "
				 "4096 to 1048576");
	wt_options(&opt);
	opt.compressor.block_size = 65536;
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_non_null(strstr(why, "set up for blocks of 65536 bytes"));
	wt_options(&opt);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, why), 0);
	assert_string_equal(why, "");
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	file = test_memory_file("x", 1);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(why, "the output file is not empty");
	sqfs_file_destroy(file);
}

/* ---- refusals and failures of the writer --------------------------------- */

/*
 * What a finished image in memory holds, read back with the library's own
 * reader (so these tests need no external tool): every entry but the root
 * in walk order as "path mode uid/gid;" (regular files add their size as
 * " =size"), and the ids in the id table.
 */
typedef struct {
	char *entries;
	size_t len, cap;
	uint32_t ids[8];
	uint32_t id_count;
} image_view_t;

static void view_append(image_view_t *v, const char *text)
{
	size_t n = strlen(text);

	if (v->len + n + 1 > v->cap) {
		v->cap = (v->len + n + 1) * 2;
		v->entries = realloc(v->entries, v->cap);
		assert_non_null(v->entries);
	}
	memcpy(v->entries + v->len, text, n + 1);
	v->len += n;
}

static void read_back(sqfs_file_t *file, image_view_t *v)
{
	char why[SQFS_ERROR_TEXT_SIZE], line[600];
	sqfs_walk_entry_t ent;
	sqfs_image_t *img = NULL;
	sqfs_walker_t *w = NULL;
	int ret;

	memset(v, 0, sizeof(*v));
	view_append(v, "");
	ret = sqfs_image_open(file, &img, why);
	if (ret != 0)
		fail_msg("the image does not open: %s", why);
	v->id_count = sqfs_image_super(img)->id_count;
	for (uint16_t i = 0; i < v->id_count && i < 8; ++i)
		assert_int_equal(sqfs_image_get_id(img, i, &v->ids[i]), 0);

	assert_int_equal(sqfs_walker_create(img, "", 0, 0, &w), 0);
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		uint32_t uid, gid;
		int n;

		if (ent.depth == 0)
			continue;
		assert_int_equal(
		    sqfs_image_inode_owner(img, ent.inode, &uid, &gid), 0);
		n = snprintf(line, sizeof(line), "%s 0%o %u/%u", ent.path,
			     (unsigned int)sqfs_inode_mode(ent.inode), uid,
			     gid);
		if ((sqfs_inode_mode(ent.inode) & S_IFMT) == S_IFREG)
			snprintf(
			    line + n, sizeof(line) - (size_t)n, " =%llu",
			    (unsigned long long)ent.inode->data.file.file_size);
		view_append(v, line);
		view_append(v, ";");
	}
	assert_int_equal(ret, 1);
	sqfs_walker_destroy(w);
	sqfs_image_destroy(img);
}

static void view_free(image_view_t *v)
{
	free(v->entries);
	memset(v, 0, sizeof(*v));
}

/* The add is refused with code, and the writer stays usable and holds no
 * id it did not hold before. */
static void refused(sqfs_writer_t *wr, const sqfs_entry_t *e,
		    unsigned int file_flags, int code)
{
	sqfs_writer_stats_t before, after;
	int ret;

	sqfs_writer_get_stats(wr, &before);
	ret = sqfs_writer_add(wr, e, file_flags);
	if (ret != code)
		fail_msg("'%s': %d (%s), expected %d",
			 e != NULL && e->path != NULL ? e->path : "(null)", ret,
			 sqfs_writer_error(wr), code);
	assert_true(sqfs_writer_usable(wr));
	sqfs_writer_get_stats(wr, &after);
	assert_int_equal(after.ids, before.ids);
}

/* An entry at p/q/r with an owner and a group of its own, never seen. */
static sqfs_entry_t fresh(uint32_t *k, uint32_t mode)
{
	*k += 1;
	return wt_make_entry("p/q/r", mode, 100 + *k, 200 + *k, 0);
}

/*
 * Every kind of refusal of an entry whose parents do not exist yet leaves
 * no trace: no implicit parent, no owner or group id (neither the entry's
 * nor the default ids of the parents it would have made), and the writer
 * goes on to finish a good image. Everything the writer can refuse is
 * checked before it changes anything.
 */
static void test_refusal_unchanged(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_xattr_t x = {"user.k", "v", 1};
	char name[300], target[4200];
	sqfs_writer_t *wr = NULL;
	sqfs_file_t *file;
	image_view_t view;
	sqfs_entry_t e;
	uint32_t k = 0;

	(void)state;
	wt_options(&opt);
	/* implicit directories would bring in ids 7 and 8 */
	opt.default_uid = 7;
	opt.default_gid = 8;
	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	e = wt_make_entry("", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	e = wt_make_entry("d", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	e = wt_make_entry("d/f", S_IFIFO | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);

	/* xattrs: a namespace the format lacks, a value too large, a key
	 * with no name, a count without a list */
	e = fresh(&k, S_IFIFO | 0644);
	x.key = "foo.x";
	e.xattrs = &x;
	e.xattr_count = 1;
	refused(wr, &e, 0, SQFS_ERROR_UNSUPPORTED);
	x.key = "user.k";
	x.size = 65537;
	refused(wr, &e, 0, SQFS_ERROR_OVERFLOW);
	x.size = 1;
	x.key = "user.";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	x.key = "user.k";
	e.xattrs = NULL;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* symlink targets: none, empty, too long */
	e = fresh(&k, S_IFLNK | 0777);
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e.symlink_target = "";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	memset(target, 't', 4097);
	target[4097] = '\0';
	e.symlink_target = target;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* device numbers beyond the image's */
	e = fresh(&k, S_IFBLK | 0600);
	e.rdev_major = 4096;
	refused(wr, &e, 0, SQFS_ERROR_OVERFLOW);
	e.rdev_major = 1;
	e.rdev_minor = 1u << 20;
	refused(wr, &e, 0, SQFS_ERROR_OVERFLOW);

	/* a file too large, unknown file flags, flags on a directory */
	e = fresh(&k, S_IFREG | 0644);
	e.size = UINT64_MAX;
	refused(wr, &e, 0, SQFS_ERROR_OVERFLOW);
	e.size = 0;
	refused(wr, &e, 0x80, SQFS_ERROR_ARG_INVALID);
	e = fresh(&k, S_IFDIR | 0755);
	refused(wr, &e, SQFS_FILE_DONT_COMPRESS, SQFS_ERROR_ARG_INVALID);

	/* modes: no type, a type the format lacks, bits beyond 07777 */
	e = fresh(&k, 0644);
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e = fresh(&k, 0030644);
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e = fresh(&k, S_IFREG | 0200000 | 0644);
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* reserved room, unknown entry flags, a second report of a
	 * non-directory */
	e = fresh(&k, S_IFIFO | 0644);
	e.reserved[3] = 1;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e.reserved[3] = 0;
	e.flags = 0x100;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e.flags = SQFS_ENTRY_POST;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* hard links: file flags, a target with "..", at the root */
	e = fresh(&k, S_IFIFO | 0644);
	e.hard_link = "d/f";
	refused(wr, &e, SQFS_FILE_DONT_FRAGMENT, SQFS_ERROR_ARG_INVALID);
	e.hard_link = "d/../f";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e.path = "";
	e.hard_link = "d/f";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* paths: ".." and a name too long at the end of a new path */
	e = fresh(&k, S_IFDIR | 0755);
	e.path = "p/q/../r";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	memcpy(name, "p/q/", 4);
	memset(name + 4, 'n', 257);
	name[261] = '\0';
	e.path = name;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	/* a path through a FIFO, below a directory that exists */
	e = fresh(&k, S_IFDIR | 0755);
	e.path = "d/f/x/y";
	refused(wr, &e, 0, SQFS_ERROR_NOT_DIR);

	/* a file still open */
	e = wt_make_entry("open", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "data", 4), 0);
	e = fresh(&k, S_IFDIR | 0755);
	refused(wr, &e, 0, SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_end_file(wr), 0);

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_string_equal(view.entries, "d 040755 0/0;d/f 010644 0/0;"
					  "open 0100644 0/0 =4;");
	assert_int_equal(view.id_count, 1);
	assert_int_equal(view.ids[0], 0);
	view_free(&view);
	sqfs_file_destroy(file);
}

/* Add a FIFO "f<n>" owned by n:n. */
static int add_owned(sqfs_writer_t *wr, uint32_t n)
{
	char name[32];
	sqfs_entry_t e;

	snprintf(name, sizeof(name), "f%05u", n);
	e = wt_make_entry(name, S_IFIFO | 0644, n, n, 0);
	return sqfs_writer_add(wr, &e, 0);
}

/*
 * The image holds 65535 different ids: the entry that would need a
 * 65536th is refused (LIMIT), the writer stays usable, entries with ids it
 * holds still go in, and the image finishes with 65535 ids.
 */
static void test_id_limit(void **state)
{
	sqfs_writer_stats_t st;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	image_view_t view;
	sqfs_entry_t e;

	(void)state;
	wr = memory_writer(&file);
	/* 0 .. 65534, the default ids (0) among them */
	for (uint32_t n = 0; n < SQFS_MAX_IDS; ++n)
		assert_int_equal(add_owned(wr, n), 0);
	sqfs_writer_get_stats(wr, &st);
	assert_int_equal(st.ids, SQFS_MAX_IDS);

	e = wt_make_entry("over/a/b", S_IFIFO | 0644, SQFS_MAX_IDS, 0, 0);
	refused(wr, &e, 0, SQFS_ERROR_LIMIT);
	assert_words(wr, "owner 65535, group 0: the image holds at most 65535 "
			 "different ids");
	e.uid = 0;
	e.gid = 70000;
	refused(wr, &e, 0, SQFS_ERROR_LIMIT);
	e.gid = 0;
	e.path = "fine/x";
	e.uid = 12;
	e.gid = 34;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_true(sqfs_writer_usable(wr));
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_int_equal(view.id_count, SQFS_MAX_IDS);
	assert_null(strstr(view.entries, "over"));
	assert_non_null(strstr(view.entries, ";fine 040755 0/0;fine/x "
					     "010644 12/34;"));
	view_free(&view);
	sqfs_file_destroy(file);
}

/*
 * The root takes the default ids when the image is finished, unless it was
 * added: their room is kept for it, so that finishing never runs out of
 * ids (and never fails the writer) after every entry was taken.
 */
static void test_id_limit_root_defaults(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;
	sqfs_file_t *file;
	image_view_t view;
	sqfs_entry_t e;
	uint32_t n;

	(void)state;
	wt_options(&opt);
	opt.default_uid = 70000;
	opt.default_gid = 70000;
	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	for (n = 0; n < SQFS_MAX_IDS - 1; ++n)
		assert_int_equal(add_owned(wr, n), 0);
	/* 65534 ids and the root's 70000 fill the table */
	assert_int_equal(add_owned(wr, n), SQFS_ERROR_LIMIT);
	assert_true(sqfs_writer_usable(wr));
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_int_equal(view.id_count, SQFS_MAX_IDS);
	assert_non_null(strstr(view.entries, "f65533 010644 65533/65533;"));
	assert_null(strstr(view.entries, "f65534"));
	view_free(&view);
	sqfs_file_destroy(file);

	/* A root added with ids the table holds frees the room again. */
	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	for (n = 0; n < SQFS_MAX_IDS - 1; ++n)
		assert_int_equal(add_owned(wr, n), 0);
	e = wt_make_entry("/", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(add_owned(wr, n), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_int_equal(view.id_count, SQFS_MAX_IDS);
	assert_non_null(strstr(view.entries, "f65534 010644 65534/65534;"));
	view_free(&view);
	sqfs_file_destroy(file);
}

/* ---- a writer that fails ------------------------------------------------- */

#define FAIL_BLOCKS 6

/*
 * Write an image of one file of FAIL_BLOCKS random blocks and a tail,
 * then a FIFO, allowing budget writes once the writer is created. Returns
 * the code of the first call that failed (0: none); *writes gets the
 * number of writes made after creation.
 */
static int failing_run(size_t budget, size_t *writes)
{
	const size_t bs = SQFS_DEFAULT_BLOCK_SIZE;
	uint8_t *data =
	    test_make_data(FAIL_BLOCKS * bs + 1000, TEST_DATA_RANDOM, 11);
	char first[SQFS_ERROR_TEXT_SIZE], later[SQFS_ERROR_TEXT_SIZE + 64];
	sqfs_writer_options_t opt;
	test_failing_file_t *f = test_failing_file(test_memory_file(NULL, 0));
	sqfs_writer_t *wr = NULL;
	sqfs_entry_t e;
	size_t created;
	int ret;

	assert_non_null(data);
	wt_options(&opt);
	/* everything on this thread: a failure shows in the call that
	 * caused it or a later one, never concurrently */
	opt.num_jobs = 0;
	assert_int_equal(sqfs_writer_create(&f->base, &opt, &wr, NULL), 0);
	created = f->writes;
	f->write_calls = budget;

	e = wt_make_entry("dir/big", S_IFREG | 0644, 1, 1, 0);
	e.size = FAIL_BLOCKS * bs + 1000;
	ret = sqfs_writer_add(wr, &e, 0);
	for (size_t off = 0; ret == 0 && off < e.size; off += 4096) {
		size_t n = e.size - off < 4096 ? e.size - off : 4096;

		ret = sqfs_writer_append(wr, data + off, n);
	}
	if (ret == 0)
		ret = sqfs_writer_end_file(wr);
	if (ret == 0) {
		e = wt_make_entry("fifo", S_IFIFO | 0644, 2, 2, 0);
		ret = sqfs_writer_add(wr, &e, 0);
	}
	if (ret == 0)
		ret = sqfs_writer_finish(wr);
	*writes = f->writes - created;
	free(data);

	if (ret == 0) {
		assert_true(sqfs_writer_usable(wr));
		sqfs_writer_destroy(wr);
		sqfs_file_destroy(&f->base);
		return 0;
	}

	/* a failure of the writer, not a refusal */
	assert_int_equal(ret, SQFS_ERROR_IO);
	assert_false(sqfs_writer_usable(wr));
	snprintf(first, sizeof(first), "%s", sqfs_writer_error(wr));
	snprintf(later, sizeof(later), "the writer failed earlier: %s", first);

	/* every later call says so, with the words of the failure; even
	 * one that would have been a refusal */
	f->write_calls = UINT64_MAX;
	e = wt_make_entry("after", S_IFIFO | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_add(wr, NULL, 0), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	e = wt_make_entry("after2", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_append_hole(wr, 10), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_end_file(wr), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL),
			 SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_int_equal(sqfs_writer_finish(wr), SQFS_ERROR_SEQUENCE);
	assert_string_equal(sqfs_writer_error(wr), later);
	assert_false(sqfs_writer_usable(wr));

	sqfs_writer_destroy(wr);
	sqfs_file_destroy(&f->base);
	return ret;
}

/*
 * A write that fails makes the writer unusable, wherever it happens: in
 * the data of a file, at its end, or while finishing. Each run allows one
 * more write than the last, until the image is complete.
 */
static void test_writer_failure(void **state)
{
	size_t total, writes, budget, failed = 0;

	(void)state;
	assert_int_equal(failing_run(SIZE_MAX, &total), 0);
	/* the data blocks at least go out before the image is finished */
	assert_true(total > FAIL_BLOCKS);
	for (budget = 0; budget < total; ++budget) {
		assert_int_equal(failing_run(budget, &writes), SQFS_ERROR_IO);
		assert_int_equal(writes, budget);
		failed += 1;
	}
	assert_int_equal(failing_run(total, &writes), 0);
	assert_int_equal(failed, total);
}

/*
 * A regular file's size is checked before anything is stored: one that
 * needs more blocks than the image can list is refused (OVERFLOW) and
 * changes nothing. 0 means not known; what is appended is what is stored.
 */
/*
 * An xattr set whose names Linux could not list whole (more than 64 KiB
 * of names with their NULs) is refused, the writer unchanged; a key given
 * twice counts once; a set at the limit goes in and reads back whole.
 */
static void test_xattr_list_limit(void **state)
{
	enum { KEYS = 6000 };
	static char names[KEYS][16];
	static sqfs_xattr_t x[KEYS + 64];
	sqfs_xattr_t *list = NULL;
	sqfs_image_t *img;
	sqfs_inode_t *root;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	sqfs_entry_t e;
	size_t count = 0, total = 0, fit;

	(void)state;
	/* "user.k00000" and its NUL: 12 bytes a key */
	for (size_t i = 0; i < KEYS; ++i) {
		snprintf(names[i], sizeof(names[i]), "user.k%05zu", i);
		x[i].key = names[i];
		x[i].value = "v";
		x[i].size = 1;
	}
	fit = 65536 / 12;
	wr = memory_writer(&file);
	sqfs_entry_init(&e, "", S_IFDIR | 0755, 0, 0, 0);
	e.xattrs = x;
	e.xattr_count = fit + 1;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), SQFS_ERROR_OVERFLOW);
	assert_words(wr, "more than Linux lists (65536)");
	assert_true(sqfs_writer_usable(wr));
	/* the same keys again do not count twice */
	memcpy(x + fit, x, 64 * sizeof(x[0]));
	e.xattr_count = fit + 64;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(sqfs_image_read_xattrs(img, root, &list, &count), 0);
	assert_int_equal(count, fit);
	for (size_t i = 0; i < count; ++i)
		total += strlen(list[i].key) + 1;
	assert_true(total <= 65536);
	sqfs_xattr_list_free(list, count);
	free(root);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

static void test_size_check(void **state)
{
	const uint64_t bs = SQFS_DEFAULT_BLOCK_SIZE;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	image_view_t view;
	sqfs_entry_t e;

	(void)state;
	wr = memory_writer(&file);

	e = wt_make_entry("p/q/huge", S_IFREG | 0644, 5, 5, 0);
	e.size = (1ull << 30) * bs + bs;
	refused(wr, &e, 0, SQFS_ERROR_OVERFLOW);
	assert_words(wr, "size 140737488486400 is too large for the image "
			 "(at most 1073741824 blocks of 131072 bytes)");
	e.size = UINT64_MAX;
	refused(wr, &e, SQFS_FILE_DONT_FRAGMENT, SQFS_ERROR_OVERFLOW);

	/* the largest size taken, then less data than announced */
	e = wt_make_entry("max", S_IFREG | 0644, 0, 0, 0);
	e.size = (1ull << 30) * bs;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "abc", 3), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	/* not known beforehand */
	e = wt_make_entry("unknown", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "hello", 5), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	/* announced right */
	e = wt_make_entry("normal", S_IFREG | 0644, 0, 0, 0);
	e.size = 1000;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append_hole(wr, 1000), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	/* the size of anything but a regular file is not looked at */
	e = wt_make_entry("dir", S_IFDIR | 0755, 0, 0, 0);
	e.size = UINT64_MAX;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);

	assert_true(sqfs_writer_usable(wr));
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_string_equal(view.entries,
			    "dir 040755 0/0;max 0100644 0/0 =3;"
			    "normal 0100644 0/0 =1000;unknown 0100644 0/0 =5;");
	assert_int_equal(view.id_count, 1);
	view_free(&view);
	sqfs_file_destroy(file);
}

/*
 * SQFS_ENTRY_POST marks a reader's second report of a directory: the
 * writer takes it as nothing new (0, and no change at all: not the
 * attributes, not a parent, not an id), and refuses it on anything else.
 */
static void test_entry_post(void **state)
{
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	image_view_t view;
	sqfs_entry_t e;

	(void)state;
	wr = memory_writer(&file);
	e = wt_make_entry("d", S_IFDIR | 0750, 1, 2, 5);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);

	e = wt_make_entry("d", S_IFDIR | 0700, 3, 4, 6);
	e.flags = SQFS_ENTRY_POST;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	e.path = "p/q";
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	e.path = "";
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);

	e = wt_make_entry("fifo", S_IFIFO | 0644, 3, 4, 6);
	e.flags = SQFS_ENTRY_POST;
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);
	e = wt_make_entry("link", S_IFDIR | 0755, 3, 4, 6);
	e.flags = SQFS_ENTRY_POST;
	e.hard_link = "d";
	refused(wr, &e, 0, SQFS_ERROR_ARG_INVALID);

	assert_true(sqfs_writer_usable(wr));
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	read_back(file, &view);
	assert_string_equal(view.entries, "d 040750 1/2;");
	/* the root's default 0, and d's 1 and 2 */
	assert_int_equal(view.id_count, 3);
	view_free(&view);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_errors),
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_broken_links),
	    cmocka_unit_test(test_error_words),
	    cmocka_unit_test(test_refusal_unchanged),
	    cmocka_unit_test(test_id_limit),
	    cmocka_unit_test(test_id_limit_root_defaults),
	    cmocka_unit_test(test_writer_failure),
	    cmocka_unit_test(test_size_check),
	    cmocka_unit_test(test_xattr_list_limit),
	    cmocka_unit_test(test_entry_post),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
