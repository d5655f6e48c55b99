/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iotrace record ABI, version IOT_FORMAT_VERSION.
 *
 * Shared by the BPF programs (which emit these records into the ring buffer),
 * the recorder (which writes them unchanged into trace-file blocks) and every
 * reader.  A record is a struct iot_hdr followed by a type-specific body;
 * hdr.size covers the whole record and is a multiple of 8, so a reader can
 * skip a type it does not know.  Largest fields first, explicit padding,
 * fixed-width types only.  See docs/trace-format.md.
 */
#ifndef IOTRACE_ABI_H
#define IOTRACE_ABI_H

/* The record layout is read as tables: values and field comments in tab-stop
 * columns, which clang-format cannot keep. */
/* clang-format off */

#ifdef __bpf__
/* BPF side: types come from vmlinux.h, included before this header */
#else
#include <linux/types.h>
#endif

#define IOT_FORMAT_VERSION	3	/* 2: host identity, clock pairs, socket netns and tcp_seq;
					 * 3: short fd entries (struct iot_fd_short) */
#define IOT_FORMAT_VERSION_MIN	1	/* oldest version readers still accept */

#define IOT_NR_MAX		512	/* syscall numbers below this are describable */
#define IOT_MAX_FDS		4	/* struct iot_fd slots in one syscall record */
#define IOT_MAX_STRS		2	/* strings in one syscall record */
#define IOT_STR_MAX		1024	/* bytes kept of one string, NUL included */
#define IOT_REC_MAX		4096	/* no record is larger than this */

enum iot_rec_type {
	/* emitted by BPF */
	IOT_REC_SYSCALL		= 1,	/* struct iot_syscall: one completed call */
	IOT_REC_FORK		= 2,	/* struct iot_fork: sched_process_fork */
	IOT_REC_EXEC		= 3,	/* struct iot_exec: sched_process_exec */
	IOT_REC_EXIT		= 4,	/* struct iot_exit: sched_process_exit */
	IOT_REC_WAKEUP		= 5,	/* struct iot_wakeup: sched_waking of a traced thread */
	IOT_REC_SWITCH		= 6,	/* struct iot_switch: a traced thread left the CPU */
	IOT_REC_PAGE		= 7,	/* struct iot_page: fault, map_pages, dirty, cache miss */
	/* written by the recorder */
	IOT_REC_META		= 64,	/* struct iot_meta: recording metadata, first record */
	IOT_REC_PROC		= 65,	/* struct iot_proc: /proc snapshot of a process */
	IOT_REC_THREAD		= 66,	/* struct iot_thread: /proc snapshot of a thread */
	IOT_REC_FDSNAP		= 67,	/* struct iot_fdsnap: /proc snapshot of an open fd */
	IOT_REC_MAPSNAP		= 68,	/* struct iot_mapsnap: /proc snapshot of a mapping */
	IOT_REC_STATS		= 69,	/* struct iot_stats: loss counters, at the end */
	IOT_REC_TARGET		= 70,	/* struct iot_target: a process added to the filter */
	IOT_REC_SEQEND		= 71,	/* struct iot_seqend: a thread's final sequence number */
	IOT_REC_LINK		= 72,	/* struct iot_link: a symlink on a path a call named */
	IOT_REC_HOST		= 73,	/* struct iot_host: which machine recorded, after META */
	IOT_REC_CLOCK		= 74,	/* struct iot_clock: a CLOCK_MONOTONIC/REALTIME pair */
	IOT_REC_CALLS		= 75,	/* struct iot_calls: the call families recorded, when
					 * not all (record --calls) */
	IOT_REC_FLOOR		= 76,	/* struct iot_floor: the compute floor after a switch */
	IOT_REC_HELPER		= 77,	/* struct iot_helper: a thread of the recorder's */
};

/* Every record starts with this. */
struct iot_hdr {
	__u64 ts;	/* ns, CLOCK_MONOTONIC; for syscalls the enter time */
	__u32 pid;	/* tgid of the thread the record is about */
	__u32 tid;	/* thread id the record is about */
	__u32 seq;	/* per-thread count of records emitted in that thread's context,
			 * from 1; a gap between two records of one thread means records
			 * were lost.  0: not sequenced (wakeups, user-space records) */
	__u16 type;	/* enum iot_rec_type */
	__u16 size;	/* bytes in the whole record, header included, multiple of 8 */
};

