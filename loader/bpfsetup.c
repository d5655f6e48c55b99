// SPDX-License-Identifier: GPL-2.0
/*
 * Load and attach the capture programs.  tp_btf is preferred (direct, typed
 * access to the syscall registers); raw_tp is the fallback.  The page-cache
 * tracepoints are optional: a kernel without one loses that view, with a
 * warning that says so, and records the rest.  A kernel without task
 * storage gets the same programs built to keep thread state in a hash by tid
 * (iotrace_tidhash), slower, with a warning that says where.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "include/iotrace_abi.h"
#include "iotrace.skel.h"
#include "iotrace_tidhash.skel.h"
#include "lib/log.h"
#include "lib/syscalls.h"
#include "loader/bpfsetup.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd that names a thread */
#endif

/*
 * What the loader touches of the object it loaded: both are built from
 * bpf/iotrace.bpf.c and have the same maps, programs and globals, under two
 * skeleton types.
 */
struct capture_obj {
	struct bpf_object_skeleton *skeleton;
	struct bpf_object *obj;
	struct bpf_map *events, *traced, *tstate, *seq_end, *loss, *batch;
	struct bpf_program *enter_btf, *exit_btf, *enter_raw, *exit_raw;
	struct iot_sc_desc *sc_desc;
	bool *follow_children, *storage_verdict;
	__u64 *wakeup_bytes, *traced_gen;
	__u32 *batch_limit;
};

#define CAPTURE_OBJ(s)                                                           \
	((struct capture_obj){ .skeleton = (s)->skeleton,                        \
			       .obj = (s)->obj,                                  \
			       .events = (s)->maps.events,                       \
			       .traced = (s)->maps.traced,                       \
			       .tstate = (s)->maps.tstate,                       \
			       .seq_end = (s)->maps.seq_end,                     \
			       .loss = (s)->maps.loss,                           \
			       .batch = (s)->maps.batch,                         \
			       .enter_btf = (s)->progs.sys_enter_btf,            \
			       .exit_btf = (s)->progs.sys_exit_btf,              \
			       .enter_raw = (s)->progs.sys_enter_raw,            \
			       .exit_raw = (s)->progs.sys_exit_raw,              \
			       .sc_desc = (s)->rodata->sc_desc,                  \
			       .follow_children = &(s)->rodata->follow_children, \
			       .storage_verdict = &(s)->rodata->storage_verdict, \
			       .wakeup_bytes = &(s)->rodata->wakeup_bytes,       \
			       .batch_limit = &(s)->rodata->batch_limit,         \
			       .traced_gen = &(s)->bss->traced_gen })

struct capture {
	struct iotrace_bpf *skel;	     /* the object loaded: one of these two */
	struct iotrace_tidhash_bpf *tidhash; /* without task storage */
	struct capture_obj o;
	bool storage_verdict; /* threads get task storage from here: see the BPF side */
	void *zero_state;     /* a fresh task storage value */
};

