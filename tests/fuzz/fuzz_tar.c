/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tar.c - libFuzzer target for the tar entry reader (lib/tar).
 *
 * Each input is an archive in memory, possibly compressed, read the way
 * tar2sqfs reads one: every entry, every field of it, every chunk of its
 * data, going on after an error the reader says is not fatal. A sanitizer
 * report, or the reader contradicting what tar_reader.h promises (turned
 * into an abort), is a finding; any error code is a fine answer.
 */
#include "config.h"

#include "sqfs/error.h"
#include "tar/tar_reader.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Caps on the work per input. A compressed input of a few KiB can expand
 * to gigabytes and a sparse file can claim any size, so an input must not
 * take longer than its size warrants: holes cost nothing to report, data
 * is capped in bytes, and every call counts.
 */
#define FUZZ_MAX_NEXT_CALLS 4096
#define FUZZ_MAX_CHUNKS 65536
#define FUZZ_MAX_DATA_BYTES (16u << 20)

typedef struct {
	unsigned long next_calls;
	unsigned long chunks;
	uint64_t data_bytes;
	unsigned int sum;
} budget_t;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the sum of every byte looked at, stored so that no read of them can be
 * optimised away */
static volatile unsigned int fuzz_tar_sink;

static void inconsistent(const char *what, const char *name)
{
	fprintf(stderr, "fuzz_tar: inconsistency: %s ('%s')\n", what,
		name != NULL ? name : "?");
	abort();
}

static void touch(budget_t *b, const void *data, size_t size)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < size; ++i)
		b->sum += p[i];
}

static void touch_string(budget_t *b, const char *s)
{
	touch(b, s, strlen(s) + 1);
}

static void touch_error(budget_t *b, const tar_reader_t *rd)
{
	const char *name = tar_reader_error_entry(rd);

	touch_string(b, tar_reader_error(rd));
	if (name != NULL)
		touch_string(b, name);
}

/* What tar/path.h calls canonical: no leading "/", no empty or "."
 * components, no trailing "/"; unsafe exactly if a component is "..". */
static bool is_canonical(const char *path, bool unsafe)
{
	bool dotdot = false;

	if (path[0] == '\0')
		return !unsafe;
	for (;;) {
		size_t n = strcspn(path, "/");

		if (n == 0 || (n == 1 && path[0] == '.'))
			return false;
		if (n == 2 && path[0] == '.' && path[1] == '.')
			dotdot = true;
		path += n;
		if (*path == '\0')
			break;
		++path;
		if (*path == '\0')
			return false;
	}
	return dotdot == unsafe;
}

static void check_entry(budget_t *b, const tar_entry_t *ent)
{
	const char *name = ent->raw_path;
	size_t i;

	if (ent->raw_path == NULL || ent->path == NULL)
		inconsistent("entry without a name", NULL);
	touch_string(b, ent->raw_path);
	touch_string(b, ent->path);
	if (!is_canonical(ent->path, ent->unsafe))
		inconsistent("path not canonical or unsafe flag wrong", name);

	if ((unsigned int)ent->type > TAR_TYPE_OTHER)
		inconsistent("type out of range", name);
	if (ent->mode & ~(uint32_t)07777)
		inconsistent("mode beyond the permission bits", name);
	if (ent->type != TAR_TYPE_FILE && ent->size != 0)
		inconsistent("size set on an entry that is not a file", name);
	b->sum += (unsigned int)(ent->uid ^ ent->gid ^ ent->mtime);
	b->sum += (unsigned int)(ent->rdev_major ^ ent->rdev_minor);

	if (ent->type == TAR_TYPE_SYMLINK) {
		if (ent->symlink == NULL)
			inconsistent("symlink without a target", name);
		touch_string(b, ent->symlink);
	}
	if (ent->type == TAR_TYPE_HARDLINK) {
		if (ent->hardlink == NULL)
			inconsistent("hard link without a target", name);
		touch_string(b, ent->hardlink);
		if (!is_canonical(ent->hardlink, ent->hardlink_unsafe))
			inconsistent("hard-link target not canonical or "
				     "unsafe flag wrong",
				     name);
	}

	if (ent->xattr_count > 0 && ent->xattrs == NULL)
		inconsistent("xattr count without xattrs", name);
	for (i = 0; i < ent->xattr_count; ++i) {
		const tar_xattr_t *x = ent->xattrs + i;

		if (x->key == NULL || (x->value == NULL && x->size > 0))
			inconsistent("xattr without a key or value", name);
		touch_string(b, x->key);
		if (x->size > 0)
			touch(b, x->value, x->size);
		if (i > 0 && strcmp(ent->xattrs[i - 1].key, x->key) >= 0)
			inconsistent("xattr keys not sorted or repeated", name);
	}
}

/* Read the data of the current entry. Returns false if reading must stop
 * (a fatal error or a cap reached). */
static bool read_data(tar_reader_t *rd, budget_t *b, const tar_entry_t *ent)
{
	uint64_t pos = 0;
	tar_chunk_t chunk;
	int ret;

	for (;;) {
		if (b->chunks++ >= FUZZ_MAX_CHUNKS)
			return false;
		ret = tar_reader_read_chunk(rd, &chunk);
		if (ret == 1)
			break;
		if (ret == SQFS_ERROR_SEQUENCE)
			inconsistent("read_chunk refused right after an entry",
				     ent->raw_path);
		if (ret < 0) {
			touch_error(b, rd);
			/* the rest of this entry is skipped by the next
			 * tar_reader_next, unless nothing can be read */
			return !tar_reader_is_fatal(rd);
		}
		if (ret != 0)
			inconsistent("read_chunk returned a positive value "
				     "other than 1",
				     ent->raw_path);
		if (chunk.offset != pos || chunk.size > ent->size - pos)
			inconsistent("chunk out of order or beyond the size",
				     ent->raw_path);
		pos += chunk.size;
		if (chunk.data == NULL)
			continue;
		if (chunk.size > FUZZ_MAX_DATA_BYTES - b->data_bytes)
			return false;
		b->data_bytes += chunk.size;
		touch(b, chunk.data, (size_t)chunk.size);
	}
	if (pos != ent->size)
		inconsistent("data complete short of the size", ent->raw_path);
	/* done stays done */
	if (tar_reader_read_chunk(rd, &chunk) != 1)
		inconsistent("read_chunk after the end is not 1",
			     ent->raw_path);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	budget_t b = {0, 0, 0, 0};
	const tar_entry_t *ent;
	tar_reader_t *rd;
	int ret;

	if (tar_reader_create(&rd) != 0)
		return 0;
	if (tar_reader_open_memory(rd, data, size) != 0) {
		touch_error(&b, rd);
		tar_reader_destroy(rd);
		return 0;
	}

	while (b.next_calls++ < FUZZ_MAX_NEXT_CALLS) {
		ent = NULL;
		ret = tar_reader_next(rd, &ent);
		(void)tar_reader_position(rd);
		if (ret == 1)
			break;
		if (ret < 0) {
			touch_error(&b, rd);
			/* damage and records that cannot be stored: the
			 * reader may go on, unless it says otherwise */
			if ((ret != SQFS_ERROR_CORRUPTED &&
			     ret != SQFS_ERROR_UNSUPPORTED) ||
			    tar_reader_is_fatal(rd))
				break;
			continue;
		}
		if (ret != 0 || ent == NULL)
			inconsistent("tar_reader_next: no entry and no error",
				     NULL);
		check_entry(&b, ent);
		if (!read_data(rd, &b, ent))
			break;
	}

	tar_reader_destroy(rd);
	fuzz_tar_sink = b.sum;
	return 0;
}
