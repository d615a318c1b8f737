/* SPDX-License-Identifier: MIT */
/*
 * print.h - how the tools talk to the user on stderr.
 *
 * Every message has the form "tool: what: why", so that a script's log
 * says which program complained and about which file or entry.
 */
#ifndef COMMON_PRINT_H
#define COMMON_PRINT_H

#include <stdarg.h>

#if defined(__GNUC__)
#define TOOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TOOL_PRINTF(a, b)
#endif

/* The program name the messages start with. */
void tool_set_name(const char *name);
const char *tool_get_name(void);

/* Print "tool: what: why" (or "tool: why" if what is NULL) on stderr. */
void tool_error(const char *what, const char *fmt, ...) TOOL_PRINTF(2, 3);

/*
 * Report a library error while writing image, found at entry (may be
 * NULL). An I/O error is the image's, not the entry's, and os_errno (errno
 * right after the failing call) tells why: "no space left on device"
 * rather than "input/output error". Any other error is told in words, the
 * library's (sqfs_writer_error) if not NULL.
 */
void tool_image_error(const char *image, const char *entry, int err,
		      int os_errno, const char *words);

/* The same for a problem the tool goes on after; the same form, so that
 * the text alone ("...; skipped") says that it goes on. */
void tool_warning(const char *what, const char *fmt, ...) TOOL_PRINTF(2, 3);

/* How many warnings tool_warning has printed (from any thread): a front
 * end that turns them into an exit status (unsquashfs's 2) counts them. */
unsigned int tool_warning_count(void);

/* Print the --version text of the tool named by tool_set_name. */
void tool_print_version(void);

/*
 * After getopt_long returned '?': say which option was unknown or lacks its
 * value. short_opts is the tool's getopt option string.
 */
void tool_bad_option(const char *short_opts, char *const argv[]);

/*
 * A function called before any message is printed, so that a progress
 * line on the terminal can be cleared first. NULL removes it.
 */
void tool_set_message_hook(void (*hook)(void *user), void *user);

#endif /* COMMON_PRINT_H */
