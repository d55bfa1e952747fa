/*
 * memory_limit.c - the default limit of the library's memory (see
 * memory_limit.h).  Read once at start; files are read with raw system
 * calls (no stdio, no allocation).
 */
#define _GNU_SOURCE
#include "base/memory_limit.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "base/sys.h"
#include "base/vm.h"

/* The whole (short) file @path into @buf, NUL-terminated: its length, or
 * -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path,
			      O_RDONLY | O_CLOEXEC);
	size_t have = 0;

	if (fd < 0)
		return -1;
	while (have + 1 < size) {
		ssize_t got = sys_read(fd, buf + have, size - 1 - have);
		if (got <= 0)
			break;
		have += (size_t)got;
	}
	syscall(SYS_close, fd);
	buf[have] = '\0';
	return (ssize_t)have;
}

static uint64_t number(const char *s)
{
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}

size_t memory_physical(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);

	return pages > 0 ? (size_t)pages * vm_page_size() : 0;
}

/* The memory limit of the process's control group (v2's memory.max,
 * v1's memory.limit_in_bytes), 0 if none or unknown. */
static size_t cgroup_limit(void)
{
	char groups[1024], path[1400], value[64];

	if (read_small("/proc/self/cgroup", groups, sizeof(groups)) <= 0)
		return 0;
	for (char *line = groups; *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		/* "0::/path" (v2) or "N:memory:/path" (v1). */
		const char *v2 = strncmp(line, "0::", 3) == 0 ? line + 3 : NULL;
		const char *v1 = strstr(line, ":memory:");
		if (v2 && strlen(v2) < 1024)
			strcat(strcat(strcpy(path, "/sys/fs/cgroup"), v2),
			       "/memory.max");
		else if (v1 && strlen(v1 + 8) < 1024)
			strcat(strcat(strcpy(path, "/sys/fs/cgroup/memory"),
				      v1 + 8),
			       "/memory.limit_in_bytes");
		else
			path[0] = '\0';
		if (path[0] && read_small(path, value, sizeof(value)) > 0 &&
		    value[0] >= '0' && value[0] <= '9') {
			uint64_t limit = number(value);
			/* (v1 says "no limit" with a huge number.) */
			if (limit && limit < ((uint64_t)1 << 60))
				return (size_t)limit;
		}
		if (!end)
			break;
		line = end + 1;
	}
	return 0;
}

/* What RLIMIT_@resource leaves above @used bytes: SIZE_MAX if
 * unlimited, 0 if nothing. */
static size_t rlimit_left(int resource, size_t used)
{
	struct rlimit r;

	if (getrlimit(resource, &r) || r.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	return r.rlim_cur > used ? (size_t)(r.rlim_cur - used) : 0;
}

size_t memory_limit_default(void)
{
	size_t limit = SIZE_MAX, physical = memory_physical();
	size_t group = cgroup_limit();
	char statm[128];
	size_t virtual_bytes = 0, data_bytes = 0;

	if (read_small("/proc/self/statm", statm, sizeof(statm)) > 0) {
		/* size resident shared text lib data dt, in pages */
		const char *s = statm;
		for (int field = 0; field < 6 && *s; field++) {
			uint64_t pages = number(s);
			if (field == 0)
				virtual_bytes = (size_t)pages * vm_page_size();
			if (field == 5)
				data_bytes = (size_t)pages * vm_page_size();
			while (*s && *s != ' ')
				s++;
			while (*s == ' ')
				s++;
		}
	}
	if (physical && physical / 4 < limit)
		limit = physical / 4;
	if (group && group / 4 < limit)
		limit = group / 4;
	size_t as = rlimit_left(RLIMIT_AS, virtual_bytes);
	if (as != SIZE_MAX && as / 8 < limit)
		limit = as / 8;
	size_t data = rlimit_left(RLIMIT_DATA, data_bytes);
	if (data != SIZE_MAX && data / 8 < limit)
		limit = data / 8;
	return limit < MEMORY_LIMIT_FLOOR ? MEMORY_LIMIT_FLOOR : limit;
}
