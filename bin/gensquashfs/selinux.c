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
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_SELINUX
#include <selinux/label.h>
#include <selinux/selinux.h>

int gs_apply_selinux(const char *file, gs_entries_t *entries)
{
	struct selinux_opt opts[] = {{SELABEL_OPT_PATH, file}};
	struct selabel_handle *h;
	int ret = 0;

	h = selabel_open(SELABEL_CTX_FILE, opts, 1);
	if (h == NULL) {
		tool_error(file, "cannot load file contexts: %s",
			   strerror(errno));
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
				tool_error(path, "looking up its label: %s",
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
