/* SPDX-License-Identifier: MIT */
/*
 * fuzz_fs.c - libFuzzer target for the file system object (sqfs/fs.h).
 *
 * Each input is opened as an image through sqfs_fs_open and every call is
 * made on it from two threads at once (so the sanitizers see the caches
 * and the inode map shared): the attributes of every inode number (up to
 * a cap), listings with every flag and resumed from every cookie,
 * lookups of the names found and of names that are not there, symlinks,
 * xattrs, and reads of every file up to a byte cap. Any error code is a
 * fine answer; an answer that breaks the API's promises (a failure
 * without words, a listing entry outside the image's inode numbers, a
 * read longer than asked or than the file) aborts.
 */
#include "config.h"

#include "sqfs/squashfs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INODES 64u
#define MAX_NAMES 32u
#define MAX_READ (256u * 1024u)

static void broken(const char *what, int ret, const char *why)
{
	fprintf(stderr, "fuzz_fs: %s: %d '%s'\n", what, ret, why);
	abort();
}

/* A failure must come with words. */
static void check_fail(const char *what, int ret, const char *why)
{
	if (ret < 0 && why[0] == '\0')
		broken(what, ret, why);
}

typedef struct {
	sqfs_fs_t *fs;
	uint32_t count;
	uint32_t inos[MAX_NAMES];
	uint64_t nodes[MAX_NAMES];
	char names[MAX_NAMES][257];
	size_t lens[MAX_NAMES];
	uint64_t cookies[MAX_NAMES];
	size_t n;
} listing_t;

static int collect(void *user, const sqfs_fs_dirent_t *ent)
{
	listing_t *l = user;

	if (ent->ino == 0 || ent->ino > l->count || ent->name_len == 0 ||
	    ent->name_len > 256 || ent->next_cookie == 0)
		broken("readdir entry", (int)ent->ino, "");
	if (l->n == MAX_NAMES)
		return 1;
	l->inos[l->n] = ent->ino;
	l->nodes[l->n] = ent->node;
	memcpy(l->names[l->n], ent->name, ent->name_len);
	l->lens[l->n] = ent->name_len;
	l->cookies[l->n] = ent->next_cookie;
	l->n++;
	return 0;
}

static void read_file(sqfs_fs_t *fs, uint64_t id, uint8_t *buf)
{
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_file_t *f;
	uint64_t off, size;
	ptrdiff_t ret;
	int r;

	r = sqfs_fs_file_open(fs, id, &f, why);
	check_fail("file_open", r, why);
	if (r != 0)
		return;
	size = sqfs_fs_file_size(f);
	for (off = 0; off < size && off < MAX_READ; off += 40000) {
		why[0] = '\0';
		ret = sqfs_fs_file_read(f, off, buf, 50000, why);
		check_fail("read", (int)ret, why);
		if (ret > 50000 || (ret >= 0 && (uint64_t)ret > size - off))
			broken("read length", (int)ret, why);
	}
	ret = sqfs_fs_file_read(f, size, buf, 10, why);
	if (ret != 0)
		broken("read at the end", (int)ret, why);
	sqfs_fs_file_close(f);
}

static void exercise(sqfs_fs_t *fs)
{
	char why[SQFS_ERROR_TEXT_SIZE] = "", link[SQFS_MAX_SYMLINK_SIZE + 1];
	static const uint32_t flags[] = {0, SQFS_FS_READDIR_DOTS,
					 SQFS_FS_READDIR_STAT |
					     SQFS_FS_READDIR_DOTS};
	uint8_t *buf = malloc(50000);
	uint32_t i, count;
	uint64_t node;
	sqfs_xattr_t *list;
	sqfs_fs_stat_t st;
	listing_t l;
	size_t k, n, len;
	int ret;

	if (buf == NULL)
		return;
	count = sqfs_fs_super(fs)->inode_count;
	for (i = 1; i <= count && i <= MAX_INODES; ++i) {
		why[0] = '\0';
		ret = sqfs_fs_stat(fs, i, &st, why);
		check_fail("stat", ret, why);
		if (ret != 0)
			continue;
		if (st.ino != i)
			broken("stat number", (int)st.ino, "");

		memset(&l, 0, sizeof(l));
		l.fs = fs;
		l.count = count;
		why[0] = '\0';
		ret = sqfs_fs_readdir(fs, i, 0, flags[i % 3], collect, &l, why);
		check_fail("readdir", ret, why);
		for (k = 0; k < l.n; ++k) {
			listing_t more;

			memset(&more, 0, sizeof(more));
			more.fs = fs;
			more.count = count;
			why[0] = '\0';
			ret = sqfs_fs_readdir(fs, i, l.cookies[k], flags[i % 3],
					      collect, &more, why);
			check_fail("readdir resumed", ret, why);
			why[0] = '\0';
			ret = sqfs_fs_lookup(fs, i, l.names[k], l.lens[k], &st,
					     why);
			check_fail("lookup", ret, why);
			if (l.nodes[k] == 0)
				continue;
			why[0] = '\0';
			ret = sqfs_fs_stat(fs, l.nodes[k], &st, why);
			check_fail("stat by node", ret, why);
			if (ret == 0 && st.node != l.nodes[k])
				broken("stat node", (int)st.ino, "");
		}
		why[0] = '\0';
		ret = sqfs_fs_lookup(fs, i, "zz_missing", 10, &st, why);
		check_fail("lookup", ret, why);

		why[0] = '\0';
		ret = sqfs_fs_readlink(fs, i, link, sizeof(link), &len, why);
		check_fail("readlink", ret, why);
		if (ret == 0 && strlen(link) != len)
			broken("readlink length", (int)len, link);
		why[0] = '\0';
		ret = sqfs_fs_xattrs(fs, i, &list, &n, why);
		check_fail("xattrs", ret, why);
		if (ret == 0)
			sqfs_xattr_list_free(list, n);
		read_file(fs, i, buf);
	}
	why[0] = '\0';
	ret = sqfs_fs_resolve(fs, "a/b/c", &node, why);
	check_fail("resolve", ret, why);
	if (ret == 0)
		read_file(fs, node, buf);
	free(buf);
}

static void *thread_main(void *arg)
{
	exercise(arg);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_options_t opt;
	sqfs_fs_cache_stats_t cs;
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	pthread_t other;
	bool threaded;
	int ret;

	if (sqfs_file_open_memory(&file, data, size,
				  SQFS_FILE_OPEN_READ_ONLY) != 0)
		return 0;
	memset(&opt, 0, sizeof(opt));
	/* small caches, so that eviction happens; read-ahead on some */
	opt.meta_cache_bytes = 1;
	opt.data_cache_bytes = 1;
	opt.read_ahead_threads = 1;
	if (size % 4 != 0)
		opt.flags = SQFS_FS_NO_READ_AHEAD;
	ret = sqfs_fs_open(file, &opt, &fs, why);
	check_fail("open", ret, why);
	if (ret == 0) {
		threaded = pthread_create(&other, NULL, thread_main, fs) == 0;
		exercise(fs);
		if (threaded)
			pthread_join(other, NULL);
		sqfs_fs_cache_stats(fs, &cs);
		if (cs.meta_bytes > cs.meta_limit ||
		    cs.data_bytes > cs.data_limit)
			broken("cache over its limit", 0, "");
		sqfs_fs_destroy(fs);
	}
	sqfs_file_destroy(file);
	return 0;
}
