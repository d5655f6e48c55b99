// SPDX-License-Identifier: GPL-2.0
/*
 * Between the preparation and the timed phase: every root's file system made
 * durable, and the device --root measures left with nothing in flight, so
 * the first timed calls neither queue behind the preparation's writeback nor
 * find it competing with them for the device (issue 21).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/replay.h"

#define SETTLE_POLL_US 1000
/* A device kept busy by someone else is not waited out longer than this */
#define SETTLE_MAX_NS 5000000000ull

struct blk_sample {
	uint64_t ios;	   /* completed reads, writes, discards and flushes */
	uint64_t written;  /* sectors written */
	uint64_t inflight; /* requests issued to the driver, not completed */
};

/* One read of /sys/dev/block/MAJ:MIN/stat (Documentation/block/stat.rst). */
static int blk_sample__read(dev_t dev, struct blk_sample *s)
{
	unsigned long long v[17] = { 0 };
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (n = 0; n < 17 && fscanf(f, "%llu", &v[n]) == 1; n++)
		;
	fclose(f);
	if (n < 11)
		return -EINVAL;
	s->ios = v[0] + v[4] + v[11] + v[15];
	s->written = v[6];
	s->inflight = v[8];
	return 0;
}

/* MNT, a mount point as mountinfo writes it, holds PATH (both absolute). */
static size_t settle__under(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return 1;
	return !strncmp(mnt, path, n) && (path[n] == '/' || !path[n]) ? n : 0;
}

/*
 * The block device under a file system whose st_dev is anonymous (btrfs,
 * which gives every subvolume its own): the source of the innermost mount
 * holding ROOT, when that is a block device.  tmpfs and the like have none.
 * Only the device named at mount time is found, which for a btrfs on
 * several devices is one of them.
 */
static int settle__anon_dev(const char *root, dev_t *dev)
{
	char path[4096], line[8192], mnt[4096], src[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t best = 0, n;
	struct stat st;
	int found = -ENODEV;

	if (!f)
		return -errno;
	if (!realpath(root, path))
		path[0] = '\0';
	while (path[0] && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		n = settle__under(mnt, path);
		if (n && n >= best) { /* the last of stacked mounts is the visible one */
			best = n;
			found = !stat(src, &st) && S_ISBLK(st.st_mode) ? 0 : -ENODEV;
			if (!found)
				*dev = st.st_rdev;
		}
	}
	fclose(f);
	return found;
}

/*
 * The device whose queue the root's I/O goes through.  A loop device is
 * taken as it is: its requests complete only once the backing file's I/O
 * has, and the backing file's device is the whole system's, never quiet.
 */
static int settle__device(const char *root, dev_t *dev)
{
	struct blk_sample s;
	struct stat st;

	if (stat(root, &st))
		return -errno;
	*dev = st.st_dev;
	if (!blk_sample__read(*dev, &s))
		return 0;
	return settle__anon_dev(root, dev);
}

static int settle__syncfs(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0 || syncfs(fd))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err)
		err("replay: cannot write %s to storage (syncfs): %s", root, strerror(-err));
	return err;
}

/*
 * Poll DEV until it has no request in flight.  The syncfs waited for the
 * root's own writes; what may still be in flight is what it does not wait
 * for: discards issued after the journal commit, ext4's lazy inode table
 * initialisation, another file system on the same device.  Returns the
 * polls it took, or -1 when the device stayed busy.
 */
static int settle__wait(dev_t dev, uint64_t t0)
{
	struct blk_sample cur;

	for (int n = 0;; n++) {
		if (blk_sample__read(dev, &cur) || !cur.inflight)
			return n; /* a device that went away has nothing left either */
		if (exec__now() - t0 > SETTLE_MAX_NS)
			return -1;
		usleep(SETTLE_POLL_US);
	}
}

/* The whole system's dirty and under-writeback page cache, for -v. */
static void settle__meminfo(unsigned long long *dirty, unsigned long long *wb)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];

	*dirty = *wb = 0;
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Dirty: %llu", dirty);
		sscanf(line, "Writeback: %llu", wb);
	}
	if (f)
		fclose(f);
}

/* --settle: the idle time asked for, after the device went quiet */
static void settle__idle(const struct rp_opts *o, struct rp_run *r, uint64_t t0)
{
	unsigned long long dirty, wb;

	settle__meminfo(&dirty, &wb);
	dbg("settle: the system has %llu KiB dirty, %llu KiB under writeback", dirty, wb);
	if (o->settle_ms) {
		dbg("settle: idle %u ms more (--settle)", o->settle_ms);
		usleep(o->settle_ms * 1000u);
	}
	r->settle = exec__now() - t0;
}

int settle__run(const struct rp_opts *o, struct rp_run *r)
{
	struct blk_sample s0 = { 0 }, s1 = { 0 };
	uint64_t t0 = exec__now(), t_sync;
	bool have_dev;
	dev_t dev;
	int polls;

	have_dev = !settle__device(o->root, &dev) && !blk_sample__read(dev, &s0);
	for (uint32_t k = 0; k <= o->ndevroot; k++)
		if (settle__syncfs(rp_opts__root(o, k)))
			return -EIO;
	t_sync = exec__now();
	if (!have_dev) {
		dbg("settle: syncfs of %u root(s) took %" PRIu64 " ms; %s is on no block device, "
		    "nothing to wait for",
		    o->ndevroot + 1, (t_sync - t0) / 1000000, o->root);
		settle__idle(o, r, t0);
		return 0;
	}
	polls = settle__wait(dev, t0);
	blk_sample__read(dev, &s1);
	dbg("settle: syncfs of %u root(s) took %" PRIu64 " ms and wrote %" PRIu64
	    " KiB to %u:%u; waited %" PRIu64 " ms more: %s",
	    o->ndevroot + 1, (t_sync - t0) / 1000000, (s1.written - s0.written) / 2, major(dev),
	    minor(dev), (exec__now() - t_sync) / 1000000,
	    polls < 0 ? "the device was still busy, gave up" :
	    polls     ? "nothing in flight" :
			"nothing was in flight");
	settle__idle(o, r, t0);
	return 0;
}
