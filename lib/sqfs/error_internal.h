/* SPDX-License-Identifier: MIT */
/*
 * error_internal.h - the words of an object's last failure.
 *
 * Objects that users call (the writer, and an image with the readers made
 * from it) keep the text of their last failure, so that a tool can tell
 * its user what went wrong and where without knowing the library's rules.
 *
 * The protocol, per public call: sqfs_errtext_begin at its start; the code
 * that finds a fault describes it with sqfs_errtext_set; every failing
 * exit passes its code through sqfs_errtext_end, which keeps a description
 * set during the call and otherwise writes the call's context and the
 * code's phrase. So the text never describes an earlier failure, and a
 * failure that nobody described still says where it happened.
 */
#ifndef SQFS_ERROR_INTERNAL_H
#define SQFS_ERROR_INTERNAL_H

#include "sqfs/error.h"

#include <stdbool.h>

typedef struct {
	char text[SQFS_ERROR_TEXT_SIZE];
	/* text describes a failure of the current call */
	bool fresh;
} sqfs_errtext_t;

#define SQFS_ERRTEXT_PRINTF(a, b) __attribute__((format(printf, a, b)))

static inline void sqfs_errtext_begin(sqfs_errtext_t *e)
{
	e->fresh = false;
}

/* Describe a fault (printf-style); returns code, for `return set(...)`. */
int sqfs_errtext_set(sqfs_errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/*
 * The exit of a public call: code 0 passes. A negative code keeps words
 * set during the call, or gets "CONTEXT: phrase of code" (just the phrase
 * if fmt is NULL). Returns code.
 */
int sqfs_errtext_end(sqfs_errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/*
 * Say where a failure happened: words set during the call become
 * "CONTEXT: words"; without any, "CONTEXT: phrase of code". Returns code
 * (0 passes untouched).
 */
int sqfs_errtext_wrap(sqfs_errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/* Copy the words into a caller's buffer of SQFS_ERROR_TEXT_SIZE bytes. */
void sqfs_errtext_copy(const sqfs_errtext_t *e, char *out);

#endif /* SQFS_ERROR_INTERNAL_H */
