// SPDX-License-Identifier: GPL-2.0
/*
 * Issuing one op: path calls resolved inside the root (sandbox.c), fd calls
 * through the remap table (fdops.c), and the calls that make fds, processes
 * and mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/path.h"
#include "replay/replay.h"
#include "replay/run.h"

bool op__is_io(enum rp_kind k)
{
	return k >= RK_OPEN && k != RK_CLONE && k != RK_EXEC;
}

bool op__busy_poll(const struct rp_op *op)
{
	return op->kind == RK_WAIT && op->a[0] < 0 && !op->a[2];
}

/*
 * The direct I/O offset alignment FD's filesystem asks for, as RP_FL_DIO_*
 * bits: statx's STATX_DIOALIGN where the filesystem reports it (ext4, xfs:
 * the device's logical block), its block size where not (btrfs: the sector
 * size, 4 KiB).
 */
static uint8_t dio_align_flags(int fd)
{
	struct statx st;
	uint32_t a;
	uint8_t lg = 0;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st))
		return 0;
	a = (st.stx_mask & STATX_DIOALIGN) && st.stx_dio_offset_align ? st.stx_dio_offset_align :
									st.stx_blksize;
	if (a < 512 || a > 65536 || (a & (a - 1)))
		return 0;
	while ((1u << lg) < a)
		lg++;
	return (uint8_t)((lg - 8) << RP_FL_DIO_SHIFT);
}

static int64_t op_open(struct rp_plan *p, struct rp_op *op)
{
	int flags = op->a[0] | (op->nonblock ? O_NONBLOCK : 0), fd;
	uint8_t fl = flags & O_CLOEXEC ? RP_FL_CLOEXEC : 0;

	if (sandbox__host_dev(op->path)) {
		fd = open(op->path, O_RDONLY | O_CLOEXEC | (flags & O_NONBLOCK));
		fl |= RP_FL_EMUL_WRITE;
	} else {
		fd = sandbox__open_in(op->root, op->path, flags, op->a[1]);
	}
	if (fd < 0)
		return sandbox__host_dev(op->path) ? -errno : fd;
	if (op->ret < 0) {
		close(fd); /* the trace's open failed: keep no fd for it */
		return 0;
	}
	if (flags & O_DIRECT)
		fl |= dio_align_flags(fd);
	fd__set(p, op->pidx, op->fd2, fd, fl);
	return op->ret;
}

/* readlinkat(fd, "") of an O_PATH fd that is not a symlink says ENOENT; the
 * application's readlink of the same path got EINVAL. */
static int64_t op_readlink(int fd, char *buf, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return -EINVAL;
	return sys_res(readlinkat(fd, "", buf, size));
}

/* Calls on a path that follow it: done on an O_PATH fd opened in the root. */
static int64_t op_on_path(struct rp_op *op)
{
	int nofollow = op->kind == RK_READLINK || (op->kind == RK_STAT && op->a[0]);
	int fd = sandbox__open_in(op->root, op->path, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0),
	    r = 0;
	char buf[PATH_MAX];
	struct stat st;

	if (fd < 0)
		return fd;
	if (op->kind == RK_STAT)
		r = fstat(fd, &st) ? -errno : 0;
	else if (op->kind == RK_READLINK)
		r = op_readlink(fd, buf, sizeof(buf));
	close(fd);
	return r;
}

static int64_t op_truncate(const struct rp_op *op)
{
	int fd = sandbox__open_in(op->root, op->path, O_WRONLY, 0);
	int64_t r;

	if (fd < 0)
		return fd;
	r = ftruncate(fd, op->a[1]) ? -errno : 0;
	close(fd);
	return r;
}

/* linkat with AT_SYMLINK_FOLLOW would follow the link with the host's view:
 * resolve it in the root instead and link the result. */
static int64_t op_link(int p1, const char *l1, int p2, const char *l2, const struct rp_op *op)
{
	int fd, r;

	if (!(op->a[0] & AT_SYMLINK_FOLLOW))
		return linkat(p1, l1, p2, l2, 0) ? -errno : 0;
	fd = sandbox__open_in(op->root, op->path, O_PATH, 0);
	if (fd < 0)
		return fd;
	r = linkat(fd, "", p2, l2, AT_EMPTY_PATH) ? -errno : 0;
	close(fd);
	return r;
}

static int64_t op_two_names(struct rp_op *op)
{
	char b1[PATH_MAX], b2[PATH_MAX];
	const char *l1, *l2;
	int p1, p2;
	int64_t r;

	if (!op->path2) {
		report__note(op, RR_PATH_UNKNOWN);
		return RP_SKIPPED;
	}
	p1 = sandbox__parent(op->root, op->path, b1, &l1);
	if (p1 < 0)
		return p1;
	p2 = sandbox__parent(op->root2, op->path2, b2, &l2);
	if (p2 < 0) {
		close(p1);
		return p2;
	}
	if (op->kind == RK_RENAME)
		r = renameat2(p1, l1, p2, l2, op->a[0]) ? -errno : 0;
	else
		r = op_link(p1, l1, p2, l2, op);
	close(p1);
	close(p2);
	return r;
}

