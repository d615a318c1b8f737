/* SPDX-License-Identifier: MIT */
/*
 * report.c - what mksquashfs prints while and after it packs, in its
 * forms, since wrappers read them:
 *
 * - on stdout, unless -quiet: "Parallel mksquashfs: Using N processors"
 *   and "Creating 4.0 filesystem on DEST, block size N.";
 * - the progress bar on stdout, terminal or not (wrappers capture it),
 *   "\r[====|   ] done/total pct%" 79 columns wide (a terminal's width
 *   less one), counted in data blocks; gone with -no-progress, and with
 *   -info unless -progress;
 * - -percentage: the percentage alone, a line each time it changes
 *   (Apptainer and dialog --gauge read these);
 * - -info: a line per file written, "file /PATH, uncompressed size N
 *   bytes", and per directory, to stdout or -info-file;
 * - unless -quiet, the summary: the image's kind, compressor and block
 *   size, what is compressed, sizes and counts.
 */
#include "config.h"

#include "mksquashfs.h"
#include "sqfs/compressor.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct mk_report {
	const mk_options_t *opt;
	FILE *info;
	bool own_info;
	bool bar;
	int columns;
	int last_pct;
	unsigned int spin;
	uint64_t total_blocks;
	uint64_t total_bytes;
	bool drawn;
	/* counts for the summary */
	uint64_t files;
	uint64_t dirs;
	uint64_t symlinks;
	uint64_t devices;
	uint64_t fifos;
	uint64_t sockets;
	uint64_t hard_links;
	uint64_t file_bytes;
};

