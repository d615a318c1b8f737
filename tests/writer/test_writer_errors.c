/* SPDX-License-Identifier: MIT */
/*
 * The high-level writer refuses what it must: calls out of sequence, bad
 * paths and attributes, bad options; and it handles broken hard links.
 * A refused call leaves no trace in the image.
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
	bad.flags = 0x100;
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
	sqfs_entry_attr_t fa = wt_attr(S_IFREG | 0644, 0, 0, 0);
	sqfs_entry_attr_t da = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	sqfs_entry_attr_t ca = wt_attr(S_IFCHR | 0644, 0, 0, 0);
	sqfs_writer_t *wr;
	sqfs_file_t *file;

	(void)state;
	wr = memory_writer(&file);

	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_append_hole(wr, 5), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_end_file(wr), SQFS_ERROR_SEQUENCE);

	assert_int_equal(sqfs_writer_begin_file(wr, "f", &fa), 0);
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &da),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &fa, "t"),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_add_special(wr, "c", &ca),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "h", "f"),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_begin_file(wr, "g", &fa),
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
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &da),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_begin_file(wr, "g", &fa),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "h", "f"),
			 SQFS_ERROR_SEQUENCE);

	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	/* Destroying a writer in the middle of a file is fine. */
	wr = memory_writer(&file);
	assert_int_equal(sqfs_writer_begin_file(wr, "f", &fa), 0);
	assert_int_equal(sqfs_writer_append(wr, "abc", 3), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
}