static int pidfd_open_flags(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

/* Whether this kernel can hand out a pidfd for a single thread
 * (IOTRACE_NO_THREAD_PIDFD=1 says not, for the tests of the fallback). */
static bool kernel_has_thread_pidfd(void)
{
	const char *no = getenv("IOTRACE_NO_THREAD_PIDFD");
	int fd;

	if (no && *no && strcmp(no, "0"))
		return false;
	fd = pidfd_open_flags(getpid(), PIDFD_THREAD);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

struct optional_tp {
	const char *tp;	  /* tracepoint, as btf_trace_<tp> */
	const char *lost; /* what the trace lacks without it */
};

static const struct optional_tp optional[] = {
	{ "mm_filemap_fault", "page faults on file mappings (mmap reads)" },
	{ "mm_filemap_map_pages", "fault-around mapping of cached pages" },
	{ "writeback_dirty_folio", "pages dirtied through shared mappings" },
	{ "mm_filemap_add_to_page_cache", "page-cache misses (the original cache state)" },
};
#define NOPTIONAL (sizeof(optional) / sizeof(optional[0]))

static bool kernel_has_tp(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
}

static struct bpf_program *prog_for_tp(const struct capture_obj *o, const char *tp)
{
	struct bpf_program *p;
	char sec[128];

	snprintf(sec, sizeof(sec), "tp_btf/%s", tp);
	bpf_object__for_each_program(
		p, o->obj) if (!strcmp(bpf_program__section_name(p), sec)) return p;
	return NULL;
}

/* Chooses the programs this kernel can run and families wants (the page-cache
 * ones are --calls mem's); false when it cannot run the core. */
static bool choose_programs(const struct capture_obj *o, uint32_t families)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool btf_sys = kernel_has_tp(vmlinux, "sys_enter") && kernel_has_tp(vmlinux, "sys_exit");

	if (!vmlinux) {
		err("kernel has no BTF (/sys/kernel/btf/vmlinux): iotrace needs CONFIG_DEBUG_INFO_BTF=y");
		return false;
	}
	bpf_program__set_autoload(o->enter_btf, btf_sys);
	bpf_program__set_autoload(o->exit_btf, btf_sys);
	bpf_program__set_autoload(o->enter_raw, !btf_sys);
	bpf_program__set_autoload(o->exit_raw, !btf_sys);
	if (!btf_sys)
		warn("kernel lacks tp_btf/sys_enter and sys_exit: using raw_tp, slower on every "
		     "syscall of the host (registers read with helper calls, not loads)");
	for (size_t i = 0; i < NOPTIONAL; i++) {
		if (!(families & IOT_FAM_MEM)) {
			bpf_program__set_autoload(prog_for_tp(o, optional[i].tp), false);
			continue;
		}
		if (kernel_has_tp(vmlinux, optional[i].tp))
			continue;
		warn("kernel lacks tracepoint %s: the trace will not show %s", optional[i].tp,
		     optional[i].lost);
		bpf_program__set_autoload(prog_for_tp(o, optional[i].tp), false);
	}
	btf__free(vmlinux);
	return true;
}

/* Whether this kernel lacks task storage; a probe refused for want of
 * privilege is refused a plain hash too, and says nothing. */
static bool kernel_lacks_task_storage(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 0 &&
	       libbpf_probe_bpf_map_type(BPF_MAP_TYPE_HASH, NULL) == 1;
}

/*
 * Whether to load the object that keeps thread state in a hash by tid: on a
 * kernel without task storage, or when IOTRACE_BPF_FALLBACK=task-storage
 * asks (tests, and users comparing the two).  -EINVAL for another value.
 */
static int want_tidhash(bool *yes)
{
	const char *fb = getenv("IOTRACE_BPF_FALLBACK"), *why;

	*yes = false;
	if (fb && *fb) {
		if (strcmp(fb, "task-storage")) {
			err("IOTRACE_BPF_FALLBACK: unknown fallback '%s' (known: task-storage)",
			    fb);
			return -EINVAL;
		}
		why = "IOTRACE_BPF_FALLBACK=task-storage";
	} else if (kernel_lacks_task_storage()) {
		why = "kernel lacks BPF task storage (BPF_MAP_TYPE_TASK_STORAGE, Linux 5.11)";
	} else {
		return 0;
	}
	*yes = true;
	warn("%s: keeping thread state in a hash by tid instead, slower: a traced thread's "
	     "switches, and its first call after each, pay hash lookups instead of task "
	     "storage's; an untraced thread's call that the per-CPU verdict misses pays a "
	     "lookup of its process; at most %d traced threads at once (the calls of more "
	     "count as lost, no task storage)",
	     why, IOT_TSTATE_HASH_MAX);
	return 0;
}

/* Entries of the tid hash's marks, eight tids each: pid_max's worth (the
 * kernel's limit, 4M tids in 512 KiB, if it cannot be read). */
static __u32 tid_mark_entries(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 0;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max <= 0 || max > 4194304)
		max = 4194304;
	return (max + 7) / 8;
}

