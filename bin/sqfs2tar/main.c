/* SPDX-License-Identifier: MIT */
/*
 * main.c - sqfs2tar: a SquashFS image in, a tar archive out on stdout.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

static int open_image(sqfs2tar_t *s, sqfs_file_t **file)
{
	const char *path = s->opt->image;

	if (image_open_at(path, &s->opt->offset, file, &s->img) != 0)
		return -1;
	s->block_size = sqfs_image_super(s->img)->block_size;
	s->zeros = calloc(1, s->block_size);
	s->ent = archive_entry_new();
	if (s->zeros == NULL || s->ent == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	return 0;
}

static void cleanup(sqfs2tar_t *s)
{
	s2t_forget_links(s);
	if (s->ent != NULL)
		archive_entry_free(s->ent);
	free(s->zeros);
	sqfs_image_source_destroy(s->src);
	sqfs_image_destroy(s->img);
}

/* Switch LC_CTYPE to a UTF-8 locale if there is one. Names that are not
 * valid UTF-8 fail the conversion, and libarchive writes them as raw
 * bytes under hdrcharset=BINARY. */
static void use_utf8_locale(void)
{
	static const char *const names[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8",
					    "en_US.utf8"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		if (setlocale(LC_CTYPE, names[i]) != NULL)
			return;
	}
}

int main(int argc, char **argv)
{
	sqfs2tar_options_t opt;
	sqfs_file_t *file = NULL;
	sqfs2tar_t s;
	int ret, status = EXIT_FAILURE;

	tool_set_name("sqfs2tar");
	memset(&s, 0, sizeof(s));
	hash_table_init(&s.links);
	/* libarchive converts names from the locale's character set to the
	 * UTF-8 of PAX records: under UTF-8 they pass unchanged */
	use_utf8_locale();

	ret = sqfs2tar_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	s.opt = &opt;
	s.track_links = opt.subdir_count > 1 && !opt.no_hard_links;

	/* the image first: a file that is not an image writes nothing */
	if (open_image(&s, &file) != 0)
		goto out;
	s.ar = tar_out_open(opt.compressor);
	if (s.ar == NULL)
		goto out;

	ret = s2t_write_tree(&s);
	if (tar_out_close(s.ar, ret == 0) == 0 && ret == 0)
		status = EXIT_SUCCESS;
	s.ar = NULL;
out:
	cleanup(&s);
	sqfs_file_destroy(file);
	sqfs2tar_free_options(&opt);
	return status;
}
