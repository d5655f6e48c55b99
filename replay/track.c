// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time fd bookkeeping, in trace order.  A recorded fd number is reused
 * as soon as it is closed, by any thread of the process, so the replay does
 * not key its fd tables by number: every generation of a number (from the
 * call that made it to the close that ended it) gets a slot of its own in
 * its process, and op->fd, op->fd2 become slots here.  A use that the replay
 * runs out of the recorded order then finds its own file, or nothing, never
 * the file that took the number over.
 *
 * A use names the generation current at its enter; a call that makes an fd
 * starts a generation at its exit (another thread's close of the same number
 * may come between the two); a close ends one at its enter.  Also kept here:
 * the fds each process had before the trace saw them opened (inherited:
 * stdin/out/err, fds from before an attach), the fd a recvmsg received
 * with SCM_RIGHTS (made there) and the one a sendmsg sent (a use), which
 * numbers a pipe or
 * socketpair returned (ret_fds; in traces analyzed before it, learned from
 * the first use of each end), and which process a fork created.
 */
#include <errno.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <string.h>

#include "replay/load.h"
#include "replay/replay.h"

#define TRACK_MAX_FD 65536

/* A pipe or socketpair whose numbers are not known yet. */
struct pending {
	uint32_t op;
	uint64_t ino;	/* a pipe's two ends share one inode */
	int32_t rfd[2]; /* recorded numbers of its ends, -1 until seen */
	bool sock;
};

/* A call that made an fd, which becomes visible at the call's end. */
struct making {
	uint64_t end;
	uint32_t op;
	int32_t rfd;  /* the number it made (dup2: newfd; pipe, socketpair: fds[0]) */
	int32_t rfd2; /* pipe, socketpair: fds[1] when the trace has it, else -1 */
};

struct tproc {
	uint32_t *cur; /* recorded fd -> its current slot + 1; 0: not open */
	uint32_t cap;  /* of the process's slot_fd */
};

static struct track {
	struct tproc *pr;
	uint32_t nproc;
	struct pending *pend;
	uint32_t npend;
	struct making *mk;
	uint32_t nmk;
} tk;

