/* SPDX-License-Identifier: MIT */
/*
 * file.c - what every kind of sqfs_file_t shares: the calls that stand in
 * for an operation a back end may leave NULL.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"

#include <errno.h>

int sqfs_file_sync(sqfs_file_t *file)
{
	if (file == NULL) {
		errno = EINVAL;
		return SQFS_ERROR_ARG_INVALID;
	}
	if (file->sync == NULL) {
		/* never claim durability a back end cannot give */
		errno = ENOTSUP;
		return SQFS_ERROR_UNSUPPORTED;
	}
	return file->sync(file);
}

int sqfs_file_close(sqfs_file_t *file)
{
	if (file == NULL)
		return 0;
	if (file->close == NULL) {
		file->destroy(file);
		return 0;
	}
	return file->close(file);
}

void sqfs_file_destroy(sqfs_file_t *file)
{
	if (file != NULL)
		file->destroy(file);
}
