/* SPDX-License-Identifier: MIT */
/*
 * The writer's in-memory tree: path handling, the (parent, name) hash map
 * in large directories, removal, and the memory an entry costs.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/block_processor/block_processor.h"
#include "sqfs/writer/internal.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_components(const char *path, const char *const *expect)
{
	const char *comp;
	size_t len, i = 0;
	int ret;

	while ((ret = wr_path_next(&path, &comp, &len)) > 0) {
		assert_non_null(expect[i]);
		assert_int_equal(len, strlen(expect[i]));
		assert_memory_equal(comp, expect[i], len);
		++i;
	}
	assert_int_equal(ret, 0);
	assert_null(expect[i]);
}

static void test_paths(void **state)
{
	static const char *const none[] = {NULL};
	static const char *const ab[] = {"a", "b", NULL};
	static const char *const dots[] = {"...", ".a", "a.", NULL};
	char long_name[300];
	char *canon;
	size_t depth;

	(void)state;
	expect_components("", none);
	expect_components("/", none);
	expect_components("./././/", none);
	expect_components("a/b", ab);
	expect_components("/a/b", ab);
	expect_components("./a//b/", ab);
	expect_components("a/./b/.", ab);
	expect_components(".../.a/a.", dots);

	assert_int_equal(wr_path_check("a/../b", &depth),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wr_path_check("..", &depth), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wr_path_check("a/..", &depth), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wr_path_check(NULL, &depth), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(wr_path_check("/x/y/z/", &depth), 0);
	assert_int_equal(depth, 3);

	memset(long_name, 'n', 256);
	long_name[256] = '\0';
	assert_int_equal(wr_path_check(long_name, &depth), 0);
	long_name[256] = 'n';
	long_name[257] = '\0';
	assert_int_equal(wr_path_check(long_name, &depth),
			 SQFS_ERROR_ARG_INVALID);

	assert_int_equal(wr_path_canonical("//a/./b//c/", &canon), 0);
	assert_string_equal(canon, "a/b/c");
	free(canon);
	assert_int_equal(wr_path_canonical("./", &canon), 0);
	assert_string_equal(canon, "");
	free(canon);
	assert_int_equal(wr_path_canonical("a/../c", &canon),
			 SQFS_ERROR_ARG_INVALID);
}

static uint32_t add_node(wr_tree_t *t, uint32_t parent, const char *name,
			 uint16_t mode)
{
	uint32_t id;

	assert_int_equal(wr_tree_new_node(t, parent, name, strlen(name), &id),
			 0);
	wr_node(t, id)->mode = mode;
	assert_int_equal(wr_tree_insert(t, id), 0);
	return id;
}

static void test_hash_map(void **state)
{
	enum { COUNT = 50000 };
	uint32_t dir, other, ids[COUNT];
	char name[32], *path;
	wr_tree_t t;

	(void)state;
	assert_int_equal(wr_tree_init(&t), 0);
	dir = add_node(&t, NODE_ROOT, "dir", S_IFDIR | 0755);
	other = add_node(&t, NODE_ROOT, "other", S_IFDIR | 0755);

	/* The same names in two directories are different entries. */
	for (uint32_t i = 0; i < COUNT; ++i) {
		snprintf(name, sizeof(name), "n%u", i);
		ids[i] = add_node(&t, dir, name, S_IFREG | 0644);
		if (i % 10 == 0)
			add_node(&t, other, name, S_IFREG | 0644);
	}
	assert_true(t.bucket_mask + 1u >= COUNT);

	for (uint32_t i = 0; i < COUNT; ++i) {
		snprintf(name, sizeof(name), "n%u", i);
		assert_int_equal(wr_tree_lookup(&t, dir, name, strlen(name)),
				 ids[i]);
	}
	/* A prefix or an extension of a name is not the name. */
	assert_int_equal(wr_tree_lookup(&t, dir, "n1", 1), NODE_NIL);
	assert_int_equal(wr_tree_lookup(&t, dir, "n12345x", 7), NODE_NIL);
	assert_int_equal(wr_tree_lookup(&t, NODE_ROOT, "dir", 3), dir);
	assert_int_equal(wr_tree_find(&t, "/dir/n77"), ids[77]);
	assert_int_equal(wr_tree_find(&t, "dir/n77/x"), NODE_NIL);
	assert_int_equal(wr_tree_find(&t, ""), NODE_ROOT);

	path = wr_tree_node_path(&t, ids[4711]);
	assert_string_equal(path, "dir/n4711");
	free(path);
	path = wr_tree_node_path(&t, NODE_ROOT);
	assert_string_equal(path, "");
	free(path);

	/* Removal: gone from lookups, the rest stays. */
	for (uint32_t i = 0; i < COUNT; i += 2)
		wr_tree_remove(&t, ids[i]);
	for (uint32_t i = 0; i < COUNT; ++i) {
		snprintf(name, sizeof(name), "n%u", i);
		assert_int_equal(wr_tree_lookup(&t, dir, name, strlen(name)),
				 (i % 2) ? ids[i] : NODE_NIL);
	}

	/* Removing a directory kills what is below it at finish. */
	wr_tree_remove(&t, other);
	assert_int_equal(wr_tree_find(&t, "other/n10"), NODE_NIL);
	wr_tree_mark_dead(&t);
	for (uint32_t id = 0; id < t.node_count; ++id) {
		const wr_node_t *n = wr_node(&t, id);
		bool dead = id == other || n->parent == other ||
			    (n->parent == dir && (n->flags & NODE_REMOVED));

		assert_int_equal((n->flags & NODE_DEAD) != 0, dead);
	}
	wr_tree_cleanup(&t);
}

