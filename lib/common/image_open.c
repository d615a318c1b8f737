/* SPDX-License-Identifier: MIT */
/*
 * image_open.c - an image file opened from an offset, given or found.
 */
#include "config.h"

#include "common/image_open.h"
#include "common/cli.h"
#include "common/parse.h"
#include "common/print.h"

#include <errno.h>
#include <string.h>

const char *image_offset_parse(const char *str, image_offset_t *out)
{
	const char *why;
	uint64_t value;

	if (strcmp(str, "auto") == 0) {
		out->locate = true;
		out->offset = 0;
		return NULL;
	}
	why = parse_size(str, UINT64_MAX, &value);
	if (why != NULL)
		return why;
	out->locate = false;
	out->offset = value;
	return NULL;
}

int cli_image_offset(const char *option, const char *arg, image_offset_t *out)
{
	const char *why = image_offset_parse(arg, out);

	return why != NULL ? cli_bad_value(option, arg, why) : 0;
}

int image_file_open_at(const char *path, const image_offset_t *at,
		       sqfs_file_t **file, uint64_t *found)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_file_t *f, *window;
	uint64_t offset = at != NULL ? at->offset : 0;
	int ret;

	*file = NULL;
	*found = 0;
	errno = 0;
	ret = sqfs_file_open(&f, path, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		tool_error(path, "%s",
			   ret == SQFS_ERROR_IO && errno != 0
			       ? strerror(errno)
			       : sqfs_error_string(ret));
		return -1;
	}

	if (at != NULL && at->locate) {
		ret =
		    sqfs_image_locate(f, SQFS_LOCATE_SCAN_LIMIT, &offset, why);
		if (ret != 0) {
			if (ret == SQFS_ERROR_IO)
				tool_error(path, "%s: %s", why,
					   strerror(errno));
			else
				tool_error(path, "no SquashFS image found: %s",
					   why);
			sqfs_file_destroy(f);
			return -1;
		}
	} else if (offset > f->get_size(f)) {
		tool_error(path,
			   "offset %llu is past the end of the file "
			   "(%llu bytes)",
			   (unsigned long long)offset,
			   (unsigned long long)f->get_size(f));
		sqfs_file_destroy(f);
		return -1;
	}

	if (offset != 0) {
		ret = sqfs_file_open_window(&window, f, offset,
					    SQFS_FILE_WINDOW_OWN);
		if (ret != 0) {
			tool_error(path, "%s", sqfs_error_string(ret));
			sqfs_file_destroy(f);
			return -1;
		}
		f = window;
	}
	*file = f;
	*found = offset;
	return 0;
}

void image_open_error(const char *path, uint64_t offset, const char *why)
{
	if (offset != 0)
		tool_error(path, "at offset %llu: %s",
			   (unsigned long long)offset, why);
	else
		tool_error(path, "%s", why);
}

int image_open_at(const char *path, const image_offset_t *at,
		  sqfs_file_t **file, sqfs_image_t **img)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t offset;
	sqfs_file_t *f;
	int ret;

	*img = NULL;
	if (image_file_open_at(path, at, file, &offset) != 0)
		return -1;
	f = *file;

	ret = sqfs_image_open(f, img, why);
	if (ret != 0) {
		image_open_error(path, offset, why);
		sqfs_file_destroy(f);
		*file = NULL;
		*img = NULL;
		return -1;
	}
	return 0;
}
