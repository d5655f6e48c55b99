// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace capture: one record per system call of the traced processes, plus
 * the scheduler and page-cache events that show what syscalls hide.
 *
 * Hot path: sys_enter/sys_exit run for every syscall on the machine, so an
 * untraced thread's call is rejected by a per-CPU verdict that remembers the
 * last untraced thread seen there (see `resident`), or else by its having no
 * task storage (see `storage_verdict`); a traced one stashes its
 * arguments and fd identities at enter and, at exit, builds its record in
 * place in a per-CPU batch.  The state of the traced thread running on a CPU
 * stays in that CPU's `res` slot between its calls and goes back to task
 * storage when the thread leaves the CPU.  The batch goes to the ring buffer
 * as one ring record when it fills, when a traced thread leaves the CPU and
 * when a thread exits, so the ring's reserve/commit and the reader's wakeup
 * logic are paid per batch, not per call.  A thread's records stay in order:
 * it cannot change CPU without first leaving this one, which flushes.
 *
 * Built twice: as is, and with IOT_NO_TASK_STORAGE for kernels without task
 * storage, where the thread state lives in a hash keyed by tid (`tstate`).
 * Every use of the state goes through tstate_get() and its neighbours, so
 * the programs' source is one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/iotrace_abi.h"

char LICENSE[] SEC("license") = "GPL";

#define S_IFMT		    00170000
#define S_IFSOCK	    0140000
#define S_IFLNK		    0120000
#define S_IFREG		    0100000
#define S_IFBLK		    0060000
#define S_IFDIR		    0040000
#define S_IFCHR		    0020000
#define S_IFIFO		    0010000
#define ANON_INODE_FS_MAGIC 0x09041934
#define F_DUPFD		    0
#define F_DUPFD_CLOEXEC	    1030
#define PF_KTHREAD	    0x00200000 /* include/linux/sched.h */

#define SCRATCH_SZ IOT_BATCH_ROOM /* room a record is built in; two IOT_REC_MAX halves */
#define OFF_MASK   (IOT_REC_MAX - 1)
#define BATCH_SZ   IOT_BATCH_SZ

/* Set by the recorder between open and load. */
const volatile struct iot_sc_desc sc_desc[IOT_NR_MAX];
const volatile bool follow_children = true;
const volatile __u64 wakeup_bytes = 1 << 20;		  /* wake the reader past this much data */
const volatile __u32 batch_limit = BATCH_SZ - SCRATCH_SZ; /* flush a batch past this */
/*
 * Every traced thread has task storage before its first call: the recorder
 * creates it for the threads of each process it adds, the fork program for
 * each child of a traced thread.  So a thread without it is untraced, found
 * with one load of task->bpf_storage instead of a hash lookup.  False on a
 * kernel where the recorder cannot name a thread (no PIDFD_THREAD): storage
 * is created at a traced thread's first call, found out by the hash.
 */
const volatile bool storage_verdict = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} events SEC(".maps");

/* tgid -> 1: the processes being traced */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/*
 * Bumped whenever a thread may turn traced: a process added (by the recorder,
 * or a fork that follows a child) or a thread born in a traced process.  A
 * remembered "untraced" verdict holds only for the generation it was taken in,
 * so a new thread whose stack (and so pt_regs) reuses a dead one's cannot
 * inherit it, nor a process the recorder adds later.
 */
__u64 traced_gen;

/* Bumped when records are lost: a thread's fd_cache may name entries the
 * reader never got, so none of them is trusted after. */
__u32 fd_gen;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOT_LOSS_NR);
	__type(key, __u32);
	__type(value, __u64);
} loss SEC(".maps");

/*
 * What the thread last emitted in full for one fd number: while the fd still
 * holds the same open file, a call carries a short entry and the reader
 * restores the rest (struct iot_fd_short).  The file is known by its address
 * and, as a freed one's may be reused at once, by those of its inode and
 * super block, its inode number, mode and flags too: all in cache lines the
 * call reads anyway for pos and size.
 */
struct fd_cache {
	__u64 file;
	__u64 inode;
	__u64 sb;
	__u64 ino;
	__u32 flags;
	__s32 fd;
	__u32 gen; /* fd_gen when emitted: a lost record may have held it */
	__u32 dev; /* as emitted: a short entry turns whole again from these */
	__u16 mode;
	__u16 ftype;
	/* the socket's, as its last full socket tail had them: what may change
	 * (bind, connect) and the sock itself; the rest cannot */
	__u64 sk;
	__u64 peer; /* AF_UNIX: the peer's sock */
	__u32 saddr;
	__u32 daddr;
	__u16 num;
	__u16 dport;
	__u16 family;
	__u8 sock_ok; /* a full socket tail with these was emitted since the entry */
	__u8 tcp;     /* TCP, SOCK_STREAM: short tails carry tcp_seq */
};

#define FDC_SLOTS 4 /* direct-mapped by fd number */

/* A traced thread's state between its enter and exit, and across calls. */
struct task_state {
	__u64 args[6];
	__u64 enter_ts;
	__u64 run_ns;	 /* on-CPU ns accumulated up to switch_in */
	__u64 switch_in; /* when it last got the CPU */
	__u64 enter_run; /* on-CPU clock at this call's enter */
	__u64 exit_run;	 /* on-CPU clock at the previous call's exit */
	__u64 cpu_ns;	 /* on-CPU ns from the previous exit to this enter */
	__u64 pid_tgid;	 /* of the thread at this call's exit, for its header */
	__u32 seq;	 /* records emitted in this thread's context */
	__u16 nr;
	__u8 in_call;
	__u8 have_exit;
	__u8 nfd;
	__u8 exec_trunc;
	__u8 exited;	   /* past sched_process_exit: its seq is final */
	__u8 fdshort;	   /* bit i: fds[i] may be emitted short */
	__u32 fdshort_gen; /* fd_gen when fdshort was decided, at enter */
	struct iot_fd fds[IOT_MAX_FDS];
	struct fd_cache fdc[FDC_SLOTS];
	char exec_path[256];		   /* execve reads its path at enter: the mm goes */
	char exec_argv[2 * IOT_ARGV_ROOM]; /* and its argv, NUL-separated */
	__u16 exec_argv_len;		   /* bytes of exec_argv used */
	__u8 exec_argv_flags;		   /* IOT_STRF_* of the argv string */
	__u8 pad2;
	struct iot_argv_counts exec_counts;
	__u64 task; /* the current task at enter, as stash_fds() takes it */
#ifdef IOT_NO_TASK_STORAGE
	__u64 start; /* the thread's start_time: a reused tid's entry is not its */
#endif
};

#ifndef IOT_NO_TASK_STORAGE
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tstate SEC(".maps");
#else
/*
 * Built for a kernel without task storage (Linux < 5.11): the same state in a
 * hash keyed by tid, which must neither outlive its thread nor pass to the
 * next thread given that tid.  An entry is made only by the thread itself, at
 * its first traced call (so never for a thread already dead), deleted at
 * sched_process_exit (which every task passes, before its tid can be freed),
 * moved when an exec gives the thread its leader's tid, and told from a
 * stale one by the start time it keeps.  Allocated as threads come, not
 * up front: a state is over a kilobyte.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, IOT_TSTATE_HASH_MAX);
	__type(key, __u32);
	__type(value, struct task_state);
} tstate SEC(".maps");

/* Zeroes a new entry is made from: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct task_state);
} tstate_zero SEC(".maps");

/*
 * A byte a tid, eight to an entry: nonzero while the tid may have an entry in
 * tstate.  What task->bpf_storage tells with one load: an untraced task's
 * switch or call is turned away by an array load, not a hash lookup (the
 * verifier inlines it).  The recorder sizes it to pid_max; a tid past it
 * (pid_max raised since) is looked up.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tstate_marks SEC(".maps");
#endif

/*
 * The traced thread on this CPU, its state kept here between its calls:
 * sys_enter and sys_exit know it by the pt_regs the tracepoints hand them,
 * so a thread that stays on the CPU pays no task or task-storage helper call
 * (with Safe RET and retpolines, each call is dear next to the loads around
 * it).  Taken at a call's enter once on_switch runs on the CPU; written back
 * to task storage when the thread leaves the CPU or execs or exits.  The
 * skeleton detaches the syscall programs before on_switch (program order), so
 * no thread is left in a slot that nothing writes back.  Programs on the
 * syscall tracepoints run with preemption off (measured: no sched_switch
 * inside a 1 ms sys_enter program against two CPU hogs), so nothing runs in
 * between on this CPU but interrupts, whose tracepoint here (sched_waking)
 * does not use the slot.
 */
