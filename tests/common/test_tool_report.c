/* SPDX-License-Identifier: MIT */
/*
 * test_tool_report.c - what the tools report: statistics, the sizes of the
 * progress line, the compressor options (-c, -X), the CPU count (-j).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/compressor_cli.h"
#include "common/cpus.h"
#include "common/print.h"
#include "common/progress.h"
#include "common/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	FILE *fp = tmpfile();
	char *buf;
	long size;

	assert_non_null(fp);
	fn(fp, arg);
	size = ftell(fp);
	assert_true(size > 0);
	buf = calloc(1, (size_t)size + 1);
	assert_non_null(buf);
	rewind(fp);
	assert_int_equal(fread(buf, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	return buf;
}

static void print_stats(FILE *fp, const void *arg)
{
	stats_print(fp, arg);
}

static void print_list(FILE *fp, const void *arg)
{
	(void)arg;
	comp_cli_print_list(fp);
}

static void print_options(FILE *fp, const void *arg)
{
	comp_cli_print_options(fp, *(const int *)arg);
}

/* A message is never cut, however long the path it names (a tree can
 * hold paths far longer than PATH_MAX). */
static void test_long_message(void **state)
{
	size_t len = 20000, size;
	char *path = malloc(len + 1), *want, *got;
	FILE *fp = tmpfile();
	int saved = dup(STDERR_FILENO);

	(void)state;
	assert_non_null(path);
	assert_non_null(fp);
	for (size_t i = 0; i < len; ++i)
		path[i] = (char)(i % 100 == 99 ? '/' : 'a' + i % 26);
	path[len] = '\0';
	tool_set_name("test");
	fflush(stderr);
	assert_true(dup2(fileno(fp), STDERR_FILENO) >= 0);
	tool_error(path, "%s: the end", path);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);

	size = (size_t)ftell(fp);
	want = malloc(2 * len + 64);
	got = calloc(1, size + 1);
	assert_non_null(want);
	assert_non_null(got);
	snprintf(want, 2 * len + 64, "test: %s: %s: the end\n", path, path);
	rewind(fp);
	assert_int_equal(fread(got, 1, size, fp), size);
	assert_string_equal(got, want);
	fclose(fp);
	free(want);
	free(got);
	free(path);
}

static void test_stats(void **state)
{
	sqfs_writer_stats_t st;
	char *text;
	(void)state;

	memset(&st, 0, sizeof(st));
	st.bytes_in = 1000;
	st.bytes_written = 250;
	st.data_blocks = 7;
	st.fragment_blocks = 3;
	st.duplicate_blocks = 11;
	st.duplicate_fragments = 13;
	st.sparse_blocks = 17;
	st.inodes = 19;
	st.ids = 23;
	text = capture(print_stats, &st);
	assert_non_null(strstr(text, "read:             1000\n"));
	assert_non_null(strstr(text, "written:          250\n"));
	assert_non_null(strstr(text, "25.0%"));
	assert_non_null(strstr(text, "Data blocks written:         7\n"));
	assert_non_null(strstr(text, "Fragment blocks written:     3\n"));
	assert_non_null(strstr(text, "Duplicate blocks omitted:    11\n"));
	assert_non_null(strstr(text, "Duplicate fragments omitted: 13\n"));
	assert_non_null(strstr(text, "Sparse blocks omitted:       17\n"));
	assert_non_null(strstr(text, "Inodes:                      19\n"));
	assert_non_null(strstr(text, "ids:  23\n"));
	free(text);

	/* nothing read: no division by zero */
	memset(&st, 0, sizeof(st));
	text = capture(print_stats, &st);
	assert_non_null(strstr(text, "ratio:      -\n"));
	free(text);
}

static void test_format_bytes(void **state)
{
	char buf[32];
	(void)state;

	progress_format_bytes(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0 B");
	progress_format_bytes(buf, sizeof(buf), 1023);
	assert_string_equal(buf, "1023 B");
	progress_format_bytes(buf, sizeof(buf), 1536);
	assert_string_equal(buf, "1.5 KiB");
	progress_format_bytes(buf, sizeof(buf), 3.0 * 1048576);
	assert_string_equal(buf, "3.0 MiB");
	progress_format_bytes(buf, sizeof(buf), 1e30);
	assert_non_null(strstr(buf, "PiB"));
}

static void test_progress_disabled(void **state)
{
	progress_t p;
	(void)state;

	/* disabled: never drawn */
	progress_init(&p, false);
	progress_update(&p, 100, 1);
	assert_false(p.shown);
	progress_end(&p);
}

static void test_compressor_cli(void **state)
{
	sqfs_compressor_config_t cfg;
	char *text;
	int id = -1;
	(void)state;

	assert_int_equal(comp_cli_select(NULL, &id), 0);
	assert_int_equal(id, (int)sqfs_compressor_default());
	assert_int_equal(comp_cli_select("no-such-thing", &id), -1);
	assert_int_equal(comp_cli_select("", &id), -1);

	text = capture(print_list, NULL);
	assert_non_null(strstr(text, "(default)"));
	free(text);

#ifdef WITH_GZIP
	assert_int_equal(comp_cli_select("gzip", &id), 0);
	assert_int_equal(id, SQFS_COMP_GZIP);
	assert_int_equal(comp_cli_configure(&cfg, id, 65536, NULL), 0);
	assert_int_equal(cfg.block_size, 65536);
	assert_int_equal(cfg.opt.gzip.level, SQFS_GZIP_DEFAULT_LEVEL);
	assert_int_equal(comp_cli_configure(&cfg, id, 65536, "level=3"), 0);
	assert_int_equal(cfg.opt.gzip.level, 3);
	assert_int_equal(comp_cli_configure(&cfg, id, 65536, "level=10"), -1);
	assert_int_equal(comp_cli_configure(&cfg, id, 65536, "bogus"), -1);
	text = capture(print_options, &id);
	assert_non_null(strstr(text, "level"));
	free(text);
#endif
#ifndef WITH_LZO
	assert_int_equal(comp_cli_select("lzo", &id), -1);
#endif
	/* a bad block size */
	assert_int_equal(
	    comp_cli_configure(&cfg, sqfs_compressor_default(), 1000, NULL),
	    -1);
}

static void test_cpus(void **state)
{
	long online = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int n = num_cpus();
	(void)state;

	assert_true(n >= 1);
	if (online > 0)
		assert_true(n <= (unsigned long)online);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_message),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_format_bytes),
	    cmocka_unit_test(test_progress_disabled),
	    cmocka_unit_test(test_compressor_cli),
	    cmocka_unit_test(test_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