static int64_t op_name(const struct rp_op *op)
{
	char buf[PATH_MAX];
	const char *last;
	int pfd = sandbox__parent(op->root, op->path, buf, &last);
	int64_t r = RP_SKIPPED;

	if (pfd < 0)
		return pfd;
	if (op->kind == RK_MKDIR)
		r = mkdirat(pfd, last, op->a[1] & 07777) ? -errno : 0;
	else if (op->kind == RK_UNLINK)
		r = unlinkat(pfd, last, op->a[0] & AT_REMOVEDIR) ? -errno : 0;
	else if (op->kind == RK_SYMLINK && op->path2)
		r = symlinkat(op->path2, pfd, last) ? -errno : 0;
	close(pfd);
	return r;
}

static int64_t op_path(struct rp_plan *p, struct rp_op *op)
{
	if (!op->path) {
		report__note(op, RR_PATH_UNKNOWN);
		return RP_SKIPPED;
	}
	/* not in the sandbox, but for a few harmless devices taken from the host */
	if (path__outside_fs(op->path) && !(op->kind == RK_OPEN && sandbox__host_dev(op->path))) {
		report__note(op, RR_PSEUDO_FS);
		return RP_SKIPPED;
	}
	switch (op->kind) {
	case RK_OPEN:
		return op_open(p, op);
	case RK_STAT:
	case RK_READLINK:
	case RK_ACCESS:
		return op_on_path(op);
	case RK_TRUNCATE:
		return op_truncate(op);
	case RK_RENAME:
	case RK_LINK:
		return op_two_names(op);
	default:
		return op_name(op);
	}
}

static int64_t op_pair(struct rp_plan *p, const struct rp_op *op)
{
	int nb = op->nonblock ? O_NONBLOCK : 0, fds[2];
	uint8_t fl = op->a[2] & O_CLOEXEC ? RP_FL_CLOEXEC : 0;

	if (op->kind == RK_PIPE && pipe2(fds, (op->a[2] | nb | O_CLOEXEC) & ~O_DIRECT))
		return -errno;
	if (op->kind == RK_SOCKETPAIR) {
		fl = op->a[1] & SOCK_CLOEXEC ? RP_FL_CLOEXEC : 0;
		if (socketpair(op->a[0], op->a[1] | SOCK_CLOEXEC | (nb ? SOCK_NONBLOCK : 0),
			       op->a[2], fds))
			return -errno;
	}
	/* an end the trace never used is closed: a read sees EOF, never hangs */
	fd__set(p, op->pidx, op->fd, fds[0], fl);
	fd__set(p, op->pidx, op->fd2, fds[1], fl);
	return 0;
}

static int64_t op_eventfd(struct rp_plan *p, const struct rp_op *op)
{
	int fd = eventfd(op->a[0], op->a[2] | EFD_CLOEXEC | (op->nonblock ? EFD_NONBLOCK : 0));

	if (fd < 0)
		return -errno;
	fd__set(p, op->pidx, op->fd2, fd,
		RP_FL_EVENTFD | (op->a[2] & EFD_CLOEXEC ? RP_FL_CLOEXEC : 0));
	return op->ret;
}

/* fork: the child's table is a copy of the parent's, sharing open files;
 * the parent's slots from before the fork are the child's first a[1]. */
static int64_t op_clone(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_proc *from = &p->pr[op->pidx];

	if (op->a[0] < 0 || op->ret < 0)
		return op->ret;
	for (uint32_t k = 0; k < op->a[1] && k < from->nslot; k++) {
		int fd = atomic_load(&from->fd[k]);
		uint8_t fl = atomic_load(&from->fdfl[k]);

		if (fd >= 0)
			fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		fd__set(p, op->a[0], k,
			fd < 0 && fd != RP_FD_SINK && fd != RP_FD_GONE ? RP_FD_UNSET : fd, fl);
	}
	return op->ret;
}

static int64_t op_exec(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_proc *pr = &p->pr[op->pidx];

	if (op->ret < 0)
		return op->ret;
	for (uint32_t k = 0; k < pr->nslot; k++)
		if (atomic_load(&pr->fdfl[k]) & RP_FL_CLOEXEC)
			fd__set(p, op->pidx, k, RP_FD_UNSET, 0);
	return op->ret;
}

