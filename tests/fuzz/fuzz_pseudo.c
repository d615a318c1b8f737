/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pseudo.c - libFuzzer target for the mksquashfs personality's pseudo
 * file parser (bin/mksquashfs/pseudo.c, through mk_pseudo_stream): every
 * type, quoted and escaped names, -pd style parents, and R definitions
 * with their data section, which is spooled to a temporary file because a
 * memory stream has no descriptor (as a pipe).
 *
 * Byte 0 chooses the tree the definitions apply to: even, a small tree a
 * source would give (a root, a directory, a file, a symlink); odd, the
 * source "-" (a bare root that "/ d" gives its attributes). The rest is
 * the pseudo file.
 *
 * Commands (f, F) are never run: mk_pseudo_stream only reads and checks,
 * and PATH is emptied so that nothing the parser might spawn (date(1) for
 * a time it does not know) runs either.
 *
 * A finding is a sanitizer report or a broken promise, turned into an
 * abort: accepted definitions give canonical paths, modes of one file
 * type with permission bits up to 07777, hard links to an entry that is
 * not a directory, every parent in the list as a directory, and regular
 * files whose data is a range that lies inside its store (or, for a
 * command's output, no store yet). Rejecting any input is fine.
 */
#include "config.h"

#include "fuzz_check.h"

#include "mksquashfs/mksquashfs.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *path)
{
	fuzz_fail("fuzz_pseudo", what, path);
}

static void check_path(const char *path)
{
	fuzz_check_canonical("fuzz_pseudo", path);
}

/* An entry as the scan or sources.c would have made it. */
static void add(gs_entries_t *e, const char *path, uint32_t mode,
		const char *target)
{
	gs_entry_t *x = gs_entries_push(e, strdup(path));

	if (x == NULL || x->path == NULL)
		abort();
	x->st.mode = mode;
	x->from_listing = true;
	x->keep_time = true;
	if (target != NULL && (x->target = strdup(target)) == NULL)
		abort();
}

static const gs_entry_t *find(const gs_entries_t *e, const char *path)
{
	for (size_t i = 0; i < e->count; ++i) {
		if (strcmp(e->list[i].path, path) == 0)
			return &e->list[i];
	}
	return NULL;
}

static void check_file(const gs_entries_t *e, const gs_entry_t *x)
{
	struct stat st;

	if (!S_ISREG(x->st.mode))
		fail("data for an entry that is not a file", x->path);
	/* a command's output: known only once it has run */
	if (x->st.data.store == UINT64_MAX)
		return;
	if (x->st.data.store >= e->store_count)
		fail("a store that does not exist", x->path);
	if (fstat(e->stores[x->st.data.store], &st) != 0)
		fail("a store that is not open", x->path);
	if (x->st.size > 0 &&
	    (x->st.data.offset > (uint64_t)st.st_size ||
	     x->st.size > (uint64_t)st.st_size - x->st.data.offset))
		fail("a range past the end of its store", x->path);
}

static void check(const gs_entries_t *e)
{
	for (size_t i = 0; i < e->count; ++i) {
		const gs_entry_t *x = &e->list[i], *p;
		mode_t fmt = x->st.mode & S_IFMT;
		const char *slash = strrchr(x->path, '/');

		check_path(x->path);
		if (x->hard_link) {
			check_path(x->target);
			p = find(e, x->target);
			if (p == NULL || S_ISDIR(p->st.mode))
				fail("a hard link to nothing or a directory",
				     x->path);
		} else if ((x->st.mode & ~(uint32_t)(S_IFMT | 07777)) != 0 ||
			   (fmt != S_IFDIR && fmt != S_IFREG &&
			    fmt != S_IFLNK && fmt != S_IFCHR &&
			    fmt != S_IFBLK && fmt != S_IFIFO &&
			    fmt != S_IFSOCK)) {
			fail("a bad mode", x->path);
		}
		if (x->in_store)
			check_file(e, x);
		if (slash != NULL) {
			char *parent =
			    strndup(x->path, (size_t)(slash - x->path));

			if (parent == NULL)
				abort();
			p = find(e, parent);
			free(parent);
			if (p == NULL || p->hard_link || !S_ISDIR(p->st.mode))
				fail("a parent that is not a directory",
				     x->path);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *stdin_sources[] = {(char *)"-"};
	mk_options_t opt;
	gs_entries_t e;
	FILE *fp;

	if (size < 2)
		return 0;
	/* nothing is spawned: no command, no date(1) */
	setenv("PATH", "/nonexistent", 1);
	memset(&opt, 0, sizeof(opt));
	memset(&e, 0, sizeof(e));
	add(&e, "", S_IFDIR | 0755, NULL);
	if (data[0] & 1) {
		opt.sources = stdin_sources;
		opt.source_count = 1;
	} else {
		add(&e, "d", S_IFDIR | 0755, NULL);
		add(&e, "d/f", S_IFREG | 0644, NULL);
		add(&e, "s", S_IFLNK | 0777, "d/f");
	}
	fp = fmemopen((void *)(data + 1), size - 1, "r");
	if (fp == NULL)
		abort();
	if (mk_pseudo_stream(fp, "fuzz", &opt, &e) == 0)
		check(&e);
	fclose(fp);
	gs_entries_free(&e);
	return 0;
}