struct resident {
	__u64 regs; /* the thread's pt_regs; 0: no thread here */
	__u64 task; /* its task_struct, to compare and to read through */
	__u64 pid_tgid;
	__u32 armed; /* on_switch has run on this CPU: a thread taken in
				 * now is written back when it leaves */
	__u32 pad;
	__u64 nt_regs;	      /* pt_regs of the last untraced thread seen here */
	__u64 nt_gen;	      /* traced_gen when that was found out */
	struct task_state st; /* all but exec_path, which execve keeps in storage */
};

#define RES_COPY offsetof(struct task_state, exec_path)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct resident);
} res SEC(".maps");

/* Final sequence number of each exited thread, drained by the recorder into
 * IOT_REC_SEQEND records: losses after a thread's last kept record show too. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct iot_seqend_val);
} seq_end SEC(".maps");

/* Records of this CPU not yet in the ring; read by the recorder at the end. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iot_batch);
} batch SEC(".maps");

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

static __always_inline void count_loss_n(__u32 what, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&loss, &what);

	if (v)
		*v += n;
}

static __always_inline void count_loss(__u32 what)
{
	count_loss_n(what, 1);
}

static __always_inline bool is_traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

#ifndef IOT_NO_TASK_STORAGE
/* The state of task, made (zeroed) when create and it has none; NULL if none. */
static __always_inline struct task_state *tstate_get(struct task_struct *task, bool create)
{
	return bpf_task_storage_get(&tstate, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Whether task may have a state: it has some BPF task storage, one load. */
static __always_inline bool tstate_maybe(struct task_struct *task)
{
	return task->bpf_storage;
}

/* Task storage goes with its task and keeps no tid: nothing to do. */
static __always_inline void tstate_drop(struct task_struct *task)
{
}

static __always_inline void tstate_retid(struct task_struct *task, __u32 old_tid)
{
}
#else
/* tid's byte in tstate_marks; NULL past the map's end. */
static __always_inline __u8 *tid_mark(__u32 tid)
{
	__u32 k = tid / 8;
	__u8 *w = bpf_map_lookup_elem(&tstate_marks, &k);

	return w ? w + (tid & 7) : NULL;
}

static __always_inline bool tstate_maybe(struct task_struct *task)
{
	__u8 *m = tid_mark(task->pid);

	return !m || *m;
}

static __always_inline void tid_mark_set(__u32 tid, __u8 v)
{
	__u8 *m = tid_mark(tid);

	if (m)
		*m = v;
}

static __always_inline struct task_state *tstate_get(struct task_struct *task, bool create)
{
	__u32 tid = task->pid, zero = 0;
	struct task_state *st = NULL;
	void *z;

	if (tstate_maybe(task))
		st = bpf_map_lookup_elem(&tstate, &tid);
	if (st && st->start == task->start_time)
		return st;
	if (!create)
		return NULL;
	/* none, or a dead thread's of the same tid: this thread's, fresh */
	z = bpf_map_lookup_elem(&tstate_zero, &zero);
	if (!z || bpf_map_update_elem(&tstate, &tid, z, BPF_ANY))
		return NULL;
	st = bpf_map_lookup_elem(&tstate, &tid);
	if (!st)
		return NULL;
	st->start = task->start_time;
	tid_mark_set(tid, 1);
	return st;
}

/* The task is past sched_process_exit: its tid may be handed out next. */
static __always_inline void tstate_drop(struct task_struct *task)
{
	__u32 tid = task->pid;

	if (!tstate_maybe(task))
		return;
	tid_mark_set(tid, 0);
	bpf_map_delete_elem(&tstate, &tid);
}

/*
 * An exec by a non-leader thread gave it the leader's tid (the leader's own
 * entry went at its exit) and start time: the state follows the thread.  The
 * entry under old_tid is the thread's, whatever start it keeps: the thread
 * held that tid until now, and an earlier holder's went at its exit.
 */
static __always_inline void tstate_retid(struct task_struct *task, __u32 old_tid)
{
	__u32 tid = task->pid;
	struct task_state *st;

	if (old_tid == tid)
		return;
	st = bpf_map_lookup_elem(&tstate, &old_tid);
	if (!st)
		return;
	if (bpf_map_update_elem(&tstate, &tid, st, BPF_ANY))
		count_loss(IOT_LOSS_STORAGE);
	tid_mark_set(old_tid, 0);
	bpf_map_delete_elem(&tstate, &old_tid);
	st = bpf_map_lookup_elem(&tstate, &tid);
	if (!st)
		return;
	st->start = task->start_time;
	tid_mark_set(tid, 1);
}
#endif

/* The storage of task, if it has ours; NULL at once when it has none at all. */
static __always_inline struct task_state *storage_of(struct task_struct *task)
{
	if (storage_verdict && !tstate_maybe(task))
		return NULL;
	return tstate_get(task, false);
}

/* Whether task (of process tgid) is traced, for the programs that do not keep
 * a state of their own for it. */
static __always_inline bool task_traced(struct task_struct *task, __u32 tgid)
{
	return storage_verdict ? storage_of(task) != NULL : is_traced(tgid);
}

/*
 * Whether the thread of regs is known here to be untraced: one per-CPU load
 * and two compares instead of a task-storage miss and a hash lookup, which
 * every syscall of every other thread on the host would pay.
 */
static __always_inline bool known_untraced(struct resident *r, struct pt_regs *regs)
{
	return r && r->nt_regs == (__u64)regs && r->nt_gen == traced_gen;
}

/* Remembers the thread of regs as untraced, as of generation gen: read before
 * the lookups that found it so, a later bump makes the verdict stale. */
static __always_inline void remember_untraced(struct resident *r, struct pt_regs *regs, __u64 gen)
{
	if (!r)
		return;
	r->nt_regs = (__u64)regs;
	r->nt_gen = gen;
}

/* A thread may turn traced: every remembered "untraced" verdict is void. */
static __always_inline void traced_grew(void)
{
	__sync_fetch_and_add(&traced_gen, 1);
}

/* Puts data (nrec records, noseq of them unsequenced) in the ring as one ring
 * record; wakes the reader only once enough has piled up. */
static __always_inline void ring_put(void *data, __u64 size, __u32 nrec, __u32 noseq)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&events, data, size, flags)) {
		__sync_fetch_and_add(&fd_gen, 1);
		count_loss_n(IOT_LOSS_RINGBUF, nrec);
		count_loss_n(IOT_LOSS_RINGBUF_NOSEQ, noseq);
	}
}

/* Emits one finished record straight to the ring. */
static __always_inline void emit(void *rec, __u64 size)
{
	ring_put(rec, size, 1, !((struct iot_hdr *)rec)->seq);
}

static __always_inline struct iot_batch *get_batch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&batch, &zero);
}

static __always_inline struct resident *get_res(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&res, &zero);
}

/* Writes task's resident state back to its storage, if task is this CPU's. */
static __always_inline void res_put_back(struct task_struct *task)
{
	struct resident *r = get_res();
	struct task_state *st;

	if (!r || !r->regs || r->task != (__u64)task)
		return;
	st = tstate_get(task, false);
	if (st)
		__builtin_memcpy(st, &r->st, RES_COPY);
	r->regs = 0;
}

/* The state of task, running on this CPU: resident, or in its storage. */
static __always_inline struct task_state *state_of(struct task_struct *task)
{
	struct resident *r = get_res();

	if (r && r->regs && r->task == (__u64)task)
		return &r->st;
	return tstate_get(task, false);
}

static __always_inline void batch_flush(struct iot_batch *b)
{
	__u32 len = b->len;

	/* len < BATCH_SZ always; the mask tells the verifier */
	barrier_var(len);
	len &= BATCH_SZ - 1;
	if (len)
		ring_put(b->buf, len, b->nrec, b->noseq);
	b->len = 0;
	b->nrec = 0;
	b->noseq = 0;
}

/*
 * Claims this CPU's batch for one record and returns where to build it, with
 * at least SCRATCH_SZ bytes of room; NULL when another program on this CPU
 * (an interrupt's, or one that preempted a writer) holds it.
 */
static __always_inline __u8 *batch_begin(struct iot_batch *b)
{
	__u32 len;

	if (b->busy)
		return NULL;
	b->busy = 1;
	if (b->len > BATCH_SZ - SCRATCH_SZ)
		batch_flush(b);
	len = b->len;
	if (len > BATCH_SZ - SCRATCH_SZ) { /* for the verifier: flushed above */
		b->busy = 0;
		return NULL;
	}
	return b->buf + len;
}

/* Commits the record of size bytes built at batch_begin() and releases. */
static __always_inline void batch_end(struct iot_batch *b, __u32 size, bool noseq)
{
	b->len += size;
	b->nrec++;
	b->noseq += noseq;
	if (b->len > batch_limit)
		batch_flush(b);
	b->busy = 0;
}

/* Appends a small finished record to the batch, or emits it when the batch is
 * held; flush sends the batch on at once (the thread leaves the CPU or ends). */