/* Opens the object want_tidhash() chose into c. */
static int capture__open_obj(struct capture *c, bool tidhash)
{
	if (tidhash) {
		c->tidhash = iotrace_tidhash_bpf__open();
		if (c->tidhash) {
			c->o = CAPTURE_OBJ(c->tidhash);
			bpf_map__set_max_entries(c->tidhash->maps.tstate_marks, tid_mark_entries());
		}
	} else {
		c->skel = iotrace_bpf__open();
		if (c->skel)
			c->o = CAPTURE_OBJ(c->skel);
	}
	if (!c->skel && !c->tidhash) {
		int e = -errno;

		err("opening BPF object: %s", strerror(-e));
		return e;
	}
	return 0;
}

/* Whether a file system of type MAGIC is mounted at PATH. */
static bool mounted(const char *path, long magic)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == magic;
}

/*
 * A chroot or container often lacks /proc or /sys; without this check the
 * first thing to fail would be the BTF lookup, which blames the kernel.
 */
static bool check_mounts(void)
{
	if (!mounted("/proc", PROC_SUPER_MAGIC)) {
		err("/proc is not mounted (a chroot or container?): "
		    "mount it with 'mount -t proc proc /proc'");
		return false;
	}
	if (!mounted("/sys", SYSFS_MAGIC)) {
		err("/sys is not mounted (a chroot or container?): "
		    "mount it with 'mount -t sysfs sysfs /sys'");
		return false;
	}
	return true;
}

static void explain_load_error(int e)
{
	if (e == -EPERM || e == -EACCES)
		err("loading BPF programs: %s: iotrace needs root, or CAP_BPF and CAP_PERFMON",
		    strerror(-e));
	else
		err("loading BPF programs: %s (run with -v for the verifier's log)", strerror(-e));
}

struct capture *capture__new(const struct capture_opts *opts)
{
	struct iot_sc_desc desc[IOT_NR_MAX];
	struct capture *c = calloc(1, sizeof(*c));
	bool tidhash;
	int e;

	if (!c)
		return NULL;
	e = want_tidhash(&tidhash);
	if (e)
		goto err_free;
	if (!check_mounts()) {
		e = -ENOENT;
		goto err_free;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		err("kernel has no BTF (/sys/kernel/btf/vmlinux): iotrace needs CONFIG_DEBUG_INFO_BTF=y");
		e = -ENOTSUP;
		goto err_free;
	}
	e = capture__open_obj(c, tidhash);
	if (e)
		goto err_free;
	syscall__fill_desc(desc, opts->families);
	memcpy(c->o.sc_desc, desc, sizeof(desc));
	*c->o.follow_children = opts->follow_children;
	/* the hash's entries are made by the threads themselves, never by tid
	 * from here: a thread may exit and its tid pass on in between */
	c->storage_verdict = !tidhash && kernel_has_thread_pidfd();
	if (!tidhash && !c->storage_verdict)
		warn("kernel lacks PIDFD_THREAD (Linux 6.9): every syscall of untraced threads "
		     "pays a hash lookup when the per-CPU verdict misses");
	*c->o.storage_verdict = c->storage_verdict;
	*c->o.wakeup_bytes = opts->ring_bytes / 4;
	/* batches small enough that a small ring still takes several */
	*c->o.batch_limit = opts->ring_bytes / 8 < IOT_BATCH_SZ - IOT_BATCH_ROOM ?
				    opts->ring_bytes / 8 :
				    IOT_BATCH_SZ - IOT_BATCH_ROOM;
	bpf_map__set_max_entries(c->o.events, opts->ring_bytes);
	if (!choose_programs(&c->o, opts->families)) {
		e = -ENOTSUP;
		goto err_destroy;
	}
	e = bpf_object__load_skeleton(c->o.skeleton);
	if (e) {
		explain_load_error(e);
		goto err_destroy;
	}
	e = bpf_object__attach_skeleton(c->o.skeleton);
	if (e) {
		err("attaching BPF programs: %s", strerror(-e));
		goto err_destroy;
	}
	return c;

err_destroy:
	iotrace_bpf__destroy(c->skel);
	iotrace_tidhash_bpf__destroy(c->tidhash);
err_free:
	free(c);
	errno = -e;
	return NULL;
}

