// SPDX-License-Identifier: GPL-2.0
/*
 * Brings the root to the trace's initial state: removes what a previous
 * replay left (anything not in the initial state), then creates the missing
 * directories, symlinks and files.  Files are written densely with real
 * bytes so that reads reach the device as they did in the original; a file
 * already there with the right size and no holes is kept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/graph.h"
#include "replay/replay.h"
#include "replay/run.h"

#define FILL_CHUNK (1u << 20)

static uint64_t prep_written; /* file data written, bytes */

/* Whether the entry st at f's path is f, in root k: directories are in every
 * root that needs them, files in their own. */
static bool prep_keep(const struct rp_file *f, unsigned int k, const struct stat *st)
{
	if (!f || (f->type != 'd' && f->root != k))
		return false;
	if (f->type == 'd')
		return S_ISDIR(st->st_mode);
	if (f->type == 'l')
		return S_ISLNK(st->st_mode);
	return S_ISREG(st->st_mode);
}

static int prep_clean_dir(const struct rp_plan *p, unsigned int k, int dfd, const char *prefix,
			  bool all);

static int prep_clean_entry(const struct rp_plan *p, unsigned int k, int dfd, const char *prefix,
			    const char *name, bool all)
{
	char path[4096];
	struct stat st;
	const struct rp_file *f;
	bool keep;
	int sub, err = 0;

	if (snprintf(path, sizeof(path), "%s/%s", prefix, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	f = all ? NULL : graph__file(p, path);
	keep = prep_keep(f, k, &st);
	if (S_ISDIR(st.st_mode)) {
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			return -errno;
		err = prep_clean_dir(p, k, sub, path, !keep);
		close(sub);
	}
	if (!err && !keep && unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0))
		err = -errno;
	return err;
}

/* Removes what is not root k's part of the initial state below dfd
 * (everything when ALL). */
static int prep_clean_dir(const struct rp_plan *p, unsigned int k, int dfd, const char *prefix,
			  bool all)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int err = 0;

	if (!d)
		return fd < 0 ? -errno : (close(fd), -ENOMEM);
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!*prefix && !strcmp(e->d_name, ".iotrace-replay"))
			continue;
		err = prep_clean_entry(p, k, dfd, prefix, e->d_name, all);
	}
	closedir(d);
	return err;
}

/*
 * File data.  Never zero (some filesystems elide zero pages), and no two
 * blocks alike: a storage stack that compresses or deduplicates (a VM's disk
 * image, a thin volume, btrfs with compress=) stores a repeated block once
 * and would serve the replay's reads faster than the application's, whose
 * data the trace does not hold.  xorshift64, seeded by the file and the
 * offset: a few GB/s, far faster than the writes.
 */
static void prep_data(uint64_t *chunk, size_t n, uint64_t seed)
{
	uint64_t x = (seed * 0x9e3779b97f4a7c15ull) | 1;

	for (size_t i = 0; i < n / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		chunk[i] = x;
	}
}

static int prep_fill(int fd, uint64_t ino, uint64_t from, uint64_t to)
{
	static uint64_t *chunk;

	if (!chunk) {
		chunk = malloc(FILL_CHUNK);
		if (!chunk)
			return -ENOMEM;
	}
	while (from < to) {
		size_t n = to - from < FILL_CHUNK ? to - from : FILL_CHUNK;
		ssize_t w;

		/* only what is written: a small file costs no 1 MiB of data */
		prep_data(chunk, (n + 7) & ~(size_t)7, ino ^ (from * 0xff51afd7ed558ccdull));
		w = pwrite(fd, chunk, n, from);
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		from += w;
		prep_written += w;
	}
	return 0;
}

