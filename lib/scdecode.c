// SPDX-License-Identifier: GPL-2.0
/*
 * What the numbers in a call's arguments mean, spelled as strace spells
 * them.  One table indexed by enum sc_arg says how each kind is printed:
 * a number, a set of flag bits, one of a set of constants, or constants in
 * some bits and flags in the others (O_RDONLY|O_CLOEXEC, SOCK_STREAM|
 * SOCK_CLOEXEC, CLONE_VM|SIGCHLD).  The few kinds that depend on another
 * argument say so in the same table.
 */
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/falloc.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "lib/syscalls.h"

struct sc_const {
	uint64_t val;
	const char *name;
};

/* Tables read down their columns: not for clang-format. */
/* clang-format off */
#define C(x) { x, #x }
#define END { 0, NULL }

static const struct sc_const oflags[] = {
	/* composite flags before their parts: O_SYNC holds O_DSYNC, O_TMPFILE O_DIRECTORY;
	 * O_LARGEFILE is the kernel's, the C library's is 0 on 64-bit machines */
	C(O_CREAT), C(O_EXCL), C(O_NOCTTY), C(O_TRUNC), C(O_APPEND), C(O_NONBLOCK), C(O_SYNC),
	C(O_DSYNC), C(O_DIRECT), { 0100000, "O_LARGEFILE" }, C(O_TMPFILE), C(O_DIRECTORY), C(O_NOFOLLOW),
	C(O_NOATIME), C(O_CLOEXEC), C(O_PATH), END,
};
static const struct sc_const accmode[] = { C(O_RDONLY), C(O_WRONLY), C(O_RDWR), END };
static const struct sc_const fdflags[] = { C(O_NONBLOCK), C(O_DIRECT), C(O_CLOEXEC), END };
static const struct sc_const prot[] = { C(PROT_READ), C(PROT_WRITE), C(PROT_EXEC),
					C(PROT_GROWSDOWN), C(PROT_GROWSUP), END };
static const struct sc_const maptype[] = { C(MAP_SHARED), C(MAP_PRIVATE), C(MAP_SHARED_VALIDATE),
					   END };
static const struct sc_const mflags[] = {
	C(MAP_FIXED), C(MAP_ANONYMOUS), C(MAP_32BIT), C(MAP_GROWSDOWN), C(MAP_DENYWRITE),
	C(MAP_EXECUTABLE), C(MAP_LOCKED), C(MAP_NORESERVE), C(MAP_POPULATE), C(MAP_NONBLOCK),
	C(MAP_STACK), C(MAP_HUGETLB), C(MAP_SYNC), C(MAP_FIXED_NOREPLACE), END,
};
static const struct sc_const atflags[] = {
	C(AT_SYMLINK_NOFOLLOW), C(AT_REMOVEDIR), C(AT_SYMLINK_FOLLOW), C(AT_NO_AUTOMOUNT),
	C(AT_EMPTY_PATH), C(AT_STATX_FORCE_SYNC), C(AT_STATX_DONT_SYNC), C(AT_EACCESS), END,
};
static const struct sc_const access_bits[] = { C(R_OK), C(W_OK), C(X_OK), END };
static const struct sc_const futex_cmds[] = {
	C(FUTEX_WAIT), C(FUTEX_WAKE), C(FUTEX_FD), C(FUTEX_REQUEUE), C(FUTEX_CMP_REQUEUE),
	C(FUTEX_WAKE_OP), C(FUTEX_LOCK_PI), C(FUTEX_UNLOCK_PI), C(FUTEX_TRYLOCK_PI),
	C(FUTEX_WAIT_BITSET), C(FUTEX_WAKE_BITSET), C(FUTEX_WAIT_REQUEUE_PI),
	C(FUTEX_CMP_REQUEUE_PI), C(FUTEX_LOCK_PI2), END,
};
static const struct sc_const whence[] = { C(SEEK_SET), C(SEEK_CUR), C(SEEK_END), C(SEEK_DATA),
					  C(SEEK_HOLE), END };
