/*
 * output.c - expanding the TRMS_OUTPUT template (see output.h).
 */
#define _GNU_SOURCE
#include "output.h"

#include "config.h"
#include "log.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
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

void run_report_note(const char *path, int rc)
{
	char line[CONFIG_PATH_MAX + 128];
	int len;

	if (!config.run_report[0])
		return;
	/* "path", or "!path: reason" when the profile could not be written
	 * (the program may have closed its stderr by then: trms run says
	 * it instead). */
	len = rc ? snprintf(line, sizeof(line), "!%s: %s\n", path,
			    strerror(-rc))
		 : snprintf(line, sizeof(line), "%s\n", path);
	if (len <= 0 || (size_t)len >= sizeof(line))
		return;
	int fd = open(config.run_report,
		      O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	/* One write of the whole line: lines from processes that finish at
	 * the same moment do not interleave. */
	ssize_t ignored = sys_write(fd, line, (size_t)len);
	(void)ignored;
	close(fd);
}

/* Permissions do not tell everything (root may write anywhere but in
 * /proc, say): create and remove a file where the profile will go. */
static void probe_directory(const char *dir, const char *path)
{
	char probe[CONFIG_PATH_MAX + 64];
	int fd;

	if ((size_t)snprintf(probe, sizeof(probe), "%s/.trms-probe.%d", dir,
			     (int)getpid()) >= sizeof(probe))
		return;
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		if (errno != EEXIST)
			log_message(LOG_CLIENT,
				    "the profile cannot be written to %s: %s "
				    "(%s); check TRMS_OUTPUT",
				    path, dir, strerror(errno));
		return;
	}
	close(fd);
	unlink(probe);
}

void output_check_directory(const char *path)
{
	char dir[CONFIG_PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	struct stat st;

	if (len >= sizeof(dir))
		return;
	memcpy(dir, path, len);
	dir[len] = '\0';
	if (!len)
		strcpy(dir, slash ? "/" : ".");
	if (stat(dir, &st) != 0)
		log_message(LOG_CLIENT,
			    "the profile cannot be written to %s: %s (%s); "
			    "check TRMS_OUTPUT",
			    path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		log_message(LOG_CLIENT,
			    "the profile cannot be written to %s: %s is not "
			    "a directory; check TRMS_OUTPUT",
			    path, dir);
	else if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
		 !S_ISLNK(st.st_mode))
		log_message(LOG_CLIENT,
			    "the profile cannot be written to %s: it exists "
			    "and is not a regular file; check TRMS_OUTPUT",
			    path);
	else
		probe_directory(dir, path);
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
