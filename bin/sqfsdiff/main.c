/* SPDX-License-Identifier: MIT */
/*
 * main.c - sqfsdiff: compare two trees, each an image or a directory.
 */
#include "config.h"

#include "sqfsdiff.h"
#include "common/print.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	sd_side_t *old_side = NULL, *new_side = NULL;
	sd_options_t opt;
	bool with_data;
	int ret;

	tool_set_name("sqfsdiff");
	ret = sd_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? SD_EXIT_EQUAL : SD_EXIT_ERROR;

	with_data = !(opt.flags & SD_NO_CONTENTS);
	old_side = sd_side_open(opt.old_path, "old", &opt.old_offset,
				opt.old_offset_opt, with_data, opt.num_jobs);
	if (old_side != NULL)
		new_side =
		    sd_side_open(opt.new_path, "new", &opt.new_offset,
				 opt.new_offset_opt, with_data, opt.num_jobs);
	if (old_side == NULL || new_side == NULL) {
		ret = SD_EXIT_ERROR;
	} else if ((opt.flags & SD_SUPER) &&
		   (sd_side_super(old_side) == NULL ||
		    sd_side_super(new_side) == NULL)) {
		tool_error("--super", "both sides must be images");
		ret = SD_EXIT_ERROR;
	} else {
		ret = sd_compare(&opt, old_side, new_side);
	}

	/* a report cut short by a full disk or a closed pipe is no
	 * verdict */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (ret != SD_EXIT_ERROR)
			tool_error("standard output", "%s", strerror(errno));
		ret = SD_EXIT_ERROR;
	}
	sd_side_close(new_side);
	sd_side_close(old_side);
	return ret;
}