static const struct sc_const fcntl_cmds[] = {
	C(F_DUPFD), C(F_GETFD), C(F_SETFD), C(F_GETFL), C(F_SETFL), C(F_GETLK), C(F_SETLK),
	C(F_SETLKW), C(F_SETOWN), C(F_GETOWN), C(F_SETSIG), C(F_GETSIG), C(F_SETOWN_EX),
	C(F_GETOWN_EX), C(F_OFD_GETLK), C(F_OFD_SETLK), C(F_OFD_SETLKW), C(F_SETLEASE),
	C(F_GETLEASE), C(F_NOTIFY), C(F_DUPFD_CLOEXEC), C(F_SETPIPE_SZ), C(F_GETPIPE_SZ),
	C(F_ADD_SEALS), C(F_GET_SEALS), END,
};
static const struct sc_const families[] = {
	C(AF_UNSPEC), C(AF_UNIX), C(AF_INET), C(AF_INET6), C(AF_NETLINK), C(AF_PACKET),
	C(AF_VSOCK), C(AF_ALG), C(AF_XDP), END,
};
static const struct sc_const socktypes[] = { C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW),
					     C(SOCK_RDM), C(SOCK_SEQPACKET), C(SOCK_PACKET), END };
static const struct sc_const sockflags[] = { C(SOCK_NONBLOCK), C(SOCK_CLOEXEC), END };
static const struct sc_const ipprotos[] = {
	C(IPPROTO_IP), C(IPPROTO_ICMP), C(IPPROTO_TCP), C(IPPROTO_UDP), C(IPPROTO_IPV6),
	C(IPPROTO_ICMPV6), C(IPPROTO_SCTP), C(IPPROTO_UDPLITE), C(IPPROTO_RAW), C(IPPROTO_MPTCP),
	END,
};
static const struct sc_const nlprotos[] = { C(NETLINK_ROUTE), C(NETLINK_SOCK_DIAG),
					    C(NETLINK_AUDIT), C(NETLINK_KOBJECT_UEVENT),
					    C(NETLINK_GENERIC), END };
static const struct sc_const clone_flags[] = {
	C(CLONE_VM), C(CLONE_FS), C(CLONE_FILES), C(CLONE_SIGHAND), C(CLONE_PIDFD),
	C(CLONE_PTRACE), C(CLONE_VFORK), C(CLONE_PARENT), C(CLONE_THREAD), C(CLONE_NEWNS),
	C(CLONE_SYSVSEM), C(CLONE_SETTLS), C(CLONE_PARENT_SETTID), C(CLONE_CHILD_CLEARTID),
	C(CLONE_DETACHED), C(CLONE_UNTRACED), C(CLONE_CHILD_SETTID), C(CLONE_NEWCGROUP),
	C(CLONE_NEWUTS), C(CLONE_NEWIPC), C(CLONE_NEWUSER), C(CLONE_NEWPID), C(CLONE_NEWNET),
	C(CLONE_IO), END,
};
static const struct sc_const signals[] = {
	C(SIGHUP), C(SIGINT), C(SIGQUIT), C(SIGILL), C(SIGTRAP), C(SIGABRT), C(SIGBUS), C(SIGFPE),
	C(SIGKILL), C(SIGUSR1), C(SIGSEGV), C(SIGUSR2), C(SIGPIPE), C(SIGALRM), C(SIGTERM),
	C(SIGCHLD), C(SIGCONT), C(SIGSTOP), C(SIGTSTP), C(SIGTTIN), C(SIGTTOU), C(SIGURG),
	C(SIGXCPU), C(SIGXFSZ), C(SIGVTALRM), C(SIGPROF), C(SIGWINCH), C(SIGIO), C(SIGPWR),
	C(SIGSYS), END,
};
static const struct sc_const efdflags[] = { C(EFD_SEMAPHORE), C(EFD_NONBLOCK), C(EFD_CLOEXEC),
					    END };
static const struct sc_const epflags[] = { C(EPOLL_CLOEXEC), END };
static const struct sc_const epoll_ops[] = { C(EPOLL_CTL_ADD), C(EPOLL_CTL_DEL), C(EPOLL_CTL_MOD),
					     END };
