/* SPDX-License-Identifier: MIT */
/*
 * side.c - opening a side, an image or a directory, and what both kinds
 * share: xattrs in one order, so that two lists compare entry by entry.
 */
#include "config.h"

#include "side.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Only a directory, a regular file or a block device can be a side. */
static bool refused(const char *path, const char *label, mode_t mode)
{
	if (S_ISDIR(mode) || S_ISREG(mode) || S_ISBLK(mode))
		return false;
	tool_error(path, "the %s side is neither an image nor a directory",
		   label);
	return true;
}

sd_side_t *sd_side_open(const char *path, const char *label,
			const image_offset_t *offset, const char *offset_opt,
			bool with_data, unsigned int num_jobs)
{
	struct stat st;
	int fd;

	/* anything else (a FIFO, a socket, a character device) is refused
	 * before it is opened: opening one may wait for a writer, fail
	 * with a confusing ENXIO or do something to a device */
	if (stat(path, &st) != 0) {
		tool_error(path, "%s", strerror(errno));
		return NULL;
	}
	if (refused(path, label, st.st_mode))
		return NULL;
	/* a directory is opened once and walked from that descriptor, so
	 * that what was checked is what is read; O_NONBLOCK, so that a FIFO
	 * put in its place meanwhile is refused rather than waited on for
	 * a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		tool_error(path, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		if (offset_opt != NULL) {
			tool_error(offset_opt, "the %s side is a directory",
				   label);
			close(fd);
			return NULL;
		}
		return sd_dir_side_open(path, fd);
	}
	close(fd);
	if (refused(path, label, st.st_mode))
		return NULL;
	return sd_image_side_open(path, offset, with_data, num_jobs);
}

void sd_side_close(sd_side_t *side)
{
	if (side != NULL) {
		free(side->xattrs);
		side->ops->close(side);
	}
}

const sqfs_super_t *sd_side_super(const sd_side_t *side)
{
	return side->ops->super(side);
}

int sd_side_head(sd_side_t *side, const sqfs_entry_t **out)
{
	if (!side->have_head) {
		int ret = side->ops->next(side, &side->head);

		if (ret != 0)
			return ret;
		side->have_head = true;
	}
	*out = side->head;
	return 0;
}

int sd_side_pop(sd_side_t *side)
{
	/* the source moves on (skipping data not read, entering a
	 * directory) at its next */
	side->have_head = false;
	return 0;
}

int sd_side_read(sd_side_t *side, sqfs_data_run_t *out)
{
	return side->ops->read(side, out);
}

int sd_side_rewind(sd_side_t *side)
{
	return side->ops->rewind(side);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const sqfs_xattr_t *)a)->key,
		      ((const sqfs_xattr_t *)b)->key);
}

int sd_side_xattrs(sd_side_t *side, const sqfs_xattr_t **list, size_t *count)
{
	const sqfs_xattr_t *l;
	size_t n;

	if (side->ops->xattrs(side, &l, &n) != 0)
		return -1;
	if (n > side->xattr_cap) {
		sqfs_xattr_t *copy = realloc(side->xattrs, n * sizeof(copy[0]));

		if (copy == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		side->xattrs = copy;
		side->xattr_cap = n;
	}
	if (n > 0)
		memcpy(side->xattrs, l, n * sizeof(l[0]));
	/* an image keeps them in the order they were written, a file
	 * system in its own: only the set counts */
	if (n > 1)
		qsort(side->xattrs, n, sizeof(side->xattrs[0]), by_key);
	*list = side->xattrs;
	*count = n;
	return 0;
}
