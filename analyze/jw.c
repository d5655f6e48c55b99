// SPDX-License-Identifier: GPL-2.0
/* Buffered JSON text: numbers and escaped strings without stdio formatting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/jw.h"

void jw__init(struct jw *w, FILE *f)
{
	w->f = f;
	w->fd = -1;
	w->len = 0;
	w->err = 0;
}

void jw__init_fd(struct jw *w, int fd)
{
	jw__init(w, NULL);
	w->fd = fd;
}

static void out(struct jw *w, const char *s, size_t n)
{
	if (w->fd < 0) {
		if (fwrite(s, 1, n, w->f) != n && !w->err)
			w->err = -(errno ? errno : EIO);
		return;
	}
	while (n && !w->err) {
		ssize_t k = write(w->fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? -errno : -EIO;
			break;
		}
		s += k;
		n -= k;
	}
}

int jw__flush(struct jw *w)
{
	if (w->len)
		out(w, w->buf, w->len);
	w->len = 0;
	return w->err;
}

void jw__spill(struct jw *w, const char *s, size_t n)
{
	jw__flush(w);
	if (n > JW_BUF) {
		out(w, s, n);
		return;
	}
	memcpy(w->buf, s, n);
	w->len = n;
}

/* Digits of v, v >= 10: the bit length gives log10 within one. */
static unsigned int digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull,
		10ull,
		100ull,
		1000ull,
		10000ull,
		100000ull,
		1000000ull,
		10000000ull,
		100000000ull,
		1000000000ull,
		10000000000ull,
		100000000000ull,
		1000000000000ull,
		10000000000000ull,
		100000000000000ull,
		1000000000000000ull,
		10000000000000000ull,
		100000000000000000ull,
		1000000000000000000ull,
		10000000000000000000ull,
	};
	unsigned int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;

	return t + (v >= pow10[t]);
}

/* Two digits per division, written in place: numbers are most of an event line. */
void jw__u64(struct jw *w, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	unsigned int n;
	char *p;

	if (JW_BUF - w->len < 20)
		jw__flush(w);
	if (v < 10) {
		w->buf[w->len++] = '0' + v;
		return;
	}
	n = digits(v);
	p = w->buf + w->len + n;
	w->len += n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, pairs + 2 * v, 2);
	else
		p[-1] = '0' + v;
}

void jw__s64(struct jw *w, int64_t v)
{
	if (v < 0) {
		jw__raw(w, "-", 1);
		jw__u64(w, -(uint64_t)v);
	} else {
		jw__u64(w, v);
	}
}

void jw__num_miss(struct jw *w, struct jw_num *m, uint64_t v, bool sign)
{
	size_t at;

	if (JW_BUF - w->len < sizeof(m->s))
		jw__flush(w); /* the number lands in one piece */
	at = w->len;
	if (sign)
		jw__s64(w, v);
	else
		jw__u64(w, v);
	m->v = v;
	m->sign = sign;
	m->n = w->len - at;
	memcpy(m->s, w->buf + at, m->n);
}

/* Bytes JSON wants escaped; UTF-8 passes through (jansson checks it in the header). */
static const unsigned char escaped[256] = {
	[0x00 ... 0x1f] = 1,
	['"'] = 1,
	['\\'] = 1,
	[0x7f] = 1,
};

size_t jw__quote(char *dst, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char *d = dst;

	*d++ = '"';
	for (; *p; p++) {
		if (!escaped[*p]) {
			*d++ = *p;
			continue;
		}
		*d++ = '\\';
		if (*p == '"' || *p == '\\') {
			*d++ = *p;
			continue;
		}
		memcpy(d, "u00", 3);
		d[3] = hex[*p >> 4];
		d[4] = hex[*p & 15];
		d += 5;
	}
	*d++ = '"';
	return d - dst;
}

void jw__str(struct jw *w, const char *s)
{
	size_t worst = JW_QUOTED_MAX(strlen(s));
	char *tmp;

	if (JW_BUF - w->len >= worst) {
		w->len += jw__quote(w->buf + w->len, s);
		return;
	}
	jw__flush(w);
	if (JW_BUF >= worst) {
		w->len = jw__quote(w->buf, s);
		return;
	}
	tmp = malloc(worst);
	if (!tmp) {
		w->err = w->err ?: -ENOMEM;
		return;
	}
	out(w, tmp, jw__quote(tmp, s));
	free(tmp);
}

void jw__key(struct jw *w, const char *k)
{
	jw__str(w, k);
	jw__raw(w, ":", 1);
}