static const struct sc_const msgflags[] = {
	C(MSG_OOB), C(MSG_PEEK), C(MSG_DONTROUTE), C(MSG_CTRUNC), C(MSG_PROXY), C(MSG_TRUNC),
	C(MSG_DONTWAIT), C(MSG_EOR), C(MSG_WAITALL), C(MSG_FIN), C(MSG_SYN), C(MSG_CONFIRM),
	C(MSG_RST), C(MSG_ERRQUEUE), C(MSG_NOSIGNAL), C(MSG_MORE), C(MSG_WAITFORONE),
	C(MSG_FASTOPEN), C(MSG_CMSG_CLOEXEC), END,
};
static const struct sc_const shut_how[] = { C(SHUT_RD), C(SHUT_WR), C(SHUT_RDWR), END };
static const struct sc_const flock_ops[] = { C(LOCK_SH), C(LOCK_EX), C(LOCK_NB), C(LOCK_UN),
					     END };
static const struct sc_const fadvice[] = {
	C(POSIX_FADV_NORMAL), C(POSIX_FADV_RANDOM), C(POSIX_FADV_SEQUENTIAL),
	C(POSIX_FADV_WILLNEED), C(POSIX_FADV_DONTNEED), C(POSIX_FADV_NOREUSE), END,
};
static const struct sc_const madvice[] = {
	C(MADV_NORMAL), C(MADV_RANDOM), C(MADV_SEQUENTIAL), C(MADV_WILLNEED), C(MADV_DONTNEED),
	C(MADV_FREE), C(MADV_REMOVE), C(MADV_DONTFORK), C(MADV_DOFORK), C(MADV_MERGEABLE),
	C(MADV_UNMERGEABLE), C(MADV_HUGEPAGE), C(MADV_NOHUGEPAGE), C(MADV_DONTDUMP),
	C(MADV_DODUMP), C(MADV_WIPEONFORK), C(MADV_KEEPONFORK), C(MADV_COLD), C(MADV_PAGEOUT),
	C(MADV_HWPOISON), END,
};
static const struct sc_const msflags[] = { C(MS_ASYNC), C(MS_INVALIDATE), C(MS_SYNC), END };
static const struct sc_const mremap_flags[] = { C(MREMAP_MAYMOVE), C(MREMAP_FIXED),
						C(MREMAP_DONTUNMAP), END };
static const struct sc_const clocks[] = {
	C(CLOCK_REALTIME), C(CLOCK_MONOTONIC), C(CLOCK_PROCESS_CPUTIME_ID),
	C(CLOCK_THREAD_CPUTIME_ID), C(CLOCK_MONOTONIC_RAW), C(CLOCK_REALTIME_COARSE),
	C(CLOCK_MONOTONIC_COARSE), C(CLOCK_BOOTTIME), C(CLOCK_REALTIME_ALARM),
	C(CLOCK_BOOTTIME_ALARM), C(CLOCK_TAI), END,
};
static const struct sc_const timerflags[] = { C(TIMER_ABSTIME), END };
static const struct sc_const waitopts[] = {
	C(WNOHANG), C(WUNTRACED), C(WEXITED), C(WCONTINUED), C(WNOWAIT), C(__WNOTHREAD),
	C(__WALL), C(__WCLONE), END,
};
static const struct sc_const idtypes[] = { C(P_ALL), C(P_PID), C(P_PGID), C(P_PIDFD), END };
static const struct sc_const rename_flags[] = { C(RENAME_NOREPLACE), C(RENAME_EXCHANGE),
						C(RENAME_WHITEOUT), END };
static const struct sc_const falloc_flags[] = {
	C(FALLOC_FL_KEEP_SIZE), C(FALLOC_FL_PUNCH_HOLE), C(FALLOC_FL_NO_HIDE_STALE),
	C(FALLOC_FL_COLLAPSE_RANGE), C(FALLOC_FL_ZERO_RANGE), C(FALLOC_FL_INSERT_RANGE),
	C(FALLOC_FL_UNSHARE_RANGE), END,
};
static const struct sc_const statx_mask[] = {
	/* STATX_ALL and STATX_BASIC_STATS first, as strace folds them */
	C(STATX_ALL), C(STATX_BASIC_STATS), C(STATX_TYPE), C(STATX_MODE), C(STATX_NLINK),
	C(STATX_UID), C(STATX_GID), C(STATX_ATIME), C(STATX_MTIME), C(STATX_CTIME),
	C(STATX_INO), C(STATX_SIZE), C(STATX_BLOCKS), C(STATX_BTIME), C(STATX_MNT_ID),
	C(STATX_DIOALIGN), END,
};
static const struct sc_const xattr_flags[] = { C(XATTR_CREATE), C(XATTR_REPLACE), END };
static const struct sc_const close_range_flags[] = { C(CLOSE_RANGE_UNSHARE),
						     C(CLOSE_RANGE_CLOEXEC), END };
