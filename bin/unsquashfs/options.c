/* SPDX-License-Identifier: MIT */
/*
 * options.c - the command line of squashfs-tools 4.7.5's unsquashfs.
 *
 * Its grammar, learnt by running it: options take one dash and come
 * before the image; each has a short and a long spelling and nothing in
 * between ("-d" and "-dest", not "-de"); everything after the image is a
 * path to extract (or exclude, with -excludes), even if it starts with a
 * dash. Mistakes are told on stdout, with exit status 1, as 4.7.5 does.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/cpus.h"
#include "common/parse.h"
#include "common/print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
	O_DEST,
	O_MAX_DEPTH,
	O_EXCLUDES,
	O_EXCLUDE_LIST,
	O_EXTRACT_FILE,
	O_EXCLUDE_FILE,
	O_NO_WILDCARDS,
	O_ALL_TIME,
	O_CAT,
	O_FORCE,
	O_PSEUDO_FILE,
	O_STAT,
	O_INFO,
	O_LINFO,
	O_LS,
	O_LLS,
	O_LLN,
	O_LC,
	O_LLC,
	O_FULL_PRECISION,
	O_UTC,
	O_MKFS_TIME,
	O_NO_XATTRS,
	O_XATTRS,
	O_VERSION,
	O_PROCESSORS,
	O_MEM,
	O_QUIET,
	O_NO_PROGRESS,
	O_PERCENTAGE,
	O_IGNORE_ERRORS,
	O_STRICT_ERRORS,
	O_NO_EXIT_CODE,
	O_HELP,
	O_HELP_ARG,
	O_NO_PAGER,
	O_COLS,
	O_OFFSET,
	O_CACHE,
	O_REFUSED,
	O_REFUSED_ARG,
} opt_id_t;

typedef struct {
	const char *name;
	/* the spelling 4.7.5's messages use ("-dest") */
	const char *long_name;
	opt_id_t id;
} opt_def_t;

