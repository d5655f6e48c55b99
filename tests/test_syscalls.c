// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall table and the fd-name table: the numbers match the C
 * library's, lookups agree both ways, the BPF descriptors are consistent
 * with the argument kinds, and fd names follow opens, dups, forks and closes.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <CUnit/Basic.h>

#include "lib/fdtable.h"
#include "lib/syscalls.h"

static void test_syscalls__numbers(void)
{
	static const struct { const char *name; int nr; } known[] = {
		{ "read", SYS_read }, { "pwrite64", SYS_pwrite64 }, { "openat", SYS_openat },
		{ "futex", SYS_futex }, { "mmap", SYS_mmap }, { "execve", SYS_execve },
		{ "exit_group", SYS_exit_group }, { "clone3", SYS_clone3 },
		{ "io_uring_enter", SYS_io_uring_enter }, { "renameat2", SYS_renameat2 },
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
	CU_ASSERT_STRING_EQUAL(fdtable__get(t, 11, 3), "/data/a");	/* the child's copy */
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
	{ "fdtable follows fds", test_fdtable__follows_fds },
	CU_TEST_INFO_NULL,
};

#define SUITE "syscalls"
#include "tests/cu_main.h"
