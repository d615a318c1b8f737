/* SPDX-License-Identifier: MIT */
/*
 * sort.c - mksquashfs's -sort file: where files' data goes in the image.
 *
 * A line is "PATH PRIORITY", PRIORITY from -32768 to 32767 (0 for files
 * no line names); files of higher priority are stored first, and a
 * directory's priority is that of every file below it. PATH names a file
 * on disk, found as mksquashfs finds it: from the current directory if it
 * starts with "/", "./" or "../"; else inside one of the source
 * directories, or failing that from the current directory (what
 * mksquashfs calls a mkisofs-style list, with a warning). A path found
 * nowhere is named in a warning and ignored; a line without a priority
 * ends the run. The object found is matched to the scanned entries by
 * device and inode, so that it is the same file however it was named.
 *
 * The engine packs lower priorities first: the priority is negated.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_disk_path(const char *p)
{
	return p[0] == '/' || strncmp(p, "./", 2) == 0 ||
	       strncmp(p, "../", 3) == 0;
}

/* Find path as mksquashfs does; 0 with *st, or -1 (warned). */
static int locate(const mk_options_t *opt, const char *path, struct stat *st,
		  bool *warned_mkisofs)
{
	char buf[PATH_MAX];

	if (is_disk_path(path))
		goto cwd;
	for (size_t i = 0; i < opt->source_count; ++i) {
		if (strcmp(opt->sources[i], "-") == 0)
			continue;
		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", opt->sources[i],
				     path) >= sizeof(buf))
			continue;
		if (lstat(buf, st) == 0)
			return 0;
	}
	if (lstat(path, st) == 0) {
		if (!*warned_mkisofs) {
			fputs("WARNING: Mkisofs style sortlist detected! "
			      "This is supported but please\nconvert to "
			      "mksquashfs style sortlist!\n",
			      stderr);
			*warned_mkisofs = true;
		}
		return 0;
	}
	goto missing;
cwd:
	if (lstat(path, st) == 0)
		return 0;
missing:
	fprintf(stderr,
		"Cannot stat sortlist entry \"%s\"\nThis is probably "
		"because you're using the wrong file\npath relative to the "
		"source directories.  Ignoring\n",
		path);
	return -1;
}

/* Give every file that is st (or below it, for a directory) priority. */
static void apply(gs_entries_t *entries, const struct stat *st,
		  int64_t priority)
{
	for (size_t i = 0; i < entries->count; ++i) {
		gs_entry_t *d = &entries->list[i];
		size_t len;

		if (d->root == GS_ROOT_NONE ||
		    d->st.dev != (uint64_t)st->st_dev ||
		    d->st.ino != (uint64_t)st->st_ino)
			continue;
		if (!S_ISDIR(d->st.mode)) {
			if (S_ISREG(d->st.mode) && !d->hard_link)
				d->priority = priority;
			continue;
		}
		len = strlen(d->path);
		for (size_t j = 0; j < entries->count; ++j) {
			gs_entry_t *f = &entries->list[j];

			if (!S_ISREG(f->st.mode) || f->hard_link)
				continue;
			if (len == 0 || (strncmp(f->path, d->path, len) == 0 &&
					 f->path[len] == '/'))
				f->priority = priority;
		}
	}
}

int mk_apply_sort_file(const mk_options_t *opt, const char *name,
		       gs_entries_t *entries)
{
	FILE *fp = fopen(name, "r");
	bool warned = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (fp == NULL) {
		fprintf(stderr,
			"FATAL ERROR: Failed to open sort file \"%s\" because "
			"%s\n",
			name, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		char *end, *prio;
		struct stat st;
		long v;

		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		end = line + len;
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (line[0] == '\0')
			continue;
		prio = strrchr(line, ' ');
		if (prio == NULL)
			prio = strrchr(line, '\t');
		errno = 0;
		v = prio != NULL ? strtol(prio + 1, &end, 10) : 0;
		if (prio == NULL || prio[1] == '\0' || *end != '\0' ||
		    errno != 0 || v < -32768 || v > 32767) {
			fprintf(stderr,
				"Sort file \"%s\", can't find priority in "
				"entry \"%s\", EOL or match failure\n"
				"FATAL ERROR: Failed to read sort file\n",
				name, line);
			ret = -1;
			break;
		}
		while (prio > line && (prio[-1] == ' ' || prio[-1] == '\t'))
			--prio;
		*prio = '\0';
		if (locate(opt, line, &st, &warned) == 0)
			apply(entries, &st, -(int64_t)v);
	}
	free(line);
	fclose(fp);
	return ret;
}