/* Every spelling 4.7.5 takes, and what it stands for. */
static const opt_def_t defs[] = {
    {"-d", "-dest", O_DEST},
    {"-dest", "-dest", O_DEST},
    {"-max", "-max-depth", O_MAX_DEPTH},
    {"-max-depth", "-max-depth", O_MAX_DEPTH},
    {"-excludes", "-excludes", O_EXCLUDES},
    {"-ex", "-exclude-list", O_EXCLUDE_LIST},
    {"-exclude-list", "-exclude-list", O_EXCLUDE_LIST},
    {"-extract-file", "-extract-file", O_EXTRACT_FILE},
    {"-e", "-extract-file", O_EXTRACT_FILE},
    {"-ef", "-extract-file", O_EXTRACT_FILE},
    {"-exclude-file", "-exclude-file", O_EXCLUDE_FILE},
    {"-exc", "-exclude-file", O_EXCLUDE_FILE},
    {"-excf", "-exclude-file", O_EXCLUDE_FILE},
    {"-no-wild", "-no-wildcards", O_NO_WILDCARDS},
    {"-no-wildcards", "-no-wildcards", O_NO_WILDCARDS},
    {"-all", "-all-time", O_ALL_TIME},
    {"-all-time", "-all-time", O_ALL_TIME},
    {"-cat", "-cat", O_CAT},
    {"-f", "-force", O_FORCE},
    {"-force", "-force", O_FORCE},
    {"-pf", "-pf", O_PSEUDO_FILE},
    {"-pseudo-file", "-pf", O_PSEUDO_FILE},
    {"-s", "-stat", O_STAT},
    {"-stat", "-stat", O_STAT},
    {"-i", "-info", O_INFO},
    {"-info", "-info", O_INFO},
    {"-li", "-linfo", O_LINFO},
    {"-linfo", "-linfo", O_LINFO},
    {"-l", "-ls", O_LS},
    {"-ls", "-ls", O_LS},
    {"-ll", "-lls", O_LLS},
    {"-lls", "-lls", O_LLS},
    {"-lln", "-llnumeric", O_LLN},
    {"-llnumeric", "-llnumeric", O_LLN},
    {"-lc", "-lc", O_LC},
    {"-llc", "-llc", O_LLC},
    {"-full", "-full-precision", O_FULL_PRECISION},
    {"-full-precision", "-full-precision", O_FULL_PRECISION},
    {"-UTC", "-UTC", O_UTC},
    {"-mkfs-time", "-mkfs-time", O_MKFS_TIME},
    {"-fstime", "-mkfs-time", O_MKFS_TIME},
    {"-no", "-no-xattrs", O_NO_XATTRS},
    {"-no-xattrs", "-no-xattrs", O_NO_XATTRS},
    {"-x", "-xattrs", O_XATTRS},
    {"-xattrs", "-xattrs", O_XATTRS},
    {"-v", "-version", O_VERSION},
    {"-version", "-version", O_VERSION},
    {"-p", "-processors", O_PROCESSORS},
    {"-processors", "-processors", O_PROCESSORS},
    {"-mem", "-mem", O_MEM},
    {"-mem-percent", "-mem-percent", O_MEM},
    {"-q", "-quiet", O_QUIET},
    {"-quiet", "-quiet", O_QUIET},
    {"-n", "-no-progress", O_NO_PROGRESS},
    {"-no-progress", "-no-progress", O_NO_PROGRESS},
    {"-percentage", "-percentage", O_PERCENTAGE},
    {"-ig", "-ignore-errors", O_IGNORE_ERRORS},
    {"-ignore-errors", "-ignore-errors", O_IGNORE_ERRORS},
    {"-st", "-strict-errors", O_STRICT_ERRORS},
    {"-strict-errors", "-strict-errors", O_STRICT_ERRORS},
    {"-no-exit", "-no-exit-code", O_NO_EXIT_CODE},
    {"-no-exit-code", "-no-exit-code", O_NO_EXIT_CODE},
    {"-h", "-help", O_HELP},
    {"-help", "-help", O_HELP},
    {"-help-all", "-help-all", O_HELP},
    {"-ha", "-help-all", O_HELP},
    {"-help-option", "-help-option", O_HELP_ARG},
    {"-ho", "-help-option", O_HELP_ARG},
    {"-help-section", "-help-section", O_HELP_ARG},
    {"-hs", "-help-section", O_HELP_ARG},
    {"-no-pager", "-no-pager", O_NO_PAGER},
    {"-cols", "-cols", O_COLS},
    {"-o", "-offset", O_OFFSET},
    {"-offset", "-offset", O_OFFSET},
    /* cache sizes of older versions, still taken by 4.7.5 */
    {"-da", "-data-queue", O_CACHE},
    {"-data-queue", "-data-queue", O_CACHE},
    {"-fr", "-frag-queue", O_CACHE},
    {"-frag-queue", "-frag-queue", O_CACHE},
    /* what this personality cannot do: refused by name */
    {"-match", "-match", O_REFUSED},
    {"-follow", "-follow-symlinks", O_REFUSED},
    {"-follow-symlinks", "-follow-symlinks", O_REFUSED},
    {"-L", "-follow-symlinks", O_REFUSED},
    {"-missing", "-missing-symlinks", O_REFUSED},
    {"-missing-symlinks", "-missing-symlinks", O_REFUSED},
    {"-r", "-regex", O_REFUSED},
    {"-regex", "-regex", O_REFUSED},
    {"-xattrs-exclude", "-xattrs-exclude", O_REFUSED_ARG},
    {"-xattrs-include", "-xattrs-include", O_REFUSED_ARG},
};

