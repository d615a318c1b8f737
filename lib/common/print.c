/* SPDX-License-Identifier: MIT */
/*
 * print.c - how the tools talk to the user on stderr.
 */
#include "config.h"

#include "common/print.h"
#include "sqfs/error.h"

#include <getopt.h>
#include <string.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static const char *tool_name = "squashforge";
/* warnings printed so far, by any thread */
static atomic_uint warning_count;
static void (*message_hook)(void *user);
static void *message_hook_user;

void tool_set_name(const char *name)
{
	tool_name = name;
}

const char *tool_get_name(void)
{
	return tool_name;
}

void tool_set_message_hook(void (*hook)(void *user), void *user)
{
	message_hook = hook;
	message_hook_user = user;
}

static void vmessage(const char *what, const char *fmt, va_list ap)
{
	/* one write per line, so that output of several processes does
	 * not interleave within a line; as long as it takes (a path may be
	 * longer than any fixed buffer), cut only if memory runs out */
	char small[1024], *line = small;
	size_t size = sizeof(small), n;
	va_list copy;
	int len;

	if (message_hook != NULL)
		message_hook(message_hook_user);

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	n = strlen(tool_name) + 2 + (what != NULL ? strlen(what) + 2 : 0) +
	    (len > 0 ? (size_t)len : 0) + 2;
	if (n > size) {
		char *big = malloc(n);

		if (big != NULL) {
			line = big;
			size = n;
		}
	}
	len = snprintf(line, size, "%s: ", tool_name);
	n = len > 0 ? (size_t)len : 0;
	if (n < size && what != NULL) {
		len = snprintf(line + n, size - n, "%s: ", what);
		n += len > 0 ? (size_t)len : 0;
	}
	if (n < size)
		vsnprintf(line + n, size - n, fmt, ap);
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
	if (line != small)
		free(line);
}

void tool_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(what, fmt, ap);
	va_end(ap);
}

void tool_image_error(const char *image, const char *entry, int err,
		      int os_errno, const char *words)
{
	/* an I/O error of the image's file says why in errno; one of the
	 * library's temporary files (a full $TMPDIR) says it in words */
	if (err == SQFS_ERROR_IO && os_errno != 0 &&
	    (words == NULL || strstr(words, "temporary file") == NULL)) {
		if (entry != NULL)
			tool_error(image, "writing failed (at %s): %s", entry,
				   strerror(os_errno));
		else
			tool_error(image, "writing failed: %s",
				   strerror(os_errno));
		return;
	}
	tool_error(entry != NULL ? entry : image, "%s",
		   words != NULL ? words : sqfs_error_string(err));
}

unsigned int tool_warning_count(void)
{
	return atomic_load(&warning_count);
}

void tool_warning(const char *what, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&warning_count, 1);
	va_start(ap, fmt);
	vmessage(what, fmt, ap);
	va_end(ap);
}

void tool_bad_option(const char *short_opts, char *const argv[])
{
	/* optopt is the option that lacks its value (its short name, for long
	 * ones too), or 0 for an unknown long option */
	if (optopt > 0 && optopt < 256 && strchr(short_opts, optopt) != NULL)
		tool_error(argv[optind - 1], "needs a value");
	else if (optopt > 0 && optopt < 256)
		tool_error(NULL, "unknown option -%c", optopt);
	else
		tool_error(argv[optind - 1], "unknown option");
}

void tool_print_version(void)
{
	printf("%s (%s) %s\n"
	       "License MIT: <https://opensource.org/licenses/MIT>.\n"
	       "This is free software: you are free to change and "
	       "redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       tool_get_name(), PACKAGE_NAME, PACKAGE_VERSION);
}
