/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "reader/dir_image.h"

#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/super.h"
#include "sqfs/walker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One reported entry, flattened to text: "path|depth|type|link|post". */
static char *describe(const sqfs_walk_entry_t *ent)
{
	char *s = NULL;
	int len;

	len = asprintf(&s, "%s|%u|%u|%s|%d", ent->path, ent->depth,
		       sqfs_inode_type_basic(ent->inode->type),
		       ent->link_target ? ent->link_target : "-",
		       ent->post ? 1 : 0);
	assert_true(len > 0);
	return s;
}

/* Walk img from path and compare the reports with expect. */
static void expect_walk(sqfs_image_t *img, const char *path, unsigned int flags,
			const char *const *expect, size_t count)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	size_t i = 0;
	char *s;
	int ret;

	assert_int_equal(sqfs_walker_create(img, path, 0, flags, &w), 0);
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		s = describe(&ent);
		if (i >= count)
			fail_msg("extra entry %s", s);
		if (strcmp(s, expect[i]) != 0)
			fail_msg("entry %zu: got %s, want %s", i, s, expect[i]);
		free(s);
		++i;
	}
	if (ret != 1)
		fail_msg("the walk ended with %d: %s", ret,
			 sqfs_image_error(img));
	assert_int_equal(i, count);
	/* done stays done */
	assert_int_equal(sqfs_walker_next(w, &ent), 1);
	sqfs_walker_destroy(w);
}

/* Walk to the end; return what the walk ended with and count entries. */
static int walk_all(sqfs_image_t *img, const char *path, unsigned int max_depth,
		    unsigned int flags, size_t *count)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	int ret;

	*count = 0;
	ret = sqfs_walker_create(img, path, max_depth, flags, &w);
	if (ret != 0)
		return ret;
	while ((ret = sqfs_walker_next(w, &ent)) == 0)
		*count += 1;
	if (ret < 0)
		assert_int_equal(sqfs_walker_next(w, &ent), ret);
	sqfs_walker_destroy(w);
	return ret;
}

static sqfs_image_t *link_tree(sqfs_file_t **f)
{
	sqfs_writer_t *wr = di_writer(f);

	di_add_file(wr, "a/f", "data");
	di_add_file(wr, "a/g", "other");
	di_add_dir(wr, "a/empty");
	di_add_link(wr, "b/h", "a/f");
	di_add_link(wr, "c/deep/er/i", "a/f");
	di_add_link(wr, "z", "a/f");
	di_add_link(wr, "y", "c/deep/er/i");
	di_add_fifo(wr, "x");
	return di_finish(wr, *f);
}