static const char *help_text =
    "SYNTAX: unsquashfs [OPTIONS] FILESYSTEM [files to extract or exclude "
    "(with\n"
    "-excludes) or cat (with -cat )]\n"
    "\n"
    "squashforge's stand-in for squashfs-tools 4.7 unsquashfs: the same\n"
    "command line and output, on the squashforge library.\n"
    "\n"
    "Filesystem extraction (filtering) options:\n"
    "\t-d[est] <pathname>\textract to <pathname>, default "
    "\"squashfs-root\".\n"
    "\t\t\t\tAlso the prefix used when listing\n"
    "\t-max[-depth] <levels>\tdescend at most <levels> of directories\n"
    "\t-excludes\t\ttreat files on command line as exclude files\n"
    "\t-ex[clude-list]\t\tlist of files to be excluded, terminated with ;\n"
    "\t-extract-file <file>\tlist of directories or files to extract, "
    "one\n\t\t\t\tper line (also -e, -ef)\n"
    "\t-exclude-file <file>\tlist of directories or files to exclude, "
    "one\n\t\t\t\tper line (also -exc, -excf)\n"
    "\t-no-wild[cards]\t\tdo not use wildcard matching in extract and\n"
    "\t\t\t\texclude names\n"
    "\t-all[-time] <time>\tset all file timestamps to <time> (seconds\n"
    "\t\t\t\tsince the epoch)\n"
    "\t-cat\t\t\tcat the files on the command line to stdout\n"
    "\t-f[orce]\t\tif destination directory already exists, unlink\n"
    "\t\t\t\tfiles that already exist before extracting\n"
    "\t\t\t\tto them\n"
    "\t-pf <file>\t\toutput a pseudo file equivalent of the input\n"
    "\t\t\t\tSquashfs filesystem, use - for stdout\n"
    "\t\t\t\t(also -pseudo-file)\n"
    "\n"
    "Filesystem information and listing options:\n"
    "\t-s[tat]\t\t\tdisplay filesystem superblock information\n"
    "\t-i[nfo]\t\t\tprint files as they are extracted\n"
    "\t-li[nfo]\t\tprint files as they are extracted with file\n"
    "\t\t\t\tattributes (like ls -l output)\n"
    "\t-l[s]\t\t\tlist filesystem, but do not extract files\n"
    "\t-ll[s]\t\t\tlist filesystem with file attributes (like ls -l\n"
    "\t\t\t\toutput), but do not extract files\n"
    "\t-lln[umeric]\t\tsame as -lls but with numeric uids and gids\n"
    "\t-lc\t\t\tlist filesystem concisely, displaying only files\n"
    "\t\t\t\tand empty directories\n"
    "\t-llc\t\t\tlist filesystem concisely with file attributes\n"
    "\t-full[-precision]\tuse full precision when displaying times\n"
    "\t-UTC\t\t\tuse UTC rather than local time zone when\n"
    "\t\t\t\tdisplaying time\n"
    "\t-mkfs-time\t\tdisplay filesystem superblock time (also -fstime)\n"
    "\n"
    "Filesystem extended attribute (xattrs) options:\n"
    "\t-no[-xattrs]\t\tdo not extract xattrs in file system\n"
    "\t-x[attrs]\t\textract xattrs in file system (default)\n"
    "\n"
    "Unsquashfs runtime options:\n"
    "\t-v[ersion]\t\tprint version information\n"
    "\t-p[rocessors] <number>\tuse <number> processors to decompress\n"
    "\t-q[uiet]\t\tno verbose output\n"
    "\t-n[o-progress]\t\tdo not display the progress bar\n"
    "\t-ig[nore-errors]\ttreat errors writing files to output as\n"
    "\t\t\t\tnon-fatal\n"
    "\t-st[rict-errors]\ttreat all errors as fatal\n"
    "\t-no-exit[-code]\t\tdo not set exit code (to nonzero) on non-fatal\n"
    "\t\t\t\terrors\n"
    "\t-o[ffset] <bytes>\tskip <bytes> at start of FILESYSTEM (K, M or G\n"
    "\t\t\t\tsuffix allowed)\n"
    "\n"
    "Accepted and ignored (this implementation sizes its caches itself,\n"
    "and shows no pager): -mem <size>, -mem-percent <percent>,\n"
    "-da[ta-queue] <size>, -fr[ag-queue] <size>, -percentage, -no-pager,\n"
    "-cols <width>. -h[elp], -help-all, -help-option and -help-section\n"
    "print this text.\n"
    "\n"
    "Refused (not implemented): -match, -follow[-symlinks], -L,\n"
    "-missing[-symlinks], -r[egex], -xattrs-exclude, -xattrs-include.\n"
    "\n"
    "Extraction never writes outside the destination: every entry is\n"
    "created relative to its parent directory and no symlink is followed.\n"
    "\n"
    "Exit status:\n"
    "  0\tThe filesystem listed or extracted OK.\n"
    "  1\tFATAL errors occurred, e.g. filesystem corruption, I/O errors.\n"
    "  2\tNon-fatal errors occurred; Unsquashfs continued.\n"
    "\n"
    "Decompressors available:\n"
    "\tgzip\n\tlzma\n\tlzo\n\tlz4\n\txz\n\tzstd\n";

static void print_help(void)
{
	fputs(help_text, stdout);
}

static void print_version(void)
{
	printf("unsquashfs version 4.7.5 (compatible; %s %s)\n"
	       "A stand-in for squashfs-tools' unsquashfs, on the %s "
	       "library.\n"
	       "License MIT: <https://opensource.org/licenses/MIT>.\n"
	       "This is free software: you are free to change and "
	       "redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       PACKAGE_NAME, PACKAGE_VERSION, PACKAGE_NAME);
}

/* 4.7.5's words for a mistake on the command line, on stdout. */
static int usage_error(const char *long_name, const char *what)
{
	printf("unsquashfs: %s %s\n\nRun\n  \"unsquashfs -help-option "
	       "%s$\" to get help on %s option\n",
	       long_name, what, long_name, long_name);
	return -1;
}

static const opt_def_t *find_def(const char *arg)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); ++i) {
		if (strcmp(defs[i].name, arg) == 0)
			return &defs[i];
	}
	return NULL;
}

