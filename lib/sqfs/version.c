/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "sqfs/squashfs.h"

const char *sqfs_version_string(void)
{
	return PACKAGE_VERSION;
}