static void test_bad_arguments(void **state)
{
	sqfs_entry_attr_t fa = wt_attr(S_IFREG | 0644, 0, 0, 0);
	sqfs_entry_attr_t da = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	sqfs_entry_attr_t attr;
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
	assert_int_equal(sqfs_writer_add_dir(wr, NULL, &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_dir(wr, "..", &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_dir(wr, "p/../q", &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_dir(wr, "p/q/..", &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_begin_file(wr, "", &fa),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_begin_file(wr, "/./", &fa),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_symlink(wr, "/", &fa, "x"),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_hard_link(wr, ".", "x"),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "h", "a/../b"),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "h", NULL),
			 SQFS_ERROR_ARG_INVALID);
	memset(name, 'x', 259);
	name[259] = '\0';
	assert_int_equal(sqfs_writer_add_dir(wr, name, &da),
			 SQFS_ERROR_ARG_INVALID);
	name[0] = 'p';
	name[1] = '/';
	assert_int_equal(sqfs_writer_add_dir(wr, name, &da),
			 SQFS_ERROR_ARG_INVALID);
	/* 256 bytes is the format's limit and allowed (extraction on most
	 * file systems would fail, so it is removed again below). */
	memset(name, 'y', 256);
	name[256] = '\0';
	assert_int_equal(sqfs_writer_add_dir(wr, name, &da), 0);

	/* Attributes. */
	assert_int_equal(sqfs_writer_add_dir(wr, "d", NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &fa),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_begin_file(wr, "f", &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_special(wr, "c", &fa),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_special(wr, "c", &da),
			 SQFS_ERROR_ARG_INVALID);
	attr = wt_attr(S_IFCHR | 0644, 0, 0, 0);
	attr.rdev_major = 4096;
	assert_int_equal(sqfs_writer_add_special(wr, "c", &attr),
			 SQFS_ERROR_OVERFLOW);
	attr.rdev_major = 1;
	attr.rdev_minor = 0x100000;
	assert_int_equal(sqfs_writer_add_special(wr, "c", &attr),
			 SQFS_ERROR_OVERFLOW);
	attr = wt_attr(0100000000, 0, 0, 0);
	assert_int_equal(sqfs_writer_begin_file(wr, "f", &attr),
			 SQFS_ERROR_ARG_INVALID);

	/* Symlink targets: 1 .. 4096 bytes. */
	attr = wt_attr(S_IFLNK | 0777, 0, 0, 0);
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &attr, ""),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &attr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	memset(target, 't', 4097);
	target[4097] = '\0';
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &attr, target),
			 SQFS_ERROR_ARG_INVALID);
	target[4096] = '\0';
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &attr, target), 0);
	/* Linux cannot extract a target of PAGE_SIZE: replace it. */
	target[4000] = '\0';
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &attr, target), 0);
	e = wt_model_set(&model, "s", S_IFLNK | 0777, 0, 0, 0);
	e->target = strdup(target);

	/* Xattrs. */
	attr = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	attr.xattrs = &x;
	attr.xattr_count = 1;
	x.key = "system.posix_acl_access";
	x.value = "v";
	x.size = 1;
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_UNSUPPORTED);
	x.key = "user.";
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_ARG_INVALID);
	memset(name, 'k', 299);
	memcpy(name, "user.", 5);
	name[256] = '\0';
	x.key = name;
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_ARG_INVALID);
	x.key = "user.big";
	x.size = 65537;
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_OVERFLOW);
	x.size = 1;
	x.value = NULL;
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_ARG_INVALID);
	attr.xattrs = NULL;
	assert_int_equal(sqfs_writer_add_dir(wr, "x/y", &attr),
			 SQFS_ERROR_ARG_INVALID);

	/* A path through a non-directory. */
	assert_int_equal(sqfs_writer_begin_file(wr, "file", &fa), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	wt_model_set(&model, "file", S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add_dir(wr, "file/sub", &da),
			 SQFS_ERROR_NOT_DIR);
	assert_int_equal(sqfs_writer_begin_file(wr, "file/a/b", &fa),
			 SQFS_ERROR_NOT_DIR);

	/* The 256-byte name goes again. */
	memset(name, 'y', 256);
	name[256] = '\0';
	assert_int_equal(sqfs_writer_begin_file(wr, name, &fa), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, name, "file"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 0);
	/* replaced by a link to nothing, the long name is dropped again
	 * (extraction could not create it) */
	assert_int_equal(sqfs_writer_add_hard_link(wr, name, "missing"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 1);
	/* a link to itself keeps the object the path named (GNU tar keeps
	 * the file too) */
	assert_int_equal(sqfs_writer_add_hard_link(wr, "file", "file"), 0);
	assert_int_equal(sqfs_writer_drop_broken_links(wr, NULL, NULL), 0);
	/* two links naming each other before either exists form a loop */
	assert_int_equal(sqfs_writer_add_hard_link(wr, "loop1", "loop2"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "loop2", "loop1"), 0);
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
	sqfs_entry_attr_t fa = wt_attr(S_IFREG | 0644, 0, 0, 0);
	sqfs_entry_attr_t da = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	wt_entry_t *e;

	wt_model_set(m, "", S_IFDIR | 0755, 0, 0, 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "a/missing", "nope"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "a/todir", "/a/"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "a/toroot", "/"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "loop1", "loop2"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "loop2", "./loop1"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "self", "self"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "chain", "a/missing"),
			 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "through", "f/x"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "good", "f"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "good2", "good"), 0);
	assert_int_equal(sqfs_writer_add_hard_link(wr, "gone", "d/gone"), 0);
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &da), 0);
	assert_int_equal(sqfs_writer_begin_file(wr, "d/gone", &fa), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	e = wt_model_set(m, "f", S_IFREG | 0644, 0, 0, 0);
	e->size = 4;
	e->kind = TEST_DATA_TEXT;
	e->seed = 1;
	wt_write_file(wr, e, NULL, 0);
	/* The directory holding the target of "gone" goes away. */
	assert_int_equal(sqfs_writer_begin_file(wr, "d", &fa), 0);
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
	sqfs_entry_attr_t fa = wt_attr(S_IFREG | 0644, 0, 0, 0);
	sqfs_entry_attr_t da = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	sqfs_entry_attr_t attr;
	sqfs_writer_options_t opt;
	char why[SQFS_ERROR_TEXT_SIZE], name[300], target[4200];
	sqfs_xattr_t x;
	sqfs_writer_t *wr;
	sqfs_file_t *file;

	(void)state;
	wr = memory_writer(&file);
	assert_string_equal(sqfs_writer_error(wr), "no error");
	assert_string_equal(sqfs_writer_error(NULL), "no writer");

	assert_int_equal(sqfs_writer_add_dir(wr, "a/../b", &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "'..' in the path");
	assert_int_equal(sqfs_writer_add_hard_link(wr, "h", "x/../y"),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "'..' in the hard link target");

	memset(name, 'n', 257);
	name[257] = '\0';
	assert_int_equal(sqfs_writer_add_dir(wr, name, &da),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "a name in the path is 257 bytes long, more than "
			    "256");

	assert_int_equal(sqfs_writer_begin_file(wr, "", &fa),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "the root can only be a directory");

	assert_int_equal(sqfs_writer_begin_file(wr, "f", &fa), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_add_dir(wr, "f/g/h", &da),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_writer_error(wr), "'f' is not a directory");
	assert_int_equal(sqfs_writer_add_dir(wr, "d/e", &da), 0);
	assert_int_equal(sqfs_writer_begin_file(wr, "d/e/f", &fa), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_add_dir(wr, "//d/./e/f/x", &da),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_writer_error(wr),
			    "'d/./e/f' is not a directory");

	attr = da;
	x.key = "foo.x";
	x.value = "v";
	x.size = 1;
	attr.xattrs = &x;
	attr.xattr_count = 1;
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &attr),
			 SQFS_ERROR_UNSUPPORTED);
	assert_words(wr, "xattr 'foo.x': namespace not supported");
	x.key = "user.";
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &attr),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "xattr 'user.': empty name");

	attr = wt_attr(S_IFCHR | 0600, 0, 0, 0);
	attr.rdev_major = 4096;
	assert_int_equal(sqfs_writer_add_special(wr, "c", &attr),
			 SQFS_ERROR_OVERFLOW);
	assert_words(wr, "device number 4096:0 does not fit the image "
			 "(major up to 4095, minor up to 1048575)");
	attr = wt_attr(S_IFREG | 0644, 0, 0, 0);
	assert_int_equal(sqfs_writer_add_special(wr, "c", &attr),
			 SQFS_ERROR_ARG_INVALID);
	assert_words(wr, "is not a device, FIFO or socket");
	attr = wt_attr(S_IFDIR | 0755, 0, 0, 0);
	attr.mode |= 0200000;
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &attr),
			 SQFS_ERROR_ARG_INVALID);
	assert_words(wr, "has bits besides the type and 07777");
	attr = da;
	attr.reserved[7] = 1;
	assert_int_equal(sqfs_writer_add_dir(wr, "d", &attr),
			 SQFS_ERROR_ARG_INVALID);
	assert_words(wr, "reserved room");

	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &fa, ""),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "symlink with an empty target");
	memset(target, 't', 4097);
	target[4097] = '\0';
	assert_int_equal(sqfs_writer_add_symlink(wr, "s", &fa, target),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr),
			    "symlink target longer than 4096 bytes");

	assert_int_equal(sqfs_writer_begin_file_flags(wr, "g", &fa, 0x80),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_writer_error(wr), "unknown file flags 0x80");

	/* a success leaves the words; the next failure has its own */
	assert_int_equal(sqfs_writer_append(wr, "x", 1), SQFS_ERROR_SEQUENCE);
	assert_words(wr, "no file is open");
	assert_int_equal(sqfs_writer_begin_file(wr, "g", &fa), 0);
	assert_words(wr, "no file is open");
	assert_int_equal(sqfs_writer_add_dir(wr, "x", &da),
			 SQFS_ERROR_SEQUENCE);
	assert_words(wr, "a file is still open");
	assert_int_equal(sqfs_writer_end_file(wr), 0);

	assert_int_equal(sqfs_writer_add_hard_link(wr, "l", "nowhere"), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_errors),
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_broken_links),
	    cmocka_unit_test(test_error_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
