// SPDX-License-Identifier: GPL-2.0
/* iotrace replay FILE --root DIR: load, compile, prepare the sandbox, run, report. */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cliopt.h"
#include "lib/log.h"
#include "replay/cmd_replay.h"
#include "replay/replay.h"

static void replay_usage(FILE *f)
{
	fprintf(f,
		"Usage: iotrace replay FILE --root DIR [--afap | --natural | --speed X]\n"
		"                      [--order causal|temporal|single|none|think] [--report R.json]\n"
		"                      [--timeline FILE] [--prepare-only] [--stall-timeout SEC]\n"
		"                      [--user NAME] [--dev-root MAJ:MIN=DIR]...\n"
		"                      [--settle MS] [--no-progress] [--map HOST=RANK]...\n"
		"       mpirun -np N iotrace replay JOB --root DIR [--map HOST=RANK]... [OPTIONS]\n"
		"\n"
		"Re-issues the calls of an annotated trace (iotrace analyze --infer-causality)\n"
		"inside the sandbox DIR, one thread per traced thread.  A file of N hosts is\n"
		"replayed by N MPI ranks, one host each, each in DIR/HOST (or DIR with %%h,\n"
		"%%r replaced by the host and rank).\n"
		"\n"
		"  --root DIR          sandbox: every trace path is resolved under DIR\n"
		"  --dev-root MAJ:MIN=DIR\n"
		"                      the files the trace read on device MAJ:MIN (its\n"
		"                      programs' libraries, say) live under DIR, off the\n"
		"                      storage --root measures; repeatable, up to 7\n"
		"  --afap              no compute between calls (default)\n"
		"  --natural           spin the recorded compute; waits the trace cannot\n"
		"                      explain last as long as they did\n"
		"  --speed X           --natural, X times faster (compute and sleeps / X)\n"
		"  --order ORDER       causal (default): the inferred deps; temporal: trace\n"
		"                      order across threads; single: one thread; none: no\n"
		"                      cross-thread waits; think: //TRACE's think-limited\n"
		"                      replay, recorded wall gaps and blocking times, no deps\n"
		"  --report R.json     write the replay report\n"
		"  --timeline FILE     write each call's recorded and replayed times (TSV)\n"
		"  --prepare-only      create the initial files and stop\n"
		"  --stall-timeout SEC give up when no call completes for SEC (default 30, 0 off)\n"
		"  --settle MS         after the root is written to storage and its device is\n"
		"                      quiet, stay idle MS more before the timed phase (a\n"
		"                      rate limiter such as blk-throttle grants a burst to a\n"
		"                      group idle longer than its slice; default 0)\n"
		"  --user NAME         prepare as root, then hand the root to NAME and replay as\n"
		"                      NAME (for traces from someone else)\n"
		"  --map HOST=RANK     multi-host: the rank that replays HOST (default: the\n"
		"                      hosts in the file's order on ranks 0..N-1)\n"
		"\n"
		"EXAMPLES:\n"
		"  iotrace analyze db.iot --infer-causality -o db.jsonl\n"
		"  iotrace replay db.jsonl --root sb --natural --report r.json\n"
		"  iotrace replay db.jsonl --root sb --order temporal\n"
		"  iotrace replay db.jsonl --root sb --dev-root 254:0=sys\n"
		"  mpirun -np 2 iotrace replay job.jsonl --root /tmp/sb --report r.json\n");
}

static int replay_order(const char *s, enum rp_order *o)
{
	static const char *const names[] = { "causal", "temporal", "single", "none", "think" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*o = i;
			return 0;
		}
	return cliopt__usage_error("replay",
				   "unknown order '%s' (causal, temporal, single, none, think)", s);
}

static int replay_speed(const char *s, struct rp_opts *o)
{
	char *end;

	o->speed = strtod(s, &end);
	if (*end || !(o->speed > 0) || o->speed > 1e6)
		return cliopt__usage_error("replay", "--speed wants a positive number, not '%s'",
					   s);
	o->timing = RT_NATURAL;
	return 0;
}

/* --dev-root MAJ:MIN=DIR, the device as lsblk and stat -c %Hd:%Ld print it. */
static int replay_devroot(const char *s, struct rp_opts *o)
{
	unsigned int maj, min;
	int n = 0;

	if (sscanf(s, "%u:%u=%n", &maj, &min, &n) != 2 || !n || !s[n] || maj > 0xfff ||
	    min > 0xfffff)
		return cliopt__usage_error("replay", "--dev-root wants MAJ:MIN=DIR, not '%s'", s);
	if (o->ndevroot == RP_ROOTS_MAX - 1)
		return cliopt__usage_error("replay", "at most %d --dev-root", RP_ROOTS_MAX - 1);
	/* st_dev's encoding, which the trace records: 32 bits within these bounds */
	o->devroot[o->ndevroot++] = (struct rp_devroot){ .dev = makedev(maj, min), .dir = s + n };
	return 0;
}

