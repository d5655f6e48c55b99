# SPDX-License-Identifier: GPL-2.0
# iotrace as a tool on a new machine: the build's hint before `make deps`,
# clear lines when a chroot lacks /proc or /sys, `make install`, the bash
# completion and the man pages.

# make in the checkout, into this test's own build directory
mk()
{
	make -C "$IOTRACE_ROOT" --no-print-directory "$@"
}

test_make_before_deps()
{
	local hint="run 'make deps' (as root) to install the build dependencies"
	expect_exit 2 mk BUILD="$T/b" CLANG=iotrace-no-clang
	err_has "iotrace: iotrace-no-clang not found: $hint"
	expect_exit 2 mk BUILD="$T/b" BPFTOOL=/no/bpftool all
	err_has "iotrace: /no/bpftool not found: $hint"
	expect_exit 2 mk BUILD="$T/b" BUILD_HEADERS="bpf/libbpf.h no/such.h"
	err_has "iotrace: header no/such.h not found: $hint"
	grep -q 'command not found' "$T/err" && fail "the shell's own message got through"
	[ -e "$T/b" ] && fail "the build started"
	# goals that install the tools first do not stop on them
	expect_exit 0 mk -n BUILD="$T/b" CLANG=iotrace-no-clang clean
}

# without FS CMD...: CMD in a mount namespace of its own where FS is not
# mounted.  FS is made private there first, so the unmount stays there; not
# --propagation private, which fails in a chroot, whose / is no mount point.
without()
{
	local fs=$1
	shift
	unshare --mount --propagation unchanged sh -c \
		"mount --make-rprivate $fs && umount -l $fs && exec \"\$@\"" sh "$@"
}

unmount_and_record()
{
	without "$1" "$IOTRACE" record -o "$T/t.iot" -- true
}

test_record_names_missing_mounts()
{
	need_bpf
	expect_exit 1 unmount_and_record /sys
	err_has "iotrace: /sys is not mounted (a chroot or container?): "
	err_has "mount it with 'mount -t sysfs sysfs /sys'"
	grep -q BTF "$T/err" && fail "blames BTF: $(cat "$T/err")"
	expect_exit 1 unmount_and_record /proc
	err_has "iotrace: /proc is not mounted (a chroot or container?): "
	err_has "mount it with 'mount -t proc proc /proc'"
}

# The scripts mount what a chroot lacks, and say so.
test_scripts_mount_what_is_missing()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount"
	without /sys bash -c '
		. "$1/scripts/mounts.sh"
		[ -e /sys/kernel ] && exit 8
		ensure_mounts || exit 7
		[ -r /sys/kernel/btf/vmlinux ] && [ -d /sys/kernel/tracing/events ]' sh \
		"$IOTRACE_ROOT" 2>err
	eq "exit" $? 0
	grep -qF "iotrace: /sys was not mounted (a chroot?): mounted sysfs there" err ||
		fail "no word of it: $(cat err)"
}

test_install_uninstall()
{
	local d=$T/dest f
	expect_exit 0 mk BUILD="$BUILD" DESTDIR="$d" PREFIX=/usr install
	"$d/usr/bin/iotrace" --help >/dev/null || fail "the installed binary does not run"
	[ -x "$d/usr/bin/iotrace" ] || fail "no executable binary"
	cmp -s "$IOTRACE_ROOT/scripts/iotrace.bash-completion" \
		"$d/usr/share/bash-completion/completions/iotrace" || fail "no bash completion"
	for f in README.md "$IOTRACE_ROOT"/docs/*.md; do
		[ -s "$d/usr/share/doc/iotrace/${f##*/}" ] || fail "doc $f not installed"
	done
	for f in "$IOTRACE_ROOT"/docs/man/*.1; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$d/usr/share/man/man1/${f##*/}" || fail "man page ${f##*/} not installed"
	done
	find "$d" -type f ! -perm -u+r -print | grep -q . && fail "unreadable files installed"
	expect_exit 0 mk BUILD="$BUILD" DESTDIR="$d" PREFIX=/usr uninstall
	eq "files left after uninstall" "$(find "$d" -type f | wc -l)" 0
	# PREFIX defaults to /usr/local
	expect_exit 0 mk BUILD="$BUILD" DESTDIR="$T/dflt" install
	[ -x "$T/dflt/usr/local/bin/iotrace" ] || fail "not under /usr/local by default"
}

