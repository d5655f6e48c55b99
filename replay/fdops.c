// SPDX-License-Identifier: GPL-2.0
/*
 * Ops on fds: the recorded fd goes through its process's remap table; data
 * moves through the thread's page-aligned buffer.  An fd outside the sandbox
 * (a terminal, a pipe to the tracer) is a sink whose calls are emulated with
 * their recorded results; an fd the replay never got (its open was skipped)
 * makes the op skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/run.h"

int fd__get(const struct rp_plan *p, const struct rp_op *op, int32_t slot)
{
	const struct rp_proc *pr = &p->pr[op->pidx];

	/* no slot: an fd the trace used and never showed the making of */
	if (slot < 0 || (uint32_t)slot >= pr->nslot)
		return RP_FD_GONE;
	return atomic_load_explicit(&pr->fd[slot], memory_order_acquire);
}

/*
 * The result of a call on slot value FD, which is no fd: RP_FD_GONE, the call
 * that made it was not replayed, and neither is this one (it is counted as
 * skipped).  RP_FD_UNSET where the trace had the fd open: the call came
 * before the one that makes it (an order without that dep) or after a close,
 * and fails as the kernel fails it, so that the report counts it.
 */
int64_t fd__missing(struct rp_op *op, int fd)
{
	if (op->ret == -EBADF)
		return -EBADF;
	if (fd == RP_FD_UNSET && op->ret >= 0) {
		report__note(op, RR_FD_NOT_OPEN);
		return -EBADF;
	}
	report__note(op, RR_FD_NOT_MADE);
	return RP_SKIPPED;
}

/* Points fd slot SLOT of process PIDX at FD, closing what it pointed at. */
void fd__set(struct rp_plan *p, uint32_t pidx, int64_t slot, int fd, uint8_t fl)
{
	struct rp_proc *pr = &p->pr[pidx];
	int old;

	if (slot < 0 || (uint64_t)slot >= pr->nslot) {
		if (fd >= 0)
			close(fd);
		return;
	}
	atomic_store_explicit(&pr->fdfl[slot], fl, memory_order_relaxed);
	old = atomic_exchange_explicit(&pr->fd[slot], fd, memory_order_acq_rel);
	if (old >= 0 && old != fd)
		close(old);
}

static uint8_t fd_flags(const struct rp_plan *p, const struct rp_op *op, int32_t slot)
{
	return atomic_load_explicit(&p->pr[op->pidx].fdfl[slot], memory_order_relaxed);
}

static size_t io_len(const struct rp_thread *t, const struct rp_op *op)
{
	uint64_t n = op->a[0] > 0 ? (uint64_t)op->a[0] : 0;

	return n < t->bufsz ? n : t->bufsz;
}

/*
 * The data calls go through syscall(): the libc wrappers are cancellation
 * points, and in a threaded process each one switches asynchronous
 * cancellation on and off with two atomic exchanges, a tenth of the cost of
 * a cached 4 KiB pread.  The replayer never cancels its threads.
 */
/*
 * An O_DIRECT pread not aligned for the replay's filesystem (recorded on an
 * ext4 whose loop device has 512-byte sectors, replayed on btrfs with 4 KiB
 * ones): issued as recorded, btrfs would serve it from the page cache and
 * ext4 or xfs would refuse it, where the application, run there, aligns its
 * reads to what the filesystem asks (RocksDB does).  So the replay reads
 * the smallest aligned range that covers the recorded one, and returns the
 * bytes of the recorded range.  A call that failed in the trace is issued
 * as it was.
 */
static int64_t fd_dio_pread(struct rp_thread *t, const struct rp_op *op, int fd, uint8_t fl)
{
	uint64_t a = 1ull << (((fl & RP_FL_DIO_MASK) >> RP_FL_DIO_SHIFT) + 8);
	uint64_t off = op->a[1], len = io_len(t, op);
	uint64_t lo = off & ~(a - 1), hi = (off + len + a - 1) & ~(a - 1);
	ssize_t r;

	if (!((off | len) & (a - 1)) || op->ret < 0 || hi - lo > t->bufsz)
		return sys_res(syscall(SYS_pread64, fd, t->buf, len, off));
	t->dio_aligned++;
	r = syscall(SYS_pread64, fd, t->buf, hi - lo, lo);
	if (r < 0)
		return -errno;
	r -= off - lo;
	return r < 0 ? 0 : (uint64_t)r > len ? (int64_t)len : r;
}

