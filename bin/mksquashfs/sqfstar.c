/* SPDX-License-Identifier: MIT */
/*
 * sqfstar.c - squashforge's sqfstar: squashfs-tools' sqfstar command line
 * (a tar archive on stdin into an image) on the mksquashfs personality's
 * options and tar.c's engine.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/malloc_tune.h"
#include "common/print.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
	mk_options_t opt;
	int ret, status;

	tool_set_name("sqfstar");
	ret = mk_parse_sqfstar_options(argc, argv, &opt);
	if (ret != 0) {
		mk_free_options(&opt);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	tool_malloc_tune();
	status = mk_run_tar(&opt);
	mk_free_options(&opt);
	return status;
}
