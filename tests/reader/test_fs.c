/* SPDX-License-Identifier: MIT */
/*
 * test_fs.c - the file system object (sqfs/fs.h) against the single-
 * threaded readers it is built on: every inode's attributes, lookups,
 * paged listings resumed at every cookie, symlinks, xattrs, reads at
 * every block boundary, the cache limits, the words of errors, and
 * damaged images.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "reader/fs_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
	uint8_t *data;
	size_t size;
	uint32_t bs;
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	/* the reference readers, on their own copy */
	sqfs_file_t *rfile;
	sqfs_image_t *img;
	sqfs_dir_reader_t *dr;
} env_t;

static void env_open(env_t *env, uint32_t bs, uint32_t wflags,
		     const sqfs_fs_options_t *opt)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	int ret;

	memset(env, 0, sizeof(*env));
	env->bs = bs;
	env->data = fi_build(bs, wflags, false, &env->size);
	env->file = fi_file(env->data, env->size);
	ret = sqfs_fs_open(env->file, opt, &env->fs, why);
	if (ret != 0)
		fail_msg("sqfs_fs_open: %d %s", ret, why);
	env->rfile = fi_file(env->data, env->size);
	assert_int_equal(sqfs_image_open(env->rfile, &env->img, NULL), 0);
	assert_int_equal(sqfs_dir_reader_create(env->img, &env->dr), 0);
}

static void env_close(env_t *env)
{
	sqfs_fs_destroy(env->fs);
	sqfs_file_close(env->file);
	sqfs_dir_reader_destroy(env->dr);
	sqfs_image_destroy(env->img);
	sqfs_file_close(env->rfile);
	free(env->data);
}

static sqfs_inode_t *ref_resolve(env_t *env, const char *path)
{
	sqfs_inode_t *inode = NULL;

	assert_int_equal(sqfs_dir_reader_resolve(env->dr, path, &inode), 0);
	return inode;
}

/* The node id of path. */
static uint64_t fs_ino(env_t *env, const char *path)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t node = 0;
	int ret = sqfs_fs_resolve(env->fs, path, &node, why);

	if (ret != 0)
		fail_msg("resolve %s: %d %s", path, ret, why);
	assert_true(node > UINT32_MAX);
	return node;
}

/* The inode number of the inode id names. */
static uint32_t number_of(env_t *env, uint64_t id)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_stat_t st;

	if (sqfs_fs_stat(env->fs, id, &st, why) != 0)
		fail_msg("stat %llu: %s", (unsigned long long)id, why);
	return st.ino;
}

/* What the reference readers say ino's stat is. */
static void ref_stat(env_t *env, const sqfs_inode_t *in, sqfs_fs_stat_t *st)
{
	memset(st, 0, sizeof(*st));
	st->ino = in->inode_number;
	st->mode = sqfs_inode_mode(in);
	st->nlink = in->nlink;
	st->mtime = in->mtime;
	assert_int_equal(
	    sqfs_image_inode_owner(env->img, in, &st->uid, &st->gid), 0);
}

static void check_stat_of(env_t *env, const sqfs_inode_t *in)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_stat_t st, want;
	int ret;

	sqfs_fs_stat_t by_node;

	ref_stat(env, in, &want);
	ret = sqfs_fs_stat(env->fs, in->inode_number, &st, why);
	if (ret != 0)
		fail_msg("stat %u: %d %s", in->inode_number, ret, why);
	/* the node id it gives names the same inode */
	assert_true(st.node > UINT32_MAX);
	assert_int_equal(sqfs_fs_stat(env->fs, st.node, &by_node, why), 0);
	assert_memory_equal(&st, &by_node, sizeof(st));
	assert_int_equal(st.ino, want.ino);
	assert_int_equal(st.mode, want.mode);
	assert_int_equal(st.nlink, want.nlink);
	assert_int_equal(st.uid, want.uid);
	assert_int_equal(st.gid, want.gid);
	assert_int_equal(st.mtime, want.mtime);
	switch (sqfs_inode_type_basic(in->type)) {
	case SQFS_INODE_FILE:
		assert_int_equal(st.size, in->data.file.file_size);
		break;
	case SQFS_INODE_DIR:
		assert_int_equal(st.size, in->data.dir.size);
		assert_true(st.parent >= 1);
		break;
	case SQFS_INODE_SLINK:
		assert_int_equal(st.size, in->data.slink.target_size);
		break;
	default:
		assert_int_equal(st.size, 0);
	}
}

/* Walk the whole tree with the reference readers, calling fn on every
 * inode (hard links twice). */
