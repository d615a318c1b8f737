/* SPDX-License-Identifier: MIT */
/*
 * squashfuse.c - the compat commands squashfuse and squashfuse_ll:
 * sqfsmount under squashfuse's names and help, for the runtimes
 * (AppImage, Apptainer, enroot, Charliecloud) that run squashfuse.
 * One source, built twice: SQFSMOUNT_LL makes squashfuse_ll.
 */
#include "config.h"

#include "common/print.h"
#include "sqfsmount.h"

int main(int argc, char **argv)
{
#ifdef SQFSMOUNT_LL
	tool_set_name("squashfuse_ll");
	return mount_run(MOUNT_SQUASHFUSE_LL, argc, argv);
#else
	tool_set_name("squashfuse");
	return mount_run(MOUNT_SQUASHFUSE, argc, argv);
#endif
}
