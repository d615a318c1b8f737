/* SPDX-License-Identifier: MIT */
/*
 * main.c - squashforge's mksquashfs: squashfs-tools' command line on
 * gensquashfs's engine (mksquashfs.h says which file does what).
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

	tool_set_name("mksquashfs");
	ret = mk_parse_options(argc, argv, &opt);
	if (ret != 0) {
		mk_free_options(&opt);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	tool_malloc_tune();
	status = opt.tar ? mk_run_tar(&opt) : mk_run(&opt);
	mk_free_options(&opt);
	return status;
}