static void ref_walk(env_t *env, sqfs_inode_t *dir,
		     void (*fn)(env_t *, const sqfs_inode_t *, void *),
		     void *user)
{
	sqfs_dir_entry_t ent;
	sqfs_inode_t **kids = NULL;
	size_t n = 0, i;

	fn(env, dir, user);
	assert_int_equal(sqfs_dir_reader_open(env->dr, dir), 0);
	while (sqfs_dir_reader_next(env->dr, &ent) == 0) {
		kids = realloc(kids, (n + 1) * sizeof(*kids));
		assert_int_equal(
		    sqfs_image_read_inode(env->img, ent.inode_ref, &kids[n]),
		    0);
		n++;
	}
	for (i = 0; i < n; ++i) {
		if (sqfs_inode_type_basic(kids[i]->type) == SQFS_INODE_DIR)
			ref_walk(env, kids[i], fn, user);
		else
			fn(env, kids[i], user);
		free(kids[i]);
	}
	free(kids);
}

static void stat_cb(env_t *env, const sqfs_inode_t *in, void *user)
{
	(*(size_t *)user)++;
	check_stat_of(env, in);
}

/* Every inode by number before any lookup (the walk finds them, or the
 * export table), then against the reference walk. */
static void stat_all(uint32_t wflags)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_inode_t *root;
	sqfs_fs_stat_t st;
	size_t seen = 0;
	uint32_t i, count;
	env_t env;

	env_open(&env, 4096, wflags, NULL);
	count = sqfs_fs_super(env.fs)->inode_count;
	/* the last number first: nothing has named it yet */
	assert_int_equal(sqfs_fs_stat(env.fs, count, &st, why), 0);
	for (i = 1; i <= count; ++i) {
		if (sqfs_fs_stat(env.fs, i, &st, why) != 0)
			fail_msg("stat %u: %s", i, why);
		assert_int_equal(st.ino, i);
	}
	assert_int_equal(sqfs_image_read_root(env.img, &root), 0);
	assert_int_equal(number_of(&env, sqfs_fs_root(env.fs)),
			 root->inode_number);
	ref_walk(&env, root, stat_cb, &seen);
	assert_true(seen > FI_BIG_ENTRIES);
	free(root);
	env_close(&env);
}

static void test_stat_walk(void **state)
{
	(void)state;
	stat_all(0);
}

static void test_stat_export(void **state)
{
	(void)state;
	stat_all(SQFS_WRITER_EXPORTABLE);
}

/* Attributes as a kernel mount reports them: st_blocks and the sizes of
 * directories, symlinks and devices. */
static void test_stat_values(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_stat_t st;
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, fs_ino(&env, "files/f01"), &st, why), 0);
	assert_int_equal(st.size, 1);
	assert_int_equal(st.blocks, 1);
	assert_int_equal(st.mode, S_IFREG | 0644);
	assert_int_equal(st.uid, 1001);
	assert_int_equal(st.gid, 100);
	assert_int_equal(st.mtime, 1700000001);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, fs_ino(&env, "files/f05"), &st, why), 0);
	assert_int_equal(st.size, 3 * 4096 + 123);
	/* and its two xattrs (some 320 bytes), one unit more, as the
	 * kernel counts them */
	assert_int_equal(st.blocks, (3 * 4096 + 123 + 511) / 512 + 1);
	assert_int_equal(st.nlink, 2);
	assert_true(st.has_xattrs);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, fs_ino(&env, "files/f00"), &st, why), 0);
	assert_int_equal(st.blocks, 0);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, fs_ino(&env, "dev/cdev"), &st, why), 0);
	assert_int_equal(st.mode, S_IFCHR | 0620);
	assert_int_equal(st.rdev_major, 4);
	assert_int_equal(st.rdev_minor, 70000);
	assert_int_equal(st.size, 0);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, fs_ino(&env, "longlink"), &st, why), 0);
	assert_int_equal(st.size, 4096);
	assert_int_equal(st.mode, S_IFLNK | 0777);
	assert_int_equal(sqfs_fs_stat(env.fs, fs_ino(&env, "a/b/c"), &st, why),
			 0);
	assert_int_equal(st.parent, number_of(&env, fs_ino(&env, "a/b")));
	assert_int_equal(sqfs_fs_stat(env.fs, sqfs_fs_root(env.fs), &st, why),
			 0);
	assert_int_equal(st.parent, st.ino);
	assert_int_equal(st.node, sqfs_fs_root(env.fs));
	assert_int_equal(st.mode & S_IFMT, S_IFDIR);
	env_close(&env);
}

