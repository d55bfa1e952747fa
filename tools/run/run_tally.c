/*
 * run_tally.c - the tally of processes that recorded nothing (see
 * run_tally.h).
 */
#define _GNU_SOURCE
#include "run_tally.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/run_protocol.h"
#include "xalloc.h"

int run_tally_create(struct run_tally *t, const char *name)
{
	const char *dir = getenv("TMPDIR");
	char path[RUN_TALLY_PATH_MAX + 1];

	t->fd = -1;
	t->path = NULL;
	t->taken = 0;
	if (!dir || dir[0] != '/')
		dir = "/tmp";
	int len = snprintf(path, sizeof(path), "%s/%s.tally", dir, name);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	if (fd < 0)
		return -errno;
	/* Whoever the processes become may append; only trms run reads
	 * (the lines hold the token).  Not through the umask. */
	if (fchmod(fd, 0622) != 0) {
		int rc = -errno;
		close(fd);
		unlink(path);
		return rc;
	}
	t->fd = fd;
	t->path = xstrdup(path);
	return 0;
}

/* "TOKEN PID START LAST", exactly. */
static void take_line(char *line, const char *token,
		      void (*keep)(void *, long, uint64_t, int), void *ctx)
{
	char *fields[5], *save = NULL;
	int n = 0;

	for (char *f = strtok_r(line, " ", &save); f && n < 5;
	     f = strtok_r(NULL, " ", &save))
		fields[n++] = f;
	if (n != 4 || strcmp(fields[0], token))
		return;
	char *end1, *end2;
	errno = 0;
	long pid = strtol(fields[1], &end1, 10);
	unsigned long long start = strtoull(fields[2], &end2, 10);
	if (errno || *end1 || *end2 || pid <= 0 ||
	    (strcmp(fields[3], "0") && strcmp(fields[3], "1")))
		return;
	keep(ctx, pid, (uint64_t)start, fields[3][0] == '1');
}

void run_tally_take(struct run_tally *t, const char *token,
		    void (*keep)(void *ctx, long pid, uint64_t start,
				 int last),
		    void *ctx)
{
	enum { CHUNK = 1 << 16 };
	char *text;
	ssize_t got;

	if (t->fd < 0)
		return;
	text = xcalloc(CHUNK + 1, 1);
	while ((got = pread(t->fd, text, CHUNK, t->taken)) > 0) {
		text[got] = '\0';
		/* Only complete lines: one may be on its way. */
		char *line = text, *newline;
		while ((newline = memchr(line, '\n',
					 (size_t)(text + got - line)))) {
			*newline = '\0';
			take_line(line, token, keep, ctx);
			line = newline + 1;
		}
		if (line == text && got < CHUNK)
			break; /* a line still on its way */
		/* (A chunk without a line end is no line of ours.) */
		t->taken += line == text ? got : line - text;
	}
	free(text);
}

void run_tally_remove(struct run_tally *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		unlink(t->path);
	}
	free(t->path);
	t->fd = -1;
	t->path = NULL;
}
