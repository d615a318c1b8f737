#!/bin/sh
# SPDX-License-Identifier: MIT
# durability.sh - the image reaches the disk before its name does.
#
# tar2sqfs and gensquashfs run under strace, and the system calls on the
# image's temporary file and on its directory must come in this order:
# the last write to the temporary file, fsync of it, its close, the rename
# (or link) onto the target, then fsync of the directory holding the
# target. Each packer is traced writing a new image (the rename that
# refuses to replace a file), replacing one with --force (plain rename),
# and writing to a path relative to the working directory (whose
# directory is "."). Without ptrace (a container that forbids it) the
# test is skipped: it says so.

. "$(dirname "$0")/lib.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$GS" ] || hard_error "no tool to test at $GS (set GS)"

STRACE=$(command -v strace) || skip_all "strace is not installed"
if ! "$STRACE" -f -qq -o /dev/null true 2>"$WORK/strace.err"; then
	skip_all "strace cannot trace here (ptrace not permitted?):" \
		"$(head -1 "$WORK/strace.err")"
fi

TRACED=fsync,fdatasync,rename,renameat,renameat2,link,linkat,close,openat
TRACED=$TRACED,pwrite64,write,ftruncate

# traced DIR TRACE TOOL ARGS...: run TOOL in DIR under strace (-y: file
# descriptors with their paths); status in RC, stderr in $WORK/tool.err.
# LeakSanitizer cannot run under ptrace: a sanitizer build looks for
# leaks in the other tests (write_errors.sh runs the same paths).
traced() {
	local dir=$1 trace=$2
	shift 2
	(cd "$dir" &&
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$STRACE" -f -qq -y -e trace="$TRACED" -o "$trace" \
		"$@" >/dev/null 2>"$WORK/tool.err")
	RC=$?
}

# order TRACE DIR IMAGE: the calls of the trace in the required order
# (IMAGE as the tool was given it, relative to DIR or absolute)
order() {
	"$PYTHON" - "$@" <<'EOF'
import os, re, sys

trace, cwd, image = sys.argv[1:4]
target = os.path.normpath(os.path.join(cwd, image))
directory = os.path.realpath(os.path.dirname(target))
base = os.path.basename(target)
temp_re = re.compile(r"^\." + re.escape(base) + r"\.\d+\.\d+\.tmp$")

# put calls split by another thread's back together
lines, pending = [], {}
for raw in open(trace, encoding="utf-8", errors="replace"):
    raw = raw.rstrip("\n")
    m = re.match(r"^(\d+) +(.*)$", raw)
    pid, text = (m.group(1), m.group(2)) if m else ("", raw)
    if text.endswith("<unfinished ...>"):
        pending[pid] = text[: -len("<unfinished ...>")].rstrip()
        continue
    m = re.match(r"^<\.\.\. \w+ resumed>(.*)$", text)
    if m and pid in pending:
        text = pending.pop(pid) + m.group(1)
    lines.append(text)

def fd_is(text, call, pred):
    """text is CALL(N<PATH>...) with pred(PATH); returns N or None"""
    m = re.match(r"^" + call + r"\((\d+)<([^>]*)>", text)
    if m and pred(m.group(2)):
        return m.group(1)
    return None

def is_temp(path):
    return (os.path.realpath(os.path.dirname(path)) == directory and
            temp_re.match(os.path.basename(path)) is not None)

def ok(text):
    return re.search(r"\) += 0$", text) is not None

last_write = fsync = close = move = dirsync = None
fd = None
for i, text in enumerate(lines):
    if fd is None:
        m = re.match(r'^openat\(.*\) = (\d+)<([^>]*)>$', text)
        if m and is_temp(m.group(2)):
            fd = m.group(1)
        continue
    if close is None:
        if fd_is(text, r"(?:pwrite64|write|ftruncate)", is_temp) == fd:
            last_write = i
        elif fd_is(text, r"(?:fsync|fdatasync)", is_temp) == fd and ok(text):
            fsync = i
        elif fd_is(text, "close", is_temp) == fd:
            if not ok(text):
                sys.exit("close of the temporary file failed: " + text)
            close = i
        continue
    if move is None:
        m = re.match(r"^(rename|renameat2?|link|linkat)\(", text)
        if m and ok(text):
            names = re.findall(r'"([^"]*)"', text)
            if (len(names) >= 2 and temp_re.match(os.path.basename(names[0]))
                    and os.path.basename(names[1]) == base):
                move = i
        continue
    if fd_is(text, r"(?:fsync|fdatasync)",
             lambda p: os.path.realpath(p) == directory) and ok(text):
        dirsync = i
        break

steps = [("the temporary file opened", 0 if fd else None),
         ("fsync of the temporary file", fsync),
         ("its close", close),
         ("the move onto the target", move),
         ("fsync of the directory " + directory, dirsync)]
missing = [name for name, at in steps if at is None]
if missing:
    sys.exit("not seen in order: " + ", ".join(missing))
if last_write is None:
    sys.exit("no write to the temporary file seen")
if last_write > fsync:
    sys.exit("a write to the temporary file after its fsync: " +
             lines[last_write])
print("; ".join(lines[at] for _, at in steps[1:]))
EOF
}

# expect_order WHAT DIR TRACE IMAGE: check the order and the image
expect_order() {
	local what=$1 dir=$2 trace=$3 image=$4
	expect_eq "$what: exit status" "$RC" 0
	[ "$RC" = 0 ] || cat "$WORK/tool.err"
	if order "$trace" "$dir" "$image" >"$WORK/order.out" 2>&1; then
		pass "$what: write, fsync, close, rename, fsync of the directory"
		sed 's/^/  /' "$WORK/order.out"
	else
		fail "$what: $(cat "$WORK/order.out")"
	fi
	(cd "$dir" && "$UNSQUASHFS" -s "$image" >/dev/null 2>&1)
	expect_eq "$what: unsquashfs reads the image" "$?" 0
	leftover=$(find "$dir" -maxdepth 1 -name '.*.tmp')
	expect_eq "$what: no temporary file left" "$leftover" ""
}

ARCHIVE=$(gen mix)
OUT=$WORK/out
mkdir -p "$OUT"

# tar2sqfs: a new image (renameat2 with RENAME_NOREPLACE)
traced "$OUT" "$WORK/t1.trace" "$TAR2SQFS" -q "$OUT/new.sqfs" <"$ARCHIVE"
expect_order "tar2sqfs, new image" "$OUT" "$WORK/t1.trace" "$OUT/new.sqfs"

# tar2sqfs --force over an existing image (rename)
traced "$OUT" "$WORK/t2.trace" "$TAR2SQFS" -q --force "$OUT/new.sqfs" \
	<"$ARCHIVE"
expect_order "tar2sqfs --force, replacing an image" "$OUT" \
	"$WORK/t2.trace" "$OUT/new.sqfs"

# tar2sqfs, a name relative to the working directory: the directory
# synced is "."
traced "$OUT" "$WORK/t3.trace" "$TAR2SQFS" -q rel.sqfs <"$ARCHIVE"
expect_order "tar2sqfs, relative name" "$OUT" "$WORK/t3.trace" rel.sqfs

# gensquashfs --pack-dir: new, forced, relative
SRC=$WORK/src
mkdir -p "$SRC/sub"
printf 'hello\n' >"$SRC/hello.txt"
head -c 300000 /dev/urandom >"$SRC/sub/big"
ln -s hello.txt "$SRC/link"

traced "$OUT" "$WORK/g1.trace" "$GS" -q -D "$SRC" "$OUT/gs.sqfs"
expect_order "gensquashfs, new image" "$OUT" "$WORK/g1.trace" "$OUT/gs.sqfs"

traced "$OUT" "$WORK/g2.trace" "$GS" -q --force -D "$SRC" "$OUT/gs.sqfs"
expect_order "gensquashfs --force, replacing an image" "$OUT" \
	"$WORK/g2.trace" "$OUT/gs.sqfs"

traced "$OUT" "$WORK/g3.trace" "$GS" -q -D "$SRC" gsrel.sqfs
expect_order "gensquashfs, relative name" "$OUT" "$WORK/g3.trace" gsrel.sqfs

finish