static void test_lookup(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE], name[64], miss[80];
	static const char *const missing[] = {
	    "a_before_everything",
	    "zzz_after_everything",
	    "...",
	    "",
	    "entry_with_a_longish_name_000000",
	    "x/y"};
	uint64_t big;
	sqfs_inode_t *ref, *bigdir;
	sqfs_dir_entry_t ent;
	sqfs_fs_stat_t st;
	size_t i;
	int ret;
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	big = fs_ino(&env, "big");
	bigdir = ref_resolve(&env, "big");
	/* it needs the index: more than 64 KiB of listing */
	assert_int_equal(bigdir->type, SQFS_INODE_EXT_DIR);
	assert_true(bigdir->data.dir.size > 65536);
	assert_true(bigdir->data.dir.index_count > 0);

	for (i = 0; i < FI_BIG_ENTRIES; ++i) {
		fi_big_name(i, name);
		ret = sqfs_fs_lookup(env.fs, big, name, strlen(name), &st, why);
		if (ret != 0)
			fail_msg("lookup %s: %d %s", name, ret, why);
		assert_int_equal(
		    sqfs_dir_reader_find(env.dr, bigdir, name, &ent), 0);
		assert_int_equal(st.ino, ent.inode_number);
		assert_int_equal(st.node, ent.inode_ref + (UINT64_C(1) << 32));
		assert_int_equal(st.mode, S_IFIFO | 0644);

		/* between this name and the next (odd numbers only) */
		snprintf(miss, sizeof(miss), "entry_with_a_longish_name_%06zu",
			 i * 2 + 2);
		ret = sqfs_fs_lookup(env.fs, big, miss, strlen(miss), &st, why);
		assert_int_equal(ret, SQFS_ERROR_NO_ENTRY);
		assert_true(strlen(why) > 0);
	}
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); ++i) {
		assert_int_equal(sqfs_fs_lookup(env.fs, big, missing[i],
						strlen(missing[i]), &st, why),
				 SQFS_ERROR_NO_ENTRY);
	}
	/* a name that is not NUL-terminated */
	fi_big_name(7, name);
	strcat(name, "garbage");
	assert_int_equal(
	    sqfs_fs_lookup(env.fs, big, name, strlen(name) - 7, &st, why), 0);

	/* "." and "..": the directory and its parent (the root's is the
	 * root), by node id */
	assert_int_equal(sqfs_fs_lookup(env.fs, big, ".", 1, &st, why), 0);
	assert_int_equal(st.node, big);
	assert_int_equal(sqfs_fs_lookup(env.fs, big, "..", 2, &st, why), 0);
	assert_int_equal(st.node, sqfs_fs_root(env.fs));
	assert_int_equal(
	    sqfs_fs_lookup(env.fs, fs_ino(&env, "a/b/c"), "..", 2, &st, why),
	    0);
	assert_int_equal(st.node, fs_ino(&env, "a/b"));
	assert_int_equal(
	    sqfs_fs_lookup(env.fs, sqfs_fs_root(env.fs), "..", 2, &st, why), 0);
	assert_int_equal(st.node, sqfs_fs_root(env.fs));

	/* nested, and in something that is not a directory */
	ref = ref_resolve(&env, "a/b/c/d/deep");
	assert_int_equal(number_of(&env, fs_ino(&env, "/a//b/./c/d/deep/")),
			 ref->inode_number);
	free(ref);
	assert_int_equal(
	    sqfs_fs_lookup(env.fs, fs_ino(&env, "files/f01"), "x", 1, &st, why),
	    SQFS_ERROR_NOT_DIR);
	{
		uint64_t ino;

		assert_int_equal(sqfs_fs_resolve(env.fs, "a/../b", &ino, why),
				 SQFS_ERROR_ARG_INVALID);
		assert_int_equal(sqfs_fs_resolve(env.fs, "a/nope", &ino, why),
				 SQFS_ERROR_NO_ENTRY);
		assert_non_null(strstr(why, "a/nope"));
		assert_int_equal(
		    sqfs_fs_resolve(env.fs, "files/f01/x", &ino, why),
		    SQFS_ERROR_NOT_DIR);
		assert_int_equal(sqfs_fs_resolve(env.fs, "", &ino, why), 0);
		assert_int_equal(ino, sqfs_fs_root(env.fs));
	}
	free(bigdir);
	env_close(&env);
}

/* ---- readdir ------------------------------------------------------------- */

typedef struct {
	char names[FI_BIG_ENTRIES + 8][64];
	uint32_t inos[FI_BIG_ENTRIES + 8];
	uint64_t nodes[FI_BIG_ENTRIES + 8];
	uint64_t cookies[FI_BIG_ENTRIES + 8];
	sqfs_fs_stat_t stats[FI_BIG_ENTRIES + 8];
	bool have_stat[FI_BIG_ENTRIES + 8];
	size_t count;
	/* take at most this many (0: all) */
	size_t limit;
} listing_t;

