/* SPDX-License-Identifier: MIT */
/*
 * write_all.c - writing a whole buffer to a descriptor.
 */
#include "config.h"

#include "common/write_all.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

int write_all(int fd, const void *data, size_t size)
{
	const uint8_t *p = data;

	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}
