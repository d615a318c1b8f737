/* SPDX-License-Identifier: MIT */
/*
 * selinux.c - SELinux labels from a file_contexts file (--selinux).
 *
 * libselinux does the matching (selabel_open with the file contexts
 * back end, selabel_lookup per entry, by its path from the root and its
 * file type), as setfiles and restorecon would label the same tree; the
 * label becomes the entry's security.selinux xattr, with its terminating
 * NUL as the kernel stores it. An entry no line matches (or one labelled
 * <<none>>) gets none. An --xattr-file read after it may replace a label.
 *
 * libselinux prints its complaints about the file itself, through a log
 * callback ("FILE:  line N has invalid ..."). The callback here keeps
 * the first error instead, and it is said once, in the form of every
 * other input file's errors: "gensquashfs: FILE:LINE: what".
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_SELINUX
#include <selinux/label.h>
#include <selinux/selinux.h>

/* libselinux's first error message while the file is loaded */
static char first_error[1024];

static int log_cb(int type, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int log_cb(int type, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (type != SELINUX_ERROR || first_error[0] != '\0')
		return 0;
	va_start(ap, fmt);
	vsnprintf(first_error, sizeof(first_error), fmt, ap);
	va_end(ap);
	n = strlen(first_error);
	while (n > 0 && first_error[n - 1] == '\n')
		first_error[--n] = '\0';
	return 0;
}

/* Say why file did not load: libselinux's words, as FILE:LINE: what
 * when they name a line of it. */
static void load_failed(const char *file, int os_errno)
{
	const char *p;
	unsigned long line;
	char *end;

	p = strstr(first_error, ":  line ");
	if (p != NULL && strncmp(first_error, file, strlen(file)) == 0 &&
	    first_error + strlen(file) == p) {
		line = strtoul(p + strlen(":  line "), &end, 10);
		if (end != p + strlen(":  line ") && *end == ' ') {
			end += 1;
			if (strncmp(end, "has ", 4) == 0)
				end += 4;
			gs_text_error(file, (size_t)line, "%s", end);
			return;
		}
	}
	if (first_error[0] != '\0')
		tool_error(file, "cannot load file contexts: %s", first_error);
	else
		tool_error(file, "cannot load file contexts: %s",
			   strerror(os_errno));
}

int gs_apply_selinux(const char *file, gs_entries_t *entries)
{
	struct selinux_opt opts[] = {{SELABEL_OPT_PATH, file}};
	union selinux_callback cb;
	struct selabel_handle *h;
	int ret = 0;

	first_error[0] = '\0';
	cb.func_log = log_cb;
	selinux_set_callback(SELINUX_CB_LOG, cb);
	h = selabel_open(SELABEL_CTX_FILE, opts, 1);
	if (h == NULL) {
		load_failed(file, errno);
		return -1;
	}
	for (size_t i = 0; ret == 0 && i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];
		char *path, *con = NULL, *key;
		uint8_t *value;
		size_t len;

		/* a hard link's inode is its target's, labelled there */
		if (e->hard_link)
			continue;
		path = malloc(strlen(e->path) + 2);
		if (path == NULL)
			goto oom;
		path[0] = '/';
		strcpy(path + 1, e->path);
		if (selabel_lookup(h, &con, path, (int)(e->st.mode & S_IFMT)) !=
		    0) {
			if (errno != ENOENT) {
				if (first_error[0] != '\0')
					load_failed(file, errno);
				else
					tool_error(path,
						   "looking up its label: %s",
						   strerror(errno));
				ret = -1;
			}
			free(path);
			continue;
		}
		free(path);
		len = strlen(con) + 1;
		value = malloc(len);
		key = strdup("security.selinux");
		if (value == NULL || key == NULL) {
			free(value);
			free(key);
			freecon(con);
			goto oom;
		}
		memcpy(value, con, len);
		freecon(con);
		if (gs_entry_set_xattr(e, key, value, len) != 0)
			goto oom;
	}
	selabel_close(h);
	return ret;
oom:
	selabel_close(h);
	tool_error(NULL, "out of memory");
	return -1;
}
#else
int gs_apply_selinux(const char *file, gs_entries_t *entries)
{
	(void)entries;
	tool_error(file, "this build of gensquashfs has no SELinux support "
			 "(configure found no libselinux)");
	return -1;
}
#endif