static int collect(void *user, const sqfs_fs_dirent_t *ent)
{
	listing_t *l = user;

	if (l->limit > 0 && l->count == l->limit)
		return 1;
	assert_true(l->count < FI_BIG_ENTRIES + 8);
	assert_true(ent->name_len < 64);
	memcpy(l->names[l->count], ent->name, ent->name_len);
	l->names[l->count][ent->name_len] = '\0';
	l->inos[l->count] = ent->ino;
	l->nodes[l->count] = ent->node;
	l->cookies[l->count] = ent->next_cookie;
	assert_int_not_equal(ent->next_cookie, 0);
	l->have_stat[l->count] = ent->stat != NULL;
	if (ent->stat != NULL)
		l->stats[l->count] = *ent->stat;
	l->count++;
	return 0;
}

static void check_listing(env_t *env, const char *path, uint32_t flags)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	static listing_t all, one;
	sqfs_dir_entry_t ent;
	sqfs_inode_t *dir;
	sqfs_fs_stat_t st;
	uint64_t ino = fs_ino(env, path);
	bool root = ino == sqfs_fs_root(env->fs);
	size_t i, k = 0;
	int ret;

	memset(&all, 0, sizeof(all));
	ret = sqfs_fs_readdir(env->fs, ino, 0, flags, collect, &all, why);
	if (ret != 0)
		fail_msg("readdir %s: %d %s", path, ret, why);

	dir = ref_resolve(env, path);
	if (flags & SQFS_FS_READDIR_DOTS) {
		assert_int_equal(sqfs_fs_stat(env->fs, ino, &st, why), 0);
		assert_string_equal(all.names[0], ".");
		assert_int_equal(all.inos[0], st.ino);
		assert_int_equal(all.nodes[0], ino);
		assert_string_equal(all.names[1], "..");
		assert_int_equal(all.inos[1], st.parent);
		/* known by number only, but at the root */
		assert_int_equal(all.nodes[1], root ? ino : 0);
		k = 2;
	}
	assert_int_equal(sqfs_dir_reader_open(env->dr, dir), 0);
	while ((ret = sqfs_dir_reader_next(env->dr, &ent)) == 0) {
		assert_true(k < all.count);
		assert_string_equal(all.names[k], ent.name);
		assert_int_equal(all.inos[k], ent.inode_number);
		assert_int_equal(all.nodes[k],
				 ent.inode_ref + (UINT64_C(1) << 32));
		k++;
	}
	assert_int_equal(ret, 1);
	assert_int_equal(k, all.count);
	free(dir);

	for (i = 0; i < all.count; ++i) {
		assert_int_equal(all.have_stat[i],
				 (flags & SQFS_FS_READDIR_STAT) != 0 &&
				     all.nodes[i] != 0);
		if (all.have_stat[i]) {
			/* by number and by node alike */
			assert_int_equal(
			    sqfs_fs_stat(env->fs, all.inos[i], &st, why), 0);
			assert_memory_equal(&st, &all.stats[i], sizeof(st));
			assert_int_equal(
			    sqfs_fs_stat(env->fs, all.nodes[i], &st, why), 0);
			assert_memory_equal(&st, &all.stats[i], sizeof(st));
		}
	}

	/* resume at every cookie: the next entry, and only it */
	for (i = 0; i < all.count; ++i) {
		memset(&one, 0, sizeof(one));
		one.limit = 1;
		ret = sqfs_fs_readdir(env->fs, ino, all.cookies[i], flags,
				      collect, &one, why);
		if (ret != 0)
			fail_msg("readdir %s from %zu: %d %s", path, i, ret,
				 why);
		if (i + 1 == all.count) {
			assert_int_equal(one.count, 0);
			continue;
		}
		assert_int_equal(one.count, 1);
		assert_string_equal(one.names[0], all.names[i + 1]);
		assert_int_equal(one.cookies[0], all.cookies[i + 1]);
	}
}

static void test_readdir(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	static listing_t l;
	uint32_t f;
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	for (f = 0; f < 4; ++f) {
		check_listing(&env, "", f);
		check_listing(&env, "big", f);
		check_listing(&env, "files", f);
		check_listing(&env, "empty_dir", f);
		check_listing(&env, "a/b/c/d", f);
	}
	/* a cookie past the listing, and a file */
	memset(&l, 0, sizeof(l));
	assert_int_equal(sqfs_fs_readdir(env.fs, fs_ino(&env, "files"),
					 0xFFFFFFFFFF00ull, 0, collect, &l,
					 why),
			 SQFS_ERROR_ARG_INVALID);
	assert_true(strlen(why) > 0);
	assert_int_equal(sqfs_fs_readdir(env.fs, fs_ino(&env, "files/f01"), 0,
					 0, collect, &l, why),
			 SQFS_ERROR_NOT_DIR);
	env_close(&env);
}

