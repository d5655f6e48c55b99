// SPDX-License-Identifier: GPL-2.0
/*
 * Event line -> op: the call's kind and its arguments in the form the replay
 * issues them, so that nothing is parsed while replaying.  Paths are made
 * absolute here (the sandbox maps "/" to its root at run time).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/limits.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "replay/load.h"
#include "replay/replay.h"

struct kind_name {
	const char *name;
	enum rp_kind kind;
};

static const struct kind_name kinds[] = {
	{ "open", RK_OPEN },
	{ "openat", RK_OPEN },
	{ "creat", RK_OPEN },
	{ "close", RK_CLOSE },
	{ "read", RK_READ },
	{ "write", RK_WRITE },
	{ "pread64", RK_PREAD },
	{ "pwrite64", RK_PWRITE },
	{ "readv", RK_READV },
	{ "writev", RK_WRITEV },
	{ "preadv", RK_PREADV },
	{ "pwritev", RK_PWRITEV },
	{ "preadv2", RK_PREADV },
	{ "pwritev2", RK_PWRITEV },
	{ "lseek", RK_LSEEK },
	{ "fsync", RK_FSYNC },
	{ "fdatasync", RK_FDATASYNC },
	{ "syncfs", RK_SYNCFS },
	{ "sync", RK_SYNC },
	{ "sync_file_range", RK_SYNC_RANGE },
	{ "ftruncate", RK_FTRUNCATE },
	{ "truncate", RK_TRUNCATE },
	{ "fallocate", RK_FALLOCATE },
	{ "fadvise64", RK_FADVISE },
	{ "readahead", RK_READAHEAD },
	{ "mkdir", RK_MKDIR },
	{ "mkdirat", RK_MKDIR },
	{ "unlink", RK_UNLINK },
	{ "unlinkat", RK_UNLINK },
	{ "rmdir", RK_UNLINK },
	{ "rename", RK_RENAME },
	{ "renameat", RK_RENAME },
	{ "renameat2", RK_RENAME },
	{ "symlink", RK_SYMLINK },
	{ "symlinkat", RK_SYMLINK },
	{ "link", RK_LINK },
	{ "linkat", RK_LINK },
	{ "stat", RK_STAT },
	{ "lstat", RK_STAT },
	{ "newfstatat", RK_STAT },
	{ "statx", RK_STAT },
	{ "fstat", RK_FSTAT },
	{ "access", RK_ACCESS },
	{ "faccessat", RK_ACCESS },
	{ "faccessat2", RK_ACCESS },
	{ "readlink", RK_READLINK },
	{ "readlinkat", RK_READLINK },
	{ "getdents64", RK_GETDENTS },
	{ "pipe", RK_PIPE },
	{ "pipe2", RK_PIPE },
	{ "socketpair", RK_SOCKETPAIR },
	{ "eventfd", RK_EVENTFD },
	{ "eventfd2", RK_EVENTFD },
	{ "dup", RK_DUP },
	{ "dup2", RK_DUP2 },
	{ "dup3", RK_DUP2 },
	{ "fcntl", RK_DUP },
	{ "mmap", RK_MMAP },
	{ "munmap", RK_MUNMAP },
	{ "msync", RK_MSYNC },
	{ "clone", RK_CLONE },
	{ "clone3", RK_CLONE },
	{ "fork", RK_CLONE },
	{ "vfork", RK_CLONE },
	{ "execve", RK_EXEC },
	{ "execveat", RK_EXEC },
	{ "exit", RK_EXIT },
	{ "exit_group", RK_EXIT },
	{ "socket", RK_SOCKET },
	{ "bind", RK_BIND },
	{ "listen", RK_LISTEN },
	{ "connect", RK_CONNECT },
	{ "accept", RK_ACCEPT },
	{ "accept4", RK_ACCEPT },
	{ "sendto", RK_SEND },
	{ "sendfile", RK_SENDFILE },
	{ "sendfile64", RK_SENDFILE },
	{ "sendmsg", RK_SEND },
	{ "recvfrom", RK_RECV },
	{ "recvmsg", RK_RECV },
	{ "shutdown", RK_SHUTDOWN },
	{ "chmod", RK_ATTR },
	{ "fchmod", RK_ATTR },
	{ "fchmodat", RK_ATTR },
	{ "chown", RK_ATTR },
	{ "lchown", RK_ATTR },
	{ "fchown", RK_ATTR },
	{ "fchownat", RK_ATTR },
	{ "utimensat", RK_ATTR },
	{ "getxattr", RK_ATTR },
	{ "lgetxattr", RK_ATTR },
	{ "fgetxattr", RK_ATTR },
	{ "listxattr", RK_ATTR },
	{ "llistxattr", RK_ATTR },
	{ "flistxattr", RK_ATTR },
	{ "setxattr", RK_ATTR },
	{ "lsetxattr", RK_ATTR },
	{ "fsetxattr", RK_ATTR },
	{ "removexattr", RK_ATTR },
	{ "lremovexattr", RK_ATTR },
	{ "fremovexattr", RK_ATTR },
	{ "close_range", RK_CLOSE_RANGE },
	/* blocking synchronization: the inferred deps are the wait */
	{ "futex", RK_WAIT },
	{ "poll", RK_WAIT },
	{ "ppoll", RK_WAIT },
	{ "select", RK_WAIT },
	{ "pselect6", RK_WAIT },
	{ "epoll_wait", RK_WAIT },
	{ "epoll_pwait", RK_WAIT },
	{ "epoll_pwait2", RK_WAIT },
	{ "wait4", RK_WAIT },
	{ "waitid", RK_WAIT },
	{ "flock", RK_WAIT },
	{ "nanosleep", RK_SLEEP },
	{ "clock_nanosleep", RK_SLEEP },
	/* not I/O */
	{ "mprotect", RK_IGNORE },
	{ "madvise", RK_IGNORE },
	{ "brk", RK_IGNORE },
	{ "mremap", RK_IGNORE },
	{ "chdir", RK_IGNORE },
	{ "fchdir", RK_IGNORE },
	{ "epoll_create", RK_IGNORE },
	{ "epoll_create1", RK_IGNORE },
	{ "epoll_ctl", RK_IGNORE },
};