static void test_links(void **state)
{
	static const char *const expect[] = {
	    "|0|1|-|0",
	    "a|1|1|-|0",
	    "a/empty|2|1|-|0",
	    "a/f|2|2|-|0",
	    "a/g|2|2|-|0",
	    "b|1|1|-|0",
	    "b/h|2|2|a/f|0",
	    "c|1|1|-|0",
	    "c/deep|2|1|-|0",
	    "c/deep/er|3|1|-|0",
	    "c/deep/er/i|4|2|a/f|0",
	    "x|1|6|-|0",
	    "y|1|2|a/f|0",
	    "z|1|2|a/f|0",
	};
	/* from c, the link's first sighting is inside the walk */
	static const char *const expect_c[] = {
	    "|0|1|-|0",
	    "deep|1|1|-|0",
	    "deep/er|2|1|-|0",
	    "deep/er/i|3|2|-|0",
	};
	static const char *const expect_file[] = {"|0|2|-|0"};
	sqfs_image_t *img;
	sqfs_file_t *f;
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	uint32_t numbers[16] = {0}, count = 0, i;
	bool seen[32] = {false};
	(void)state;

	img = link_tree(&f);
	expect_walk(img, "", 0, expect, sizeof(expect) / sizeof(expect[0]));
	expect_walk(img, "/c/", 0, expect_c,
		    sizeof(expect_c) / sizeof(expect_c[0]));
	expect_walk(img, "a/f", 0, expect_file, 1);

	/* every inode exactly once, links aside: numbers are 1..count */
	assert_int_equal(sqfs_walker_create(img, "", 0, 0, &w), 0);
	while (sqfs_walker_next(w, &ent) == 0) {
		if (ent.link_target != NULL) {
			assert_int_equal(ent.inode->nlink, 5);
			continue;
		}
		assert_true(count < 16);
		numbers[count++] = ent.inode->inode_number;
	}
	sqfs_walker_destroy(w);
	assert_int_equal(count, sqfs_image_super(img)->inode_count);
	for (i = 0; i < count; ++i) {
		assert_true(numbers[i] >= 1 && numbers[i] <= count);
		assert_false(seen[numbers[i]]);
		seen[numbers[i]] = true;
	}

	assert_int_equal(sqfs_walker_create(img, "missing", 0, 0, &w),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_walker_create(img, "x/y", 0, 0, &w),
			 SQFS_ERROR_NOT_DIR);
	assert_int_equal(sqfs_walker_create(img, "..", 0, 0, &w),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_walker_create(img, "", 0, 0x80, &w),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_walker_create(NULL, "", 0, 0, &w),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_walker_next(NULL, &ent), SQFS_ERROR_ARG_INVALID);
	sqfs_walker_destroy(NULL);

	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

static void test_post_dirs(void **state)
{
	static const char *const expect[] = {
	    "|0|1|-|0",		 "a|1|1|-|0",
	    "a/empty|2|1|-|0",	 "a/empty|2|1|-|1",
	    "a/f|2|2|-|0",	 "a/g|2|2|-|0",
	    "a|1|1|-|1",	 "b|1|1|-|0",
	    "b/h|2|2|a/f|0",	 "b|1|1|-|1",
	    "c|1|1|-|0",	 "c/deep|2|1|-|0",
	    "c/deep/er|3|1|-|0", "c/deep/er/i|4|2|a/f|0",
	    "c/deep/er|3|1|-|1", "c/deep|2|1|-|1",
	    "c|1|1|-|1",	 "x|1|6|-|0",
	    "y|1|2|a/f|0",	 "z|1|2|a/f|0",
	    "|0|1|-|1",
	};
	static const char *const expect_file[] = {"|0|6|-|0"};
	sqfs_image_t *img;
	sqfs_file_t *f;
	(void)state;

	img = link_tree(&f);
	expect_walk(img, "", SQFS_WALK_POST_DIRS, expect,
		    sizeof(expect) / sizeof(expect[0]));
	expect_walk(img, "x", SQFS_WALK_POST_DIRS, expect_file, 1);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

#define DEEP 200

static void test_deep(void **state)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	char *path = malloc(DEEP * 2 + 16), *p = path;
	size_t i, count;
	uint32_t max = 0;
	(void)state;

	assert_non_null(path);
	for (i = 0; i < DEEP; ++i) {
		*(p++) = 'd';
		*(p++) = '/';
	}
	strcpy(p, "file");
	wr = di_writer(&f);
	di_add_file(wr, path, "bottom");
	/* a link at the top to the file at the bottom, and back */
	di_add_link(wr, "link", path);
	di_add_file(wr, "a", "top");
	p[-1] = '\0';
	strcat(path, "/z");
	di_add_link(wr, path, "a");
	img = di_finish(wr, f);

	assert_int_equal(
	    sqfs_walker_create(img, "", 0, SQFS_WALK_POST_DIRS, &w), 0);
	count = 0;
	while (sqfs_walker_next(w, &ent) == 0) {
		++count;
		if (ent.depth > max)
			max = ent.depth;
		if (sqfs_inode_type_basic(ent.inode->type) == SQFS_INODE_DIR)
			assert_int_equal(strlen(ent.path),
					 ent.depth == 0 ? 0
							: ent.depth * 2 - 1);
		if (strcmp(ent.path, "link") == 0) {
			assert_non_null(ent.link_target);
			assert_int_equal(strlen(ent.link_target), DEEP * 2 + 4);
		}
		if (strchr(ent.path, 'z') != NULL) {
			assert_non_null(ent.link_target);
			assert_string_equal(ent.link_target, "a");
		}
	}
	sqfs_walker_destroy(w);
	/* root and DEEP directories twice, the file, a, link and z */
	assert_int_equal(count, 2 * (DEEP + 1) + 4);
	assert_int_equal(max, DEEP + 1);

	/* the file at the bottom sits at depth DEEP + 1 */
	assert_int_equal(walk_all(img, "", DEEP + 1, 0, &count), 1);
	assert_int_equal(walk_all(img, "", DEEP, 0, &count), SQFS_ERROR_LIMIT);
	assert_int_equal(walk_all(img, "", 50, 0, &count), SQFS_ERROR_LIMIT);
	assert_non_null(
	    strstr(sqfs_image_error(img), "': nested deeper than 50 levels"));
	/* root, a, d(1..50) reported before the limit hits */
	assert_int_equal(count, 52);
	assert_int_equal(walk_all(img, "d/d", DEEP - 1, 0, &count), 1);
	assert_int_equal(walk_all(img, "", 0, 0, &count), 1);
	assert_int_equal(count, DEEP + 5);

	free(path);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

static void test_mksquashfs(void **state)
{
	static const char *const expect[] = {
	    "|0|1|-|0",	 "a|1|1|-|0",	  "a/f|2|2|-|0",     "a/g|2|2|a/f|0",
	    "b|1|1|-|0", "b/c|2|1|-|0",	  "b/c/h|3|2|a/f|0", "b/c/s|3|2|-|0",
	    "e|1|1|-|0", "t|1|2|b/c/s|0",
	};
	char *tmp, *a, *b;
	sqfs_image_t *img;
	sqfs_file_t *f;
	size_t len;
	(void)state;

	if (!di_have_mksquashfs())
		skip();
	tmp = di_tempdir();
	di_mkdir(tmp, "a");
	di_mkdir(tmp, "b");
	di_mkdir(tmp, "b/c");
	di_mkdir(tmp, "e");
	di_touch(tmp, "a/f");
	di_touch(tmp, "b/c/s");
	len = strlen(tmp) + 16;
	a = malloc(len);
	b = malloc(len);
	assert_true(a && b);
	snprintf(a, len, "%s/a/f", tmp);
	snprintf(b, len, "%s/a/g", tmp);
	assert_int_equal(link(a, b), 0);
	snprintf(b, len, "%s/b/c/h", tmp);
	assert_int_equal(link(a, b), 0);
	snprintf(a, len, "%s/b/c/s", tmp);
	snprintf(b, len, "%s/t", tmp);
	assert_int_equal(link(a, b), 0);
	free(a);
	free(b);

	img = di_mksquashfs(tmp, &f);
	expect_walk(img, "", 0, expect, sizeof(expect) / sizeof(expect[0]));
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
	di_cleanup(tmp);
}

/* Many links to one inode, and many inodes, in a wide tree. */
static void test_many(void **state)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	char path[64];
	size_t i, links = 0, count = 0;
	(void)state;

	wr = di_writer(&f);
	di_add_file(wr, "m/target", "x");
	for (i = 0; i < 2000; ++i) {
		snprintf(path, sizeof(path), "d%zu/f%zu", i % 40, i);
		if (i % 2 == 0)
			di_add_link(wr, path, "m/target");
		else
			di_add_fifo(wr, path);
	}
	img = di_finish(wr, f);
	assert_int_equal(sqfs_walker_create(img, "", 0, 0, &w), 0);
	while (sqfs_walker_next(w, &ent) == 0) {
		++count;
		if (ent.link_target != NULL) {
			assert_string_equal(ent.link_target, "d0/f0");
			++links;
		}
	}
	sqfs_walker_destroy(w);
	/* root, 41 directories, the target, 2000 entries */
	assert_int_equal(count, 1 + 41 + 1 + 2000);
	assert_int_equal(links, 1000);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* ---- hostile trees ------------------------------------------------------- */

/* A directory whose listing names itself. */
static void test_self_loop(void **state)
{
	di_craft_t *c = di_craft_new();
	di_listing_t l = {0};
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t ref, fifo;
	size_t count;
	(void)state;

	fifo = di_craft_fifo(c, 1);
	ref = di_craft_next_ref(c);
	di_lst_header(&l, 1, (uint32_t)(ref >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "a", 1);
	di_lst_entry(&l, (uint16_t)(ref & 0xFFFF), 1, SQFS_INODE_DIR, "self",
		     4);
	assert_int_equal(di_craft_dir(c, 2, &l, false, NULL, 0, 0), ref);
	img = di_craft_finish(c, 2, ref, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_LOOP);
	assert_int_equal(count, 2);
	assert_string_equal(sqfs_image_error(img),
			    "'self': directory inode 2 is reached a second "
			    "time (a loop or a directory hard link)");
	assert_int_equal(walk_all(img, "self/self/self", 0, 0, &count),
			 SQFS_ERROR_LOOP);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/*
 * root -> a -> b -> back to a (a loop below the root), or root -> a and
 * root -> c both holding the directory d (a directory hard link).
 */
static void test_loops(void **state)
{
	di_craft_t *c = di_craft_new();
	di_listing_t la = {0}, lb = {0}, lr = {0}, lc = {0};
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t a, b, d, cref, root;
	size_t count;
	(void)state;

	/* inode table order: d, b, a, c, root; refs are predictable */
	d = di_craft_dir(c, 1, NULL, false, NULL, 0, 0);
	b = di_craft_next_ref(c);
	a = b + 32; /* a basic directory inode is 32 bytes */
	di_lst_one(&lb, a, 3, SQFS_INODE_DIR, "up");
	assert_int_equal(di_craft_dir(c, 2, &lb, false, NULL, 0, 0), b);
	di_lst_header(&la, 1, (uint32_t)(b >> 16), 2);
	di_lst_entry(&la, (uint16_t)(b & 0xFFFF), 0, SQFS_INODE_DIR, "b", 1);
	di_lst_entry(&la, (uint16_t)(d & 0xFFFF), -1, SQFS_INODE_DIR, "d", 1);
	assert_int_equal(di_craft_dir(c, 3, &la, false, NULL, 0, 0), a);
	di_lst_one(&lc, d, 1, SQFS_INODE_DIR, "d");
	cref = di_craft_dir(c, 4, &lc, false, NULL, 0, 0);
	di_lst_header(&lr, 1, (uint32_t)(a >> 16), 3);
	di_lst_entry(&lr, (uint16_t)(a & 0xFFFF), 0, SQFS_INODE_DIR, "a", 1);
	di_lst_entry(&lr, (uint16_t)(cref & 0xFFFF), 1, SQFS_INODE_DIR, "c", 1);
	root = di_craft_dir(c, 5, &lr, false, NULL, 0, 0);
	img = di_craft_finish(c, 5, root, &f);

	/* "", a, a/b, then a/b/up is a again */
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_LOOP);
	assert_int_equal(count, 3);
	/* from c: c, c/d fine */
	assert_int_equal(walk_all(img, "c", 0, 0, &count), 1);
	assert_int_equal(count, 2);
	/* from a/b: b, up (= a), up/b is b again */
	assert_int_equal(walk_all(img, "a/b", 0, 0, &count), SQFS_ERROR_LOOP);
	assert_int_equal(count, 2);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	/* the same without the loop: d reached from a and from c */
	c = di_craft_new();
	memset(&la, 0, sizeof(la));
	memset(&lr, 0, sizeof(lr));
	memset(&lc, 0, sizeof(lc));
	d = di_craft_dir(c, 1, NULL, false, NULL, 0, 0);
	di_lst_one(&la, d, 1, SQFS_INODE_DIR, "d");
	a = di_craft_dir(c, 2, &la, false, NULL, 0, 0);
	di_lst_one(&lc, d, 1, SQFS_INODE_DIR, "d");
	cref = di_craft_dir(c, 3, &lc, false, NULL, 0, 0);
	di_lst_header(&lr, 1, (uint32_t)(a >> 16), 2);
	di_lst_entry(&lr, (uint16_t)(a & 0xFFFF), 0, SQFS_INODE_DIR, "a", 1);
	di_lst_entry(&lr, (uint16_t)(cref & 0xFFFF), 1, SQFS_INODE_DIR, "c", 1);
	root = di_craft_dir(c, 4, &lr, false, NULL, 0, 0);
	img = di_craft_finish(c, 4, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_LOOP);
	/* "", a, a/d, c */
	assert_int_equal(count, 4);
	assert_int_equal(walk_all(img, "c", 0, 0, &count), 1);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/*
 * Entries that share inodes in ways a writer never makes: a FIFO with a
 * link count of 1 named twice (still a link), two inodes with one number,
 * a directory with a FIFO's number, an entry numbered unlike its inode.
 */
static void test_aliases(void **state)
{
	static const char *const expect[] = {
	    "|0|1|-|0",
	    "x|1|6|-|0",
	    "y|1|6|x|0",
	    "z|1|6|x|0",
	};
	di_craft_t *c;
	di_listing_t l;
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t fifo, fifo2, dir, root;
	size_t count;
	(void)state;

	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	di_lst_header(&l, 2, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "x", 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "y", 1);
	/* the entry's type is wrong: the inode decides */
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FILE, "z", 1);
	root = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 2, root, &f);
	expect_walk(img, "", 0, expect, 4);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	/* two FIFOs numbered 1 */
	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	fifo2 = di_craft_fifo(c, 1);
	di_lst_header(&l, 1, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "x", 1);
	di_lst_entry(&l, (uint16_t)(fifo2 & 0xFFFF), 0, SQFS_INODE_FIFO, "y",
		     1);
	root = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 2, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_CORRUPTED);
	assert_int_equal(count, 2);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	/* a FIFO and a directory numbered 1, in both orders */
	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	dir = di_craft_dir(c, 1, NULL, false, NULL, 0, 0);
	di_lst_header(&l, 1, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "x", 1);
	di_lst_entry(&l, (uint16_t)(dir & 0xFFFF), 0, SQFS_INODE_DIR, "y", 1);
	root = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 2, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_CORRUPTED);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	dir = di_craft_dir(c, 1, NULL, false, NULL, 0, 0);
	di_lst_header(&l, 1, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(dir & 0xFFFF), 0, SQFS_INODE_DIR, "x", 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "y", 1);
	root = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 2, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_CORRUPTED);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	/* the entry says 2, the inode 1 */
	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	di_lst_one(&l, fifo, 2, SQFS_INODE_FIFO, "x");
	root = di_craft_dir(c, 3, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 3, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_CORRUPTED);
	assert_int_equal(count, 1);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/*
 * Link counts that say less than the names: the first path of an inode
 * met with a count of 1, or of a link group whose names were all met, is
 * in the table of inodes met lately, so a name more still links to it (as
 * squashfs-tools-ng 1.2 writes hard-linked FIFOs); once a later inode of
 * the same slot took its place, the name is an entry of its own.
 */
