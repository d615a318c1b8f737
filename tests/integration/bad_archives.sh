#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad archives. Damage that loses data (a bad checksum, a truncated member
# or header, garbage in a numeric field, a sparse map that does not fit)
# ends the run with exit status 1 and a message naming the entry or the
# offset. Entries that are intact but cannot be stored (a volume label, a
# name climbing out with '..', a hard link to nothing) are skipped with a
# warning (exit 0), or end the run with --no-skip. A failed run leaves no
# file (nor a temporary one) and does not touch an existing output file,
# even with --force. damage.sh tries each kind of damage systematically.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

READERS="pf rd mount"

# what_left DIR: the files in DIR, one line
what_left() { (cd "$1" && ls -A | tr '\n' ' '); }

# bad_case CASE OUTCOMES MESSAGE_REGEX [STAND-IN DIFFERENCE]
#   OUTCOMES: skip (exit 0, the survivors of CASE.expect.tar), fatal
#   (exit 1, no file), or skip|fatal when either is reasonable.
#   MESSAGE_REGEX: what stderr must match (grep -E -i).
#   STAND-IN DIFFERENCE: how squashfs-tools-ng 1.2 handles the case
#   otherwise (its results then only report).
bad_case() {
	local c=$1 outcomes=$2 msg=$3 differs=${4:-} tar out sum
	tar=$(gen "$c")
	out=$WORK/out-$c
	mkdir -p "$out"

	# default: skip with a warning, or fail cleanly
	[ -n "$differs" ] && new_feature "$c: $differs"
	t2s "$out/img.sqfs" -q <"$tar"
	check "$c: stderr names the problem (/$msg/)" \
		grep -E -i -q "$msg" "$WORK/t2s.err"
	case "$RC|$outcomes" in
	0\|skip | 0\|skip\|fatal)
		pass "$c: skipped with exit status 0"
		check_image "$c" "$out/img.sqfs" "$tar.expect.tar" \
			--implicit mode=0755,uid=0,gid=0,mtime=0
		;;
	1\|fatal | 1\|skip\|fatal)
		pass "$c: fatal, exit status 1"
		new_feature "a failed run leaves no file"
		expect_eq "$c: nothing left behind" "$(what_left "$out")" ""
		end_feature
		;;
	*)
		fail "$c: exit status $RC, expected $outcomes:" \
			"$(cat "$WORK/t2s.err")"
		;;
	esac
	end_feature
	rm -rf "$out"
	mkdir -p "$out"

	# --no-skip: always fatal
	[ -n "$differs" ] && new_feature "$c: $differs"
	t2s "$out/img.sqfs" -q --no-skip <"$tar"
	expect_eq "$c --no-skip: exit status" "$RC" 1
	check "$c --no-skip: stderr names the problem (/$msg/)" \
		grep -E -i -q "$msg" "$WORK/t2s.err"
	end_feature
	new_feature "a failed run leaves no file"
	expect_eq "$c --no-skip: nothing left behind" "$(what_left "$out")" ""
	end_feature

	# an existing output survives a failed run, even with -f
	head -c 5000 "$tar" >"$out/img.sqfs"
	sum=$(sum_of "$out/img.sqfs")
	[ -n "$differs" ] && new_feature "$c: $differs"
	t2s "$out/img.sqfs" -q -s -f <"$tar"
	expect_eq "$c -s -f over an existing file: exit status" "$RC" 1
	new_feature "a failed run leaves an existing output untouched"
	expect_eq "$c -s -f: the existing file is untouched" \
		"$(sum_of "$out/img.sqfs")" "$sum"
	expect_eq "$c -s -f: no other file left behind" \
		"$(what_left "$out")" "img.sqfs "
	end_feature
	head -c 5000 "$tar" >"$out/img.sqfs"
	t2s "$out/img.sqfs" -q <"$tar"
	expect_eq "$c without -f over an existing file: exit status" "$RC" 1
	expect_eq "$c without -f: the existing file is untouched" \
		"$(sum_of "$out/img.sqfs")" "$sum"
	rm -rf "$out"
}

# Where the damaged header cannot be trusted for a name, a message that
# places the damage (an offset, the entry before it) will do.
bad_case bad_checksum fatal 'badsum|checksum|damaged' "fatal"
bad_case bad_truncated fatal 'truncated_file' "names no entry"
bad_case bad_truncated_header fatal 'trunc|end of file|eof|cut_header' \
	"exit 0, silent"
