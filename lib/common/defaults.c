/* SPDX-License-Identifier: MIT */
/*
 * defaults.c - --defaults and SOURCE_DATE_EPOCH.
 */
#include "config.h"

#include "common/defaults.h"
#include "common/parse.h"

#include <stdio.h>
#include <string.h>

int defaults_parse(tool_defaults_t *d, const char *str, char *err,
		   size_t errsize)
{
	char item[64];

	for (;;) {
		size_t len = strcspn(str, ",");
		const char *value, *why;
		uint64_t num;

		if (len >= sizeof(item)) {
			snprintf(err, errsize, "'%.*s...': too long", 20, str);
			return -1;
		}
		memcpy(item, str, len);
		item[len] = '\0';

		value = strchr(item, '=');
		if (value == NULL) {
			snprintf(err, errsize, "'%s': expected key=value",
				 item);
			return -1;
		}
		++value;

		if (strncmp(item, "uid=", 4) == 0) {
			why = parse_uint(value, UINT32_MAX, &num);
			if (why == NULL)
				d->uid = (uint32_t)num;
		} else if (strncmp(item, "gid=", 4) == 0) {
			why = parse_uint(value, UINT32_MAX, &num);
			if (why == NULL)
				d->gid = (uint32_t)num;
		} else if (strncmp(item, "mode=", 5) == 0) {
			why = parse_octal(value, 07777, &num);
			if (why == NULL)
				d->mode = (uint16_t)num;
		} else if (strncmp(item, "mtime=", 6) == 0) {
			why = parse_uint(value, UINT32_MAX, &num);
			if (why == NULL)
				d->mtime = (uint32_t)num;
		} else {
			snprintf(err, errsize,
				 "'%s': unknown key (uid, gid, mode or mtime)",
				 item);
			return -1;
		}

		if (why != NULL) {
			snprintf(err, errsize, "'%s': %s", item, why);
			return -1;
		}

		if (str[len] == '\0')
			break;
		str += len + 1;
	}
	return 0;
}

int source_date_epoch(const char *value, uint32_t *out)
{
	uint64_t num;

	*out = 0;
	if (value == NULL)
		return 0;
	if (parse_uint(value, UINT32_MAX, &num) != NULL)
		return -1;
	*out = (uint32_t)num;
	return 0;
}
