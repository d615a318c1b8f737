/* SPDX-License-Identifier: MIT */
/*
 * options.c - mksquashfs's command line: SOURCE... DEST [OPTIONS]
 * [-e LIST...].
 *
 * The grammar is squashfs-tools', not getopt's: every argument before the
 * first that starts with '-' (other than "-" itself, the stdin source) is
 * a source, the last of them the destination; options are single-dash
 * words, some with one argument; -e takes every argument after it. Each
 * option of mksquashfs 4.7.5's -help-all is in the table below, so that a
 * build script's options are either honoured, accepted as meaning nothing
 * here (reader and cache tuning: the engine sizes its own), or refused by
 * name: never silently misread.
 *
 * The same table and value parsing serve sqfstar (sqfstar.c), whose
 * grammar is [OPTIONS] FILESYSTEM [EXCLUDES...]: it lacks the options of
 * st_absent below and has -force, and both read a tar archive through
 * tar.c. One home for each option's meaning, whichever command takes it.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/compressor_cli.h"
#include "common/cpus.h"
#include "common/parse.h"
#include "common/print.h"
#include "common/xattr_text.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

/* What an option does here. */
typedef enum {
	/* honoured: handled in take() */
	DO,
	/* accepted, and does nothing here (the man page says why) */
	NOOP,
	/* refused: squashforge cannot do it yet */
	REFUSE,
} kind_t;

typedef struct {
	const char *name;
	/* arguments it takes: 0 or 1 (-e is special) */
	int nargs;
	kind_t kind;
	/* the option it is another name for, or NULL */
	const char *alias_of;
} opt_def_t;

static const opt_def_t options[] = {
    /* compression */
    {"-b", 1, DO, NULL},
    {"-comp", 1, DO, NULL},
    {"-noI", 0, DO, NULL},
    {"-noId", 0, DO, NULL},
    {"-noD", 0, DO, NULL},
    {"-noF", 0, DO, NULL},
    {"-noX", 0, DO, NULL},
    {"-no-compression", 0, DO, NULL},
    {"-noInodeCompression", 0, DO, "-noI"},
    {"-noIdTableCompression", 0, DO, "-noId"},
    {"-noDataCompression", 0, DO, "-noD"},
    {"-noFragmentCompression", 0, DO, "-noF"},
    {"-noXattrCompression", 0, DO, "-noX"},
    /* build */
    {"-tar", 0, DO, NULL},
    /* only meaningful with -tar, where there is nothing to strip */
    {"-no-strip", 0, DO, NULL},
    {"-tarstyle", 0, DO, "-no-strip"},
    {"-cpiostyle", 0, REFUSE, NULL},
    {"-cpiostyle0", 0, REFUSE, NULL},
    {"-no-exports", 0, DO, NULL},
    {"-exports", 0, DO, NULL},
    {"-no-sparse", 0, DO, NULL},
    {"-no-tailends", 0, DO, NULL},
    {"-tailends", 0, DO, NULL},
    {"-always-use-fragments", 0, DO, "-tailends"},
    {"-no-fragments", 0, DO, NULL},
    {"-no-duplicates", 0, DO, NULL},
    {"-no-hardlinks", 0, DO, NULL},
    {"-keep-as-directory", 0, DO, NULL},
    /* times */
    {"-mkfs-time", 1, DO, NULL},
    {"-fstime", 1, DO, "-mkfs-time"},
    {"-inode-time", 1, DO, NULL},
    {"-all-time", 1, DO, "-inode-time"},
    {"-root-time", 1, DO, NULL},
    {"-repro", 0, DO, NULL},
    {"-reproducible", 0, DO, "-repro"},
    {"-repro-time", 1, DO, NULL},
    /* owners and modes */
    {"-all-root", 0, DO, NULL},
    {"-root-owned", 0, DO, "-all-root"},
    {"-root-mode", 1, DO, NULL},
    {"-root-uid", 1, DO, NULL},
    {"-root-gid", 1, DO, NULL},
    {"-force-file-mode", 1, DO, NULL},
    {"-force-dir-mode", 1, DO, NULL},
    {"-force-uid", 1, DO, NULL},
    {"-force-gid", 1, DO, NULL},
    {"-uid-gid-offset", 1, DO, NULL},
    {"-default-mode", 1, DO, NULL},
    {"-default-uid", 1, DO, NULL},
    {"-default-gid", 1, DO, NULL},
    /* pseudo files */
    {"-p", 1, DO, NULL},
    {"-pd", 1, DO, NULL},
    {"-pseudo-dir", 1, DO, "-pd"},
    {"-pf", 1, DO, NULL},
    {"-pseudo-override", 0, DO, NULL},
    /* filters */
    {"-sort", 1, DO, NULL},
    {"-ef", 1, DO, NULL},
    {"-wildcards", 0, DO, NULL},
    {"-regex", 0, DO, NULL},
    {"-max-depth", 1, DO, NULL},
    {"-one-file-system", 0, DO, NULL},
    {"-one-file-system-x", 0, DO, NULL},
    /* xattrs */
    {"-no-xattrs", 0, DO, NULL},
    {"-xattrs", 0, DO, NULL},
    {"-xattrs-exclude", 1, DO, NULL},
    {"-xattrs-include", 1, DO, NULL},
    {"-xattrs-add", 1, DO, NULL},
    /* runtime */
    {"-version", 0, DO, NULL},
    {"-exit-on-error", 0, DO, NULL},
    {"-quiet", 0, DO, NULL},
    {"-info", 0, DO, NULL},
    {"-info-file", 1, DO, NULL},
    {"-no-progress", 0, DO, NULL},
    {"-progress", 0, DO, NULL},
    {"-percentage", 0, DO, NULL},
    {"-throttle", 1, NOOP, NULL},
    {"-limit", 1, NOOP, NULL},
    {"-processors", 1, DO, NULL},
    {"-mem", 1, DO, NULL},
    {"-mem-percent", 1, DO, NULL},
    {"-mem-default", 0, DO, NULL},
    {"-single-reader", 0, NOOP, NULL},
    {"-small-readers", 1, NOOP, NULL},
    {"-block-readers", 1, NOOP, NULL},
    {"-overcommit", 1, NOOP, NULL},
    /* append */
    {"-noappend", 0, DO, NULL},
    {"-root-becomes", 1, DO, NULL},
    {"-no-recovery", 0, NOOP, NULL},
    {"-recovery-path", 1, NOOP, NULL},
    {"-recover", 1, REFUSE, NULL},
    /* actions */
    {"-action", 1, REFUSE, NULL},
    {"-log-action", 1, REFUSE, NULL},
    {"-true-action", 1, REFUSE, NULL},
    {"-false-action", 1, REFUSE, NULL},
    {"-action-file", 1, REFUSE, NULL},
    {"-log-action-file", 1, REFUSE, NULL},
    {"-true-action-file", 1, REFUSE, NULL},
    {"-false-action-file", 1, REFUSE, NULL},
    /* tar input only */
    {"-ignore-zeros", 0, DO, NULL},
    {"-numeric-owner", 0, DO, NULL},
    /* sqfstar only (st_absent says which are mksquashfs's only) */
    {"-force", 0, DO, NULL},
    /* expert */
    {"-stream", 0, REFUSE, NULL},
    {"-fix", 1, REFUSE, NULL},
    {"-nopad", 0, DO, NULL},
    {"-offset", 1, DO, NULL},
    {"-o", 1, DO, "-offset"},
    /* help */
    {"-help", 0, DO, NULL},
    {"-h", 0, DO, "-help"},
    {"-help-all", 0, DO, "-help"},
    {"-ha", 0, DO, "-help"},
    {"-help-option", 1, DO, "-help"},
    {"-ho", 1, DO, "-help"},
    {"-help-section", 1, DO, "-help"},
    {"-hs", 1, DO, "-help"},
    {"-help-comp", 1, DO, NULL},
    {"-Xhelp", 0, DO, NULL},
    {"-no-pager", 0, NOOP, NULL},
    {"-cols", 1, NOOP, NULL},
};

