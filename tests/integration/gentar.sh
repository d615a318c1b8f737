#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/gentar, the scale tests' and benchmark's archive generator, at
# 10^5 entries, and tar2sqfs on its streams:
#  - GNU tar lists the members and types its --summary counts;
#  - the same options give the same bytes, another seed other bytes, and
#    --order shuffled the same paths as --order tar;
#  - names (NFC and NFD twins side by side, CJK, Hangul, emoji, long ones
#    through pax) come out of GNU tar's extraction, tar2sqfs's image and
#    sqfs2tar's archive byte for byte as GNU tar lists them;
#  - the image tar2sqfs makes of the stream, read back by sqfs2tar and by
#    the kernel, is GNU tar's view of the archive and holds its
#    extraction's bytes (lib_gentar.sh).
# Two archives: "plain" (GNU tar's order, ASCII names) and "mixed"
# (shuffled, implicit parents, repeated paths, unicode names, a flat
# directory of 30,000 entries). The slow test at 10^6 is
# tests/slow/scale.sh.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$abs_top_srcdir/tests/integration/lib_gentar.sh"

N=100000
gt_new plain -n $N
gt_new mixed -n $N --order shuffled --names unicode --big-dir 30000

for name in plain mixed; do
	gt_check_members "$name"
	expect_eq "$name: entries" "$(gt_summary "$name" entries)" $N
	check "$name: has hard links" test "$(gt_summary "$name" links)" -gt 0
	check "$name: has duplicate contents" \
		test "$(gt_summary "$name" duplicates)" -gt 0
	check "$name: has pax headers (long names)" \
		test "$(gt_summary "$name" pax_headers)" -gt 0
	# determinism: a second run, the same bytes
	one=$(gt_run "$name" | sha256sum)
	two=$(gt_run "$name" | sha256sum)
	expect_eq "$name: the same options give the same bytes" "$one" "$two"
	other=$(gt_run "$name" --seed 2 | sha256sum)
	check "$name: another seed gives other bytes" test "$one" != "$other"
done
check "mixed: has implicit parents" \
	test "$(gt_summary mixed implicit_dirs)" -gt 0
check "mixed: has repeated paths" test "$(gt_summary mixed repeats)" -gt 0
expect_eq "mixed: the flat directory" "$(gt_summary mixed big_dirs)" 1
expect_eq "mixed: entries of the flat directory" \
	"$(gt_summary mixed big_dir_entries)" 30000

# the order changes the order: the same files and links
gt_new shuffled -n $N --order shuffled
for name in plain shuffled; do
	gt_run $name | "$GNUTAR" -t --quoting-style=literal -f - |
		grep -v '/$' | LC_ALL=C sort -u >"$WORK/$name.paths"
done
check "--order shuffled: the same files and links as --order tar" \
	cmp -s "$WORK/plain.paths" "$WORK/shuffled.paths"
rm -f "$WORK"/*.paths

# the kernel reads every file of one (8 s for 10^5 cold files, the
# kernel's own cost); sqfs2tar every file of both
GT_KERNEL_DATA=0 gt_check_image plain -c lz4
gt_check_image mixed -c lz4

# names: what GNU tar's extraction of the mixed archive holds (x.view,
# left by gt_check_image, which compared it byte for byte with GNU tar's
# listing and the image): valid UTF-8, both forms, all scripts, long ones
names_check() {
	"$PYTHON" -c '
import re, sys, unicodedata

cjk = re.compile("[\u4e00-\u9fff]")
hangul = re.compile("[\u1100-\u11ff\uac00-\ud7a3]")
emoji = re.compile("[\U0001f000-\U0001faff]")

groups = {}
n = dict(bad=0, nfd=0, cjk=0, hangul=0, emoji=0, long=0, twins=0)
longest = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        parent, _, name = line.split(b"\t", 1)[0].rpartition(b"/")
        longest = max(longest, len(name))
        n["long"] += len(name) > 100
        try:
            u = name.decode("utf-8")
        except UnicodeDecodeError:
            n["bad"] += 1
            continue
        nfc = unicodedata.normalize("NFC", u)
        n["nfd"] += u != nfc
        groups.setdefault((parent, nfc), set()).add(name)
        n["cjk"] += cjk.search(u) is not None
        n["hangul"] += hangul.search(u) is not None
        n["emoji"] += emoji.search(u) is not None
# twins: names of one directory that differ in bytes, not in NFC
n["twins"] = sum(1 for g in groups.values() if len(g) > 1)
print("  names: %s, longest %d bytes" % (
    " ".join("%s=%d" % kv for kv in sorted(n.items())), longest))
sys.exit(0 if n["bad"] == 0 and longest <= 255 and all(
    n[k] > 0 for k in ("nfd", "cjk", "hangul", "emoji", "long", "twins"))
    else 1)
' "$WORK/mixed.d/x.view"
}
if [ -s "$WORK/mixed.d/x.view" ]; then
	check "mixed: extracted names: UTF-8, NFC/NFD twins, CJK, Hangul, emoji, over 100 bytes" \
		names_check
else
	fail "mixed: no extraction to check the names of"
fi

finish
