// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the capture benchmark: empty programs on the tracepoints
 * iotrace attaches to, so what the hooks themselves cost (the tracepoint
 * dispatch, the slow syscall path a sys_enter program forces on every task)
 * is measured in the same run as iotrace, and iotrace's own share is what
 * lies above it.  bench/floor_load.c attaches the syscall pair, the scheduler
 * set, or both.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

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