static __always_inline void batch_put(void *rec, __u32 size, bool flush)
{
	struct iot_batch *b = get_batch();
	__u8 *dst;

	if (!b) {
		emit(rec, size);
		return;
	}
	dst = batch_begin(b);
	if (!dst) {
		emit(rec, size);
		return;
	}
	__builtin_memcpy(dst, rec, size);
	batch_end(b, size, !((struct iot_hdr *)rec)->seq);
	if (flush)
		batch_flush(b);
}

/* The kernel's dev_t (major:12 minor:20) as user space's st_dev. */
static __always_inline __u32 user_dev(__u32 kdev)
{
	__u32 major = kdev >> 20, minor = kdev & 0xfffff;

	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

static __always_inline __u16 ftype_of(__u32 mode, unsigned long magic)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return IOT_FT_REG;
	case S_IFDIR:
		return IOT_FT_DIR;
	case S_IFIFO:
		return IOT_FT_FIFO;
	case S_IFSOCK:
		return IOT_FT_SOCK;
	case S_IFCHR:
		return IOT_FT_CHR;
	case S_IFBLK:
		return IOT_FT_BLK;
	case S_IFLNK:
		return IOT_FT_LNK;
	}
	return magic == ANON_INODE_FS_MAGIC ? IOT_FT_ANON : IOT_FT_OTHER;
}

