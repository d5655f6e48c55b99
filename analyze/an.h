/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal model of the analysis, shared by the files of analyze/ only.
 * Everything here is owned by one struct analysis (analyze.h); nothing is
 * freed separately.
 */
#ifndef IOTRACE_AN_H
#define IOTRACE_AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analyze/analyze.h"
#include "include/iotrace_abi.h"
#include "lib/htab.h"

#define AN_NONE UINT32_MAX /* no event, no string, no thread */

enum an_csrc {
	CSRC_ONCPU = 0, /* compute_ns from the thread's on-CPU time */
	CSRC_WALL = 1,	/* no scheduler accounting: wall gap since the last return */
};

#define EVF_GAP_BEFORE	0x1 /* records of this thread were lost just before this call */
#define EVF_BLOCKED_UNX 0x2 /* blocked and woken by nobody the trace knows */

/* One call; 40 bytes, plus its raw record in the arena (which has its exit: an__end()). */
struct an_event {
	uint64_t ts;	    /* enter, CLOCK_MONOTONIC ns, as recorded */
	uint64_t rec;	    /* offset of the raw struct iot_syscall in the arena */
	uint32_t tidx;	    /* index in an->threads */
	uint32_t pos;	    /* index within the thread's calls */
	uint32_t fdpath[2]; /* interned path of fd slots 0 and 1 of the record */
	uint32_t apath[2];  /* interned absolute path of string args 0 and 1 */
};

struct an_thread {
	uint32_t tid, pid;
	uint32_t trace, host; /* input it came from, host it ran on (index in an->hosts) */
	uint32_t comm;	      /* interned */
	uint32_t first;	      /* first event id (global, enter order) */
	uint32_t *ev;	      /* event ids in enter order */
	uint32_t nev, cap;
	uint32_t last_seq;
	uint32_t ngaps;
	uint64_t *gap_ts; /* ts of the first record after each gap */
	uint64_t out_ts;  /* taken off the CPU by a task outside the trace, 0: not */
	uint32_t out_by;  /* that task */
};

struct an_proc {
	uint32_t pid, ppid;
	uint32_t trace, host;
	uint32_t comm, cwd, exe; /* interned */
	bool from_snapshot;
};

struct an_edge {
	uint32_t from, to; /* event ids (enter order once sorted) */
	uint8_t kind;	   /* enum an_rule */
	uint8_t pad[3];
	uint32_t info; /* evidence: bytes for data, wakeup count, ... */
};

struct an_side { /* fork, exit and wakeup records, kept for later passes */
	uint64_t ts;
	uint32_t type; /* IOT_REC_* */
	uint32_t pid, tid;
	uint32_t a, b; /* fork: child pid, tid; wakeup: waker pid, tid; exit: group_dead */
	uint32_t trace;
};

struct an_page { /* mmap I/O between two calls of a thread */
	uint64_t ts;
	uint64_t ino;
	uint64_t index; /* first file page */
	uint32_t dev, npages;
	uint32_t tid;
	uint32_t ev;  /* the call it precedes, AN_NONE until assigned */
	uint8_t kind; /* IOT_PAGE_FAULT, _MAP or _DIRTY */
	uint8_t pad[3];
	uint32_t trace;
};

/* A traced thread runnable but off the CPU, for a task outside the trace. */
struct an_preempt {
	uint64_t ts;  /* taken off the CPU */
	uint64_t off; /* until it ran again */
	uint32_t trace, tid;
	uint32_t by; /* the task that took the CPU */
	uint32_t pad;
};

struct an_file { /* initial state the replay needs */
	uint32_t path;
	uint8_t type; /* enum iot_ftype; IOT_FT_NONE: it existed, type unknown */
	bool created; /* made by the trace: not initial state */
	uint64_t size;
	uint32_t target; /* symlink target, interned, or AN_NONE */
	uint32_t dev;	 /* st_dev of the first sighting that had one, or 0 */
};

struct an_snap {      /* an FDSNAP, MAPSNAP or LINK record kept for the state pass */
	uint64_t off; /* in the arena */
	uint32_t trace;
	uint32_t pad;
};

struct an_vec {
	void *v;
	size_t n, cap, esz;
};