static void test_readlink_xattrs(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE], buf[SQFS_MAX_SYMLINK_SIZE + 1];
	sqfs_xattr_t *list, *want;
	size_t len, count, wcount, i;
	sqfs_inode_t *in;
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	assert_int_equal(sqfs_fs_readlink(env.fs, fs_ino(&env, "link"), buf,
					  sizeof(buf), &len, why),
			 0);
	assert_string_equal(buf, "files/f01");
	assert_int_equal(len, 9);
	assert_int_equal(sqfs_fs_readlink(env.fs, fs_ino(&env, "longlink"), buf,
					  sizeof(buf), &len, why),
			 0);
	assert_int_equal(len, 4096);
	assert_int_equal(strspn(buf, "x"), 4096);
	assert_int_equal(
	    sqfs_fs_readlink(env.fs, fs_ino(&env, "link"), buf, 9, &len, why),
	    SQFS_ERROR_OVERFLOW);
	assert_int_equal(sqfs_fs_readlink(env.fs, fs_ino(&env, "files"), buf,
					  sizeof(buf), &len, why),
			 SQFS_ERROR_NOT_FILE);
	assert_true(strlen(why) > 0);

	assert_int_equal(sqfs_fs_xattrs(env.fs, fs_ino(&env, "files/f05"),
					&list, &count, why),
			 0);
	in = ref_resolve(&env, "files/f05");
	assert_int_equal(sqfs_image_read_xattrs(env.img, in, &want, &wcount),
			 0);
	assert_int_equal(count, 2);
	assert_int_equal(count, wcount);
	for (i = 0; i < count; ++i) {
		assert_string_equal(list[i].key, want[i].key);
		assert_int_equal(list[i].size, want[i].size);
		assert_memory_equal(list[i].value, want[i].value, list[i].size);
	}
	sqfs_xattr_list_free(list, count);
	sqfs_xattr_list_free(want, wcount);
	free(in);
	assert_int_equal(sqfs_fs_xattrs(env.fs, fs_ino(&env, "files/f01"),
					&list, &count, why),
			 0);
	assert_int_equal(count, 0);
	assert_null(list);
	env_close(&env);
}

/* ---- reading ------------------------------------------------------------- */

static void check_range(env_t *env, sqfs_fs_file_t *f, size_t i, uint64_t off,
			size_t len)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t size = fi_file_size(i, env->bs);
	uint8_t *got = malloc(len + 1), *want = malloc(len + 1);
	size_t expect =
	    off >= size ? 0 : (size - off < len ? (size_t)(size - off) : len);
	ptrdiff_t ret;

	assert_non_null(got);
	assert_non_null(want);
	ret = sqfs_fs_file_read(f, off, got, len, why);
	if (ret < 0)
		fail_msg("file %zu at %llu: %d %s", i, (unsigned long long)off,
			 (int)ret, why);
	assert_int_equal(ret, expect);
	fi_file_data(i, env->bs, off, want, expect);
	assert_memory_equal(got, want, expect);
	free(got);
	free(want);
}

static void read_all_shapes(env_t *env)
{
	char why[SQFS_ERROR_TEXT_SIZE], path[32];
	uint64_t size, b, off;
	sqfs_fs_file_t *f;
	size_t i;
	int d;

	for (i = 0; i < FI_FILES; ++i) {
		snprintf(path, sizeof(path), "files/f%02zu", i);
		assert_int_equal(
		    sqfs_fs_file_open(env->fs, fs_ino(env, path), &f, why), 0);
		size = fi_file_size(i, env->bs);
		assert_int_equal(sqfs_fs_file_size(f), size);
		check_range(env, f, i, 0, (size_t)size + 10);
		for (b = 0; b <= size / env->bs + 1; ++b) {
			for (d = -2; d <= 2; ++d) {
				off = b * env->bs + (uint64_t)(int64_t)d;
				if ((int64_t)b * env->bs + d < 0)
					continue;
				check_range(env, f, i, off, 1);
				check_range(env, f, i, off, 5);
				check_range(env, f, i, off, env->bs + 3);
			}
		}
		check_range(env, f, i, size + 100000, 10);
		sqfs_fs_file_close(f);
	}
}

/* Opening a file again hands out its kept handle, counted: closing one
 * open leaves the other's readable. */
static void test_handles_shared(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_file_t *a, *b;
	uint8_t buf[16];
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	assert_int_equal(
	    sqfs_fs_file_open(env.fs, fs_ino(&env, "files/f01"), &a, why), 0);
	assert_int_equal(
	    sqfs_fs_file_open(env.fs, fs_ino(&env, "files/f01"), &b, why), 0);
	assert_ptr_equal(a, b);
	sqfs_fs_file_close(a);
	assert_int_equal(sqfs_fs_file_read(b, 0, buf, sizeof(buf), why), 1);
	sqfs_fs_file_close(b);
	/* still kept after the last close: reading by number finds it */
	assert_int_equal(sqfs_fs_read(env.fs, fs_ino(&env, "files/f01"), 0, buf,
				      sizeof(buf), why),
			 1);
	assert_int_equal(
	    sqfs_fs_file_open(env.fs, fs_ino(&env, "files/f02"), &a, why), 0);
	assert_ptr_not_equal(a, b);
	sqfs_fs_file_close(a);
	env_close(&env);
}

