/* SPDX-License-Identifier: MIT */
/*
 * main.c - sqfsmount: mount a SquashFS image through FUSE.
 */
#include "config.h"

#include "common/print.h"
#include "sqfsmount.h"

int main(int argc, char **argv)
{
	tool_set_name("sqfsmount");
	return mount_run(MOUNT_SQFSMOUNT, argc, argv);
}
