// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-host replay: `mpirun -np N iotrace replay job.jsonl` runs one
 * rank per host of the file.  Every rank loads and compiles the whole file,
 * so an op's index names it on every rank; each replays its own host's
 * threads, and the others' ops are done when their rank says so.  A courier
 * thread carries those messages: the ends (and, for --order temporal, the
 * starts) of ops that another rank's ops depend on.  The replay threads
 * wait for a remote op on its state word as for a local one.  Reports are
 * gathered to rank 0.  Only the courier calls MPI while the replay runs
 * (MPI_THREAD_SERIALIZED); every wait has a deadline.
 *
 * MPI has no descriptor to sleep on: the courier polls it, and a poll every
 * nap is a wakeup every 20 us that takes the CPU from the replay threads it
 * shares with.  So it polls that often only while a replay thread waits for
 * a remote op or a send is in flight; while a barrier's wait waits for one
 * it looks every millisecond, and otherwise it sleeps until a replay
 * thread rings it (a message queued, a wait begun) or a heartbeat is due.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include <jansson.h>

#include "lib/log.h"
#include "replay/mpi.h"
#include "replay/replay.h"
#include "replay/run.h"

enum { TAG_DEP = 1, TAG_LEN = 2, TAG_REPORT = 3, TAG_BEAT = 4, TAG_INL = 5 };
#define DEP_START 0x80000000u  /* in a TAG_DEP message: started, not ended */
#define BEAT_NS	  250000000ull /* a replaying rank tells rank 0 it lives this often */
/* the start barrier waits this many stall timeouts for the slowest rank's
 * preparation, which sends no heartbeat */
#define BARRIER_STALLS 10
/* with no stall timeout, a read waits this long at most for its bytes */
#define AWAIT_MAX_NS 10000000000ull
/* the courier, messages still to come and no replay thread waiting for one,
 * looks for them this often */
#define LOOK_NS 1000000ull

/* A TAG_DEP message: an op that started or ended on its rank; for a
 * listen, where the other ranks' connects find it. */
struct xmsg {
	uint32_t idx;  /* op index, DEP_START for a start */
	uint32_t addr; /* listen: this rank's IPv4 address, network order */
	int32_t port;  /* listen: its replay port, else 0 */
};

static struct mhost {
	bool active;
	int rank, size, me;	   /* me: this rank's host */
	int rank_of[RP_HOSTS_MAX]; /* host -> rank */
	uint64_t *to[2];	   /* per op: ranks that wait for its end, its start */
	uint32_t nexpect;	   /* messages this rank waits for */
	struct xmsg *q;		   /* messages to send, in the order ops got there */
	uint32_t qcap;
	_Atomic uint32_t qn;
	pthread_mutex_t qlock;
	mpi_req *sreq; /* one per message and rank it goes to */
	pthread_t courier;
	bool courier_up;
	_Atomic bool stop;
	_Atomic uint32_t bell;	  /* rung: the courier has work (futex word) */
	_Atomic bool dozing;	  /* the courier is in (or going into) its futex wait */
	_Atomic uint32_t wanting; /* replay threads waiting for a remote op */
	_Atomic uint32_t lazy;	  /* and barriers' waits for one (looked for each ms) */
	int err;
	uint64_t waits, deps, sent, received; /* for the report */
	uint64_t carried;		      /* deps a connection carries */
	uint64_t polled;		      /* of those, reads polled for (xspin) */
	uint64_t events;		      /* this host's */
	uint64_t stall_ns;
	struct rp_plan *p;
	uint32_t addr;	    /* this rank's IPv4 address, network order */
	uint32_t *lsn_addr; /* listener slot -> its rank's address, 0 when local */
} xh = { .qlock = PTHREAD_MUTEX_INITIALIZER };

bool mhost__active(void)
{
	return xh.active;
}

static int mhost_rank_arg(const char *s, const char **host, size_t *hlen)
{
	const char *eq = strrchr(s, '=');
	char *end;
	long r;

	if (!eq || eq == s || !eq[1])
		return -1;
	r = strtol(eq + 1, &end, 10);
	if (*end || r < 0 || r >= RP_HOSTS_MAX)
		return -1;
	*host = s;
	*hlen = eq - s;
	return r;
}

/* --map HOST=RANK first, then the other hosts in header order on the
 * lowest ranks left: one host per rank, every rank one host. */
static int mhost_map(const struct rp_plan *p, const struct rp_opts *o)
{
	bool taken[RP_HOSTS_MAX] = { 0 };

	for (uint32_t h = 0; h < p->nhosts; h++)
		xh.rank_of[h] = -1;
	for (uint32_t i = 0; i < o->nmap; i++) {
		const char *host = NULL;
		size_t len = 0;
		int r = mhost_rank_arg(o->map[i], &host, &len);
		uint32_t h;

		for (h = 0; h < p->nhosts; h++)
			if (strlen(p->hosts[h]) == len && !strncmp(p->hosts[h], host, len))
				break;
		if (h == p->nhosts) {
			err("replay: --map %s: the file has no host '%.*s'", o->map[i], (int)len,
			    host);
			return -EINVAL;
		}
		if (r >= xh.size || taken[r] || xh.rank_of[h] >= 0) {
			err("replay: --map %s: %s", o->map[i],
			    r >= xh.size ? "no such rank" : "a host and a rank are mapped once");
			return -EINVAL;
		}
		xh.rank_of[h] = r;
		taken[r] = true;
	}
	for (uint32_t h = 0, r = 0; h < p->nhosts; h++) {
		while (xh.rank_of[h] < 0 && taken[r])
			r++;
		if (xh.rank_of[h] < 0)
			taken[xh.rank_of[h] = r] = true;
		if (xh.rank_of[h] == xh.rank)
			xh.me = h;
	}
	return 0;
}

