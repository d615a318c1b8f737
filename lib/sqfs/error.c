/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/error_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sqfs_error_string(int code)
{
	switch (code) {
	case SQFS_OK:
		return "success";
	case SQFS_ERROR_ALLOC:
		return "out of memory";
	case SQFS_ERROR_IO:
		return "input/output error";
	case SQFS_ERROR_COMPRESSOR:
		return "compressor failed";
	case SQFS_ERROR_INTERNAL:
		return "internal error";
	case SQFS_ERROR_CORRUPTED:
		return "data corrupted";
	case SQFS_ERROR_UNSUPPORTED:
		return "unsupported";
	case SQFS_ERROR_OVERFLOW:
		return "value too large";
	case SQFS_ERROR_OUT_OF_BOUNDS:
		return "offset or index out of bounds";
	case SQFS_ERROR_SUPER_MAGIC:
		return "not a SquashFS image (bad magic)";
	case SQFS_ERROR_SUPER_VERSION:
		return "unsupported SquashFS version";
	case SQFS_ERROR_SUPER_BLOCK_SIZE:
		return "invalid block size";
	case SQFS_ERROR_ARG_INVALID:
		return "invalid argument";
	case SQFS_ERROR_SEQUENCE:
		return "operation out of sequence";
	case SQFS_ERROR_TRUNCATED:
		return "unexpected end of data";
	case SQFS_ERROR_LIMIT:
		return "format limit exceeded";
	case SQFS_ERROR_NOT_DIR:
		return "not a directory";
	case SQFS_ERROR_NO_ENTRY:
		return "no such entry";
	case SQFS_ERROR_LOOP:
		return "loop detected";
	case SQFS_ERROR_NOT_FILE:
		return "not a regular file";
	case SQFS_ERROR_EXISTS:
		return "entry exists";
	case SQFS_ERROR_CHANGED:
		return "changed while it was read";
	case SQFS_ERROR_ABORTED:
		return "stopped by the program";
	default:
		return "unknown error";
	}
}

int errtext_set(errtext_t *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->fresh = true;
	return code;
}

int errtext_end(errtext_t *e, int code, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (code >= 0)
		return code;
	if (e->fresh)
		return code;

	if (fmt != NULL) {
		va_start(ap, fmt);
		n = vsnprintf(e->text, sizeof(e->text), fmt, ap);
		va_end(ap);
		if (n < 0)
			n = 0;
	}
	if ((size_t)n < sizeof(e->text)) {
		snprintf(e->text + n, sizeof(e->text) - (size_t)n, "%s%s",
			 n > 0 ? ": " : "", sqfs_error_string(code));
	}
	e->fresh = true;
	return code;
}

int errtext_wrap(errtext_t *e, int code, const char *fmt, ...)
{
	char inner[sizeof(e->text)];
	va_list ap;
	int n;

	if (code >= 0)
		return code;
	if (e->fresh)
		memcpy(inner, e->text, sizeof(inner));
	else
		snprintf(inner, sizeof(inner), "%s", sqfs_error_string(code));

	va_start(ap, fmt);
	n = vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(e->text))
		snprintf(e->text + n, sizeof(e->text) - (size_t)n, ": %s",
			 inner);
	e->fresh = true;
	return code;
}

void errtext_copy(const errtext_t *e, char *out)
{
	memcpy(out, e->text, sizeof(e->text));
}

int errtext_keep(const errtext_t *e, errtext_kept_t *k, int code)
{
	k->code = code;
	memcpy(k->text, e->text, sizeof(k->text));
	return code;
}

int errtext_repeat(errtext_t *e, const errtext_kept_t *k)
{
	if (k->code == 0)
		return 0;
	return errtext_set(e, k->code, "%s", k->text);
}
