/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscalls iotrace records (x86_64 numbering): names, argument names as
 * in the man pages, how to print each argument, and what the BPF side must
 * collect.  One table, used by record (the kernel filter), dump and analyze.
 */
#ifndef IOTRACE_SYSCALLS_H
#define IOTRACE_SYSCALLS_H

#include <stdint.h>
#include "include/iotrace_abi.h"

enum sc_arg {
	SA_NONE = 0,
	SA_INT,		/* signed decimal */
	SA_UINT,	/* unsigned decimal (sizes, counts) */
	SA_HEX,		/* hex: addresses, masks */
	SA_FD,		/* an fd: printed with its path */
	SA_DIRFD,	/* AT_FDCWD or an fd */
	SA_PATH,	/* a path string read from user memory */
	SA_OFLAGS,	/* open(2) flags */
	SA_MODE,	/* octal mode */
	SA_PROT,	/* mmap PROT_* */
	SA_MFLAGS,	/* mmap MAP_* */
	SA_FUTEX_OP,	/* FUTEX_* op */
	SA_WHENCE,	/* lseek whence */
	SA_PTR,		/* a user pointer whose contents are not recorded */
	SA_FCNTL_CMD,	/* F_* */
	SA_SOCKFAM,	/* AF_* */
	SA_SOCKTYPE,	/* SOCK_* */
	SA_CLONE_FLAGS,	/* CLONE_* */
	SA_ATFLAGS,	/* AT_* */
};

/* What a call does, for analysis and replay. */
enum sc_class {
	SC_OTHER = 0,
	SC_OPEN,	/* creates an fd from a path */
	SC_CLOSE,
	SC_READ,	/* reads bytes from an fd */
	SC_WRITE,	/* writes bytes to an fd */
	SC_SEEK,
	SC_SYNC,
	SC_META,	/* path or inode metadata: stat, chmod, ... */
	SC_NAMESPACE,	/* creates/removes/renames names: mkdir, unlink, rename, link */
	SC_DUP,
	SC_PIPE,	/* creates an fd pair or event fd */
	SC_SYNCH,	/* futex, poll, select, epoll waits, sleeps */
	SC_SOCKET,
	SC_MMAP,
	SC_PROCESS,	/* clone, fork, exec, exit, wait */
	SC_URING,	/* io_uring: counted, not replayable */
};

struct syscall_info {
	const char *name;
	int nr;				/* x86_64 number */
	uint8_t nargs;
	uint8_t cls;			/* enum sc_class */
	uint8_t arg[6];			/* enum sc_arg */
	const char *argname[6];		/* as in the man page */
	struct iot_sc_desc desc;	/* what BPF collects */
};

/* NULL when nr is not one iotrace knows. */
const struct syscall_info *syscall__by_nr(int nr);
const struct syscall_info *syscall__by_name(const char *name);
/* Name for any number: the table's, or "syscall_NNN". Returned buffer is static for unknown. */
const char *syscall__name(int nr);
/* All known syscalls, in table order (grouped as in DESIGN §3). */
const struct syscall_info *syscall__table(unsigned int *n);
/* Fills desc[0..IOT_NR_MAX) for the BPF program's read-only data. */
void syscall__fill_desc(struct iot_sc_desc *desc);

#endif