/* PAT with %h the host and %r the rank; without either, DIR/HOST for a
 * directory (SEP '/') or FILE.HOST for a file (SEP '.'). */
static const char *mhost_path(const char *pat, const char *host, int rank, char sep)
{
	size_t n = strlen(pat) + 16 * strlen(host) + 32, k = 0;
	char *s = malloc(n);

	if (!s)
		return NULL;
	if (!strstr(pat, "%h") && !strstr(pat, "%r")) {
		snprintf(s, n, "%s%c%s", pat, sep, host);
		return s;
	}
	for (; *pat && k + strlen(host) + 16 < n; pat++) {
		if (pat[0] == '%' && pat[1] == 'h')
			k += snprintf(s + k, n - k, "%s", host), pat++;
		else if (pat[0] == '%' && pat[1] == 'r')
			k += snprintf(s + k, n - k, "%d", rank), pat++;
		else
			s[k++] = *pat;
	}
	s[k] = '\0';
	return s;
}

static int mhost_paths(struct rp_opts *o, const char *host)
{
	o->root = mhost_path(o->root, host, xh.rank, '/');
	for (uint32_t k = 0; k < o->ndevroot && o->root; k++)
		if (!(o->devroot[k].dir = mhost_path(o->devroot[k].dir, host, xh.rank, '/')))
			return -ENOMEM;
	if (o->timeline && !(o->timeline = mhost_path(o->timeline, host, xh.rank, '.')))
		return -ENOMEM;
	return o->root ? 0 : -ENOMEM;
}

/* mpirun -np N with a single-host file: N replays into one root */
static int mhost_single(const struct rp_plan *p, const struct rp_opts *o)
{
	const char *n = getenv("OMPI_COMM_WORLD_SIZE");

	if (!n || atoi(n) < 2)
		return 0;
	err("replay: %s has %s host: replay it without mpirun", o->file,
	    p->nhosts ? "one" : "no multi-host header, so one");
	return -EINVAL;
}

/* The address other ranks reach this one at: the first IPv4 address of an
 * interface that is up and not loopback. */
static int mhost_addr(void)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i && !xh.addr; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && i->ifa_flags & IFF_UP &&
		    !(i->ifa_flags & IFF_LOOPBACK))
			xh.addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(ifa);
	return xh.addr ? 0 : -ENOENT;
}

int mhost__begin(struct rp_plan *p, struct rp_opts *o)
{
	int err;

	if (p->nhosts < 2)
		return mhost_single(p, o);
	err = mpi__init(&xh.rank, &xh.size);
	xh.active = true;
	if (err)
		return err;
	xh.stall_ns = o->stall_sec * 1000000000ull;
	if (xh.size < (int)p->nhosts || xh.size > (int)p->nhosts) {
		err("replay: %s has %u hosts and mpirun started %d ranks: start one rank per "
		    "host (mpirun -np %u)",
		    o->file, p->nhosts, xh.size, p->nhosts);
		return -EINVAL;
	}
	err = mhost_map(p, o);
	if (!err)
		err = mhost_paths(o, p->hosts[xh.me]);
	if (!err && mhost_addr())
		warn("rank %d: no address of its own: connections from other hosts will fail",
		     xh.rank);
	if (!err)
		dbg("rank %d of %d replays host %s in %s", xh.rank, xh.size, p->hosts[xh.me],
		    o->root);
	return err;
}

/* How long a call waits for the network at most. */
static uint64_t mh_wait_ns(void)
{
	return xh.stall_ns ? xh.stall_ns : AWAIT_MAX_NS;
}

/* A read of a socket (or pipe) that got bytes, or the end, in the trace. */
static bool mhost_stream_read(const struct rp_op *op)
{
	return op->ret >= 0 &&
	       (op->kind == RK_RECV ||
		((op->kind == RK_READ || op->kind == RK_READV) && (op->stream || op->conn >= 0)));
}

/*
 * A read fed by another host's write: that write has ended, and its bytes
 * are on their way, maybe behind the message that said so.  In the
 * application they had arrived when the read was made (it got them): wait
 * until the socket has as many bytes as the read got, or its other end is
 * gone, for at most a stall timeout; the read then finds them, as it did,
 * instead of fewer (short) or none (EAGAIN on a non-blocking socket). A
 * read that got the end waits for the other end's shutdown to arrive.
 *
 * Where the application polled for the bytes (xspin), the wait polls and
 * yields the CPU between polls, as Open MPI's progress loop with
 * mpi_yield_when_idle does: a thread asleep in the kernel instead leaves
 * its CPU idle, and an idle CPU is slower to take the wakeup and the other
 * ranks' I/O completions (a VM's vCPU halts) than one that polls.
 *
 * Otherwise it sleeps in poll, and is as cheap as the application's own
 * wait in the common case of a request or a reply: the bytes already in
 * cost one ioctl, and a message that comes in one segment one ioctl, one
 * poll and one more ioctl.  Only when part of them is in does SO_RCVLOWAT
 * make the next poll wait for the rest, so that a long message does not
 * wake the thread at every segment; a socket that does not take it naps
 * between looks instead.
 */