static int replay_settle(const char *s, struct rp_opts *o)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || *s == '-' || v > 60000)
		return cliopt__usage_error("replay",
					   "--settle wants milliseconds (0-60000), not '%s'", s);
	o->settle_ms = v;
	return 0;
}

/* --map HOST=RANK: checked against the file's hosts once it is read */
static int replay_map(const char *s, struct rp_opts *o)
{
	const char *eq = strrchr(s, '=');
	char *end;
	long r;

	if (!eq || eq == s || !eq[1])
		return cliopt__usage_error("replay", "--map wants HOST=RANK, not '%s'", s);
	r = strtol(eq + 1, &end, 10);
	if (*end || r < 0 || r >= RP_HOSTS_MAX)
		return cliopt__usage_error("replay", "--map wants a rank 0-%d, not '%s'",
					   RP_HOSTS_MAX - 1, eq + 1);
	if (o->nmap == RP_HOSTS_MAX)
		return cliopt__usage_error("replay", "at most %d --map", RP_HOSTS_MAX);
	o->map[o->nmap++] = s;
	return 0;
}

static int replay_stall(const char *s, struct rp_opts *o)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 86400)
		return cliopt__usage_error("replay",
					   "--stall-timeout wants seconds (0-86400), not '%s'", s);
	o->stall_sec = v;
	return 0;
}

/* --afap against --natural or --speed: the last one used to win silently */
static int replay_timing(struct rp_opts *o, int c, const char **was)
{
	const char *name = c == 'a' ? "--afap" : c == 'n' ? "--natural" : "--speed";

	if (*was && (c == 'a') != !strcmp(*was, "--afap"))
		return cliopt__usage_error("replay", "%s and %s are exclusive", *was, name);
	*was = name;
	o->timing = c == 'a' ? RT_AFAP : RT_NATURAL;
	return 0;
}

static int replay_opts(int argc, char **argv, struct rp_opts *o)
{
	static const struct option lo[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "afap", no_argument, NULL, 'a' },
		{ "natural", no_argument, NULL, 'n' },
		{ "speed", required_argument, NULL, 's' },
		{ "order", required_argument, NULL, 'O' },
		{ "report", required_argument, NULL, 'R' },
		{ "timeline", required_argument, NULL, 'L' },
		{ "prepare-only", no_argument, NULL, 'P' },
		{ "stall-timeout", required_argument, NULL, 'T' },
		{ "no-progress", no_argument, NULL, 'N' },
		{ "user", required_argument, NULL, 'U' },
		{ "dev-root", required_argument, NULL, 'D' },
		{ "settle", required_argument, NULL, 'S' },
		{ "map", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *timing = NULL;
	int c, err = 0;

	while (!err && (c = cliopt__next("replay", argc, argv, "h", lo)) != -1) {
		switch (c) {
		case 'r':
			o->root = optarg;
			break;
		case 'a':
		case 'n':
			err = replay_timing(o, c, &timing);
			break;
		case 's':
			err = replay_timing(o, c, &timing);
			if (!err)
				err = replay_speed(optarg, o);
			break;
		case 'O':
			err = replay_order(optarg, &o->order);
			break;
		case 'R':
			o->report = optarg;
			break;
		case 'L':
			o->timeline = optarg;
			break;
		case 'P':
			o->prepare_only = true;
			break;
		case 'T':
			err = replay_stall(optarg, o);
			break;
		case 'N':
			o->progress = false;
			break;
		case 'U':
			o->user = optarg;
			break;
		case 'D':
			err = replay_devroot(optarg, o);
			break;
		case 'S':
			err = replay_settle(optarg, o);
			break;
		case 'M':
			err = replay_map(optarg, o);
			break;
		case 'h':
			replay_usage(stdout);
			return 1;
		default:
			return -EINVAL;
		}
	}
	if (err)
		return -EINVAL;
	if (optind >= argc)
		return cliopt__usage_error("replay", "no annotated trace file"), -EINVAL;
	if (optind + 1 < argc)
		return cliopt__usage_error("replay", "more than one annotated trace file"), -EINVAL;
	if (!o->root)
		return cliopt__usage_error("replay", "--root DIR is required"), -EINVAL;
	o->file = argv[optind];
	return 0;
}

/*
 * The replayer holds the descriptors of every process it plays, and its
 * played clients' ends: it may have as many as the hard limit allows, as a
 * server raises its own (nginx's worker_rlimit_nofile).
 */
static void replay_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		dbg("replay: cannot raise the descriptor limit: %s", strerror(errno));
}