/* mksquashfs's options sqfstar 4.7.5 does not have: there they are
 * invalid options, as sqfstar says. */
static const char *const st_absent[] = {
    "-action",
    "-action-file",
    "-always-use-fragments",
    "-block-readers",
    "-cpiostyle",
    "-cpiostyle0",
    "-false-action",
    "-false-action-file",
    "-keep-as-directory",
    "-log-action",
    "-log-action-file",
    "-max-depth",
    "-no-exports",
    "-no-recovery",
    "-no-strip",
    "-noappend",
    "-one-file-system",
    "-one-file-system-x",
    "-pseudo-dir",
    "-recover",
    "-recovery-path",
    "-root-becomes",
    "-single-reader",
    "-small-readers",
    "-sort",
    "-tailends",
    "-tar",
    "-tarstyle",
    "-true-action",
    "-true-action-file",
    "-wildcards",
    "-e",
};

/* The command's name in messages: mksquashfs or sqfstar. */
static const char *prog = "mksquashfs";
static bool as_sqfstar;

/* The compressor options, as squashfs-tools spells them; which
 * compressors take each is checked once -comp is known. */
static const struct {
	const char *name;
	int nargs;
} x_options[] = {
    {"-Xcompression-level", 1},
    {"-Xwindow-size", 1},
    {"-Xstrategy", 1},
    {"-Xalgorithm", 1},
    {"-Xhc", 0},
    {"-Xbcj", 1},
    {"-Xdict-size", 1},
    {"-Xpreset", 1},
    {"-Xe", 0},
    {"-Xlc", 1},
    {"-Xlp", 1},
    {"-Xpb", 1},
};

/* ---- messages ------------------------------------------------------------ */

static void help_hint(const char *option)
{
	fprintf(stderr,
		"\nRun\n  \"%s -help-option %s$\" to get help on %s "
		"option\n",
		prog, option, option);
}

/* "mksquashfs: OPTION why" and a hint, as mksquashfs says it. */
static int bad_value(const char *option, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad_value(const char *option, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s ", prog, option);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	help_hint(option);
	return -1;
}

static void print_syntax(FILE *fp)
{
	if (as_sqfstar) {
		fputs("SYNTAX: sqfstar [OPTIONS] FILESYSTEM [list of exclude "
		      "dirs/files]\n",
		      fp);
		return;
	}
	fputs("SYNTAX: mksquashfs source1 source2 ...  FILESYSTEM [OPTIONS] "
	      "[-e list of exclude\ndirs/files]\n",
	      fp);
}

static void print_help(void)
{
	print_syntax(stdout);
	if (as_sqfstar) {
		fputs(
		    "\nThis is squashforge's sqfstar: squashfs-tools' command "
		    "line on squashforge's\nlibrary. It reads a tar archive "
		    "(plain, or compressed with gzip, xz, zstd,\nbzip2 or "
		    "lz4) from standard input. Every option of sqfstar 4.7 is "
		    "either\nhonoured, accepted as doing nothing here, or "
		    "refused with an error; see the\nsquashforge-sqfstar(1) "
		    "manual page for which is which.\n\nCompressors "
		    "available:\n",
		    stdout);
		comp_cli_print_list(stdout);
		return;
	}
	fputs("\nThis is squashforge's mksquashfs: squashfs-tools' command "
	      "line on squashforge's\nlibrary. Every option of mksquashfs "
	      "4.7 is either honoured, accepted as doing\nnothing here, or "
	      "refused with an error; see the squashforge-mksquashfs(1) "
	      "manual\npage for which is which.\n\nCompressors available:\n",
	      stdout);
	comp_cli_print_list(stdout);
}

static void print_version(void)
{
	/* scripts read the third word of the first line and compare it
	 * with 4.6: it must be a plain version number */
	printf("%s version 4.7 (squashforge %s)\n"
	       "squashforge's %s: the command line of squashfs-tools "
	       "4.7 on squashforge.\n"
	       "License MIT: <https://opensource.org/licenses/MIT>.\n"
	       "This is free software: you are free to change and "
	       "redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       prog, PACKAGE_VERSION, prog);
}

/* ---- values -------------------------------------------------------------- */

/* A size with K/KB/Kbytes, M/MB/Mbytes or G/GB/Gbytes (K, k, M, m, G, g
 * alone too), as mksquashfs reads -b, -offset and -mem. */
static bool parse_mk_size(const char *text, uint64_t max, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned int shift;
	} suffixes[] = {
	    {"", 0},	{"k", 10},	{"kb", 10},	{"kbytes", 10},
	    {"m", 20},	{"mb", 20},	{"mbytes", 20}, {"g", 30},
	    {"gb", 30}, {"gbytes", 30},
	};
	uint64_t value = 0;
	const char *p = text;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p)) {
		unsigned int d = (unsigned int)(*p++ - '0');

		if (value > (UINT64_MAX - d) / 10)
			return false;
		value = value * 10 + d;
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); ++i) {
		if (strcasecmp(p, suffixes[i].suffix) != 0)
			continue;
		if (value > (max >> suffixes[i].shift))
			return false;
		*out = value << suffixes[i].shift;
		return true;
	}
	return false;
}