/* The bytes an entry costs: the tree's own structures, and everything
 * malloc'd while adding empty files (names excluded). */
static void test_memory_per_entry(void **state)
{
	enum { COUNT = 100000 };
	sqfs_entry_t ent;
	sqfs_writer_options_t opt;
	struct mallinfo2 before, after;
	size_t names_before, names;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	double tree_bytes, total_bytes;
	char name[32];

	(void)state;
	sqfs_writer_options_init(&opt);
	if (sqfs_compressor_is_available(SQFS_COMP_GZIP)) {
		assert_int_equal(sqfs_compressor_config_init(&opt.compressor,
							     SQFS_COMP_GZIP,
							     opt.block_size, 0),
				 0);
		opt.compressor.opt.gzip.level = 1;
	}
	file = test_memory_file(NULL, 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);

	sqfs_entry_init(&ent, name, S_IFREG | 0644, 0, 0, 0);

	names_before = wr->tree.arena.allocated;
	before = mallinfo2();
	for (uint32_t i = 0; i < COUNT; ++i) {
		snprintf(name, sizeof(name), "d%u/f%u", i % 100, i);
		ent.mtime = i;
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
	}
	after = mallinfo2();
	names = wr->tree.arena.allocated - names_before;

	tree_bytes = (double)wr_tree_memory(&wr->tree) / COUNT;
	print_message("tree: %.1f bytes per entry (node %zu, file record "
		      "%zu)\n",
		      tree_bytes, sizeof(wr_node_t), sizeof(file_data_t));
	assert_true(tree_bytes < 150.0);

	if (after.uordblks > before.uordblks) {
		total_bytes =
		    ((double)(after.uordblks - before.uordblks) - names) /
		    COUNT;
		print_message("malloc'd: %.1f bytes per entry, names "
			      "excluded\n",
			      total_bytes);
#if !defined(__SANITIZE_ADDRESS__)
		assert_true(total_bytes < 150.0);
#endif
	}

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
}

/* The memory limit is shared out after what does not shrink with it (the
 * program, the decoded fragment blocks, the blocks in flight, the workers)
 * is taken off: the shares while adding and that part add up to no more
 * than the limit, which shares of the whole limit went over. */
static void test_memory_shares(void **state)
{
	static const uint32_t limits[] = {64, 256, 1024};
	static const unsigned int jobs[] = {0, 2, 8};
	sqfs_writer_options_t opt;
	block_processor_desc_t desc;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	size_t fixed, adding, limit;

	(void)state;
	assert_int_equal(wr_mem_shared(256u << 20, 20u << 20), 236u << 20);
	assert_int_equal(wr_mem_shared(64u << 20, 40u << 20), 32u << 20);
	assert_int_equal(wr_mem_shared(64u << 20, 0), 64u << 20);

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); ++i) {
		for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); ++j) {
			sqfs_writer_options_init(&opt);
			opt.mem_limit_mib = limits[i];
			opt.num_jobs = jobs[j];
			limit = (size_t)limits[i] << 20;

			memset(&desc, 0, sizeof(desc));
			desc.block_size = opt.block_size;
			desc.num_workers = opt.num_jobs;
			desc.backlog_memory = limit / 16;
			fixed = WR_FIXED_MEMORY +
				block_processor_fixed_memory(&desc);
			/* the decoded fragment blocks, the buffers in
			 * flight, two blocks per worker */
			assert_true(fixed >= WR_FIXED_MEMORY + (8u << 20) +
						 2 * (size_t)opt.block_size);

			file = test_memory_file(NULL, 0);
			assert_int_equal(
			    sqfs_writer_create(file, &opt, &wr, NULL), 0);
			adding = wr_mem_share(wr, 1, 4) +
				 wr_mem_share(wr, 1, 2) +
				 wr_mem_share(wr, 1, 8);
			assert_true(wr->mem_shared >= limit / 2);
			if (fixed <= limit / 2) {
				assert_int_equal(wr->mem_shared, limit - fixed);
				assert_true(adding + fixed <= limit);
			}
			sqfs_writer_destroy(wr);
			sqfs_file_destroy(file);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_hash_map),
	    cmocka_unit_test(test_memory_per_entry),
	    cmocka_unit_test(test_memory_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
