/* SPDX-License-Identifier: MIT */
/*
 * write_all.h - writing a whole buffer to a descriptor.
 */
#ifndef COMMON_WRITE_ALL_H
#define COMMON_WRITE_ALL_H

#include <stddef.h>

/*
 * Write all of size bytes to fd at its current position, going on after
 * a short write or EINTR. Returns 0, or -1 with errno set.
 */
int write_all(int fd, const void *data, size_t size);

#endif /* COMMON_WRITE_ALL_H */
