/*
 * log.c - diagnostics on stderr (see log.h).
 */
#include "base/log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sys.h"
#include "base/text.h"

int log_verbosity;

static const char *const kind_prefix[] = {
	[LOG_CLIENT] = "trms: usage error: ",
	[LOG_ENVIRONMENT] = "trms: ",
	[LOG_INTERNAL] = "trms: internal error: ",
	[LOG_INFO] = "trms: ",
	[LOG_DEBUG] = "trms: debug: ",
};

static void log_write(enum log_kind kind, const char *suffix, const char *fmt,
		      va_list ap)
{
	char line[512];
	size_t len;
	int saved_errno = errno;

	if (log_verbosity < 0)
		return;
	len = strlen(kind_prefix[kind]);
	memcpy(line, kind_prefix[kind], len);
	int n = text_vformat(line + len, sizeof(line) - len - 1, fmt, ap);
	if (n > 0)
		len += (size_t)n < sizeof(line) - len - 1 ? (size_t)n
							  : sizeof(line) - len - 2;
	if (suffix) {
		size_t room = sizeof(line) - 1 - len;
		size_t slen = strlen(suffix);
		if (slen > room)
			slen = room;
		memcpy(line + len, suffix, slen);
		len += slen;
	}
	line[len++] = '\n';
	/* One write: a line from another thread cannot land in the middle.
	 * Never one that raises a signal (a program that limits its file
	 * size, or whose stderr reader is gone, would die of it). */
	ssize_t ignored = sys_write_no_signal(STDERR_FILENO, line, len);
	(void)ignored;
	errno = saved_errno;
}

void log_message(enum log_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write(kind, NULL, fmt, ap);
	va_end(ap);
}

void log_limited(struct log_limit *limit, enum log_kind kind, const char *fmt,
		 ...)
{
	unsigned seen = atomic_fetch_add_explicit(&limit->count, 1,
						  memory_order_relaxed);
	va_list ap;

	if (seen >= LOG_LIMIT_PER_SITE)
		return;
	va_start(ap, fmt);
	log_write(kind,
		  seen + 1 == LOG_LIMIT_PER_SITE
			  ? " (further messages like this are suppressed)"
			  : NULL,
		  fmt, ap);
	va_end(ap);
}