enum rp_kind rp_kind__of(const char *call)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, call))
			return kinds[i].kind;
	return RK_SKIP;
}

static int64_t arg_int(json_t *args, const char *key, int64_t def)
{
	json_t *v = json_object_get(args, key);

	return json_is_integer(v) ? json_integer_value(v) : def;
}

/* An fd argument: {"fd":N,...}, a bare number, or "AT_FDCWD". */
static int32_t arg_fd(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);

	if (json_is_object(v))
		v = json_object_get(v, "fd");
	if (json_is_string(v) && !strcmp(json_string_value(v), "AT_FDCWD"))
		return AT_FDCWD;
	return json_is_integer(v) ? (int32_t)json_integer_value(v) : -1;
}

/* The absolute form of path argument KEY: resolved, or absolute, or cwd-relative. */
static const char *arg_path(struct rp_plan *p, struct rp_op *op, json_t *ev, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(ev, "resolved"), key));
	const char *cwd = p->pr[op->pidx].cwd;
	char *out;

	if (s && s[0] == '/')
		return strdup(s);
	s = json_string_value(json_object_get(json_object_get(ev, "args"), key));
	if (!s)
		return NULL;
	if (s[0] == '/')
		return strdup(s);
	if (asprintf(&out, "%s/%s", cwd ? cwd : "", s) < 0)
		return NULL;
	return out;
}

/* A huge count that moved far less (a reader asking for "everything", or
 * a garbled argument) would size every buffer of the thread: the bytes the
 * call moved, but at least 1 MiB, say the same thing to the kernel. */
#define RP_BIG_COUNT (1 << 20)

/* A pipe, socket or character device: a read on it waits for someone else. */
static bool fd_is_stream(json_t *a)
{
	const char *type = json_string_value(json_object_get(json_object_get(a, "fd"), "type"));

	return type && (!strcmp(type, "socket") || !strcmp(type, "fifo") || !strcmp(type, "chr"));
}

static void ev_fd_io(struct rp_op *op, json_t *a)
{
	op->fd = arg_fd(a, "fd");
	op->a[0] = arg_int(a, "count", arg_int(a, "length", 0));
	op->a[1] = arg_int(a, "offset", 0);
	if (op->a[0] > RP_BIG_COUNT && op->ret >= 0 && op->ret < op->a[0])
		op->a[0] = op->ret > RP_BIG_COUNT ? op->ret : RP_BIG_COUNT;
	/* Where a stream read stops is the sender's timing, not the reader's
	 * choice, and a short stream write is the reader's or a signal's: ask a
	 * pipe or socket for what the application got. */
	op->stream = fd_is_stream(a);
	if ((op->kind == RK_READ || op->kind == RK_WRITE) && op->ret > 0 && op->ret < op->a[0] &&
	    op->stream)
		op->a[0] = op->ret;
}