static const struct sc_const bitset[] = { { FUTEX_BITSET_MATCH_ANY, "FUTEX_BITSET_MATCH_ANY" },
					  END };
static const struct sc_const fd_bits[] = { C(FD_CLOEXEC), END };
#undef C

enum style {
	S_INT = 0,	/* signed decimal of the int the kernel reads */
	S_LONG,		/* signed decimal of the whole register */
	S_UINT,		/* unsigned decimal */
	S_HEX,
	S_OCT,		/* 0644, as strace: at least three digits */
	S_ADDR,		/* NULL or hex */
	S_FLAGS,	/* A|B|0x.. from bits; `zero` when none is set */
	S_ENUM,		/* one of consts, else a number */
	S_CALL,		/* a function of its own: decode() below */
};

struct kind {
	uint8_t style;
	uint8_t enum_last;		/* the constant part goes after the flags (SIGCHLD) */
	uint32_t enum_mask;		/* S_FLAGS: bits holding one of consts, the rest flags */
	const struct sc_const *consts;	/* S_ENUM's values, S_FLAGS' bits */
	const struct sc_const *enums;	/* S_FLAGS with enum_mask: the values of those bits */
	const char *zero;		/* S_FLAGS: what no bit at all prints as */
	const char *label;		/* strace prints label=value */
	uint8_t rank;			/* strace prints a call's arguments by rank, then
					 * index: clone's stack comes before its flags */
};

static const struct kind kinds[SA_NKINDS] = {
	[SA_NONE] = { S_LONG },
	[SA_INT] = { S_INT },
	[SA_OFF] = { S_LONG },
	[SA_UINT] = { S_UINT },
	[SA_HEX] = { S_HEX },
	[SA_FD] = { S_INT },
	[SA_DIRFD] = { S_CALL },
	[SA_PATH] = { S_ADDR },
	[SA_PTR] = { S_ADDR },
	[SA_ARGV] = { S_ADDR },
	[SA_ENVP] = { S_ADDR },
	[SA_ADDR] = { S_ADDR },
	[SA_MODE] = { S_OCT },
	[SA_OMODE] = { S_OCT },
	[SA_OFLAGS] = { S_FLAGS, 0, O_ACCMODE, oflags, accmode, "O_RDONLY" },
	[SA_FDFLAGS] = { S_FLAGS, .consts = fdflags, .zero = "0" },
	[SA_PROT] = { S_FLAGS, .consts = prot, .zero = "PROT_NONE" },
	[SA_MFLAGS] = { S_FLAGS, 0, MAP_TYPE, mflags, maptype, "0" },
	[SA_ATFLAGS] = { S_FLAGS, .consts = atflags, .zero = "0" },
	[SA_ACCESS] = { S_FLAGS, .consts = access_bits, .zero = "F_OK" },
	[SA_FUTEX_OP] = { S_CALL },
	[SA_WHENCE] = { S_ENUM, .consts = whence },
	[SA_FCNTL_CMD] = { S_ENUM, .consts = fcntl_cmds },
	[SA_FCNTL_ARG] = { S_CALL },
	[SA_SOCKFAM] = { S_ENUM, .consts = families },
	[SA_SOCKTYPE] = { S_FLAGS, 0, 0xf, sockflags, socktypes, "0" },
	[SA_SOCKFLAGS] = { S_FLAGS, .consts = sockflags, .zero = "0" },
	[SA_SOCKPROTO] = { S_CALL },
	[SA_CLONE_FLAGS] = { S_FLAGS, 1, 0xff, clone_flags, signals, "0", "flags", 2 },
	[SA_CLONE_STACK] = { S_ADDR, .label = "child_stack", .rank = 1 },
	[SA_CLONE_PTID] = { S_ADDR, .label = "parent_tid", .rank = 3 },
	[SA_CLONE_TLS] = { S_ADDR, .label = "tls", .rank = 4 },
	[SA_CLONE_CTID] = { S_ADDR, .label = "child_tidptr", .rank = 5 },
	[SA_EFDFLAGS] = { S_FLAGS, .consts = efdflags, .zero = "0" },
	[SA_EPFLAGS] = { S_FLAGS, .consts = epflags, .zero = "0" },
	[SA_EPOLL_OP] = { S_ENUM, .consts = epoll_ops },
	[SA_MSGFLAGS] = { S_FLAGS, .consts = msgflags, .zero = "0" },
	[SA_SHUT_HOW] = { S_ENUM, .consts = shut_how },
	[SA_FLOCK_OP] = { S_FLAGS, .consts = flock_ops, .zero = "0" },
	[SA_FADVICE] = { S_ENUM, .consts = fadvice },
	[SA_MADVICE] = { S_ENUM, .consts = madvice },
	[SA_MSFLAGS] = { S_FLAGS, .consts = msflags, .zero = "0" },
	[SA_MREMAP] = { S_FLAGS, .consts = mremap_flags, .zero = "0" },
	[SA_CLOCKID] = { S_ENUM, .consts = clocks },
	[SA_TIMERFLAGS] = { S_FLAGS, .consts = timerflags, .zero = "0" },
	[SA_WAITOPTS] = { S_FLAGS, .consts = waitopts, .zero = "0" },
	[SA_IDTYPE] = { S_ENUM, .consts = idtypes },
	[SA_RENAME] = { S_FLAGS, .consts = rename_flags, .zero = "0" },
	[SA_FALLOC] = { S_FLAGS, .consts = falloc_flags, .zero = "0" },
	[SA_STATX_MASK] = { S_FLAGS, .consts = statx_mask, .zero = "0" },
	[SA_XATTR] = { S_FLAGS, .consts = xattr_flags, .zero = "0" },
	[SA_CLOSE_RANGE] = { S_FLAGS, .consts = close_range_flags, .zero = "0" },
	[SA_FUTEX_VAL2] = { S_CALL },
	[SA_FUTEX_ADDR2] = { S_ADDR },
	[SA_FUTEX_VAL3] = { S_CALL },
};

