/*
 * mappings.c - the process's memory mappings (see mappings.h).
 */
#define _GNU_SOURCE
#include "base/mappings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>

#include "base/sys.h"
#include "base/vm.h"

/* Room for one more range. */
static int room(struct mappings *m)
{
	if ((m->n + 1) * sizeof(*m->ranges) <= m->bytes)
		return 0;
	size_t bytes = m->bytes ? 2 * m->bytes : 4096;
	struct mapping *r = m->ranges ? vm_resize(m->ranges, m->bytes, bytes)
				      : vm_alloc(bytes);
	if (!r)
		return -ENOMEM;
	m->ranges = r;
	m->bytes = bytes;
	return 0;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One line's "start-end": parsed into a range, or skipped if it is not
 * one. */
static int parse_line(struct mappings *m, const char *line, size_t len)
{
	uintptr_t v[2] = { 0, 0 };
	size_t i = 0;

	for (int part = 0; part < 2; part++) {
		int d, digits = 0;
		while (i < len && (d = hex(line[i])) >= 0) {
			v[part] = (v[part] << 4) | (uintptr_t)d;
			i++;
			digits++;
		}
		if (!digits || (part == 0 && (i >= len || line[i++] != '-')))
			return 0;
	}
	if (v[1] <= v[0])
		return 0;
	int rc = room(m);
	if (rc)
		return rc;
	m->ranges[m->n++] = (struct mapping){ v[0], v[1] };
	return 0;
}

int mappings_read(struct mappings *m)
{
	static const char path[] = "/proc/self/maps";
	char buf[4096];
	size_t have = 0;
	bool skipping = false; /* the rest of a line longer than buf */
	int rc = 0;

	*m = (struct mappings){ 0 };
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path,
			      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!rc) {
		ssize_t got = sys_read(fd, buf + have, sizeof(buf) - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				rc = -errno;
			break;
		}
		have += (size_t)got;
		size_t start = 0;
		for (size_t i = 0; i < have && !rc; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skipping)
				rc = parse_line(m, buf + start, i - start);
			skipping = false;
			start = i + 1;
		}
		if (start == 0 && have == sizeof(buf)) {
			/* A line longer than the buffer (a long path): its
			 * start, which holds the range, is parsed, the rest
			 * skipped. */
			if (!skipping)
				rc = parse_line(m, buf, have);
			skipping = true;
			have = 0;
			continue;
		}
		have -= start;
		for (size_t i = 0; i < have; i++)
			buf[i] = buf[start + i];
	}
	syscall(SYS_close, fd);
	if (rc)
		mappings_free(m);
	return rc;
}

void mappings_free(struct mappings *m)
{
	vm_free(m->ranges, m->bytes);
	*m = (struct mappings){ 0 };
}
