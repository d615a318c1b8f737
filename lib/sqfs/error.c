/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "sqfs/error.h"

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
	default:
		return "unknown error";
	}
}