# complete WORD...: the completion of the last WORD, one candidate a line, in $T/c
complete_words()
{
	bash -c '. "$1/scripts/iotrace.bash-completion"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_iotrace
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$IOTRACE_ROOT" "$IOTRACE" "$@" >"$T/c" || fail "completion of '$*' failed"
}

# has_all FILE WORD...: every WORD is a line of FILE
has_all()
{
	local f=$1 w
	shift
	for w in "$@"; do
		grep -qxF -- "$w" "$f" || fail "'$w' not offered: $(tr '\n' ' ' <"$f")"
	done
}

test_bash_completion()
{
	local cmd n=0
	complete_words ""
	has_all "$T/c" record info dump analyze replay export
	complete_words re
	eq "re" "$(sort "$T/c" | tr '\n' ' ')" "record replay "
	# every long option a command's --help lists, and nothing it does not
	for cmd in $(cat "$T/c") info dump analyze export; do
		complete_words "$cmd" --
		"$IOTRACE" "$cmd" --help | sed '/^EXAMPLE/,$d' |
			grep -oE -- '(^|[[:space:][|,])--[[:alpha:]][[:alnum:]-]*' |
			sed 's/^[^-]*//' | sort -u >"$T/want"
		n=$((n + $(wc -l <"$T/want")))
		has_all "$T/c" $(cat "$T/want")
		grep -vxFf "$T/want" "$T/c" && fail "$cmd: offered options its help lacks"
	done
	ge "long options offered" "$n" 10
	complete_words record --ou
	eq "--ou" "$(cat "$T/c")" --output
	sleep 30 &
	local pid=$!
	complete_words record -p "${pid:0:2}"
	has_all "$T/c" "$pid"
	complete_words record -p "1,$pid"
	has_all "$T/c" "1,$pid"
	kill $pid
	complete_words replay x.jsonl --order t
	eq "orders" "$(sort "$T/c" | tr '\n' ' ')" "temporal think "
	complete_words analyze --rules wakeup,d
	eq "rules" "$(cat "$T/c")" "wakeup,data"
	mkdir sub && touch a.iot b.jsonl c.txt
	complete_words info ""
	eq "info files" "$(sort "$T/c" | tr '\n' ' ')" "a.iot sub "
	complete_words replay ""
	eq "replay files" "$(sort "$T/c" | tr '\n' ' ')" "b.jsonl sub "
	complete_words record -o x.iot -- bas
	has_all "$T/c" bash
}

# Every man page passes mandoc's lint with no warning; there must be some.
test_man_pages_lint()
{
	command -v mandoc >/dev/null || skip "mandoc is not installed (make deps)"
	local pages=("$IOTRACE_ROOT"/docs/man/*.1) p
	[ -e "${pages[0]}" ] || fail "no man pages in docs/man"
	[ -e "$IOTRACE_ROOT/docs/man/iotrace.1" ] || fail "no docs/man/iotrace.1"
	for p in "${pages[@]}"; do
		mandoc -T lint -W warning "$p" >lint 2>&1 || fail "mandoc: $(cat lint)"
		[ -s lint ] && fail "mandoc warns: $(cat lint)"
		# to a file: grep -q ending first would fail the pipe under pipefail
		mandoc -T ascii "$p" | sed 's/.\x08//g' >page || fail "mandoc cannot render ${p##*/}"
		grep -qx NAME page || fail "${p##*/} renders no NAME section"
	done
	echo "note: ${#pages[@]} man pages lint clean"
}