static int replay_prepare(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	uint64_t t0 = exec__now();
	int err;

	replay_nofile();
	err = sandbox__open(o, p);

	if (!err)
		err = prepare__root(p);
	if (!err && !o->prepare_only)
		err = prepare__open_fds(p);
	if (!err && !o->prepare_only && (err = net__open_inherited(p)))
		err("replay: cannot listen on loopback for a listener from before the trace: %s",
		    strerror(-err));
	if (!err && !o->prepare_only)
		err = peer__setup(p);
	r->prepare = exec__now() - t0;
	dbg("prepare: %" PRIu64 " ms, %" PRIu64 " bytes of file data written", r->prepare / 1000000,
	    prepare__written());
	return err;
}

static uid_t chown_uid;
static gid_t chown_gid;

static int chown_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, chown_uid, chown_gid) ? -1 : 0;
}

/*
 * --user: the root was prepared with root's rights; give the tree to the
 * user (never following a symlink, never leaving the file system), then
 * drop every privilege before the first recorded call is issued.
 */
static int replay_drop(const struct rp_opts *o)
{
	const char *user = o->user;
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		err("replay: no user '%s'", user);
		return -ENOENT;
	}
	if (geteuid() != 0) {
		err("replay: --user needs root to hand the sandbox over");
		return -EPERM;
	}
	chown_uid = pw->pw_uid;
	chown_gid = pw->pw_gid;
	for (uint32_t k = 0; k <= o->ndevroot; k++) {
		const char *root = rp_opts__root(o, k);

		if (nftw(root, chown_one, 64, FTW_PHYS | FTW_MOUNT)) {
			err("replay: giving %s to '%s': %s", root, user, strerror(errno));
			return -errno;
		}
	}
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
		err("replay: cannot become '%s': %s", user, strerror(errno));
		return -errno;
	}
	return 0;
}

static int replay_run(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	int err = peer__start(p);

	if (!err)
		err = net__connect_inherited(p);
	if (err) {
		err("replay: cannot start the peer thread: %s", strerror(-err));
		return 1;
	}
	err = exec__run(p, o, r);
	/* stalled, or some threads could not start: the others may be stuck in
	 * calls or waits, still using the plan, so leave everything as it is;
	 * the other hosts' ranks wait for this one: end them too */
	if (err == -EDEADLK || err == -EAGAIN || (err && mhost__active()))
		mhost__fail();
	if (err == -EDEADLK || err == -EAGAIN)
		return 3;
	peer__stop();
	if (err) {
		err("replay: %s", strerror(-err));
		return 1;
	}
	if (mhost__active()) {
		err = mhost__report(p, o, r);
		if (!err && o->timeline)
			err = report__timeline(p, o->timeline);
		free(r->lag);
		if (err)
			mhost__fail();
		return 0;
	}
	report__summary(p, o, r);
	if (o->report && report__write(p, o, r))
		err = -EIO;
	if (o->timeline && report__timeline(p, o->timeline))
		err = -EIO;
	free(r->lag);
	return err ? 1 : 0;
}

int cmd_replay(int argc, char **argv)
{
	struct rp_opts o = { .timing = RT_AFAP, .order = RO_CAUSAL, .speed = 1, .stall_sec = 30 };
	struct rp_plan p = { 0 };
	struct rp_run r = { 0 };
	int err, rc = 1;

	/* a write to a pipe or socket whose reader is gone fails with EPIPE, as
	 * it did for an application that ignored SIGPIPE, instead of killing us */
	signal(SIGPIPE, SIG_IGN);
	o.progress = isatty(STDERR_FILENO);
	optind = 1;
	err = replay_opts(argc, argv, &o);
	if (err)
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	if (parse__file(&p, o.file) || mhost__begin(&p, &o))
		goto out;
	/* without deps a causal replay is --order none, which nobody asks for */
	if (!p.causality && o.order == RO_CAUSAL)
		warn("%s has no causality: the threads will not wait for each other (add it "
		     "with 'iotrace analyze TRACE --infer-causality')",
		     o.file);
	if (compile__plan(&p, &o) || mhost__plan(&p, &o))
		goto fail;
	if (replay_prepare(&p, &o, &r))
		goto fail;
	if (o.prepare_only) {
		rc = 0;
		goto out;
	}
	/* before --user drops the rights the roots' paths may need to be opened;
	 * its chown leaves only inode changes, for the journal to write */
	if (settle__run(&o, &r) || (o.user && replay_drop(&o)))
		goto fail;
	rc = replay_run(&p, &o, &r);
	if (rc == 3)
		return 1; /* stuck threads still use the plan and the root */
	goto out;
fail:
	mhost__fail(); /* the other ranks would wait for this one */
out:
	mhost__end();
	sandbox__close();
	plan__free(&p);
	return rc;
}
