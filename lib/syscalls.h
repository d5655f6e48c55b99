/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscalls iotrace records (x86_64 numbering): names, argument names as
 * in the man pages, how to print each argument, and what the BPF side must
 * collect.  One table, used by record (the kernel filter), dump and analyze.
 */
#ifndef IOTRACE_SYSCALLS_H
#define IOTRACE_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>
#include "include/iotrace_abi.h"

enum sc_arg {
	SA_NONE = 0,
	SA_INT,		/* signed decimal of an int */
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
	SA_CLONE_FLAGS, /* CLONE_* */
	SA_ATFLAGS,	/* AT_* */
	SA_OFF,		/* signed decimal of 64 bits: offsets, lengths */
	SA_ADDR,	/* an address that is the argument's meaning (mmap, futex): NULL or hex */
	SA_OMODE,	/* open's mode: shown only when the flags create (O_CREAT, O_TMPFILE) */
	SA_ACCESS,	/* F_OK or R_OK|W_OK|X_OK */
	SA_SOCKPROTO,	/* IPPROTO_* for AF_INET*, NETLINK_* for AF_NETLINK, else a number */
	SA_SOCKFLAGS,	/* SOCK_CLOEXEC|SOCK_NONBLOCK (accept4) */
	SA_FDFLAGS,	/* O_CLOEXEC|O_NONBLOCK|O_DIRECT of pipe2, dup3 */
	SA_EFDFLAGS,	/* EFD_* */
	SA_EPFLAGS,	/* EPOLL_CLOEXEC */
	SA_EPOLL_OP,	/* EPOLL_CTL_* */
	SA_MSGFLAGS,	/* MSG_* */
	SA_SHUT_HOW,	/* SHUT_* */
	SA_FLOCK_OP,	/* LOCK_* */
	SA_FADVICE,	/* POSIX_FADV_* */
	SA_MADVICE,	/* MADV_* */
	SA_MSFLAGS,	/* MS_* of msync */
	SA_MREMAP,	/* MREMAP_* */
	SA_CLOCKID,	/* CLOCK_* */
	SA_TIMERFLAGS,	/* TIMER_ABSTIME */
	SA_WAITOPTS,	/* W* options of wait4, waitid */
	SA_IDTYPE,	/* P_* of waitid */
	SA_RENAME,	/* RENAME_* */
	SA_FALLOC,	/* FALLOC_FL_* */
	SA_STATX_MASK,	/* STATX_* */
	SA_XATTR,	/* XATTR_CREATE, XATTR_REPLACE */
	SA_CLOSE_RANGE, /* CLOSE_RANGE_* */
	SA_FUTEX_VAL2,	/* futex's timeout argument: a timeout, or val2 for the requeues */
	SA_FUTEX_ADDR2, /* futex's uaddr2: shown by the ops that use it */
	SA_FUTEX_VAL3,	/* futex's val3: shown by the ops that use it */
	SA_FCNTL_ARG,	/* fcntl's third argument, as its command reads it */
	SA_CLONE_STACK, /* clone's stack: child_stack= */
	SA_CLONE_PTID,	/* clone's parent_tid=, shown with CLONE_PARENT_SETTID or CLONE_PIDFD */
	SA_CLONE_CTID,	/* clone's child_tidptr=, shown with CLONE_CHILD_SETTID or _CLEARTID */
	SA_CLONE_TLS,	/* clone's tls=, shown with CLONE_SETTLS */
	SA_ARGV,	/* execve's argv: the strings the recorder kept */
	SA_ENVP,	/* execve's envp: its address, and how many entries */
	SA_NKINDS
};

/* What a call does, for analysis and replay. */
enum sc_class {
	SC_OTHER = 0,
	SC_OPEN, /* creates an fd from a path */
	SC_CLOSE,
	SC_READ,  /* reads bytes from an fd */
	SC_WRITE, /* writes bytes to an fd */
	SC_SEEK,
	SC_SYNC,
	SC_META,      /* path or inode metadata: stat, chmod, ... */
	SC_NAMESPACE, /* creates/removes/renames names: mkdir, unlink, rename, link */
	SC_DUP,
	SC_PIPE,  /* creates an fd pair or event fd */
	SC_SYNCH, /* futex, poll, select, epoll waits, sleeps */
	SC_SOCKET,
	SC_MMAP,
	SC_PROCESS, /* clone, fork, exec, exit, wait */
	SC_URING,   /* io_uring: counted, not replayable */
};

struct syscall_info {
	const char *name;
	int nr; /* x86_64 number */
	uint8_t nargs;
	uint8_t cls;		 /* enum sc_class */
	uint8_t arg[6];		 /* enum sc_arg */
	const char *argname[6];	 /* as in the man page */
	struct iot_sc_desc desc; /* what BPF collects */
};

/* NULL when nr is not one iotrace knows. */
const struct syscall_info *syscall__by_nr(int nr);
const struct syscall_info *syscall__by_name(const char *name);
/* Name for any number: the table's, or "syscall_NNN". Returned buffer is static for unknown. */
const char *syscall__name(int nr);
/* All known syscalls, in table order (grouped as in DESIGN §3). */
const struct syscall_info *syscall__table(unsigned int *n);
/*
 * Writes value v of an argument of kind `kind` (enum sc_arg) into buf the way
 * strace spells it: O_RDONLY|O_CLOEXEC, AF_UNIX, FUTEX_WAIT_PRIVATE, 0644,
 * NULL.  args are the call's six arguments, for kinds whose meaning depends
 * on another (a protocol on its family, fcntl's argument on the command).
 * Kinds that need the record (fd names, path strings, buffers) come out as
 * their numbers.  Returns what snprintf would.
 */
int syscall__decode(char *buf, size_t len, unsigned int kind, uint64_t v, const __u64 *args);
/* The return value as strace prints it: "-1 ENOENT (No such file or
 * directory)", mmap's address in hex, fcntl(F_GETFL)'s flags after it.
 * si may be NULL (an unknown call). */
int syscall__decode_ret(char *buf, size_t len, const struct syscall_info *si, const __u64 *args,
			int64_t ret);
/* Whether strace shows argument i of a call with these arguments: open's mode
 * only when it creates, futex's later arguments only for the ops that read
 * them, fcntl's argument only for the commands that take one. */
int syscall__arg_shown(const struct syscall_info *si, const __u64 *args, unsigned int i);
/* The index of the argument strace prints n-th (clone puts its stack first). */
unsigned int syscall__arg_at(const struct syscall_info *si, unsigned int n);
/* "name" when strace prints an argument as name=value (clone's), else NULL. */
const char *syscall__arg_label(const struct syscall_info *si, unsigned int i);
/* Fills desc[0..IOT_NR_MAX) for the BPF program's read-only data: the calls
 * of none of families (enum iot_family bits) are not traced. */
void syscall__fill_desc(struct iot_sc_desc *desc, uint32_t families);
/* The families (enum iot_family bits) call si belongs to. */
uint32_t syscall__families(const struct syscall_info *si);
/* Parses a --calls list ("file,sync", or "all") into *out; on an unknown
 * family returns -EINVAL with *bad at it (up to the next comma). */
int syscall__parse_families(const char *list, uint32_t *out, const char **bad);
/* Names of the families set in fam, comma-separated, into buf. */
void syscall__format_families(uint32_t fam, char *buf, size_t len);

#endif
