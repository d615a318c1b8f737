/* SPDX-License-Identifier: MIT */
/*
 * defaults.h - attributes of entries the input does not describe: the
 * root and directories created implicitly (--defaults), and the time used
 * where none is kept (SOURCE_DATE_EPOCH).
 */
#ifndef COMMON_DEFAULTS_H
#define COMMON_DEFAULTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t uid;
	uint32_t gid;
	/* permission bits, up to 07777 */
	uint16_t mode;
	uint32_t mtime;
} tool_defaults_t;

/*
 * Apply a --defaults argument, "uid=N,gid=N,mode=OCTAL,mtime=N", to d.
 * Keys not named keep their value. On failure returns -1 and writes a
 * reason naming the offending item into err; d may be partly changed.
 */
int defaults_parse(tool_defaults_t *d, const char *str, char *err,
		   size_t errsize);

/*
 * Interpret the value of SOURCE_DATE_EPOCH (NULL if unset): a decimal
 * number of seconds that fits 32 bits. *out is 0 if unset or invalid.
 * Returns 0, or -1 if the value is set but invalid (the caller warns).
 */
int source_date_epoch(const char *value, uint32_t *out);

#endif /* COMMON_DEFAULTS_H */
