// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time fd bookkeeping, in trace order: which recorded fds each process
 * had before the trace saw them opened (inherited: stdin/out/err, fds from
 * before an attach), which fds a pipe or socketpair returned (the trace
 * records only the call, the numbers appear at their first use), and which
 * process a fork created.
 */
#include <errno.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "rp_event.h"
#include "rp_track.h"

#define TRACK_MAX_FD 65536

struct pending {
	uint32_t op;  /* the pipe or socketpair */
	uint64_t ino; /* a pipe's two ends share one inode */
	bool sock;
};

static struct track {
	uint8_t **known; /* per process: recorded fd is open as far as the trace knows */
	uint32_t nproc;
	struct pending *pend;
	uint32_t npend;
} tk;

static uint8_t *track__known(uint32_t pidx)
{
	if (pidx >= tk.nproc) {
		uint8_t **v = realloc(tk.known, (pidx + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + tk.nproc, 0, (pidx + 1 - tk.nproc) * sizeof(*v));
		tk.known = v;
		tk.nproc = pidx + 1;
	}
	if (!tk.known[pidx])
		tk.known[pidx] = calloc(TRACK_MAX_FD, 1);
	return tk.known[pidx];
}

static bool kind_reads(enum rp_kind k)
{
	return k == RK_READ || k == RK_PREAD || k == RK_READV || k == RK_PREADV || k == RK_RECV;
}

/* The fd object whose number is FD among the event's arguments. */
static json_t *track__fd_info(json_t *ev, int32_t fd)
{
	json_t *args = json_object_get(ev, "args"), *v;
	const char *key;

	json_object_foreach(args, key, v)
	{
		if (json_is_object(v) && json_integer_value(json_object_get(v, "fd")) == fd)
			return v;
	}
	return NULL;
}

/* An fd first seen in use: an end of a pending pipe/socketpair, or inherited. */
static int track__claim_pipe(struct rp_plan *p, struct rp_op *use, int32_t fd, json_t *info)
{
	const char *type = json_string_value(json_object_get(info, "type"));
	uint64_t ino = json_integer_value(json_object_get(info, "ino"));
	bool sock = type && !strcmp(type, "socket");

	if (!type || (!sock && strcmp(type, "fifo")))
		return 0;
	for (uint32_t i = tk.npend; i-- > 0;) {
		struct pending *pd = &tk.pend[i];
		struct rp_op *op = &p->ops[pd->op];

		if (pd->sock != sock || (!sock && pd->ino && pd->ino != ino))
			continue;
		pd->ino = ino;
		/* a pipe's read end is [0]; a socketpair's lower number is [0] */
		if (op->fd < 0 && (sock || kind_reads(use->kind) || op->fd2 >= 0))
			op->fd = fd;
		else
			op->fd2 = fd;
		if (sock && op->fd >= 0 && op->fd2 >= 0 && op->fd > op->fd2) {
			int32_t t = op->fd;

			op->fd = op->fd2;
			op->fd2 = t;
		}
		if (op->fd >= 0 && op->fd2 >= 0)
			tk.pend[i] = tk.pend[--tk.npend];
		return 1;
	}
	return 0;
}

static int track__inherit(struct rp_plan *p, struct rp_op *op, int32_t fd, json_t *info)
{
	struct rp_proc *pr = &p->pr[op->pidx];
	struct rp_inherit *v = realloc(pr->inh, (pr->ninh + 1) * sizeof(*v)), *h;
	const char *path = json_string_value(json_object_get(info, "path"));
	const char *type = json_string_value(json_object_get(info, "type"));

	if (!v)
		return -ENOMEM;
	pr->inh = v;
	h = &v[pr->ninh++];
	memset(h, 0, sizeof(*h));
	h->fd = fd;
	h->path = path ? strdup(path) : NULL;
	snprintf(h->type, sizeof(h->type), "%s", type ? type : "other");
	h->pos = json_integer_value(json_object_get(info, "pos"));
	return 0;
}

static int track__use(struct rp_plan *p, struct rp_op *op, int32_t fd, json_t *ev)
{
	uint8_t *known = track__known(op->pidx);
	json_t *info;

	if (!known)
		return -ENOMEM;
	if (fd < 0 || known[fd])
		return 0;
	known[fd] = 1;
	info = track__fd_info(ev, fd);
	if (track__claim_pipe(p, op, fd, info))
		return 0;
	return track__inherit(p, op, fd, info);
}

static void track__fork(struct rp_plan *p, struct rp_op *op)
{
	struct rp_thread *child = plan__thread(p, op->ret, -1);
	uint8_t *from = track__known(op->pidx), *to;

	op->a[0] = -1;
	if (!child)
		return;
	child->gate = op - p->ops;
	if (child->pid != op->ret || child->pidx == op->pidx)
		return;
	/* a new process: its fd table starts as a copy of the parent's */
	op->a[0] = child->pidx;
	to = track__known(child->pidx);
	if (from && to)
		memcpy(to, from, TRACK_MAX_FD);
}

static void track__set(uint32_t pidx, int64_t fd, uint8_t v)
{
	uint8_t *known = track__known(pidx);

	if (known && fd >= 0 && fd < TRACK_MAX_FD)
		known[fd] = v;
}

static int track__result(struct rp_plan *p, struct rp_op *op)
{
	struct pending *v;

	if (op->ret < 0)
		return 0;
	switch (op->kind) {
	case RK_OPEN:
	case RK_DUP:
	case RK_EVENTFD:
	case RK_SOCKET:
	case RK_ACCEPT: track__set(op->pidx, op->ret, 1); return 0;
	case RK_DUP2: track__set(op->pidx, op->fd2, 1); return 0;
	case RK_CLOSE: track__set(op->pidx, op->fd, 0); return 0;
	case RK_CLONE: track__fork(p, op); return 0;
	case RK_PIPE:
	case RK_SOCKETPAIR:
		v = realloc(tk.pend, (tk.npend + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		tk.pend = v;
		v[tk.npend++] = (struct pending){ op - p->ops, 0, op->kind == RK_SOCKETPAIR };
		return 0;
	default: return 0;
	}
}

static void track__grow(struct rp_plan *p, int64_t fd)
{
	if (fd >= 0 && fd < TRACK_MAX_FD && (uint32_t)fd >= p->nfd)
		p->nfd = fd + 1;
}

static bool track__makes_fd(enum rp_kind k)
{
	return k == RK_OPEN || k == RK_DUP || k == RK_EVENTFD || k == RK_SOCKET || k == RK_ACCEPT;
}

int track__op(struct rp_plan *p, struct rp_op *op, json_t *ev)
{
	int err = 0;

	if (op->fd >= TRACK_MAX_FD || op->fd2 >= TRACK_MAX_FD ||
	    (op->ret >= TRACK_MAX_FD && track__makes_fd(op->kind)))
		op->kind = RK_SKIP; /* beyond the fd table: not worth a sparse map */
	if (op->kind == RK_SKIP || op->kind == RK_IGNORE)
		return 0;
	if (op->kind != RK_CLOSE || op->ret >= 0)
		err = track__use(p, op, op->fd, ev);
	if (!err)
		err = track__result(p, op);
	track__grow(p, op->fd);
	track__grow(p, op->fd2);
	if (track__makes_fd(op->kind))
		track__grow(p, op->ret);
	return err;
}

/* Pipe ends never used keep -1: the replay still makes the pair. */
void track__free(void)
{
	for (uint32_t i = 0; i < tk.nproc; i++)
		free(tk.known[i]);
	free(tk.known);
	free(tk.pend);
	memset(&tk, 0, sizeof(tk));
}
