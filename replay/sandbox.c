// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox: every trace path is resolved under --root with openat2's
 * RESOLVE_IN_ROOT, so "/", "..", absolute symlinks and magic links all stay
 * inside it whatever the trace says.  Calls that name a path without opening
 * it (mkdir, unlink, rename, ...) resolve the parent that way and act on the
 * last component with the *at call, which never follows it out.  Without
 * openat2 (kernels before 5.6, valgrind) the same rules are walked by hand
 * (resolve.c); IOTRACE_NO_OPENAT2=1 chooses that walk, so tests cover it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/replay.h"
#include "replay/resolve.h"
#include "replay/run.h"

#define MARKER ".iotrace-replay"

int sb_root_fd[RP_ROOTS_MAX] = { -1, -1, -1, -1, -1, -1, -1, -1 };
const char *sb_root_name[RP_ROOTS_MAX];
unsigned int sb_nroots;

/* Open flags openat2 accepts; anything else in a crafted trace is dropped. */
#define SB_OPEN_FLAGS                                                                          \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_DSYNC | \
	 O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |  \
	 O_PATH | O_TMPFILE)

bool sandbox__host_dev(const char *path)
{
	return !strcmp(path, "/dev/null") || !strcmp(path, "/dev/zero") ||
	       !strcmp(path, "/dev/urandom") || !strcmp(path, "/dev/random");
}

/* -1 not known yet, 0 missing (or IOTRACE_NO_OPENAT2 set), 1 there */
static int have_openat2 = -1;

int sandbox__open_in(unsigned int root, const char *path, int flags, int mode)
{
	struct open_how how = {
		.flags = (flags & SB_OPEN_FLAGS) | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (flags & (O_CREAT | __O_TMPFILE))
		how.mode = mode & 07777;
	if (__atomic_load_n(&have_openat2, __ATOMIC_RELAXED) < 0) {
		const char *no = getenv("IOTRACE_NO_OPENAT2");

		__atomic_store_n(&have_openat2, !(no && *no && strcmp(no, "0")), __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&have_openat2, __ATOMIC_RELAXED)) {
		fd = syscall(SYS_openat2, sb_root_fd[root], path, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : (int)fd;
		__atomic_store_n(&have_openat2, 0, __ATOMIC_RELAXED);
	}
	return resolve__open_in_root(sb_root_fd[root], path, how.flags, how.mode);
}

/* The parent of PATH opened O_PATH inside the root; *last is its last
 * component, in BUF (PATH_MAX bytes).  "." and ".." are refused as last
 * components: acting on them relative to the parent could name the root's
 * own parent. */
int sandbox__parent(unsigned int root, const char *path, char *buf, const char **last)
{
	size_t n = strlen(path);
	char *s;

	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	s = strrchr(buf, '/');
	*last = s ? s + 1 : buf;
	if (!**last || !strcmp(*last, ".") || !strcmp(*last, ".."))
		return -EINVAL;
	if (!s)
		return sandbox__open_in(root, "/", O_PATH | O_DIRECTORY, 0);
	*s = '\0';
	return sandbox__open_in(root, s == buf ? "/" : buf, O_PATH | O_DIRECTORY, 0);
}

static int sandbox_mkdir_p(const char *root)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s/", root) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

static int sandbox_probe(int rfd)
{
	int fd = openat(rfd, ".iotrace-probe", O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return unlinkat(rfd, ".iotrace-probe", 0) ? -errno : 0;
}

static bool sandbox_empty(int rfd)
{
	int fd = openat(rfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	bool empty = true;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

static int sandbox_marker(int rfd, const char *name, const struct rp_plan *p)
{
	char want[128], got[128] = "";
	int fd = openat(rfd, MARKER, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	snprintf(want, sizeof(want), "iotrace replay root: clock_start_ns=%lld events=%u\n",
		 (long long)p->clock_start, p->nops);
	if (fd >= 0) {
		n = read(fd, got, sizeof(got) - 1);
		close(fd);
		got[n > 0 ? n : 0] = '\0';
		if (strcmp(got, want)) {
			err("%s: root was prepared for a different trace; use another root "
			    "or empty it",
			    name);
			return -EEXIST;
		}
		return 0;
	}
	if (!sandbox_empty(rfd)) {
		err("%s: root is not empty and was not prepared by iotrace replay", name);
		return -EEXIST;
	}
	fd = openat(rfd, MARKER, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, want, strlen(want)) != (ssize_t)strlen(want)) {
		err("%s: cannot write %s: %s", name, MARKER, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* Opens ROOT as sandbox root number k: writable, and empty or prepared for
 * this trace. */
static int sandbox_open_one(unsigned int k, const char *root, const struct rp_plan *p)
{
	int err;

	sb_root_fd[k] = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb_root_fd[k] < 0) {
		err = -errno;
		err("%s: %s", root, strerror(errno));
		return err;
	}
	err = sandbox_probe(sb_root_fd[k]);
	if (err) {
		err("%s: root is not writable: %s", root, strerror(-err));
		return err;
	}
	return sandbox_marker(sb_root_fd[k], root, p);
}

/* Whether directory A is B or lies below it. */
static bool sandbox_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return !strncmp(a, b, n) && (a[n] == '/' || a[n] == '\0' || (n == 1 && b[0] == '/'));
}

/* Roots may not nest: preparing one would remove the other as a stray. */
static int sandbox_apart(unsigned int n)
{
	char *real[RP_ROOTS_MAX] = { 0 };
	int err = 0;

	for (unsigned int k = 0; k < n && !err; k++) {
		real[k] = realpath(sb_root_name[k], NULL);
		if (!real[k]) {
			err = -errno;
			err("%s: %s", sb_root_name[k], strerror(errno));
		}
		for (unsigned int j = 0; j < k && !err; j++)
			if (sandbox_within(real[k], real[j]) || sandbox_within(real[j], real[k])) {
				err("%s and %s: sandbox roots must not contain each other",
				    sb_root_name[j], sb_root_name[k]);
				err = -EINVAL;
			}
	}
	for (unsigned int k = 0; k < n; k++)
		free(real[k]);
	return err;
}

int sandbox__open(const struct rp_opts *o, const struct rp_plan *p)
{
	int err = 0;

	sb_nroots = 1 + o->ndevroot;
	for (unsigned int k = 0; k < sb_nroots && !err; k++) {
		sb_root_name[k] = rp_opts__root(o, k);
		err = sandbox_mkdir_p(sb_root_name[k]);
		if (err)
			err("%s: cannot create the root: %s", sb_root_name[k], strerror(-err));
	}
	if (!err)
		err = sandbox_apart(sb_nroots);
	for (unsigned int k = 0; k < sb_nroots && !err; k++)
		err = sandbox_open_one(k, sb_root_name[k], p);
	return err;
}

void sandbox__close(void)
{
	for (unsigned int k = 0; k < RP_ROOTS_MAX; k++) {
		if (sb_root_fd[k] >= 0)
			close(sb_root_fd[k]);
		sb_root_fd[k] = -1;
	}
}