/* clang-format on */

/* Appends to buf at *at, keeping count of what would have been written. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += n;
}

static const char *const_name(const struct sc_const *c, uint64_t v)
{
	for (; c && c->name; c++)
		if (c->val == v)
			return c->name;
	return NULL;
}

/* Flag bits by name, largest composite first as the table lists them; what no name covers as hex. */
static void put_bits(char *buf, size_t len, size_t *at, const struct sc_const *c, uint64_t v,
		     bool first)
{
	for (; c && c->name; c++) {
		if (!c->val || (v & c->val) != c->val)
			continue;
		put(buf, len, at, "%s%s", first ? "" : "|", c->name);
		first = false;
		v &= ~c->val;
	}
	if (v)
		put(buf, len, at, "%s%#llx", first ? "" : "|", (unsigned long long)v);
}

static void put_flags(char *buf, size_t len, size_t *at, const struct kind *k, uint64_t v)
{
	uint64_t e = v & k->enum_mask, rest = v & ~(uint64_t)k->enum_mask;
	const char *name = k->enum_mask ? const_name(k->enums, e) : NULL;
	size_t start = *at;

	if (k->enum_mask && !k->enum_last && name)
		put(buf, len, at, "%s", name);
	else if (k->enum_mask && !k->enum_last && e)
		put(buf, len, at, "%#llx", (unsigned long long)e);
	put_bits(buf, len, at, k->consts, rest, *at == start);
	if (k->enum_mask && k->enum_last && e)
		put(buf, len, at, "%s%s", *at == start ? "" : "|", name ? name : "");
	if (k->enum_mask && k->enum_last && e && !name)
		put(buf, len, at, "%llu", (unsigned long long)e);
	if (*at == start)
		put(buf, len, at, "%s", k->zero ? k->zero : "0");
}

static void put_futex_op(char *buf, size_t len, size_t *at, uint64_t v)
{
	const char *name = const_name(futex_cmds, v & FUTEX_CMD_MASK);

	if (name)
		put(buf, len, at, "%s%s", name, v & FUTEX_PRIVATE_FLAG ? "_PRIVATE" : "");
	else
		put(buf, len, at, "FUTEX_PRIVATE_FLAG|%#llx",
		    (unsigned long long)(v & FUTEX_CMD_MASK));
	if (v & FUTEX_CLOCK_REALTIME)
		put(buf, len, at, "|FUTEX_CLOCK_REALTIME");
}