static int64_t op_unmap(struct rp_plan *p, struct rp_op *op)
{
	char *m = p->maps[op->fd2];

	if (!m) {
		report__note(op, RR_FD_NOT_MADE);
		return RP_SKIPPED;
	}
	if (op->kind == RK_MSYNC)
		return msync(m + op->a[2], op->a[0], op->a[1]) ? -errno : 0;
	if (op->a[1]) {
		p->maps[op->fd2] = NULL;
		return munmap(m, op->a[0]) ? -errno : 0;
	}
	/*
	 * Part of a mapping: not munmap.  The range stays reserved,
	 * inaccessible, so that nothing else of the replayer's (Open MPI's
	 * allocator, a library) is put there and then unmapped by the trace's
	 * next munmap of it (which finds the mapping still live), or written by
	 * another thread's late page touch.  The pages go as munmap's would.
	 */
	if (mmap(m + op->a[2], op->a[0], PROT_NONE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return -errno;
	return 0;
}

/* Every slot of the process whose recorded number is in [a[0], a[1]]: the
 * closed ones are unset already, the open one of each number is current. */
static int64_t op_close_range(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_proc *pr = &p->pr[op->pidx];

	for (uint32_t k = 0; k < pr->nslot; k++) {
		if (pr->slot_fd[k] < op->a[0] || pr->slot_fd[k] > op->a[1])
			continue;
		if (op->a[2] & CLOSE_RANGE_CLOEXEC)
			atomic_fetch_or(&pr->fdfl[k], RP_FL_CLOEXEC);
		else
			fd__set(p, op->pidx, k, RP_FD_UNSET, 0);
	}
	return 0;
}

/*
 * Multi-host: a process's exit closes its sockets, and the other end, on
 * another host, reads end-of-file, as it did; the replay is one process
 * that outlives them, and a peer on another rank would wait for ever.
 * Sockets only: another thread of the process may still be replaying its
 * calls on files in this order.
 */
static void op_exit(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_proc *pr = &p->pr[op->pidx];
	struct stat st;

	if (!mhost__active() || strcmp(p->calls[op->call], "exit_group"))
		return;
	for (uint32_t k = 0; k < pr->nslot; k++) {
		int fd = atomic_load(&pr->fd[k]);

		if (fd >= 0 && !fstat(fd, &st) && S_ISSOCK(st.st_mode))
			fd__set(p, op->pidx, k, RP_FD_UNSET, 0);
	}
}

static int64_t op_run(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emulated)
{
	if (op->peer >= 0 && (op->kind == RK_READ || op->kind == RK_READV))
		return peer__read(p, t, op, emulated);
	if (op->xwait)
		mhost__await(p, op->kind == RK_WAIT ? &p->ops[op->xread] : op);
	/* a write the trace's client made fail */
	if (op->peer >= 0 && (op->ret == -EPIPE || op->ret == -ECONNRESET) &&
	    (op->kind == RK_SEND || op->kind == RK_WRITE || op->kind == RK_WRITEV ||
	     op->kind == RK_SENDFILE))
		peer__hangup(p, op);
	switch (op->kind) {
	case RK_SKIP:
		if (!op->reason)
			report__note(op, RR_UNSUPPORTED);
		return RP_SKIPPED;
	case RK_EXIT:
		op_exit(p, op);
		return op->ret;
	case RK_IGNORE:
	case RK_WAIT:
	case RK_SLEEP:
		return op->ret;
	case RK_OPEN:
	case RK_MKDIR:
	case RK_UNLINK:
	case RK_RENAME:
	case RK_SYMLINK:
	case RK_LINK:
	case RK_STAT:
	case RK_ACCESS:
	case RK_READLINK:
	case RK_TRUNCATE:
		return op_path(p, op);
	case RK_PIPE:
	case RK_SOCKETPAIR:
		return op_pair(p, op);
	case RK_EVENTFD:
		return op_eventfd(p, op);
	case RK_SYNC:
		sync();
		return 0;
	case RK_CLONE:
		return op_clone(p, op);
	case RK_EXEC:
		return op_exec(p, op);
	case RK_MUNMAP:
	case RK_MSYNC:
		return op_unmap(p, op);
	case RK_ATTR:
		return attr__op(p, op, emulated);
	case RK_CLOSE_RANGE:
		return op_close_range(p, op);
	case RK_SOCKET:
	case RK_BIND:
	case RK_LISTEN:
	case RK_CONNECT:
	case RK_ACCEPT:
	case RK_SEND:
	case RK_RECV:
	case RK_SHUTDOWN:
	case RK_SENDFILE:
		return netops__op(p, t, op, emulated);
	default:
		return fd__op(p, t, op, emulated);
	}
}

/* The fd slots OP makes when it succeeds, in S; how many. */
static int op_made_slots(const struct rp_op *op, int32_t s[2])
{
	switch (op->kind) {
	case RK_PIPE:
	case RK_SOCKETPAIR:
		s[0] = op->fd, s[1] = op->fd2;
		return 2;
	case RK_OPEN:
	case RK_DUP:
	case RK_DUP2:
	case RK_EVENTFD:
	case RK_SOCKET:
	case RK_ACCEPT:
		s[0] = op->fd2;
		return 1;
	case RK_RECV:
		s[0] = op->fd2;
		return op->fd2 >= 0;
	default:
		return 0;
	}
}

int64_t op__issue(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emulated)
{
	int64_t r;
	int32_t s[2];

	*emulated = false;
	r = op_run(p, t, op, emulated);
	if (op->peer >= 0)
		peer__done(p, op);
	/* made in the trace, not here (failed, counted; or skipped): the calls
	 * on the fd are skipped, not each failed again */
	if (r < 0 && op->ret >= 0)
		for (int k = op_made_slots(op, s); k-- > 0;)
			if (fd__get(p, op, s[k]) == RP_FD_UNSET)
				fd__set(p, op->pidx, s[k], RP_FD_GONE, 0);
	return r;
}
