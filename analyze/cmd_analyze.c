// SPDX-License-Identifier: GPL-2.0
/* iotrace analyze: the command line around analyze.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/cmd_analyze.h"
#include "lib/cliopt.h"
#include "lib/log.h"

#define OUT_BUF	(4u << 20)

struct analyze_args {
	const char *in, *out;
	struct an_opts opts;
	bool summary, json;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace analyze FILE [--infer-causality] [--rules LIST] [-o OUT]\n"
		   "       iotrace analyze FILE --summary [--json] [--infer-causality]\n"
		   "\n"
		   "Write the annotated trace as JSON Lines (docs/annotated-format.md): a header\n"
		   "line with threads, processes, the initial files and loss, then one line per\n"
		   "call in enter-time order with named arguments, resolved paths, compute time\n"
		   "and, with --infer-causality, the calls of other threads it depends on.\n"
		   "\n"
		   "  --infer-causality  add cross-thread deps\n"
		   "  --rules LIST       rule families: process,wakeup,data,stage,name,seq or all\n"
		   "                     (default: all but seq)\n"
		   "  -o OUT             write to OUT instead of stdout\n"
		   "  --summary          per-call counts, latency percentiles, bytes, top files,\n"
		   "                     edge counts; --json for one JSON object\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace analyze db.iot --infer-causality -o db.jsonl\n"
		   "  iotrace analyze db.iot --infer-causality --rules wakeup,data -o db-wd.jsonl\n"
		   "  iotrace analyze db.iot --summary\n");
}

static int parse(int argc, char **argv, struct analyze_args *a)
{
	a->opts.rules = AN_RULES_DEFAULT;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(s, "--infer-causality")) {
			a->opts.infer = true;
		} else if (!strcmp(s, "--summary")) {
			a->summary = true;
		} else if (!strcmp(s, "--json")) {
			a->json = true;
		} else if ((!strcmp(s, "--rules") || !strcmp(s, "-o")) && i + 1 < argc) {
			if (s[1] == 'o')
				a->out = argv[++i];
			else if (an_rule__parse(argv[++i], &a->opts.rules)) {
				err("analyze: unknown rule in '%s'", argv[i]);
				return -1;
			}
		} else if (s[0] == '-' && s[1]) {
			err("analyze: unknown or incomplete option '%s'", s);
			return -1;
		} else if (!a->in) {
			a->in = s;
		} else {
			err("analyze: more than one trace file");
			return -1;
		}
	}
	if (!a->in)
		err("analyze: no trace file");
	return a->in ? 0 : -1;
}

static int write_out(const struct analysis *an, const struct analyze_args *a)
{
	FILE *f = a->out ? fopen(a->out, "w") : stdout;
	int err;

	if (!f) {
		err("analyze: cannot write '%s': %s", a->out, strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, OUT_BUF);
	err = a->summary ? analysis__write_summary(an, f, a->json) :
			   analysis__write_jsonl(an, f);
	if ((f == stdout ? fflush(f) : fclose(f)) && !err)
		err = -errno;
	if (err) {
		err("analyze: writing '%s': %s", a->out ? a->out : "stdout", strerror(-err));
		return 1;
	}
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_args a = { 0 };
	struct analysis *an;
	int ret = parse(argc, argv, &a);

	if (ret)
		return ret > 0 ? 0 : (usage(stderr), EXIT_USAGE);
	an = analysis__new(a.in, NULL, 0, &a.opts);
	if (!an)
		return 1;
	ret = write_out(an, &a);
	if (analysis__read_error(an)) {
		err("%s: %s; analysed the %u calls before it", a.in, analysis__read_error(an),
		    analysis__events(an));
		ret = 1;
	}
	dbg("analyze: %.1f bytes of memory per event", analysis__bytes_per_event(an));
	analysis__free(an);
	return ret;
}
