/* SPDX-License-Identifier: MIT */
/*
 * fuzz_listing.c - libFuzzer target for gensquashfs's text inputs: the
 * pack-file parser (listing.c), the sort file (sort.c) and the xattr file
 * (xattr_file.c). Byte 0 chooses: 0 mod 3 the input is a listing; else it
 * is a sort file (1) or an xattr file (2) applied to the entries of a
 * fixed listing. Input files and glob locations are looked up below a
 * small tree made for the run (a file, an empty file, a directory with
 * a file, a hard-link pair, a FIFO and a dangling symlink), so that glob
 * lines are parsed and their scans selected from like any other.
 *
 * A finding is a sanitizer report or a broken promise, turned into an
 * abort: a listing the parser accepts must give canonical paths (no
 * leading '/', no empty, '.' or '..' component), modes of one file type
 * and permission bits up to 07777, and hard links that name an entry of
 * the listing that is not a directory, every directory above an entry in
 * the list as a directory (given, or implicit: those come last, one for
 * the root if no line gives it); a sort file sets only the writer's
 * known flags; an xattr file gives only keys the library accepts.
 * Rejecting any input is fine.
 *
 * A listing with glob lines is skipped only if it could lead the scan
 * out of that tree: a field starting with '/' (an absolute location) or
 * a "..". The scan never follows symlinks, and the tree has none to a
 * directory.
 */
#include "config.h"

#include "fuzz_check.h"

#include "gensquashfs/gensquashfs.h"
#include "sqfs/xattr.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *path)
{
	fuzz_fail("fuzz_listing", what, path);
}

static void check_path(const char *path)
{
	fuzz_check_canonical("fuzz_listing", path);
}

static char tree[] = "/tmp/fuzz_listing.XXXXXX";

static void remove_tree(void)
{
	static const char *const names[] = {
	    "d/f", "d", "file", "empty", "link1", "link2", "fifo", "dangling",
	};
	char path[sizeof(tree) + 16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		snprintf(path, sizeof(path), "%s/%s", tree, names[i]);
		if (unlink(path) != 0)
			rmdir(path);
	}
	rmdir(tree);
}

static int make_file(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The tree inputs are looked up in, made at the first call. */
static int input_dir(void)
{
	static int fd = -1;

	if (fd >= 0)
		return fd;
	if (mkdtemp(tree) == NULL)
		abort();
	atexit(remove_tree);
	fd = open(tree, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || mkdirat(fd, "d", 0755) != 0 ||
	    make_file(fd, "d/f", "in d\n") != 0 ||
	    make_file(fd, "file", "data\n") != 0 ||
	    make_file(fd, "empty", "") != 0 ||
	    make_file(fd, "link1", "linked\n") != 0 ||
	    linkat(fd, "link1", fd, "link2", 0) != 0 ||
	    mkfifoat(fd, "fifo", 0644) != 0 ||
	    symlinkat("nowhere", fd, "dangling") != 0)
		abort();
	return fd;
}

/* Whether a glob in data could scan outside the tree. */
static bool may_leave_tree(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; ++i) {
		if (data[i] == '/' &&
		    (i == 0 || data[i - 1] == ' ' || data[i - 1] == '\t' ||
		     data[i - 1] == '"' || data[i - 1] == '\n' ||
		     data[i - 1] == '\r'))
			return true;
		if (data[i] == '.' && i + 1 < size && data[i + 1] == '.')
			return true;
	}
	return false;
}

/* Implicit entries are directories after the given ones, the root is
 * there, and so is every directory above an entry, as a directory. */
static void check_parents(const gs_entries_t *e)
{
	bool implicit = false, root = false;

	for (size_t i = 0; i < e->count; ++i) {
		const gs_entry_t *x = &e->list[i];
		const char *slash = strrchr(x->path, '/');
		size_t j, len;

		if (x->implicit && !S_ISDIR(x->st.mode))
			fail("an implicit entry that is not a directory",
			     x->path);
		if (implicit && !x->implicit)
			fail("a given entry after an implicit one", x->path);
		implicit = x->implicit;
		root = root || x->path[0] == '\0';
		if (slash == NULL)
			continue;
		len = (size_t)(slash - x->path);
		for (j = 0; j < e->count; ++j) {
			if (strlen(e->list[j].path) == len &&
			    memcmp(e->list[j].path, x->path, len) == 0)
				break;
		}
		if (j == e->count || !S_ISDIR(e->list[j].st.mode))
			fail("a parent that is not in the list as a directory",
			     x->path);
	}
	if (e->count > 0 && !root)
		fail("no root", "");
}

