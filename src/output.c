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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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
	/* The path this process last reported written: a process whose exec
	 * failed writes its profile again at exit, and trms run lists each
	 * profile once. */
	static char noted[CONFIG_PATH_MAX];
	static pid_t noted_pid;
	char line[CONFIG_PATH_MAX + 128];
	int len;

	if (!config.run_report[0])
		return;
	if (!rc && noted_pid == getpid() && !strcmp(noted, path))
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
	ssize_t written = sys_write(fd, line, (size_t)len);
	close(fd);
	if (!rc && written == len && strlen(path) < sizeof(noted)) {
		strcpy(noted, path);
		noted_pid = getpid();
	}
}

/*
 * Can a file be created in @dir?  Asked of the kernel, not tried: a file
 * created and removed at every start cost each process 0.1-0.4 ms on
 * ext4, whose allocator then steps over the recently freed inodes
 * (docs/performance.md, "Start-up").  faccessat with the effective
 * identity answers for permissions and read-only file systems; root, whom
 * permissions do not stop, is stopped by a file system without space,
 * which is also what /proc and /sys look like (no blocks at all).  (So
 * does a FUSE file system that does not answer statfs: the warning is
 * then wrong, and the profile is written anyway.)
 */
static void probe_directory(const char *dir, const char *path)
{
	struct statvfs fs;
	int err = 0;

	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
		err = errno;
	else if (statvfs(dir, &fs) == 0 &&
		 (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) == 0)
		err = ENOSPC;
	if (err)
		log_message(LOG_CLIENT,
			    "the profile cannot be written to %s: %s (%s); "
			    "check TRMS_OUTPUT",
			    path, dir, strerror(err));
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

unsigned long long output_process_start(void)
{
	static pid_t known_pid;
	static unsigned long long known;
	char stat[1024];

	if (known_pid == getpid())
		return known;
	/* Field 22, counted after the command name's closing parenthesis
	 * (the name may hold spaces and parentheses itself). */
	if (!sys_read_head("/proc/self/stat", stat, sizeof(stat)))
		return 0;
	char *p = strrchr(stat, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	known = p ? strtoull(p + 1, NULL, 10) : 0;
	known_pid = getpid();
	return known;
}

/* The value of "meta @key" in the profile text @text, or NULL. */
static const char *meta_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, "meta ", 5) &&
		    !strncmp(line + 5, key, klen) && line[5 + klen] == ' ')
			return line + 6 + klen;
	return NULL;
}

/* Whether @path holds a profile written by an earlier image of this
 * process: its pid and process start are ours.  (The meta lines come
 * first; the command line among them is at most a few kilobytes.) */
static bool earlier_image(const char *path)
{
	char head[8192];
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !sys_read_head(path, head, sizeof(head)) ||
	    strncmp(head, "trms-profile ", 13))
		return false;
	const char *pid = meta_value(head, "pid");
	const char *start = meta_value(head, "process_start");
	return pid && start && strtol(pid, NULL, 10) == getpid() &&
	       strtoull(start, NULL, 10) == output_process_start() &&
	       output_process_start() != 0;
}

/* @path with ".@n" before its ".trms" (or at its end). */
static int suffixed(const char *path, unsigned n, char *out, size_t outlen)
{
	size_t len = strlen(path);
	const char *ext = len >= 5 && !strcmp(path + len - 5, ".trms")
				  ? ".trms"
				  : "";
	size_t stem = len - strlen(ext);
	int w = snprintf(out, outlen, "%.*s.%u%s", (int)stem, path, n, ext);

	return w < 0 || (size_t)w >= outlen ? -ENAMETOOLONG : 0;
}

int output_path(const char *template, char *out, size_t outlen)
{
	static char chosen[CONFIG_PATH_MAX];
	static pid_t chosen_pid;
	char expanded[CONFIG_PATH_MAX];
	pid_t pid = getpid();
	int rc;

	if (chosen_pid == pid && strlen(chosen) < outlen) {
		strcpy(out, chosen);
		return 0;
	}
	rc = output_expand(template, pid, expanded, sizeof(expanded));
	if (rc || strlen(expanded) >= outlen)
		return rc ? rc : -ENAMETOOLONG;
	strcpy(out, expanded);
	for (unsigned n = 1; !rc && earlier_image(out) && n < 1000; n++)
		rc = suffixed(expanded, n, out, outlen);
	if (rc)
		return rc;
	if (strlen(out) < sizeof(chosen)) {
		strcpy(chosen, out);
		chosen_pid = pid;
	}
	return 0;
}