int mk_report_create(const mk_options_t *opt, mk_report_t **out)
{
	mk_report_t *r = calloc(1, sizeof(*r));
	struct winsize ws;

	*out = NULL;
	if (r == NULL)
		return -1;
	r->opt = opt;
	r->last_pct = -1;
	r->columns = 80;
	if (isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		r->columns = ws.ws_col;
	r->bar = !opt->no_progress && (!opt->info || opt->progress);
	if (opt->info_file != NULL) {
		r->info = fopen(opt->info_file, "w");
		if (r->info == NULL) {
			fprintf(stderr,
				"mksquashfs: cannot open -info-file "
				"\"%s\"\n",
				opt->info_file);
			free(r);
			return -1;
		}
		r->own_info = true;
	} else if (opt->info) {
		r->info = stdout;
	}
	*out = r;
	return 0;
}

void mk_report_destroy(mk_report_t *r)
{
	if (r == NULL)
		return;
	if (r->own_info)
		fclose(r->info);
	free(r);
}

void mk_report_start(mk_report_t *r)
{
	if (r->opt->quiet)
		return;
	printf("Parallel mksquashfs: Using %u processor%s\n",
	       r->opt->gs.pk.wr.num_jobs,
	       r->opt->gs.pk.wr.num_jobs == 1 ? "" : "s");
	printf("Creating 4.0 filesystem on %s, block size %u.\n", r->opt->dest,
	       r->opt->gs.pk.wr.block_size);
	fflush(stdout);
}

void mk_report_set_total(mk_report_t *r, uint64_t bytes, uint64_t blocks)
{
	r->total_bytes = bytes;
	r->total_blocks = blocks;
}

static void draw_bar(mk_report_t *r, uint64_t done, uint64_t total, int pct)
{
	static const char spinner[] = "|/-\\";
	char suffix[64];
	int width, filled;

	snprintf(suffix, sizeof(suffix), "] %llu/%llu %3d%%",
		 (unsigned long long)done, (unsigned long long)total, pct);
	width = r->columns - 2 - (int)strlen(suffix);
	if (width < 2)
		width = 2;
	filled = total > 0 ? (int)((uint64_t)(width - 1) * done / total) : 0;
	putchar('\r');
	putchar('[');
	for (int i = 0; i < filled; ++i)
		putchar('=');
	putchar(spinner[r->spin++ % 4]);
	for (int i = filled + 1; i < width; ++i)
		putchar(' ');
	fputs(suffix, stdout);
	fflush(stdout);
	r->drawn = true;
}

void mk_report_progress(void *user, uint64_t bytes, uint64_t total, bool last)
{
	mk_report_t *r = user;
	uint64_t done_blocks, total_blocks = r->total_blocks;
	int pct;

	(void)total;
	if (r->total_bytes == 0)
		done_blocks = last ? total_blocks : 0;
	else if (bytes >= r->total_bytes)
		done_blocks = total_blocks;
	else
		done_blocks =
		    (uint64_t)((double)total_blocks *
			       ((double)bytes / (double)r->total_bytes));
	if (last)
		done_blocks = total_blocks;
	pct = total_blocks > 0 ? (int)(done_blocks * 100 / total_blocks) : 100;
	if (r->opt->percentage) {
		if (r->opt->no_progress)
			return;
		if (pct != r->last_pct) {
			printf("%d\n", pct);
			r->last_pct = pct;
		}
		/* and an empty line after the last, as 4.7.5 ends it */
		if (last)
			putchar('\n');
		fflush(stdout);
		return;
	}
	if (!r->bar)
		return;
	draw_bar(r, done_blocks, total_blocks, pct);
	if (last) {
		putchar('\n');
		fflush(stdout);
	}
}

void mk_report_entry(mk_report_t *r, const gs_entry_t *e)
{
	uint32_t type = e->st.mode & S_IFMT;
	const char *slash;

	if (e->hard_link) {
		r->hard_links += 1;
		return;
	}
	switch (type) {
	case S_IFREG:
		r->files += 1;
		r->file_bytes += e->st.size;
		break;
	case S_IFDIR:
		r->dirs += 1;
		break;
	case S_IFLNK:
		r->symlinks += 1;
		break;
	case S_IFCHR:
	case S_IFBLK:
		r->devices += 1;
		break;
	case S_IFIFO:
		r->fifos += 1;
		break;
	default:
		r->sockets += 1;
		break;
	}
	if (r->info == NULL)
		return;
	/* sqfstar and -tar name archive paths as they are, mksquashfs
	 * names image paths from the root */
	slash = r->opt->tar ? "" : "/";
	if (type == S_IFREG)
		fprintf(r->info, "file %s%s, uncompressed size %llu bytes \n",
			slash, e->path, (unsigned long long)e->st.size);
	else if (type == S_IFDIR)
		fprintf(r->info, "directory %s%s\n", slash, e->path);
	else if (type == S_IFLNK)
		fprintf(r->info, "symbolic link %s%s\n", slash, e->path);
	else
		fprintf(r->info, "%s %s%s\n",
			type == S_IFIFO	   ? "fifo"
			: type == S_IFSOCK ? "socket"
					   : "device",
			slash, e->path);
}

static double kbytes(uint64_t n)
{
	return (double)n / 1024.0;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

void mk_report_summary(mk_report_t *r, const sqfs_writer_stats_t *st)
{
	const sqfs_writer_options_t *wr = &r->opt->gs.pk.wr;

	if (r->opt->quiet)
		return;
	printf("\n%sSquashfs 4.0 filesystem, %s compressed, data block size "
	       "%u\n",
	       (wr->flags & SQFS_WRITER_EXPORTABLE) ? "Exportable " : "",
	       sqfs_compressor_name(wr->compressor.id), wr->block_size);
	printf("\tcompressed data, compressed metadata, %s,\n"
	       "\tcompressed xattrs, compressed ids\n",
	       (wr->flags & SQFS_WRITER_NO_FRAGMENTS) ? "no fragments"
						      : "compressed fragments");
	printf("\t%s\n", r->opt->no_duplicates ? "duplicates are not removed"
					       : "duplicates are removed");
	printf("Filesystem size %.2f Kbytes (%.2f Mbytes)\n",
	       kbytes(st->bytes_written), kbytes(st->bytes_written) / 1024.0);
	printf("\t%.2f%% of uncompressed filesystem size (%.2f Kbytes)\n",
	       percent(st->bytes_written, r->file_bytes),
	       kbytes(r->file_bytes));
	printf("Inode table size %llu bytes (%.2f Kbytes)\n",
	       (unsigned long long)st->inode_table_bytes,
	       kbytes(st->inode_table_bytes));
	printf("Directory table size %llu bytes (%.2f Kbytes)\n",
	       (unsigned long long)st->directory_table_bytes,
	       kbytes(st->directory_table_bytes));
	printf("Number of duplicate blocks found %llu\n",
	       (unsigned long long)(st->duplicate_blocks +
				    st->duplicate_fragments));
	printf("Number of inodes %llu\n", (unsigned long long)st->inodes);
	printf("Number of files %llu\n", (unsigned long long)r->files);
	printf("Number of fragments %llu\n",
	       (unsigned long long)st->fragment_blocks);
	printf("Number of symbolic links %llu\n",
	       (unsigned long long)r->symlinks);
	printf("Number of device nodes %llu\n", (unsigned long long)r->devices);
	printf("Number of fifo nodes %llu\n", (unsigned long long)r->fifos);
	printf("Number of socket nodes %llu\n", (unsigned long long)r->sockets);
	printf("Number of directories %llu\n", (unsigned long long)r->dirs);
	printf("Number of hard-links %llu\n",
	       (unsigned long long)r->hard_links);
	printf("Number of ids (unique uids + gids) %llu\n",
	       (unsigned long long)st->ids);
	fflush(stdout);
}
