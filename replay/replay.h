/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace replay: the annotated trace (docs/annotated-format.md) compiled into
 * per-thread programs of ops, run one replay thread per traced thread inside a
 * sandbox root.  docs/replay.md describes the options and the report.
 */
#ifndef IOTRACE_REPLAY_H
#define IOTRACE_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_FORMAT_VERSION 1
#define RP_NONE		  UINT32_MAX
/* A dep index with this bit waits for the op to start, not to finish; on an
 * op that is arrive_waited, for its thread to reach it (plan_rendezvous). */
#define RP_DEP_START 0x80000000u
/* Hosts of a multi-host file at most: one MPI rank each (mhost.c). */
#define RP_HOSTS_MAX 64
#define RP_NO_LAUNCH INT64_MIN /* rp_plan.launch: the header did not say */
/* Largest per-thread buffer; larger counts are clamped (and show as short). */
#define RP_BUF_MAX (64u << 20)

/* What replaying an op does; the loader maps call names to these. */
enum rp_kind {
	RK_IGNORE, /* not I/O (memory, ids, signals): nothing to replay */
	RK_SKIP,   /* I/O the replayer cannot reproduce yet: counted by call */
	RK_WAIT,   /* futex, poll, epoll, wait4: only its deps are the wait; a0 futex_op
		    * or -1, a1 futex val; a3 the wait whose deps end it early
		    * (plan_cuts), or -1 */
	RK_SLEEP,  /* nanosleep, clock_nanosleep: sleeps the recorded duration */
	RK_EXIT,
	RK_OPEN,
	RK_CLOSE,
	RK_READ,
	RK_WRITE,
	RK_PREAD,
	RK_PWRITE,
	RK_READV,
	RK_WRITEV,
	RK_PREADV,
	RK_PWRITEV,
	RK_LSEEK,
	RK_FSYNC,
	RK_FDATASYNC,
	RK_SYNCFS,
	RK_SYNC,
	RK_SYNC_RANGE,
	RK_FTRUNCATE,
	RK_TRUNCATE,
	RK_FALLOCATE,
	RK_FADVISE,
	RK_MKDIR,
	RK_UNLINK, /* a[0]: AT_REMOVEDIR for unlinkat/rmdir */
	RK_RENAME,
	RK_SYMLINK,
	RK_LINK,
	RK_STAT, /* a[0]: AT_SYMLINK_NOFOLLOW when the call does not follow */
	RK_FSTAT,
	RK_ACCESS,
	RK_READLINK,
	RK_GETDENTS,
	RK_PIPE,
	RK_SOCKETPAIR,
	RK_EVENTFD,
	RK_DUP,	  /* dup, fcntl F_DUPFD*: result is the recorded ret */
	RK_DUP2,  /* dup2, dup3: a[1] the slot of newfd's generation it ends, or -1 */
	RK_FCNTL, /* fcntl F_GETFD/F_SETFD/F_GETFL/F_SETFL: a[1] cmd, a[2] arg */
	RK_MMAP,
	RK_MUNMAP,
	RK_MSYNC,
	RK_CLONE, /* a[0]: index of the process it creates, or -1 for a thread;
		   * a[1]: how many fd slots the child copies */
	RK_EXEC,
	RK_SOCKET,  /* a0 domain, a1 type, a2 protocol */
	RK_BIND,    /* a3: listener slot */
	RK_LISTEN,  /* a0 backlog, a3: listener slot */
	RK_CONNECT, /* a3: listener slot in the trace, or a2: external peer */
	RK_ACCEPT,  /* a0 flags */
	RK_SEND,    /* a0 bytes, a1 flags */
	RK_RECV,
	RK_SHUTDOWN,	/* a0 how */
	RK_ATTR,	/* chmod, chown, utimensat: a0 which, a1 mode/owner, a2 group */
	RK_CLOSE_RANGE, /* a0 first, a1 last */
	RK_READAHEAD,	/* a0 count, a1 offset */
	RK_SENDFILE,	/* fd out_fd, fd2 in_fd (used, not made); a0 count, a1 offset or
			 * -1: from in_fd's file position */
	RK_NR,
};

