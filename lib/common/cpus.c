/* SPDX-License-Identifier: MIT */
/*
 * cpus.c - how many CPUs this process may run on.
 */
#include "config.h"

#include "common/cpus.h"

#include <errno.h>
#include <sched.h>
#include <unistd.h>

unsigned int num_cpus(void)
{
	size_t ncpu;
	long online;

	/* the mask may need to be larger than cpu_set_t on big machines */
	for (ncpu = 1024; ncpu <= 65536; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t size = CPU_ALLOC_SIZE(ncpu);
		int count;

		if (set == NULL)
			break;
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0) {
			count = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			if (count > 0)
				return (unsigned int)count;
			break;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			break;
	}

	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (unsigned int)online : 1;
}
