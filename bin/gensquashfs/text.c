/* SPDX-License-Identifier: MIT */
/*
 * text.c - what the line-based input files (pack files, sort files) share:
 * reading them line by line with numbers, blank lines and '#' comments
 * skipped; complaints as "FILE:LINE: why"; double-quoted strings.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int gs_text_verror(const char *name, size_t line, const char *fmt, va_list ap)
{
	char where[4096 + 32], why[1024];

	vsnprintf(why, sizeof(why), fmt, ap);
	snprintf(where, sizeof(where), "%s:%zu", name, line);
	tool_error(where, "%s", why);
	return -1;
}

FILE *gs_text_open(const char *name)
{
	FILE *fp = fopen(name, "r");

	if (fp == NULL)
		tool_error(name, "%s", strerror(errno));
	return fp;
}

static int read_lines(FILE *fp, const char *name, bool comments,
		      int (*fn)(void *user, size_t line, char *text),
		      void *user)
{
	char *buf = NULL;
	size_t cap = 0, line = 0;
	ssize_t len;
	int ret = 0;

	while (ret == 0 && (len = getline(&buf, &cap, fp)) >= 0) {
		char *p = buf;

		line += 1;
		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (memchr(buf, '\0', (size_t)len) != NULL) {
			ret =
			    gs_text_error(name, line, "a NUL byte in the line");
			break;
		}
		p += strspn(p, " \t");
		if (*p == '\0' || (comments && *p == '#'))
			continue;
		ret = fn(user, line, p);
	}
	if (ret == 0 && ferror(fp)) {
		tool_error(name, "%s", strerror(errno));
		ret = -1;
	}
	free(buf);
	return ret;
}

int gs_text_lines(FILE *fp, const char *name,
		  int (*fn)(void *user, size_t line, char *text), void *user)
{
	return read_lines(fp, name, true, fn, user);
}

int gs_text_lines_all(FILE *fp, const char *name,
		      int (*fn)(void *user, size_t line, char *text),
		      void *user)
{
	return read_lines(fp, name, false, fn, user);
}

int gs_text_error(const char *name, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_text_verror(name, line, fmt, ap);
	va_end(ap);
	return -1;
}

int gs_text_unquote(char **p, char **out)
{
	char *in = *p + 1, *o = in;

	*out = o;
	for (;;) {
		if (*in == '\0')
			return 1;
		if (*in == '"')
			break;
		if (*in == '\\' && (in[1] == '"' || in[1] == '\\'))
			++in;
		*o++ = *in++;
	}
	*o = '\0';
	*p = in + 1;
	return 0;
}