/* RK_ATTR's a0: what it changes, or which xattr read it is */
enum rp_attr {
	RP_ATTR_MODE,
	RP_ATTR_OWNER,
	RP_ATTR_TIMES,
	RP_ATTR_XGET,
	RP_ATTR_XLIST,
	RP_ATTR_XSET,
	RP_ATTR_XREMOVE,
};

/*
 * Why a call was not reproduced as recorded.  The code that decides to
 * emulate or skip a call, or knows why it fails, names the reason with
 * report__note(); the report counts each reason's failed, short, emulated
 * and skipped calls and shows the first few (docs/replay.md, "Reasons").
 * A new reason: a value here and its name in report.c's rp_reason_names.
 */
enum rp_reason {
	RR_NONE,	  /* none named: a failed or short call is "differs" */
	RR_OUTSIDE,	  /* an fd leading outside the sandbox (tty, a pipe to the tracer) */
	RR_HOST_DEV,	  /* a write to /dev/null and the like, opened read-only */
	RR_PSEUDO_FS,	  /* a path under /proc, /sys or /dev: not in the sandbox */
	RR_UNSUPPORTED,	  /* a call the replayer does not reproduce (yet) */
	RR_FD_NOT_MADE,	  /* on an fd whose making was skipped or failed in the replay */
	RR_FD_NOT_OPEN,	  /* on an fd not open when it came: an order without its deps */
	RR_PATH_UNKNOWN,  /* a path the trace does not hold (cut, unreadable) */
	RR_UNIX_SOCKET,	  /* unix-domain and netlink sockets */
	RR_NO_PEER_PORT,  /* a connect whose listener has no replay port */
	RR_RECORD_LOCK,	  /* fcntl record locks: the replay is one process, where they never
			    * conflict; answered with the recorded result */
	RR_BEFORE_ATTACH, /* in progress at the attach: its arguments were not recorded */
	RR_ARG_UNKNOWN,	  /* an argument behind a pointer the trace does not hold */
	RR_DIR_CONTENTS,  /* a directory listing: the sandbox has only the names the
			    * trace used, so its byte count differs */
	RR_EOF_EARLY,	  /* a pipe read that saw end-of-file in the trace, while a writer
			    * the trace closes later is still open here: answered 0 */
	RR_FD_RANGE,	  /* an fd number beyond the replayer's table */
	RR_BIND_FAILED,	  /* a bind that failed in the trace (a port in use): the replay binds
			    * ephemeral ports, which are free; answered with the recorded error */
	RR_NR,
};

enum rp_order { RO_CAUSAL, RO_TEMPORAL, RO_SINGLE, RO_NONE, RO_THINK };
enum rp_timing { RT_AFAP, RT_NATURAL };

/* Op state word: started, then done; RS_WAITERS when someone sleeps on it. */
#define RS_STARTED 1u
#define RS_DONE	   2u
#define RS_MASK	   3u
#define RS_WAITERS 4u

/*
 * One call of the trace.  The run-time fields start on their own cache line,
 * and the array is cache-line aligned (plan__grow), so a replay thread writing
 * its op never shares a line with another thread reading the next op.
 */