void mhost__await(struct rp_plan *p, struct rp_op *op)
{
	uint64_t until = 0, now;
	int fd = fd__get(p, op, op->fd), n = 0, lowat = 1, want;
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };
	socklen_t len = sizeof(lowat);
	bool raised = false, nap = false;

	if (fd < 0)
		return;
	want = op->ret < INT_MAX ? (int)op->ret : INT_MAX;
	/* the end of the stream (ret 0): until the other end's shutdown is in */
	while (!ioctl(fd, FIONREAD, &n) && (n < want || (!want && !n))) {
		now = mpi__now();
		if (!until)
			until = now + mh_wait_ns();
		else if (now >= until)
			break;
		if (n && !op->xspin && !raised && !nap) {
			raised = !getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, &len) &&
				 !setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &want, sizeof(want));
			nap = !raised;
		}
		pfd.revents = 0;
		if (poll(&pfd, 1, op->xspin || nap ? 0 : (int)((until - now) / 1000000 + 1)) > 0 &&
		    pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))
			break;
		if (op->xspin)
			sched_yield();
		else if (nap)
			mpi__nap();
	}
	if (raised)
		setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
}

void mhost__connected(int fd)
{
	uint64_t wait = mh_wait_ns();
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	poll(&pfd, 1, wait / 1000000);
}

/* The client's connect has returned (the accept's dep) and its handshake
 * may still be on the wire: a non-blocking accept would find nothing. */
void mhost__incoming(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	poll(&pfd, 1, mh_wait_ns() / 1000000);
}

/* Who waits for whom across hosts: every rank computes all of it alike. */
static void mhost_edges(struct rp_plan *p, uint8_t *want)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i], *dep;
		uint16_t host = p->th[op->tidx].host;
		bool waits = false;

		for (uint32_t k = 0; k < op->ndeps; k++) {
			bool start = op->deps[k] & RP_DEP_START;
			unsigned int what = start ? RP_XSEND_START : RP_XSEND_DONE;
			uint32_t d = op->deps[k] & ~RP_DEP_START;

			dep = &p->ops[d];
			if (p->th[dep->tidx].host == host)
				continue;
			/* a read of bytes sent from there waits for them to
			 * come, but not one of a peer the replayer plays (an
			 * outside one, a barrier's answer): that peer sends
			 * them when the read is made (peer__read) */
			if (!op->remote) {
				op->xwait |= !start && mhost_stream_read(op) && op->peer < 0;
				xh.deps++;
				waits = true;
				xh.nexpect += !(want[d] & what);
				want[d] |= what;
			}
			if (!dep->remote) {
				xh.qcap += !(dep->xsend & what);
				dep->xsend |= what;
				xh.to[start][d] |= 1ull << xh.rank_of[host];
			}
		}
		xh.waits += waits;
	}
}

static bool mhost_write_kind(enum rp_kind k)
{
	return k == RK_SEND || k == RK_WRITE || k == RK_WRITEV || k == RK_SENDFILE;
}

/* Drops OP's deps that its connection carries: another host's writes of the
 * bytes it read, on the same connection; how many. */
static uint32_t mhost_carried(struct rp_plan *p, struct rp_op *op)
{
	uint32_t n = 0, kept = 0;

	for (uint32_t k = 0; k < op->ndeps; k++) {
		const struct rp_op *dep = &p->ops[op->deps[k] & ~RP_DEP_START];

		if (!(op->deps[k] & RP_DEP_START) && op->conn >= 0 && dep->conn == op->conn &&
		    p->th[dep->tidx].host != p->th[op->tidx].host && mhost_write_kind(dep->kind) &&
		    mhost_stream_read(op))
			n++;
		else
			op->deps[kept++] = op->deps[k];
	}
	op->ndeps = kept;
	return n;
}

/* The busy polls right before thread TH's op K, a read: their loop's time is
 * the read's wait (mhost_carry).  Whether there were any. */
static bool mhost_busy_loop(struct rp_plan *p, const struct rp_thread *th, uint32_t k)
{
	bool any = false;

	for (uint32_t j = k; j-- > 0;) {
		struct rp_op *poll = &p->ops[th->ops[j]];

		if (!op__busy_poll(poll))
			break;
		poll->compute = 0;
		poll->outside = 0;
		any = true;
	}
	return any;
}

/*
 * A connection between two traced hosts is a real one between their ranks:
 * the bytes a read got arriving are the end of the other host's write that
 * sent them, so the read waits for them (mhost__await), not for a message
 * that comes after them.  The held wait just before it (an epoll_wait, which
 * in the application ended when those bytes came) ends when they come too,
 * instead of lasting its recorded time and the read then waiting as well.
 * Zero-timeout polls just before it (Open MPI's progress loop) mean the
 * application waited for those bytes on the CPU: so does the read.  In
 * causal order the time between those polls is that wait too, not work:
 * the progress loop spinning, on the CPU (compute) or preempted (outside),
 * until the bytes came, and the longer the other hosts took to send them in
 * the trace, the more of it.  Replayed, it was spun or slept before the
 * read could look for the bytes, wherever they came: a replay on faster
 * storage still spun the recording's waits, up to 7 ms of a fitness
 * token's hop, on a CPU it never yielded to the ranks that had work.  So
 * the loop's calls are made without it, and the read waits for the bytes.
 * Returns how many loops.
 */