static int64_t fd_io(struct rp_thread *t, const struct rp_op *op, int fd, uint8_t fl)
{
	static const uint64_t one = 1;
	struct iovec iov = { t->buf, io_len(t, op) };
	ssize_t r;

	/* the buffer's bytes as a count would overflow an eventfd on the
	 * second write (EAGAIN, or a reader that never sees it drained) */
	if ((fl & RP_FL_EVENTFD) && iov.iov_len == sizeof(one) &&
	    (op->kind == RK_WRITE || op->kind == RK_WRITEV))
		iov.iov_base = (void *)&one;
	switch (op->kind) {
	case RK_READ:
		r = syscall(SYS_read, fd, iov.iov_base, iov.iov_len);
		break;
	case RK_WRITE:
		r = syscall(SYS_write, fd, iov.iov_base, iov.iov_len);
		break;
	case RK_PREAD:
		if (fl & RP_FL_DIO_MASK)
			return fd_dio_pread(t, op, fd, fl);
		r = syscall(SYS_pread64, fd, iov.iov_base, iov.iov_len, op->a[1]);
		break;
	case RK_PWRITE:
		r = syscall(SYS_pwrite64, fd, iov.iov_base, iov.iov_len, op->a[1]);
		break;
	case RK_READV:
		r = readv(fd, &iov, 1);
		break;
	case RK_WRITEV:
		r = writev(fd, &iov, 1);
		break;
	case RK_PREADV:
		r = preadv2(fd, &iov, 1, op->a[1], op->a[2]);
		break;
	case RK_PWRITEV:
		r = pwritev2(fd, &iov, 1, op->a[1], op->a[2]);
		break;
	case RK_GETDENTS:
		r = syscall(SYS_getdents64, fd, iov.iov_base, iov.iov_len);
		break;
	default:
		return RP_SKIPPED;
	}
	return sys_res(r);
}

static int64_t fd_misc(const struct rp_op *op, int fd)
{
	struct stat st;
	long r;

	switch (op->kind) {
	case RK_LSEEK:
		r = lseek(fd, op->a[1], op->a[2]);
		break;
	case RK_FSYNC:
		r = fsync(fd);
		break;
	case RK_FDATASYNC:
		r = fdatasync(fd);
		break;
	case RK_SYNCFS:
		r = syncfs(fd);
		break;
	case RK_SYNC_RANGE:
		r = sync_file_range(fd, op->a[1], op->a[0], op->a[2]);
		break;
	case RK_FTRUNCATE:
		r = ftruncate(fd, op->a[1]);
		break;
	case RK_FALLOCATE:
		r = fallocate(fd, op->a[2], op->a[1], op->a[0]);
		break;
	case RK_FSTAT:
		r = fstat(fd, &st);
		break;
	case RK_FADVISE:
		r = posix_fadvise(fd, op->a[1], op->a[0], op->a[2]);
		return -(int64_t)r;
	case RK_READAHEAD:
		r = readahead(fd, op->a[1], op->a[0]);
		break;
	default:
		return RP_SKIPPED;
	}
	return sys_res(r);
}

/* The new fd's number is the recorded one (any number says "success"). */
static int64_t fd_dup(struct rp_plan *p, const struct rp_op *op, int fd, uint8_t fl)
{
	int64_t made = op->ret >= 0 ? op->ret : 0;
	int nfd;

	if (op->kind == RK_DUP2 && op->fd == op->fd2)
		return made;
	/* dup2 onto an open newfd closes it first */
	if (op->kind == RK_DUP2 && op->a[1] >= 0)
		fd__set(p, op->pidx, op->a[1], RP_FD_UNSET, 0);
	fl &= ~RP_FL_CLOEXEC;
	if (op->a[0])
		fl |= RP_FL_CLOEXEC;
	if (fd == RP_FD_SINK) {
		fd__set(p, op->pidx, op->fd2, RP_FD_SINK, fl);
		return made;
	}
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd < 0)
		return -errno;
	fd__set(p, op->pidx, op->fd2, nfd, fl);
	return made;
}