/* One input trace: one kernel's clock, and where its records went in the model. */
struct an_input {
	uint32_t path, hostname, boot_id, machine_id; /* interned, AN_NONE when unknown */
	uint32_t host;		/* its own host (the processes no --host-of moved) */
	uint32_t kernel;	/* the first input of its boot id: inodes mean the same there */
	uint64_t netns;		/* the recorder's network namespace inode, 0 if unknown */
	int64_t shift;		/* --clock-shift: added to its times before anything else */
	int64_t offset;		/* to the merged clock (the first input's), after the shift */
	int64_t residual;	/* half the width of the offset's bounds; -1 unbounded */
	int64_t rt_offset;	/* CLOCK_REALTIME minus CLOCK_MONOTONIC, from its CLOCK records */
	uint64_t compute_floor; /* its META's: each recorder measured its own */
	uint64_t compute_floor_switch; /* its FLOOR's, 0: none */
	uint32_t recorder;	       /* its recorder's pid (META's), 0: unknown */
	uint32_t helper;	       /* its recorder's other thread (HELPER's), 0: none */
	bool have_rt;
	bool have_launch;
	uint8_t clock_src;    /* enum cf_src */
	uint64_t launch;      /* its recorder's launch (-- CMD), on its clock */
	uint64_t first, last; /* its first call's enter and last call's end, own clock */
	uint32_t ev0, ev1;    /* its events before sorting: ev[ev0 .. ev1) */
	uint64_t loss[IOT_LOSS_NR];
	size_t side0, side1, page0, page1;
};

/* One host of a job: an input, or the processes --host-of gave a name. */
struct an_host {
	uint32_t name;	/* interned */
	uint32_t input; /* index in an->inputs */
};

struct analysis {
	struct an_opts opts;
	unsigned char *arena; /* raw syscall records */
	size_t arena_len, arena_cap;
	struct an_event *ev;
	uint8_t *evflags; /* EVF_* per event */
	uint32_t nev, evcap;
	struct an_vec snaps;	/* struct an_snap */
	struct an_vec threads;	/* struct an_thread */
	struct an_vec procs;	/* struct an_proc */
	struct an_vec side;	/* struct an_side */
	struct an_vec edges;	/* struct an_edge, before reduction */
	struct an_vec deps;	/* struct an_edge sorted by to, after reduction */
	uint32_t *dep_off;	/* deps of event i: deps[dep_off[i] .. dep_off[i+1]) */
	struct an_vec files;	/* struct an_file */
	struct an_vec pages;	/* struct an_page, by ev once loaded */
	uint64_t pages_dropped; /* page records inside calls or after a thread's last */
	struct an_vec preempts; /* struct an_preempt, while loading */
	uint64_t *outside_ns;	/* per call: preempted by tasks outside the trace between
				 * the previous call's end and its enter; NULL: none */
	uint32_t cur_recorder;	/* the recorder's pid of the input being loaded, 0: unknown */
	uint32_t cur_helper;	/* and its other thread's tid (IOT_REC_HELPER), 0: none */
	struct htab tid_idx, pid_idx, file_idx;
	uint32_t last_tid, last_tidx; /* the load's last thread: records come in runs */
	struct strtab strs;
	uint64_t t0;		       /* trace start, CLOCK_MONOTONIC */
	uint64_t compute_floor;	       /* META's compute_floor_ns: taken off on-CPU compute */
	uint64_t compute_floor_switch; /* FLOOR's switch_ns, 0: none: taken off the
					* compute after a call switched out in */
	uint32_t families;	       /* call families recorded (IOT_REC_CALLS), 0: all */
	uint64_t lost_events;	       /* loss counters of the stats record plus seq gaps */
	uint64_t seq_gaps;
	uint64_t loss[IOT_LOSS_NR];
	bool have_stats;
	const char *read_error;		 /* why reading stopped early, or NULL; interned */
	uint64_t edge_count[AN_RULE_NR]; /* kept after reduction */
	uint64_t edges_raw, edges_reduced, edges_gap, edges_time;
	uint64_t blocked_unexplained, wakeups_outside, wakeups_untraced;
	uint64_t pipe_bytes_unmatched;
	uint64_t bad_records; /* syscall records whose tails do not parse */
	void *state;	      /* struct an_state of state.c during inference */
	/* several traces, or --host-of: the job's hosts (struct an_host); one
	 * trace and no --host-of leaves multi false and the output as it was */
	bool multi;
	struct an_vec inputs;	      /* struct an_input */
	struct an_vec hosts;	      /* struct an_host */
	uint32_t cur_trace, cur_host; /* while loading */
	uint64_t edges_xhost;	      /* deps kept whose source is on another host */
	uint64_t edges_xhost_dropped; /* same-kernel edges (wakeup, ...) across hosts */
	void *xhost;		      /* struct xhost of xhost.c */
};

/* Key of a pid or tid of one input in tid_idx, pid_idx and the state's tables. */
static inline uint64_t an__key(uint32_t trace, uint32_t id)
{
	return (uint64_t)trace << 32 | id;
}

void *an_vec__push(struct an_vec *v);
void *an_vec__at(const struct an_vec *v, size_t i);
void an_vec__free(struct an_vec *v);

static inline const struct iot_syscall *an__rec(const struct analysis *an, uint32_t id)
{
	return (const struct iot_syscall *)(an->arena + an->ev[id].rec);
}