static uint32_t mhost_carry(struct rp_plan *p, enum rp_order order)
{
	uint32_t loops = 0;

	for (uint32_t t = 0; t < p->nth; t++) {
		const struct rp_thread *th = &p->th[t];

		for (uint32_t k = 0; k < th->nops; k++) {
			struct rp_op *op = &p->ops[th->ops[k]], *prev;
			uint32_t n = mhost_carried(p, op);

			if (!n)
				continue;
			op->xwait = true;
			xh.carried += th->host == (uint16_t)xh.me ? n : 0;
			prev = k ? &p->ops[th->ops[k - 1]] : NULL;
			op->xspin = prev && op__busy_poll(prev);
			xh.polled += op->xspin && th->host == (uint16_t)xh.me;
			if (op->xspin && op->ret > 0 && order == RO_CAUSAL)
				loops += mhost_busy_loop(p, th, k);
			if (prev && prev->kind == RK_WAIT && prev->hold && !prev->ndeps &&
			    prev->ret > 0) {
				prev->hold = false;
				prev->xwait = true;
				prev->xread = th->ops[k];
			}
		}
	}
	return loops;
}

/*
 * A wait for other hosts' calls is a barrier's (analyze/barrier.c): each
 * host's wait for its daemon's answer follows every other host's request.
 * The daemons answered some time after the last request came in, through
 * hops the traces do not see (orted to mpirun and back): the wait ends as
 * long after the later of its own start and its deps as it did in the
 * trace.  Without that, a replay whose hosts arrive together would go on
 * at once, faster than the application ever could.  Its messages are looked
 * for every millisecond, not polled for (courier_doze).
 */
static void mhost_lags(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		uint64_t from = op->ts, end = op->ts + op->dur;
		bool xdep = false;

		if (op->kind != RK_WAIT)
			continue;
		for (uint32_t k = 0; k < op->ndeps; k++) {
			const struct rp_op *dep = &p->ops[op->deps[k] & ~RP_DEP_START];

			xdep |= p->th[dep->tidx].host != p->th[op->tidx].host;
			if (dep->ts + dep->dur > from)
				from = dep->ts + dep->dur;
		}
		op->xbarrier = xdep;
		op->after = xdep && end > from ? end - from : 0;
	}
}

static int64_t min_i64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* When a thread that no traced call created began, on the merged clock. */
static int64_t mhost_began(const struct rp_plan *p, uint32_t t)
{
	const struct rp_op *op = &p->ops[p->th[t].ops[0]];

	return (int64_t)op->ts - (int64_t)op->compute;
}

/*
 * A thread that no traced call created (a server attached to with -p, a
 * client started by an untraced script) starts at its first call's time on
 * the merged clock.  Otherwise a host whose trace begins later (the client,
 * started once the server was up) would start at once, and wait in its
 * first exchange for the other host to get through what it did before.
 * The time before its first compute is a wait (mpirun's daemons starting
 * the rank on its host), slept, not computed: spun on the CPU, it took the
 * CPU from the ranks already running, and a rank started 0.1 s late in the
 * trace started 0.4 s late on 2 CPUs shared by three ranks.
 *
 * When every host's recorder started its command (record -- CMD), each
 * host starts at its recorder's launch instead: untraced, the command
 * starts there, and the time each recorder took to load its programs,
 * different on each host, is not the application's.  Not when a host was
 * attached to (-p): its held waits end at their recorded times, and a host
 * moved earlier would wait for them (a client launched, a server attached:
 * its wait for the client's connection would hold the client back by the
 * client's recorder's load).
 */
static void mhost_starts(struct rp_plan *p)
{
	int64_t delay[RP_HOSTS_MAX] = { 0 }, first[RP_HOSTS_MAX], base = 0;
	bool all = true;

	for (uint32_t h = 0; h < p->nhosts; h++)
		first[h] = INT64_MAX;
	for (uint32_t t = 0; t < p->nth; t++)
		if (p->th[t].gate == RP_NONE && p->th[t].nops && p->th[t].host < p->nhosts)
			first[p->th[t].host] = min_i64(first[p->th[t].host], mhost_began(p, t));
	for (uint32_t h = 0; h < p->nhosts; h++)
		all &= p->launch[h] != RP_NO_LAUNCH || first[h] == INT64_MAX;
	/* a launch from a crafted header far enough away to overflow is none */
	for (uint32_t h = 0; all && h < p->nhosts; h++)
		if (first[h] == INT64_MAX || first[h] <= p->launch[h] ||
		    __builtin_sub_overflow(first[h], p->launch[h], &delay[h]))
			delay[h] = 0;
	/* the earliest launch is the replay's start */
	for (uint32_t h = 0; h < p->nhosts; h++)
		if (delay[h])
			base = min_i64(base, first[h] - delay[h]);
	for (uint32_t t = 0; t < p->nth; t++) {
		int64_t at, d;

		if (p->th[t].gate != RP_NONE || !p->th[t].nops)
			continue;
		d = p->th[t].host < p->nhosts ? delay[p->th[t].host] : 0;
		if (__builtin_sub_overflow(mhost_began(p, t), d, &at) ||
		    __builtin_sub_overflow(at, base, &at))
			continue;
		if (at > 0)
			p->th[t].start_at = at;
	}
	for (uint32_t h = 0; h < p->nhosts; h++)
		if (delay[h])
			dbg("host %s starts at its recorder's launch, %.3f s before its trace does",
			    p->hosts[h], delay[h] / 1e9);
}