static struct tproc *track_proc(uint32_t pidx)
{
	if (pidx >= tk.nproc) {
		struct tproc *v = realloc(tk.pr, (pidx + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + tk.nproc, 0, (pidx + 1 - tk.nproc) * sizeof(*v));
		tk.pr = v;
		tk.nproc = pidx + 1;
	}
	if (!tk.pr[pidx].cur)
		tk.pr[pidx].cur = calloc(TRACK_MAX_FD, sizeof(*tk.pr[pidx].cur));
	return tk.pr[pidx].cur ? &tk.pr[pidx] : NULL;
}

/* A new generation of recorded fd RFD in process PIDX: its slot, or -ENOMEM. */
static int32_t slot_new(struct rp_plan *p, uint32_t pidx, int32_t rfd)
{
	struct rp_proc *pr = &p->pr[pidx];
	struct tproc *t = track_proc(pidx);

	if (!t)
		return -ENOMEM;
	if (pr->nslot == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 16;
		int32_t *v = realloc(pr->slot_fd, cap * sizeof(*v));
		uint8_t *g;

		if (!v)
			return -ENOMEM;
		pr->slot_fd = v;
		g = realloc(pr->slot_gone, cap);
		if (!g)
			return -ENOMEM;
		pr->slot_gone = g;
		t->cap = cap;
	}
	pr->slot_fd[pr->nslot] = rfd;
	pr->slot_gone[pr->nslot] = 0;
	t->cur[rfd] = pr->nslot + 1;
	return pr->nslot++;
}

static bool kind_reads(enum rp_kind k)
{
	return k == RK_READ || k == RK_PREAD || k == RK_READV || k == RK_PREADV || k == RK_RECV;
}

/* The fd object whose number is FD among the event's arguments. */
static json_t *track_fd_info(json_t *ev, int32_t fd)
{
	json_t *args = json_object_get(ev, "args"), *v;
	const char *key;

	json_object_foreach(args, key, v) {
		if (json_is_object(v) && json_integer_value(json_object_get(v, "fd")) == fd)
			return v;
	}
	return NULL;
}

/* An fd first seen in use that is an end of a pending pipe/socketpair gets a
 * slot: 1 when it is one, 0 when not, or -ENOMEM. */
static int32_t track_claim_pipe(struct rp_plan *p, struct rp_op *use, int32_t fd, json_t *info)
{
	const char *type = json_string_value(json_object_get(info, "type"));
	uint64_t ino = json_integer_value(json_object_get(info, "ino"));
	bool sock = type && !strcmp(type, "socket");

	if (!type || (!sock && strcmp(type, "fifo")))
		return 0;
	for (uint32_t i = tk.npend; i-- > 0;) {
		struct pending *pd = &tk.pend[i];
		struct rp_op *op = &p->ops[pd->op];
		int32_t s;
		int end;

		if (pd->sock != sock || (!sock && pd->ino && pd->ino != ino))
			continue;
		pd->ino = ino;
		/* a pipe's read end is [0]; a socketpair's lower number is [0] */
		end = pd->rfd[0] < 0 && (sock || kind_reads(use->kind) || pd->rfd[1] >= 0) ? 0 : 1;
		s = slot_new(p, use->pidx, fd);
		if (s < 0)
			return s;
		pd->rfd[end] = fd;
		*(end ? &op->fd2 : &op->fd) = s;
		if (sock && pd->rfd[0] >= 0 && pd->rfd[1] >= 0 && pd->rfd[0] > pd->rfd[1]) {
			int32_t t = op->fd;

			op->fd = op->fd2;
			op->fd2 = t;
		}
		if (pd->rfd[0] >= 0 && pd->rfd[1] >= 0)
			tk.pend[i] = tk.pend[--tk.npend];
		return 1;
	}
	return 0;
}

static int32_t track_inherit(struct rp_plan *p, struct rp_op *op, int32_t fd, json_t *info)
{
	struct rp_proc *pr = &p->pr[op->pidx];
	struct rp_inherit *v = realloc(pr->inh, (pr->ninh + 1) * sizeof(*v)), *h;
	const char *path = json_string_value(json_object_get(info, "path"));
	const char *type = json_string_value(json_object_get(info, "type"));
	int32_t s;

	if (!v)
		return -ENOMEM;
	pr->inh = v;
	s = slot_new(p, op->pidx, fd);
	if (s < 0)
		return s;
	h = &v[pr->ninh++];
	memset(h, 0, sizeof(*h));
	h->fd = fd;
	h->slot = s;
	h->path = path ? strdup(path) : NULL;
	snprintf(h->type, sizeof(h->type), "%s", type ? type : "other");
	h->pos = json_integer_value(json_object_get(info, "pos"));
	return 0;
}

/* *FD, a recorded number in use, becomes the slot of its current generation. */
static int track_use(struct rp_plan *p, struct rp_op *op, int32_t *fd, json_t *ev)
{
	struct tproc *t = track_proc(op->pidx);
	json_t *info;
	int err;

	if (!t)
		return -ENOMEM;
	if (*fd < 0)
		return 0;
	if (!t->cur[*fd]) {
		info = track_fd_info(ev, *fd);
		err = track_claim_pipe(p, op, *fd, info);
		if (!err)
			err = track_inherit(p, op, *fd, info);
		if (err < 0)
			return err;
	}
	*fd = t->cur[*fd] - 1;
	return 0;
}

/* Both ends of a pipe or socketpair whose numbers the trace has (ret_fds):
 * [0] is op->fd, [1] op->fd2, whichever end is used first. */
static int track_made_pair(struct rp_plan *p, struct rp_op *op, const struct making *m)
{
	int32_t s0 = slot_new(p, op->pidx, m->rfd), s1;

	if (s0 < 0)
		return s0;
	s1 = slot_new(p, op->pidx, m->rfd2);
	if (s1 < 0)
		return s1;
	op->fd = s0;
	op->fd2 = s1;
	return 0;
}

/* The fd M's call made is open from here on. */
static int track_made(struct rp_plan *p, const struct making *m)
{
	struct rp_op *op = &p->ops[m->op];
	struct tproc *t = track_proc(op->pidx);
	struct pending *v;
	int32_t s;

	if (!t)
		return -ENOMEM;
	switch (op->kind) {
	case RK_PIPE:
	case RK_SOCKETPAIR:
		if (m->rfd >= 0 && m->rfd2 >= 0)
			return track_made_pair(p, op, m);
		v = realloc(tk.pend, (tk.npend + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		tk.pend = v;
		v[tk.npend++] = (struct pending){ m->op, 0, { -1, -1 }, op->kind == RK_SOCKETPAIR };
		return 0;
	case RK_DUP2:
		/* dup2(fd, fd) makes nothing */
		if (t->cur[m->rfd] && (int32_t)t->cur[m->rfd] - 1 == op->fd) {
			op->fd2 = op->fd;
			return 0;
		}
		/* the generation newfd had ends here: the replay closes its slot */
		op->a[1] = (int64_t)t->cur[m->rfd] - 1;
		break;
	default:
		break;
	}
	s = slot_new(p, op->pidx, m->rfd);
	if (s < 0)
		return s;
	/* calls the replay skips (epoll_create) keep an empty slot for their
	 * fd, and the calls on it are skipped too */
	if (op->kind != RK_IGNORE && op->kind != RK_SKIP)
		op->fd2 = s;
	else
		p->pr[op->pidx].slot_gone[s] = 1;
	return 0;
}

/* Every fd made by a call that ended by TS (all of them: UINT64_MAX). */
static int track_made_by(struct rp_plan *p, uint64_t ts)
{
	int err = 0;

	for (uint32_t i = 0; i < tk.nmk && !err;) {
		if (tk.mk[i].end > ts) {
			i++;
			continue;
		}
		err = track_made(p, &tk.mk[i]);
		tk.mk[i] = tk.mk[--tk.nmk];
	}
	return err;
}

static bool track_makes_fd(const struct rp_op *op, json_t *ev)
{
	const char *call;

	switch (op->kind) {
	case RK_OPEN:
	case RK_DUP:
	case RK_DUP2:
	case RK_EVENTFD:
	case RK_SOCKET:
	case RK_ACCEPT:
	case RK_PIPE:
	case RK_SOCKETPAIR:
		return true;
	case RK_RECV:
		return op->fd2 >= 0; /* an fd received with SCM_RIGHTS */
	case RK_IGNORE:
		call = json_string_value(json_object_get(ev, "call"));
		return call && !strncmp(call, "epoll_create", 12);
	default:
		return false;
	}
}

/* The numbers a pipe or socketpair returned (ret_fds), or -1 each: traces
 * analyzed before ret_fds learn them from their first use. */
static void track_ret_fds(json_t *ev, int32_t *rfd, int32_t *rfd2)
{
	json_t *a = json_object_get(ev, "ret_fds");
	json_int_t f0 = json_integer_value(json_array_get(a, 0));
	json_int_t f1 = json_integer_value(json_array_get(a, 1));

	*rfd = *rfd2 = -1;
	if (json_array_size(a) != 2 || !json_is_integer(json_array_get(a, 0)) ||
	    !json_is_integer(json_array_get(a, 1)) || f0 < 0 || f1 < 0 || f0 == f1 ||
	    f0 >= TRACK_MAX_FD || f1 >= TRACK_MAX_FD)
		return;
	*rfd = f0;
	*rfd2 = f1;
}

/* Op I makes an fd (dup2: the recorded newfd RFD), visible at its end. */
static int track_making(struct rp_plan *p, uint32_t i, int32_t rfd, json_t *ev)
{
	const struct rp_op *op = &p->ops[i];
	int32_t rfd2 = -1;
	struct making *v;

	if (op->ret < 0)
		return 0;
	if (op->kind == RK_PIPE || op->kind == RK_SOCKETPAIR)
		track_ret_fds(ev, &rfd, &rfd2);
	if (op->kind != RK_DUP2 && op->kind != RK_PIPE && op->kind != RK_SOCKETPAIR &&
	    op->kind != RK_RECV)
		rfd = op->ret;
	v = realloc(tk.mk, (tk.nmk + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	tk.mk = v;
	v[tk.nmk++] = (struct making){ op->ts + op->dur, i, rfd, rfd2 };
	return 0;
}

static int track_fork(struct rp_plan *p, struct rp_op *op)
{
	struct rp_thread *child = plan__thread(p, p->th[op->tidx].host, op->ret, -1);
	struct tproc *from, *to;
	struct rp_proc *pf, *pc;

	if (!child)
		return 0;
	child->gate = op - p->ops;
	if (child->pid != op->ret || child->pidx == op->pidx)
		return 0;
	/* a new process: its fd table starts as a copy of the parent's, slot
	 * for slot; the slots it makes itself come after those */
	op->a[0] = child->pidx;
	to = track_proc(child->pidx);
	from = track_proc(op->pidx); /* after: track_proc may move tk.pr */
	if (!to || !from)
		return -ENOMEM;
	pf = &p->pr[op->pidx];
	pc = &p->pr[child->pidx];
	op->a[1] = pf->nslot;
	if (pc->nslot)
		return 0; /* a reused pid that already made fds of its own */
	memcpy(to->cur, from->cur, TRACK_MAX_FD * sizeof(*to->cur));
	pc->slot_fd = malloc((pf->nslot + 1) * sizeof(*pc->slot_fd));
	pc->slot_gone = malloc(pf->nslot + 1);
	if (!pc->slot_fd || !pc->slot_gone)
		return -ENOMEM;
	if (pf->nslot) {
		memcpy(pc->slot_fd, pf->slot_fd, pf->nslot * sizeof(*pc->slot_fd));
		memcpy(pc->slot_gone, pf->slot_gone, pf->nslot);
	}
	pc->nslot = pf->nslot;
	to->cap = pf->nslot + 1;
	return 0;
}

static int track_close_range(struct tproc *t, const struct rp_op *op)
{
	int64_t last = op->a[1] < TRACK_MAX_FD ? op->a[1] : TRACK_MAX_FD - 1;

	if (op->ret < 0 || (op->a[2] & CLOSE_RANGE_CLOEXEC))
		return 0;
	for (int64_t k = op->a[0] < 0 ? 0 : op->a[0]; k <= last; k++)
		t->cur[k] = 0;
	return 0;
}

int track__op(struct rp_plan *p, struct rp_op *op, json_t *ev)
{
	int32_t rfd2 = op->fd2;
	struct tproc *t;
	int err;

	if (op->fd >= TRACK_MAX_FD || op->fd2 >= TRACK_MAX_FD ||
	    (op->ret >= TRACK_MAX_FD && track_makes_fd(op, ev))) {
		op->kind = RK_SKIP; /* beyond the fd table: not worth a sparse map */
		report__note(op, RR_FD_RANGE);
	}
	err = track_made_by(p, op->ts);
	if (err || op->kind == RK_SKIP)
		return err;
	if (track_makes_fd(op, ev)) {
		/* dup2's newfd, pipe ends: slots from track_made */
		if (op->kind == RK_DUP2 || op->kind == RK_PIPE || op->kind == RK_SOCKETPAIR ||
		    op->kind == RK_RECV)
			op->fd2 = -1;
		err = track_making(p, op - p->ops, rfd2, ev);
	}
	if (err || op->kind == RK_IGNORE)
		return err;
	t = track_proc(op->pidx);
	if (!t)
		return -ENOMEM;
	/* EBADF on a number the trace shows closed: nothing was open, and it
	 * is no fd from before the trace either (gcc probes fd 3 with fcntl) */
	if (op->fd >= 0 && !t->cur[op->fd] &&
	    (op->ret == -EBADF || (op->kind == RK_CLOSE && op->ret < 0)))
		op->fd = -1;
	err = track_use(p, op, &op->fd, ev);
	if (!err && (op->kind == RK_SENDFILE || op->kind == RK_SEND))
		err = track_use(p, op, &op->fd2, ev);
	if (err)
		return err;
	t = &tk.pr[op->pidx]; /* track_use may have moved tk.pr */
	switch (op->kind) {
	case RK_CLOSE:
		if (op->fd >= 0)
			t->cur[p->pr[op->pidx].slot_fd[op->fd]] = 0;
		return 0;
	case RK_CLOSE_RANGE:
		return track_close_range(t, op);
	case RK_CLONE:
		op->a[0] = -1;
		return op->ret > 0 ? track_fork(p, op) : 0;
	default:
		return 0;
	}
}

/* The fds made by calls that end after the last call starts. */
int track__finish(struct rp_plan *p)
{
	return track_made_by(p, UINT64_MAX);
}

void track__free(void)
{
	for (uint32_t i = 0; i < tk.nproc; i++)
		free(tk.pr[i].cur);
	free(tk.pr);
	free(tk.pend);
	free(tk.mk);
	memset(&tk, 0, sizeof(tk));
}
