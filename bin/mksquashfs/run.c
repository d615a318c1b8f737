/* SPDX-License-Identifier: MIT */
/*
 * run.c - one mksquashfs run: DEST checked, the sources scanned and the
 * policy applied, the image written to a temporary file beside DEST
 * (common/out_file.h) and moved over it only when complete.
 *
 * mksquashfs -noappend truncates DEST first and leaves a partial image
 * when it fails; here a failed run leaves DEST as it was. Without
 * -noappend an existing image is appended to (append.c): the old image is
 * read, never written, and the new one, old data and all, goes to the
 * temporary file like any other, so that mksquashfs's recovery files have
 * nothing to recover. -offset N keeps DEST's first N bytes: they are
 * copied into the new file (zeros where DEST is shorter) and the image is
 * written after them through a window (sqfs_file_open_window); an image
 * appended to is the one at N.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/out_file.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What DEST is now: 0 nothing, 1 a file we may replace, 2 an image to
 * append to, -1 refused. */
static int check_dest(const mk_options_t *opt)
{
	unsigned char magic[4];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(opt->dest, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "mksquashfs: cannot stat \"%s\": %s\n",
			opt->dest, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr,
			"mksquashfs: destination \"%s\" is a directory\n",
			opt->dest);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"mksquashfs: destination \"%s\" is not a regular "
			"file; squashforge's mksquashfs writes only files\n",
			opt->dest);
		return -1;
	}
	if (opt->noappend || st.st_size == 0)
		return 1;
	fd = open(opt->dest, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? pread(fd, magic, sizeof(magic), (off_t)opt->offset) : -1;
	if (fd >= 0)
		close(fd);
	if (n == (ssize_t)sizeof(magic) && memcmp(magic, "hsqs", 4) == 0)
		return 2;
	fprintf(stderr,
		"mksquashfs: Can't find a SQUASHFS superblock on %s (give "
		"-noappend to replace it)\n",
		opt->dest);
	return -1;
}

