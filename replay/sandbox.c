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

#include "log.h"
#include "replay.h"
#include "rp_resolve.h"
#include "rp_sandbox.h"

#define MARKER ".iotrace-replay"

int sb_root_fd = -1;
const char *sb_root_name;

/* Open flags openat2 accepts; anything else in a crafted trace is dropped. */
#define SB_OPEN_FLAGS                                                                          \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_DSYNC | \
	 O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |  \
	 O_PATH | O_TMPFILE)

bool sb__host_dev(const char *path)
{
	return !strcmp(path, "/dev/null") || !strcmp(path, "/dev/zero") ||
	       !strcmp(path, "/dev/urandom") || !strcmp(path, "/dev/random");
}

/* -1 not known yet, 0 missing (or IOTRACE_NO_OPENAT2 set), 1 there */
static int have_openat2 = -1;

int sb__open(const char *path, int flags, int mode)
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
		fd = syscall(SYS_openat2, sb_root_fd, path, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : (int)fd;
		__atomic_store_n(&have_openat2, 0, __ATOMIC_RELAXED);
	}
	return resolve__open_in_root(sb_root_fd, path, how.flags, how.mode);
}

/* The parent of PATH opened O_PATH inside the root; *last is its last
 * component, in BUF (PATH_MAX bytes).  "." and ".." are refused as last
 * components: acting on them relative to the parent could name the root's
 * own parent. */
int sb__parent(const char *path, char *buf, const char **last)
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
		return sb__open("/", O_PATH | O_DIRECTORY, 0);
	*s = '\0';
	return sb__open(s == buf ? "/" : buf, O_PATH | O_DIRECTORY, 0);
}

static int sandbox__mkdir_p(const char *root)
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

static int sandbox__probe(void)
{
	int fd = openat(sb_root_fd, ".iotrace-probe", O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC,
			0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return unlinkat(sb_root_fd, ".iotrace-probe", 0) ? -errno : 0;
}

static bool sandbox__empty(void)
{
	int fd = openat(sb_root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

static int sandbox__marker(const struct rp_plan *p, bool *fresh)
{
	char want[128], got[128] = "";
	int fd = openat(sb_root_fd, MARKER, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	snprintf(want, sizeof(want), "iotrace replay root: clock_start_ns=%lld events=%u\n",
		 (long long)p->clock_start, p->nops);
	*fresh = fd < 0;
	if (fd >= 0) {
		n = read(fd, got, sizeof(got) - 1);
		close(fd);
		got[n > 0 ? n : 0] = '\0';
		if (strcmp(got, want)) {
			err("%s: root was prepared for a different trace; use another root "
			    "or empty it",
			    sb_root_name);
			return -EEXIST;
		}
		return 0;
	}
	if (!sandbox__empty()) {
		err("%s: root is not empty and was not prepared by iotrace replay", sb_root_name);
		return -EEXIST;
	}
	fd = openat(sb_root_fd, MARKER, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, want, strlen(want)) != (ssize_t)strlen(want)) {
		err("%s: cannot write %s: %s", sb_root_name, MARKER, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

int sandbox__open(const char *root, const struct rp_plan *p, bool *fresh)
{
	int err = sandbox__mkdir_p(root);

	sb_root_name = root;
	if (err) {
		err("%s: cannot create the root: %s", root, strerror(-err));
		return err;
	}
	sb_root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb_root_fd < 0) {
		err = -errno;
		err("%s: %s", root, strerror(errno));
		return err;
	}
	err = sandbox__probe();
	if (err) {
		err("%s: root is not writable: %s", root, strerror(-err));
		return err;
	}
	return sandbox__marker(p, fresh);
}

void sandbox__close(void)
{
	if (sb_root_fd >= 0)
		close(sb_root_fd);
	sb_root_fd = -1;
}