/* File types of struct iot_fd.ftype. */
enum iot_ftype {
	IOT_FT_NONE	= 0,	/* the fd was not open */
	IOT_FT_REG	= 1,
	IOT_FT_DIR	= 2,
	IOT_FT_FIFO	= 3,	/* pipes and named fifos */
	IOT_FT_SOCK	= 4,
	IOT_FT_CHR	= 5,
	IOT_FT_BLK	= 6,
	IOT_FT_LNK	= 7,
	IOT_FT_ANON	= 8,	/* anon inode: eventfd, epoll, timerfd, signalfd, ... */
	IOT_FT_OTHER	= 9,
};

/* struct iot_fd.which: the argument index 0..5, or one of these */
enum iot_fd_which {
	IOT_FD_RET	= 6,	/* the fd the call returned (open, dup, socket, accept, ...) */
	IOT_FD_RET0	= 7,	/* pipe, pipe2, socketpair: fds[0] */
	IOT_FD_RET1	= 8,	/* pipe, pipe2, socketpair: fds[1] */
	IOT_FD_STAT	= 9,	/* stat-family result: fd = -1, flags = st_mode */
	IOT_FD_PASSED	= 10,	/* sendmsg, recvmsg: first fd of an SCM_RIGHTS message, at exit */
};

/* What the kernel knew about one fd of a call. */
struct iot_fd {
	__u64 ino;	/* inode number */
	__s64 pos;	/* f_pos at enter (at exit for IOT_FD_RET*) */
	__u64 size;	/* i_size at enter (at exit for IOT_FD_RET*, i.e. after open) */
	__u32 dev;	/* st_dev of the inode's super block, user-space encoding */
	__s32 fd;	/* the fd number */
	__u32 flags;	/* f_flags (O_*), or st_mode for IOT_FD_STAT */
	__u16 ftype;	/* enum iot_ftype */
	__u16 which;	/* argument index 0..5 or enum iot_fd_which */
};

/*
 * An fd of a call whose open file the thread's previous full entry for that
 * fd number already named (version 3): only what changes from call to call.
 * The reader restores ino, dev, flags and ftype from that entry (per thread
 * and fd number), so readers of lib/trace.h see a struct iot_fd.  Marked by
 * its bit in struct iot_syscall.fdshort.
 */
struct iot_fd_short {
	__s64 pos;	/* as in struct iot_fd */
	__u64 size;
	__s32 fd;
	__u16 which;
	__u16 pad;
};

/* Socket state of the call's socket fd, read at exit. */
struct iot_sock {
	__u8 laddr[16];	/* local address: IPv4 in the first 4 bytes, or IPv6 */
	__u8 raddr[16];	/* peer address, same layout */
	__u64 peer_ino;	/* AF_UNIX: inode of the connected peer socket, else 0 */
	__u64 ino;	/* inode of this socket */
	__u16 family;	/* AF_* */
	__u16 type;	/* SOCK_STREAM, SOCK_DGRAM, ... */
	__u16 lport;	/* local port, host order */
	__u16 rport;	/* peer port, host order */
	__u16 protocol;	/* IPPROTO_* */
	__u16 state;	/* sk_state */
	__u32 netns;	/* inode of the socket's network namespace (version 2) */
	__u32 tcp_seq;	/* IOT_SOCKF_TCP_SEQ: the TCP stream position after the call, a
			 * 32-bit sequence number: write_seq after a call that sends
			 * (its bytes are [tcp_seq - ret, tcp_seq)), copied_seq after
			 * any other; the same numbers the peer sees (version 2) */
	__u16 sflags;	/* IOT_SOCKF_* (version 2) */
	__u8 pad[2];
};

/*
 * The socket tail of a call on a socket whose full tail the same thread last
 * emitted for that fd (version 3, IOT_SCF_SOCK_SHORT): only what moves.  The
 * reader restores the rest from that tail, as for struct iot_fd_short.
 */
struct iot_sock_short {
	__u32 tcp_seq;
	__u16 sflags;
	__u16 state;
};

/* struct iot_sock.sflags */
#define IOT_SOCKF_TCP_SEQ	0x1	/* a TCP socket: tcp_seq is set */
#define IOT_SOCKF_SENT		0x2	/* tcp_seq is write_seq (the call sends), else copied_seq */