static void test_undercounted_links(void **state)
{
	static const char *const expect_group[] = {
	    "|0|1|-|0",
	    "x|1|6|-|0",
	    "y|1|6|x|0",
	    "z|1|6|x|0",
	};
	static const char *const expect_gone[] = {
	    "|0|1|-|0",
	    "a|1|6|-|0",
	    "b|1|6|-|0",
	    "c|1|6|-|0",
	};
	di_craft_t *c;
	di_listing_t l;
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t fifo, other, root;
	(void)state;

	/* a count of 2 and three names */
	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo_links(c, 1, 2);
	di_lst_header(&l, 2, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "x", 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "y", 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "z", 1);
	root = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 2, root, &f);
	expect_walk(img, "", 0, expect_group, 4);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);

	/* inode 1, then inode 4097 (the same slot of 4096), then inode 1
	 * again: its first path is gone */
	c = di_craft_new();
	memset(&l, 0, sizeof(l));
	fifo = di_craft_fifo(c, 1);
	other = di_craft_fifo(c, 4097);
	di_lst_header(&l, 2, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "a", 1);
	di_lst_entry(&l, (uint16_t)(other & 0xFFFF), 4096, SQFS_INODE_FIFO, "b",
		     1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "c", 1);
	root = di_craft_dir(c, 4098, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 4098, root, &f);
	expect_walk(img, "", 0, expect_gone, 4);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* A broken listing below the root ends the walk with its error. */