/* The entries sort and xattr files are applied to. */
static const char fixed[] = "dir / 0755 0 0\n"
			    "dir d 0755 0 0\n"
			    "nod d/c 0600 0 0 c 1 2\n"
			    "slink d/s 0777 0 0 x\n"
			    "pipe p 0644 0 0\n"
			    "link l 0 0 0 p\n";

static void other_file(int kind, const uint8_t *data, size_t size)
{
	const unsigned int known =
	    SQFS_FILE_DONT_COMPRESS | SQFS_FILE_DONT_FRAGMENT |
	    SQFS_FILE_DONT_DEDUPLICATE | SQFS_FILE_NO_SPARSE | SQFS_FILE_ALIGN;
	FILE *base = fmemopen((void *)fixed, sizeof(fixed) - 1, "r");
	FILE *fp = fmemopen((void *)data, size, "r");
	gs_entries_t e;

	if (base == NULL || fp == NULL ||
	    gs_read_listing_stream(base, "fixed", input_dir(), &e) != 0)
		abort();
	if (kind == 1 && gs_apply_sort_stream(fp, "fuzz", &e) == 0) {
		for (size_t i = 0; i < e.count; ++i) {
			if ((e.list[i].file_flags & ~known) != 0)
				fail("an unknown file flag", e.list[i].path);
		}
	}
	if (kind == 2 && gs_apply_xattr_stream(fp, "fuzz", &e) == 0) {
		for (size_t i = 0; i < e.count; ++i) {
			for (size_t j = 0; j < e.list[i].xattr_count; ++j) {
				if (sqfs_xattr_check(&e.list[i].xattrs[j],
						     NULL) != 0)
					fail("a key the library refuses",
					     e.list[i].path);
			}
		}
	}
	gs_entries_free(&e);
	fclose(base);
	fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_entries_t e;
	FILE *fp;

	if (size < 2)
		return 0;
	if (data[0] % 3 != 0) {
		other_file(data[0] % 3, data + 1, size - 1);
		return 0;
	}
	if (memmem(data, size, "glob", 4) != NULL &&
	    may_leave_tree(data + 1, size - 1))
		return 0;
	fp = fmemopen((void *)(data + 1), size - 1, "r");
	if (fp == NULL)
		return 0;
	if (gs_read_listing_stream(fp, "fuzz", input_dir(), &e) == 0) {
		for (size_t i = 0; i < e.count; ++i) {
			const gs_entry_t *x = &e.list[i];
			mode_t fmt = x->st.mode & S_IFMT;

			check_path(x->path);
			if ((x->st.mode & ~(mode_t)(S_IFMT | 07777)) != 0 ||
			    (fmt != S_IFDIR && fmt != S_IFREG &&
			     fmt != S_IFLNK && fmt != S_IFCHR &&
			     fmt != S_IFBLK && fmt != S_IFIFO &&
			     fmt != S_IFSOCK))
				fail("a bad mode", x->path);
			if (x->hard_link) {
				size_t j;

				check_path(x->target);
				for (j = 0; j < e.count; ++j) {
					if (!e.list[j].hard_link &&
					    strcmp(e.list[j].path, x->target) ==
						0)
						break;
					if (e.list[j].hard_link &&
					    strcmp(e.list[j].path, x->target) ==
						0)
						break;
				}
				if (j == e.count || S_ISDIR(e.list[j].st.mode))
					fail("a hard link to nothing or a "
					     "directory",
					     x->path);
			}
		}
		check_parents(&e);
	}
	gs_entries_free(&e);
	fclose(fp);
	return 0;
}