bad_case bad_size_garbage fatal 'garbage_size' "names no entry"
bad_case bad_size_huge fatal 'huge_size|good1|offset' \
	"names no entry"
bad_case bad_size_negative fatal 'negative_size|good1|offset' \
	"names no entry"
bad_case bad_sparse_map fatal 'bad_sparse' "names no entry"
bad_case bad_dotdot skip 'escape' "crashes (double free)"
bad_case bad_hardlink_missing skip 'dangling_hl|no_such_target' "fatal"
bad_case bad_not_tar fatal '.'
bad_case bad_volume_label skip 'volume_label|label'

# What the image cannot hold: the writer's words, naming the entry
bad_case bad_long_name skip \
	"^tar2sqfs: d/n{300}: a name in the path is 300 bytes long, more than 256"
bad_case bad_device skip \
	"^tar2sqfs: big_dev: device number 5000:1 does not fit the image \(major up to 4095, minor up to 1048575\)"
bad_case bad_long_symlink skip \
	"^tar2sqfs: long_link: symlink target longer than 4096 bytes"

# bad_dotdot: no reader sees anything outside the root
new_feature "bad_dotdot: crashes (double free)"
t2s "$WORK/dotdot.sqfs" -q <"$(gen bad_dotdot)"
check "bad_dotdot: an image is made" test -s "$WORK/dotdot.sqfs"
"$UNSQUASHFS" -lln "$WORK/dotdot.sqfs" 2>&1 | sed 's/ -> .*//' >"$WORK/lln"
check "bad_dotdot: no name '..' or 'escape*' in unsquashfs -lln" \
	sh -c "! grep -E '/\\.\\.(/|\$)|escape' '$WORK/lln'"
check "bad_dotdot: a/b is there" grep -q 'squashfs-root/a/b$' "$WORK/lln"
end_feature

# An entry refused after its parents were seen to be missing leaves
# nothing behind: 65535 FIFOs, each with an owner of its own, fill the id
# table; the next entry, below directories no entry names, has yet another
# owner. It is skipped (warning, exit 0; --no-skip: exit 1), and the image
# holds neither its parents nor its owner.
"$PYTHON" - "$WORK/ids.tar" <<'PYEOF'
import sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as tf:
    for i in range(65535):
        ti = tarfile.TarInfo("f%05d" % i)
        ti.type = tarfile.FIFOTYPE
        ti.uid = ti.gid = i  # 0 too: the root's owner
        ti.mtime = 1600000000
        tf.addfile(ti)
    ti = tarfile.TarInfo("p/q/over")
    ti.type = tarfile.FIFOTYPE
    ti.uid = ti.gid = 999999
    ti.mtime = 1600000000
    tf.addfile(ti)
PYEOF
t2s "$WORK/ids.sqfs" -q -c gzip <"$WORK/ids.tar"
expect_eq "the 65536th id: skipped (exit status)" "$RC" 0
check "the 65536th id: the warning names the entry and the limit" \
	grep -q 'p/q/over.*at most 65535 different ids' "$WORK/t2s.err"
"$UNSQUASHFS" -lln "$WORK/ids.sqfs" >"$WORK/ids.lln" 2>/dev/null
check "the 65536th id: its parents were not made" \
	sh -c "! grep -q 'squashfs-root/p' '$WORK/ids.lln'"
expect_eq "the 65536th id: the image holds 65535 ids" \
	"$(sb_field "$WORK/ids.sqfs" 'Number of ids')" 65535
check "the 65536th id: every FIFO is there" \
	sh -c "test \$(grep -c 'squashfs-root/f' '$WORK/ids.lln') = 65535"
t2s "$WORK/ids_noskip.sqfs" -q -s -c gzip <"$WORK/ids.tar"
expect_eq "the 65536th id with --no-skip: exit status" "$RC" 1
check "the 65536th id with --no-skip: no image" \
	test ! -e "$WORK/ids_noskip.sqfs"
rm -f "$WORK/ids.tar" "$WORK/ids.sqfs" "$WORK/ids.lln"

# an empty input is no archive at all
t2s "$WORK/empty.sqfs" -q </dev/null
case $RC in
0) check_image empty_input "$WORK/empty.sqfs" "$(gen empty)" \
	--implicit mode=0755,uid=0,gid=0,mtime=0 ;;
1)
	check "empty input: a message" test -s "$WORK/t2s.err"
	new_feature "a failed run leaves no file"
	check "empty input: no image" test ! -e "$WORK/empty.sqfs"
	end_feature
	;;
*) fail "empty input: exit status $RC" ;;
esac

finish