static __always_inline struct file *fd_file(struct task_struct *task, int fd)
{
	struct fdtable *fdt = task->files->fdt;
	struct kiocb *slot;
	struct file *f;

	if (fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return NULL;
	/* The slot is a struct file * in an array BTF cannot type; seen as a
	 * struct kiocb (whose first member is a struct file *) it is read with
	 * one fault-safe load instead of a bpf_probe_read_kernel() call. */
	slot = bpf_rdonly_cast((void *)fdt->fd + fd * sizeof(void *),
			       bpf_core_type_id_kernel(struct kiocb));
	f = slot->ki_filp;
	if (!f)
		return NULL;
	return bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
}

/* Identity and position of fd; ftype IOT_FT_NONE when it is not open. */
static __always_inline void fill_fd(struct iot_fd *out, struct task_struct *task, int fd,
				    __u16 which)
{
	struct file *f = fd_file(task, fd);
	struct inode *ino;

	out->fd = fd;
	out->which = which;
	if (!f) {
		out->ino = 0;
		out->pos = 0;
		out->size = 0;
		out->dev = 0;
		out->flags = 0;
		out->ftype = IOT_FT_NONE;
		return;
	}
	ino = f->f_inode;
	out->ino = ino->i_ino;
	out->pos = f->f_pos;
	out->size = ino->i_size;
	out->dev = user_dev(ino->i_sb->s_dev);
	out->flags = f->f_flags;
	out->ftype = ftype_of(ino->i_mode, ino->i_sb->s_magic);
}

/* Whether c names open file f (of inode ino) at fd as the reader last got it. */
static __always_inline bool fdc_hit(struct fd_cache *c, struct file *f, struct inode *ino, int fd)
{
	return c->file == (__u64)f && c->fd == fd && c->inode == (__u64)ino &&
	       c->sb == (__u64)ino->i_sb && c->ino == ino->i_ino && c->flags == f->f_flags &&
	       c->mode == ino->i_mode && c->gen == fd_gen;
}

/*
 * fill_fd() for the n-th fd argument of a call, short when the thread's last
 * full entry for fd named the same open file: no super block read, 16 bytes
 * fewer in the record.  A full entry is remembered at once: the call's record
 * is emitted at its exit, or fd_gen is bumped when it is lost.
 */
static __always_inline void stash_fd(struct task_state *st, __u8 n, struct task_struct *task,
				     int fd, __u16 which, bool may_short)
{
	struct iot_fd *out = &st->fds[n & (IOT_MAX_FDS - 1)];
	struct fd_cache *c = &st->fdc[fd & (FDC_SLOTS - 1)];
	struct file *f = fd_file(task, fd);
	struct inode *ino;

	if (!f) {
		fill_fd(out, task, fd, which);
		return;
	}
	ino = f->f_inode;
	out->fd = fd;
	out->which = which;
	out->pos = f->f_pos;
	out->size = ino->i_size;
	if (may_short && fdc_hit(c, f, ino, fd)) {
		/* whole, should a loss before the exit void the short entry */
		out->ino = c->ino;
		out->dev = c->dev;
		out->flags = c->flags;
		out->ftype = c->ftype;
		st->fdshort |= 1 << n;
		return;
	}
	out->ino = ino->i_ino;
	out->dev = user_dev(ino->i_sb->s_dev);
	out->flags = f->f_flags;
	out->ftype = ftype_of(ino->i_mode, ino->i_sb->s_magic);
	c->file = (__u64)f;
	c->inode = (__u64)ino;
	c->sb = (__u64)ino->i_sb;
	c->ino = out->ino;
	c->flags = out->flags;
	c->fd = fd;
	c->gen = fd_gen;
	c->dev = out->dev;
	c->mode = ino->i_mode;
	c->ftype = out->ftype;
	c->sock_ok = 0;
}

/* bpf_get_current_pid_tgid() without the call: on this hot path every helper
 * call's return costs as much as the loads around it. */
static __always_inline __u64 task_pid_tgid(struct task_struct *task)
{
	return ((__u64)task->tgid << 32) | (__u32)task->pid;
}

static __always_inline __u64 run_clock(struct task_state *st, __u64 now)
{
	return st->run_ns + (now - st->switch_in);
}

static __always_inline void read_args(struct task_state *st, struct pt_regs *regs, bool btf)
{
	if (btf) {
		st->args[0] = regs->di;
		st->args[1] = regs->si;
		st->args[2] = regs->dx;
		st->args[3] = regs->r10;
		st->args[4] = regs->r8;
		st->args[5] = regs->r9;
	} else {
		st->args[0] = BPF_CORE_READ(regs, di);
		st->args[1] = BPF_CORE_READ(regs, si);
		st->args[2] = BPF_CORE_READ(regs, dx);
		st->args[3] = BPF_CORE_READ(regs, r10);
		st->args[4] = BPF_CORE_READ(regs, r8);
		st->args[5] = BPF_CORE_READ(regs, r9);
	}
}

/* A call's fd stash starts empty, its short entries valid in this fd_gen. */
static __always_inline void stash_begin(struct task_state *st)
{
	st->fdshort = 0;
	st->fdshort_gen = fd_gen;
	st->nfd = 0;
}

/*
 * fd identities must be read at enter: close and dup2 change them.  A global
 * function, so that the verifier walks its loop once, not once for every
 * path of on_enter() that reaches it.  It finds the current task in
 * st->task: a global function cannot take it as an argument.
 */
__noinline int stash_fds(struct task_state *st, __u32 mask, bool may_short)
{
	struct task_struct *task;
	__u8 n = 0;

	if (!st)
		return 0;
	task = bpf_rdonly_cast((void *)st->task, bpf_core_type_id_kernel(struct task_struct));
	stash_begin(st);
	for (int i = 0; i < 6; i++) {
		if (!(mask & (1 << i)))
			continue;
		if ((int)st->args[i] < 0) /* AT_FDCWD and friends */
			continue;
		if (n >= IOT_MAX_FDS) {
			count_loss(IOT_LOSS_FDS);
			break;
		}
		stash_fd(st, n, task, (int)st->args[i], i, may_short);
		n++;
	}
	st->nfd = n;
	return 0;
}

/*
 * stash_fds() for a call whose only fd, if any, is its first argument (read,
 * pread, write, fsync, lseek...): inline, so the commonest calls pay no
 * BPF-to-BPF call, whose return is dear under return-thunk mitigations.
 */
static __always_inline void stash_first_fd(struct task_state *st, struct task_struct *task,
					   __u32 mask)
{
	stash_begin(st);
	if (!mask || (int)st->args[0] < 0)
		return;
	stash_fd(st, 0, task, (int)st->args[0], 0, true);
	st->nfd = 1;
}

static __always_inline void put_hdr(struct iot_hdr *h, __u64 ts, __u64 pid_tgid, __u16 type,
				    __u16 size, __u32 seq)
{
	h->ts = ts;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->seq = seq;
	h->type = type;
	h->size = size;
}

/* The thread's call is over: its on-CPU clock restarts for the next one. */
static __always_inline void call_done(struct task_state *st, __u64 now)
{
	st->in_call = 0;
	st->exit_run = run_clock(st, now);
	st->have_exit = 1;
}

/* exit and exit_group, at enter: they do not return, and take no fd or path. */
static __always_inline int emit_noret(struct task_state *st, __u64 pid_tgid, __u64 now)
{
	struct iot_syscall rec = {};

	__builtin_memcpy(rec.args, st->args, sizeof(rec.args));
	rec.cpu_ns = st->cpu_ns;
	rec.nr = st->nr;
	rec.flags = IOT_SCF_NO_RETURN | (st->have_exit ? 0 : IOT_SCF_NO_CPU);
	put_hdr(&rec.hdr, st->enter_ts, pid_tgid, IOT_REC_SYSCALL, sizeof(rec), ++st->seq);
	batch_put(&rec, sizeof(rec), false);
	call_done(st, now);
	return 0;
}

/* Finds the state of the current thread, taking it into this CPU's slot when
 * it can stay there; NULL when the thread is not traced. */
static __always_inline struct task_state *enter_state(struct pt_regs *regs, struct iot_sc_desc *d,
						      struct task_struct **taskp, __u64 *pid_tgid)
{
	struct resident *r = get_res();
	struct task_struct *task;
	struct task_state *st;
	__u64 gen;

	if (r && r->regs == (__u64)regs) {
		if (!(d->flags & IOT_SCD_EXEC)) {
			*taskp = bpf_rdonly_cast((void *)r->task,
						 bpf_core_type_id_kernel(struct task_struct));
			*pid_tgid = r->pid_tgid;
			return &r->st;
		}
		/* execve reads its path into storage, and the exec renames it */
		res_put_back(bpf_get_current_task_btf());
	} else if (known_untraced(r, regs)) {
		return NULL;
	}
	/* Only traced threads have storage: finding it saves the hash lookup
	 * on the hot path; a thread seen for the first time is checked once. */
	gen = traced_gen;
	task = bpf_get_current_task_btf();
	*taskp = task;
	*pid_tgid = task_pid_tgid(task);
	st = storage_of(task);
	if (!st) {
		if (storage_verdict || !is_traced(task->tgid)) {
			remember_untraced(r, regs, gen);
			return NULL;
		}
		st = tstate_get(task, true);
		if (!st) {
			count_loss(IOT_LOSS_STORAGE);
			return NULL;
		}
	}
	if (!r || r->regs || !r->armed || (d->flags & IOT_SCD_EXEC))
		return st;
	__builtin_memcpy(&r->st, st, RES_COPY);
	r->regs = (__u64)regs;
	r->task = (__u64)task;
	r->pid_tgid = *pid_tgid;
	return &r->st;
}

/* Up to IOT_ARGV_MAX argv strings into st->exec_argv, before the exec drops the mm. */
static __always_inline void read_argv(struct task_state *st, const char *const *argv)
{
	__u32 off = 0, argc = 0;
	__u8 fl = 0;
	const char *p;
	long n;

	for (int i = 0; i < IOT_ARGV_MAX; i++) {
		if (!argv)
			goto out;
		if (bpf_probe_read_user(&p, sizeof(p), &argv[i])) {
			/* strace prints an array it cannot read as its address */
			fl |= i ? IOT_STRF_FAULT : IOT_STRF_ARGV_BAD;
			goto out;
		}
		if (!p)
			goto out;
		if (off >= IOT_ARGV_ROOM)
			break;
		n = bpf_probe_read_user_str(st->exec_argv + (off & (IOT_ARGV_ROOM - 1)),
					    IOT_ARGV_ROOM, p);
		if (n <= 0) {
			fl |= IOT_STRF_FAULT;
			goto out;
		}
		off += n;
		argc++;
		if (n == IOT_ARGV_ROOM) {
			fl |= IOT_STRF_TRUNC;
			goto out;
		}
	}
	/* stopped with room or count used up: more follow unless argv ends here */
	if (bpf_probe_read_user(&p, sizeof(p), &argv[argc]) || p)
		fl |= IOT_STRF_ARGV_MORE;
out:
	st->exec_argv_len = off;
	st->exec_argv_flags = fl;
	st->exec_counts.argc = argc;
}

struct envp_walk {
	const char *const *envp;
	__u32 n;
};

/* One envp entry of count_envp(); 1 ends the walk. */
static long envp_step(__u64 i, void *ctx)
{
	struct envp_walk *w = ctx;
	const char *p;

	if (bpf_probe_read_user(&p, sizeof(p), &w->envp[i]) || !p)
		return 1;
	w->n = i + 1;
	return 0;
}

/*
 * strace's "N vars": envp entries up to IOT_ENVC_MAX.  With bpf_loop() the
 * verifier checks one step, not IOT_ENVC_MAX of them.
 */
static __always_inline void count_envp(struct task_state *st, const char *const *envp)
{
	struct envp_walk w = { .envp = envp };
	const char *p;

	if (envp && bpf_probe_read_user(&p, sizeof(p), &envp[0]))
		st->exec_argv_flags |= IOT_STRF_ENV_BAD;
	else if (envp)
		bpf_loop(IOT_ENVC_MAX, envp_step, &w, 0);
	if (w.n == IOT_ENVC_MAX && !bpf_probe_read_user(&p, sizeof(p), &envp[w.n]) && p)
		st->exec_argv_flags |= IOT_STRF_ENV_MORE;
	st->exec_counts.envc = w.n;
}

/*
 * An exec's path, argv and envp count into st, before the exec drops the mm.
 * A global function: the verifier walks its loops once, not along every path
 * of on_enter() that reaches them.
 */
__noinline int read_exec(struct task_state *st, __u32 str_args)
{
	const void *path;
	long n;

	if (!st)
		return 0;
	/* execve(path, ...) or execveat(dirfd, path, ...) */
	path = (void *)(str_args & 1 ? st->args[0] : st->args[1]);
	n = bpf_probe_read_user_str(st->exec_path, sizeof(st->exec_path), path);
	st->exec_trunc = n < 0 ? IOT_STRF_FAULT : n == sizeof(st->exec_path) ? IOT_STRF_TRUNC : 0;
	/* argv and envp follow the path, whichever call it is */
	read_argv(st, (void *)(str_args & 1 ? st->args[1] : st->args[2]));
	count_envp(st, (void *)(str_args & 1 ? st->args[2] : st->args[3]));
	return 0;
}

static __always_inline int on_enter(struct pt_regs *regs, long id, bool btf)
{
	struct task_struct *task = NULL;
	struct iot_sc_desc d;
	struct task_state *st;
	__u64 now, pid_tgid = 0;

	if ((__u64)id >= IOT_NR_MAX)
		return 0;
	d = sc_desc[id];
	if (!(d.flags & IOT_SCD_TRACE))
		return 0;
	st = enter_state(regs, &d, &task, &pid_tgid);
	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	/* First sight of the thread: it is on the CPU right now. */
	if (!st->switch_in)
		st->switch_in = now;
	st->enter_ts = now;
	st->nr = id;
	st->enter_run = run_clock(st, now);
	st->cpu_ns = st->have_exit ? st->enter_run - st->exit_run : 0;
	read_args(st, regs, btf);
	/* the exec may give the thread the leader's tid, which the reader keys on */
	st->task = (__u64)task;
	if (d.fd_args <= 1 && !(d.flags & IOT_SCD_EXEC))
		stash_first_fd(st, task, d.fd_args);
	else
		stash_fds(st, d.fd_args, !(d.flags & IOT_SCD_EXEC));
	st->in_call = 1;
	if (d.flags & IOT_SCD_EXEC)
		read_exec(st, d.str_args);
	if (d.flags & IOT_SCD_NORET)
		return emit_noret(st, pid_tgid, now);
	return 0;
}

/* A record being built, as the global functions that build it take it. */
struct rec_room {
	__u8 b[SCRATCH_SZ];
};

/*
 * Appends a string tail at off; returns bytes used.  A global function: its
 * three outcomes (read, faulted, cut) are one unknown length to the loop over
 * a call's string arguments, not three states each string multiplies.
 */
__noinline int put_user_str(struct rec_room *room, __u32 off, __u64 src, __u32 which)
{
	__u8 *buf = (__u8 *)room;
	struct iot_str *s;
	long n;

	if (!room)
		return 0;
	off &= OFF_MASK;
	s = (struct iot_str *)(buf + off);
	n = bpf_probe_read_user_str(buf + off + sizeof(*s), IOT_STR_MAX, (void *)src);
	s->which = which;
	s->flags = 0;
	*(__u32 *)s->pad = 0;
	if (n <= 0) {
		buf[(off + sizeof(*s)) & (SCRATCH_SZ - 1)] = 0;
		n = 1;
		s->flags = IOT_STRF_FAULT;
		count_loss(IOT_LOSS_STR_FAULT);
	} else if (n == IOT_STR_MAX) {
		s->flags = IOT_STRF_TRUNC;
		count_loss(IOT_LOSS_STR_TRUNC);
	}
	s->len = n;
	return sizeof(*s) + ((n + 7) & ~7);
}

/* readlink's buffer holds ret bytes, not NUL-terminated. */
static __always_inline __u32 put_result_str(__u8 *buf, __u32 off, const void *src, long len)
{
	struct iot_str *s;
	__u32 n;

	off &= OFF_MASK;
	s = (struct iot_str *)(buf + off);
	if (len < 0)
		len = 0;
	n = len >= IOT_STR_MAX ? IOT_STR_MAX - 1 : len;
	if (bpf_probe_read_user(buf + off + sizeof(*s), n & (IOT_STR_MAX - 1), src))
		n = 0;
	buf[(off + sizeof(*s) + n) & (SCRATCH_SZ - 1)] = 0;
	s->len = n + 1;
	s->which = IOT_STR_RESULT;
	s->flags = len >= IOT_STR_MAX ? IOT_STRF_TRUNC : 0;
	*(__u32 *)s->pad = 0;
	return sizeof(*s) + ((n + 1 + 7) & ~7);
}

/* The exec's path, read at enter; WHICH is its argument: 0 for execve, 1 for
 * execveat (dirfd first). */
static __always_inline __u32 put_exec_str(__u8 *buf, __u32 off, struct task_state *st, __u8 which)
{
	struct iot_str *s;
	long n;

	off &= OFF_MASK;
	s = (struct iot_str *)(buf + off);
	n = bpf_probe_read_kernel_str(buf + off + sizeof(*s), sizeof(st->exec_path), st->exec_path);
	if (n <= 0) {
		buf[(off + sizeof(*s)) & (SCRATCH_SZ - 1)] = 0;
		n = 1;
	}
	s->len = n;
	s->which = which;
	s->flags = st->exec_trunc;
	*(__u32 *)s->pad = 0;
	return sizeof(*s) + ((n + 7) & ~7);
}

/* execve's argv as one string of NUL-separated strings, its counts in pad. */
static __always_inline __u32 put_argv_str(__u8 *buf, __u32 off, struct task_state *st)
{
	struct iot_str *s;
	__u32 n = st->exec_argv_len;

	off &= OFF_MASK;
	s = (struct iot_str *)(buf + off);
	if (n > 2 * IOT_ARGV_ROOM - 1)
		n = 0;
	if (!n || bpf_probe_read_kernel(buf + off + sizeof(*s), n, st->exec_argv)) {
		n = 1;
		buf[(off + sizeof(*s)) & (SCRATCH_SZ - 1)] = 0;
	}
	s->len = n;
	s->which = IOT_STR_ARGV;
	s->flags = st->exec_argv_flags;
	__builtin_memcpy(s->pad, &st->exec_counts, sizeof(s->pad));
	return sizeof(*s) + ((n + 7) & ~7);
}

/* struct stat / struct statx result of a stat-family call, as an fd slot. */
static __always_inline __u32 put_stat(__u8 *buf, __u32 off, const void *ubuf, bool statx)
{
	struct iot_fd *f;
	__u32 mode = 0, maj = 0, min = 0;
	__u64 dev = 0;

	off &= OFF_MASK;
	f = (struct iot_fd *)(buf + off);
	__builtin_memset(f, 0, sizeof(*f));
	if (statx) {
		bpf_probe_read_user(&mode, 2, ubuf + 28);    /* stx_mode */
		bpf_probe_read_user(&f->ino, 8, ubuf + 32);  /* stx_ino */
		bpf_probe_read_user(&f->size, 8, ubuf + 40); /* stx_size */
		bpf_probe_read_user(&maj, 4, ubuf + 136);    /* stx_dev_major */
		bpf_probe_read_user(&min, 4, ubuf + 140);    /* stx_dev_minor */
		dev = (min & 0xff) | (maj << 8) | ((min & ~0xffu) << 12);
	} else {
		bpf_probe_read_user(&dev, 8, ubuf);	     /* st_dev */
		bpf_probe_read_user(&f->ino, 8, ubuf + 8);   /* st_ino */
		bpf_probe_read_user(&mode, 4, ubuf + 24);    /* st_mode */
		bpf_probe_read_user(&f->size, 8, ubuf + 48); /* st_size */
	}
	f->dev = dev;
	f->fd = -1;
	f->flags = mode;
	f->ftype = ftype_of(mode, 0);
	f->which = IOT_FD_STAT;
	return sizeof(*f);
}

/*
 * Where a TCP socket's stream stands after the call, in the sequence numbers
 * both ends share: write_seq after a send, copied_seq after anything else.
 */
static __always_inline void put_tcp_seq(struct iot_sock *s, struct sock *sk, bool send)
{
	struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));

	if (s->protocol != 6 || s->type != 1 || s->state == 10) /* TCP, SOCK_STREAM, !LISTEN */
		return;
	s->tcp_seq = send ? tp->write_seq : tp->copied_seq;
	s->sflags = IOT_SOCKF_TCP_SEQ | (send ? IOT_SOCKF_SENT : 0);
}