struct rp_op {
	uint64_t ts;	   /* recorded enter time, ns since the trace start */
	uint64_t dur;	   /* recorded duration */
	uint64_t compute;  /* compute before the call, ns */
	uint64_t outside;  /* off the CPU for tasks outside the trace before it, ns */
	int64_t ret;	   /* recorded result, -errno on failure */
	int64_t a[4];	   /* kind-specific: count, offset, flags, mode, slot */
	const char *path;  /* absolute trace path, resolved in the root at run time */
	const char *path2; /* second path (rename, link), symlink target or xattr name */
	uint32_t *deps;	   /* op indexes, RP_DEP_START bit for start-only */
	uint32_t ndeps;
	struct rp_touch *touch; /* mmap I/O to do before the call */
	uint32_t ntouch;
	uint32_t id;   /* event id in the trace */
	uint32_t tidx; /* thread that runs it */
	uint32_t pidx; /* process whose fd table it uses */
	uint32_t call; /* index into plan.calls */
	/* fd slots (track.c: one per generation of a recorded fd, in the
	 * process's table), -1 when none: fd the one the call uses; fd2 the one
	 * it makes (open, dup, dup2, socket, accept, eventfd, recvmsg's
	 * SCM_RIGHTS; pipe and socketpair make fd and fd2; sendfile, and
	 * sendmsg's SCM_RIGHTS: the fd it uses besides); mmap, munmap, msync:
	 * the mapping slot */
	int32_t fd, fd2;
	uint16_t kind; /* enum rp_kind */
	bool nonblock; /* --order single: never block on a pipe end */
	bool stream;   /* a read of a pipe, socket or character device */
	/* a wait the trace cannot explain (blocked, no traced waker): in natural
	 * timing the call lasts at least its recorded duration */
	bool hold;
	bool waited;	     /* some op waits for it to finish */
	uint8_t root, root2; /* the sandbox root path and path2 resolve in (--dev-root) */
	bool start_waited;   /* some op waits for it to start (--order temporal) */
	/* a barrier's wait: the wake that ends it waits for this thread to
	 * reach it, before the wait's own deps (plan_rendezvous) */
	bool arrive_waited;
	bool cut_target; /* a held timer before it ends with its deps (plan_cuts) */
	/* multi-host: the op is another rank's, done when its message comes */
	bool remote;
	/* multi-host: other ranks wait for it; RP_XSEND_* (mhost.c) */
	uint8_t xsend;
	/* multi-host: a stream read fed by another host's write, whose bytes
	 * cross the network after that write ended (mhost__await) */
	bool xwait;
	/* multi-host: such a read that the application polled for on the CPU
	 * (zero-timeout polls up to it): its wait for the bytes polls too */
	bool xspin;
	/* multi-host: a held wait that such a read followed ends when the bytes
	 * of that read (its index) are in, as the application's did (mhost.c) */
	uint32_t xread;
	/* a call of a lazy-wait loop (zero-timeout polls and short sleeps):
	 * the call after the loop, whose deps end the loop (plan_spins), or
	 * RP_NONE */
	uint32_t spin_to;
	/* multi-host: a wait for other hosts' calls (a barrier through their
	 * daemons) ends this long after the later of its issue and its deps,
	 * as the application's answer came (mhost_lags) */
	uint64_t after;
	/* multi-host: such a wait.  Its messages are looked for every
	 * millisecond, not polled for: polling would take the CPU from the
	 * ranks that work meanwhile */
	bool xbarrier;
	/* a barrier's wait: the wake whose count its arrival goes down, or
	 * RP_NONE; a broadcast wake: how many waits count for it
	 * (plan_rendezvous_counts) */
	uint32_t rdv_wake, rdv_n;
	/* a lock's wait: the op its recorded holder was in (or had last ended)
	 * when the wait began; the wait's dep on the unlock binds only once
	 * that op started (plan_lock_gates); else RP_NONE */
	uint32_t lock_gate;
	/* the socket the call uses (accept: the one it makes), by inode: a
	 * connection's identity through fork, exec, dup and fd passing; 0 none */
	uint64_t sino;
	int32_t peer; /* the external peer of that connection (net.c), or -1 */
	/* a held wait: the first of the reads of external peers' connections
	 * its hold sends ahead (net_prefeeds), RP_NONE; a read: the next one */
	uint32_t prefeed, prefeed_next;
	/* multi-host: the header's connection between two hosts it is on, -1 */
	int32_t conn;
	/* its family when a TCP stream (AF_INET, AF_INET6), RP_SFAM_OTHER for
	 * any other socket, 0 when the call does not say (read, write) */
	uint8_t sfam;
	/* run time */
	_Alignas(64) _Atomic uint32_t state; /* RS_* */
	/* a broadcast wake: arrivals still to come, its own thread's included;
	 * the last one releases it */
	_Atomic uint32_t rdv_left;
	int64_t got;		 /* replay result */
	uint64_t t_issue, t_end; /* replay clock, ns since the replay start */
	uint64_t t_arrive;	 /* when its thread reached it, if arrive_waited */
	uint8_t reason;		 /* enum rp_reason, from report__note */
	/* a read: bytes its peer sent before it (in the hold before it, or as
	 * the application answered the read before it), RP_FED_NONE, or
	 * RP_FED_BUSY while they are being sent */
	_Atomic int32_t fed;
};

