// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the capture benchmark: empty programs on the tracepoints
 * iotrace attaches to, so what the hooks themselves cost (the tracepoint
 * dispatch, the slow syscall path a sys_enter program forces on every task)
 * is measured in the same run as iotrace, and iotrace's own share is what
 * lies above it.  bench/floor_load.c attaches the syscall pair, the scheduler
 * set, or both.
 *
 * Two more syscall pairs are the least that any tracer which times each call
 * pays on top of the hooks: floor_clock_* reads the clock at enter and at
 * exit and keeps the difference; floor_rec_* also writes a 24-byte record
 * (both times, the call's number and result) into a per-CPU batch that goes
 * to a ring buffer when full, without waking the reader.  Neither filters by
 * task, reads an argument or names the thread (a per-CPU stream could name
 * it at each switch): every tracer that keeps the calls' times does at least
 * this much.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct clock_slot {
	__u64 enter_ns;
	__u64 sum_ns; /* kept, so that the exit's read is not dead code */
	__u64 nr;     /* the record pair's call, for its exit */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct clock_slot);
} clock_slots SEC(".maps");

struct floor_rec {
	__u64 enter_ns;
	__s64 ret;
	__u32 dur_ns;
	__u32 nr;
};

#define FLOOR_BATCH 64

struct rec_batch {
	__u32 n;
	struct floor_rec r[FLOOR_BATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_batch);
} rec_batches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} floor_ring SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_clock_enter, struct pt_regs *regs, long id)
{
	struct clock_slot *c = bpf_map_lookup_elem(&clock_slots, &(__u32){ 0 });

	if (c)
		c->enter_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_clock_exit, struct pt_regs *regs, long ret)
{
	struct clock_slot *c = bpf_map_lookup_elem(&clock_slots, &(__u32){ 0 });

	if (c)
		c->sum_ns += bpf_ktime_get_ns() - c->enter_ns;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_rec_enter, struct pt_regs *regs, long id)
{
	struct clock_slot *c = bpf_map_lookup_elem(&clock_slots, &(__u32){ 0 });

	if (c) {
		c->enter_ns = bpf_ktime_get_ns();
		c->nr = id;
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_rec_exit, struct pt_regs *regs, long ret)
{
	struct clock_slot *c = bpf_map_lookup_elem(&clock_slots, &(__u32){ 0 });
	struct rec_batch *b = bpf_map_lookup_elem(&rec_batches, &(__u32){ 0 });
	struct floor_rec *r;
	__u64 now;

	if (!c || !b)
		return 0;
	now = bpf_ktime_get_ns();
	r = &b->r[b->n & (FLOOR_BATCH - 1)];
	r->enter_ns = c->enter_ns;
	r->ret = ret;
	r->dur_ns = now - c->enter_ns;
	r->nr = c->nr;
	if (++b->n < FLOOR_BATCH)
		return 0;
	/* no wakeup: the reader drains on its clock, as iotrace's does */
	bpf_ringbuf_output(&floor_ring, b->r, sizeof(b->r), BPF_RB_NO_WAKEUP);
	b->n = 0;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(floor_waking, struct task_struct *p)
{
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(floor_fork, struct task_struct *parent, struct task_struct *child)
{
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(floor_exec, struct task_struct *p)
{
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(floor_exit, struct task_struct *p)
{
	return 0;
}