/* struct iot_sock of format version 1 ended at netns: readers see those fields as 0 */
#define IOT_SOCK_V1_SIZE	64

/* A string that follows a syscall record body. */
struct iot_str {
	__u16 len;	/* bytes of data that follow, NUL included; padded to 8 after */
	__u8 which;	/* argument index the string was read from, or IOT_STR_* */
	__u8 flags;	/* IOT_STRF_* */
	__u8 pad[4];
	/* char data[len], then zero padding to a multiple of 8 */
};

enum iot_str_which {
	IOT_STR_SUN_PATH	= 6,	/* AF_UNIX path of the socket */
	IOT_STR_RESULT		= 7,	/* readlink result buffer */
	IOT_STR_ARGV		= 8,	/* execve's argv: the strings kept, each with its NUL;
					 * pad holds struct iot_argv_counts */
};

/* execve's counts, in the pad of its IOT_STR_ARGV string. */
struct iot_argv_counts {
	__u16 argc;	/* argv strings kept in the data (an empty data holds one NUL) */
	__u16 envc;	/* envp entries, IOT_ENVC_MAX at most */
};

#define IOT_ARGV_MAX	16	/* argv strings kept of one execve */
#define IOT_ARGV_ROOM	512	/* a string of argv is read only below this offset */
#define IOT_ENVC_MAX	1024	/* envp entries counted of one execve */

#define IOT_STRF_TRUNC	0x1	/* string longer than IOT_STR_MAX - 1: cut */
#define IOT_STRF_FAULT	0x2	/* string could not be read: data is empty */
#define IOT_STRF_ARGV_MORE 0x4	/* IOT_STR_ARGV: argv has entries past those kept */
#define IOT_STRF_ENV_MORE 0x8	/* IOT_STR_ARGV: envp has more than IOT_ENVC_MAX entries */
#define IOT_STRF_ARGV_BAD 0x10	/* IOT_STR_ARGV: the argv array itself could not be read */
#define IOT_STRF_ENV_BAD 0x20	/* IOT_STR_ARGV: the envp array itself could not be read */

/* struct iot_syscall.flags */
#define IOT_SCF_NO_ENTER	0x1	/* exit seen without its enter (call began before the
					 * attach): ts, dur and args are unknown */
#define IOT_SCF_NO_RETURN	0x2	/* exit, exit_group, or an execve whose exit was not
					 * seen: emitted at enter, ret and dur are 0 */
#define IOT_SCF_SOCK		0x4	/* a struct iot_sock follows the fds */
#define IOT_SCF_NO_CPU		0x8	/* cpu_ns unknown (first call seen on this thread) */
#define IOT_SCF_SOCK_SHORT	0x10	/* with IOT_SCF_SOCK: the tail is a struct iot_sock_short
					 * (version 3) */

/*
 * One system call, emitted at its exit.  Body: this struct, then nfd struct
 * iot_fd (or struct iot_fd_short, where fdshort says so), then struct iot_sock if IOT_SCF_SOCK, then nstr struct iot_str each
 * followed by its data.
 */
struct iot_syscall {
	struct iot_hdr hdr;
	__u64 args[6];	/* raw syscall arguments, as passed */
	__s64 ret;	/* return value (negative errno on failure) */
	__u64 dur_ns;	/* exit time minus enter time */
	__u64 cpu_ns;	/* on-CPU time of the thread from its previous call's return to
			 * this call's enter */
	__u64 offcpu_ns; /* time the thread spent off-CPU inside this call */
	__u16 nr;	/* syscall number, x86_64 numbering */
	__u16 flags;	/* IOT_SCF_* */
	__u8 nfd;	/* struct iot_fd that follow */
	__u8 nstr;	/* struct iot_str that follow */
	__u8 fdshort;	/* bit i: the i-th fd entry is a struct iot_fd_short (version 3) */
	__u8 pad;
};

/* sched_process_fork: hdr.pid/tid are the parent's. */
struct iot_fork {
	struct iot_hdr hdr;
	__u32 child_pid;	/* tgid of the child */
	__u32 child_tid;	/* tid of the child */
	__u32 thread;		/* 1: a new thread of the parent's process, 0: a new process */
	__u32 pad;
};