#define RP_FED_NONE (-1)
#define RP_FED_BUSY (-2)

/* A read of a stream, as a socket's peer feeds it: recv, read, readv. */
static inline bool op__reads_stream(enum rp_kind k)
{
	return k == RK_RECV || k == RK_READ || k == RK_READV;
}

/* fcntl commands that take or test a record lock, by the kernel's numbers
 * (the trace's): F_GETLK, F_SETLK, F_SETLKW 5-7; F_OFD_GETLK, F_OFD_SETLK,
 * F_OFD_SETLKW 36-38. */
static inline bool fcntl__is_lock(int64_t cmd)
{
	return (cmd >= 5 && cmd <= 7) || (cmd >= 36 && cmd <= 38);
}

/* F_GET_RW_HINT, F_SET_RW_HINT, F_GET_FILE_RW_HINT, F_SET_FILE_RW_HINT
 * (1035-1038): the hint is behind a pointer the trace does not hold. */
static inline bool fcntl__is_hint(int64_t cmd)
{
	return cmd >= 1035 && cmd <= 1038;
}

/* OP, being issued, is emulated, skipped or fails for reason WHY. */
static inline void report__note(struct rp_op *op, enum rp_reason why)
{
	op->reason = why;
}

/*
 * Pages the thread touched through a file mapping before this call.  Loaded
 * as (dev, ino, index); graph__mmaps() turns them into a mapping slot and a
 * byte offset in it, or slot RP_NONE when no replayed mapping covers them.
 */
struct rp_touch {
	uint64_t ino, index;
	uint32_t dev, npages;
	uint32_t slot;
	uint64_t off; /* in the mapping */
	bool write;   /* dirtied, or a fault on a shared writable mapping */
	bool dirty;   /* as loaded: "dirty" */
};

/* The file behind a replayed mmap, for matching touches to mappings. */
struct rp_mapfile {
	uint32_t op;
	uint32_t dev;
	uint64_t ino;
};

/* A TCP connection between two hosts of a multi-host file: which host its
 * server is, so that a connect finds the listener on that host. */
struct rp_conn {
	int64_t id;
	uint32_t server; /* host index */
};

/* An fd the process had before the trace saw it opened. */
struct rp_inherit {
	int32_t fd;   /* recorded */
	int32_t slot; /* in the process's table */
	char *path;
	char type[8]; /* file, dir, chr, fifo, socket, ... */
	int64_t pos;
};

/* A listening socket the process had before the trace: the replayer makes
 * one on loopback in its place, for the peers of the connections it accepts. */
struct rp_inlisten {
	uint32_t pidx;
	int32_t fd;    /* its fd slot */
	uint32_t slot; /* listener slot (ports[]) */
};

