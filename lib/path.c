// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/path.h"

void path__normalize(char *s)
{
	char *out = s, *in = s;

	while (*in) {
		char *end;
		size_t n;

		while (*in == '/')
			in++;
		end = strchrnul(in, '/');
		n = end - in;
		if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > s && *--out != '/')
				;
		} else if (n && !(n == 1 && in[0] == '.')) {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in = end;
	}
	if (out == s)
		*out++ = '/';
	*out = '\0';
}

static bool under(const char *s, const char *dir, size_t len)
{
	return !strncmp(s, dir, len) && (s[len] == '/' || !s[len]);
}

bool path__outside_fs(const char *s)
{
	return under(s, "/dev", 4) || under(s, "/proc", 5) || under(s, "/sys", 4);
}