/* sched_process_exec: hdr.pid/tid are after the exec. */
struct iot_exec {
	struct iot_hdr hdr;
	__u32 old_tid;		/* tid before exec (a non-leader thread takes the tgid) */
	__u32 pad;
	char comm[16];		/* comm after exec */
};

/* sched_process_exit: one thread ended. */
struct iot_exit {
	struct iot_hdr hdr;
	__s32 exit_code;	/* task->exit_code */
	__u32 group_dead;	/* 1: the last thread of the process, the process is gone */
};

/* sched_waking: hdr.pid/tid are the WAKEE; the waker is the current thread. */
struct iot_wakeup {
	struct iot_hdr hdr;
	__u32 waker_pid;	/* tgid of the waker, 0 when woken from interrupt */
	__u32 waker_tid;	/* tid of the waker, 0 when woken from interrupt */
};

/* sched_switch: a traced thread left the CPU (hdr.ts) */
struct iot_switch {
	struct iot_hdr hdr;
	__u64 oncpu_ns;		/* time on CPU since it was last switched in */
	__u32 next_tid;		/* the thread that got the CPU */
	__u32 prev_state;	/* the state it left in (0: still runnable), and IOT_SW_* */
};

/* High bits of iot_switch.prev_state, above the kernel's task state. */
#define IOT_SW_PREEMPT		(1u << 31)	/* taken off the CPU, not leaving it */
#define IOT_SW_NEXT_KERNEL	(1u << 30)	/* the CPU went to a kernel thread or idle */
#define IOT_SW_STATE		0xffffffu	/* the task state */

enum iot_page_kind {
	IOT_PAGE_FAULT		= 1,	/* mm_filemap_fault: a page fault on a file mapping */
	IOT_PAGE_MAP		= 2,	/* mm_filemap_map_pages: cached pages mapped (fault-around) */
	IOT_PAGE_DIRTY		= 3,	/* writeback_dirty_folio: pages dirtied */
	IOT_PAGE_MISS		= 4,	/* mm_filemap_add_to_page_cache: read went to storage */
};

/* Page-cache activity of a traced thread on a file. */
struct iot_page {
	struct iot_hdr hdr;
	__u64 ino;		/* inode number of the file */
	__u64 index;		/* first page index */
	__u32 dev;		/* st_dev, user-space encoding */
	__u32 npages;		/* pages from index on */
	__u32 kind;		/* enum iot_page_kind */
	__u32 pad;
};

/* Per-CPU loss counters, summed by the recorder into struct iot_stats. */
enum iot_loss {
	IOT_LOSS_RINGBUF	= 0,	/* ring buffer full: a record was dropped */
	IOT_LOSS_NO_ENTER	= 1,	/* exit without its enter (recorded with IOT_SCF_NO_ENTER) */
	IOT_LOSS_STORAGE	= 2,	/* no task storage (or, without it, the tid hash
					 * full): a call could not be stashed */
	IOT_LOSS_STR_TRUNC	= 3,	/* a string was cut to IOT_STR_MAX */
	IOT_LOSS_STR_FAULT	= 4,	/* a string could not be read from user memory */
	IOT_LOSS_FDS	= 5,	/* more fds than IOT_MAX_FDS: fd info dropped */
	IOT_LOSS_RINGBUF_NOSEQ	= 6,	/* of IOT_LOSS_RINGBUF, records without a seq (wakeups,
					 * after exit): they leave no gap */
	IOT_LOSS_NR		= 8,
};

/* Traced threads at once in the state hash of the object built for kernels
 * without task storage (IOT_NO_TASK_STORAGE); a thread past it is not
 * recorded, and its calls count as IOT_LOSS_STORAGE. */
#define IOT_TSTATE_HASH_MAX	65536

/*
 * A CPU's records on their way to the ring buffer (the BPF map `batch`, one
 * per CPU).  A ring record is always whole records back to back: a flushed
 * batch, or one record emitted on its own.  What is left here when the
 * recording stops is read by the recorder once the programs are detached.
 */
#define IOT_BATCH_SZ		16384	/* bytes of buf */
#define IOT_BATCH_ROOM		8192	/* a record is built with this much room after len */

struct iot_batch {
	__u32 len;	/* bytes of complete records in buf */
	__u32 nrec;	/* records in buf */
	__u32 noseq;	/* of those, records without a seq (for loss accounting) */
	__u32 busy;	/* a program on this CPU is building a record in buf */
	__u8 buf[IOT_BATCH_SZ];
};