static bool futex_timed(uint64_t op)
{
	unsigned int cmd = op & FUTEX_CMD_MASK;

	return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
	       cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_REQUEUE_PI;
}

/* The kinds that read another argument, or print in a way of their own. */
static void put_call(char *buf, size_t len, size_t *at, unsigned int kind, uint64_t v,
		     const __u64 *args)
{
	const char *name = NULL;
	unsigned int cmd;

	switch (kind) {
	case SA_DIRFD:
		if ((int)v == AT_FDCWD)
			name = "AT_FDCWD";
		break;
	case SA_FUTEX_OP:
		put_futex_op(buf, len, at, v);
		return;
	case SA_FUTEX_VAL2: /* the timeout register: a pointer, or val2 */
		if (args && futex_timed(args[1])) {
			put(buf, len, at, v ? "%#llx" : "NULL", (unsigned long long)v);
			return;
		}
		put(buf, len, at, "%u", (unsigned int)v);
		return;
	case SA_FUTEX_VAL3:
		name = const_name(bitset, (uint32_t)v);
		if (!name)
			put(buf, len, at, "%#x", (unsigned int)v);
		break;
	case SA_SOCKPROTO:
		if (args && (args[0] == AF_INET || args[0] == AF_INET6))
			name = const_name(ipprotos, v);
		else if (args && args[0] == AF_NETLINK)
			name = const_name(nlprotos, v);
		break;
	case SA_FCNTL_ARG:
		cmd = args ? args[1] : 0;
		if (cmd == F_SETFD) {
			put_flags(buf, len, at, &(struct kind){ .consts = fd_bits, .zero = "0" },
				  v);
			return;
		}
		if (cmd == F_SETFL) {
			put_flags(buf, len, at, &kinds[SA_OFLAGS], v);
			return;
		}
		if (cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_GETLK ||
		    cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW || cmd == F_GETOWN_EX ||
		    cmd == F_SETOWN_EX) {
			put(buf, len, at, v ? "%#llx" : "NULL", (unsigned long long)v);
			return;
		}
		break;
	}
	if (name)
		put(buf, len, at, "%s", name);
	else if (kind != SA_FUTEX_VAL3)
		put(buf, len, at, "%d", (int)v);
}

int syscall__decode(char *buf, size_t len, unsigned int kind, uint64_t v, const __u64 *args)
{
	const struct kind *k = &kinds[kind < SA_NKINDS ? kind : SA_HEX];
	const char *name;
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	switch (k->style) {
	case S_INT:
		put(buf, len, &at, "%d", (int)v);
		break;
	case S_LONG:
		put(buf, len, &at, "%lld", (long long)v);
		break;
	case S_UINT:
		put(buf, len, &at, "%llu", (unsigned long long)v);
		break;
	case S_HEX:
		put(buf, len, &at, "%#llx", (unsigned long long)v);
		break;
	case S_OCT:
		put(buf, len, &at, "%#03llo", (unsigned long long)v);
		break;
	case S_ADDR:
		put(buf, len, &at, v ? "%#llx" : "NULL", (unsigned long long)v);
		break;
	case S_FLAGS:
		put_flags(buf, len, &at, k, v);
		break;
	case S_ENUM:
		name = const_name(k->consts, v);
		if (name)
			put(buf, len, &at, "%s", name);
		else
			put(buf, len, &at, "%d", (int)v);
		break;
	default:
		put_call(buf, len, &at, kind, v, args);
	}
	return at;
}

/* Which futex ops read which of the arguments after val, as strace shows them. */
static bool futex_shows(uint64_t op, unsigned int kind)
{
	unsigned int cmd = op & FUTEX_CMD_MASK;

	switch (kind) {
	case SA_FUTEX_VAL2:
		return cmd != FUTEX_WAKE && cmd != FUTEX_FD && cmd != FUTEX_UNLOCK_PI &&
		       cmd != FUTEX_TRYLOCK_PI;
	case SA_FUTEX_ADDR2:
		return cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP ||
		       cmd == FUTEX_WAIT_REQUEUE_PI || cmd == FUTEX_CMP_REQUEUE_PI;
	case SA_FUTEX_VAL3:
		return cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP ||
		       cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET ||
		       cmd == FUTEX_CMP_REQUEUE_PI;
	}
	return true;
}