struct rp_proc {
	int32_t pid, ppid;
	uint16_t host; /* index in plan.hosts; 0 in a single-host file */
	char *cwd;
	struct rp_inherit *inh;
	uint32_t ninh;
	int32_t *slot_fd;   /* fd slot -> the recorded fd number it is a generation of */
	uint8_t *slot_gone; /* fd slot made by a call the replay skips: RP_FD_GONE */
	uint32_t nslot;
	_Atomic int *fd;       /* fd slot -> replay fd, or an RP_FD_* value */
	_Atomic uint8_t *fdfl; /* RP_FL_* per fd slot */
	/* its replay threads still making calls, and in --order single its
	 * last op: once they are done, what it still holds is closed, as its
	 * exit closed it (exec_proc_done) */
	_Atomic uint32_t live;
	uint32_t last_op;
};

#define RP_SFAM_OTHER	 0xff
#define RP_FD_UNSET	 -1 /* not open (yet): a call on it fails with EBADF (fd__missing) */
#define RP_FD_SINK	 -2 /* outside the sandbox (tty, pipe to the tracer): emulated */
#define RP_FD_GONE	 -3 /* the call that made it was not replayed: calls on it are skipped */
#define RP_FL_CLOEXEC	 1u
#define RP_FL_EMUL_WRITE 2u /* host device opened read-only: writes are emulated */
#define RP_FL_EVENTFD	 4u /* an eventfd: a write adds 1 to its count */
/* O_DIRECT: log2 of the file's direct I/O offset alignment, less 8 (0: none) */
#define RP_FL_DIO_SHIFT 4
#define RP_FL_DIO_MASK	0xf0u

/* One per traced thread; cache-line aligned (plan__grow) so that the counters
 * a replay thread updates after every call are on lines of its own. */
struct rp_thread {
	int32_t tid, pid;
	uint32_t pidx;
	uint32_t *ops; /* op indexes in program order */
	uint32_t nops, cap;
	uint32_t gate; /* op that created this thread, or RP_NONE */
	size_t bufsz;
	void *buf;	   /* per-thread I/O buffer, page aligned */
	uint32_t *skipped; /* per call index */
	uint64_t *lag;	   /* natural timing: lag of each issued call */
	/* run time, ns */
	_Alignas(64) uint64_t busy, wait, compute, hold, sleep;
	uint64_t preempted; /* off the CPU during compute spins (spin_oncpu) */
	uint64_t outside;   /* waits for the recorded outside_ns the spins were not off */
	uint64_t cpu;	    /* CPU time of the replay thread that ran it */
	uint64_t issued, failed, shrt, emulated;
	uint64_t dio_aligned; /* O_DIRECT preads widened to the target's alignment */
	uint64_t lock_first;  /* lock waits that went first: the holder was behind */
	uint64_t pages_touched, pages_unmapped;
	uint32_t nlag;
	_Atomic uint32_t cur;	/* position in ops: progress and the stall report */
	_Atomic uint8_t incall; /* inside the call at cur, for the stall report */
	uint16_t host;		/* index in plan.hosts; 0 in a single-host file */
	bool remote;		/* multi-host: another rank replays it */
	/* multi-host, natural timing: when a thread no traced call created
	 * starts, in ns from the replay's start (mhost_starts); 0 at once */
	uint64_t start_at;
};

/* Initial sandbox state: one entry per header file plus implied parent dirs. */
struct rp_file {
	char *path;
	char type;    /* 'f', 'd', 'l' */
	uint8_t root; /* the sandbox root it lives in: 0 --root, k --dev-root k */
	uint32_t dev; /* st_dev the trace saw it on, 0 when not known */
	uint64_t size;
	char *target;
};

/* --dev-root MAJ:MIN=DIR: the trace's regular files from device dev live
 * under dir instead of --root, off the storage being measured. */
#define RP_ROOTS_MAX 8 /* --root and up to seven --dev-root */
struct rp_devroot {
	uint32_t dev; /* st_dev encoding, as in the trace */
	const char *dir;
};

/* The far end of a connection whose peer is outside the trace, played by the
 * replayer on loopback: it drains what the application sends and, before
 * each read of the connection, sends what that read got in the trace. */
