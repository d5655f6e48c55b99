// SPDX-License-Identifier: GPL-2.0
/*
 * The syscalls iotrace records.  Numbers come from <sys/syscall.h>, never by
 * hand; argument names are the man pages'.  desc tells the BPF side which
 * arguments are fds (identity read at enter) and paths (read at exit), and
 * what else to collect.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "lib/syscalls.h"

/* A table, three lines an entry, read down its columns: not for clang-format. */
/* clang-format off */
static const struct syscall_info table[] = {
	{ "open", SYS_open, 3, SC_OPEN, { SA_PATH, SA_OFLAGS, SA_OMODE },
	  { "pathname", "flags", "mode" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .str_args = 0x1 } },
	{ "openat", SYS_openat, 4, SC_OPEN, { SA_DIRFD, SA_PATH, SA_OFLAGS, SA_OMODE },
	  { "dirfd", "pathname", "flags", "mode" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x1, .str_args = 0x2 } },
	{ "openat2", SYS_openat2, 4, SC_OPEN, { SA_DIRFD, SA_PATH, SA_PTR, SA_UINT },
	  { "dirfd", "pathname", "how", "size" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x1, .str_args = 0x2 } },
	{ "creat", SYS_creat, 2, SC_OPEN, { SA_PATH, SA_MODE },
	  { "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .str_args = 0x1 } },
	{ "close", SYS_close, 1, SC_CLOSE, { SA_FD },
	  { "fd" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "close_range", SYS_close_range, 3, SC_CLOSE, { SA_UINT, SA_UINT, SA_CLOSE_RANGE },
	  { "first", "last", "flags" },
	  { .flags = IOT_SCD_TRACE } },
	{ "read", SYS_read, 3, SC_READ, { SA_FD, SA_PTR, SA_UINT },
	  { "fd", "buf", "count" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO, .fd_args = 0x1 } },
	{ "write", SYS_write, 3, SC_WRITE, { SA_FD, SA_PTR, SA_UINT },
	  { "fd", "buf", "count" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "pread64", SYS_pread64, 4, SC_READ, { SA_FD, SA_PTR, SA_UINT, SA_OFF },
	  { "fd", "buf", "count", "offset" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "pwrite64", SYS_pwrite64, 4, SC_WRITE, { SA_FD, SA_PTR, SA_UINT, SA_OFF },
	  { "fd", "buf", "count", "offset" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "readv", SYS_readv, 3, SC_READ, { SA_FD, SA_PTR, SA_INT },
	  { "fd", "iov", "iovcnt" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO, .fd_args = 0x1 } },
	{ "writev", SYS_writev, 3, SC_WRITE, { SA_FD, SA_PTR, SA_INT },
	  { "fd", "iov", "iovcnt" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "preadv", SYS_preadv, 5, SC_READ, { SA_FD, SA_PTR, SA_INT, SA_INT, SA_INT },
	  { "fd", "iov", "iovcnt", "pos_l", "pos_h" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "pwritev", SYS_pwritev, 5, SC_WRITE, { SA_FD, SA_PTR, SA_INT, SA_INT, SA_INT },
	  { "fd", "iov", "iovcnt", "pos_l", "pos_h" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "preadv2", SYS_preadv2, 6, SC_READ, { SA_FD, SA_PTR, SA_INT, SA_INT, SA_INT, SA_HEX },
	  { "fd", "iov", "iovcnt", "pos_l", "pos_h", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "pwritev2", SYS_pwritev2, 6, SC_WRITE, { SA_FD, SA_PTR, SA_INT, SA_INT, SA_INT, SA_HEX },
	  { "fd", "iov", "iovcnt", "pos_l", "pos_h", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "lseek", SYS_lseek, 3, SC_SEEK, { SA_FD, SA_OFF, SA_WHENCE },
	  { "fd", "offset", "whence" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fsync", SYS_fsync, 1, SC_SYNC, { SA_FD },
	  { "fd" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fdatasync", SYS_fdatasync, 1, SC_SYNC, { SA_FD },
	  { "fd" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "sync", SYS_sync, 0, SC_SYNC, { 0 },
	  { 0 },
	  { .flags = IOT_SCD_TRACE } },
	{ "syncfs", SYS_syncfs, 1, SC_SYNC, { SA_FD },
	  { "fd" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "sync_file_range", SYS_sync_file_range, 4, SC_SYNC, { SA_FD, SA_OFF, SA_UINT, SA_HEX },
	  { "fd", "offset", "nbytes", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "truncate", SYS_truncate, 2, SC_WRITE, { SA_PATH, SA_OFF },
	  { "path", "length" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "ftruncate", SYS_ftruncate, 2, SC_WRITE, { SA_FD, SA_OFF },
	  { "fd", "length" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fallocate", SYS_fallocate, 4, SC_WRITE, { SA_FD, SA_FALLOC, SA_OFF, SA_OFF },
	  { "fd", "mode", "offset", "len" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fadvise64", SYS_fadvise64, 4, SC_OTHER, { SA_FD, SA_OFF, SA_OFF, SA_FADVICE },
	  { "fd", "offset", "len", "advice" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "readahead", SYS_readahead, 3, SC_READ, { SA_FD, SA_OFF, SA_UINT },
	  { "fd", "offset", "count" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "sendfile", SYS_sendfile, 4, SC_WRITE, { SA_FD, SA_FD, SA_PTR, SA_UINT },
	  { "out_fd", "in_fd", "offset", "count" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO | IOT_SCD_SEND, .fd_args = 0x3 } },
	{ "copy_file_range", SYS_copy_file_range, 6, SC_WRITE, { SA_FD, SA_PTR, SA_FD, SA_PTR, SA_UINT, SA_HEX },
	  { "fd_in", "off_in", "fd_out", "off_out", "len", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x5 } },
	{ "splice", SYS_splice, 6, SC_WRITE, { SA_FD, SA_PTR, SA_FD, SA_PTR, SA_UINT, SA_HEX },
	  { "fd_in", "off_in", "fd_out", "off_out", "len", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCKIO, .fd_args = 0x5 } },
	{ "tee", SYS_tee, 4, SC_WRITE, { SA_FD, SA_FD, SA_UINT, SA_HEX },
	  { "fd_in", "fd_out", "len", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x3 } },
	{ "stat", SYS_stat, 2, SC_META, { SA_PATH, SA_PTR },
	  { "pathname", "statbuf" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_STAT, .str_args = 0x1, .aux = 1 } },
	{ "fstat", SYS_fstat, 2, SC_META, { SA_FD, SA_PTR },
	  { "fd", "statbuf" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_STAT, .fd_args = 0x1, .aux = 1 } },
	{ "lstat", SYS_lstat, 2, SC_META, { SA_PATH, SA_PTR },
	  { "pathname", "statbuf" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_STAT, .str_args = 0x1, .aux = 1 } },
	{ "newfstatat", SYS_newfstatat, 4, SC_META, { SA_DIRFD, SA_PATH, SA_PTR, SA_ATFLAGS },
	  { "dirfd", "pathname", "statbuf", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_STAT, .fd_args = 0x1, .str_args = 0x2, .aux = 2 } },
	{ "statx", SYS_statx, 5, SC_META, { SA_DIRFD, SA_PATH, SA_ATFLAGS, SA_STATX_MASK, SA_PTR },
	  { "dirfd", "pathname", "flags", "mask", "statxbuf" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_STATX, .fd_args = 0x1, .str_args = 0x2, .aux = 4 } },
	{ "access", SYS_access, 2, SC_META, { SA_PATH, SA_ACCESS },
	  { "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "faccessat", SYS_faccessat, 3, SC_META, { SA_DIRFD, SA_PATH, SA_ACCESS },
	  { "dirfd", "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "faccessat2", SYS_faccessat2, 4, SC_META, { SA_DIRFD, SA_PATH, SA_ACCESS, SA_ATFLAGS },
	  { "dirfd", "pathname", "mode", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "getdents64", SYS_getdents64, 3, SC_READ, { SA_FD, SA_PTR, SA_UINT },
	  { "fd", "dirp", "count" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "mkdir", SYS_mkdir, 2, SC_NAMESPACE, { SA_PATH, SA_MODE },
	  { "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "mkdirat", SYS_mkdirat, 3, SC_NAMESPACE, { SA_DIRFD, SA_PATH, SA_MODE },
	  { "dirfd", "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "rmdir", SYS_rmdir, 1, SC_NAMESPACE, { SA_PATH },
	  { "pathname" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "unlink", SYS_unlink, 1, SC_NAMESPACE, { SA_PATH },
	  { "pathname" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "unlinkat", SYS_unlinkat, 3, SC_NAMESPACE, { SA_DIRFD, SA_PATH, SA_ATFLAGS },
	  { "dirfd", "pathname", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "rename", SYS_rename, 2, SC_NAMESPACE, { SA_PATH, SA_PATH },
	  { "oldpath", "newpath" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "renameat", SYS_renameat, 4, SC_NAMESPACE, { SA_DIRFD, SA_PATH, SA_DIRFD, SA_PATH },
	  { "olddirfd", "oldpath", "newdirfd", "newpath" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x5, .str_args = 0xa } },
	{ "renameat2", SYS_renameat2, 5, SC_NAMESPACE, { SA_DIRFD, SA_PATH, SA_DIRFD, SA_PATH, SA_RENAME },
	  { "olddirfd", "oldpath", "newdirfd", "newpath", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x5, .str_args = 0xa } },
	{ "link", SYS_link, 2, SC_NAMESPACE, { SA_PATH, SA_PATH },
	  { "oldpath", "newpath" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "linkat", SYS_linkat, 5, SC_NAMESPACE, { SA_DIRFD, SA_PATH, SA_DIRFD, SA_PATH, SA_ATFLAGS },
	  { "olddirfd", "oldpath", "newdirfd", "newpath", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x5, .str_args = 0xa } },
	{ "symlink", SYS_symlink, 2, SC_NAMESPACE, { SA_PATH, SA_PATH },
	  { "target", "linkpath" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "symlinkat", SYS_symlinkat, 3, SC_NAMESPACE, { SA_PATH, SA_DIRFD, SA_PATH },
	  { "target", "newdirfd", "linkpath" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x2, .str_args = 0x5 } },
	{ "readlink", SYS_readlink, 3, SC_META, { SA_PATH, SA_PTR, SA_UINT },
	  { "pathname", "buf", "bufsiz" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RESULT, .str_args = 0x1, .res_arg = 1 } },
	{ "readlinkat", SYS_readlinkat, 4, SC_META, { SA_DIRFD, SA_PATH, SA_PTR, SA_UINT },
	  { "dirfd", "pathname", "buf", "bufsiz" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RESULT, .fd_args = 0x1, .str_args = 0x2, .res_arg = 2 } },
	{ "chmod", SYS_chmod, 2, SC_META, { SA_PATH, SA_MODE },
	  { "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "fchmod", SYS_fchmod, 2, SC_META, { SA_FD, SA_MODE },
	  { "fd", "mode" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fchmodat", SYS_fchmodat, 3, SC_META, { SA_DIRFD, SA_PATH, SA_MODE },
	  { "dirfd", "pathname", "mode" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "chown", SYS_chown, 3, SC_META, { SA_PATH, SA_INT, SA_INT },
	  { "pathname", "owner", "group" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "lchown", SYS_lchown, 3, SC_META, { SA_PATH, SA_INT, SA_INT },
	  { "pathname", "owner", "group" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "fchown", SYS_fchown, 3, SC_META, { SA_FD, SA_INT, SA_INT },
	  { "fd", "owner", "group" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fchownat", SYS_fchownat, 5, SC_META, { SA_DIRFD, SA_PATH, SA_INT, SA_INT, SA_ATFLAGS },
	  { "dirfd", "pathname", "owner", "group", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "utimensat", SYS_utimensat, 4, SC_META, { SA_DIRFD, SA_PATH, SA_PTR, SA_ATFLAGS },
	  { "dirfd", "pathname", "times", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "setxattr", SYS_setxattr, 5, SC_META, { SA_PATH, SA_PATH, SA_PTR, SA_UINT, SA_XATTR },
	  { "path", "name", "value", "size", "flags" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "lsetxattr", SYS_lsetxattr, 5, SC_META, { SA_PATH, SA_PATH, SA_PTR, SA_UINT, SA_XATTR },
	  { "path", "name", "value", "size", "flags" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "fsetxattr", SYS_fsetxattr, 5, SC_META, { SA_FD, SA_PATH, SA_PTR, SA_UINT, SA_XATTR },
	  { "fd", "name", "value", "size", "flags" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "getxattr", SYS_getxattr, 4, SC_META, { SA_PATH, SA_PATH, SA_PTR, SA_UINT },
	  { "path", "name", "value", "size" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "lgetxattr", SYS_lgetxattr, 4, SC_META, { SA_PATH, SA_PATH, SA_PTR, SA_UINT },
	  { "path", "name", "value", "size" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "fgetxattr", SYS_fgetxattr, 4, SC_META, { SA_FD, SA_PATH, SA_PTR, SA_UINT },
	  { "fd", "name", "value", "size" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "listxattr", SYS_listxattr, 3, SC_META, { SA_PATH, SA_PTR, SA_UINT },
	  { "path", "list", "size" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "llistxattr", SYS_llistxattr, 3, SC_META, { SA_PATH, SA_PTR, SA_UINT },
	  { "path", "list", "size" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "flistxattr", SYS_flistxattr, 3, SC_META, { SA_FD, SA_PTR, SA_UINT },
	  { "fd", "list", "size" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "removexattr", SYS_removexattr, 2, SC_META, { SA_PATH, SA_PATH },
	  { "path", "name" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "lremovexattr", SYS_lremovexattr, 2, SC_META, { SA_PATH, SA_PATH },
	  { "path", "name" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x3 } },
	{ "fremovexattr", SYS_fremovexattr, 2, SC_META, { SA_FD, SA_PATH },
	  { "fd", "name" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1, .str_args = 0x2 } },
	{ "chdir", SYS_chdir, 1, SC_META, { SA_PATH },
	  { "path" },
	  { .flags = IOT_SCD_TRACE, .str_args = 0x1 } },
	{ "fchdir", SYS_fchdir, 1, SC_META, { SA_FD },
	  { "fd" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "flock", SYS_flock, 2, SC_SYNCH, { SA_FD, SA_FLOCK_OP },
	  { "fd", "operation" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "fcntl", SYS_fcntl, 3, SC_DUP, { SA_FD, SA_FCNTL_CMD, SA_FCNTL_ARG },
	  { "fd", "cmd", "arg" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x1 } },
	{ "dup", SYS_dup, 1, SC_DUP, { SA_FD },
	  { "oldfd" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x1 } },
	{ "dup2", SYS_dup2, 2, SC_DUP, { SA_FD, SA_FD },
	  { "oldfd", "newfd" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x3 } },
	{ "dup3", SYS_dup3, 3, SC_DUP, { SA_FD, SA_FD, SA_FDFLAGS },
	  { "oldfd", "newfd", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD, .fd_args = 0x3 } },
	{ "pipe", SYS_pipe, 1, SC_PIPE, { SA_PTR },
	  { "pipefd" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FDPAIR } },
	{ "pipe2", SYS_pipe2, 2, SC_PIPE, { SA_PTR, SA_FDFLAGS },
	  { "pipefd", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FDPAIR } },
	{ "eventfd", SYS_eventfd, 1, SC_PIPE, { SA_UINT },
	  { "initval" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD } },
	{ "eventfd2", SYS_eventfd2, 2, SC_PIPE, { SA_UINT, SA_EFDFLAGS },
	  { "initval", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD } },
	{ "futex", SYS_futex, 6, SC_SYNCH, { SA_ADDR, SA_FUTEX_OP, SA_INT, SA_FUTEX_VAL2, SA_FUTEX_ADDR2, SA_FUTEX_VAL3 },
	  { "uaddr", "futex_op", "val", "timeout", "uaddr2", "val3" },
	  { .flags = IOT_SCD_TRACE } },
	{ "poll", SYS_poll, 3, SC_SYNCH, { SA_PTR, SA_UINT, SA_INT },
	  { "fds", "nfds", "timeout" },
	  { .flags = IOT_SCD_TRACE } },
	{ "ppoll", SYS_ppoll, 5, SC_SYNCH, { SA_PTR, SA_UINT, SA_PTR, SA_PTR, SA_UINT },
	  { "fds", "nfds", "tmo_p", "sigmask", "sigsetsize" },
	  { .flags = IOT_SCD_TRACE } },
	{ "select", SYS_select, 5, SC_SYNCH, { SA_INT, SA_PTR, SA_PTR, SA_PTR, SA_PTR },
	  { "nfds", "readfds", "writefds", "exceptfds", "timeout" },
	  { .flags = IOT_SCD_TRACE } },
	{ "pselect6", SYS_pselect6, 6, SC_SYNCH, { SA_INT, SA_PTR, SA_PTR, SA_PTR, SA_PTR, SA_PTR },
	  { "nfds", "readfds", "writefds", "exceptfds", "timeout", "sigmask" },
	  { .flags = IOT_SCD_TRACE } },
	{ "epoll_create", SYS_epoll_create, 1, SC_PIPE, { SA_INT },
	  { "size" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD } },
	{ "epoll_create1", SYS_epoll_create1, 1, SC_PIPE, { SA_EPFLAGS },
	  { "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD } },
	{ "epoll_ctl", SYS_epoll_ctl, 4, SC_SYNCH, { SA_FD, SA_EPOLL_OP, SA_FD, SA_PTR },
	  { "epfd", "op", "fd", "event" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x5 } },
	{ "epoll_wait", SYS_epoll_wait, 4, SC_SYNCH, { SA_FD, SA_PTR, SA_INT, SA_INT },
	  { "epfd", "events", "maxevents", "timeout" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "epoll_pwait", SYS_epoll_pwait, 6, SC_SYNCH, { SA_FD, SA_PTR, SA_INT, SA_INT, SA_PTR, SA_UINT },
	  { "epfd", "events", "maxevents", "timeout", "sigmask", "sigsetsize" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "epoll_pwait2", SYS_epoll_pwait2, 6, SC_SYNCH, { SA_FD, SA_PTR, SA_INT, SA_PTR, SA_PTR, SA_UINT },
	  { "epfd", "events", "maxevents", "timeout", "sigmask", "sigsetsize" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "nanosleep", SYS_nanosleep, 2, SC_SYNCH, { SA_PTR, SA_PTR },
	  { "req", "rem" },
	  { .flags = IOT_SCD_TRACE } },
	{ "clock_nanosleep", SYS_clock_nanosleep, 4, SC_SYNCH, { SA_CLOCKID, SA_TIMERFLAGS, SA_PTR, SA_PTR },
	  { "clockid", "flags", "request", "remain" },
	  { .flags = IOT_SCD_TRACE } },
	{ "socket", SYS_socket, 3, SC_SOCKET, { SA_SOCKFAM, SA_SOCKTYPE, SA_SOCKPROTO },
	  { "domain", "type", "protocol" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD | IOT_SCD_SOCK } },
	{ "socketpair", SYS_socketpair, 4, SC_SOCKET, { SA_SOCKFAM, SA_SOCKTYPE, SA_SOCKPROTO, SA_PTR },
	  { "domain", "type", "protocol", "sv" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FDPAIR, .aux = 3 } },
	{ "bind", SYS_bind, 3, SC_SOCKET, { SA_FD, SA_PTR, SA_UINT },
	  { "sockfd", "addr", "addrlen" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "listen", SYS_listen, 2, SC_SOCKET, { SA_FD, SA_INT },
	  { "sockfd", "backlog" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "accept", SYS_accept, 3, SC_SOCKET, { SA_FD, SA_PTR, SA_PTR },
	  { "sockfd", "addr", "addrlen" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "accept4", SYS_accept4, 4, SC_SOCKET, { SA_FD, SA_PTR, SA_PTR, SA_SOCKFLAGS },
	  { "sockfd", "addr", "addrlen", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "connect", SYS_connect, 3, SC_SOCKET, { SA_FD, SA_PTR, SA_UINT },
	  { "sockfd", "addr", "addrlen" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "shutdown", SYS_shutdown, 2, SC_SOCKET, { SA_FD, SA_SHUT_HOW },
	  { "sockfd", "how" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "sendto", SYS_sendto, 6, SC_WRITE, { SA_FD, SA_PTR, SA_UINT, SA_MSGFLAGS, SA_PTR, SA_UINT },
	  { "sockfd", "buf", "len", "flags", "dest_addr", "addrlen" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "recvfrom", SYS_recvfrom, 6, SC_READ, { SA_FD, SA_PTR, SA_UINT, SA_MSGFLAGS, SA_PTR, SA_PTR },
	  { "sockfd", "buf", "len", "flags", "src_addr", "addrlen" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "sendmsg", SYS_sendmsg, 3, SC_WRITE, { SA_FD, SA_PTR, SA_MSGFLAGS },
	  { "sockfd", "msg", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "recvmsg", SYS_recvmsg, 3, SC_READ, { SA_FD, SA_PTR, SA_MSGFLAGS },
	  { "sockfd", "msg", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "sendmmsg", SYS_sendmmsg, 4, SC_WRITE, { SA_FD, SA_PTR, SA_UINT, SA_MSGFLAGS },
	  { "sockfd", "msgvec", "vlen", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK | IOT_SCD_SEND, .fd_args = 0x1 } },
	{ "recvmmsg", SYS_recvmmsg, 5, SC_READ, { SA_FD, SA_PTR, SA_UINT, SA_MSGFLAGS, SA_PTR },
	  { "sockfd", "msgvec", "vlen", "flags", "timeout" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_SOCK, .fd_args = 0x1 } },
	{ "mmap", SYS_mmap, 6, SC_MMAP, { SA_ADDR, SA_UINT, SA_PROT, SA_MFLAGS, SA_FD, SA_HEX },
	  { "addr", "length", "prot", "flags", "fd", "offset" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x10 } },
	{ "munmap", SYS_munmap, 2, SC_MMAP, { SA_ADDR, SA_UINT },
	  { "addr", "length" },
	  { .flags = IOT_SCD_TRACE } },
	{ "mremap", SYS_mremap, 5, SC_MMAP, { SA_ADDR, SA_UINT, SA_UINT, SA_MREMAP, SA_ADDR },
	  { "old_address", "old_size", "new_size", "flags", "new_address" },
	  { .flags = IOT_SCD_TRACE } },
	{ "msync", SYS_msync, 3, SC_MMAP, { SA_ADDR, SA_UINT, SA_MSFLAGS },
	  { "addr", "length", "flags" },
	  { .flags = IOT_SCD_TRACE } },
	{ "madvise", SYS_madvise, 3, SC_MMAP, { SA_ADDR, SA_UINT, SA_MADVICE },
	  { "addr", "length", "advice" },
	  { .flags = IOT_SCD_TRACE } },
	{ "mprotect", SYS_mprotect, 3, SC_MMAP, { SA_ADDR, SA_UINT, SA_PROT },
	  { "addr", "len", "prot" },
	  { .flags = IOT_SCD_TRACE } },
	{ "clone", SYS_clone, 5, SC_PROCESS,
	  { SA_CLONE_FLAGS, SA_CLONE_STACK, SA_CLONE_PTID, SA_CLONE_CTID, SA_CLONE_TLS },
	  { "flags", "stack", "parent_tid", "child_tid", "tls" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FORK } },
	{ "clone3", SYS_clone3, 2, SC_PROCESS, { SA_PTR, SA_UINT },
	  { "cl_args", "size" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FORK } },
	{ "fork", SYS_fork, 0, SC_PROCESS, { 0 },
	  { 0 },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FORK } },
	{ "vfork", SYS_vfork, 0, SC_PROCESS, { 0 },
	  { 0 },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_FORK } },
	{ "execve", SYS_execve, 3, SC_PROCESS, { SA_PATH, SA_ARGV, SA_ENVP },
	  { "pathname", "argv", "envp" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_EXEC, .str_args = 0x1 } },
	{ "execveat", SYS_execveat, 5, SC_PROCESS, { SA_DIRFD, SA_PATH, SA_ARGV, SA_ENVP, SA_ATFLAGS },
	  { "dirfd", "pathname", "argv", "envp", "flags" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_EXEC, .fd_args = 0x1, .str_args = 0x2 } },
	{ "exit", SYS_exit, 1, SC_PROCESS, { SA_INT },
	  { "status" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_NORET } },
	{ "exit_group", SYS_exit_group, 1, SC_PROCESS, { SA_INT },
	  { "status" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_NORET } },
	{ "wait4", SYS_wait4, 4, SC_PROCESS, { SA_INT, SA_PTR, SA_WAITOPTS, SA_PTR },
	  { "pid", "wstatus", "options", "rusage" },
	  { .flags = IOT_SCD_TRACE } },
	{ "waitid", SYS_waitid, 5, SC_PROCESS, { SA_IDTYPE, SA_INT, SA_PTR, SA_WAITOPTS, SA_PTR },
	  { "idtype", "id", "infop", "options", "rusage" },
	  { .flags = IOT_SCD_TRACE } },
	{ "io_uring_setup", SYS_io_uring_setup, 2, SC_URING, { SA_UINT, SA_PTR },
	  { "entries", "p" },
	  { .flags = IOT_SCD_TRACE | IOT_SCD_RET_FD } },
	{ "io_uring_enter", SYS_io_uring_enter, 6, SC_URING, { SA_FD, SA_UINT, SA_UINT, SA_HEX, SA_PTR, SA_UINT },
	  { "fd", "to_submit", "min_complete", "flags", "sig", "sz" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
	{ "io_uring_register", SYS_io_uring_register, 4, SC_URING, { SA_FD, SA_UINT, SA_PTR, SA_UINT },
	  { "fd", "opcode", "arg", "nr_args" },
	  { .flags = IOT_SCD_TRACE, .fd_args = 0x1 } },
};
/* clang-format on */

#define NTABLE (sizeof(table) / sizeof(table[0]))

/* by_nr[nr] = index + 1 into table, 0 when unknown; built on first use */
static unsigned short by_nr[IOT_NR_MAX];

static void index_table(void)
{
	static int done;

	if (done)
		return;
	for (unsigned int i = 0; i < NTABLE; i++)
		if (table[i].nr >= 0 && table[i].nr < IOT_NR_MAX)
			by_nr[table[i].nr] = i + 1;
	done = 1;
}

const struct syscall_info *syscall__by_nr(int nr)
{
	index_table();
	if (nr < 0 || nr >= IOT_NR_MAX || !by_nr[nr])
		return NULL;
	return &table[by_nr[nr] - 1];
}

const struct syscall_info *syscall__by_name(const char *name)
{
	for (unsigned int i = 0; i < NTABLE; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const char *syscall__name(int nr)
{
	static char buf[32];
	const struct syscall_info *si = syscall__by_nr(nr);

	if (si)
		return si->name;
	snprintf(buf, sizeof(buf), "syscall_%d", nr);
	return buf;
}

const struct syscall_info *syscall__table(unsigned int *n)
{
	*n = NTABLE;
	return table;
}

#define FAM_FD (IOT_FAM_FILE | IOT_FAM_NET | IOT_FAM_IPC)

/* Calls whose families are not their class's: fd I/O on any kind of fd is
 * wanted by whoever records that kind. */
static const struct {
	const char *name;
	uint32_t fam;
} family_of_name[] = {
	{ "read", FAM_FD },
	{ "write", FAM_FD },
	{ "readv", FAM_FD },
	{ "writev", FAM_FD },
	{ "recvfrom", IOT_FAM_NET },
	{ "recvmsg", IOT_FAM_NET },
	{ "recvmmsg", IOT_FAM_NET },
	{ "sendto", IOT_FAM_NET },
	{ "sendmsg", IOT_FAM_NET },
	{ "sendmmsg", IOT_FAM_NET },
	{ "sendfile", IOT_FAM_FILE | IOT_FAM_NET },
	{ "splice", FAM_FD },
	{ "tee", IOT_FAM_IPC },
	{ "flock", IOT_FAM_FILE },
	{ "futex", IOT_FAM_IPC },
	{ "nanosleep", IOT_FAM_IPC },
	{ "clock_nanosleep", IOT_FAM_IPC },
	{ "pipe", IOT_FAM_IPC },
	{ "pipe2", IOT_FAM_IPC },
	{ "eventfd", IOT_FAM_IPC },
	{ "eventfd2", IOT_FAM_IPC },
};

static uint32_t family_of_class(unsigned int cls)
{
	switch (cls) {
	case SC_SYNC:
		return IOT_FAM_SYNC;
	case SC_SOCKET:
		return IOT_FAM_NET;
	case SC_PIPE:  /* epoll_create: pipe, eventfd are named above */
	case SC_SYNCH: /* poll, select, epoll: futex and sleeps are named above */
		return IOT_FAM_NET | IOT_FAM_IPC;
	case SC_CLOSE:
	case SC_DUP:
		return FAM_FD;
	case SC_MMAP:
		return IOT_FAM_MEM;
	case SC_PROCESS:
		return IOT_FAM_PROC;
	default: /* open, stat, rename, file reads and writes, seek, io_uring */
		return IOT_FAM_FILE;
	}
}

uint32_t syscall__families(const struct syscall_info *si)
{
	for (size_t i = 0; i < sizeof(family_of_name) / sizeof(family_of_name[0]); i++)
		if (!strcmp(si->name, family_of_name[i].name))
			return family_of_name[i].fam;
	return family_of_class(si->cls);
}

void syscall__fill_desc(struct iot_sc_desc *desc, uint32_t families)
{
	memset(desc, 0, sizeof(*desc) * IOT_NR_MAX);
	for (unsigned int i = 0; i < NTABLE; i++) {
		if (table[i].nr < 0 || table[i].nr >= IOT_NR_MAX)
			continue;
		desc[table[i].nr] = table[i].desc;
		if (!(syscall__families(&table[i]) & (families | IOT_FAM_PROC)))
			desc[table[i].nr].flags &= ~IOT_SCD_TRACE;
	}
}

static const char *const family_names[] = { "file", "sync", "net", "ipc", "mem", "proc" };

int syscall__parse_families(const char *list, uint32_t *out, const char **bad)
{
	const char *p = list;

	*out = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		unsigned int i;

		for (i = 0; i < sizeof(family_names) / sizeof(family_names[0]); i++)
			if (n == strlen(family_names[i]) && !strncmp(p, family_names[i], n))
				break;
		if (i < sizeof(family_names) / sizeof(family_names[0]))
			*out |= 1u << i;
		else if (n == 3 && !strncmp(p, "all", 3))
			*out |= IOT_FAM_ALL;
		else {
			*bad = p;
			return -EINVAL;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	*out |= IOT_FAM_PROC; /* the process tree holds everything else together */
	return 0;
}

void syscall__format_families(uint32_t fam, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (unsigned int i = 0; i < sizeof(family_names) / sizeof(family_names[0]); i++) {
		if (!(fam & (1u << i)) || off >= len)
			continue;
		off += snprintf(buf + off, len - off, "%s%s", off ? "," : "", family_names[i]);
	}
}
