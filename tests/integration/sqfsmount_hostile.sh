#!/bin/sh
. "$(dirname "$0")/lib.sh"
. "$HERE/lib_mount.sh"
finish