/* readv and friends record no iovec: replay the bytes the call moved. */
static void ev_vec_io(struct rp_op *op, json_t *a)
{
	op->fd = arg_fd(a, "fd");
	op->stream = fd_is_stream(a);
	op->a[0] = op->ret > 0 ? op->ret : 4096;
	op->a[1] = arg_int(a, "pos_l", 0) | (arg_int(a, "pos_h", 0) << 32);
	op->a[2] = arg_int(a, "flags", 0);
}

static void ev_open(struct rp_plan *p, struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	op->path = arg_path(p, op, ev, "pathname");
	op->a[0] = arg_int(a, "flags", 0);
	op->a[1] = arg_int(a, "mode", 0);
	if (!strcmp(call, "creat"))
		op->a[0] = O_CREAT | O_WRONLY | O_TRUNC;
}

/* newfstatat/statx with AT_EMPTY_PATH and "" are fstat on dirfd. */
static void ev_stat(struct rp_plan *p, struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	const char *s = json_string_value(json_object_get(a, "pathname"));
	int64_t fl = arg_int(a, "flags", 0);

	if (s && !s[0] && (fl & AT_EMPTY_PATH)) {
		op->kind = RK_FSTAT;
		op->fd = arg_fd(a, "dirfd");
		return;
	}
	op->path = arg_path(p, op, ev, "pathname");
	op->a[0] = fl & AT_SYMLINK_NOFOLLOW;
	if (!strcmp(call, "lstat"))
		op->a[0] = AT_SYMLINK_NOFOLLOW;
}

static void ev_names(struct rp_plan *p, struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	switch (op->kind) {
	case RK_MKDIR:
		op->path = arg_path(p, op, ev, "pathname");
		op->a[1] = arg_int(a, "mode", 0777);
		break;
	case RK_UNLINK:
		op->path = arg_path(p, op, ev, "pathname");
		op->a[0] = !strcmp(call, "rmdir") ? AT_REMOVEDIR : arg_int(a, "flags", 0);
		break;
	case RK_RENAME:
	case RK_LINK:
		op->path = arg_path(p, op, ev, "oldpath");
		op->path2 = arg_path(p, op, ev, "newpath");
		op->a[0] = arg_int(a, "flags", 0);
		break;
	case RK_SYMLINK:
		/* the link text is stored as written, never resolved */
		op->path2 = json_string_value(json_object_get(a, "target"));
		op->path2 = op->path2 ? strdup(op->path2) : NULL;
		op->path = arg_path(p, op, ev, "linkpath");
		break;
	case RK_TRUNCATE:
		op->path = arg_path(p, op, ev, "path");
		op->a[1] = arg_int(a, "length", 0);
		break;
	case RK_ACCESS:
	case RK_READLINK:
		op->path = arg_path(p, op, ev, "pathname");
		op->a[0] = arg_int(a, "bufsiz", 4096);
		break;
	case RK_STAT:
		ev_stat(p, op, ev, a, call);
		break;
	default:
		ev_open(p, op, ev, a, call);
		break;
	}
}

static void ev_fcntl(struct rp_op *op, json_t *a)
{
	int64_t cmd = arg_int(a, "cmd", -1), arg = arg_int(a, "arg", 0);

	op->fd = arg_fd(a, "fd");
	op->a[1] = cmd;
	op->a[2] = arg;
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		op->a[0] = cmd == F_DUPFD_CLOEXEC; /* stays RK_DUP */
	else if (cmd == F_SETFD || cmd == F_GETFD || cmd == F_GETFL || cmd == F_SETFL ||
		 fcntl__is_lock(cmd) || fcntl__is_hint(cmd))
		op->kind = RK_FCNTL;
	else
		op->kind = RK_SKIP; /* leases, pipe sizes, seals: not yet */
}