struct rp_peer {
	bool incoming; /* the application accepted it: the replayer connects */
	bool attached; /* open before the trace: made as a pair at setup */
	bool shut;     /* the trace's client hung up: our end is shut for writing */
	bool accepted; /* incoming: its accept is done, so fd is its own (peer__accepted) */
	int family;
	uint32_t listen; /* incoming: the application's listener slot */
	int lfd, fd;	 /* outgoing: the replayer's listener; the connection */
	int port;	 /* outgoing: the replayer's listener port */
	int lport;	 /* incoming: local port of fd, which the accept sees */
	int app;	 /* attached: the application's end, until installed */
	uint32_t last;	 /* the last op on the connection, RP_NONE for none */
	bool over;	 /* that op has run */
	bool eof;	 /* the application has closed its end (or shut it for writing) */
	/* the thread that reads the connection (net.c), RP_NONE for none,
	 * RP_PEER_READERS for more than one: another thread's read could take
	 * bytes sent ahead for a later one */
	uint32_t reader;
	/* its reads, in trace order, when one thread makes them; the drain
	 * thread's cursor: reads before it are done (peer_feed_next) */
	uint32_t *reads, nreads, nextread;
};

#define RP_PEER_READERS (RP_NONE - 1)

/* Where an attached connection is installed: process PIDX's fd slot SLOT. */
struct rp_inconn {
	uint32_t peer, pidx;
	int32_t slot;
};

struct rp_plan {
	struct rp_op *ops;
	uint32_t nops;
	struct rp_thread *th;
	uint32_t nth;
	struct rp_proc *pr;
	uint32_t npr;
	struct rp_file *files;
	uint32_t nfiles;
	char **calls; /* distinct call names */
	uint32_t ncalls;
	uint32_t nmaps; /* file mapping slots */
	void **maps;
	struct rp_mapfile *mapfiles; /* per file mmap op, in op order */
	uint32_t nmapfiles;
	uint32_t nlisten;      /* listening sockets */
	_Atomic int *ports;    /* listener slot -> its replay port on loopback */
	struct rp_peer *peers; /* connections to or from outside the trace */
	uint32_t npeers;
	struct rp_inlisten *inl; /* listeners from before the trace (attach) */
	uint32_t ninl;
	struct rp_inconn *inc; /* connections from before the trace (attach) */
	uint32_t ninc;
	uint64_t trace_wall;
	int64_t clock_start;
	uint64_t header_events;
	bool causality; /* analyzed with --infer-causality: the deps are there */
	/* a lock's handover implied no other dep in the analysis: a replay may
	 * let its waiter go first (plan_lock_gates) */
	bool lock_deps_apart;
	char **hosts;	 /* multi-host: the header's host names, in its order */
	int64_t *launch; /* each host's recorder's launch (ts), RP_NO_LAUNCH: not known */
	uint32_t nhosts;
	struct rp_conn *conns; /* multi-host: the header's connections */
	uint32_t nconns;
};

struct rp_opts {
	const char *file, *root, *report;
	const char *timeline; /* --timeline: per-call times, original and replay */
	const char *user;     /* --user: replay as this user */
	struct rp_devroot devroot[RP_ROOTS_MAX - 1];
	uint32_t ndevroot;
	enum rp_timing timing;
	enum rp_order order;
	double speed;
	bool prepare_only;
	bool progress;
	unsigned int stall_sec;
	unsigned int settle_ms; /* --settle: idle this long before the timed phase */
	/* --map HOST=RANK, as given; checked against the file's hosts (mhost.c) */
	const char *map[RP_HOSTS_MAX];
	uint32_t nmap;
};

/* The directory of sandbox root k: 0 --root, k the k-th --dev-root. */
static inline const char *rp_opts__root(const struct rp_opts *o, unsigned int k)
{
	return k ? o->devroot[k - 1].dir : o->root;
}