/* A decimal number within [min, max]. */
/* The machine's memory in MiB, 0 if unknown. */
static uint64_t mk_physical_mib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 0;
	return ((uint64_t)pages * (uint64_t)size) >> 20;
}

/* The writer's default memory limit (sqfs/writer.h, mem_limit_mib). */
static uint64_t mk_default_mem_mib(void)
{
	uint64_t mib = mk_physical_mib() / 16;

	if (mib < 64)
		mib = 64;
	return mib > 768 ? 768 : mib;
}

static bool parse_long(const char *text, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int take_mode(const char *option, const char *arg, mk_mode_t *mode,
		     bool *have)
{
	const char *why;

	mk_mode_free(mode);
	why = mk_mode_parse(arg, mode);
	if (why != NULL)
		return bad_value(option, "invalid mode: %s", why);
	*have = true;
	return 0;
}

static int take_user(const char *option, const char *arg, mk_id_t *id,
		     bool group)
{
	const char *why =
	    group ? mk_parse_group(arg, &id->id) : mk_parse_user(arg, &id->id);

	if (why != NULL)
		return bad_value(option, "%s", why);
	id->set = true;
	return 0;
}

static int take_time(const char *option, const char *arg, mk_time_t *t)
{
	const char *why = mk_parse_time(arg, t);

	if (why != NULL)
		return bad_value(option, "%s", why);
	return 0;
}

static int take_xattr_add(mk_options_t *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	sqfs_xattr_t *list, *x;
	uint8_t *value;
	const char *why;

	if (eq == NULL || eq == arg)
		return bad_value("-xattrs-add",
				 "expects NAME=VALUE, got \"%s\"", arg);
	list = realloc(opt->xattr_add,
		       (opt->xattr_add_count + 1) * sizeof(list[0]));
	if (list == NULL)
		goto oom;
	opt->xattr_add = list;
	x = &list[opt->xattr_add_count];
	memset(x, 0, sizeof(*x));
	x->key = strndup(arg, (size_t)(eq - arg));
	if (x->key == NULL)
		goto oom;
	why = mk_xattr_value_decode(eq + 1, &value, &x->size);
	if (why != NULL) {
		free((void *)x->key);
		return bad_value("-xattrs-add", "%s: %s", arg, why);
	}
	x->value = value;
	opt->xattr_add_count += 1;
	return 0;
oom:
	tool_error(NULL, "out of memory");
	return -1;
}

const char *mk_xattr_value_decode(const char *text, uint8_t **out, size_t *size)
{
	size_t len = strlen(text), n = 0;
	uint8_t *buf = malloc(len + 1);
	const char *bad;
	ssize_t got;

	if (buf == NULL)
		return "out of memory";
	if (strncmp(text, "0x", 2) == 0 || strncmp(text, "0X", 2) == 0) {
		got = xattr_text_hex(text + 2, buf, &bad);
		if (got < 0) {
			free(buf);
			return "invalid hexadecimal value";
		}
		n = (size_t)got;
	} else if (strncmp(text, "0s", 2) == 0 || strncmp(text, "0S", 2) == 0) {
		got = xattr_text_base64(text + 2, buf, &bad);
		if (got < 0) {
			free(buf);
			return "invalid base64 value";
		}
		n = (size_t)got;
	} else if (strncmp(text, "0t", 2) == 0) {
		for (const char *p = text + 2; *p != '\0'; ++p) {
			if (*p == '\\' && p[1] >= '0' && p[1] <= '7' &&
			    p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
			    p[3] <= '7') {
				buf[n++] =
				    (uint8_t)((p[1] - '0') * 64 +
					      (p[2] - '0') * 8 + (p[3] - '0'));
				p += 3;
			} else if (*p == '\\' && p[1] == '\\') {
				buf[n++] = '\\';
				++p;
			} else {
				buf[n++] = (uint8_t)*p;
			}
		}
	} else {
		memcpy(buf, text, len);
		n = len;
	}
	*out = buf;
	*size = n;
	return NULL;
}

/* ---- compressor options ------------------------------------------------ */

typedef struct {
	const char *name;
	const char *arg;
} x_given_t;

/* Which compressors take an -X option, by squashfs-tools' rules. */
static bool x_applies(const char *name, int comp)
{
	if (strcmp(name, "-Xcompression-level") == 0)
		return comp == SQFS_COMP_GZIP || comp == SQFS_COMP_LZO ||
		       comp == SQFS_COMP_ZSTD;
	if (strcmp(name, "-Xwindow-size") == 0 ||
	    strcmp(name, "-Xstrategy") == 0)
		return comp == SQFS_COMP_GZIP;
	if (strcmp(name, "-Xalgorithm") == 0)
		return comp == SQFS_COMP_LZO;
	if (strcmp(name, "-Xhc") == 0)
		return comp == SQFS_COMP_LZ4;
	if (strcmp(name, "-Xbcj") == 0)
		return comp == SQFS_COMP_XZ;
	/* lzma takes the dictionary and the extended ones too */
	return comp == SQFS_COMP_XZ || comp == SQFS_COMP_LZMA;
}

static int x_error(const char *comp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int x_error(const char *comp, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", comp);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Each name of a comma-separated list looked up in names (NULL-ended),
 * its bit ORed into *bits. */
static int x_list(const char *comp, const char *option, const char *list,
		  const char *const *names, const uint32_t *values,
		  uint32_t *bits)
{
	char *copy = strdup(list), *save = NULL;
	int ret = 0;

	if (copy == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	*bits = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; names[i] != NULL; ++i) {
			if (strcmp(tok, names[i]) == 0)
				break;
		}
		if (names[i] == NULL) {
			ret = x_error(comp, "%s unrecognised \"%s\"", option,
				      tok);
			break;
		}
		*bits |= values[i];
	}
	free(copy);
	if (ret == 0 && *bits == 0)
		ret = x_error(comp, "%s missing list", option);
	return ret;
}

/* The dictionary size: bytes (K/M suffixes) or a percentage of the
 * block size, which squashfs-tools also writes as "37.5%". */
static int x_dict_size(const char *comp, const char *arg, uint32_t block,
		       uint32_t *out)
{
	size_t len = strlen(arg);
	uint64_t v;

	if (len > 1 && arg[len - 1] == '%') {
		char *end;
		double pct = strtod(arg, &end);

		if (end != arg + len - 1 || pct <= 0 || pct > 100)
			return x_error(comp,
				       "-Xdict-size bad percentage "
				       "\"%s\"",
				       arg);
		v = (uint64_t)((double)block * pct / 100.0);
	} else if (!parse_mk_size(arg, UINT32_MAX, &v)) {
		return x_error(comp, "-Xdict-size invalid dict-size \"%s\"",
			       arg);
	}
	if (v < SQFS_XZ_MIN_DICT_SIZE)
		return x_error(comp, "-Xdict-size should be 8192 bytes or "
				     "larger");
	if (v > block &&
	    !(block < SQFS_XZ_MIN_DICT_SIZE * 2 && v == SQFS_XZ_MIN_DICT_SIZE))
		return x_error(comp, "-Xdict-size is larger than block_size");
	*out = (uint32_t)v;
	return 0;
}

/* A level within [min, max]. */
static int x_level(const char *comp, const char *option, const char *arg,
		   long min, long max, uint32_t *out)
{
	long v;

	if (!parse_long(arg, min, max, &v))
		return x_error(comp, "%s should be %ld .. %ld", option, min,
			       max);
	*out = (uint32_t)v;
	return 0;
}

static int apply_x(sqfs_compressor_config_t *cfg, const x_given_t *x)
{
	static const char *const strategies[] = {
	    "default", "filtered", "huffman_only", "run_length_encoded",
	    "fixed",   NULL};
	static const uint32_t strategy_bits[] = {
	    SQFS_GZIP_DEFAULT, SQFS_GZIP_FILTERED, SQFS_GZIP_HUFFMAN,
	    SQFS_GZIP_RLE, SQFS_GZIP_FIXED};
	static const char *const filters[] = {"x86",   "powerpc",  "ia64",
					      "arm",   "armthumb", "sparc",
					      "arm64", "riscv",	   NULL};
	static const uint32_t filter_bits[] = {
	    SQFS_XZ_FILTER_X86,	  SQFS_XZ_FILTER_POWERPC,  SQFS_XZ_FILTER_IA64,
	    SQFS_XZ_FILTER_ARM,	  SQFS_XZ_FILTER_ARMTHUMB, SQFS_XZ_FILTER_SPARC,
	    SQFS_XZ_FILTER_ARM64, SQFS_XZ_FILTER_RISCV};
	static const char *const algorithms[] = {"lzo1x_1",    "lzo1x_1_11",
						 "lzo1x_1_12", "lzo1x_1_15",
						 "lzo1x_999",  NULL};
	static const uint32_t algorithm_ids[] = {
	    SQFS_LZO1X_1, SQFS_LZO1X_1_11, SQFS_LZO1X_1_12, SQFS_LZO1X_1_15,
	    SQFS_LZO1X_999};
	const char *comp = sqfs_compressor_name(cfg->id);
	const char *n = x->name;
	uint32_t v = 0;

	if (strcmp(n, "-Xcompression-level") == 0) {
		if (cfg->id == SQFS_COMP_GZIP)
			return x_level(comp, n, x->arg, 1, 9,
				       &cfg->opt.gzip.level);
		if (cfg->id == SQFS_COMP_ZSTD)
			return x_level(comp, n, x->arg, 1, 22,
				       &cfg->opt.zstd.level);
		return x_level(comp, n, x->arg, 1, 9, &cfg->opt.lzo.level);
	}
	if (strcmp(n, "-Xwindow-size") == 0) {
		if (x_level(comp, n, x->arg, 8, 15, &v) != 0)
			return -1;
		cfg->opt.gzip.window_size = (uint16_t)v;
		return 0;
	}
	if (strcmp(n, "-Xstrategy") == 0) {
		if (x_list(comp, n, x->arg, strategies, strategy_bits, &v))
			return -1;
		cfg->opt.gzip.strategies = (uint16_t)v;
		return 0;
	}
	if (strcmp(n, "-Xalgorithm") == 0) {
		for (size_t i = 0; algorithms[i] != NULL; ++i) {
			if (strcmp(x->arg, algorithms[i]) == 0) {
				cfg->opt.lzo.algorithm = algorithm_ids[i];
				return 0;
			}
		}
		return x_error(comp,
			       "-Xalgorithm unrecognised algorithm "
			       "\"%s\"",
			       x->arg);
	}
	if (strcmp(n, "-Xhc") == 0) {
		cfg->opt.lz4.flags |= SQFS_LZ4_HC;
		return 0;
	}
	if (strcmp(n, "-Xbcj") == 0)
		return x_list(comp, n, x->arg, filters, filter_bits,
			      &cfg->opt.xz.filters);
	if (strcmp(n, "-Xdict-size") == 0)
		return x_dict_size(comp, x->arg, cfg->block_size,
				   &cfg->opt.xz.dict_size);
	if (strcmp(n, "-Xpreset") == 0)
		return x_level(comp, n, x->arg, 0, 9, &cfg->opt.xz.level);
	if (strcmp(n, "-Xe") == 0) {
		cfg->flags |= SQFS_COMP_FLAG_EXTREME;
		return 0;
	}
	if (x_level(comp, n, x->arg, 0, 4, &v) != 0)
		return -1;
	if (strcmp(n, "-Xlc") == 0)
		cfg->opt.xz.lc = (uint8_t)v;
	else if (strcmp(n, "-Xlp") == 0)
		cfg->opt.xz.lp = (uint8_t)v;
	else
		cfg->opt.xz.pb = (uint8_t)v;
	return 0;
}

/* ---- the parser ---------------------------------------------------------- */

typedef struct {
	const char *comp_name;
	x_given_t *x;
	size_t x_count;
	bool no_exports;
	bool uncompressed_inodes;
	bool uncompressed_ids;
	bool uncompressed_data;
	bool uncompressed_fragments;
	bool uncompressed_xattrs;
	const char *xattr_exclude;
	const char *xattr_include;
	bool mkfs_time_given;
	bool repro_time_given;
	uint32_t repro_time;
	bool inode_time_given;
	bool tailends_given;
} parse_state_t;

static const opt_def_t *find_option(const char *arg)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); ++i) {
		if (strcmp(arg, options[i].name) == 0)
			return &options[i];
	}
	return NULL;
}

