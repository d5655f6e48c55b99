// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "loader/status.h"

#define STATUS_EVERY_NS 250000000ull

/* carriage return and erase-to-end-of-line: the line is redrawn in place */
#define STATUS_ERASE "\r\033[K"

void status__init(struct status *s, bool quiet, uint64_t start_ns)
{
	*s = (struct status){ .on = !quiet && isatty(STDERR_FILENO), .start_ns = start_ns };
	s->next_ns = start_ns + STATUS_EVERY_NS;
}

void status__tick(struct status *s, uint64_t now_ns, const struct status_counts *c)
{
	struct winsize ws;
	char line[160];
	int n;

	if (!s->on || now_ns < s->next_ns)
		return;
	s->next_ns = now_ns + STATUS_EVERY_NS;
	n = snprintf(line, sizeof(line),
		     "iotrace: recording %.1f s: %llu events, %llu lost, %.2f MB written "
		     "(Ctrl-C to stop)",
		     (now_ns - s->start_ns) / 1e9, (unsigned long long)c->events,
		     (unsigned long long)c->lost, c->bytes / 1e6);
	/* a line that wraps could not be erased by going back to its start */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1 && n >= ws.ws_col)
		n = ws.ws_col - 1;
	fprintf(stderr, STATUS_ERASE "%.*s", n, line);
	fflush(stderr);
	s->shown = true;
}

void status__clear(struct status *s)
{
	if (!s->shown)
		return;
	fputs(STATUS_ERASE, stderr);
	fflush(stderr);
	s->shown = false;
}