static void test_bad_subdir(void **state)
{
	di_craft_t *c = di_craft_new();
	di_listing_t l = {0}, lr = {0};
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t fifo, sub, root;
	size_t count;
	(void)state;

	fifo = di_craft_fifo(c, 1);
	di_lst_header(&l, 1, (uint32_t)(fifo >> 16), 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "b", 1);
	di_lst_entry(&l, (uint16_t)(fifo & 0xFFFF), 0, SQFS_INODE_FIFO, "a", 1);
	sub = di_craft_dir(c, 2, &l, false, NULL, 0, 0);
	di_lst_one(&lr, sub, 2, SQFS_INODE_DIR, "sub");
	root = di_craft_dir(c, 3, &lr, false, NULL, 0, 0);
	img = di_craft_finish(c, 3, root, &f);
	assert_int_equal(walk_all(img, "", 0, 0, &count), SQFS_ERROR_CORRUPTED);
	/* "", sub, sub/b */
	assert_int_equal(count, 3);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_links),
	    cmocka_unit_test(test_post_dirs),
	    cmocka_unit_test(test_deep),
	    cmocka_unit_test(test_mksquashfs),
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_self_loop),
	    cmocka_unit_test(test_loops),
	    cmocka_unit_test(test_aliases),
	    cmocka_unit_test(test_undercounted_links),
	    cmocka_unit_test(test_bad_subdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