/* plan.c: the plan's tables, grown while the trace is read, freed whole. */
/* Grows *V from N to CAP elements of SIZE bytes, cache-line aligned; 0 or -ENOMEM. */
int plan__grow(void **v, size_t size, size_t n, size_t cap);
uint32_t plan__call_idx(struct rp_plan *p, const char *name);
/* Host RP_ANY_HOST: a file whose events do not name their host (tids are
 * one kernel's: two hosts may both have a thread 10, told apart by host). */
#define RP_ANY_HOST UINT16_MAX
struct rp_thread *plan__thread(struct rp_plan *p, uint16_t host, int32_t tid, int32_t pid);
uint32_t plan__proc(struct rp_plan *p, uint16_t host, int32_t pid);
void plan__free(struct rp_plan *p);
/* parse.c: parse FILE into a raw plan; 0 or -errno (message already printed). */
int parse__file(struct rp_plan *p, const char *file);
/* The "host" of O (a thread, process or event) as an index in p->hosts; -EINVAL if unknown. */
struct json_t;
int parse__host(const struct rp_plan *p, struct json_t *o, uint16_t *host);
/* event.c */
enum rp_kind rp_kind__of(const char *call);
/* compile.c: resolve fds, deps and sizes for the chosen order. */
int compile__plan(struct rp_plan *p, const struct rp_opts *o);

/* sandbox.c: root 0 is --root, root k the k-th --dev-root. */
int sandbox__open(const struct rp_opts *o, const struct rp_plan *p);
int prepare__root(const struct rp_plan *p);
uint64_t prepare__written(void); /* file data the preparation wrote, bytes */
int prepare__open_fds(struct rp_plan *p);
void sandbox__close(void);
int sandbox__open_in(unsigned int root, const char *path, int flags, int mode);
int sandbox__parent(unsigned int root, const char *path, char *buf, const char **last);
bool sandbox__host_dev(const char *path);

/* ops.c: issue one op; returns its result, >= 0 or -errno, or RP_SKIPPED.
 * *emulated is set when no call was made (fd outside the sandbox). */
#define RP_SKIPPED INT64_MIN
/* Returns RP_SKIPPED and notes WHY for this thread's accounting of the op. */
int64_t op__issue(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emulated);
/* Calls whose outcome is compared with the trace (not waits, sleeps, exits). */
bool op__is_io(enum rp_kind k);
/* A poll or epoll_wait with timeout 0: a turn of a busy wait, which cannot
 * block (Open MPI's progress loop). */
bool op__busy_poll(const struct rp_op *op);

/* net.c: listener slots, internal vs external peers, peer quotas. */
int net__plan(struct rp_plan *p);
/* peer.c: the replayer's side of external connections. */
int peer__setup(struct rp_plan *p);
int peer__start(struct rp_plan *p);
void peer__stop(void);
int peer__connect_in(struct rp_plan *p, uint32_t listen, int family, int port, int backlog);
/* The replay's accept of NFD, planned as peer PEER: binds the two (by port). */
void peer__accepted(struct rp_plan *p, uint32_t peer, int nfd);
/* After OP, a call on the connection of a played peer. */
void peer__done(struct rp_plan *p, const struct rp_op *op);
bool peer__played(const struct rp_plan *p, int nfd);
/* The replay's connect to outgoing peer PEER completed: the peer accepts. */
int peer__connected(struct rp_plan *p, uint32_t peer);
/* A write that failed because the trace's client had gone: gone here too. */
void peer__hangup(struct rp_plan *p, const struct rp_op *op);
/* In held wait W's hold: sends what the reads it covers got (net_prefeeds). */
void peer__prefeed(struct rp_plan *p, struct rp_thread *t, const struct rp_op *w);
/* How many reads peer__prefeed fed. */
uint64_t peer__fed_ahead(void);
/* How many reads the played client fed as the application answered the
 * read before (the drain thread). */