static int list_add(uq_list_t *list, const char *item)
{
	char **items = realloc(list->items, (list->count + 1) * sizeof(*items));

	if (items == NULL)
		goto fail;
	list->items = items;
	list->items[list->count] = strdup(item);
	if (list->items[list->count] == NULL)
		goto fail;
	list->count++;
	return 0;
fail:
	tool_error(NULL, "out of memory");
	return -1;
}

/* -ef / -excf: one path a line; empty lines are skipped. */
static int list_add_file(uq_list_t *list, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (fp == NULL) {
		fprintf(stderr,
			"FATAL ERROR: Failed to open extract/exclude file "
			"\"%s\" because %s\n",
			path, strerror(errno));
		return -1;
	}
	while (ret == 0 && (len = getline(&line, &cap, fp)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0)
			ret = list_add(list, line);
	}
	free(line);
	fclose(fp);
	return ret;
}

/* -o: bytes, with a K, M or G suffix; "auto": wherever the image is
 * found in the file (main.c). */
static int parse_offset(const char *arg, uq_options_t *opt)
{
	if (strcmp(arg, "auto") == 0) {
		opt->offset_auto = true;
		return 0;
	}
	if (parse_size(arg, UINT64_MAX, &opt->offset) != NULL)
		return usage_error("-o", "missing or invalid offset size");
	return 0;
}

static int take_value(int argc, char **argv, int *i, const opt_def_t *d,
		      const char *what, const char **out)
{
	if (*i + 1 >= argc)
		return usage_error(d->long_name, what);
	*out = argv[++*i];
	return 0;
}

