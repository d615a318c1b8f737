/* SPDX-License-Identifier: MIT */
/*
 * test_dir_source.c - the walk of a tree on disk through the public API
 * (sqfs/dir_source.h): order, every entry type and its attributes, hard
 * links, xattrs with the entries or on demand, data runs with holes;
 * depth beyond the directories it keeps open and beyond the open-file
 * limit; a directory replaced while the walk is in it or away from it; a
 * file swapped for a symlink, another file or a FIFO after its report,
 * refused with words naming it; exclusions; bad options and paths.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"

#include "sqfs/dir_source.h"
#include "sqfs/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

static void write_at(int dfd, const char *name, const char *data)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

/* A source of the tree at fd (which stays the caller's) with flags. */
static sqfs_dir_source_t *walk_flags(int fd, uint32_t flags)
{
	sqfs_dir_source_options_t opt;
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_dir_source_t *s;

	sqfs_dir_source_options_init(&opt);
	opt.flags = flags;
	assert_int_equal(sqfs_dir_source_create_fd(fd, &opt, &s, why), 0);
	return s;
}

static sqfs_dir_source_t *walk_of(int fd)
{
	return walk_flags(fd, SQFS_DIR_SOURCE_NO_XATTRS);
}

/* Walk s up to the entry at path: 0, or what next returned. */
static int walk_to(sqfs_dir_source_t *s, const char *path,
		   const sqfs_entry_t **e)
{
	int ret;

	while ((ret = sqfs_dir_source_next(s, e)) == 0 &&
	       strcmp((*e)->path, path) != 0)
		;
	return ret;
}

/* A socket bound at name in the test directory. */
static void make_socket(const char *name)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	assert_true(strlen(test_tmpdir) + strlen(name) + 2 <
		    sizeof(sa.sun_path));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", test_tmpdir, name);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