static void test_read(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint8_t buf[16];
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	read_all_shapes(&env);
	assert_int_equal(sqfs_fs_read(env.fs, fs_ino(&env, "files/f01"), 0, buf,
				      sizeof(buf), why),
			 1);
	assert_int_equal(sqfs_fs_read(env.fs, fs_ino(&env, "files"), 0, buf,
				      sizeof(buf), why),
			 SQFS_ERROR_NOT_FILE);
	assert_true(strlen(why) > 0);
	env_close(&env);

	/* bigger blocks, no read-ahead, serialized I/O */
	{
		sqfs_fs_options_t opt;

		memset(&opt, 0, sizeof(opt));
		opt.flags = SQFS_FS_NO_READ_AHEAD | SQFS_FS_SERIALIZE_IO;
		env_open(&env, 65536, SQFS_WRITER_EXPORTABLE, &opt);
		read_all_shapes(&env);
		env_close(&env);
	}
}

static void test_cache_limits(void **state)
{
	sqfs_fs_cache_stats_t cs;
	sqfs_fs_options_t opt;
	env_t env;

	(void)state;
	memset(&opt, 0, sizeof(opt));
	/* below the minimums: 64 metadata blocks, 8 data blocks */
	opt.meta_cache_bytes = 1;
	opt.data_cache_bytes = 1;
	opt.read_ahead_blocks = 2;
	env_open(&env, 4096, 0, &opt);
	read_all_shapes(&env);
	check_listing(&env, "big", SQFS_FS_READDIR_STAT);
	sqfs_fs_cache_stats(env.fs, &cs);
	assert_int_equal(cs.meta_limit, 64 * 8192);
	assert_int_equal(cs.data_limit, 8 * 4096);
	assert_true(cs.meta_bytes <= cs.meta_limit);
	assert_true(cs.data_bytes <= cs.data_limit);
	assert_true(cs.meta_misses > 0 && cs.meta_hits > 0);
	assert_true(cs.data_misses > 0 && cs.data_hits > 0);
	assert_true(cs.decompressed >= cs.data_misses);
	assert_true(cs.read_ahead_used <= cs.read_ahead_done);
	env_close(&env);

	opt.meta_cache_bytes = 0;
	opt.data_cache_bytes = 0;
	env_open(&env, 4096, 0, &opt);
	sqfs_fs_cache_stats(env.fs, &cs);
	assert_int_equal(cs.meta_limit, SQFS_FS_DEFAULT_META_CACHE);
	assert_int_equal(cs.data_limit, SQFS_FS_DEFAULT_DATA_CACHE);
	env_close(&env);
}

/* A scan of blocks used once does not evict blocks used twice. */
static void test_cache_scan_resistance(void **state)
{
	static const size_t scan_files[] = {3, 4, 5, 6, 7, 8, 10};
	char why[SQFS_ERROR_TEXT_SIZE], path[32];
	sqfs_fs_cache_stats_t before, after;
	sqfs_fs_options_t opt;
	sqfs_fs_file_t *hot, *scan;
	uint8_t buf[64];
	uint64_t off;
	size_t k;
	env_t env;
	int round;

	(void)state;
	memset(&opt, 0, sizeof(opt));
	opt.flags = SQFS_FS_NO_READ_AHEAD;
	opt.data_cache_bytes = 8 * 4096;
	env_open(&env, 4096, SQFS_WRITER_NO_TAIL_PACKING, &opt);
	assert_int_equal(
	    sqfs_fs_file_open(env.fs, fs_ino(&env, "files/f11"), &hot, why), 0);
	/* the small file's fragment block, used twice: protected */
	assert_int_equal(sqfs_fs_file_read(hot, 0, buf, 1, why), 1);
	assert_int_equal(sqfs_fs_file_read(hot, 0, buf, 1, why), 1);
	/* more than 8 other blocks, twice over, each used once per pass */
	for (round = 0; round < 2; ++round) {
		for (k = 0; k < sizeof(scan_files) / sizeof(scan_files[0]);
		     ++k) {
			snprintf(path, sizeof(path), "files/f%02zu",
				 scan_files[k]);
			assert_int_equal(sqfs_fs_file_open(env.fs,
							   fs_ino(&env, path),
							   &scan, why),
					 0);
			for (off = 0; off < sqfs_fs_file_size(scan);
			     off += 4096)
				assert_true(sqfs_fs_file_read(scan, off, buf, 1,
							      why) > 0);
			sqfs_fs_file_close(scan);
		}
	}
	sqfs_fs_cache_stats(env.fs, &before);
	assert_true(before.data_misses > 12);
	assert_int_equal(sqfs_fs_file_read(hot, 0, buf, 1, why), 1);
	sqfs_fs_cache_stats(env.fs, &after);
	assert_int_equal(after.data_misses, before.data_misses);
	assert_int_equal(after.data_hits, before.data_hits + 1);
	sqfs_fs_file_close(hot);
	env_close(&env);
}

