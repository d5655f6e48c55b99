/* SPDX-License-Identifier: GPL-2.0 */
/* A fast, buffered writer of JSON text for the event lines (jansson writes the rest). */
#ifndef IOTRACE_JW_H
#define IOTRACE_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_BUF (1u << 20)

struct jw {
	FILE *f; /* written with fwrite, or */
	int fd;	 /* with write(2) when >= 0: no second copy through stdio */
	size_t len;
	int err; /* first write error, -errno */
	char buf[JW_BUF];
};

#include <string.h>

/* The caller owns w (it is large: allocate it) and f. */
void jw__init(struct jw *w, FILE *f);
/* The same on a file descriptor the caller owns; flush the FILE on it first. */
void jw__init_fd(struct jw *w, int fd);
/* Writes out the buffer, then n bytes that do not fit in it. */
void jw__spill(struct jw *w, const char *s, size_t n);

/* Inline: called several times per field of a million events. */
static inline void jw__raw(struct jw *w, const char *s, size_t n)
{
	if (w->len + n > JW_BUF) {
		jw__spill(w, s, n);
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* Literal strings: the compiler folds the strlen. */
static inline void jw__lit(struct jw *w, const char *s)
{
	jw__raw(w, s, strlen(s));
}
void jw__u64(struct jw *w, uint64_t v);
void jw__s64(struct jw *w, int64_t v);

/* A number as last written in one place: written again by a copy when it repeats. */
struct jw_num {
	uint64_t v;
	uint8_t n;    /* length of s; 0: nothing yet */
	uint8_t sign; /* s is v as an int64_t */
	char s[22];
};

/* Formats v into the buffer and into m. */
void jw__num_miss(struct jw *w, struct jw_num *m, uint64_t v, bool sign);

/* Inline: the repeat is the common case, and a call would cost as much as the copy. */
static inline void jw__num(struct jw *w, struct jw_num *m, uint64_t v, bool sign)
{
	if (m->n && m->v == v && m->sign == sign && JW_BUF - w->len >= sizeof(m->s)) {
		memcpy(w->buf + w->len, m->s, sizeof(m->s)); /* fixed size: no call */
		w->len += m->n;
		return;
	}
	jw__num_miss(w, m, v, sign);
}

static inline void jw__u64_memo(struct jw *w, struct jw_num *m, uint64_t v)
{
	jw__num(w, m, v, false);
}

static inline void jw__s64_memo(struct jw *w, struct jw_num *m, int64_t v)
{
	jw__num(w, m, v, true);
}
/* Bytes jw__quote() may write for a string of n bytes. */
#define JW_QUOTED_MAX(n) (6 * (size_t)(n) + 2)
/* Writes s quoted and escaped at dst (JW_QUOTED_MAX(strlen(s)) bytes); returns the length. */
size_t jw__quote(char *dst, const char *s);
/* A JSON string, quoted and escaped. */
void jw__str(struct jw *w, const char *s);
/* "key": */
void jw__key(struct jw *w, const char *k);
/* Writes out the buffer.  0 or the first error. */
int jw__flush(struct jw *w);

#endif