/* Gives thread tid the task storage that marks it traced; one it has stays. */
static int give_storage(struct capture *c, pid_t tid)
{
	const struct bpf_map *m = c->o.tstate;
	int fd = pidfd_open_flags(tid, PIDFD_THREAD), e = 0;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno; /* gone: nothing to trace */
	if (bpf_map__update_elem(m, &fd, sizeof(fd), c->zero_state, bpf_map__value_size(m),
				 BPF_NOEXIST) &&
	    errno != EEXIST && errno != ESRCH)
		e = -errno;
	close(fd);
	return e;
}

/*
 * Every thread of pid gets its storage.  After the filter took the process:
 * a thread born later gets it from the fork program, one born earlier is in
 * the listing.
 */
static int give_threads_storage(struct capture *c, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int e = 0;

	if (!c->zero_state) {
		c->zero_state = calloc(1, bpf_map__value_size(c->o.tstate));
		if (!c->zero_state)
			return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!e && (de = readdir(d))) {
		if (de->d_name[0] != '.')
			e = give_storage(c, atoi(de->d_name));
	}
	closedir(d);
	return e;
}

int capture__add_pid(struct capture *c, pid_t pid)
{
	__u32 key = pid, one = 1;
	int e;

	if (bpf_map__update_elem(c->o.traced, &key, sizeof(key), &one, sizeof(one), BPF_ANY))
		return -errno;
	if (c->storage_verdict) {
		e = give_threads_storage(c, pid);
		if (e)
			return e;
	}
	/* after the update: the programs' "untraced" verdicts taken before it go stale */
	__atomic_fetch_add(c->o.traced_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int capture__ring_fd(const struct capture *c)
{
	return bpf_map__fd(c->o.events);
}

int capture__seq_end_fd(const struct capture *c)
{
	return bpf_map__fd(c->o.seq_end);
}

int capture__loss(const struct capture *c, uint64_t *loss)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals;

	if (ncpu <= 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < IOT_LOSS_NR; k++) {
		loss[k] = 0;
		if (bpf_map__lookup_elem(c->o.loss, &k, sizeof(k), vals, ncpu * sizeof(*vals), 0))
			continue;
		for (int i = 0; i < ncpu; i++)
			loss[k] += vals[i];
	}
	free(vals);
	return 0;
}

void capture__stop(struct capture *c)
{
	bpf_object__detach_skeleton(c->o.skeleton);
	/* A detached tracepoint's probe array is freed after an RCU grace
	 * period: a program already running finishes within microseconds,
	 * so this wait outlasts it by far. */
	usleep(20000);
}

int capture__drain_batches(struct capture *c, int (*fn)(void *ctx, void *data, size_t len),
			   void *ctx)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t vsz = (sizeof(struct iot_batch) + 7) & ~7ul;
	__u32 zero = 0;
	char *vals;
	int e = 0;

	if (ncpu <= 0)
		return ncpu;
	vals = calloc(ncpu, vsz);
	if (!vals)
		return -ENOMEM;
	if (bpf_map__lookup_elem(c->o.batch, &zero, sizeof(zero), vals, ncpu * vsz, 0)) {
		e = -errno;
		goto out;
	}
	for (int i = 0; i < ncpu && !e; i++) {
		struct iot_batch *b = (struct iot_batch *)(vals + i * vsz);

		if (b->len && b->len <= IOT_BATCH_SZ)
			e = fn(ctx, b->buf, b->len);
	}
out:
	free(vals);
	return e;
}

void capture__free(struct capture *c)
{
	if (!c)
		return;
	iotrace_bpf__destroy(c->skel);
	iotrace_tidhash_bpf__destroy(c->tidhash);
	free(c->zero_state);
	free(c);
}