static int find_x_option(const char *arg)
{
	for (size_t i = 0; i < sizeof(x_options) / sizeof(x_options[0]); ++i) {
		if (strcmp(arg, x_options[i].name) == 0)
			return (int)i;
	}
	return -1;
}

static int compile_regex(const char *option, const char *text, regex_t **out)
{
	char why[256];
	int ret;

	if (*out != NULL) {
		regfree(*out);
		free(*out);
	}
	*out = calloc(1, sizeof(**out));
	if (*out == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	ret = regcomp(*out, text, REG_EXTENDED | REG_NOSUB);
	if (ret != 0) {
		regerror(ret, *out, why, sizeof(why));
		free(*out);
		*out = NULL;
		return bad_value(option, "invalid regex \"%s\": %s", text, why);
	}
	return 0;
}

static int push_pseudo(mk_options_t *opt, bool is_file, const char *text)
{
	struct mk_pseudo_arg *list =
	    realloc(opt->pseudo, (opt->pseudo_count + 1) * sizeof(list[0]));

	if (list == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	opt->pseudo = list;
	list[opt->pseudo_count].is_file = is_file;
	list[opt->pseudo_count].text = text;
	opt->pseudo_count += 1;
	return 0;
}

/* Option o (canonical name) with its argument. Returns 0, 1 when done
 * (help, version), -1 on an error (printed). */
static int take(mk_options_t *opt, parse_state_t *ps, const char *name,
		const char *arg)
{
	packer_options_t *pk = &opt->gs.pk;
	uint64_t u;
	long l;

	if (strcmp(name, "-b") == 0) {
		if (arg == NULL || !parse_mk_size(arg, UINT32_MAX, &u))
			return bad_value(name, "invalid block size");
		if (u < 4096 || u > (1u << 20) || (u & (u - 1)) != 0)
			return bad_value(name, "block size not power of two "
					       "or not between 4096 and "
					       "1Mbyte");
		pk->wr.block_size = (uint32_t)u;
	} else if (strcmp(name, "-comp") == 0) {
		ps->comp_name = arg;
	} else if (strcmp(name, "-noI") == 0) {
		/* -noI implies -noId, as mksquashfs says */
		ps->uncompressed_inodes = true;
		ps->uncompressed_ids = true;
	} else if (strcmp(name, "-noId") == 0) {
		ps->uncompressed_ids = true;
	} else if (strcmp(name, "-noD") == 0) {
		ps->uncompressed_data = true;
	} else if (strcmp(name, "-noF") == 0) {
		ps->uncompressed_fragments = true;
	} else if (strcmp(name, "-noX") == 0) {
		ps->uncompressed_xattrs = true;
	} else if (strcmp(name, "-no-compression") == 0) {
		ps->uncompressed_inodes = ps->uncompressed_ids = true;
		ps->uncompressed_data = ps->uncompressed_fragments = true;
		ps->uncompressed_xattrs = true;
	} else if (strcmp(name, "-no-exports") == 0) {
		ps->no_exports = true;
	} else if (strcmp(name, "-exports") == 0) {
		ps->no_exports = false;
	} else if (strcmp(name, "-no-sparse") == 0) {
		opt->no_sparse = true;
	} else if (strcmp(name, "-no-tailends") == 0) {
		opt->tail_ends = false;
		ps->tailends_given = true;
	} else if (strcmp(name, "-tailends") == 0) {
		opt->tail_ends = true;
		ps->tailends_given = true;
	} else if (strcmp(name, "-tar") == 0) {
		opt->tar = true;
	} else if (strcmp(name, "-no-strip") == 0) {
		opt->no_strip = true;
	} else if (strcmp(name, "-ignore-zeros") == 0) {
		opt->ignore_zeros = true;
	} else if (strcmp(name, "-numeric-owner") == 0) {
		opt->numeric_owner = true;
	} else if (strcmp(name, "-force") == 0) {
		opt->force = true;
	} else if (strcmp(name, "-no-fragments") == 0) {
		opt->no_fragments = true;
	} else if (strcmp(name, "-no-duplicates") == 0) {
		opt->no_duplicates = true;
	} else if (strcmp(name, "-no-hardlinks") == 0) {
		opt->no_hard_links = true;
	} else if (strcmp(name, "-keep-as-directory") == 0) {
		opt->keep_as_directory = true;
	} else if (strcmp(name, "-mkfs-time") == 0) {
		ps->mkfs_time_given = true;
		return take_time(name, arg, &opt->mkfs_time);
	} else if (strcmp(name, "-inode-time") == 0) {
		ps->inode_time_given = true;
		return take_time(name, arg, &opt->inode_time);
	} else if (strcmp(name, "-root-time") == 0) {
		return take_time(name, arg, &opt->root_time);
	} else if (strcmp(name, "-repro") == 0) {
		opt->repro = true;
	} else if (strcmp(name, "-repro-time") == 0) {
		mk_time_t t;

		if (take_time(name, arg, &t) != 0)
			return -1;
		if (t.inode)
			return bad_value(name, "needs a time, not \"inode\"");
		ps->repro_time_given = true;
		ps->repro_time = t.seconds;
	} else if (strcmp(name, "-all-root") == 0) {
		opt->all_root = true;
	} else if (strcmp(name, "-root-mode") == 0) {
		opt->root_mode_from_default = false;
		return take_mode(name, arg, &opt->root_mode,
				 &opt->have_root_mode);
	} else if (strcmp(name, "-root-uid") == 0) {
		opt->root_uid_from_default = false;
		return take_user(name, arg, &opt->root_uid, false);
	} else if (strcmp(name, "-root-gid") == 0) {
		opt->root_gid_from_default = false;
		return take_user(name, arg, &opt->root_gid, true);
	} else if (strcmp(name, "-force-file-mode") == 0) {
		return take_mode(name, arg, &opt->file_mode,
				 &opt->have_file_mode);
	} else if (strcmp(name, "-force-dir-mode") == 0) {
		return take_mode(name, arg, &opt->dir_mode,
				 &opt->have_dir_mode);
	} else if (strcmp(name, "-force-uid") == 0) {
		return take_user(name, arg, &opt->force_uid, false);
	} else if (strcmp(name, "-force-gid") == 0) {
		return take_user(name, arg, &opt->force_gid, true);
	} else if (strcmp(name, "-uid-gid-offset") == 0) {
		if (!parse_long(arg, 0, UINT32_MAX, &l))
			return bad_value(name, "invalid offset \"%s\"", arg);
		opt->have_id_offset = true;
		opt->id_offset = (uint32_t)l;
	} else if (strcmp(name, "-default-mode") == 0) {
		opt->root_mode_from_default = true;
		return take_mode(name, arg, &opt->default_mode,
				 &opt->have_default_mode);
	} else if (strcmp(name, "-default-uid") == 0) {
		opt->root_uid_from_default = true;
		return take_user(name, arg, &opt->default_uid, false);
	} else if (strcmp(name, "-default-gid") == 0) {
		opt->root_gid_from_default = true;
		return take_user(name, arg, &opt->default_gid, true);
	} else if (strcmp(name, "-p") == 0) {
		return push_pseudo(opt, false, arg);
	} else if (strcmp(name, "-pf") == 0) {
		return push_pseudo(opt, true, arg);
	} else if (strcmp(name, "-pd") == 0) {
		opt->pseudo_dir = arg;
	} else if (strcmp(name, "-pseudo-override") == 0) {
		opt->pseudo_override = true;
	} else if (strcmp(name, "-sort") == 0) {
		opt->gs.sort_file = arg;
	} else if (strcmp(name, "-ef") == 0) {
		opt->exclude_files[opt->exclude_file_count++] = arg;
	} else if (strcmp(name, "-wildcards") == 0) {
		opt->match = MK_MATCH_WILDCARDS;
	} else if (strcmp(name, "-regex") == 0) {
		opt->match = MK_MATCH_REGEX;
	} else if (strcmp(name, "-max-depth") == 0) {
		if (!parse_long(arg, 0, INT_MAX, &l))
			return bad_value(name, "invalid levels \"%s\"", arg);
		opt->max_depth = l;
	} else if (strcmp(name, "-one-file-system") == 0) {
		opt->gs.one_file_system = true;
	} else if (strcmp(name, "-one-file-system-x") == 0) {
		opt->gs.one_file_system = true;
		opt->one_file_system_x = true;
	} else if (strcmp(name, "-no-xattrs") == 0) {
		opt->no_xattrs = true;
	} else if (strcmp(name, "-xattrs") == 0) {
		opt->no_xattrs = false;
	} else if (strcmp(name, "-xattrs-exclude") == 0) {
		return compile_regex(name, arg, &opt->xattr_exclude);
	} else if (strcmp(name, "-xattrs-include") == 0) {
		return compile_regex(name, arg, &opt->xattr_include);
	} else if (strcmp(name, "-xattrs-add") == 0) {
		return take_xattr_add(opt, arg);
	} else if (strcmp(name, "-version") == 0) {
		print_version();
		return 1;
	} else if (strcmp(name, "-exit-on-error") == 0) {
		opt->exit_on_error = true;
	} else if (strcmp(name, "-quiet") == 0) {
		opt->quiet = true;
	} else if (strcmp(name, "-info") == 0) {
		opt->info = true;
	} else if (strcmp(name, "-info-file") == 0) {
		opt->info_file = arg;
	} else if (strcmp(name, "-no-progress") == 0) {
		opt->no_progress = true;
	} else if (strcmp(name, "-progress") == 0) {
		opt->progress = true;
	} else if (strcmp(name, "-percentage") == 0) {
		opt->percentage = true;
	} else if (strcmp(name, "-processors") == 0) {
		if (!parse_long(arg, 1, 4096, &l))
			return bad_value(name, "should be 1 or larger");
		opt->processors = (unsigned int)l;
	} else if (strcmp(name, "-mem") == 0 ||
		   strcmp(name, "-mem-percent") == 0) {
		/* what the writer may keep in memory (--mem of the other
		 * packers); mksquashfs's bounds: 16M, 75% of the memory */
		uint64_t total = mk_physical_mib(), mib;

		if (strcmp(name, "-mem") == 0) {
			uint64_t bytes;

			if (parse_size(arg, UINT64_MAX >> 1, &bytes) != NULL)
				return bad_value(name, "should be a size, "
						       "with K, M or G");
			mib = bytes >> 20;
		} else {
			if (!parse_long(arg, 1, 100, &l))
				return bad_value(name, "should be 1 to 75");
			mib = total * (uint64_t)l / 100;
		}
		if (mib < 16) {
			fprintf(stderr, "ERROR: Insufficient memory for "
					"specified options!  Please increase "
					"memory to 16 Mbytes (-mem option)\n");
			return -1;
		}
		if (total > 0 && mib > total / 4 * 3) {
			fprintf(stderr, "Total memory requested is more than "
					"75%% of physical memory.\n");
			return -1;
		}
		opt->mem_mib = mib > UINT32_MAX ? UINT32_MAX : (uint32_t)mib;
	} else if (strcmp(name, "-mem-default") == 0) {
		/* mksquashfs prints the number alone, for scripts */
		printf("%u\n", (unsigned int)mk_default_mem_mib());
		return 1;
	} else if (strcmp(name, "-noappend") == 0) {
		opt->noappend = true;
	} else if (strcmp(name, "-root-becomes") == 0) {
		/* one name of the root: mksquashfs 4.7.5 takes "a/b" and
		 * writes a name the kernel refuses */
		if (arg[0] == '\0' || strchr(arg, '/') != NULL ||
		    strcmp(arg, ".") == 0 || strcmp(arg, "..") == 0 ||
		    strlen(arg) > 256)
			return bad_value(name, "needs a name without '/', "
					       "not \".\" or \"..\"");
		opt->root_becomes = arg;
	} else if (strcmp(name, "-nopad") == 0) {
		opt->nopad = true;
	} else if (strcmp(name, "-offset") == 0) {
		if (!parse_mk_size(arg, UINT64_MAX >> 1, &opt->offset))
			return bad_value(name, "invalid offset \"%s\"", arg);
	} else if (strcmp(name, "-help") == 0) {
		print_help();
		return 1;
	} else if (strcmp(name, "-help-comp") == 0 ||
		   strcmp(name, "-Xhelp") == 0) {
		int id;

		if (comp_cli_select(arg != NULL ? arg : ps->comp_name, &id))
			return -1;
		comp_cli_print_options(stdout, id);
		return 1;
	}
	return 0;
}

/* After every option: the compressor and its -X options, the flags,
 * the time options' rules. */
static int finish(mk_options_t *opt, parse_state_t *ps)
{
	packer_options_t *pk = &opt->gs.pk;
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	int id;

	if (ps->comp_name == NULL)
		ps->comp_name = "gzip";
	id = sqfs_compressor_id_from_name(ps->comp_name);
	if (id < 0 || !sqfs_compressor_is_available(id)) {
		fprintf(stderr,
			"%s: Compressor \"%s\" is not supported!\n"
			"%s: Compressors available:\n",
			prog, ps->comp_name, prog);
		comp_cli_print_list(stderr);
		return -1;
	}
	if (sqfs_compressor_config_init(&pk->wr.compressor, id,
					pk->wr.block_size, 0) != 0) {
		tool_error(NULL, "cannot set up %s", ps->comp_name);
		return -1;
	}
	for (size_t i = 0; i < ps->x_count; ++i) {
		if (!x_applies(ps->x[i].name, id)) {
			fprintf(stderr,
				"%s: Unrecognised compressor option "
				"%s\n",
				prog, ps->x[i].name);
			if (strcmp(ps->comp_name, "gzip") == 0)
				fprintf(stderr,
					"%s: Did you forget to specify "
					"-comp?\n",
					prog);
			fprintf(stderr,
				"%s: selected compressor \"%s\".  "
				"Options supported:\n",
				prog, ps->comp_name);
			comp_cli_print_options(stderr, id);
			return -1;
		}
		if (apply_x(&pk->wr.compressor, &ps->x[i]) != 0)
			return -1;
	}
	if (sqfs_compressor_config_validate(&pk->wr.compressor) != 0) {
		tool_error(NULL, "the %s options given do not go together",
			   ps->comp_name);
		return -1;
	}

	/* tar input: both commands pack tails into fragments by default
	 * (4.7.5's unsquashfs -s says so); sqfstar's image is not
	 * exportable unless -exports, mksquashfs -tar's is */
	if (opt->tar && !ps->tailends_given)
		opt->tail_ends = true;
	if (opt->no_strip && !opt->tar) {
		fprintf(stderr,
			"%s: -no-strip is not supported by squashforge's "
			"mksquashfs without -tar (yet); no image was "
			"written\n",
			prog);
		return -1;
	}

	/* what mksquashfs does by default: an exportable image, tails of
	 * big files as short blocks, xattrs kept */
	pk->wr.flags = 0;
	if (!ps->no_exports)
		pk->wr.flags |= SQFS_WRITER_EXPORTABLE;
	if (!opt->tail_ends)
		pk->wr.flags |= SQFS_WRITER_NO_TAIL_PACKING;
	if (opt->no_fragments)
		pk->wr.flags |= SQFS_WRITER_NO_FRAGMENTS;
	if (opt->no_duplicates)
		pk->wr.flags |= SQFS_WRITER_NO_DEDUPLICATION;
	if (ps->uncompressed_inodes)
		pk->wr.flags |= SQFS_WRITER_UNCOMPRESSED_INODES;
	if (ps->uncompressed_ids)
		pk->wr.flags |= SQFS_WRITER_UNCOMPRESSED_IDS;
	if (ps->uncompressed_data)
		pk->wr.flags |= SQFS_WRITER_UNCOMPRESSED_DATA;
	if (ps->uncompressed_fragments)
		pk->wr.flags |= SQFS_WRITER_UNCOMPRESSED_FRAGMENTS;
	if (ps->uncompressed_xattrs)
		pk->wr.flags |= SQFS_WRITER_UNCOMPRESSED_XATTRS;
	if (opt->nopad)
		pk->wr.flags |= SQFS_WRITER_NO_PAD;
	opt->gs.keep_xattr = !opt->no_xattrs;
	opt->gs.keep_time = true;
	/* what cannot be read is packed empty unless told to stop */
	opt->gs.empty_unreadable_files = !opt->exit_on_error;
	if (opt->xattr_exclude != NULL || opt->xattr_include != NULL) {
		opt->gs.keep_xattr_key = mk_keep_xattr_key;
		opt->gs.xattr_user = opt;
	}
	if (!opt->no_xattrs && opt->xattr_add_count > 0) {
		opt->gs.add_xattrs = opt->xattr_add;
		opt->gs.add_xattr_count = opt->xattr_add_count;
	}
	pk->wr.num_jobs = opt->processors > 0 ? opt->processors : num_cpus();
	pk->wr.mem_limit_mib = opt->mem_mib;

	/* times, by mksquashfs's rules on what goes with what */
	if (opt->repro && ps->mkfs_time_given) {
		fputs("FATAL ERROR: Cannot specify both -repro and mkfs-time "
		      "<timestamp>\n",
		      stderr);
		return -1;
	}
	if (ps->repro_time_given) {
		if ((ps->mkfs_time_given &&
		     (opt->mkfs_time.inode ||
		      opt->mkfs_time.seconds != ps->repro_time)) ||
		    (ps->inode_time_given &&
		     (opt->inode_time.inode ||
		      opt->inode_time.seconds != ps->repro_time))) {
			fprintf(stderr,
				"FATAL ERROR: Cannot specify different "
				"timestamp with -repro-time <timestamp> and "
				"%s <timestamp>\n",
				ps->mkfs_time_given ? "mkfs-time"
						    : "inode-time");
			return -1;
		}
		opt->mkfs_time.set = opt->inode_time.set = true;
		opt->mkfs_time.inode = opt->inode_time.inode = false;
		opt->mkfs_time.seconds = ps->repro_time;
		opt->inode_time.seconds = ps->repro_time;
	}
	if (opt->repro) {
		opt->mkfs_time.set = true;
		opt->mkfs_time.inode = true;
	}
	if (sde != NULL) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(sde, &end, 10);
		if (sde[0] == '\0' || *end != '\0' || errno != 0 ||
		    sde[0] == '-' || v > UINT32_MAX) {
			fputs("Env Var SOURCE_DATE_EPOCH has invalid time "
			      "value\n",
			      stderr);
			return -1;
		}
		if (ps->repro_time_given) {
			fputs("FATAL ERROR: Cannot specify both -repro-time "
			      "<timestamp> and SOURCE_DATE_EPOCH\n",
			      stderr);
			return -1;
		}
		if (ps->mkfs_time_given || ps->inode_time_given) {
			fputs("FATAL ERROR: SOURCE_DATE_EPOCH and command "
			      "line options can't be used at the same time "
			      "to set timestamp(s)\n",
			      stderr);
			return -1;
		}
		opt->have_sde = true;
		opt->sde = (uint32_t)v;
		/* the image's time is SOURCE_DATE_EPOCH, -repro or not */
		opt->mkfs_time.set = true;
		opt->mkfs_time.inode = false;
		opt->mkfs_time.seconds = opt->sde;
	}
	return 0;
}

static bool st_lacks(const char *name)
{
	for (size_t i = 0; i < sizeof(st_absent) / sizeof(st_absent[0]); ++i) {
		if (strcmp(name, st_absent[i]) == 0)
			return true;
	}
	return false;
}

static void invalid_option(const char *arg)
{
	fprintf(stderr, "%s: %s is an invalid option\n", prog, arg);
	fprintf(stderr,
		"\nRun\n  \"%s -help-option <regex>\" "
		"to get help on all options matching "
		"<regex>\n",
		prog);
}

/*
 * The options in argv[from..argc), until -e (mksquashfs: the rest is the
 * exclude list) or, with stop_at_word (sqfstar), the first argument that
 * is not an option, whose index goes to *end. Returns what take() does.
 */
static int take_options(int argc, char **argv, int from, bool stop_at_word,
			mk_options_t *opt, parse_state_t *ps, int *end)
{
	int j, ret = 0;

	for (j = from; j < argc && ret == 0; ++j) {
		const opt_def_t *def;
		const char *arg = NULL, *name;
		int x;

		if (stop_at_word && (argv[j][0] != '-' || argv[j][1] == '\0'))
			break;
		if (!as_sqfstar && strcmp(argv[j], "-e") == 0) {
			/* the rest of the line is the exclude list */
			for (++j; j < argc; ++j)
				opt->excludes[opt->exclude_count++] = argv[j];
			break;
		}
		x = find_x_option(argv[j]);
		if (x >= 0) {
			if (x_options[x].nargs > 0) {
				if (j + 1 >= argc) {
					ret = bad_value(argv[j],
							"missing argument");
					break;
				}
				arg = argv[++j];
			}
			ps->x[ps->x_count].name = x_options[x].name;
			ps->x[ps->x_count].arg = arg;
			ps->x_count += 1;
			continue;
		}
		def = find_option(argv[j]);
		if (def != NULL &&
		    (as_sqfstar ? st_lacks(def->name)
				: strcmp(def->name, "-force") == 0))
			def = NULL;
		if (def == NULL) {
			invalid_option(argv[j]);
			ret = -1;
			break;
		}
		name = def->alias_of != NULL ? def->alias_of : def->name;
		if (def->nargs > 0) {
			/* help options may come without one */
			if (j + 1 >= argc && strcmp(name, "-help") != 0 &&
			    strcmp(name, "-help-comp") != 0) {
				if (strcmp(name, "-b") == 0)
					ret = bad_value(name,
							"invalid block size");
				else
					ret = bad_value(def->name,
							"missing argument");
				break;
			}
			if (j + 1 < argc)
				arg = argv[++j];
		}
		if (def->kind == REFUSE) {
			fprintf(stderr,
				"%s: %s is not supported by "
				"squashforge's %s (yet); no image "
				"was written\n",
				prog, def->name, prog);
			ret = -1;
			break;
		}
		if (def->kind == NOOP)
			continue;
		ret = take(opt, ps, name, arg);
	}
	*end = j;
	return ret;
}

static int parse_init(int argc, mk_options_t *opt, parse_state_t *ps)
{
	memset(opt, 0, sizeof(*opt));
	memset(ps, 0, sizeof(*ps));
	opt->max_depth = -1;
	sqfs_writer_options_init(&opt->gs.pk.wr);
	opt->exclude_files = calloc((size_t)argc + 1, sizeof(char *));
	opt->excludes = calloc((size_t)argc + 1, sizeof(char *));
	ps->x = calloc((size_t)argc + 1, sizeof(ps->x[0]));
	if (opt->exclude_files == NULL || opt->excludes == NULL ||
	    ps->x == NULL) {
		free(ps->x);
		ps->x = NULL;
		tool_error(NULL, "out of memory");
		return -1;
	}
	return 0;
}

int mk_parse_options(int argc, char **argv, mk_options_t *opt)
{
	parse_state_t ps;
	int i, end, ret = 0, positional = 0;

	prog = "mksquashfs";
	as_sqfstar = false;
	if (parse_init(argc, opt, &ps) != 0)
		return -1;

	/* a lone option (mksquashfs -version) has no sources */
	for (i = 1; i < argc; ++i) {
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			break;
		positional += 1;
	}
	ret = take_options(argc, argv, i, false, opt, &ps, &end);
	if (ret == 0 && positional < 2) {
		fprintf(stderr,
			"mksquashfs: fatal error: no %s specified on "
			"command line\n\n",
			positional == 0 ? "source or output filesystem"
					: "output filesystem");
		print_syntax(stderr);
		ret = -1;
	}
	if (ret == 0) {
		opt->sources = argv + 1;
		opt->source_count = (size_t)positional - 1;
		opt->dest = argv[positional];
		opt->gs.pk.output = opt->dest;
		/* -tar reads the archive from stdin, named "-" as mksquashfs
		 * wants it: mksquashfs - DEST -tar */
		if (opt->tar && (opt->source_count != 1 ||
				 strcmp(opt->sources[0], "-") != 0)) {
			fputs("FATAL ERROR: Sources on the command line should "
			      "be - when using -tar option, i.e. mksquashfs - "
			      "image.sqfs -tar\n",
			      stderr);
			ret = -1;
		} else if (opt->tar &&
			   (opt->exclude_count > 0 ||
			    opt->exclude_file_count > 0) &&
			   opt->match == MK_MATCH_PLAIN) {
			fputs("FATAL ERROR: -wildcards must be specified with "
			      "tar files and -ef/-e\n",
			      stderr);
			ret = -1;
		}
	}
	if (ret == 0)
		ret = finish(opt, &ps);
	free(ps.x);
	return ret;
}

int mk_parse_sqfstar_options(int argc, char **argv, mk_options_t *opt)
{
	parse_state_t ps;
	int end, ret;

	prog = "sqfstar";
	as_sqfstar = true;
	if (parse_init(argc, opt, &ps) != 0)
		return -1;
	/* sqfstar's defaults: a tar on stdin, excludes always wildcards
	 * (-regex makes them expressions), no export table */
	opt->sqfstar = true;
	opt->tar = true;
	opt->match = MK_MATCH_WILDCARDS;
	ps.no_exports = true;

	ret = take_options(argc, argv, 1, true, opt, &ps, &end);
	if (ret == 0 && end >= argc) {
		fputs("sqfstar: fatal error: no output filesystem specified "
		      "on command line\n\n",
		      stderr);
		print_syntax(stderr);
		ret = -1;
	}
	if (ret == 0) {
		opt->dest = argv[end];
		opt->gs.pk.output = opt->dest;
		/* everything after FILESYSTEM is an exclude, options too */
		for (int j = end + 1; j < argc; ++j)
			opt->excludes[opt->exclude_count++] = argv[j];
		ret = finish(opt, &ps);
	}
	free(ps.x);
	return ret;
}

void mk_free_options(mk_options_t *opt)
{
	mk_mode_free(&opt->root_mode);
	mk_mode_free(&opt->default_mode);
	mk_mode_free(&opt->file_mode);
	mk_mode_free(&opt->dir_mode);
	if (opt->xattr_exclude != NULL) {
		regfree(opt->xattr_exclude);
		free(opt->xattr_exclude);
	}
	if (opt->xattr_include != NULL) {
		regfree(opt->xattr_include);
		free(opt->xattr_include);
	}
	for (size_t i = 0; i < opt->xattr_add_count; ++i) {
		free((void *)opt->xattr_add[i].key);
		free((void *)opt->xattr_add[i].value);
	}
	free(opt->xattr_add);
	free(opt->pseudo);
	free(opt->excludes);
	free(opt->exclude_files);
	memset(opt, 0, sizeof(*opt));
}