/* Written last by a recorder that stopped cleanly. */
struct iot_stats {
	struct iot_hdr hdr;
	__u64 loss[IOT_LOSS_NR];	/* summed enum iot_loss counters */
	__u64 records;			/* records the recorder took from the ring */
	__u64 bytes;			/* record bytes before compression */
};

/*
 * First record of a trace.  Followed by nstr struct iot_str: the kernel
 * release, the host name and the iotrace command line, in that order.
 */
struct iot_meta {
	struct iot_hdr hdr;	/* ts: CLOCK_MONOTONIC at start; pid = tid: the recorder's
				 * (0 in traces written before 2026-11-26) */
	__u64 realtime_ns;	/* CLOCK_REALTIME at start */
	__u32 page_size;
	__u32 nstr;
	__u32 follow_children;	/* 1 unless --no-children */
	__u32 compute_floor_ns;	/* on-CPU ns between two calls of a thread doing nothing
				 * between them (syscall exit and entry, the tracer),
				 * measured at start; 0: not measured */
};

/*
 * Which machine the trace is of, written right after META, so traces of
 * several hosts can be told apart and merged.  Followed by nstr strings: the
 * host name, the boot id (/proc/sys/kernel/random/boot_id) and the machine
 * id (/etc/machine-id), each empty when it cannot be read.
 */
struct iot_host {
	struct iot_hdr hdr;	/* ts: CLOCK_MONOTONIC when written; pid = tid = 0 */
	__u32 netns;		/* inode of the recorder's network namespace, 0: unknown */
	__u32 nstr;		/* 3 */
};

enum iot_clock_when {
	IOT_CLOCK_START		= 0,	/* read as the recording starts */
	IOT_CLOCK_END		= 1,	/* read as it stops, before STATS */
	IOT_CLOCK_LAUNCH	= 2,	/* read as the recorder was launched, before it
					 * loaded its programs: the instant `record --
					 * CMD` would have started CMD untraced (after
					 * START, with an earlier ts; -- CMD only) */
};

/*
 * CLOCK_REALTIME against CLOCK_MONOTONIC: two of them, at start and end, let
 * a merge put hosts on one clock and see the realtime clock drift or step.
 */
struct iot_clock {
	struct iot_hdr hdr;	/* ts: CLOCK_MONOTONIC, the middle of the two reads that
				 * bracket realtime_ns; pid = tid = 0 */
	__u64 realtime_ns;	/* CLOCK_REALTIME read between them */
	__u32 bracket_ns;	/* the two monotonic reads' distance: the pair's uncertainty */
	__u32 when;		/* enum iot_clock_when */
};

/* A process put into the kernel filter by the recorder. */
struct iot_target {
	struct iot_hdr hdr;	/* pid = the process */
	__u32 reason;		/* enum iot_target_reason */
	__u32 pad;
};

/* A thread of the recorder's other than META's (the watcher of its ring):
 * hdr.pid is the recorder's, hdr.tid the thread's.  Not a task outside the
 * trace either.  Written once the thread is known to be running. */
struct iot_helper {
	struct iot_hdr hdr;
};

/* An exited thread's last seq: records lost after its last kept one show as a
 * gap too.  hdr.pid/tid are the thread's; written by the recorder. */
struct iot_seqend {
	struct iot_hdr hdr;
	__u32 last_seq;
	__u32 pad;
};

/* Value of the BPF map the recorder drains into struct iot_seqend. */
struct iot_seqend_val {
	__u32 pid;
	__u32 seq;
};

/* Call families of record --calls; a call may belong to several, and is
 * recorded when any of its families is. */
enum iot_family {
	IOT_FAM_FILE		= 0x01,	/* paths, file I/O, fd bookkeeping (close, dup, fcntl) */
	IOT_FAM_SYNC		= 0x02,	/* fsync, fdatasync, sync, syncfs, sync_file_range */
	IOT_FAM_NET		= 0x04,	/* sockets, send/recv, and poll/epoll waits */
	IOT_FAM_IPC		= 0x08,	/* futex, pipes, eventfd, sleeps, poll/epoll waits */
	IOT_FAM_MEM		= 0x10,	/* mmap and friends, and the page-cache records */
	IOT_FAM_PROC		= 0x20,	/* fork, exec, exit, wait: always recorded */
	IOT_FAM_ALL		= 0x3f,
};