static int64_t fd_fcntl(struct rp_plan *p, struct rp_op *op, int fd, uint8_t fl, bool *emul)
{
	long r;

	if (fcntl__is_lock(op->a[1]) || fcntl__is_hint(op->a[1])) {
		report__note(op, fcntl__is_lock(op->a[1]) ? RR_RECORD_LOCK : RR_ARG_UNKNOWN);
		*emul = true;
		return op->ret;
	}
	if (op->a[1] == F_SETFD) {
		fl = (fl & ~RP_FL_CLOEXEC) | (op->a[2] & FD_CLOEXEC ? RP_FL_CLOEXEC : 0);
		atomic_store(&p->pr[op->pidx].fdfl[op->fd], fl);
		return 0;
	}
	if (op->a[1] == F_GETFD)
		return fl & RP_FL_CLOEXEC ? FD_CLOEXEC : 0;
	if (fd == RP_FD_SINK)
		return op->ret;
	r = fcntl(fd, op->a[1], op->a[2]);
	return sys_res(r);
}

static int64_t fd_close(struct rp_plan *p, struct rp_op *op, int fd, bool *emul)
{
	if (fd == RP_FD_UNSET) {
		if (op->ret >= 0)
			report__note(op, RR_FD_NOT_OPEN);
		return op->ret < 0 ? op->ret : -EBADF;
	}
	if (fd < 0) {
		report__note(op, fd == RP_FD_SINK ? RR_OUTSIDE : RR_FD_NOT_MADE);
		*emul = true;
		fd__set(p, op->pidx, op->fd, RP_FD_UNSET, 0);
		return op->ret < 0 ? op->ret : 0;
	}
	/* take it out of the table first: no other thread may close it twice */
	fd__set(p, op->pidx, op->fd, RP_FD_UNSET, 0);
	return 0;
}

static int64_t fd_mmap(struct rp_plan *p, const struct rp_op *op, int fd)
{
	int flags = op->a[3] & ~(MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN);
	void *m = mmap(NULL, op->a[0], op->a[2], flags, fd, op->a[1]);

	if (m == MAP_FAILED)
		return -errno;
	p->maps[op->fd2] = m;
	return op->ret;
}

/*
 * A read of a pipe that saw end-of-file in the trace, while the replay still
 * has a writer of it: the writer's copy is about to go (a vfork child's exec
 * closes it), but the trace may order that exec after this read (gcc's
 * driver reads its exec-error pipe while its child execs), and a blocking
 * read would wait for it forever.  Answered 0 at once instead.
 */
static bool fd_eof_early(struct rp_op *op, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct stat st;

	if (op->ret || !op->stream || (op->kind != RK_READ && op->kind != RK_READV))
		return false;
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || poll(&pfd, 1, 0) != 0)
		return false;
	report__note(op, RR_EOF_EARLY);
	return true;
}

/* An op whose fd is a sink or a host device: what would it have done? */
static int64_t fd_emulate(struct rp_op *op, int fd, uint8_t fl, bool *emul)
{
	bool writes = op->kind == RK_WRITE || op->kind == RK_PWRITE || op->kind == RK_WRITEV ||
		      op->kind == RK_PWRITEV;

	if (fd == RP_FD_SINK || (writes && (fl & RP_FL_EMUL_WRITE))) {
		report__note(op, fd == RP_FD_SINK ? RR_OUTSIDE : RR_HOST_DEV);
		*emul = true;
		return op->ret;
	}
	return RP_SKIPPED;
}

int64_t fd__op(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul)
{
	int fd = fd__get(p, op, op->fd);
	uint8_t fl = fd >= 0 || fd == RP_FD_SINK ? fd_flags(p, op, op->fd) : 0;
	int64_t r;

	if (op->kind == RK_CLOSE)
		return fd_close(p, op, fd, emul);
	if (fd == RP_FD_UNSET || fd == RP_FD_GONE)
		return fd__missing(op, fd);
	if (op->kind == RK_DUP || op->kind == RK_DUP2)
		return fd_dup(p, op, fd, fl);
	if (op->kind == RK_FCNTL)
		return fd_fcntl(p, op, fd, fl, emul);
	r = fd_emulate(op, fd, fl, emul);
	if (r != RP_SKIPPED)
		return r;
	if (fd_eof_early(op, fd)) {
		*emul = true;
		return 0;
	}
	if (op->kind == RK_MMAP)
		return fd_mmap(p, op, fd);
	r = fd_io(t, op, fd, fl);
	if (op->kind == RK_GETDENTS && r >= 0 && r != op->ret)
		report__note(op, RR_DIR_CONTENTS);
	return r != RP_SKIPPED ? r : fd_misc(op, fd);
}