/* The tail's size: read and write keep it only for TCP, the stream position is why. */
static __always_inline __u32 sock_kept(struct iot_sock *s, __u16 dflags)
{
	return (dflags & IOT_SCD_SOCK) || (s->sflags & IOT_SOCKF_TCP_SEQ) ? sizeof(*s) : 0;
}

/* Local and peer ends of the socket behind file f, for a call described by dflags. */
static __always_inline __u32 put_sock(__u8 *buf, __u32 off, struct file *f, __u16 dflags)
{
	bool send = dflags & IOT_SCD_SEND;
	struct iot_sock *s;
	struct socket *sock;
	struct sock *sk;

	off &= OFF_MASK;
	s = (struct iot_sock *)(buf + off);
	__builtin_memset(s, 0, sizeof(*s));
	sock = bpf_rdonly_cast(f->private_data, bpf_core_type_id_kernel(struct socket));
	if (!sock)
		return sock_kept(s, dflags);
	sk = sock->sk;
	s->type = sock->type;
	s->ino = f->f_inode->i_ino;
	if (!sk)
		return sock_kept(s, dflags);
	s->family = sk->__sk_common.skc_family;
	s->protocol = sk->sk_protocol;
	s->state = sk->__sk_common.skc_state;
	s->lport = sk->__sk_common.skc_num;
	s->rport = __builtin_bswap16(sk->__sk_common.skc_dport);
	s->netns = sk->__sk_common.skc_net.net->ns.inum;
	if (s->family == 2) { /* AF_INET */
		*(__u32 *)s->laddr = sk->__sk_common.skc_rcv_saddr;
		*(__u32 *)s->raddr = sk->__sk_common.skc_daddr;
		put_tcp_seq(s, sk, send);
	} else if (s->family == 10) { /* AF_INET6 */
		bpf_probe_read_kernel(s->laddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(s->raddr, 16, &sk->__sk_common.skc_v6_daddr);
		put_tcp_seq(s, sk, send);
	} else if (s->family == 1) { /* AF_UNIX */
		struct unix_sock *us =
			bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct unix_sock));
		struct sock *peer = us->peer;

		if (peer) {
			struct socket *ps = peer->sk_socket;

			if (ps) {
				struct socket_alloc *sa =
					container_of(ps, struct socket_alloc, socket);

				s->peer_ino = BPF_CORE_READ(sa, vfs_inode.i_ino);
			}
		}
	}
	return sock_kept(s, dflags);
}

static __always_inline __u64 unix_peer(struct sock *sk, __u16 family)
{
	if (family != 1) /* AF_UNIX */
		return 0;
	struct unix_sock *us = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct unix_sock));

	return (__u64)us->peer;
}

/* Whether c's last full socket tail is still sk's, but for state and tcp_seq. */
static __always_inline bool sock_same(struct fd_cache *c, struct sock *sk)
{
	return c->sock_ok && c->sk == (__u64)sk && c->saddr == sk->__sk_common.skc_rcv_saddr &&
	       c->daddr == sk->__sk_common.skc_daddr && c->num == sk->__sk_common.skc_num &&
	       c->dport == sk->__sk_common.skc_dport && c->peer == unix_peer(sk, c->family);
}

/* The short tail of the socket sk, known to c; 0 when the call keeps none. */
static __always_inline __u32 put_sock_short(__u8 *buf, __u32 off, struct fd_cache *c,
					    struct sock *sk, __u16 dflags)
{
	struct iot_sock_short *ss = (struct iot_sock_short *)(buf + (off & OFF_MASK));
	bool send = dflags & IOT_SCD_SEND;
	__u16 state = sk->__sk_common.skc_state;

	ss->state = state;
	ss->tcp_seq = 0;
	ss->sflags = 0;
	if (c->tcp && state != 10) { /* !LISTEN, as put_tcp_seq() */
		struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));

		ss->tcp_seq = send ? tp->write_seq : tp->copied_seq;
		ss->sflags = IOT_SOCKF_TCP_SEQ | (send ? IOT_SOCKF_SENT : 0);
	}
	return (dflags & IOT_SCD_SOCK) || ss->sflags ? sizeof(*ss) : 0;
}

/*
 * put_sock() for the socket that the call's first argument, fd, names (file
 * f): a short tail when the thread's fd_cache slot for fd names f and its last
 * full tail still holds.  *shortp says which was put.
 */