uint64_t peer__fed_by_client(void);
/* A read of a connection with an external peer: fed, then issued. */
int64_t peer__read(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul);

/* net.c: listeners from before the trace, made on loopback; 0 or -errno. */
int net__open_inherited(struct rp_plan *p);
/* Their peers connect, once the peer thread runs. */
int net__connect_inherited(struct rp_plan *p);
/* netops.c */
int64_t netops__op(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul);

/* attr.c */
int64_t attr__op(struct rp_plan *p, struct rp_op *op, bool *emul);

/* exec.c */
struct rp_run {
	uint64_t wall;	  /* replay phase only */
	uint64_t prepare; /* the root made or checked, fds and peers opened */
	uint64_t settle;  /* syncfs of the roots and the wait for a quiet device */
	uint64_t *lag;	  /* natural timing: actual minus intended issue, per issued call */
	uint32_t nlag;
	bool stalled;
};
int exec__run(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r);
uint64_t exec__now(void);

/* mhost.c: the multi-host replay, one MPI rank per host (docs/replay.md).
 * All are no-ops for a single-host file, which needs no MPI. */
#define RP_XSEND_DONE  1u /* other ranks wait for the op to end */
#define RP_XSEND_START 2u /* for it to start (--order temporal) */
/* After parsing: for more than one host, loads MPI, maps this rank to its
 * host and its paths; 0, or -errno (message printed on this rank). */
int mhost__begin(struct rp_plan *p, struct rp_opts *o);
bool mhost__active(void);
/* After compiling: the other hosts' threads, and who waits for whom. */
int mhost__plan(struct rp_plan *p, const struct rp_opts *o);
/* exec.c: the start barrier, then the courier of cross-host deps. */
int mhost__barrier(const struct rp_opts *o);
int mhost__go(struct rp_plan *p);
/* exec.c: op IDX, which other ranks wait for, started or ended. */
void mhost__sent(uint32_t idx, unsigned int what);
/* exec.c: a replay thread begins (ON) or ends a wait for another host's op:
 * the courier polls for its message while one waits, or, for a LAZY wait (a
 * barrier's), looks every millisecond. */
void mhost__want(bool on, bool lazy);
/* ops.c: before a read fed by another host, its bytes are waited for. */
void mhost__await(struct rp_plan *p, struct rp_op *op);
/* netops.c: a non-blocking connect to another host has completed (or failed,
 * or a stall timeout passed). */
void mhost__connected(int fd);
/* netops.c: an accept that took a connection in the trace, whose client
 * has connected (its dep): waits until the listener has it. */
void mhost__incoming(int fd);
/* netops.c: listener SLOT is another host's; *ADDR its rank's IPv4 address. */
bool mhost__listener(uint32_t slot, uint32_t *addr);
/* exec.c, for the courier: another rank's op IDX started or ended. */
void exec__remote(struct rp_plan *p, uint32_t idx, unsigned int what);
/* After the replay: the reports gathered to rank 0, which writes and
 * prints them; returns the exit code.  mhost__fail ends the whole job. */
int mhost__report(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r);
void mhost__end(void);
void mhost__fail(void);

/* iobuf.c: a thread's I/O buffer of LEN bytes, filled, whose pages are not
 * physically contiguous (NULL if out of memory), and its release. */
void *iobuf__alloc(size_t len);
void iobuf__free(void *buf, size_t len);
/* Physically contiguous runs of pages in BUF; 0 when the frames cannot be
 * read (not CAP_SYS_ADMIN). */
size_t iobuf__runs(const void *buf, size_t len);

/* settle.c: syncfs every root, wait until --root's device is quiet */
int settle__run(const struct rp_opts *o, struct rp_run *r);

/* report.c */
int report__write(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r);
/* The report as JSON (report__write's), new reference, or NULL. */
struct json_t;
struct json_t *report__json(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r);
int report__timeline(const struct rp_plan *p, const char *file);
void report__summary(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r);

#endif
