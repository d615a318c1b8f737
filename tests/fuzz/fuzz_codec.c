/* SPDX-License-Identifier: MIT */
/*
 * fuzz_codec.c - libFuzzer target for the compressors' untrusted inputs:
 * the blocks they decompress (which come from images) and the option
 * strings they parse (which come from the tools' command lines).
 *
 * Input: byte 0 chooses what is fuzzed (even: decompression, odd: an
 * option string), byte 1 the compressor (its id, 1..6, modulo), byte 2
 * the block size (4 KiB << (byte % 9)); the rest is the block or the
 * string. A finding is a sanitizer report or a broken promise, turned
 * into an abort:
 *   - decompression claims more bytes than the output buffer holds;
 *   - an option string is accepted but the settings fail validation, or
 *     do not survive being formatted and parsed again.
 * Any error code is a fine answer.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int id)
{
	fprintf(stderr, "fuzz_codec: %s (%s)\n", what,
		sqfs_compressor_name(id));
	abort();
}

static void fuzz_block(const sqfs_compressor_config_t *cfg, const uint8_t *in,
		       size_t size)
{
	sqfs_compressor_t *cmp;
	uint8_t *out;
	ptrdiff_t ret;

	if (sqfs_compressor_create(cfg, &cmp) != 0)
		return;
	out = malloc(cfg->block_size);
	if (out != NULL) {
		ret = sqfs_compressor_uncompress(cmp, in, size, out,
						 cfg->block_size);
		if (ret > (ptrdiff_t)cfg->block_size)
			fail("decompressed more than the buffer holds",
			     cfg->id);
	}
	free(out);
	sqfs_compressor_destroy(cmp);
}

static void fuzz_options(sqfs_compressor_config_t *cfg, const uint8_t *in,
			 size_t size)
{
	sqfs_compressor_config_t again = *cfg;
	char *text, buf[256], err[128];

	text = malloc(size + 1);
	if (text == NULL)
		return;
	memcpy(text, in, size);
	text[size] = '\0';

	if (sqfs_compressor_config_parse(cfg, text, err, sizeof(err)) == 0) {
		if (sqfs_compressor_config_validate(cfg) != 0)
			fail("accepted options that do not validate", cfg->id);
		if (sqfs_compressor_config_format(cfg, buf, sizeof(buf)) < 0)
			fail("accepted options that cannot be formatted",
			     cfg->id);
		if (sqfs_compressor_config_parse(&again, buf, err,
						 sizeof(err)) != 0 ||
		    memcmp(&again, cfg, sizeof(again)) != 0)
			fail("formatted options do not parse back the same",
			     cfg->id);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sqfs_compressor_config_t cfg;
	int id;

	if (size < 3)
		return 0;
	id = SQFS_COMP_MIN + data[1] % (SQFS_COMP_MAX - SQFS_COMP_MIN + 1);
	if (!sqfs_compressor_is_available(id))
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	if (sqfs_compressor_config_init(&cfg, (sqfs_compressor_id_t)id,
					4096u << (data[2] % 9), 0) != 0)
		return 0;

	if (data[0] % 2 == 0)
		fuzz_block(&cfg, data + 3, size - 3);
	else
		fuzz_options(&cfg, data + 3, size - 3);
	return 0;
}