static void ev_fds(struct rp_op *op, json_t *a, const char *call)
{
	switch (op->kind) {
	case RK_DUP:
		if (!strcmp(call, "fcntl")) {
			ev_fcntl(op, a);
			return;
		}
		op->fd = arg_fd(a, "oldfd");
		return;
	case RK_DUP2:
		op->fd = arg_fd(a, "oldfd");
		op->fd2 = arg_fd(a, "newfd");
		op->a[0] = arg_int(a, "flags", 0) & O_CLOEXEC;
		op->a[1] = -1; /* track.c: the generation of newfd it ends */
		return;
	case RK_PIPE:
	case RK_EVENTFD:
		op->a[0] = arg_int(a, "initval", 0);
		op->a[2] = arg_int(a, "flags", 0);
		return;
	case RK_SOCKETPAIR:
		op->a[0] = arg_int(a, "domain", 0);
		op->a[1] = arg_int(a, "type", 0);
		op->a[2] = arg_int(a, "protocol", 0);
		return;
	default:
		return;
	}
}

static void ev_mem(struct rp_op *op, json_t *a)
{
	op->a[0] = arg_int(a, "length", 0);
	if (op->kind == RK_MMAP) {
		op->fd = arg_fd(a, "fd");
		op->a[1] = arg_int(a, "offset", 0);
		op->a[2] = arg_int(a, "prot", 0);
		op->a[3] = arg_int(a, "flags", 0);
		if (op->fd < 0 || (op->a[3] & MAP_ANONYMOUS))
			op->kind = RK_IGNORE;
		return;
	}
	/* munmap, msync: the recorded address, matched to a slot by plan.c */
	op->a[1] = arg_int(a, "flags", 0);
	op->a[3] = arg_int(a, "addr", 0);
}

static void ev_fdcalls(struct rp_op *op, json_t *a)
{
	op->fd = arg_fd(a, "fd");
	switch (op->kind) {
	case RK_LSEEK:
		op->a[1] = arg_int(a, "offset", 0);
		op->a[2] = arg_int(a, "whence", 0);
		return;
	case RK_SYNC_RANGE:
		op->a[0] = arg_int(a, "nbytes", 0);
		op->a[1] = arg_int(a, "offset", 0);
		op->a[2] = arg_int(a, "flags", 0);
		return;
	case RK_FTRUNCATE:
		op->a[1] = arg_int(a, "length", 0);
		return;
	case RK_READAHEAD:
		op->a[0] = arg_int(a, "count", 0);
		op->a[1] = arg_int(a, "offset", 0);
		return;
	case RK_FALLOCATE:
	case RK_FADVISE:
		op->a[0] = arg_int(a, "len", 0);
		op->a[1] = arg_int(a, "offset", 0);
		op->a[2] = arg_int(a, "mode", arg_int(a, "advice", 0));
		return;
	default:
		return;
	}
}

/* Sockets: ports as the kernel reported them after the call ("sock"). */
static void ev_sock(struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	json_t *so = json_object_get(ev, "sock");
	int64_t lport = json_integer_value(json_object_get(so, "lport"));
	int64_t rport = json_integer_value(json_object_get(so, "rport"));
	int64_t fam = json_integer_value(json_object_get(so, "family"));
	bool msg = strstr(call, "msg") != NULL;

	op->fd = arg_fd(a, "sockfd");
	switch (op->kind) {
	case RK_SOCKET:
		op->a[0] = arg_int(a, "domain", 0);
		op->a[1] = arg_int(a, "type", 0);
		op->a[2] = arg_int(a, "protocol", 0);
		return;
	case RK_BIND:
	case RK_LISTEN:
	case RK_CONNECT:
	case RK_ACCEPT:
		op->a[0] = op->kind == RK_LISTEN ? arg_int(a, "backlog", 16) :
			   op->kind == RK_ACCEPT ? arg_int(a, "flags", 0) :
						   fam;
		op->a[1] = op->kind == RK_CONNECT || op->kind == RK_ACCEPT ? rport : lport;
		op->a[2] = lport;
		op->a[3] = -1;
		return;
	case RK_SEND:
	case RK_RECV:
		/* msg calls record no iovec: replay the bytes they moved */
		op->a[0] = msg ? (op->ret > 0 ? op->ret : 1) : arg_int(a, "len", 0);
		/* a partial send is the receiver's window or a signal (a
		 * server killed mid-write), not the sender's choice */
		if (op->kind == RK_SEND && op->ret > 0 && op->ret < op->a[0])
			op->a[0] = op->ret;
		op->a[1] = arg_int(a, "flags", 0);
		/* an fd passed with SCM_RIGHTS: the sender's, in use; the
		 * receiver's, made (track.c) */
		if (msg && op->ret > 0 && json_is_integer(json_object_get(ev, "passed_fd")))
			op->fd2 = json_integer_value(json_object_get(ev, "passed_fd"));
		return;
	default:
		op->a[0] = arg_int(a, "how", 0);
		return;
	}
}

