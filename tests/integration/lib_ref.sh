# SPDX-License-Identifier: MIT
# The reference tools for differential tests: squashfs-tools 4.7.5
# (mksquashfs, unsquashfs, sqfstar), run as black boxes. Sourced after
# lib.sh. Sets REF_BIN to the folder holding them:
#   - $SQFS_REF_BIN if set (CI builds them once and sets it);
#   - else $abs_top_builddir/_ref/bin, built on first use from the source
#     archives in ../shared/reference beside the checkout (build.sh takes
#     about a minute; a lock keeps parallel tests from building twice).
# Without either, the test is skipped with the reason: the compat tools
# are judged against the tools they stand in for, not against themselves.

ref_find() {
	local build out
	if [ -n "${SQFS_REF_BIN:-}" ]; then
		REF_BIN=$SQFS_REF_BIN
	else
		REF_BIN=$abs_top_builddir/_ref/bin
		if [ ! -x "$REF_BIN/mksquashfs" ]; then
			build=$abs_top_srcdir/../shared/reference/build.sh
			[ -f "$build" ] || skip_all "squashfs-tools 4.7.5" \
				"not available (set SQFS_REF_BIN, or keep" \
				"shared/reference beside the checkout)"
			mkdir -p "$abs_top_builddir/_ref"
			out=$( (flock 9; bash "$build" "$abs_top_builddir/_ref") \
				9>"$abs_top_builddir/_ref/.lock" 2>&1) ||
				hard_error "building the reference failed: $out"
		fi
	fi
	for t in mksquashfs unsquashfs sqfstar; do
		[ -x "$REF_BIN/$t" ] || hard_error "$REF_BIN/$t is missing"
	done
	"$REF_BIN/mksquashfs" -version 2>/dev/null | head -1 |
		grep -q '^mksquashfs version 4\.7' ||
		hard_error "$REF_BIN/mksquashfs is not squashfs-tools 4.7"
}
ref_find
