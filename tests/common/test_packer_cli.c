/* SPDX-License-Identifier: MIT */
/*
 * test_packer_cli.c - the options every packer takes (common/packer_cli.h)
 * and the command-line parts every tool shares (common/cli.h): each option
 * lands in the writer's options, bad values and arguments are refused,
 * -X help and --help end the run, SOURCE_DATE_EPOCH and --defaults give
 * the implicit attributes, --all-root beats --set-uid.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/cli.h"
#include "common/packer_cli.h"
#include "common/print.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option long_opts[] = {
    PACKER_LONG_OPTS,
    {NULL, 0, NULL, 0},
};

static int helps;

static void print_help(void)
{
	++helps;
}

/* A packer with nothing of its own: parse args (NULL-terminated). */
static int parse(packer_options_t *p, const char *const *args)
{
	char *argv[64];
	int argc = 0, c, ret;

	argv[argc++] = (char *)"packer";
	while (*args != NULL)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;

	optind = 0;
	opterr = 0;
	if (packer_options_init(p, argc) != 0)
		return -1;
	while ((c = getopt_long(argc, argv, PACKER_SHORT_OPTS, long_opts,
				NULL)) != -1) {
		ret = packer_option(p, c, optarg);
		if (ret < 0)
			return -1;
		if (ret == 1)
			return cli_other_option(c, PACKER_SHORT_OPTS, argv,
						print_help);
	}
	return packer_options_finish(p, argc, argv);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_every_option(void **state)
{
	packer_options_t p;

	(void)state;
	unsetenv("SOURCE_DATE_EPOCH");
	assert_int_equal(
	    parse(&p, ARGS("-c", "gzip", "-X", "level=3", "-b", "64K", "-B",
			   "8K", "-j", "3", "-Q", "5", "-d", "mode=0700,uid=5",
			   "-d", "gid=6,mtime=77", "-e", "-T", "-P", "-f", "-q",
			   "out.sqfs")),
	    0);
	assert_string_equal(p.output, "out.sqfs");
	assert_int_equal(p.wr.compressor.id, SQFS_COMP_GZIP);
	assert_int_equal(p.wr.compressor.opt.gzip.level, 3);
	assert_int_equal(p.wr.block_size, 65536);
	assert_int_equal(p.wr.compressor.block_size, 65536);
	assert_int_equal(p.wr.devblk_size, 8192);
	assert_int_equal(p.wr.num_jobs, 3);
	assert_int_equal(p.wr.max_backlog, 5);
	assert_int_equal(p.wr.default_mode, 0700);
	assert_int_equal(p.wr.default_uid, 5);
	assert_int_equal(p.wr.default_gid, 6);
	assert_int_equal(p.wr.default_mtime, 77);
	assert_int_equal(p.wr.mkfs_time, 77);
	assert_int_equal(p.wr.flags, SQFS_WRITER_EXPORTABLE |
					 SQFS_WRITER_NO_TAIL_PACKING |
					 SQFS_WRITER_NO_PROBE);
	assert_true(p.force);
	assert_true(p.quiet);
	assert_false(p.set_uid);
	packer_options_free(&p);

	/* the long names, and the owner overrides */
	assert_int_equal(
	    parse(&p, ARGS("--set-uid", "70000", "--set-gid", "9",
			   "--block-size", "4096", "--dev-block-size", "1024",
			   "--num-jobs", "1", "--queue-backlog", "2",
			   "--exportable", "--force", "--quiet", "x")),
	    0);
	assert_true(p.set_uid && p.set_gid);
	assert_int_equal(p.uid, 70000);
	assert_int_equal(p.gid, 9);
	assert_int_equal(p.wr.default_uid, 70000);
	assert_int_equal(p.wr.default_gid, 9);
	assert_int_equal(p.wr.block_size, 4096);
	packer_options_free(&p);

	assert_int_equal(parse(&p, ARGS("-u", "5", "--all-root", "x")), 0);
	assert_int_equal(p.uid, 0);
	assert_int_equal(p.gid, 0);
	assert_true(p.set_uid && p.set_gid);
	packer_options_free(&p);

	/* SOURCE_DATE_EPOCH, then -d on top */
	setenv("SOURCE_DATE_EPOCH", "1234", 1);
	assert_int_equal(parse(&p, ARGS("x")), 0);
	assert_int_equal(p.wr.default_mtime, 1234);
	assert_int_equal(p.wr.default_mode, 0755);
	packer_options_free(&p);
	assert_int_equal(parse(&p, ARGS("-d", "mtime=5", "x")), 0);
	assert_int_equal(p.wr.default_mtime, 5);
	packer_options_free(&p);
	setenv("SOURCE_DATE_EPOCH", "not a number", 1);
	assert_int_equal(parse(&p, ARGS("x")), 0);
	assert_int_equal(p.wr.default_mtime, 0);
	packer_options_free(&p);
	unsetenv("SOURCE_DATE_EPOCH");
}

static void test_refused(void **state)
{
	const char *const *bad[] = {
	    ARGS("-b", "3000", "x"),
	    ARGS("-b", "2M", "x"),
	    ARGS("-B", "512", "x"),
	    ARGS("-j", "0", "x"),
	    ARGS("-j", "many", "x"),
	    ARGS("-Q", "0", "x"),
	    ARGS("-u", "-1", "x"),
	    ARGS("-g", "4294967296", "x"),
	    ARGS("-d", "mode=8000", "x"),
	    ARGS("-d", "bogus=1", "x"),
	    ARGS("-c", "nosuch", "x"),
	    ARGS("-X", "level=99", "x"),
	    ARGS("a", "b"),
	    ARGS("--bogus", "x"),
	    ARGS("-b"),
	};
	packer_options_t p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
		if (parse(&p, bad[i]) != -1)
			fail_msg("case %zu (%s ...) accepted", i, bad[i][0]);
		packer_options_free(&p);
	}
	/* no output file */
	{
		static const char *const none[] = {NULL};

		assert_int_equal(parse(&p, none), -1);
		packer_options_free(&p);
	}
}

static void test_done(void **state)
{
	packer_options_t p;

	(void)state;
	helps = 0;
	assert_int_equal(parse(&p, ARGS("--help")), CLI_DONE);
	assert_int_equal(helps, 1);
	packer_options_free(&p);
	/* -X help needs no output file */
	assert_int_equal(parse(&p, ARGS("-c", "gzip", "-X", "help")), CLI_DONE);
	packer_options_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_option),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_done),
	};

	tool_set_name("packer");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