/* The families a trace recorded, written after META and HOST when they are
 * not all: calls of the others were left out in the kernel. */
struct iot_calls {
	struct iot_hdr hdr;
	__u32 families;		/* enum iot_family bits */
	__u32 pad;
};

/*
 * META's compute floor again, for a call that follows one the thread was
 * switched out in (it blocked, or was preempted): the return to user after a
 * switch does more (rseq, a CPU woken from idle), and a replay that blocks
 * in its own call pays that again.  Written after META, HOST, the start
 * CLOCK and CALLS when the calibration measured it.
 */
struct iot_floor {
	struct iot_hdr hdr;
	__u32 switch_ns;	/* median on-CPU ns from such a call's return to the
				 * next call's enter, nothing done between */
	__u32 pad;
};

enum iot_target_reason {
	IOT_TARGET_PID		= 1,	/* named with -p */
	IOT_TARGET_CHILD	= 2,	/* a descendant found at attach */
	IOT_TARGET_CMD		= 3,	/* started by record -- CMD */
};

/*
 * A symlink that an absolute path named by a traced call went through as its
 * last component, found by the recorder (lstat, readlink) the first time it
 * saw the path: one record per link of the chain, each naming where the whole
 * chain ends, so a replay can recreate the chain to a file the trace reached
 * only through stat or exec.  Followed by three strings: the link's path, its
 * target as readlink gives it, and the chain's end (absolute, resolved
 * lexically from the link's directory).
 */
struct iot_link {
	struct iot_hdr hdr;	/* ts, pid, tid: the call that named the path */
	__u64 end_size;		/* st_size of the chain's end */
	__u32 end_dev;		/* its st_dev, user-space encoding */
	__u32 end_mode;		/* its st_mode; 0: the chain dangles or loops */
	__u32 nstr;		/* 3 */
	__u32 pad;
};

/* /proc/PID snapshot.  Followed by nstr strings: comm, cwd, exe, cmdline
 * (NUL-separated arguments, as in /proc/PID/cmdline). */
struct iot_proc {
	struct iot_hdr hdr;	/* pid = tid = the process */
	__u32 ppid;
	__u32 nstr;
};

/* /proc/PID/task/TID snapshot.  Followed by one string: comm. */
struct iot_thread {
	struct iot_hdr hdr;	/* pid, tid */
	__u32 nstr;
	__u32 pad;
};

/* /proc/PID/fd/N and fdinfo/N snapshot.  Followed by one string: the link
 * target (path, or "pipe:[ino]", "socket:[ino]", "anon_inode:[eventfd]"). */
struct iot_fdsnap {
	struct iot_hdr hdr;	/* pid = tid = the process */
	struct iot_fd f;	/* which = 0; pos and flags from fdinfo */
	__u32 nstr;
	__u32 pad;
};

/* /proc/PID/maps line.  Followed by one string: the pathname, may be empty. */
struct iot_mapsnap {
	struct iot_hdr hdr;	/* pid = tid = the process */
	__u64 start;
	__u64 end;
	__u64 offset;		/* file offset of start */
	__u64 ino;
	__u32 dev;		/* user-space encoding */
	__u32 prot;		/* PROT_* */
	__u32 shared;		/* 1: MAP_SHARED ('s'), 0: private */
	__u32 nstr;
};

