// SPDX-License-Identifier: GPL-2.0
/* Buffered JSON text: numbers and escaped strings without stdio formatting. */
#include <errno.h>
#include <string.h>

#include "jw.h"

void jw__init(struct jw *w, FILE *f)
{
	w->f = f;
	w->len = 0;
	w->err = 0;
}

int jw__flush(struct jw *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len && !w->err)
		w->err = -(errno ? errno : EIO);
	w->len = 0;
	return w->err;
}

void jw__spill(struct jw *w, const char *s, size_t n)
{
	jw__flush(w);
	if (n > JW_BUF) {
		if (fwrite(s, 1, n, w->f) != n && !w->err)
			w->err = -(errno ? errno : EIO);
		return;
	}
	memcpy(w->buf, s, n);
	w->len = n;
}

/* Two digits per division: numbers are most of an event line. */
void jw__u64(struct jw *w, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[24];
	int i = sizeof(tmp);

	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		i -= 2;
		memcpy(tmp + i, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, pairs + 2 * v, 2);
	} else {
		tmp[--i] = '0' + v;
	}
	jw__raw(w, tmp + i, sizeof(tmp) - i);
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

void jw__str(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;

	jw__raw(w, "\"", 1);
	for (; *p; p++) {
		char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x7f)
			continue;
		if (*p >= 0x80)
			continue;	/* UTF-8 passes through; jansson checks it in the header */
		jw__raw(w, (const char *)run, p - run);
		if (*p == '"' || *p == '\\') {
			esc[1] = *p;
			jw__raw(w, esc, 2);
		} else {
			jw__raw(w, esc, 6);
		}
		run = p + 1;
	}
	jw__raw(w, (const char *)run, p - run);
	jw__raw(w, "\"", 1);
}

void jw__key(struct jw *w, const char *k)
{
	jw__str(w, k);
	jw__raw(w, ":", 1);
}
