/* SPDX-License-Identifier: MIT */
/*
 * tar_out.c - the libarchive writer behind sqfs2tar's output.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"

#include <archive.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	const char *name;
	int (*add)(struct archive *ar);
} tar_filter_t;

static const tar_filter_t filters[] = {
    {"gzip", archive_write_add_filter_gzip},
    {"xz", archive_write_add_filter_xz},
    {"zstd", archive_write_add_filter_zstd},
    {"bzip2", archive_write_add_filter_bzip2},
};

#define FILTER_COUNT (sizeof(filters) / sizeof(filters[0]))

/* tar's record size, and what libarchive hands the sink at a time: whole
 * records, since only the last block is padded to a record */
#define TAR_RECORD 10240
#define OUT_BLOCK (25 * TAR_RECORD)

static const tar_filter_t *find_filter(const char *name)
{
	for (size_t i = 0; i < FILTER_COUNT; ++i) {
		if (strcmp(filters[i].name, name) == 0)
			return &filters[i];
	}
	return NULL;
}

/* libarchive can lack a library and fall back to running an external
 * program (ARCHIVE_WARN); only a filter it can apply in process counts
 * as supported, so a run never depends on what is on the PATH. */
static bool filter_usable(const tar_filter_t *f)
{
	struct archive *ar = archive_write_new();
	bool ok;

	if (ar == NULL)
		return false;
	ok = f->add(ar) == ARCHIVE_OK;
	archive_write_free(ar);
	return ok;
}

bool tar_filter_known(const char *name)
{
	const tar_filter_t *f = find_filter(name);

	return f != NULL && filter_usable(f);
}

void tar_filter_print_list(FILE *fp)
{
	for (size_t i = 0; i < FILTER_COUNT; ++i) {
		if (filter_usable(&filters[i]))
			fprintf(fp, "\t%s\n", filters[i].name);
	}
}

/*
 * Where the archive goes. After a failure everything is dropped, so that
 * closing the archive (which frees what libarchive holds) cannot add an
 * end marker to what was written.
 */
static struct {
	int fd;
	bool discard;
} sink;

static la_ssize_t sink_write(struct archive *ar, void *user, const void *buf,
			     size_t size)
{
	const uint8_t *p = buf;
	size_t done = 0;
	ssize_t n;

	(void)user;
	if (sink.discard)
		return (la_ssize_t)size;
	while (done < size) {
		n = write(sink.fd, p + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			archive_set_error(ar, errno, "%s", strerror(errno));
			return -1;
		}
		done += (size_t)n;
	}
	return (la_ssize_t)size;
}

struct archive *tar_out_open(const char *filter)
{
	struct archive *ar = archive_write_new();
	const tar_filter_t *f;

	if (ar == NULL) {
		tool_error(NULL, "out of memory");
		return NULL;
	}

	/*
	 * Restricted PAX: plain ustar headers, with an extension record only
	 * where ustar cannot hold a value (long names, large numbers,
	 * xattrs, sparse maps). xattrs only in the SCHILY form that GNU tar,
	 * bsdtar and tar2sqfs all read, not twice.
	 */
	if (archive_write_set_format_pax_restricted(ar) != ARCHIVE_OK)
		goto fail;
	(void)archive_write_set_format_option(ar, "pax", "xattrheader",
					      "SCHILY");
	/* fewer, larger writes; the archive still ends on a multiple of
	 * tar's 10240-byte record, as with the default */
	if (archive_write_set_bytes_per_block(ar, OUT_BLOCK) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(ar, TAR_RECORD) != ARCHIVE_OK)
		goto fail;
	if (filter != NULL) {
		f = find_filter(filter);
		if (f == NULL || f->add(ar) != ARCHIVE_OK)
			goto fail;
		/* tar pads its last record with zeros; after a compressor
		 * they would be trailing garbage (zstd refuses it) */
		if (archive_write_set_bytes_in_last_block(ar, 1) != ARCHIVE_OK)
			goto fail;
	}
	sink.fd = STDOUT_FILENO;
	sink.discard = false;
	if (archive_write_open(ar, NULL, NULL, sink_write, NULL) != ARCHIVE_OK)
		goto fail;
	return ar;
fail:
	tool_error("standard output", "%s", tar_out_error(ar));
	archive_write_free(ar);
	return NULL;
}

const char *tar_out_error(struct archive *ar)
{
	const char *why = archive_error_string(ar);

	return why != NULL ? why : "unknown libarchive error";
}

int tar_out_close(struct archive *ar, bool ok)
{
	int ret = 0;

	if (ar == NULL)
		return 0;
	if (!ok) {
		sink.discard = true;
		(void)archive_write_close(ar);
	} else if (archive_write_close(ar) != ARCHIVE_OK) {
		tool_error("standard output", "%s", tar_out_error(ar));
		ret = -1;
	}
	archive_write_free(ar);
	return ret;
}