int mhost__plan(struct rp_plan *p, const struct rp_opts *o)
{
	uint32_t loops;
	uint8_t *want;

	if (!xh.active)
		return 0;
	xh.p = p;
	loops = mhost_carry(p, o->order);
	if (loops)
		dbg("%u busy-wait loops: their time is the wait of the read after them", loops);
	/* the baselines' deps across hosts are not barriers */
	if (o->order == RO_CAUSAL)
		mhost_lags(p);
	mhost_starts(p);
	for (uint32_t t = 0; t < p->nth; t++)
		if ((p->th[t].remote = p->th[t].host != (uint16_t)xh.me))
			p->th[t].nops = 0; /* its ops run on another rank */
	for (uint32_t i = 0; i < p->nops; i++) {
		p->ops[i].remote = p->th[p->ops[i].tidx].remote;
		xh.events += !p->ops[i].remote;
	}
	xh.to[0] = calloc(p->nops + 1, sizeof(*xh.to[0]));
	xh.to[1] = calloc(p->nops + 1, sizeof(*xh.to[1]));
	want = calloc(p->nops + 1, 1);
	if (!xh.to[0] || !xh.to[1] || !want) {
		free(want);
		return -ENOMEM;
	}
	mhost_edges(p, want);
	free(want);
	xh.q = calloc(xh.qcap + 1, sizeof(*xh.q));
	xh.lsn_addr = calloc(p->nlisten + 1, sizeof(*xh.lsn_addr));
	/* the sends: at most one per message kind and rank */
	xh.sreq = calloc((size_t)xh.qcap * xh.size + 1, sizeof(*xh.sreq));
	if (!xh.q || !xh.sreq || !xh.lsn_addr)
		return -ENOMEM;
	dbg("rank %d: %" PRIu64 " ops wait for other hosts (%" PRIu64 " deps, %u messages in, "
	    "%u out)",
	    xh.rank, xh.waits, xh.deps, xh.nexpect, xh.qcap);
	return 0;
}

/* Wakes the courier if it sleeps: after what it is to see was published.
 * A courier that is not dozing needs no syscall from a replay thread; one
 * that starts to doze after the bell moved finds its futex word changed
 * (both orders are sequentially consistent). */
