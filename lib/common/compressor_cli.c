/* SPDX-License-Identifier: MIT */
/*
 * compressor_cli.c - the packers' -c and -X options.
 */
#include "config.h"

#include "common/compressor_cli.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <string.h>

int comp_cli_select(const char *name, int *id)
{
	int ret;

	if (name == NULL) {
		*id = sqfs_compressor_default();
		return 0;
	}

	ret = sqfs_compressor_id_from_name(name);
	if (ret < 0) {
		tool_error(name, "unknown compressor (see --help for a list)");
		return -1;
	}
	if (!sqfs_compressor_is_available(ret)) {
		tool_error(name, "compressor not supported by this build");
		return -1;
	}
	*id = ret;
	return 0;
}

int comp_cli_configure(sqfs_compressor_config_t *cfg, int id,
		       uint32_t block_size, const char *extra)
{
	char err[256];
	int ret;

	ret = sqfs_compressor_config_init(cfg, id, block_size, 0);
	if (ret != 0) {
		tool_error(sqfs_compressor_name(id), "%s",
			   sqfs_error_string(ret));
		return -1;
	}
	if (extra == NULL)
		return 0;

	err[0] = '\0';
	ret = sqfs_compressor_config_parse(cfg, extra, err, sizeof(err));
	if (ret == 0)
		ret = sqfs_compressor_config_validate(cfg);
	if (ret != 0) {
		tool_error("-X", "%s",
			   err[0] != '\0' ? err : sqfs_error_string(ret));
		return -1;
	}
	return 0;
}

void comp_cli_print_options(FILE *fp, int id)
{
	const char *help = sqfs_compressor_options_help(id);
	const char *name = sqfs_compressor_name(id);

	if (help == NULL) {
		fprintf(fp, "%s has no options.\n", name ? name : "?");
		return;
	}
	fprintf(fp, "Options of %s (-X, comma-separated):\n\n", name);
	fputs(help, fp);
	if (help[0] != '\0' && help[strlen(help) - 1] != '\n')
		fputc('\n', fp);
}

void comp_cli_print_list(FILE *fp)
{
	int def = sqfs_compressor_default();
	int id;

	for (id = SQFS_COMP_MIN; id <= SQFS_COMP_MAX; ++id) {
		if (!sqfs_compressor_is_available(id))
			continue;
		fprintf(fp, "\t%s%s\n", sqfs_compressor_name(id),
			id == def ? " (default)" : "");
	}
}
