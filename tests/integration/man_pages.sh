#!/bin/sh
# SPDX-License-Identifier: MIT
# Every tool's man page says what its --help says: each long and short
# option of one is in the other, both ways. A tool not built is an error,
# not a skip: the list below is the project's tools.

. "$(dirname "$0")/lib.sh"

# options KIND FILE: the sorted options a --help text (KIND help) or a man
# page (KIND man, where roff writes each '-' as '\-') names; a man page's
# EXAMPLES are left out, as they may call other tools
options() {
	case $1 in
	help)
		{
			grep -o -- '--[a-z][a-z-]*' "$2"
			grep -oE '^ +-[a-zA-Z0-9],' "$2" | tr -d ' ,'
		} | sort -u
		;;
	man)
		sed '/^\.SH EXAMPLES/,/^\.SH/{/^\.SH EXAMPLES/d;/^\.SH/!d;}' \
			"$2" >"$WORK/page"
		{
			grep -oE -- '\\-\\-[a-z]([a-z]|\\-)*' "$WORK/page" |
				sed 's/\\-/-/g'
			grep -oE '\\fB\\-[a-zA-Z0-9]\\f' "$WORK/page" |
				sed 's/\\fB\\-/-/; s/\\f$//'
		} | sort -u
		;;
	esac
}

# sqfsmount is built when configure finds libfuse3
tools="tar2sqfs sqfs2tar gensquashfs rdsquashfs sqfsdiff"
[ -x "$abs_top_builddir/sqfsmount" ] && tools="$tools sqfsmount"
for tool in $tools; do
	bin=$abs_top_builddir/$tool
	page=$abs_top_srcdir/doc/$tool.1
	if [ ! -x "$bin" ] || [ ! -f "$page" ]; then
		fail "$tool: no program or no man page ($bin, $page)"
		continue
	fi
	"$bin" --help >"$WORK/$tool.help" 2>&1
	options help "$WORK/$tool.help" >"$WORK/$tool.h"
	options man "$page" >"$WORK/$tool.m"
	check "$tool: --help names options" test -s "$WORK/$tool.h"
	expect_eq "$tool: options in --help, not in the man page" \
		"$(comm -23 "$WORK/$tool.h" "$WORK/$tool.m" | xargs)" ""
	expect_eq "$tool: options in the man page, not in --help" \
		"$(comm -13 "$WORK/$tool.h" "$WORK/$tool.m" | xargs)" ""
done

finish
