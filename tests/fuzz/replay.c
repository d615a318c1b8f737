/* SPDX-License-Identifier: MIT */
/*
 * replay.c - run the fuzz target over files, without libFuzzer.
 *
 * Usage: PROGRAM [FILE|DIR...]; without arguments, every file of the seed
 * corpus FUZZ_CORPUS_DIR. Linked with one target: fuzz_replay with the
 * image reader's (corpus tests/fuzz/corpus), fuzz_tar_replay with the tar
 * reader's (tests/fuzz/corpus-tar). Built by make check with the normal
 * compiler, so the targets keep compiling and every input ever committed
 * to a corpus (seeds and fixed crashers) stays a regression test.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	uint8_t *buf = NULL;
	long size;
	FILE *fp = fopen(path, "rb");

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 ||
	    (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0)
		goto fail;
	buf = malloc(size > 0 ? (size_t)size : 1);
	if (buf == NULL || fread(buf, 1, (size_t)size, fp) != (size_t)size)
		goto fail;
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
fail:
	perror(path);
	if (fp != NULL)
		fclose(fp);
	free(buf);
	return -1;
}

static int run_path(const char *path, unsigned int *count)
{
	struct dirent *ent;
	struct stat sb;
	char sub[4096];
	DIR *dir;
	int ret = 0;

	if (stat(path, &sb) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		*count += 1;
		return run_file(path);
	}
	dir = opendir(path);
	if (dir == NULL) {
		perror(path);
		return -1;
	}
	while ((ent = readdir(dir)) != NULL) {
		if (ent->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, ent->d_name);
		if (run_path(sub, count) != 0)
			ret = -1;
	}
	closedir(dir);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int i, ret = 0;

	if (argc < 2)
		ret = run_path(FUZZ_CORPUS_DIR, &count);
	for (i = 1; i < argc; ++i) {
		if (run_path(argv[i], &count) != 0)
			ret = -1;
	}
	printf("%s: %u inputs\n", argv[0], count);
	return ret == 0 && count > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