static __always_inline __u32 put_sock_arg0(__u8 *buf, __u32 off, struct task_state *st, int fd,
					   struct file *f, __u16 dflags, bool *shortp)
{
	struct fd_cache *c = &st->fdc[fd & (FDC_SLOTS - 1)];
	struct iot_sock *s = (struct iot_sock *)(buf + (off & OFF_MASK));
	struct socket *sock;
	struct sock *sk;
	__u32 n;

	if (c->fd != fd || c->file != (__u64)f || c->gen != fd_gen) {
		/* another file there now: the tail below is not the slot's */
		c->sock_ok = 0;
		return put_sock(buf, off, f, dflags);
	}
	sock = bpf_rdonly_cast(f->private_data, bpf_core_type_id_kernel(struct socket));
	sk = sock ? sock->sk : NULL;
	if (sk && sock_same(c, sk)) {
		*shortp = true;
		return put_sock_short(buf, off, c, sk, dflags);
	}
	n = put_sock(buf, off, f, dflags);
	/* IPv6 addresses would cost two helper calls to compare: always full */
	c->sock_ok = n && sk && s->family != 10;
	c->sk = (__u64)sk;
	c->family = s->family;
	c->peer = sk ? unix_peer(sk, s->family) : 0;
	c->saddr = sk ? sk->__sk_common.skc_rcv_saddr : 0;
	c->daddr = sk ? sk->__sk_common.skc_daddr : 0;
	c->num = s->lport;
	c->dport = sk ? sk->__sk_common.skc_dport : 0;
	c->tcp = s->protocol == 6 && s->type == 1;
	return n;
}

static __always_inline __u64 arg_at(struct task_state *st, __u8 i)
{
	return i < 6 ? st->args[i] : 0;
}

/* The fd whose socket state the record carries, or -1: read and write name
 * files far more often than sockets, so theirs only when it was one at enter. */
static __always_inline int sock_fd(struct task_state *st, struct iot_sc_desc *d, __s64 ret)
{
	if (d->flags & IOT_SCD_SOCK)
		return (d->flags & IOT_SCD_RET_FD) ? ret : (int)st->args[0];
	if ((d->flags & IOT_SCD_SOCKIO) && st->nfd && st->fds[0].which == 0 &&
	    st->fds[0].ftype == IOT_FT_SOCK)
		return (int)st->args[0];
	return -1;
}

static __always_inline __u32 put_ret_fds(__u8 *buf, __u32 off, struct task_state *st,
					 struct iot_sc_desc *d, __s64 ret, __u8 *nfd)
{
	struct task_struct *task;
	__u32 used = 0;

	if (!(d->flags & (IOT_SCD_RET_FD | IOT_SCD_FDPAIR)))
		return 0;
	task = bpf_get_current_task_btf();
	if ((d->flags & IOT_SCD_RET_FD) && ret >= 0 &&
	    !(st->nr == 72 && st->args[1] != F_DUPFD && st->args[1] != F_DUPFD_CLOEXEC)) {
		fill_fd((struct iot_fd *)(buf + (off & OFF_MASK)), task, ret, IOT_FD_RET);
		used += sizeof(struct iot_fd);
		*nfd += 1;
	}
	if ((d->flags & IOT_SCD_FDPAIR) && ret == 0) {
		int pair[2] = { -1, -1 };

		bpf_probe_read_user(pair, sizeof(pair), (void *)arg_at(st, d->aux));
		fill_fd((struct iot_fd *)(buf + ((off + used) & OFF_MASK)), task, pair[0],
			IOT_FD_RET0);
		fill_fd((struct iot_fd *)(buf + ((off + used + sizeof(struct iot_fd)) & OFF_MASK)),
			task, pair[1], IOT_FD_RET1);
		used += 2 * sizeof(struct iot_fd);
		*nfd += 2;
	}
	return used;
}

/* The user's struct msghdr and the head of a struct cmsghdr, x86-64 layout. */
struct iot_umsghdr {
	__u64 name;
	int namelen;
	__u64 iov, iovlen, control, controllen;
	unsigned int flags;
};

struct iot_cmsg1 {
	__u64 len;
	int level, type;
	int fd; /* the first of SCM_RIGHTS's fds */
};

/*
 * sendmsg, recvmsg: the first fd an SCM_RIGHTS message carried, read at exit
 * (the receiver's is installed by then, the sender's still open).  A
 * connection handed to another process goes on in that process's fd, which
 * the replay must make there from the message, as the kernel did.
 */
static __always_inline __u32 put_passed_fd(__u8 *buf, __u32 off, struct task_state *st, __s64 ret,
					   __u8 *nfd)
{
	struct iot_umsghdr mh = {};
	struct iot_cmsg1 cm = {};

	if ((st->nr != 46 && st->nr != 47) || ret < 0)
		return 0;
	if (bpf_probe_read_user(&mh, sizeof(mh), (void *)st->args[1]) || !mh.control ||
	    mh.controllen < 20)
		return 0;
	if (bpf_probe_read_user(&cm, 20, (void *)mh.control) || cm.level != 1 /* SOL_SOCKET */ ||
	    cm.type != 1 /* SCM_RIGHTS */ || cm.len < 20)
		return 0;
	fill_fd((struct iot_fd *)(buf + (off & OFF_MASK)), bpf_get_current_task_btf(), cm.fd,
		IOT_FD_PASSED);
	*nfd += 1;
	return sizeof(struct iot_fd);
}

/* The fixed part of st's call record at rec; returns flags, with
 * IOT_SCF_NO_CPU added when the thread's compute is not known. */
static __always_inline __u32 put_call(struct iot_syscall *rec, struct task_state *st, __s64 ret,
				      __u64 now, __u32 flags)
{
	__builtin_memcpy(rec->args, st->args, sizeof(rec->args));
	rec->ret = ret;
	rec->dur_ns = now - st->enter_ts;
	rec->cpu_ns = st->cpu_ns;
	rec->offcpu_ns = 0;
	if (!(flags & IOT_SCF_NO_RETURN)) {
		__u64 ran = run_clock(st, now) - st->enter_run;

		rec->offcpu_ns = rec->dur_ns > ran ? rec->dur_ns - ran : 0;
	}
	rec->nr = st->nr;
	if (!st->have_exit)
		flags |= IOT_SCF_NO_CPU;
	/* records lost since the enter may hold the full entries these lean on */
	if (st->fdshort_gen != fd_gen)
		st->fdshort = 0;
	return flags;
}

/* st's i-th fd entry at p: whole, or short when the reader has the rest. */
static __always_inline void put_fd_entry(__u8 *p, struct task_state *st, int i)
{
	struct iot_fd_short *fs = (struct iot_fd_short *)p;

	if (!(st->fdshort & (1 << i))) {
		__builtin_memcpy(p, &st->fds[i], sizeof(struct iot_fd));
		return;
	}
	fs->pos = st->fds[i].pos;
	fs->size = st->fds[i].size;
	fs->fd = st->fds[i].fd;
	fs->which = st->fds[i].which;
	fs->pad = 0;
}

/* The counts, flags and header of st's call record of off bytes at rec. */
static __always_inline void put_call_end(struct iot_syscall *rec, struct task_state *st, __u32 off,
					 __u8 nfd, __u8 nstr, __u32 flags)
{
	rec->nfd = nfd;
	rec->nstr = nstr;
	rec->flags = flags;
	rec->fdshort = st->fdshort;
	rec->pad = 0;
	put_hdr(&rec->hdr, st->enter_ts, st->pid_tgid, IOT_REC_SYSCALL, off, ++st->seq);
}

/* The room a record is built in; a type, so a global function knows its size. */
#define SOCK_TAIL_SHORT 0x100

/*
 * The socket tail of st's call at room + off: its bytes, with SOCK_TAIL_SHORT
 * when it is a struct iot_sock_short.  A global function, so its three sizes
 * are one unknown to the verification of build_syscall(), not three paths
 * through all that follows (which took it near the verifier's limit).
 */
__noinline int put_sock_tail(struct rec_room *room, __u32 off, struct task_state *st, __s64 ret,
			     __u32 dflags)
{
	struct iot_sc_desc d = { .flags = dflags };
	struct file *f;
	bool sh = false;
	int fd, n;

	if (!room || !st || off > IOT_REC_MAX)
		return 0;
	fd = sock_fd(st, &d, ret);
	f = fd < 0 ? NULL : fd_file(bpf_get_current_task_btf(), fd);
	if (!f || (f->f_inode->i_mode & S_IFMT) != S_IFSOCK)
		return 0;
	/* accept's and socket's tail is of the fd they return */
	if ((dflags & IOT_SCD_SOCK) && (dflags & IOT_SCD_RET_FD))
		return put_sock(room->b, off, f, dflags);
	n = put_sock_arg0(room->b, off, st, fd, f, dflags, &sh);
	return n && sh ? n | SOCK_TAIL_SHORT : n;
}

