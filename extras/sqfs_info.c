/* SPDX-License-Identifier: MIT */
/*
 * sqfs_info.c - a small program built against an installed libsquashfs
 * through pkg-config: prints the library version and, for each compressor
 * this build of the library has, its default settings and whether the
 * defaults need an options block in the image.
 *
 *   cc -o sqfs-info sqfs_info.c $(pkg-config --cflags --libs libsquashfs)
 */
#include <sqfs/squashfs.h>

#include <stdio.h>

int main(void)
{
	printf("libsquashfs %s\n", sqfs_version_string());
	printf("default compressor: %s\n",
	       sqfs_compressor_name(sqfs_compressor_default()));

	for (int id = SQFS_COMP_MIN; id <= SQFS_COMP_MAX; ++id) {
		sqfs_compressor_config_t cfg;
		sqfs_file_t *file;
		char options[256];
		int ret;

		if (!sqfs_compressor_is_available(id)) {
			printf("  %-5s not built\n", sqfs_compressor_name(id));
			continue;
		}

		ret = sqfs_compressor_config_init(
		    &cfg, (sqfs_compressor_id_t)id, SQFS_DEFAULT_BLOCK_SIZE, 0);
		if (ret == 0)
			ret = sqfs_compressor_config_format(&cfg, options,
							    sizeof(options));
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", sqfs_compressor_name(id),
				sqfs_error_string(ret));
			return 1;
		}

		/* how big an options block the defaults need */
		ret = sqfs_file_open_memory(&file, NULL, 0, 0);
		if (ret == 0) {
			ret = sqfs_compressor_config_write_options(&cfg, file);
			sqfs_file_destroy(file);
		}
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", sqfs_compressor_name(id),
				sqfs_error_string(ret));
			return 1;
		}

		printf("  %-5s %s (options block: %d bytes)\n",
		       sqfs_compressor_name(id),
		       options[0] != '\0' ? options : "-", ret);
	}
	return 0;
}
