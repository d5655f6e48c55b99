// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall table and the fd-name table: the numbers match the C
 * library's, lookups agree both ways, the BPF descriptors are consistent
 * with the argument kinds, values decode as strace spells them, and fd
 * names follow opens, dups, forks and closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "lib/fdtable.h"
#include "lib/syscalls.h"

static void test_syscalls__numbers(void)
{
	static const struct {
		const char *name;
		int nr;
	} known[] = {
		{ "read", SYS_read },
		{ "pwrite64", SYS_pwrite64 },
		{ "openat", SYS_openat },
		{ "futex", SYS_futex },
		{ "mmap", SYS_mmap },
		{ "execve", SYS_execve },
		{ "exit_group", SYS_exit_group },
		{ "clone3", SYS_clone3 },
		{ "io_uring_enter", SYS_io_uring_enter },
		{ "renameat2", SYS_renameat2 },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct syscall_info *si = syscall__by_name(known[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(si);
		CU_ASSERT_EQUAL(si->nr, known[i].nr);
		CU_ASSERT_PTR_EQUAL(syscall__by_nr(known[i].nr), si);
		CU_ASSERT_STRING_EQUAL(syscall__name(known[i].nr), known[i].name);
	}
	CU_ASSERT_PTR_NULL(syscall__by_nr(-1));
	CU_ASSERT_PTR_NULL(syscall__by_nr(100000));
	CU_ASSERT_PTR_NULL(syscall__by_name("no_such_call"));
}

/* Every entry: unique, named arguments, descriptors that match the kinds. */
static void test_syscalls__table_consistent(void)
{
	unsigned int n;
	const struct syscall_info *t = syscall__table(&n);

	CU_ASSERT(n > 100);
	for (unsigned int i = 0; i < n; i++) {
		const struct syscall_info *si = &t[i];

		CU_ASSERT_PTR_EQUAL(syscall__by_nr(si->nr), si);
		CU_ASSERT(si->nargs <= 6);
		CU_ASSERT(si->desc.flags & IOT_SCD_TRACE);
		for (unsigned int a = 0; a < 6; a++) {
			bool is_fd = si->arg[a] == SA_FD || si->arg[a] == SA_DIRFD;
			bool is_str = si->arg[a] == SA_PATH;

			if (a < si->nargs) {
				CU_ASSERT_PTR_NOT_NULL(si->argname[a]);
			} else {
				CU_ASSERT_EQUAL(si->arg[a], SA_NONE);
			}
			/* an fd argument is identified, a path argument is read */
			CU_ASSERT_EQUAL(!!(si->desc.fd_args & (1u << a)), is_fd);
			CU_ASSERT_EQUAL(!!(si->desc.str_args & (1u << a)), is_str);
		}
		for (unsigned int j = 0; j < i; j++)
			CU_ASSERT(strcmp(t[j].name, si->name) != 0);
	}
}

/* decode KIND V with the call's ARGS, compared with strace's spelling */
#define DECODES(kind, v, args, want)                            \
	do {                                                    \
		char b_[256];                                   \
		syscall__decode(b_, sizeof(b_), kind, v, args); \
		CU_ASSERT_STRING_EQUAL(b_, want);               \
	} while (0)

static void test_syscalls__decode_flags(void)
{
	static const __u64 inet[6] = { AF_INET }, unix_[6] = { AF_UNIX };

	DECODES(SA_OFLAGS, O_RDONLY | O_CLOEXEC, NULL, "O_RDONLY|O_CLOEXEC");
	DECODES(SA_OFLAGS, O_WRONLY | O_CREAT | O_TRUNC, NULL, "O_WRONLY|O_CREAT|O_TRUNC");
	DECODES(SA_OFLAGS, O_RDWR | 0100000, NULL, "O_RDWR|O_LARGEFILE");
	DECODES(SA_OFLAGS, O_RDONLY | O_SYNC, NULL, "O_RDONLY|O_SYNC");
	DECODES(SA_OFLAGS, O_RDONLY | 0x40000000, NULL, "O_RDONLY|0x40000000");
	DECODES(SA_FDFLAGS, 0, NULL, "0");
	DECODES(SA_FDFLAGS, O_CLOEXEC | O_NONBLOCK, NULL, "O_NONBLOCK|O_CLOEXEC");
	DECODES(SA_PROT, 0, NULL, "PROT_NONE");
	DECODES(SA_PROT, PROT_READ | PROT_EXEC, NULL, "PROT_READ|PROT_EXEC");
	DECODES(SA_MFLAGS, MAP_PRIVATE | MAP_ANONYMOUS, NULL, "MAP_PRIVATE|MAP_ANONYMOUS");
	DECODES(SA_MFLAGS, MAP_SHARED | MAP_FIXED, NULL, "MAP_SHARED|MAP_FIXED");
	DECODES(SA_SOCKFAM, AF_UNIX, NULL, "AF_UNIX");
	DECODES(SA_SOCKTYPE, SOCK_STREAM | SOCK_CLOEXEC, NULL, "SOCK_STREAM|SOCK_CLOEXEC");
	DECODES(SA_SOCKTYPE, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NULL,
		"SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC");
	/* a protocol reads by its family */
	DECODES(SA_SOCKPROTO, IPPROTO_TCP, inet, "IPPROTO_TCP");
	DECODES(SA_SOCKPROTO, 0, inet, "IPPROTO_IP");
	DECODES(SA_SOCKPROTO, 0, unix_, "0");
	DECODES(SA_CLONE_FLAGS, CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD, NULL,
		"CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	DECODES(SA_CLONE_FLAGS, CLONE_VM | CLONE_THREAD, NULL, "CLONE_VM|CLONE_THREAD");
	DECODES(SA_ATFLAGS, 0, NULL, "0");
	DECODES(SA_ATFLAGS, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, NULL,
		"AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH");
	DECODES(SA_ACCESS, F_OK, NULL, "F_OK");
	DECODES(SA_ACCESS, R_OK | X_OK, NULL, "R_OK|X_OK");
	DECODES(SA_MSGFLAGS, MSG_NOSIGNAL | MSG_DONTWAIT, NULL, "MSG_DONTWAIT|MSG_NOSIGNAL");
}

static void test_syscalls__decode_constants(void)
{
	static const __u64 setfl[6] = { 3, F_SETFL }, setfd[6] = { 3, F_SETFD };
	static const __u64 wait[6] = { 0, FUTEX_WAIT_PRIVATE }, req[6] = { 0, FUTEX_CMP_REQUEUE };

	DECODES(SA_DIRFD, (__u64)(__s64)AT_FDCWD, NULL, "AT_FDCWD");
	DECODES(SA_DIRFD, 5, NULL, "5");
	DECODES(SA_FUTEX_OP, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, NULL, "FUTEX_WAIT_PRIVATE");
	DECODES(SA_FUTEX_OP, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, NULL,
		"FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME");
	DECODES(SA_FUTEX_OP, FUTEX_WAKE, NULL, "FUTEX_WAKE");
	DECODES(SA_FUTEX_VAL2, 0, wait, "NULL");
	DECODES(SA_FUTEX_VAL2, 7, req, "7");
	DECODES(SA_FUTEX_VAL3, FUTEX_BITSET_MATCH_ANY, NULL, "FUTEX_BITSET_MATCH_ANY");
	DECODES(SA_WHENCE, SEEK_END, NULL, "SEEK_END");
	DECODES(SA_WHENCE, 99, NULL, "99");
	DECODES(SA_FCNTL_CMD, F_GETFL, NULL, "F_GETFL");
	DECODES(SA_FCNTL_CMD, F_DUPFD_CLOEXEC, NULL, "F_DUPFD_CLOEXEC");
	DECODES(SA_FCNTL_ARG, O_NONBLOCK | O_RDWR, setfl, "O_RDWR|O_NONBLOCK");
	DECODES(SA_FCNTL_ARG, FD_CLOEXEC, setfd, "FD_CLOEXEC");
	DECODES(SA_MODE, 0644, NULL, "0644");
	DECODES(SA_MODE, 0, NULL, "000");
	DECODES(SA_ADDR, 0, NULL, "NULL");
	DECODES(SA_ADDR, 0x7f0000001000ull, NULL, "0x7f0000001000");
	DECODES(SA_INT, 0xffffffffull, NULL, "-1"); /* the int the kernel reads */
	DECODES(SA_OFF, 1ull << 40, NULL, "1099511627776");
	DECODES(SA_FADVICE, POSIX_FADV_DONTNEED, NULL, "POSIX_FADV_DONTNEED");
	DECODES(SA_EPOLL_OP, EPOLL_CTL_MOD, NULL, "EPOLL_CTL_MOD");
	DECODES(SA_CLOCKID, CLOCK_MONOTONIC, NULL, "CLOCK_MONOTONIC");
	DECODES(SA_SHUT_HOW, SHUT_RDWR, NULL, "SHUT_RDWR");
}

static void test_syscalls__decode_ret(void)
{
	const struct syscall_info *fcntl_ = syscall__by_name("fcntl");
	const struct syscall_info *mmap_ = syscall__by_name("mmap");
	const struct syscall_info *read_ = syscall__by_name("read");
	static const __u64 getfl[6] = { 3, F_GETFL }, getfd[6] = { 3, F_GETFD };
	char b[256];

	syscall__decode_ret(b, sizeof(b), read_, NULL, -ENOENT);
	CU_ASSERT_STRING_EQUAL(b, "-1 ENOENT (No such file or directory)");
	syscall__decode_ret(b, sizeof(b), NULL, NULL, -EAGAIN);
	CU_ASSERT_STRING_EQUAL(b, "-1 EAGAIN (Resource temporarily unavailable)");
	syscall__decode_ret(b, sizeof(b), read_, NULL, -512);
	CU_ASSERT_STRING_EQUAL(b, "? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	syscall__decode_ret(b, sizeof(b), read_, NULL, 4096);
	CU_ASSERT_STRING_EQUAL(b, "4096");
	syscall__decode_ret(b, sizeof(b), mmap_, NULL, 0x7f0000001000ll);
	CU_ASSERT_STRING_EQUAL(b, "0x7f0000001000");
	syscall__decode_ret(b, sizeof(b), fcntl_, getfl, O_WRONLY | 0100000);
	CU_ASSERT_STRING_EQUAL(b, "0x8001 (flags O_WRONLY|O_LARGEFILE)");
	syscall__decode_ret(b, sizeof(b), fcntl_, getfd, FD_CLOEXEC);
	CU_ASSERT_STRING_EQUAL(b, "0x1 (flags FD_CLOEXEC)");
	/* a short buffer still gets a terminated prefix */
	syscall__decode_ret(b, 5, read_, NULL, -ENOENT);
	CU_ASSERT_STRING_EQUAL(b, "-1 E");
}

/* strace leaves out what a call does not read: open's mode, futex's tail, fcntl's argument. */
static void test_syscalls__args_shown(void)
{
	const struct syscall_info *openat = syscall__by_name("openat");
	const struct syscall_info *futex = syscall__by_name("futex");
	const struct syscall_info *fcntl_ = syscall__by_name("fcntl");
	const __u64 rd[6] = { 0, 0, O_RDONLY }, cr[6] = { 0, 0, O_WRONLY | O_CREAT, 0644 };
	const __u64 tmp[6] = { 0, 0, O_RDWR | O_TMPFILE, 0600 };
	const __u64 wake[6] = { 0, FUTEX_WAKE_PRIVATE, 1 }, wait[6] = { 0, FUTEX_WAIT, 1 };
	const __u64 bits[6] = { 0, FUTEX_WAIT_BITSET, 1 }, getfl[6] = { 3, F_GETFL };
	const __u64 setfl[6] = { 3, F_SETFL };

	CU_ASSERT_FALSE(syscall__arg_shown(openat, rd, 3));
	CU_ASSERT_TRUE(syscall__arg_shown(openat, cr, 3));
	CU_ASSERT_TRUE(syscall__arg_shown(openat, tmp, 3));
	CU_ASSERT_TRUE(syscall__arg_shown(futex, wake, 2));
	CU_ASSERT_FALSE(syscall__arg_shown(futex, wake, 3));
	CU_ASSERT_TRUE(syscall__arg_shown(futex, wait, 3));
	CU_ASSERT_FALSE(syscall__arg_shown(futex, wait, 4));
	CU_ASSERT_FALSE(syscall__arg_shown(futex, wait, 5));
	CU_ASSERT_FALSE(syscall__arg_shown(futex, bits, 4));
	CU_ASSERT_TRUE(syscall__arg_shown(futex, bits, 5));
	CU_ASSERT_FALSE(syscall__arg_shown(fcntl_, getfl, 2));
	CU_ASSERT_TRUE(syscall__arg_shown(fcntl_, setfl, 2));
	CU_ASSERT_FALSE(syscall__arg_shown(fcntl_, setfl, 3));
}

/* clone as strace prints it: child_stack=, flags=, then the pointers its flags use. */
static void test_syscalls__clone_order(void)
{
	static const char *const want[] = { "child_stack", "flags", "parent_tid", "tls",
					    "child_tidptr" };
	const struct syscall_info *clone_ = syscall__by_name("clone");
	const struct syscall_info *pread = syscall__by_name("pread64");
	const __u64 fork_[6] = { CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD };
	const __u64 thread[6] = { CLONE_VM | CLONE_SETTLS | CLONE_PARENT_SETTID };

	for (unsigned int n = 0; n < 5; n++)
		CU_ASSERT_STRING_EQUAL(syscall__arg_label(clone_, syscall__arg_at(clone_, n)),
				       want[n]);
	for (unsigned int n = 0; n < 4; n++) {
		CU_ASSERT_EQUAL(syscall__arg_at(pread, n), n);
		CU_ASSERT_PTR_NULL(syscall__arg_label(pread, n));
	}
	CU_ASSERT_FALSE(syscall__arg_shown(clone_, fork_, 2)); /* parent_tid */
	CU_ASSERT_TRUE(syscall__arg_shown(clone_, fork_, 3));  /* child_tidptr */
	CU_ASSERT_FALSE(syscall__arg_shown(clone_, fork_, 4)); /* tls */
	CU_ASSERT_TRUE(syscall__arg_shown(clone_, thread, 2));
	CU_ASSERT_FALSE(syscall__arg_shown(clone_, thread, 3));
	CU_ASSERT_TRUE(syscall__arg_shown(clone_, thread, 4));
}

/* --calls: names parse, proc is always on, and the kernel filter keeps a
 * call exactly when one of its families is chosen. */
static void test_syscalls__families(void)
{
	struct iot_sc_desc desc[IOT_NR_MAX];
	const struct syscall_info *t;
	const char *bad = NULL;
	unsigned int n;
	char buf[64];
	uint32_t fam;

	CU_ASSERT_EQUAL(syscall__parse_families("file,sync", &fam, &bad), 0);
	CU_ASSERT_EQUAL(fam, IOT_FAM_FILE | IOT_FAM_SYNC | IOT_FAM_PROC);
	CU_ASSERT_EQUAL(syscall__parse_families("all", &fam, &bad), 0);
	CU_ASSERT_EQUAL(fam, IOT_FAM_ALL);
	CU_ASSERT_EQUAL(syscall__parse_families("net,disk", &fam, &bad), -EINVAL);
	CU_ASSERT_STRING_EQUAL(bad, "disk");
	CU_ASSERT_EQUAL(syscall__parse_families("file,", &fam, &bad), -EINVAL);
	CU_ASSERT_EQUAL(syscall__parse_families("", &fam, &bad), -EINVAL);
	CU_ASSERT_EQUAL(syscall__parse_families("files", &fam, &bad), -EINVAL);
	syscall__format_families(IOT_FAM_NET | IOT_FAM_MEM, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "net,mem");

	syscall__fill_desc(desc, IOT_FAM_SYNC);
	CU_ASSERT_TRUE(desc[SYS_fsync].flags & IOT_SCD_TRACE);
	CU_ASSERT_TRUE(desc[SYS_clone].flags & IOT_SCD_TRACE); /* proc: always */
	CU_ASSERT_FALSE(desc[SYS_openat].flags & IOT_SCD_TRACE);
	CU_ASSERT_FALSE(desc[SYS_read].flags & IOT_SCD_TRACE);
	CU_ASSERT_TRUE(desc[SYS_openat].flags & IOT_SCD_RET_FD); /* only TRACE goes */
	syscall__fill_desc(desc, IOT_FAM_NET);
	CU_ASSERT_TRUE(desc[SYS_read].flags & IOT_SCD_TRACE); /* fd calls: any fd family */
	CU_ASSERT_TRUE(desc[SYS_close].flags & IOT_SCD_TRACE);
	CU_ASSERT_TRUE(desc[SYS_epoll_wait].flags & IOT_SCD_TRACE);
	CU_ASSERT_TRUE(desc[SYS_sendto].flags & IOT_SCD_TRACE);
	CU_ASSERT_FALSE(desc[SYS_futex].flags & IOT_SCD_TRACE);
	CU_ASSERT_FALSE(desc[SYS_pread64].flags & IOT_SCD_TRACE);
	CU_ASSERT_FALSE(desc[SYS_mmap].flags & IOT_SCD_TRACE);
	/* every call the table knows is in some family, and all keeps them all */
	syscall__fill_desc(desc, IOT_FAM_ALL);
	t = syscall__table(&n);
	for (unsigned int i = 0; i < n; i++) {
		CU_ASSERT_NOT_EQUAL(syscall__families(&t[i]), 0);
		CU_ASSERT_TRUE(desc[t[i].nr].flags & IOT_SCD_TRACE);
	}
}

static void test_fdtable__follows_fds(void)
{
	struct fdtable *t = fdtable__new();
	char buf[256];

	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(fdtable__set(t, 10, 3, "/data/a"), 0);
	CU_ASSERT_EQUAL(fdtable__set_cwd(t, 10, "/srv"), 0);
	CU_ASSERT_STRING_EQUAL(fdtable__get(t, 10, 3), "/data/a");
	CU_ASSERT_PTR_NULL(fdtable__get(t, 11, 3));
	CU_ASSERT_EQUAL(fdtable__fork(t, 10, 11), 0);
	CU_ASSERT_STRING_EQUAL(fdtable__get(t, 11, 3), "/data/a");
	fdtable__del(t, 10, 3);
	CU_ASSERT_PTR_NULL(fdtable__get(t, 10, 3));
	CU_ASSERT_STRING_EQUAL(fdtable__get(t, 11, 3), "/data/a"); /* the child's copy */
	CU_ASSERT_STRING_EQUAL(fdtable__resolve(t, 11, AT_FDCWD, "log", buf, sizeof(buf)),
			       "/srv/log");
	CU_ASSERT_EQUAL(fdtable__set(t, 11, 4, "/data"), 0);
	CU_ASSERT_STRING_EQUAL(fdtable__resolve(t, 11, 4, "x/y", buf, sizeof(buf)), "/data/x/y");
	CU_ASSERT_STRING_EQUAL(fdtable__resolve(t, 11, 4, "/abs", buf, sizeof(buf)), "/abs");
	/* unknown base: left relative rather than guessed */
	CU_ASSERT_STRING_EQUAL(fdtable__resolve(t, 11, 9, "rel", buf, sizeof(buf)), "rel");
	fdtable__free(t);
}

static CU_TestInfo tests[] = {
	{ "numbers match <sys/syscall.h>", test_syscalls__numbers },
	{ "table consistent", test_syscalls__table_consistent },
	{ "decode flags", test_syscalls__decode_flags },
	{ "decode constants", test_syscalls__decode_constants },
	{ "decode return values", test_syscalls__decode_ret },
	{ "arguments shown as strace shows them", test_syscalls__args_shown },
	{ "clone in strace's order", test_syscalls__clone_order },
	{ "call families of --calls", test_syscalls__families },
	{ "fdtable follows fds", test_fdtable__follows_fds },
	CU_TEST_INFO_NULL,
};

#define SUITE "syscalls"
#include "tests/cu_main.h"
