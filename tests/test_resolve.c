// SPDX-License-Identifier: GPL-2.0
/*
 * The hand walk of resolve.c against the kernel's own openat2(RESOLVE_IN_ROOT
 * | RESOLVE_NO_MAGICLINKS): for every path of a tree full of traps, both
 * must open the same inode or fail with the same errno, and neither may
 * reach the file outside the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "replay/resolve.h"

static char top[64]; /* holds root/ and the outside file */
static int root_fd = -1;

static void at(const char *what, int ret)
{
	if (ret)
		fprintf(stderr, "%s: %s\n", what, strerror(errno));
	CU_ASSERT_FATAL(ret == 0);
}

/* top/secret outside; top/root/ with dirs, files and symlinks that try to leave. */
static void make_tree(void)
{
	char p[128];
	int fd;

	strcpy(top, "/tmp/iotrace-resolve.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(top) != NULL);
	snprintf(p, sizeof(p), "%s/secret", top);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/root", top);
	at("mkdir root", mkdir(p, 0755));
	root_fd = open(p, O_PATH | O_DIRECTORY);
	CU_ASSERT_FATAL(root_fd >= 0);
	at("mkdir a", mkdirat(root_fd, "a", 0755));
	at("mkdir a/b", mkdirat(root_fd, "a/b", 0755));
	fd = openat(root_fd, "a/b/f", O_CREAT | O_WRONLY, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	fd = openat(root_fd, "secret", O_CREAT | O_WRONLY, 0644); /* the decoy inside */
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/secret", top);
	at("abs", symlinkat(p, root_fd, "abs"));	     /* absolute, to the outside */
	at("up", symlinkat("../../../..", root_fd, "a/up")); /* climbs past the root */
	at("rel", symlinkat("b/f", root_fd, "a/rel"));
	at("dir", symlinkat("/a/b", root_fd, "dirlink"));
	at("dangling", symlinkat("/a/newfile", root_fd, "dangling"));
	at("loop1", symlinkat("loop2", root_fd, "loop1"));
	at("loop2", symlinkat("loop1", root_fd, "loop2"));
	at("magic", symlinkat("/proc/self/root/etc/passwd", root_fd, "magic"));
}

static void remove_tree(void)
{
	char cmd[128];

	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CU_ASSERT(system(cmd) == 0);
}

static int kernel_open(const char *path, int flags, int mode)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Same inode, or the same errno; closes both. */
static void same(const char *path, int flags)
{
	int k = kernel_open(path, flags, 0644);
	int w = resolve__open_in_root(root_fd, path, flags | O_CLOEXEC, 0644);
	struct stat ks, ws;

	if ((k < 0) != (w < 0) || (k < 0 && k != w))
		fprintf(stderr, "%s (flags %#x): kernel %d, walk %d\n", path, flags, k, w);
	CU_ASSERT_EQUAL(k < 0, w < 0);
	if (k < 0 || w < 0) {
		CU_ASSERT_EQUAL(k, w);
	} else {
		CU_ASSERT(fstat(k, &ks) == 0 && fstat(w, &ws) == 0);
		CU_ASSERT(ks.st_dev == ws.st_dev && ks.st_ino == ws.st_ino);
	}
	if (k >= 0)
		close(k);
	if (w >= 0)
		close(w);
}

static const char *const paths[] = {
	"/",
	"",
	".",
	"..",
	"/..",
	"a",
	"a/",
	"a/b/f",
	"/a/b/f",
	"a/b/f/",
	"a/./b/../b/f",
	"../../a/b/f",
	"abs",
	"/abs",
	"a/up",
	"a/up/secret",
	"a/up/root/secret",
	"a/rel",
	"dirlink",
	"dirlink/f",
	"dirlink/../b/f",
	"dangling",
	"loop1",
	"loop1/x",
	"magic",
	"nothere",
	"a/nothere/f",
	"a/b/f/x",
	"//a//b//f",
};

static void test_resolve__same_as_openat2(void)
{
	static const int flags[] = {
		O_RDONLY,
		O_PATH,
		O_PATH | O_NOFOLLOW,
		O_RDONLY | O_DIRECTORY,
		O_RDONLY | O_NOFOLLOW,
	};

	make_tree();
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
			same(paths[i], flags[j]);
	remove_tree();
}

/* Creation: through a dangling link, O_EXCL on a link, and out-of-root names. */
static void test_resolve__create_stays_inside(void)
{
	char p[128];
	struct stat st;
	int fd;

	make_tree();
	same("a/b/new1", O_CREAT | O_WRONLY);
	same("a/up/new2", O_CREAT | O_WRONLY);
	same("abs", O_CREAT | O_EXCL | O_WRONLY);
	fd = resolve__open_in_root(root_fd, "dangling", O_CREAT | O_WRONLY, 0644);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
	CU_ASSERT(fstatat(root_fd, "a/newfile", &st, 0) == 0);
	fd = resolve__open_in_root(root_fd, "../../escaped", O_CREAT | O_WRONLY, 0644);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
	CU_ASSERT(fstatat(root_fd, "escaped", &st, 0) == 0);
	snprintf(p, sizeof(p), "%s/escaped", top);
	CU_ASSERT(access(p, F_OK) != 0);
	/* the absolute link names top/secret as seen from inside: not there */
	same("abs", O_WRONLY | O_TRUNC);
	same("abs", O_CREAT | O_WRONLY);
	remove_tree();
}

static CU_TestInfo tests[] = {
	{ "same as openat2", test_resolve__same_as_openat2 },
	{ "create stays inside", test_resolve__create_stays_inside },
	CU_TEST_INFO_NULL,
};

#define SUITE "resolve"
#include "tests/cu_main.h"
