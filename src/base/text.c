/*
 * text.c - async-signal-safe formatting (see text.h).
 */
#include "base/text.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

size_t text_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* What is written so far, and how long it would be. */
struct out {
	char *buf;
	size_t cap, len;
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void put_text(struct out *o, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++)
		put_char(o, s[i]);
}

static void put_unsigned(struct out *o, uint64_t v, unsigned base)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (n)
		put_char(o, tmp[--n]);
}

static void put_signed(struct out *o, int64_t v)
{
	if (v < 0) {
		put_char(o, '-');
		put_unsigned(o, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_unsigned(o, (uint64_t)v, 10);
	}
}

/* @v with @precision decimals, rounded (|v| below 1e18). */
static void put_fixed(struct out *o, double v, int precision)
{
	uint64_t scale = 1;

	if (precision > 9)
		precision = 9;
	for (int i = 0; i < precision; i++)
		scale *= 10;
	if (v < 0) {
		put_char(o, '-');
		v = -v;
	}
	uint64_t scaled = (uint64_t)(v * (double)scale + 0.5);
	put_unsigned(o, scaled / scale, 10);
	if (!precision)
		return;
	put_char(o, '.');
	uint64_t frac = scaled % scale;
	for (uint64_t d = scale / 10; d; d /= 10) {
		put_char(o, (char)('0' + frac / d));
		frac %= d;
	}
}

int text_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct out o = { buf, cap, 0 };

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put_char(&o, *p);
			continue;
		}
		int precision = -1, longs = 0;
		bool size_t_arg = false;
		p++;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				precision = va_arg(ap, int);
				p++;
			} else {
				precision = 0;
				while (*p >= '0' && *p <= '9')
					precision = precision * 10 + (*p++ - '0');
			}
		}
		for (; *p == 'l'; p++)
			longs++;
		if (*p == 'z') {
			size_t_arg = true;
			p++;
		}
		switch (*p) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			put_text(&o, s ? s : "(null)",
				 precision < 0 ? (size_t)-1 : (size_t)precision);
			break;
		}
		case 'c':
			put_char(&o, (char)va_arg(ap, int));
			break;
		case 'd':
		case 'i':
			put_signed(&o, size_t_arg  ? (int64_t)va_arg(ap, ssize_t)
				       : longs > 1 ? va_arg(ap, long long)
				       : longs     ? va_arg(ap, long)
						   : va_arg(ap, int));
			break;
		case 'u':
		case 'x':
			put_unsigned(&o,
				     size_t_arg  ? va_arg(ap, size_t)
				     : longs > 1 ? va_arg(ap, unsigned long long)
				     : longs     ? va_arg(ap, unsigned long)
						 : va_arg(ap, unsigned),
				     *p == 'x' ? 16 : 10);
			break;
		case 'p':
			put_text(&o, "0x", 2);
			put_unsigned(&o, (uintptr_t)va_arg(ap, void *), 16);
			break;
		case 'f':
			put_fixed(&o, va_arg(ap, double),
				  precision < 0 ? 6 : precision);
			break;
		case '%':
			put_char(&o, '%');
			break;
		default: /* not used by the library: shown as it is */
			put_char(&o, '%');
			if (!*p)
				p--;
			else
				put_char(&o, *p);
		}
	}
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return (int)o.len;
}

int text_format(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = text_vformat(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}

const char *text_errno(int err)
{
	static const struct {
		int err;
		const char *text;
	} known[] = {
		{ EPERM, "Operation not permitted" },
		{ ENOENT, "No such file or directory" },
		{ EIO, "Input/output error" },
		{ EBADF, "Bad file descriptor" },
		{ EAGAIN, "Resource temporarily unavailable" },
		{ ENOMEM, "Cannot allocate memory" },
		{ EACCES, "Permission denied" },
		{ EBUSY, "Device or resource busy" },
		{ EEXIST, "File exists" },
		{ EXDEV, "Invalid cross-device link" },
		{ ENOTDIR, "Not a directory" },
		{ EISDIR, "Is a directory" },
		{ EINVAL, "Invalid argument" },
		{ ENFILE, "Too many open files in system" },
		{ EMFILE, "Too many open files" },
		{ EFBIG, "File too large" },
		{ ENOSPC, "No space left on device" },
		{ EROFS, "Read-only file system" },
		{ EPIPE, "Broken pipe" },
		{ ERANGE, "Numerical result out of range" },
		{ ENAMETOOLONG, "File name too long" },
		{ ENOSYS, "Function not implemented" },
		{ ELOOP, "Too many levels of symbolic links" },
		{ EOVERFLOW, "Value too large for defined data type" },
		{ EOPNOTSUPP, "Operation not supported" },
		{ ECONNREFUSED, "Connection refused" },
		{ ECONNRESET, "Connection reset by peer" },
		{ ETIMEDOUT, "Connection timed out" },
		{ EDQUOT, "Disk quota exceeded" },
	};
	static __thread char other[32] __attribute__((tls_model("initial-exec")));

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].err == err)
			return known[i].text;
	text_format(other, sizeof(other), "error %d", err);
	return other;
}