/*
 * Builds the record of st's call at room and returns its size (0 when an
 * argument is missing).  A global function: the verifier checks it once, with
 * room a plain SCRATCH_SZ-byte buffer, instead of along every path of its
 * callers with the batch offset's range: that took 2.7 times the instructions.
 */
__noinline int build_syscall(struct rec_room *room, struct task_state *st, __s64 ret, __u64 now,
			     __u32 flags)
{
	struct iot_sc_desc d;
	struct iot_syscall *rec;
	__u32 off = sizeof(*rec);
	__u8 nfd, nstr = 0;
	__u8 *buf;

	if (!room || !st)
		return 0;
	d = sc_desc[st->nr & (IOT_NR_MAX - 1)];
	buf = room->b;
	rec = (struct iot_syscall *)buf;
	flags = put_call(rec, st, ret, now, flags);
	nfd = st->nfd;
	for (int i = 0; i < IOT_MAX_FDS; i++) {
		if (i >= nfd)
			break;
		put_fd_entry(buf + off, st, i);
		/* read again, so the verifier sees one range of off after the
		 * branch, not 2^IOT_MAX_FDS paths of constants through the rest */
		off += sizeof(struct iot_fd) -
		       (((*(volatile __u8 *)&st->fdshort >> i) & 1) *
			(sizeof(struct iot_fd) - sizeof(struct iot_fd_short)));
	}
	if (!(flags & IOT_SCF_NO_RETURN)) {
		off += put_ret_fds(buf, off, st, &d, ret, &nfd);
		if (nfd < IOT_MAX_FDS)
			off += put_passed_fd(buf, off, st, ret, &nfd);
		if ((d.flags & (IOT_SCD_STAT | IOT_SCD_STATX)) && ret == 0) {
			off += put_stat(buf, off, (void *)arg_at(st, d.aux),
					d.flags & IOT_SCD_STATX);
			nfd++;
		}
		if (d.flags & (IOT_SCD_SOCK | IOT_SCD_SOCKIO)) {
			int n = put_sock_tail(room, off & OFF_MASK, st, ret, d.flags);

			flags |= n & SOCK_TAIL_SHORT ? IOT_SCF_SOCK_SHORT : 0;
			n &= 0xff;
			flags |= n ? IOT_SCF_SOCK : 0;
			off += n;
		}
	}
	if (d.flags & IOT_SCD_EXEC) {
		off += put_exec_str(buf, off, st, d.str_args & 1 ? 0 : 1);
		off += put_argv_str(buf, off, st);
		nstr += 2;
	} else if (!(flags & IOT_SCF_NO_RETURN)) {
		for (int i = 0; i < 6; i++) {
			if (!(d.str_args & (1 << i)))
				continue;
			if (nstr >= IOT_MAX_STRS)
				break;
			off += put_user_str(room, off, st->args[i], i);
			nstr++;
		}
		if ((d.flags & IOT_SCD_RESULT) && nstr < IOT_MAX_STRS && ret >= 0) {
			off += put_result_str(buf, off, (void *)arg_at(st, d.res_arg), ret);
			nstr++;
		}
	}
	put_call_end(rec, st, off, nfd, nstr, flags);
	return off & (SCRATCH_SZ - 1);
}

/*
 * Whether st's call has at most one fd, as its first argument, and nothing of
 * its own to read at exit (strings, returned or passed fds, stat buffers):
 * build_inline() builds it, unless it carries a socket tail short_sock()
 * cannot shorten.  sendmsg and recvmsg may pass an fd.
 */
static __always_inline bool inline_call(struct iot_sc_desc *d, struct task_state *st)
{
	return !d->str_args && d->fd_args <= 1 && st->nr != 46 && st->nr != 47 &&
	       !(d->flags & (IOT_SCD_RET_FD | IOT_SCD_FDPAIR | IOT_SCD_STAT | IOT_SCD_STATX |
			     IOT_SCD_RESULT | IOT_SCD_EXEC | IOT_SCD_NORET));
}

/*
 * The sock behind fd, whose tail st's call carries, when the thread last gave
 * it a full tail, and the fd_cache slot that says so, found as
 * put_sock_arg0() finds them; NULL otherwise (build_syscall() then puts the
 * tail, full or short).
 */
static __always_inline struct sock *short_sock(struct task_state *st, int fd, struct fd_cache **cp)
{
	struct task_struct *task;
	struct socket *sock;
	struct fd_cache *c;
	struct file *f;
	struct sock *sk;

	task = bpf_rdonly_cast((void *)st->task, bpf_core_type_id_kernel(struct task_struct));
	f = fd_file(task, fd);
	c = &st->fdc[fd & (FDC_SLOTS - 1)];
	if (!f || c->fd != fd || c->file != (__u64)f || c->gen != fd_gen)
		return NULL;
	sock = bpf_rdonly_cast(f->private_data, bpf_core_type_id_kernel(struct socket));
	sk = sock ? sock->sk : NULL;
	if (!sk || !sock_same(c, sk))
		return NULL;
	*cp = c;
	return sk;
}

/*
 * build_syscall(), inline, for an inline_call() without a socket tail (sk
 * NULL) or with one that short_sock() found (sk, and its slot c): the
 * commonest calls (pread, write to a file, epoll_wait, futex, read and write
 * of a connected socket) pay no BPF-to-BPF call and return.  The record is
 * the one build_syscall() would build.
 */
static __always_inline __u32 build_inline(__u8 *buf, struct task_state *st, __s64 ret, __u64 now,
					  __u16 dflags, struct fd_cache *c, struct sock *sk)
{
	struct iot_syscall *rec = (struct iot_syscall *)buf;
	__u32 flags = put_call(rec, st, ret, now, 0), off = sizeof(*rec), n;
	__u8 nfd = st->nfd ? 1 : 0;

	if (nfd) {
		put_fd_entry(buf + off, st, 0);
		off += st->fdshort & 1 ? sizeof(struct iot_fd_short) : sizeof(struct iot_fd);
	}
	if (sk) {
		n = put_sock_short(buf, off, c, sk, dflags);
		flags |= n ? IOT_SCF_SOCK | IOT_SCF_SOCK_SHORT : 0;
		off += n;
	}
	put_call_end(rec, st, off, nfd, 0, flags);
	return off;
}

/* Builds the syscall record in place in the per-CPU batch: inline when it can, else in
 * build_syscall(). */
static __always_inline int emit_syscall(struct task_state *st, __u64 pid_tgid, __s64 ret, __u64 now)
{
	struct iot_batch *b = get_batch();
	struct fd_cache *c = NULL;
	struct iot_sc_desc d;
	struct sock *sk;
	__u32 n;
	__u8 *buf;
	int fd;

	if (!b)
		return 0;
	buf = batch_begin(b);
	if (!buf) {
		/* nothing nests in a syscall program but an interrupt's, which
		 * never builds a syscall record: count it, should it happen */
		count_loss(IOT_LOSS_RINGBUF);
		__sync_fetch_and_add(&fd_gen, 1);
		st->seq++;
		goto out;
	}
	st->pid_tgid = pid_tgid;
	d = sc_desc[st->nr & (IOT_NR_MAX - 1)];
	fd = sock_fd(st, &d, 0);
	if (!inline_call(&d, st))
		n = build_syscall((struct rec_room *)buf, st, ret, now, 0);
	else if (fd < 0)
		n = build_inline(buf, st, ret, now, 0, NULL, NULL);
	else if ((sk = short_sock(st, fd, &c)))
		n = build_inline(buf, st, ret, now, d.flags, c, sk);
	else
		n = build_syscall((struct rec_room *)buf, st, ret, now, 0);
	batch_end(b, n, false);
out:
	call_done(st, now);
	return 0;
}

/* A call that began before the attach: only its number and result are known. */
static __always_inline int emit_no_enter(__u64 pid_tgid, long id, __s64 ret, __u64 now)
{
	struct iot_syscall rec = {};

	rec.ret = ret;
	rec.nr = id;
	rec.flags = IOT_SCF_NO_ENTER | IOT_SCF_NO_CPU;
	put_hdr(&rec.hdr, now, pid_tgid, IOT_REC_SYSCALL, sizeof(rec), 0);
	count_loss(IOT_LOSS_NO_ENTER);
	emit(&rec, sizeof(rec));
	return 0;
}