/* The order, every type of entry and its attributes, hard links. */
static void test_order_and_entries(void **state)
{
	int dfd = test_tmpdir_open();
	bool dev = geteuid() == 0;
	const sqfs_entry_t *e;
	char seen[1024] = "";
	struct stat st;
	sqfs_dir_source_t *s;

	(void)state;
	assert_int_equal(mkdirat(dfd, "b", 0700), 0);
	assert_int_equal(mkdirat(dfd, "b/d", 0755), 0);
	write_at(dfd, "a", "aaa");
	write_at(dfd, "b/c", "cc");
	write_at(dfd, "b-x", "x");
	assert_int_equal(symlinkat("../a", dfd, "b/l"), 0);
	assert_int_equal(linkat(dfd, "a", dfd, "b/d/h", 0), 0);
	assert_int_equal(mkfifoat(dfd, "f", 0600), 0);
	make_socket("s");
	/* a device only where it can be made */
	if (dev && mknodat(dfd, "cdev", S_IFCHR | 0640, makedev(1, 3)) != 0)
		dev = false;
	assert_int_equal(fstatat(dfd, "a", &st, 0), 0);

	s = walk_of(dfd);
	while (sqfs_dir_source_next(s, &e) == 0) {
		strcat(seen, e->path);
		if (e->hard_link != NULL) {
			strcat(seen, "=");
			strcat(seen, e->hard_link);
		}
		strcat(seen, ";");
		assert_int_equal(e->xattr_count, 0);
		if (e->path[0] == '\0')
			assert_int_equal(e->mode & S_IFMT, S_IFDIR);
		if (strcmp(e->path, "a") == 0) {
			assert_int_equal(e->mode, S_IFREG | 0644);
			assert_int_equal(e->size, 3);
			assert_int_equal(e->nlink, 2);
			assert_int_equal(e->uid, geteuid());
			assert_int_equal(e->mtime, st.st_mtime);
			assert_true(e->inode_number == st.st_ino);
			assert_true(sqfs_dir_source_device(s) ==
				    (uint64_t)st.st_dev);
		}
		if (strcmp(e->path, "b") == 0)
			assert_int_equal(e->mode, S_IFDIR | 0700);
		if (strcmp(e->path, "b/l") == 0) {
			assert_int_equal(e->mode & S_IFMT, S_IFLNK);
			assert_string_equal(e->symlink_target, "../a");
			assert_int_equal(e->size, 4);
		}
		if (strcmp(e->path, "b/c") == 0) {
			assert_int_equal(e->mode, S_IFREG | 0644);
			assert_int_equal(e->size, 2);
		}
		if (strcmp(e->path, "b/d/h") == 0) {
			/* the first member's attributes */
			assert_int_equal(e->mode, S_IFREG | 0644);
			assert_true(e->inode_number == st.st_ino);
		}
		if (strcmp(e->path, "f") == 0)
			assert_int_equal(e->mode, S_IFIFO | 0600);
		if (strcmp(e->path, "s") == 0)
			assert_int_equal(e->mode & S_IFMT, S_IFSOCK);
		if (strcmp(e->path, "cdev") == 0) {
			assert_int_equal(e->mode, S_IFCHR | 0640);
			assert_int_equal(e->rdev_major, 1);
			assert_int_equal(e->rdev_minor, 3);
		}
	}
	/* byte order in each directory, a directory before its contents,
	 * a hard link's later name naming its first */
	assert_string_equal(seen, dev ? ";a;b;b/c;b/d;b/d/h=a;b/l;b-x;cdev;f;s;"
				      : ";a;b;b/c;b/d;b/d/h=a;b/l;b-x;f;s;");
	sqfs_dir_source_destroy(s);

	/* every name of a group on its own */
	s = walk_flags(dfd, SQFS_DIR_SOURCE_NO_XATTRS |
				SQFS_DIR_SOURCE_NO_HARD_LINKS);
	assert_int_equal(walk_to(s, "b/d/h", &e), 0);
	assert_null(e->hard_link);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* Exclusions: a directory skipped is not entered; a group's first
 * member skipped makes the next one met the first. */
static void test_skip(void **state)
{
	int dfd = test_tmpdir_open(), ret;
	const sqfs_entry_t *e;
	char seen[512] = "";
	sqfs_dir_source_t *s;

	(void)state;
	write_at(dfd, "a", "a");
	assert_int_equal(linkat(dfd, "a", dfd, "b", 0), 0);
	assert_int_equal(linkat(dfd, "a", dfd, "c", 0), 0);
	assert_int_equal(mkdirat(dfd, "d", 0755), 0);
	write_at(dfd, "d/inside", "x");
	s = walk_of(dfd);
	/* nothing to skip before the first entry */
	assert_int_equal(sqfs_dir_source_skip(s), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_dir_source_next(s, &e), 0);
	/* not the root */
	assert_int_equal(sqfs_dir_source_skip(s), SQFS_ERROR_ARG_INVALID);
	while ((ret = sqfs_dir_source_next(s, &e)) == 0) {
		if (strcmp(e->path, "a") == 0 || strcmp(e->path, "d") == 0) {
			assert_int_equal(sqfs_dir_source_skip(s), 0);
			continue;
		}
		strcat(seen, e->path);
		if (e->hard_link != NULL) {
			strcat(seen, "=");
			strcat(seen, e->hard_link);
		}
		strcat(seen, ";");
	}
	assert_int_equal(ret, 1);
	assert_string_equal(seen, "b;c=b;");
	/* nor after the last */
	assert_int_equal(sqfs_dir_source_skip(s), SQFS_ERROR_SEQUENCE);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* A file's data as runs, holes without data; rewound, the same again. */
static void test_data_runs(void **state)
{
	int dfd = test_tmpdir_open(), fd;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	static char block[65536];
	uint64_t pos = 0, holes = 0, data = 0;
	sqfs_dir_source_t *s;

	(void)state;
	memset(block, 'D', sizeof(block));
	fd = openat(dfd, "sparse", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, block, sizeof(block), 0),
			 (ssize_t)sizeof(block));
	/* a hole of 10 MiB, then data */
	assert_int_equal(pwrite(fd, block, sizeof(block), 10 << 20),
			 (ssize_t)sizeof(block));
	close(fd);

	s = walk_of(dfd);
	assert_int_equal(sqfs_dir_source_next(s, &e), 0);
	/* a directory has no data */
	assert_int_equal(sqfs_dir_source_read(s, &run), 1);
	assert_int_equal(sqfs_dir_source_next(s, &e), 0);
	assert_string_equal(e->path, "sparse");
	for (int pass = 0; pass < 2; ++pass) {
		pos = holes = data = 0;
		while (sqfs_dir_source_read(s, &run) == 0) {
			assert_true(run.offset == pos);
			if (run.data == NULL) {
				holes += run.size;
			} else {
				for (size_t i = 0; i < run.size; ++i)
					assert_int_equal(run.data[i], 'D');
				data += run.size;
			}
			pos += run.size;
		}
		assert_true(pos == e->size);
		assert_true(data == 2 * sizeof(block));
		/* a file system without SEEK_HOLE reports no hole */
		assert_true(holes == 0 || holes == e->size - data);
		assert_int_equal(sqfs_dir_source_rewind(s), 0);
	}
	assert_int_equal(sqfs_dir_source_next(s, &e), 1);
	assert_int_equal(sqfs_dir_source_next(s, &e), 1);
	assert_string_equal(sqfs_dir_source_error(s), "");
	sqfs_dir_source_destroy(s);
	close(dfd);
}

static int count_entries(int dfd, int *err)
{
	const sqfs_entry_t *e;
	sqfs_dir_source_t *s = walk_of(dfd);
	int n = 0, ret;

	while ((ret = sqfs_dir_source_next(s, &e)) == 0)
		++n;
	*err = ret;
	sqfs_dir_source_destroy(s);
	return n;
}

/*
 * A tree deeper than the directories the walk keeps open, walked with
 * an open-file limit far below its depth: every entry, every directory
 * left and come back to.
 */
static void test_deep(void **state)
{
	struct rlimit old, low;
	int dfd = test_tmpdir_open(), cur, next, n, err;
	const int depth = 300;

	(void)state;
	cur = dup(dfd);
	for (int i = 0; i < depth; ++i) {
		/* a file beside each directory: reached after coming back */
		write_at(cur, "z", "z");
		assert_int_equal(mkdirat(cur, "d", 0755), 0);
		next = openat(cur, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(cur);
		cur = next;
	}
	close(cur);

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 48;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	n = count_entries(dfd, &err);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(err, 1);
	/* the root, and per level a directory and a file */
	assert_int_equal(n, 1 + 2 * depth);
	close(dfd);
}

/*
 * A directory far up the stack (closed while the walk is deep) replaced
 * by another: when the walk comes back to it, it is opened again, found
 * not to be the one it met, and the walk fails naming it rather than
 * read the other; every later call fails the same way.
 */
static void test_replaced_while_away(void **state)
{
	int dfd = test_tmpdir_open(), cur, next, ret;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	sqfs_dir_source_t *s;
	const int depth = 40;

	(void)state;
	cur = dup(dfd);
	for (int i = 0; i < depth; ++i) {
		assert_int_equal(mkdirat(cur, "d", 0755), 0);
		write_at(cur, "zz", "z");
		next = openat(cur, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(cur);
		cur = next;
	}
	close(cur);

	s = walk_of(dfd);
	/* down to the deepest directory */
	while ((ret = sqfs_dir_source_next(s, &e)) == 0 &&
	       strlen(e->path) < (size_t)depth * 2 - 1)
		;
	assert_int_equal(ret, 0);
	/* swap d/d for another directory with the same contents' names */
	assert_int_equal(renameat(dfd, "d/d", dfd, "d/moved"), 0);
	assert_int_equal(mkdirat(dfd, "d/d", 0755), 0);
	write_at(dfd, "d/d/zz", "secret");
	while ((ret = sqfs_dir_source_next(s, &e)) == 0)
		assert_true(strcmp(e->path, "d/d/zz") != 0);
	assert_int_equal(ret, SQFS_ERROR_CHANGED);
	assert_string_equal(sqfs_dir_source_error(s),
			    "d/d: was replaced since it was scanned");
	assert_int_equal(sqfs_dir_source_next(s, &e), SQFS_ERROR_CHANGED);
	assert_int_equal(sqfs_dir_source_read(s, &run), SQFS_ERROR_CHANGED);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* A directory replaced between its report and the walk entering it. */
static void test_replaced_before_entering(void **state)
{
	int dfd = test_tmpdir_open();
	const sqfs_entry_t *e;
	sqfs_dir_source_t *s;

	(void)state;
	assert_int_equal(mkdirat(dfd, "d", 0755), 0);
	write_at(dfd, "d/f", "mine");
	assert_int_equal(mkdirat(dfd, "other", 0755), 0);
	write_at(dfd, "other/f", "secret");
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "d", &e), 0);
	assert_int_equal(renameat(dfd, "d", dfd, "d.old"), 0);
	assert_int_equal(symlinkat("other", dfd, "d"), 0);
	/* entering d: a symlink now, never followed */
	assert_int_equal(sqfs_dir_source_next(s, &e), SQFS_ERROR_CHANGED);
	assert_string_equal(sqfs_dir_source_error(s),
			    "d: was replaced since it was scanned");
	sqfs_dir_source_destroy(s);

	/* the same with another directory in its place */
	assert_int_equal(unlinkat(dfd, "d", 0), 0);
	assert_int_equal(renameat(dfd, "d.old", dfd, "d"), 0);
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "d", &e), 0);
	assert_int_equal(renameat(dfd, "d", dfd, "d.old"), 0);
	assert_int_equal(renameat(dfd, "other", dfd, "d"), 0);
	assert_int_equal(sqfs_dir_source_next(s, &e), SQFS_ERROR_CHANGED);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* A file swapped after its report (for a symlink to a secret, another
 * file, a FIFO): its data is not read, and the words name it. */
static void test_file_replaced(void **state)
{
	int dfd = test_tmpdir_open();
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	sqfs_dir_source_t *s;

	(void)state;
	write_at(dfd, "f", "mine");
	write_at(dfd, "secret", "secret");
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	assert_int_equal(symlinkat("secret", dfd, "f"), 0);
	assert_int_equal(sqfs_dir_source_read(s, &run), SQFS_ERROR_CHANGED);
	assert_string_equal(sqfs_dir_source_error(s),
			    "f: was replaced since it was scanned");
	sqfs_dir_source_destroy(s);

	/* another file in its place: not the one the walk saw */
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	write_at(dfd, "f", "mine");
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(renameat(dfd, "secret", dfd, "f"), 0);
	assert_int_equal(sqfs_dir_source_read(s, &run), SQFS_ERROR_CHANGED);
	sqfs_dir_source_destroy(s);

	/* a FIFO: refused, without blocking on it */
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	assert_int_equal(mkfifoat(dfd, "f", 0644), 0);
	assert_int_equal(sqfs_dir_source_read(s, &run), SQFS_ERROR_CHANGED);
	assert_string_equal(sqfs_dir_source_error(s),
			    "f: was replaced since it was scanned");
	sqfs_dir_source_destroy(s);

	/* with the xattrs read: the data comes from the descriptor they
	 * were read from, opened and checked with the entry */
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	write_at(dfd, "f", "mine");
	s = walk_flags(dfd, 0);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	write_at(dfd, "f", "other!");
	assert_int_equal(sqfs_dir_source_read(s, &run), 0);
	assert_int_equal(run.size, 4);
	assert_memory_equal(run.data, "mine", 4);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* A file that grows after its report: its data is read up to the size
 * lstat gave, as the entry says, xattrs read on demand or not. */
static void test_grown_after_report(void **state)
{
	int dfd = test_tmpdir_open(), fd;
	const sqfs_entry_t *e;
	const sqfs_xattr_t *xl;
	sqfs_data_run_t run;
	uint64_t total = 0;
	size_t xn;
	sqfs_dir_source_t *s;

	(void)state;
	write_at(dfd, "f", "four");
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(e->size, 4);
	fd = openat(dfd, "f", O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "more", 4), 4);
	close(fd);
	assert_int_equal(sqfs_dir_source_xattrs(s, &xl, &xn), 0);
	while (sqfs_dir_source_read(s, &run) == 0)
		total += run.size;
	assert_true(total == 4);
	assert_int_equal(e->size, 4);
	sqfs_dir_source_destroy(s);
	close(dfd);
}

/* Xattrs: with the entries unless told otherwise, or on demand; from
 * files, directories, and (as root, trusted.*) a symlink's own. */
static void test_xattrs(void **state)
{
	int dfd = test_tmpdir_open();
	const sqfs_entry_t *e;
	const sqfs_xattr_t *xl;
	char path[512];
	size_t xn;
	sqfs_dir_source_t *s;
	bool on_link = false;

	(void)state;
	write_at(dfd, "f", "data");
	assert_int_equal(mkdirat(dfd, "d", 0755), 0);
	assert_int_equal(symlinkat("f", dfd, "l"), 0);
	snprintf(path, sizeof(path), "%s/f", test_tmpdir);
	if (setxattr(path, "user.one", "1", 1, 0) != 0) {
		close(dfd);
		skip();
	}
	snprintf(path, sizeof(path), "%s/d", test_tmpdir);
	assert_int_equal(setxattr(path, "user.dir", "dd", 2, 0), 0);
	snprintf(path, sizeof(path), "%s/l", test_tmpdir);
	if (geteuid() == 0 && lsetxattr(path, "trusted.link", "L", 1, 0) == 0)
		on_link = true;

	s = walk_flags(dfd, 0);
	while (sqfs_dir_source_next(s, &e) == 0) {
		if (strcmp(e->path, "f") == 0) {
			assert_int_equal(e->xattr_count, 1);
			assert_string_equal(e->xattrs[0].key, "user.one");
			assert_int_equal(e->xattrs[0].size, 1);
			assert_memory_equal(e->xattrs[0].value, "1", 1);
		} else if (strcmp(e->path, "d") == 0) {
			assert_int_equal(e->xattr_count, 1);
			assert_string_equal(e->xattrs[0].key, "user.dir");
		} else if (strcmp(e->path, "l") == 0) {
			/* the symlink's own, never its target's */
			assert_int_equal(e->xattr_count, on_link ? 1 : 0);
			if (on_link)
				assert_string_equal(e->xattrs[0].key,
						    "trusted.link");
		}
		/* what the entry carries is what xattrs gives */
		assert_int_equal(sqfs_dir_source_xattrs(s, &xl, &xn), 0);
		assert_int_equal(xn, e->xattr_count);
	}
	sqfs_dir_source_destroy(s);

	/* none with the entries; on demand, the same */
	s = walk_of(dfd);
	assert_int_equal(walk_to(s, "f", &e), 0);
	assert_int_equal(e->xattr_count, 0);
	assert_int_equal(sqfs_dir_source_xattrs(s, &xl, &xn), 0);
	assert_int_equal(xn, 1);
	assert_string_equal(xl[0].key, "user.one");
	sqfs_dir_source_destroy(s);
	close(dfd);
}

static void warned(void *user, const char *words)
{
	strncat((char *)user, words, 255);
}

/* Creating: bad options, a missing path, a file; the words name it. */
static void test_create(void **state)
{
	int dfd = test_tmpdir_open();
	sqfs_dir_source_options_t opt;
	char why[SQFS_ERROR_TEXT_SIZE], path[512], words[256] = "";
	const sqfs_entry_t *e;
	sqfs_dir_source_t *s;

	(void)state;
	write_at(dfd, "file", "x");
	assert_int_equal(mkdirat(dfd, "sub", 0755), 0);
	sqfs_dir_source_options_init(&opt);
	opt.flags = 0x80000000u;
	assert_int_equal(sqfs_dir_source_create(test_tmpdir, &opt, &s, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(s);
	sqfs_dir_source_options_init(&opt);
	opt.reserved[3] = 1;
	assert_int_equal(sqfs_dir_source_create(test_tmpdir, &opt, &s, why),
			 SQFS_ERROR_ARG_INVALID);

	snprintf(path, sizeof(path), "%s/missing", test_tmpdir);
	assert_int_equal(sqfs_dir_source_create(path, NULL, &s, why),
			 SQFS_ERROR_IO);
	assert_non_null(strstr(why, path));
	assert_non_null(strstr(why, strerror(ENOENT)));
	snprintf(path, sizeof(path), "%s/file", test_tmpdir);
	assert_int_equal(sqfs_dir_source_create(path, NULL, &s, why),
			 SQFS_ERROR_NOT_DIR);
	assert_non_null(strstr(why, path));

	/* by path: the root is "", its contents below it */
	snprintf(path, sizeof(path), "%s/sub", test_tmpdir);
	write_at(dfd, "sub/in", "in");
	sqfs_dir_source_options_init(&opt);
	opt.warn = warned;
	opt.user = words;
	assert_int_equal(sqfs_dir_source_create(path, &opt, &s, NULL), 0);
	assert_int_equal(sqfs_dir_source_next(s, &e), 0);
	assert_string_equal(e->path, "");
	assert_int_equal(sqfs_dir_source_next(s, &e), 0);
	assert_string_equal(e->path, "in");
	assert_int_equal(sqfs_dir_source_next(s, &e), 1);
	sqfs_dir_source_destroy(s);
	/* nothing was left out */
	assert_string_equal(words, "");
	sqfs_dir_source_destroy(NULL);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_order_and_entries,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_skip, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_data_runs, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_deep, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_replaced_while_away,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_replaced_before_entering,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		test_file_replaced, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_grown_after_report,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_xattrs, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_create, test_tmpdir_setup,
					    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