#ifndef __bpf__
_Static_assert(sizeof(struct iot_hdr) == 24, "iot_hdr ABI");
_Static_assert(sizeof(struct iot_batch) == 16 + IOT_BATCH_SZ, "iot_batch ABI");
_Static_assert(IOT_BATCH_ROOM == 2 * IOT_REC_MAX, "a record fits the room whatever its offset");
_Static_assert(sizeof(struct iot_fd) == 40, "iot_fd ABI");
_Static_assert(sizeof(struct iot_fd_short) == 24, "iot_fd_short ABI");
_Static_assert(sizeof(struct iot_sock) == 72, "iot_sock ABI");
_Static_assert(sizeof(struct iot_sock_short) == 8, "iot_sock_short ABI");
_Static_assert(__builtin_offsetof(struct iot_sock, netns) == 60, "netns in version 1's pad");
_Static_assert(sizeof(struct iot_str) == 8, "iot_str ABI");
_Static_assert(sizeof(struct iot_argv_counts) == 4, "iot_argv_counts fits iot_str.pad");
_Static_assert(2 * IOT_ARGV_ROOM <= IOT_STR_MAX, "argv data fits a string");
_Static_assert(sizeof(struct iot_syscall) == 112, "iot_syscall ABI");
_Static_assert(sizeof(struct iot_fork) == 40, "iot_fork ABI");
_Static_assert(sizeof(struct iot_exec) == 48, "iot_exec ABI");
_Static_assert(sizeof(struct iot_exit) == 32, "iot_exit ABI");
_Static_assert(sizeof(struct iot_wakeup) == 32, "iot_wakeup ABI");
_Static_assert(sizeof(struct iot_switch) == 40, "iot_switch ABI");
_Static_assert(sizeof(struct iot_page) == 56, "iot_page ABI");
_Static_assert(sizeof(struct iot_stats) == 104, "iot_stats ABI");
_Static_assert(sizeof(struct iot_meta) == 48, "iot_meta ABI");
_Static_assert(sizeof(struct iot_link) == 48, "iot_link ABI");
_Static_assert(sizeof(struct iot_host) == 32, "iot_host ABI");
_Static_assert(sizeof(struct iot_clock) == 40, "iot_clock ABI");
_Static_assert(sizeof(struct iot_seqend) == 32, "iot_seqend ABI");
_Static_assert(sizeof(struct iot_calls) == 32, "iot_calls ABI");
_Static_assert(sizeof(struct iot_floor) == 32, "iot_floor ABI");
_Static_assert(sizeof(struct iot_helper) == 24, "iot_helper ABI");
_Static_assert(sizeof(struct iot_proc) == 32, "iot_proc ABI");
_Static_assert(sizeof(struct iot_fdsnap) == 72, "iot_fdsnap ABI");
_Static_assert(sizeof(struct iot_mapsnap) == 72, "iot_mapsnap ABI");
#endif

/*
 * Per-syscall description, filled in by the recorder from lib/syscalls.c into
 * the BPF program's read-only data before load.  Tells the BPF code what to
 * collect without a switch per syscall.
 */
struct iot_sc_desc {
	__u16 flags;	/* IOT_SCD_* */
	__u8 fd_args;	/* bit i: args[i] is an fd */
	__u8 str_args;	/* bit i: args[i] is a user path string, read at exit */
	__u8 aux;	/* IOT_SCD_FDPAIR: index of the int[2] argument; IOT_SCD_STAT and
			 * IOT_SCD_STATX: index of the stat buffer argument */
	__u8 res_arg;	/* IOT_SCD_RESULT: index of the buffer whose first ret bytes are a
			 * string result (readlink) */
	__u8 pad[2];
};

#define IOT_SCD_TRACE	0x001	/* record this syscall */
#define IOT_SCD_RET_FD	0x002	/* a non-negative return value is a new fd */
#define IOT_SCD_FDPAIR	0x004	/* returns two fds in the int[2] at args[aux] */
#define IOT_SCD_SOCK	0x008	/* record socket state of the socket fd (arg 0 or returned) */
#define IOT_SCD_NORET	0x010	/* does not return (exit, exit_group): emit at enter */
#define IOT_SCD_EXEC	0x020	/* execve/execveat: read strings at enter, the old mm goes */
#define IOT_SCD_STAT	0x040	/* struct stat at args[aux], read at exit */
#define IOT_SCD_STATX	0x080	/* struct statx at args[aux], read at exit */
#define IOT_SCD_RESULT	0x100	/* string result in args[res_arg], ret bytes long */
#define IOT_SCD_FORK	0x200	/* creates a task; the child's return of 0 is not a call */
#define IOT_SCD_SEND	0x400	/* sends on the socket it records: tcp_seq is write_seq */
#define IOT_SCD_SOCKIO	0x800	/* read, write...: record the state of arg 0 when it is a TCP
				 * socket at enter */

#ifndef __bpf__
_Static_assert(sizeof(struct iot_sc_desc) == 8, "iot_sc_desc ABI");
#endif

/* clang-format on */

#endif /* IOTRACE_ABI_H */