int uq_parse_options(int argc, char **argv, uq_options_t *opt, int *status)
{
	bool version_shown = false, excludes = false;
	uq_list_t paths = {NULL, 0};
	const char *val;
	uint64_t num;
	int i;

	memset(opt, 0, sizeof(*opt));
	opt->dest = "squashfs-root";
	opt->num_jobs = num_cpus();
	*status = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; ++i) {
		const opt_def_t *d = find_def(argv[i]);

		if (d == NULL) {
			printf("unsquashfs: %s is an invalid option\n\nRun\n  "
			       "\"unsquashfs -help-option <regex>\" to get "
			       "help on all options matching <regex>\n",
			       argv[i]);
			goto fail;
		}
		switch (d->id) {
		case O_DEST:
			if (take_value(argc, argv, &i, d, "missing filename",
				       &opt->dest) != 0)
				goto fail;
			break;
		case O_MAX_DEPTH:
			if (take_value(argc, argv, &i, d,
				       "missing or invalid levels", &val) != 0)
				goto fail;
			if (parse_uint(val, UINT32_MAX, &num) != NULL) {
				usage_error(d->long_name,
					    "missing or invalid levels");
				goto fail;
			}
			opt->max_depth = (unsigned int)num;
			opt->max_depth_set = true;
			break;
		case O_EXCLUDES:
			excludes = true;
			break;
		case O_EXCLUDE_LIST:
			for (++i; i < argc && strcmp(argv[i], ";") != 0; ++i) {
				if (list_add(&opt->exclude, argv[i]) != 0)
					goto fail;
			}
			if (i >= argc) {
				usage_error(d->long_name,
					    "missing ';' terminator");
				goto fail;
			}
			break;
		case O_EXTRACT_FILE:
			if (take_value(argc, argv, &i, d, "missing filename",
				       &val) != 0 ||
			    list_add_file(&opt->extract, val) != 0)
				goto fail;
			break;
		case O_EXCLUDE_FILE:
			if (take_value(argc, argv, &i, d, "missing filename",
				       &val) != 0 ||
			    list_add_file(&opt->exclude, val) != 0)
				goto fail;
			break;
		case O_NO_WILDCARDS:
			opt->no_wildcards = true;
			break;
		case O_ALL_TIME:
			if (take_value(argc, argv, &i, d,
				       "missing or invalid time", &val) != 0)
				goto fail;
			/* 4.7.5 also hands other text to date(1): not here */
			if (parse_uint(val, UINT32_MAX, &num) != NULL) {
				usage_error(d->long_name,
					    "takes seconds since the epoch "
					    "only in this implementation, "
					    "not");
				goto fail;
			}
			opt->all_time = (uint32_t)num;
			opt->all_time_set = true;
			break;
		case O_CAT:
			opt->op = UQ_CAT;
			break;
		case O_FORCE:
			opt->force = true;
			break;
		case O_PSEUDO_FILE:
			if (take_value(argc, argv, &i, d,
				       "missing pseudo file name",
				       &opt->pseudo_file) != 0)
				goto fail;
			opt->op = UQ_PSEUDO;
			break;
		case O_STAT:
			opt->op = UQ_SUPER;
			break;
		case O_INFO:
			opt->show = UQ_SHOW_NAMES;
			break;
		case O_LINFO:
			opt->show = UQ_SHOW_LONG;
			break;
		case O_LS:
		case O_LLS:
		case O_LLN:
		case O_LC:
		case O_LLC:
			opt->op = UQ_LIST;
			opt->concise = d->id == O_LC || d->id == O_LLC;
			opt->show = d->id == O_LS || d->id == O_LC
					? UQ_SHOW_NAMES
				    : d->id == O_LLN ? UQ_SHOW_NUMERIC
						     : UQ_SHOW_LONG;
			break;
		case O_FULL_PRECISION:
			opt->full_precision = true;
			break;
		case O_UTC:
			opt->utc = true;
			break;
		case O_MKFS_TIME:
			opt->op = UQ_FSTIME;
			break;
		case O_NO_XATTRS:
			opt->no_xattrs = true;
			break;
		case O_XATTRS:
			opt->no_xattrs = false;
			break;
		case O_VERSION:
			print_version();
			version_shown = true;
			break;
		case O_PROCESSORS:
			if (i + 1 >= argc ||
			    parse_uint(argv[i + 1], 4096, &num) != NULL) {
				usage_error(d->long_name,
					    "missing or invalid processor "
					    "number");
				goto fail;
			}
			++i;
			if (num < 1) {
				fprintf(stderr, "unsquashfs: -processors "
						"should be 1 or larger\n");
				goto fail;
			}
			opt->num_jobs = (unsigned int)num;
			break;
		case O_MEM:
		case O_COLS:
		case O_CACHE:
		case O_HELP_ARG:
			if (take_value(argc, argv, &i, d, "missing value",
				       &val) != 0)
				goto fail;
			if (d->id == O_HELP_ARG) {
				print_help();
				goto done;
			}
			break;
		case O_QUIET:
			opt->quiet = true;
			break;
		case O_NO_PROGRESS:
			opt->no_progress = true;
			break;
		case O_PERCENTAGE:
		case O_NO_PAGER:
			break;
		case O_IGNORE_ERRORS:
			opt->ignore_errors = true;
			break;
		case O_STRICT_ERRORS:
			opt->strict_errors = true;
			break;
		case O_NO_EXIT_CODE:
			opt->no_exit_code = true;
			break;
		case O_HELP:
			print_help();
			goto done;
		case O_OFFSET:
			if (take_value(argc, argv, &i, d,
				       "missing or invalid offset size",
				       &val) != 0 ||
			    parse_offset(val, opt) != 0)
				goto fail;
			break;
		case O_REFUSED:
		case O_REFUSED_ARG:
			fprintf(stderr,
				"unsquashfs: %s is not supported by this "
				"implementation (squashforge)\n",
				d->long_name);
			goto fail;
		}
	}

	if (i >= argc) {
		/* 4.7.5 ends quietly after -version without an image */
		if (version_shown)
			goto fail_quiet;
		printf("unsquashfs: fatal error: no input filesystem specified "
		       "on command line\n\n");
		print_help();
		goto fail;
	}
	opt->image = argv[i++];
	for (; i < argc; ++i) {
		if (list_add(&paths, argv[i]) != 0)
			goto fail;
	}
	if (excludes) {
		for (size_t j = 0; j < paths.count; ++j) {
			if (list_add(&opt->exclude, paths.items[j]) != 0)
				goto fail;
		}
	} else {
		for (size_t j = 0; j < paths.count; ++j) {
			if (list_add(&opt->extract, paths.items[j]) != 0)
				goto fail;
		}
	}
	for (size_t j = 0; j < paths.count; ++j)
		free(paths.items[j]);
	free(paths.items);
	return 0;
done:
	for (size_t j = 0; j < paths.count; ++j)
		free(paths.items[j]);
	free(paths.items);
	return 1;
fail:
fail_quiet:
	for (size_t j = 0; j < paths.count; ++j)
		free(paths.items[j]);
	free(paths.items);
	*status = UQ_EXIT_FATAL;
	return -1;
}

static void list_free(uq_list_t *list)
{
	for (size_t i = 0; i < list->count; ++i)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

void uq_options_free(uq_options_t *opt)
{
	list_free(&opt->extract);
	list_free(&opt->exclude);
}