int mk_copy_prefix(const mk_options_t *opt, sqfs_file_t *file)
{
	uint8_t buf[65536];
	uint64_t pos = 0;
	int fd = open(opt->dest, O_RDONLY | O_CLOEXEC);

	while (pos < opt->offset) {
		size_t want = opt->offset - pos < sizeof(buf)
				  ? (size_t)(opt->offset - pos)
				  : sizeof(buf);
		ssize_t n = fd >= 0 ? pread(fd, buf, want, (off_t)pos) : 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "mksquashfs: reading \"%s\": %s\n",
				opt->dest, strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0) {
			memset(buf, 0, want);
			n = (ssize_t)want;
		}
		if (file->write_at(file, pos, buf, (size_t)n) != 0) {
			fprintf(stderr, "mksquashfs: writing \"%s\": %s\n",
				opt->dest, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		pos += (uint64_t)n;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static void on_packed(void *user, const gs_entry_t *e)
{
	mk_report_entry(user, e);
}

/* Data blocks the bar counts: each file's, hard links once. */
static uint64_t count_blocks(const gs_entries_t *entries, uint32_t block)
{
	uint64_t n = 0;

	for (size_t i = 0; i < entries->count; ++i) {
		const gs_entry_t *e = &entries->list[i];

		if (S_ISREG(e->st.mode) && !e->hard_link)
			n += (e->st.size + block - 1) / block;
	}
	return n;
}

int mk_run(mk_options_t *opt)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_file_t *view = NULL, *file;
	sqfs_writer_t *wr = NULL;
	mk_exclude_t *ex = NULL;
	mk_report_t *report = NULL;
	mk_append_t *ap = NULL;
	sqfs_writer_stats_t stats;
	out_file_t *of = NULL;
	progress_t progress;
	gs_packer_t pk;
	struct stat st;
	int ret, status = EXIT_FAILURE;

	memset(&pk, 0, sizeof(pk));
	pk.dirfd = -1;
	pk.opt = &opt->gs;
	/* messages about a pseudo entry name it so */
	opt->gs.pack_file = "pseudo definition";

	ret = check_dest(opt);
	if (ret < 0)
		goto out;
	if (ret == 2) {
		if (mk_append_open(opt, &ap) != 0)
			goto out;
		/* the old image's settings win over -b, -comp ... */
		mk_append_options(ap, &opt->gs.pk.wr);
	} else if (opt->root_becomes != NULL) {
		/* as mksquashfs: nothing to append to, nothing to rename */
		opt->root_becomes = NULL;
	}
	if (mk_report_create(opt, &report) != 0 ||
	    mk_exclude_create(opt, &ex) != 0)
		goto out;
	if (out_file_open(&of, opt->dest, true) != 0)
		goto out;
	/* an image written inside a source must not pack itself, nor the
	 * file it replaces */
	if (stat(out_file_temp_path(of), &st) == 0 &&
	    mk_exclude_add_object(ex, &st) != 0)
		goto out;
	if (stat(opt->dest, &st) == 0 && mk_exclude_add_object(ex, &st) != 0)
		goto out;
	mk_report_start(report);

	if (mk_scan_sources(opt, ex, &pk.entries, &pk.dirfd) != 0 ||
	    mk_apply_pseudo(opt, &pk.entries) != 0)
		goto out;
	if (opt->gs.sort_file != NULL &&
	    mk_apply_sort_file(opt, opt->gs.sort_file, &pk.entries) != 0)
		goto out;
	if (mk_apply_policy(opt, &pk.entries) != 0)
		goto out;
	if (ap != NULL && mk_append_rename(ap, &pk.entries) != 0)
		goto out;
	mk_report_set_total(
	    report, pk.entries.total_bytes,
	    count_blocks(&pk.entries, opt->gs.pk.wr.block_size));

	file = out_file_get(of);
	if (opt->offset > 0) {
		if (mk_copy_prefix(opt, file) != 0)
			goto out;
		if (sqfs_file_open_window(&view, file, opt->offset, 0) != 0) {
			tool_error(NULL, "out of memory");
			goto out;
		}
		file = view;
	}
	if (ap != NULL) {
		if (mk_append_writer(ap, opt, file, &wr) != 0)
			goto out;
	} else {
		ret = sqfs_writer_create(file, &opt->gs.pk.wr, &wr, why);
		if (ret != 0) {
			fprintf(stderr, "mksquashfs: %s: %s\n", opt->dest, why);
			goto out;
		}
	}

	progress_init(&progress, true);
	progress.draw = mk_report_progress;
	progress.draw_user = report;
	pk.wr = wr;
	pk.progress = &progress;
	pk.on_packed = on_packed;
	pk.on_packed_user = report;
	gs_opener_init(&pk.opener, pk.dirfd, &pk.entries);
	ret = gs_pack_entries(&pk, &pk.entries);
	gs_opener_cleanup(&pk.opener);
	gs_entries_free(&pk.entries);
	if (ret == 0) {
		ret = sqfs_writer_finish(wr);
		if (ret != 0)
			tool_image_error(opt->dest, NULL, ret, errno,
					 sqfs_writer_error(wr));
	}
	progress_end(&progress);
	if (ret != 0)
		goto out;
	sqfs_writer_get_stats(wr, &stats);
	sqfs_writer_destroy(wr);
	wr = NULL;
	sqfs_file_destroy(view);
	view = NULL;
	if (out_file_commit(of) != 0)
		goto out;
	mk_report_summary(report, &stats);
	status = EXIT_SUCCESS;
out:
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(view);
	out_file_destroy(of);
	mk_append_close(ap);
	gs_entries_free(&pk.entries);
	if (pk.dirfd >= 0)
		close(pk.dirfd);
	mk_exclude_destroy(ex);
	mk_report_destroy(report);
	return status;
}