/* Metadata changes; utimensat's times are not recorded: "now" is used. */
/* The xattr calls: a1 the size given (it decides ERANGE, and is the length
 * of the value set), a2 setxattr's flags, a3 whether a symlink is acted on
 * itself; path2 the attribute's name */
static void ev_xattr(struct rp_plan *p, struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	const char *name = json_string_value(json_object_get(a, "name"));

	op->a[0] = strstr(call, "list")	  ? RP_ATTR_XLIST :
		   strstr(call, "get")	  ? RP_ATTR_XGET :
		   strstr(call, "remove") ? RP_ATTR_XREMOVE :
					    RP_ATTR_XSET;
	op->a[1] = arg_int(a, "size", 0);
	op->a[1] = op->a[1] < 0 || op->a[1] > XATTR_SIZE_MAX ? XATTR_SIZE_MAX : op->a[1];
	op->a[2] = arg_int(a, "flags", 0);
	op->a[3] = call[0] == 'l';
	if (op->a[0] != RP_ATTR_XLIST && name)
		op->path2 = strdup(name);
	if (call[0] == 'f')
		op->fd = arg_fd(a, "fd");
	else
		op->path = arg_path(p, op, ev, "path");
}

static void ev_attr(struct rp_plan *p, struct rp_op *op, json_t *ev, json_t *a, const char *call)
{
	int64_t fl = arg_int(a, "flags", 0);

	if (strstr(call, "xattr")) {
		ev_xattr(p, op, ev, a, call);
		return;
	}

	op->a[0] = strstr(call, "mod") ? RP_ATTR_MODE :
		   strstr(call, "own") ? RP_ATTR_OWNER :
					 RP_ATTR_TIMES;
	op->a[1] = arg_int(a, op->a[0] == RP_ATTR_MODE ? "mode" : "owner", -1);
	op->a[2] = arg_int(a, "group", -1);
	op->a[3] = !strcmp(call, "lchown") || (fl & AT_SYMLINK_NOFOLLOW);
	if (!strcmp(call, "fchmod") || !strcmp(call, "fchown")) {
		op->fd = arg_fd(a, "fd");
		return;
	}
	if (json_is_null(json_object_get(a, "pathname")) && !strcmp(call, "utimensat")) {
		op->fd = arg_fd(a, "dirfd"); /* utimensat(fd, NULL, ...) */
		return;
	}
	op->path = arg_path(p, op, ev, json_object_get(a, "path") ? "path" : "pathname");
}

/* A wait's timeout in ms where the call takes one (poll, epoll_wait): 0 polls
 * without blocking; -1 for none or one the trace does not say (a pointer). */
static int64_t wait_timeout_ms(json_t *args, const char *call)
{
	if (strcmp(call, "poll") && strcmp(call, "epoll_wait") && strcmp(call, "epoll_pwait"))
		return -1;
	return arg_int(args, "timeout", -1);
}