int syscall__arg_shown(const struct syscall_info *si, const __u64 *args, unsigned int i)
{
	unsigned int cmd;

	if (i >= si->nargs)
		return 0;
	switch (si->arg[i]) {
	case SA_OMODE:
		/* open's and openat's flags are the argument before the mode */
		return i == 0 || (args[i - 1] & O_CREAT) ||
		       (args[i - 1] & __O_TMPFILE) == __O_TMPFILE;
	case SA_FUTEX_VAL2:
	case SA_FUTEX_ADDR2:
	case SA_FUTEX_VAL3:
		return futex_shows(args[1], si->arg[i]);
	case SA_CLONE_PTID:
		return !!(args[0] & (CLONE_PARENT_SETTID | CLONE_PIDFD));
	case SA_CLONE_CTID:
		return !!(args[0] & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID));
	case SA_CLONE_TLS:
		return !!(args[0] & CLONE_SETTLS);
	case SA_FCNTL_ARG:
		cmd = args[1];
		return !(cmd == F_GETFD || cmd == F_GETFL || cmd == F_GETOWN || cmd == F_GETSIG ||
			 cmd == F_GETLEASE || cmd == F_GETPIPE_SZ || cmd == F_GET_SEALS);
	}
	return 1;
}

static unsigned int rank(const struct syscall_info *si, unsigned int i)
{
	return (si->arg[i] < SA_NKINDS ? kinds[si->arg[i]].rank : 0) * 8 + i;
}

unsigned int syscall__arg_at(const struct syscall_info *si, unsigned int n)
{
	unsigned int at = 0;

	/* the argument with n others before it; six at most, so no sort */
	for (unsigned int i = 0; i < si->nargs; i++) {
		at = 0;
		for (unsigned int j = 0; j < si->nargs; j++)
			at += rank(si, j) < rank(si, i);
		if (at == n)
			return i;
	}
	return n;
}

const char *syscall__arg_label(const struct syscall_info *si, unsigned int i)
{
	return i < 6 && si->arg[i] < SA_NKINDS ? kinds[si->arg[i]].label : NULL;
}

/* Kernel-internal errnos a traced call can end with when a signal interrupts it. */
static const struct sc_const restarts[] = {
	{ 512, "ERESTARTSYS (To be restarted if SA_RESTART is set)" },
	{ 513, "ERESTARTNOINTR (To be restarted)" },
	{ 514, "ERESTARTNOHAND (To be restarted if no handler)" },
	{ 516, "ERESTART_RESTARTBLOCK (Interrupted by signal)" },
	END,
};

static void put_errno(char *buf, size_t len, size_t *at, int e)
{
	const char *name = strerrorname_np(e), *restart = const_name(restarts, e);

	if (restart)
		put(buf, len, at, "? %s", restart);
	else if (name)
		put(buf, len, at, "-1 %s (%s)", name, strerror(e));
	else
		put(buf, len, at, "-1 E%d (%s)", e, strerror(e));
}

int syscall__decode_ret(char *buf, size_t len, const struct syscall_info *si, const __u64 *args,
			int64_t ret)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	if (ret < 0 && ret >= -4095) {
		put_errno(buf, len, &at, -ret);
		return at;
	}
	if (si && si->nr == SYS_mmap) {
		put(buf, len, &at, "%#llx", (unsigned long long)ret);
	} else if (si && si->nr == SYS_fcntl && args[1] == F_GETFL) {
		put(buf, len, &at, "%#llx (flags ", (unsigned long long)ret);
		put_flags(buf, len, &at, &kinds[SA_OFLAGS], ret);
		put(buf, len, &at, ")");
	} else if (si && si->nr == SYS_fcntl && args[1] == F_GETFD && ret) {
		put(buf, len, &at, "%#llx (flags ", (unsigned long long)ret);
		put_bits(buf, len, &at, fd_bits, ret, true);
		put(buf, len, &at, ")");
	} else {
		put(buf, len, &at, "%lld", (long long)ret);
	}
	return at;
}