/*
 * More inodes than the table of numbers has slots (65,536): a number is
 * found by a walk that stops where an entry names it, numbers that share
 * a slot push each other out and are found again, a node id needs none of
 * it, and ".." of a directory is found by its parent's number.
 */
static void test_many_numbers(void **state)
{
	enum { DIRS = 70, PER = 1000 };
	char why[SQFS_ERROR_TEXT_SIZE], path[32];
	sqfs_writer_options_t wopt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	sqfs_entry_t e;
	sqfs_fs_stat_t st, again;
	sqfs_fs_t *fs;
	uint64_t node, d5;
	uint32_t count, n;
	int round, d, i;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	sqfs_writer_options_init(&wopt);
	assert_int_equal(sqfs_writer_create(file, &wopt, &wr, NULL), 0);
	for (d = 0; d < DIRS; ++d) {
		for (i = 0; i < PER; ++i) {
			snprintf(path, sizeof(path), "d%02d/f%04d", d, i);
			sqfs_entry_init(&e, path, S_IFIFO | 0644, 0, 0, 1000);
			assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
		}
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	assert_int_equal(sqfs_fs_open(file, NULL, &fs, why), 0);
	count = sqfs_fs_super(fs)->inode_count;
	assert_int_equal(count, 1 + DIRS + DIRS * PER);

	/* 5 and 5 + 65536 share a slot: each push the other out */
	for (round = 0; round < 3; ++round) {
		for (n = 5; n <= count; n += 65536) {
			if (sqfs_fs_stat(fs, n, &st, why) != 0)
				fail_msg("stat %u: %s", n, why);
			assert_int_equal(st.ino, n);
			assert_int_equal(sqfs_fs_stat(fs, st.node, &again, why),
					 0);
			assert_memory_equal(&st, &again, sizeof(st));
		}
	}
	for (n = 1; n <= count; n += count / 7) {
		if (sqfs_fs_stat(fs, n, &st, why) != 0)
			fail_msg("stat %u: %s", n, why);
		assert_int_equal(st.ino, n);
	}
	assert_int_equal(sqfs_fs_stat(fs, count, &st, why), 0);
	assert_int_equal(sqfs_fs_stat(fs, count + 1, &st, why),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	/* by node: no number needed, and the same inode by its number */
	assert_int_equal(sqfs_fs_resolve(fs, "d69/f0999", &node, why), 0);
	assert_int_equal(sqfs_fs_stat(fs, node, &st, why), 0);
	assert_int_equal(st.mode, S_IFIFO | 0644);
	assert_int_equal(sqfs_fs_stat(fs, st.ino, &again, why), 0);
	assert_int_equal(again.node, node);
	assert_int_equal(sqfs_fs_resolve(fs, "d05", &d5, why), 0);
	assert_int_equal(sqfs_fs_lookup(fs, d5, "..", 2, &st, why), 0);
	assert_int_equal(st.node, sqfs_fs_root(fs));
	sqfs_fs_destroy(fs);
	sqfs_file_destroy(file);
}

static void test_errors(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_options_t opt;
	sqfs_fs_file_t *f;
	sqfs_fs_stat_t st;
	sqfs_fs_t *fs;
	uint32_t count;
	uint8_t junk[4096];
	sqfs_file_t *file;
	env_t env;

	(void)state;
	env_open(&env, 4096, 0, NULL);
	count = sqfs_fs_super(env.fs)->inode_count;
	why[0] = '\0';
	assert_int_equal(sqfs_fs_stat(env.fs, 0, &st, why),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_non_null(strstr(why, "outside"));
	assert_int_equal(sqfs_fs_stat(env.fs, count + 1, &st, why),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(
	    sqfs_fs_file_open(env.fs, fs_ino(&env, "dev/cdev"), &f, why),
	    SQFS_ERROR_NOT_FILE);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(sqfs_fs_lookup(env.fs, count + 5, "x", 1, &st, why),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	/* node ids the file system never handed out: outside the inode
	 * table, or inside an inode */
	assert_int_equal(sqfs_fs_stat(env.fs, UINT64_MAX, &st, why),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(
	    sqfs_fs_stat(env.fs, (1ull << 32) + (1ull << 47), &st, why),
	    SQFS_ERROR_OUT_OF_BOUNDS);
	for (uint64_t off = 1; off < 40; ++off)
		sqfs_fs_stat(env.fs, fs_ino(&env, "files/f01") + off, &st, why);
	env_close(&env);

	memset(&opt, 0, sizeof(opt));
	opt.reserved[2] = 1;
	memset(junk, 0x55, sizeof(junk));
	file = fi_file(junk, sizeof(junk));
	assert_int_equal(sqfs_fs_open(file, &opt, &fs, why),
			 SQFS_ERROR_ARG_INVALID);
	opt.reserved[2] = 0;
	opt.flags = 0x80;
	assert_int_equal(sqfs_fs_open(file, &opt, &fs, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_fs_open(file, NULL, &fs, why),
			 SQFS_ERROR_SUPER_MAGIC);
	assert_true(strlen(why) > 0);
	sqfs_file_close(file);
	sqfs_fs_destroy(NULL);
	sqfs_fs_file_close(NULL);
}

/* ---- damaged images ------------------------------------------------------ */

static int walk_cb(void *user, const sqfs_fs_dirent_t *ent)
{
	uint32_t *inos = user;

	if (inos[0] < 255)
		inos[++inos[0]] = ent->ino;
	return 0;
}

/* Everything the file system offers, on whatever the image holds. */
static void exercise(sqfs_fs_t *fs)
{
	char why[SQFS_ERROR_TEXT_SIZE], buf[SQFS_MAX_SYMLINK_SIZE + 1];
	uint32_t inos[256], count, i, j;
	sqfs_xattr_t *list;
	sqfs_fs_stat_t st;
	sqfs_fs_file_t *f;
	size_t n, len;
	uint8_t data[9000];
	uint64_t off;

	count = sqfs_fs_super(fs)->inode_count;
	if (count > 64)
		count = 64;
	for (i = 1; i <= count; ++i) {
		if (sqfs_fs_stat(fs, i, &st, why) != 0) {
			assert_true(strlen(why) > 0);
			continue;
		}
		if ((st.mode & S_IFMT) == S_IFDIR) {
			inos[0] = 0;
			sqfs_fs_readdir(fs, i, 0, SQFS_FS_READDIR_STAT, walk_cb,
					inos, why);
			for (j = 1; j <= inos[0] && j < 4; ++j)
				sqfs_fs_stat(fs, inos[j], &st, why);
			sqfs_fs_lookup(fs, i, "f01", 3, &st, why);
			sqfs_fs_lookup(fs, i, "..", 2, &st, why);
		}
		if (sqfs_fs_readlink(fs, i, buf, sizeof(buf), &len, why) == 0)
			assert_int_equal(strlen(buf), len);
		if (sqfs_fs_xattrs(fs, i, &list, &n, why) == 0)
			sqfs_xattr_list_free(list, n);
		if (sqfs_fs_file_open(fs, i, &f, why) == 0) {
			for (off = 0;
			     off < sqfs_fs_file_size(f) && off < 64 * 4096;
			     off += 4000)
				sqfs_fs_file_read(f, off, data, sizeof(data),
						  why);
			sqfs_fs_file_close(f);
		}
	}
}

static void test_damaged(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_options_t opt;
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	uint8_t *data, *copy;
	size_t size, pos;
	int bit, opened = 0;
	time_t start = time(NULL);

	(void)state;
	data = fi_build(4096, SQFS_WRITER_UNCOMPRESSED, true, &size);
	copy = malloc(size);
	assert_non_null(copy);
	memset(&opt, 0, sizeof(opt));
	for (pos = 0; pos < size; ++pos) {
		for (bit = 0; bit < 8; bit += 3) {
			memcpy(copy, data, size);
			copy[pos] ^= (uint8_t)(1u << bit);
			/* read-ahead on for some, to stop threads too */
			opt.flags = (pos % 16 == 0) ? 0 : SQFS_FS_NO_READ_AHEAD;
			file = fi_file(copy, size);
			if (sqfs_fs_open(file, &opt, &fs, why) == 0) {
				opened++;
				exercise(fs);
				sqfs_fs_destroy(fs);
			} else {
				assert_true(strlen(why) > 0);
			}
			sqfs_file_close(file);
		}
	}
	/* most flips leave the superblock and tables valid */
	assert_true(opened > (int)size);
	/* bounded time: no hang */
	assert_true(time(NULL) - start < 300);
	free(copy);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat_walk),
	    cmocka_unit_test(test_stat_export),
	    cmocka_unit_test(test_stat_values),
	    cmocka_unit_test(test_lookup),
	    cmocka_unit_test(test_readdir),
	    cmocka_unit_test(test_readlink_xattrs),
	    cmocka_unit_test(test_read),
	    cmocka_unit_test(test_handles_shared),
	    cmocka_unit_test(test_cache_limits),
	    cmocka_unit_test(test_cache_scan_resistance),
	    cmocka_unit_test(test_many_numbers),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
