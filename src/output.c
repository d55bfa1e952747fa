/*
 * output.c - expanding the TRMS_OUTPUT template (see output.h).
 */
#define _GNU_SOURCE
#include "output.h"

#include "config.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char start_dir[4096];
static char program[256];

void output_init(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (!getcwd(start_dir, sizeof(start_dir)))
		start_dir[0] = '\0';
	const char *name = program_invocation_short_name;
	if (n > 0) {
		exe[n] = '\0';
		const char *slash = strrchr(exe, '/');
		name = slash ? slash + 1 : exe;
	}
	size_t len = strnlen(name, sizeof(program) - 1);
	memcpy(program, name, len);
	program[len] = '\0';
}

const char *output_program_name(void)
{
	return program[0] ? program : "program";
}

static int append(char *out, size_t outlen, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= outlen)
		return -ENAMETOOLONG;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return 0;
}

void run_report_note(const char *path)
{
	if (!config.run_report[0])
		return;
	int fd = open(config.run_report,
		      O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	size_t len = strlen(path);
	/* One write of the whole line: lines from processes that finish at
	 * the same moment do not interleave. */
	char line[CONFIG_PATH_MAX + 1];
	if (len < sizeof(line) - 1) {
		memcpy(line, path, len);
		line[len] = '\n';
		ssize_t ignored = sys_write(fd, line, len + 1);
		(void)ignored;
	}
	close(fd);
}

int output_expand(const char *template, pid_t pid, char *out, size_t outlen)
{
	size_t len = 0;
	char piece[32];
	int rc = 0;

	out[0] = '\0';
	if (template[0] != '/' && start_dir[0]) {
		rc = append(out, outlen, &len, start_dir);
		if (!rc)
			rc = append(out, outlen, &len, "/");
	}
	for (const char *p = template; *p && !rc; p++) {
		if (*p == '%' && p[1] == 'p') {
			snprintf(piece, sizeof(piece), "%d", (int)pid);
			rc = append(out, outlen, &len, piece);
			p++;
		} else if (*p == '%' && p[1] == 'e') {
			rc = append(out, outlen, &len, output_program_name());
			p++;
		} else if (*p == '%' && p[1] == '%') {
			rc = append(out, outlen, &len, "%");
			p++;
		} else {
			piece[0] = *p;
			piece[1] = '\0';
			rc = append(out, outlen, &len, piece);
		}
	}
	return rc;
}
