/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "sqfs/io.h"

void sqfs_file_destroy(sqfs_file_t *file)
{
	if (file != NULL)
		file->destroy(file);
}