/* Exit time of call id, on the clock of its ts. */
static inline uint64_t an__end(const struct analysis *an, uint32_t id)
{
	return an->ev[id].ts + an__rec(an, id)->dur_ns;
}

static inline struct an_thread *an__thread(const struct analysis *an, uint32_t tidx)
{
	return an_vec__at(&an->threads, tidx);
}

/* model.c: the lookups and the edge list every pass uses */
/* Thread index of tid, or AN_NONE. */
uint32_t an__tidx(const struct analysis *an, uint32_t trace, uint32_t tid);
/* The process record of pid of input trace, created when new; NULL on ENOMEM. */
struct an_proc *an__proc(struct analysis *an, uint32_t trace, uint32_t pid);
/* --host-of named pid.  The host pid of the input being loaded runs on. */
bool an__host_named(const struct analysis *an, uint32_t pid);
uint32_t an__host_for(struct analysis *an, uint32_t pid);
/* A new host of input, named name (interned); AN_NONE on ENOMEM.  Its name. */
uint32_t an__host_add(struct analysis *an, uint32_t name, uint32_t input);
const char *an__host_name(const struct analysis *an, uint32_t host);
/* The kernel call id ran on, 0 outside a job: fds, pipes and files are its own. */
uint32_t an__kernel_of(const struct analysis *an, uint32_t id);
/* The compute floor of call id's recording that applies to its compute: the
 * one after a switch when the thread's call before it was switched out in
 * (and the recording measured that), else the plain one. */
uint64_t an__floor_of(const struct analysis *an, uint32_t id);
/* Input and host of call id. */
uint32_t an__trace_of(const struct analysis *an, uint32_t id);
uint32_t an__host_of(const struct analysis *an, uint32_t id);
/* Thread tidx's call in progress at ts, or its last call entered before ts. */
uint32_t an__call_at(const struct analysis *an, uint32_t tidx, uint64_t ts, bool in_progress);
/* Records an edge if its rule is on; drops same-thread edges.  0 or -ENOMEM. */
int an__edge(struct analysis *an, uint32_t from, uint32_t to, enum an_rule kind, uint32_t info);
/* Notes that path existed before the trace (or was created by it), on
 * device dev (st_dev encoding; 0 when the sighting did not say). */
void an__file_seen(struct analysis *an, uint32_t path, unsigned int ftype, uint64_t size,
		   uint32_t dev, bool created);
/* Type of path's initial-state entry; IOT_FT_NONE when none or not known. */
unsigned int an__file_type(const struct analysis *an, uint32_t path);

/* emit.c: "file", "dir", "fifo", ... */
const char *an__ftype_name(unsigned int t);
/* compute_ns before call id; *wall when it is the wall gap (no on-CPU data),
 * *spin when 0 for a busy wait's turn after an empty poll. */
uint64_t an__compute(const struct analysis *an, uint32_t id, bool *wall, bool *spin);
/* Lost events as info reports them.  Counters of the inference as JSON. */
uint64_t an__lost(const struct analysis *an);
struct json_t;
struct json_t *an__counters_json(const struct analysis *an);

/* hosts.c and xhost.c: the multi-host parts of the header */
void an__xhost_counters(const struct analysis *an, struct json_t *stats);
void an__job_json(const struct analysis *an, struct json_t *header);

/* The passes, in the order driver.c runs them; each uses the model above. */
/* ingest.c: one trace read and indexed, or (multi) each input read, then all indexed */
int an__load(struct analysis *an, const char *path, const void *buf, size_t len);
int an__load_input(struct analysis *an, const char *path, const void *buf, size_t len);
int an__index(struct analysis *an);
/* hosts.c: the inputs read and made one job */
int an__hosts_load(struct analysis *an, const char *const *paths, uint32_t n);
/* xhost.c: connections across hosts, their byte ranges, and the clock offsets */
int an__xhost_match(struct analysis *an);
int an__xhost_index(struct analysis *an);
int an__xhost_edges(struct analysis *an);
bool an__xhost_owns(const struct analysis *an, uint32_t id);
void an__xhost_free(struct analysis *an);
/* state.c: fds, paths, files; stage, name and seq rules; resolved paths */
int an__state(struct analysis *an);
/* Event ids in exit order (state.c).  Caller frees; NULL on ENOMEM. */
uint32_t *an__exit_order(const struct analysis *an);
/* data.c: pipe, socket and file data edges */
int an__data(struct analysis *an);
/* sched.c: process and wakeup edges, blocked calls */
int an__sched(struct analysis *an);
/* spin.c: spin edges, a lazy-wait loop ended by another thread's call */
int an__spin(struct analysis *an);
/* barrier.c: barrier edges across hosts, a collective outside the traces */
int an__barrier(struct analysis *an);
/* reduce.c: gap filter, transitive reduction, deps per event */
int an__reduce(struct analysis *an, bool cross_thread);

#endif
