/* SPDX-License-Identifier: MIT */
/*
 * mode_string.c - a mode as ls -l writes it.
 */
#include "config.h"

#include "common/mode_string.h"

#include <sys/stat.h>

static char type_char(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return 'd';
	case S_IFREG:
		return '-';
	case S_IFLNK:
		return 'l';
	case S_IFBLK:
		return 'b';
	case S_IFCHR:
		return 'c';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	default:
		return '?';
	}
}

/* x, or the special bit's letter over it: lower case where x is set */
static char exec_char(uint32_t mode, uint32_t x, uint32_t special, char c)
{
	if (mode & special)
		return (mode & x) ? c : (char)(c - 'a' + 'A');
	return (mode & x) ? 'x' : '-';
}

void mode_string(uint32_t m, char out[11])
{
	out[0] = type_char(m);
	out[1] = (m & 0400) ? 'r' : '-';
	out[2] = (m & 0200) ? 'w' : '-';
	out[3] = exec_char(m, 0100, 04000, 's');
	out[4] = (m & 040) ? 'r' : '-';
	out[5] = (m & 020) ? 'w' : '-';
	out[6] = exec_char(m, 010, 02000, 's');
	out[7] = (m & 04) ? 'r' : '-';
	out[8] = (m & 02) ? 'w' : '-';
	out[9] = exec_char(m, 01, 01000, 't');
	out[10] = '\0';
}