static int prep_file(int pfd, const char *last, const struct rp_file *f)
{
	int fd = openat(pfd, last, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;
	int err = 0;

	if (fd < 0)
		return -errno;
	/* a previous replay may have changed these: back to the initial state */
	if (fchmod(fd, 0644) || fchown(fd, geteuid(), getegid())) {
		close(fd);
		return -errno;
	}
	if (fstat(fd, &st)) {
		err = -errno;
	} else if ((uint64_t)st.st_size > f->size) {
		if (ftruncate(fd, f->size))
			err = -errno;
	} else if ((uint64_t)st.st_blocks * 512 + 4096 < (uint64_t)st.st_size) {
		err = prep_fill(fd, st.st_ino, 0, f->size); /* sparse: a run was cut short */
	} else {
		err = prep_fill(fd, st.st_ino, st.st_size, f->size);
	}
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

static int prep_symlink(int pfd, const char *last, const char *target)
{
	char cur[4096];
	ssize_t n = readlinkat(pfd, last, cur, sizeof(cur) - 1);

	if (n >= 0) {
		cur[n] = '\0';
		if (!strcmp(cur, target))
			return fchownat(pfd, last, geteuid(), getegid(), AT_SYMLINK_NOFOLLOW) ?
				       -errno :
				       0;
		if (unlinkat(pfd, last, 0))
			return -errno;
	}
	return symlinkat(target, pfd, last) ? -errno : 0;
}

/* The directories above PATH in root k, for a file placed there. */
static int prep_parents(unsigned int k, const char *path)
{
	char dir[PATH_MAX], buf[PATH_MAX];
	const char *last;
	int pfd, err = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (char *s = strchr(dir + 1, '/'); s && !err; s = strchr(s + 1, '/')) {
		*s = '\0';
		pfd = sandbox__parent(k, dir, buf, &last);
		if (pfd < 0)
			return pfd;
		if (mkdirat(pfd, last, 0755) && errno != EEXIST)
			err = -errno;
		close(pfd);
		*s = '/';
	}
	return err;
}

static int prep_create(const struct rp_file *f)
{
	char buf[PATH_MAX];
	const char *last;
	int pfd, err = f->root ? prep_parents(f->root, f->path) : 0;

	if (err)
		return err;
	pfd = sandbox__parent(f->root, f->path, buf, &last);

	if (pfd < 0)
		return pfd;
	if (f->type == 'd' && mkdirat(pfd, last, 0755) && errno != EEXIST)
		err = -errno;
	else if (f->type == 'd' && fchmodat(pfd, last, 0755, AT_SYMLINK_NOFOLLOW) &&
		 errno != EOPNOTSUPP)
		err = -errno;
	else if (f->type == 'l')
		err = prep_symlink(pfd, last, f->target);
	else if (f->type == 'f')
		err = prep_file(pfd, last, f);
	close(pfd);
	return err;
}

/*
 * The trace's files by the device they were on and the root they are in
 * now: what a user needs to pick --dev-root.  Devices past the eighth are
 * left out of the list.
 */
struct prep_dev {
	uint32_t dev, n;
	uint8_t root;
	uint64_t bytes;
};

static void prep_devices(const struct rp_plan *p)
{
	struct prep_dev d[8];
	unsigned int nd = 0, k;

	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];

		if (f->type != 'f' || !f->dev)
			continue;
		for (k = 0; k < nd && d[k].dev != f->dev; k++)
			;
		if (k == nd && nd == 8)
			continue;
		if (k == nd)
			d[nd++] = (struct prep_dev){ .dev = f->dev, .root = f->root };
		d[k].n++;
		d[k].bytes += f->size;
	}
	for (k = 0; k < nd; k++)
		info("device %u:%u: %u files, %llu bytes, in %s", major(d[k].dev), minor(d[k].dev),
		     d[k].n, (unsigned long long)d[k].bytes, sb_root_name[d[k].root]);
}

uint64_t prepare__written(void)
{
	return prep_written;
}

int prepare__root(const struct rp_plan *p)
{
	uint64_t bytes[RP_ROOTS_MAX] = { 0 };
	uint32_t n[RP_ROOTS_MAX] = { 0 };
	int err = 0;

	for (unsigned int k = 0; k < sb_nroots && !err; k++) {
		err = prep_clean_dir(p, k, sb_root_fd[k], "", false);
		if (err)
			err("%s: cannot clean the root: %s", sb_root_name[k], strerror(-err));
	}
	for (uint32_t i = 0; i < p->nfiles && !err; i++) {
		const struct rp_file *f = &p->files[i];

		err = prep_create(f);
		if (err) {
			err("%s: cannot create %s: %s", sb_root_name[f->root], f->path,
			    strerror(-err));
			break;
		}
		bytes[f->root] += f->type == 'f' ? f->size : 0;
		n[f->root]++;
	}
	for (unsigned int k = 0; k < sb_nroots && !err; k++)
		info("%s: prepared %u entries, %llu bytes of file data", sb_root_name[k], n[k],
		     (unsigned long long)bytes[k]);
	if (!err)
		prep_devices(p);
	return err;
}

/* An fd the process had before the trace began, opened where it points. */
static int prep_inherit(const struct rp_plan *p, const struct rp_inherit *h, uint8_t *fl)
{
	int fd;

	if (!strcmp(h->type, "file") && h->path && h->path[0] == '/') {
		unsigned int k = graph__root_of(p, h->path);

		fd = sandbox__open_in(k, h->path, O_RDWR, 0);
		if (fd < 0)
			fd = sandbox__open_in(k, h->path, O_RDONLY, 0);
		if (fd >= 0 && h->pos > 0)
			lseek(fd, h->pos, SEEK_SET);
		return fd < 0 ? RP_FD_GONE : fd;
	}
	if (!strcmp(h->type, "dir") && h->path && h->path[0] == '/') {
		fd = sandbox__open_in(0, h->path, O_RDONLY | O_DIRECTORY, 0);
		return fd < 0 ? RP_FD_GONE : fd;
	}
	if (!strcmp(h->type, "chr") && h->path && sandbox__host_dev(h->path)) {
		*fl |= RP_FL_EMUL_WRITE;
		fd = open(h->path, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? RP_FD_SINK : fd;
	}
	/* a terminal, or a pipe or socket to something outside the trace */
	return RP_FD_SINK;
}

int prepare__open_fds(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->npr; i++) {
		struct rp_proc *pr = &p->pr[i];

		pr->fd = malloc((pr->nslot + 1) * sizeof(*pr->fd));
		pr->fdfl = calloc(pr->nslot + 1, sizeof(*pr->fdfl));
		if (!pr->fd || !pr->fdfl)
			return -ENOMEM;
		for (uint32_t k = 0; k <= pr->nslot; k++)
			atomic_init(&pr->fd[k],
				    k < pr->nslot && pr->slot_gone[k] ? RP_FD_GONE : RP_FD_UNSET);
		for (uint32_t k = 0; k < pr->ninh; k++) {
			const struct rp_inherit *h = &pr->inh[k];
			uint8_t fl = 0;

			if (h->slot >= 0 && (uint32_t)h->slot < pr->nslot) {
				atomic_store(&pr->fd[h->slot], prep_inherit(p, h, &fl));
				atomic_store(&pr->fdfl[h->slot], fl);
			}
		}
	}
	return 0;
}
