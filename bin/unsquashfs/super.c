/* SPDX-License-Identifier: MIT */
/*
 * super.c - -s / -stat and -fstime: the superblock in 4.7.5's words.
 *
 * Scripts (the Snap store's review tools among them) parse these lines,
 * so they are 4.7.5's to the byte, as found by running it on images of
 * every compressor and flag: one line per flag pair, the compressor's
 * options only when the image stores an options block.
 */
#include "config.h"

#include "unsquashfs.h"
#include "sqfs/compressor.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *comp_name(uint16_t id)
{
	switch (id) {
	case SQFS_COMP_GZIP:
		return "gzip";
	case SQFS_COMP_LZMA:
		return "lzma";
	case SQFS_COMP_LZO:
		return "lzo";
	case SQFS_COMP_XZ:
		return "xz";
	case SQFS_COMP_LZ4:
		return "lz4";
	case SQFS_COMP_ZSTD:
		return "zstd";
	default:
		return "unknown";
	}
}

/* Names of set bits, ", " between them, from the lowest bit up. */
static void print_bits(unsigned int bits, const char *const *names,
		       size_t count)
{
	const char *sep = "";

	for (size_t i = 0; i < count; ++i) {
		if (bits & (1u << i)) {
			printf("%s%s", sep, names[i]);
			sep = ", ";
		}
	}
	printf("\n");
}

static void print_comp_options(const uq_ctx_t *ctx)
{
	static const char *const strategies[] = {"default", "filtered",
						 "huffman_only",
						 "run_length_encoded", "fixed"};
	static const char *const filters[] = {"x86",   "powerpc",  "ia64",
					      "arm",   "armthumb", "sparc",
					      "arm64", "riscv"};
	static const char *const lzo_algs[] = {
	    "lzo1x_1", "lzo1x_1_11", "lzo1x_1_12", "lzo1x_1_15", "lzo1x_999"};
	sqfs_compressor_config_t cfg;

	sqfs_image_compressor_config(ctx->img, &cfg);
	switch (cfg.id) {
	case SQFS_COMP_GZIP:
		printf("\tcompression-level %u\n", cfg.opt.gzip.level);
		printf("\twindow-size %u\n", cfg.opt.gzip.window_size);
		printf("\tStrategies selected: ");
		if (cfg.opt.gzip.strategies == 0)
			printf("default\n");
		else
			print_bits(cfg.opt.gzip.strategies, strategies, 5);
		break;
	case SQFS_COMP_XZ:
		printf("\tDictionary size %u\n", cfg.opt.xz.dict_size);
		if (cfg.opt.xz.filters == 0) {
			printf("\tNo filters specified\n");
		} else {
			printf("\tFilters selected: ");
			print_bits(cfg.opt.xz.filters, filters, 8);
		}
		break;
	case SQFS_COMP_LZO:
		if (cfg.opt.lzo.algorithm <= SQFS_LZO1X_999)
			printf("\talgorithm %s\n",
			       lzo_algs[cfg.opt.lzo.algorithm]);
		if (cfg.opt.lzo.algorithm == SQFS_LZO1X_999)
			printf("\tcompression level %u\n", cfg.opt.lzo.level);
		break;
	case SQFS_COMP_LZ4:
		if (cfg.opt.lz4.flags & SQFS_LZ4_HC)
			printf("\tHigh Compression option specified (-Xhc)\n");
		break;
	case SQFS_COMP_ZSTD:
		printf("\tcompression-level %u\n", cfg.opt.zstd.level);
		break;
	default:
		break;
	}
}

/* The count field of the xattr id table's header (after the u64 start of
 * the key/value area): 0 for an image without the table. The header was
 * checked when the image was opened. */
static unsigned int xattr_id_count(const uq_ctx_t *ctx)
{
	const sqfs_super_t *s = sqfs_image_super(ctx->img);
	uint8_t raw[4];

	if (s->xattr_id_table_start == SQFS_TABLE_ABSENT ||
	    ctx->view->read_at(ctx->view, s->xattr_id_table_start + 8, raw,
			       sizeof(raw)) != 0)
		return 0;
	return (unsigned int)raw[0] | (unsigned int)raw[1] << 8 |
	       (unsigned int)raw[2] << 16 | (unsigned int)raw[3] << 24;
}

static const char *un(const sqfs_super_t *s, uint16_t flag)
{
	return (s->flags & flag) ? "un" : "";
}

int uq_print_super(uq_ctx_t *ctx)
{
	const sqfs_super_t *s = sqfs_image_super(ctx->img);
	time_t t = (time_t)s->modification_time;
	char when[64] = "";
	struct tm tm;

	/* ctime's form, in the local zone (or UTC with -UTC) */
	if ((ctx->opt->utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) != NULL)
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);

	printf("Found a valid SQUASHFS 4:0 superblock on %s.\n",
	       ctx->opt->image);
	printf("Creation or last append time %s\n", when);
	printf("Filesystem size %llu bytes (%.2f Kbytes / %.2f Mbytes)\n",
	       (unsigned long long)s->bytes_used, s->bytes_used / 1024.0,
	       s->bytes_used / (1024.0 * 1024.0));
	printf("Compression %s\n", comp_name(s->compression_id));
	if (s->flags & SQFS_FLAG_COMPRESSOR_OPTIONS)
		print_comp_options(ctx);
	printf("Block size %u\n", s->block_size);
	printf("Filesystem is %sexportable via NFS\n",
	       (s->flags & SQFS_FLAG_EXPORTABLE) ? "" : "not ");
	printf("Inodes are %scompressed\n",
	       un(s, SQFS_FLAG_UNCOMPRESSED_INODES));
	printf("Data is %scompressed\n", un(s, SQFS_FLAG_UNCOMPRESSED_DATA));
	/* mksquashfs -noI stores the ids raw too without saying so: 4.7.5
	 * takes either flag as uncompressed ids */
	printf("Uids/Gids (Id table) are %scompressed\n",
	       (s->flags &
		(SQFS_FLAG_UNCOMPRESSED_IDS | SQFS_FLAG_UNCOMPRESSED_INODES))
		   ? "un"
		   : "");
	if (s->flags & SQFS_FLAG_NO_FRAGMENTS) {
		printf("Fragments are not stored\n");
	} else {
		printf("Fragments are %scompressed\n",
		       un(s, SQFS_FLAG_UNCOMPRESSED_FRAGMENTS));
		printf("Tailends are %spacked into fragments\n",
		       (s->flags & SQFS_FLAG_ALWAYS_FRAGMENTS) ? "" : "not ");
	}
	if (s->flags & SQFS_FLAG_NO_XATTRS)
		printf("Xattrs are not stored\n");
	else
		printf("Xattrs are %scompressed\n",
		       un(s, SQFS_FLAG_UNCOMPRESSED_XATTRS));
	printf("Duplicates are %sremoved\n",
	       (s->flags & SQFS_FLAG_DEDUPLICATED) ? "" : "not ");
	printf("Number of fragments %u\n", s->fragment_entry_count);
	printf("Number of inodes %u\n", s->inode_count);
	printf("Number of ids %u\n", s->id_count);
	if (!(s->flags & SQFS_FLAG_NO_XATTRS))
		printf("Number of xattr ids %u\n", xattr_id_count(ctx));
	return 0;
}

int uq_print_fstime(uq_ctx_t *ctx)
{
	printf("%u\n", sqfs_image_super(ctx->img)->modification_time);
	return 0;
}