static void ev_args(struct rp_plan *p, struct rp_op *op, json_t *ev, const char *call)
{
	json_t *a = json_object_get(ev, "args");

	switch (op->kind) {
	case RK_READ:
	case RK_WRITE:
	case RK_PREAD:
	case RK_PWRITE:
	case RK_GETDENTS:
		ev_fd_io(op, a);
		break;
	case RK_WAIT:
		op->a[0] = arg_int(a, "futex_op", -1);
		op->a[1] = arg_int(a, "val", 0);
		op->a[2] = wait_timeout_ms(a, call);
		break;
	case RK_READV:
	case RK_WRITEV:
	case RK_PREADV:
	case RK_PWRITEV:
		ev_vec_io(op, a);
		break;
	case RK_OPEN:
	case RK_MKDIR:
	case RK_UNLINK:
	case RK_RENAME:
	case RK_LINK:
	case RK_SYMLINK:
	case RK_TRUNCATE:
	case RK_ACCESS:
	case RK_READLINK:
	case RK_STAT:
		ev_names(p, op, ev, a, call);
		break;
	case RK_DUP:
	case RK_DUP2:
	case RK_PIPE:
	case RK_EVENTFD:
	case RK_SOCKETPAIR:
		ev_fds(op, a, call);
		break;
	case RK_MMAP:
	case RK_MUNMAP:
	case RK_MSYNC:
		ev_mem(op, a);
		break;
	case RK_ATTR:
		ev_attr(p, op, ev, a, call);
		break;
	case RK_CLOSE_RANGE:
		op->a[0] = arg_int(a, "first", 0);
		op->a[1] = arg_int(a, "last", 0);
		op->a[2] = arg_int(a, "flags", 0);
		break;
	case RK_SOCKET:
	case RK_BIND:
	case RK_LISTEN:
	case RK_CONNECT:
	case RK_ACCEPT:
	case RK_SEND:
	case RK_RECV:
	case RK_SHUTDOWN:
		ev_sock(op, ev, a, call);
		break;
	case RK_SENDFILE:
		op->fd = arg_fd(a, "out_fd");
		op->fd2 = arg_fd(a, "in_fd");
		op->a[0] = arg_int(a, "count", 0);
		/* *offset is not recorded: where the file position was is the
		 * best guess (nginx passes an offset, from 0 for a whole file) */
		op->a[1] = arg_int(a, "offset", 0) ?
				   arg_int(json_object_get(a, "in_fd"), "pos", 0) :
				   -1;
		break;
	case RK_CLOSE:
	case RK_FSTAT:
	case RK_FSYNC:
	case RK_FDATASYNC:
	case RK_SYNCFS:
	case RK_LSEEK:
	case RK_SYNC_RANGE:
	case RK_FTRUNCATE:
	case RK_FALLOCATE:
	case RK_FADVISE:
	case RK_READAHEAD:
		ev_fdcalls(op, a);
		break;
	default:
		break;
	}
}

/* Recorded deps are kept as ids here; compile__plan turns them into indexes. */
static const char *ev_deps(struct rp_op *op, json_t *ev)
{
	json_t *d = json_object_get(ev, "deps"), *o;
	size_t i;

	if (!d)
		return NULL;
	if (!json_is_array(d))
		return "\"deps\" is not an array";
	if (!json_array_size(d))
		return NULL;
	op->deps = calloc(json_array_size(d), sizeof(*op->deps));
	if (!op->deps)
		return "out of memory";
	json_array_foreach(d, i, o) {
		json_t *id = json_object_get(o, "id");

		if (!json_is_integer(id) || json_integer_value(id) < 0 ||
		    json_integer_value(id) >= UINT32_MAX)
			return "dep without a valid \"id\"";
		op->deps[op->ndeps++] = json_integer_value(id);
	}
	return NULL;
}

static const char *ev_times(struct rp_op *op, json_t *ev)
{
	json_t *ret = json_object_get(ev, "ret"), *ts = json_object_get(ev, "ts");
	json_t *id = json_object_get(ev, "id");

	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) >= UINT32_MAX)
		return "no valid \"id\"";
	if (!json_is_integer(ret) || !json_is_integer(ts) || json_integer_value(ts) < 0)
		return "no valid \"ret\" or \"ts\"";
	op->id = json_integer_value(id);
	op->ret = json_integer_value(ret);
	op->ts = json_integer_value(ts);
	op->dur = json_integer_value(json_object_get(ev, "dur"));
	op->compute = json_integer_value(json_object_get(ev, "compute_ns"));
	if (json_integer_value(json_object_get(ev, "outside_ns")) > 0)
		op->outside = json_integer_value(json_object_get(ev, "outside_ns"));
	return NULL;
}

/* "pages": mmap I/O before the call (docs/annotated-format.md). */
static const char *ev_pages(struct rp_op *op, json_t *ev)
{
	json_t *pages = json_object_get(ev, "pages"), *pg;
	size_t i;

	if (!pages)
		return NULL;
	if (!json_is_array(pages))
		return "\"pages\" is not an array";
	op->touch = calloc(json_array_size(pages) + 1, sizeof(*op->touch));
	if (!op->touch)
		return "out of memory";
	json_array_foreach(pages, i, pg) {
		const char *kind = json_string_value(json_object_get(pg, "kind"));
		int64_t n = arg_int(pg, "n", 0), index = arg_int(pg, "index", -1);

		if (!kind || n <= 0 || n > 1024 || index < 0)
			continue; /* nothing sensible to touch */
		op->touch[op->ntouch++] = (struct rp_touch){ .ino = arg_int(pg, "ino", 0),
							     .dev = arg_int(pg, "dev", 0),
							     .index = index,
							     .npages = n,
							     .slot = RP_NONE,
							     .dirty = !strcmp(kind, "dirty"),
							     .write = !strcmp(kind, "dirty") };
		op->touch[op->ntouch - 1].write |= !strcmp(kind, "fault");
	}
	return NULL;
}

