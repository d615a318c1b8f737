/* SPDX-License-Identifier: MIT */
/*
 * cpus.h - how many CPUs this process may run on (the default of -j).
 */
#ifndef COMMON_CPUS_H
#define COMMON_CPUS_H

/* The CPUs in this process's affinity mask (which containers and
 * taskset restrict), else the CPUs online; at least 1. */
unsigned int num_cpus(void);

#endif /* COMMON_CPUS_H */