static void courier_ring(void)
{
	atomic_fetch_add(&xh.bell, 1);
	if (atomic_load(&xh.dozing))
		syscall(SYS_futex, &xh.bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void mhost__want(bool on, bool lazy)
{
	_Atomic uint32_t *n = lazy ? &xh.lazy : &xh.wanting;

	if (!xh.active)
		return;
	if (!on) {
		atomic_fetch_sub_explicit(n, 1, memory_order_relaxed);
		return;
	}
	atomic_fetch_add_explicit(n, 1, memory_order_release);
	courier_ring();
}

void mhost__sent(uint32_t idx, unsigned int what)
{
	uint32_t n;

	pthread_mutex_lock(&xh.qlock);
	n = atomic_load_explicit(&xh.qn, memory_order_relaxed);
	if (n < xh.qcap) {
		struct rp_op *op = &xh.p->ops[idx];

		xh.q[n] = (struct xmsg){ .idx = idx | (what == RP_XSEND_START ? DEP_START : 0) };
		/* the other hosts connect to it on this rank's address */
		if (op->kind == RK_LISTEN && op->a[3] >= 0 && what == RP_XSEND_DONE) {
			xh.q[n].addr = xh.addr;
			xh.q[n].port = atomic_load(&xh.p->ports[op->a[3]]);
		}
		atomic_store_explicit(&xh.qn, n + 1, memory_order_release);
	}
	pthread_mutex_unlock(&xh.qlock);
	courier_ring();
}

/* What every rank learnt from the others' tables: where their listeners are. */
static void mhost_inherited_take(uint32_t **in, size_t n)
{
	for (int r = 0; r < xh.size; r++)
		for (size_t s = 1; r != xh.rank && s < n; s++)
			if (in[r][s]) {
				xh.lsn_addr[s - 1] = in[r][0];
				atomic_store(&xh.p->ports[s - 1], (int)in[r][s]);
			}
}

/*
 * Listeners from before the trace (a server attached to with -p) listen
 * from the start, and no listen in the trace says where: each rank sends
 * every other one its address and its own such listeners' ports, by
 * listener slot, before the start.
 */
static int mhost_inherited(uint64_t deadline)
{
	size_t n = xh.p->nlisten + 1;
	uint32_t *buf = calloc(n * (xh.size + 1), sizeof(*buf)), *in[RP_HOSTS_MAX];
	mpi_req req[2 * RP_HOSTS_MAX];
	int err = buf ? 0 : -ENOMEM, nreq = 0;

	for (size_t s = 1; buf && s < n; s++)
		buf[s] = (uint32_t)atomic_load(&xh.p->ports[s - 1]);
	if (buf)
		buf[0] = xh.addr;
	for (int r = 0; r < xh.size && !err; r++) {
		in[r] = buf + n * (r + 1);
		if (r == xh.rank)
			continue;
		err = mpi__irecv(in[r], n * sizeof(*buf), r, TAG_INL, &req[nreq++]);
		if (!err)
			err = mpi__isend(buf, n * sizeof(*buf), r, TAG_INL, &req[nreq++]);
	}
	for (int k = 0; k < nreq && !err; k++)
		err = mpi__wait(&req[k], deadline);
	if (!err)
		mhost_inherited_take(in, n);
	free(buf);
	return err;
}

int mhost__barrier(const struct rp_opts *o)
{
	uint64_t wait = o->stall_sec * BARRIER_STALLS * 1000000000ull;
	int err;

	if (!xh.active)
		return 0;
	err = xh.p->ninl ? mhost_inherited(wait ? mpi__now() + wait : 0) : 0;
	if (!err)
		err = mpi__barrier(wait ? mpi__now() + wait : 0);
	if (err)
		err("replay: rank %d: the other ranks did not reach the start in %u s%s", xh.rank,
		    o->stall_sec * BARRIER_STALLS, err == -ETIMEDOUT ? "" : " (MPI error)");
	return err;
}

/* Sends message K of the queue to every rank that waits for it. */
static int courier_send(uint32_t k, uint32_t *ns)
{
	uint32_t v = xh.q[k].idx, idx = v & ~DEP_START;
	uint64_t to = xh.to[!!(v & DEP_START)][idx];

	for (int r = 0; r < xh.size; r++)
		if (to & (1ull << r)) {
			if (mpi__isend(&xh.q[k], sizeof(xh.q[k]), r, TAG_DEP, &xh.sreq[(*ns)++]))
				return -EIO;
			xh.sent++;
		}
	return 0;
}

struct courier {
	uint32_t qdone, ns, sdone, left;
	struct xmsg rbuf;
	mpi_req rreq, beat[RP_HOSTS_MAX];
	bool beating[RP_HOSTS_MAX];
	uint64_t last_beat;
};

/* Another host's listener listens: its connects here go to its address. */
static void courier_listener(const struct xmsg *m)
{
	const struct rp_op *op = &xh.p->ops[m->idx & ~DEP_START];

	if (op->kind != RK_LISTEN || op->a[3] < 0 || m->port <= 0 || !xh.lsn_addr)
		return;
	xh.lsn_addr[op->a[3]] = m->addr;
	atomic_store(&xh.p->ports[op->a[3]], m->port);
}

bool mhost__listener(uint32_t slot, uint32_t *addr)
{
	if (!xh.active || !xh.lsn_addr || !xh.lsn_addr[slot])
		return false;
	*addr = xh.lsn_addr[slot];
	return true;
}

/* One round: what the replay threads queued goes out, what came in is
 * released, finished sends are retired; true when it did anything. */
static bool courier_round(struct courier *c)
{
	uint32_t n = atomic_load_explicit(&xh.qn, memory_order_acquire);
	bool busy = false;
	int r;

	for (; c->qdone < n && !xh.err; c->qdone++, busy = true)
		xh.err = courier_send(c->qdone, &c->ns);
	if (c->left && (r = mpi__test(&c->rreq))) {
		if (r < 0)
			return xh.err = r, false;
		/* every rank compiled the same file, or the indexes mean nothing */
		if ((c->rbuf.idx & ~DEP_START) >= xh.p->nops ||
		    !xh.p->ops[c->rbuf.idx & ~DEP_START].remote) {
			err("replay: rank %d: a message for an event that is not another host's: "
			    "do all ranks read the same file?",
			    xh.rank);
			return xh.err = -EPROTO, false;
		}
		courier_listener(&c->rbuf);
		exec__remote(xh.p, c->rbuf.idx & ~DEP_START,
			     c->rbuf.idx & DEP_START ? RP_XSEND_START : RP_XSEND_DONE);
		xh.received++;
		if (--c->left)
			xh.err = mpi__irecv(&c->rbuf, sizeof(c->rbuf), -1, TAG_DEP, &c->rreq);
		busy = true;
	}
	while (c->sdone < c->ns && mpi__test(&xh.sreq[c->sdone]) == 1)
		c->sdone++;
	return busy;
}

/* Ranks other than 0 tell rank 0 they live, which is what its wait for
 * their reports is bounded by; rank 0 tells them, for their wait to hand
 * their reports over while it still replays. */
static void courier_beat(struct courier *c)
{
	static const uint32_t beat = 1;
	uint64_t now = mpi__now();

	if (now - c->last_beat < BEAT_NS)
		return;
	c->last_beat = now;
	for (int r = xh.rank ? 0 : 1; r < (xh.rank ? 1 : xh.size); r++) {
		if (c->beating[r] && mpi__test(&c->beat[r]) != 1)
			continue;
		c->beating[r] = !mpi__isend(&beat, sizeof(beat), r, TAG_BEAT, &c->beat[r]);
	}
}

/* Nothing to carry: sleeps until rung, the next heartbeat, or (messages
 * still to come and a lazy wait for one) LOOK_NS.  Messages that no replay
 * thread waits for yet are taken when one starts to wait (it rings): a
 * look every millisecond for the whole run, because MPI_Finalize's fence
 * is still to come, took the CPUs the working ranks needed.  The bell is
 * read before the work is looked at, so a ring after that look makes the
 * futex wait return at once. */
static void courier_doze(struct courier *c)
{
	uint32_t bell = atomic_load(&xh.bell);
	uint64_t now = mpi__now(), due = c->last_beat + BEAT_NS, wait;
	struct timespec ts;

	atomic_store(&xh.dozing, true);
	if (atomic_load(&xh.stop) || c->qdone != atomic_load(&xh.qn) ||
	    (c->left && atomic_load(&xh.wanting))) {
		atomic_store(&xh.dozing, false);
		return;
	}
	wait = due > now ? due - now : 0;
	if (c->left && wait > LOOK_NS && atomic_load(&xh.lazy))
		wait = LOOK_NS;
	ts = (struct timespec){ .tv_sec = wait / 1000000000ull, .tv_nsec = wait % 1000000000ull };
	syscall(SYS_futex, &xh.bell, FUTEX_WAIT_PRIVATE, bell, &ts, NULL, 0);
	atomic_store(&xh.dozing, false);
}

static void *courier_run(void *arg)
{
	struct courier *c = arg;
	uint64_t stop = 0;

	c->left = xh.nexpect;
	if (c->left)
		xh.err = mpi__irecv(&c->rbuf, sizeof(c->rbuf), -1, TAG_DEP, &c->rreq);
	while (!xh.err) {
		bool busy = courier_round(c);

		courier_beat(c);
		if (atomic_load(&xh.stop) && c->qdone == atomic_load(&xh.qn) && c->sdone == c->ns)
			break;
		/* the replay is over here: what is left is other ranks taking
		 * their messages, which a dead rank never does */
		if (atomic_load(&xh.stop) && !stop)
			stop = mpi__now();
		if (stop && xh.stall_ns && mpi__now() - stop > xh.stall_ns)
			xh.err = -ETIMEDOUT;
		if (busy)
			continue;
		if (c->sdone < c->ns || (c->left && atomic_load(&xh.wanting)))
			mpi__nap();
		else
			courier_doze(c);
	}
	if (c->left)
		mpi__cancel(&c->rreq);
	for (int r = 0; r < xh.size; r++)
		if (c->beating[r])
			mpi__wait(&c->beat[r], xh.stall_ns ? mpi__now() + xh.stall_ns : 0);
	return NULL;
}

int mhost__go(struct rp_plan *p)
{
	static struct courier c;
	int err;

	if (!xh.active)
		return 0;
	(void)p;
	memset(&c, 0, sizeof(c));
	c.last_beat = mpi__now();
	err = -pthread_create(&xh.courier, NULL, courier_run, &c);
	if (err)
		err("replay: cannot start the courier thread: %s", strerror(-err));
	xh.courier_up = !err;
	return err;
}

static int mhost_stop(void)
{
	if (!xh.courier_up)
		return 0;
	atomic_store(&xh.stop, true);
	courier_ring();
	pthread_join(xh.courier, NULL);
	xh.courier_up = false;
	if (xh.err)
		err("replay: rank %d: an MPI message failed", xh.rank);
	return xh.err;
}

/* This rank's report, with its host's cross-host figures. */
static json_t *mhost_own(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	json_t *j = report__json(p, o, r);

	if (!j)
		return NULL;
	json_object_set_new(j, "rank", json_integer(xh.rank));
	json_object_set_new(j, "host_events", json_integer(xh.events));
	json_object_set_new(j, "xhost",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "waits",
				      (json_int_t)xh.waits, "deps", (json_int_t)xh.deps, "carried",
				      (json_int_t)xh.carried, "polled", (json_int_t)xh.polled,
				      "sent", (json_int_t)xh.sent, "received",
				      (json_int_t)xh.received));
	return j;
}

static uint64_t mhost_deadline(void)
{
	return xh.stall_ns ? mpi__now() + xh.stall_ns : 0;
}

/* Ranks other than 0: the report goes to rank 0, its length first.  Rank 0
 * may replay long after this rank: its heartbeats bound the wait. */
static int mhost_send_report(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	uint64_t len = s ? strlen(s) + 1 : 0, deadline = mhost_deadline();
	uint32_t beat;
	mpi_req req[3];
	int done[2] = { 0, 0 }, err;

	if (!s)
		return -ENOMEM;
	err = mpi__isend(&len, sizeof(len), 0, TAG_LEN, &req[0]);
	if (!err)
		err = mpi__isend(s, len, 0, TAG_REPORT, &req[1]);
	if (!err)
		err = mpi__irecv(&beat, sizeof(beat), 0, TAG_BEAT, &req[2]);
	while (!err && !(done[0] && done[1])) {
		for (int k = 0; k < 2 && !err; k++)
			if (!done[k] && (done[k] = mpi__test(&req[k])) < 0)
				err = done[k];
		if (!err && mpi__test(&req[2]) == 1) {
			deadline = mhost_deadline();
			err = mpi__irecv(&beat, sizeof(beat), 0, TAG_BEAT, &req[2]);
		} else if (deadline && mpi__now() > deadline) {
			err = -ETIMEDOUT;
		} else {
			mpi__nap();
		}
	}
	mpi__cancel(&req[2]);
	free(s);
	return err;
}

struct gather {
	uint64_t len;
	mpi_req lreq, breq;
	char *buf;
	int stage; /* 0 waiting for the length, 1 for the report, 2 done */
};

/* One step of rank R's report reaching rank 0; 1 when it moved on. */
static int gather_step(struct gather *g, int r, json_t **out)
{
	int t = mpi__test(g->stage ? &g->breq : &g->lreq);

	if (t <= 0)
		return t;
	if (g->stage++ == 0) {
		g->buf = g->len && g->len < (1u << 30) ? malloc(g->len) : NULL;
		if (!g->buf)
			return -ENOMEM;
		return mpi__irecv(g->buf, g->len, r, TAG_REPORT, &g->breq) ?: 1;
	}
	g->buf[g->len - 1] = '\0';
	*out = json_loads(g->buf, 0, NULL);
	free(g->buf);
	return *out ? 1 : -EINVAL;
}

/* Rank 0: every other rank's report.  The wait is bounded by the ranks'
 * heartbeats: a rank still replaying says so every BEAT_NS. */
static int mhost_gather(json_t **rep)
{
	struct gather g[RP_HOSTS_MAX] = { 0 };
	uint32_t beat, left = xh.size - 1;
	uint64_t deadline = mhost_deadline();
	mpi_req breq;
	int err = mpi__irecv(&beat, sizeof(beat), -1, TAG_BEAT, &breq);

	for (int r = 1; r < xh.size && !err; r++)
		err = mpi__irecv(&g[r].len, sizeof(g[r].len), r, TAG_LEN, &g[r].lreq);
	while (!err && left) {
		bool moved = false;

		for (int r = 1; r < xh.size && !err; r++) {
			int k = g[r].stage < 2 ? gather_step(&g[r], r, &rep[r]) : 0;

			err = k < 0 ? k : 0;
			moved |= k > 0;
			left -= k > 0 && g[r].stage == 2;
		}
		if (!err && mpi__test(&breq) == 1) {
			moved = true;
			err = mpi__irecv(&beat, sizeof(beat), -1, TAG_BEAT, &breq);
		}
		if (moved)
			deadline = mhost_deadline();
		else if (deadline && mpi__now() > deadline)
			err = -ETIMEDOUT;
		else
			mpi__nap();
	}
	mpi__cancel(&breq);
	return err;
}

static json_int_t jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Rank 0: one report, per host and in total. */
static json_t *mhost_join(struct rp_plan *p, json_t **rep)
{
	static const char *const sums[] = { "issued", "failed", "short", "emulated",
					    "skipped_total" };
	json_t *hosts = json_object(), *all = json_object(), *x;
	json_int_t wall = 0, waits = 0, msgs = 0;

	for (uint32_t h = 0; h < p->nhosts; h++) {
		json_t *j = rep[xh.rank_of[h]];

		wall = jint(j, "wall_ns") > wall ? jint(j, "wall_ns") : wall;
		x = json_object_get(j, "xhost");
		waits += jint(x, "waits");
		msgs += jint(x, "sent");
		for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
			json_object_set_new(all, sums[k],
					    json_integer(jint(all, sums[k]) + jint(j, sums[k])));
		json_object_set(hosts, p->hosts[h], j);
	}
	x = rep[0];
	json_object_set_new(all, "hosts", hosts);
	json_object_set_new(all, "ranks", json_integer(xh.size));
	json_object_set_new(all, "wall_ns", json_integer(wall));
	json_object_set_new(all, "xhost_waits", json_integer(waits));
	json_object_set_new(all, "xhost_messages", json_integer(msgs));
	json_object_set(all, "trace_wall_ns", json_object_get(x, "trace_wall_ns"));
	json_object_set(all, "events", json_object_get(x, "events"));
	json_object_set(all, "timing", json_object_get(x, "timing"));
	json_object_set(all, "order", json_object_get(x, "order"));
	json_object_set(all, "speed", json_object_get(x, "speed"));
	return all;
}

static void mhost_summary(const struct rp_plan *p, json_t *all)
{
	json_t *hosts = json_object_get(all, "hosts");

	for (uint32_t h = 0; h < p->nhosts; h++) {
		json_t *j = json_object_get(hosts, p->hosts[h]), *x = json_object_get(j, "xhost");

		info("host %s (rank %d): %lld issued, %lld failed, %lld short in %.1f ms; %lld "
		     "calls waited for other hosts (%lld messages in)",
		     p->hosts[h], xh.rank_of[h], jint(j, "issued"), jint(j, "failed"),
		     jint(j, "short"), jint(j, "wall_ns") / 1e6, jint(x, "waits"),
		     jint(x, "received"));
	}
	info("replayed %u hosts on %d ranks: %lld issued, %lld failed, %lld short in %.1f ms "
	     "(trace %.1f ms); %lld cross-host waits, %lld MPI messages",
	     p->nhosts, xh.size, jint(all, "issued"), jint(all, "failed"), jint(all, "short"),
	     jint(all, "wall_ns") / 1e6, jint(all, "trace_wall_ns") / 1e6, jint(all, "xhost_waits"),
	     jint(all, "xhost_messages"));
}

static int mhost_write(const struct rp_opts *o, json_t *all)
{
	if (!o->report || !json_dump_file(all, o->report, JSON_INDENT(1) | JSON_SORT_KEYS))
		return 0;
	err("%s: cannot write the report: %s", o->report, strerror(errno ? errno : EIO));
	return -EIO;
}

static int mhost_root(struct rp_plan *p, const struct rp_opts *o, json_t **rep)
{
	json_t *all;
	int err = mhost_gather(rep);

	if (err) {
		err("replay: rank 0: the other ranks' reports did not come: %s",
		    err == -ETIMEDOUT ? "no word from them for --stall-timeout" : strerror(-err));
		return err;
	}
	all = mhost_join(p, rep);
	mhost_summary(p, all);
	err = mhost_write(o, all);
	json_decref(all);
	return err;
}

int mhost__report(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	json_t *rep[RP_HOSTS_MAX] = { 0 };
	int err = mhost_stop();

	if (err)
		return err;
	if (log_level >= LOG_DBG)
		report__summary(p, o, r);
	rep[0] = mhost_own(p, o, r);
	if (!rep[0])
		return -ENOMEM;
	if (xh.rank)
		err = mhost_send_report(rep[0]);
	else
		err = mhost_root(p, o, rep);
	if (err && xh.rank)
		err("replay: rank %d: cannot send the report to rank 0: %s", xh.rank,
		    strerror(-err));
	for (int k = 0; k < xh.size; k++)
		json_decref(rep[k]);
	return err;
}

void mhost__end(void)
{
	if (!xh.active)
		return;
	mhost_stop();
	mpi__finalize();
	free(xh.to[0]);
	free(xh.to[1]);
	free(xh.q);
	free(xh.lsn_addr);
	free(xh.sreq);
}

void mhost__fail(void)
{
	if (xh.active)
		mpi__abort(1);
}