/* The (dev, ino) of a file mmap, for graph__mmaps() to match touches. */
static const char *ev_mapfile(struct rp_plan *p, struct rp_op *op, json_t *ev)
{
	json_t *fd = json_object_get(json_object_get(ev, "args"), "fd");
	struct rp_mapfile *v;

	if (op->kind != RK_MMAP || !json_is_object(fd))
		return NULL;
	v = realloc(p->mapfiles, (p->nmapfiles + 1) * sizeof(*v));
	if (!v)
		return "out of memory";
	p->mapfiles = v;
	v[p->nmapfiles++] = (struct rp_mapfile){ .op = op - p->ops,
						 .dev = arg_int(fd, "dev", 0),
						 .ino = arg_int(fd, "ino", 0) };
	return NULL;
}

/* The socket an op uses, by inode: the identity of a connection. */
static void ev_sock_id(struct rp_op *op, json_t *ev)
{
	json_t *so = json_object_get(ev, "sock"), *a = json_object_get(ev, "args"), *fd;
	const char *type;

	fd = json_object_get(a, json_object_get(a, "sockfd") ? "sockfd" :
				json_object_get(a, "out_fd") ? "out_fd" :
							       "fd");
	type = json_string_value(json_object_get(fd, "type"));
	if (op->kind == RK_ACCEPT)
		op->sino = op->ret >= 0 ? json_integer_value(json_object_get(so, "ino")) : 0;
	else if (type && !strcmp(type, "socket"))
		op->sino = json_integer_value(json_object_get(fd, "ino"));
	if (json_is_object(so)) {
		int64_t fam = json_integer_value(json_object_get(so, "family"));
		bool stream = json_integer_value(json_object_get(so, "type")) == SOCK_STREAM;

		op->sfam = stream && (fam == AF_INET || fam == AF_INET6) ? fam : RP_SFAM_OTHER;
	}
}

const char *event__compile(struct rp_plan *p, struct rp_op *op, json_t *ev)
{
	const char *call = json_string_value(json_object_get(ev, "call")), *why;
	json_t *tid = json_object_get(ev, "tid"), *pid = json_object_get(ev, "pid");
	json_t *conn = json_object_get(ev, "conn");
	struct rp_thread *t;
	uint16_t host;

	op->fd = op->fd2 = -1;
	op->peer = -1;
	op->prefeed = op->prefeed_next = RP_NONE;
	op->spin_to = RP_NONE;
	op->fed = RP_FED_NONE;
	op->conn = -1;
	if (json_is_integer(conn) && json_integer_value(conn) >= 0 &&
	    json_integer_value(conn) < INT32_MAX)
		op->conn = json_integer_value(conn);
	if (!call || !json_is_integer(tid) || !json_is_integer(pid))
		return "no \"call\", \"pid\" or \"tid\"";
	if (!json_is_object(json_object_get(ev, "args")))
		return "no \"args\" object";
	why = ev_times(op, ev);
	if (why)
		return why;
	/* events name their host in a multi-host file; one written before they
	 * did matches its thread by tid alone */
	host = RP_ANY_HOST;
	if (p->nhosts > 1 && json_object_get(ev, "host") && parse__host(p, ev, &host))
		return "\"host\" names no host of the file";
	t = plan__thread(p, host, json_integer_value(tid), json_integer_value(pid));
	op->call = plan__call_idx(p, call);
	if (!t || op->call == RP_NONE)
		return "out of memory";
	op->tidx = t - p->th;
	op->pidx = t->pidx;
	op->kind = rp_kind__of(call);
	/* a call in progress at the attach has no arguments to replay */
	if (json_is_true(json_object_get(ev, "no_enter")) && op->kind > RK_EXIT) {
		op->kind = RK_SKIP;
		report__note(op, RR_BEFORE_ATTACH);
	}
	ev_args(p, op, ev, call);
	ev_sock_id(op, ev);
	why = ev_pages(op, ev);
	if (!why)
		why = ev_mapfile(p, op, ev);
	return why ? why : ev_deps(op, ev);
}