static __always_inline int on_exit(struct pt_regs *regs, long ret, bool btf)
{
	struct resident *r = get_res();
	struct task_state *st;
	__u64 pid_tgid, gen = traced_gen;
	long id;

	if (r && r->regs == (__u64)regs) {
		st = &r->st;
		pid_tgid = r->pid_tgid;
	} else if (known_untraced(r, regs)) {
		return 0;
	} else {
		struct task_struct *task;

		/* A call not recorded (left out by --calls) had no enter, so it
		 * has nothing to end: no lookup, as for an untraced thread. */
		id = btf ? regs->orig_ax : BPF_CORE_READ(regs, orig_ax);
		if ((__u64)id >= IOT_NR_MAX || !(sc_desc[id].flags & IOT_SCD_TRACE))
			return 0;
		task = bpf_get_current_task_btf();
		st = storage_of(task);
		if (!st && storage_verdict) {
			remember_untraced(r, regs, gen);
			return 0;
		}
		pid_tgid = task_pid_tgid(task);
	}
	if (st && st->in_call)
		return emit_syscall(st, pid_tgid, ret, bpf_ktime_get_ns());
	/* the number first: most calls of untraced threads end here, no lookup */
	id = btf ? regs->orig_ax : BPF_CORE_READ(regs, orig_ax);
	if ((__u64)id >= IOT_NR_MAX || !(sc_desc[id].flags & IOT_SCD_TRACE))
		return 0;
	if (!storage_verdict && !is_traced(pid_tgid >> 32)) {
		if (!st)
			remember_untraced(r, regs, gen);
		return 0;
	}
	if (st && st->have_exit)
		return 0; /* enter was dropped and already counted */
	if (!ret && (sc_desc[id].flags & IOT_SCD_FORK))
		return 0; /* a new task returning from its creation: the fork record has it */
	return emit_no_enter(pid_tgid, id, ret, bpf_ktime_get_ns());
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	return on_enter(regs, id, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	return on_exit(regs, ret, true);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	return on_enter(regs, id, false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	return on_exit(regs, ret, false);
}

/* Emits a fixed-size scheduler or page record in the context of `tid`'s
 * own thread when seq_st is non-NULL, else without a sequence number. */
static __always_inline void emit_small(void *rec, __u32 size, struct task_state *seq_st, bool flush)
{
	if (seq_st && !seq_st->exited)
		((struct iot_hdr *)rec)->seq = ++seq_st->seq;
	batch_put(rec, size, flush);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct iot_fork rec = {};
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;
	bool thread = ptgid == ctgid;

	if (!is_traced(ptgid))
		return 0;
	if (!thread) {
		if (!follow_children)
			return 0;
		bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	}
	if (storage_verdict && !tstate_get(child, true))
		count_loss(IOT_LOSS_STORAGE);
	/* after the update: a verdict taken before it carries the old generation */
	traced_grew();
	rec.child_pid = ctgid;
	rec.child_tid = child->pid;
	rec.thread = thread;
	put_hdr(&rec.hdr, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), IOT_REC_FORK, sizeof(rec),
		0);
	emit_small(&rec, sizeof(rec), state_of(bpf_get_current_task_btf()), false);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct iot_exec rec = {};
	struct task_state *st;

	/* the thread may have taken the leader's tid: the slot's copy is stale */
	tstate_retid(p, old_pid);
	res_put_back(p);
	if (!is_traced(p->tgid))
		return 0;
	st = tstate_get(p, false);
	/* and the reader keys fd entries on the tid: full ones from here */
	if (st)
		__builtin_memset(st->fdc, 0, sizeof(st->fdc));
	rec.old_tid = old_pid;
	bpf_probe_read_kernel_str(rec.comm, sizeof(rec.comm), p->comm);
	put_hdr(&rec.hdr, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), IOT_REC_EXEC, sizeof(rec),
		0);
	emit_small(&rec, sizeof(rec), st, false);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_task, struct task_struct *p, bool group_dead)
{
	struct iot_exit rec = {};
	__u32 tgid = p->tgid, tid = p->pid;
	struct task_state *st;

	/* its final seq goes from storage to seq_end */
	res_put_back(p);
	if (!is_traced(tgid)) {
		tstate_drop(p);
		return 0;
	}
	rec.exit_code = p->exit_code;
	rec.group_dead = group_dead;
	put_hdr(&rec.hdr, bpf_ktime_get_ns(), ((__u64)tgid << 32) | tid, IOT_REC_EXIT, sizeof(rec),
		0);
	st = tstate_get(p, false);
	/* flushed: the seq_end below promises every record is in the ring */
	emit_small(&rec, sizeof(rec), st, true);
	if (st) {
		struct iot_seqend_val v = { .pid = tgid, .seq = st->seq };

		/* after the emit: the recorder reads this once the records are in */
		st->exited = 1;
		bpf_map_update_elem(&seq_end, &tid, &v, BPF_ANY);
	}
	if (group_dead)
		bpf_map_delete_elem(&traced, &tgid);
	tstate_drop(p);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct iot_wakeup rec = {};
	__u64 cur;

	if (!task_traced(p, p->tgid))
		return 0;
	cur = bpf_get_current_pid_tgid();
	rec.waker_pid = cur >> 32;
	rec.waker_tid = (__u32)cur;
	put_hdr(&rec.hdr, bpf_ktime_get_ns(), ((__u64)p->tgid << 32) | (__u32)p->pid,
		IOT_REC_WAKEUP, sizeof(rec), 0);
	emit(&rec, sizeof(rec));
	return 0;
}

/* On-CPU accounting of traced threads, and a record when one leaves the CPU. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct resident *r = get_res();
	struct task_state *st;
	__u64 now;

	if (r)
		r->armed = 1;
	/* Neither task has any BPF task storage, so neither is traced (a resident
	 * thread has storage too): two loads instead of three helper calls, on
	 * every context switch of the host (two array loads without task
	 * storage). */
	if (!tstate_maybe(prev) && !tstate_maybe(next))
		return 0;
	now = bpf_ktime_get_ns();
	/* prev leaves the CPU: its state back to storage, where it is read next */
	res_put_back(prev);
	st = tstate_get(prev, false);
	if (st && st->switch_in) {
		struct iot_switch rec = {};
		__u64 ran = now - st->switch_in;

		/* run_clock() is only read while the thread runs, after the
		 * switch-in below has moved switch_in on */
		st->run_ns += ran;
		rec.oncpu_ns = ran;
		rec.next_tid = next->pid;
		/* what took the CPU: a replay stands in for user tasks outside
		 * the trace that did, not for the kernel's own threads */
		rec.prev_state = (prev_state & IOT_SW_STATE) | (preempt ? IOT_SW_PREEMPT : 0) |
				 (next->flags & PF_KTHREAD || !next->pid ? IOT_SW_NEXT_KERNEL : 0);
		put_hdr(&rec.hdr, now, ((__u64)prev->tgid << 32) | (__u32)prev->pid, IOT_REC_SWITCH,
			sizeof(rec), 0);
		/* flushed: the thread may run next on another CPU */
		emit_small(&rec, sizeof(rec), st, true);
	}
	st = tstate_get(next, false);
	if (st && st->switch_in)
		st->switch_in = now;
	return 0;
}

static __always_inline void emit_page(struct address_space *mapping, __u64 index, __u32 npages,
				      __u32 kind)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct iot_page rec = {};
	struct task_state *st;
	struct inode *host;
	__u64 pid_tgid;

	if (storage_verdict) {
		st = tstate_maybe(task) ? state_of(task) : NULL;
		if (!st)
			return;
	} else if (!is_traced(task->tgid)) {
		return;
	} else {
		st = state_of(task);
	}
	if (!mapping)
		return;
	pid_tgid = task_pid_tgid(task);
	host = mapping->host;
	if (!host)
		return;
	rec.ino = host->i_ino;
	rec.dev = user_dev(host->i_sb->s_dev);
	rec.index = index;
	rec.npages = npages;
	rec.kind = kind;
	put_hdr(&rec.hdr, bpf_ktime_get_ns(), pid_tgid, IOT_REC_PAGE, sizeof(rec), 0);
	emit_small(&rec, sizeof(rec), st, false);
}

/* Pages in a folio: order is kept in the low byte of the second page's flags. */
static __always_inline __u32 folio_pages(struct folio *folio)
{
	unsigned long flags = 0, flags1 = 0;

	/* a plain read: the type of folio->flags changed across kernels */
	bpf_probe_read_kernel(&flags, sizeof(flags), &folio->flags);
	if (!(flags & (1UL << PG_head)))
		return 1;
	bpf_probe_read_kernel(&flags1, sizeof(flags1), &folio->_flags_1);
	return 1U << (flags1 & 0xff);
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(on_filemap_fault, struct address_space *mapping, unsigned long index)
{
	emit_page(mapping, index, 1, IOT_PAGE_FAULT);
	return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(on_filemap_map_pages, struct address_space *mapping, unsigned long start,
	     unsigned long last)
{
	emit_page(mapping, start, last - start + 1, IOT_PAGE_MAP);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(on_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	emit_page(mapping, folio->index, folio_pages(folio), IOT_PAGE_DIRTY);
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(on_add_to_page_cache, struct folio *folio)
{
	emit_page(folio->mapping, folio->index, folio_pages(folio), IOT_PAGE_MISS);
	return 0;
}
