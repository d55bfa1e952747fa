/*
 * output.c - expanding the TRMS_OUTPUT template (see output.h).
 */
#define _GNU_SOURCE
#include "output/output.h"

#include "base/config.h"
#include "base/log.h"
#include "base/output_template.h"
#include "base/atomic_file.h"
#include "format/profile_format.h"
#include "format/profile_head.h"
#include "base/sys.h"
#include "base/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char start_dir[4096] VM_SET_APART;
static char program[256];

/* A name that is no use as a file name's part: "", ".", "..". */
static bool unusable(const char *name)
{
	return !*name || !strcmp(name, ".") || !strcmp(name, "..");
}

void output_init(void)
{
	char exe[4096];
	const char *name = program_invocation_short_name;

	/* A relative template (TRMS_OUTPUT, TRMS_METRICS_DIR) is relative
	 * to where the process started, wherever it goes later. */
	if (!getcwd(start_dir, sizeof(start_dir)))
		start_dir[0] = '\0';
	/* The name the program was started as (redis-server, not the
	 * redis-check-rdb its symbolic link leads to); the executable's own
	 * name only if that one is no use. */
	if (!name || unusable(name)) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		name = "program";
		if (n > 0) {
			exe[n] = '\0';
			const char *slash = strrchr(exe, '/');
			if (!unusable(slash ? slash + 1 : exe))
				name = slash ? slash + 1 : exe;
		}
	}
	size_t len = strnlen(name, sizeof(program) - 1);
	memcpy(program, name, len);
	program[len] = '\0';
}

const char *output_program_name(void)
{
	return program[0] ? program : "program";
}

void output_check_directory(const char *path)
{
	const char *why;

	if (atomic_file_check(path, &why))
		log_environment("the profile cannot be written to %s: %s; check "
				"TRMS_OUTPUT",
				path, why);
}

int output_expand(const char *template, pid_t pid, char *out, size_t outlen)
{
	size_t used = 0;

	if (outlen)
		out[0] = '\0';
	if (template[0] != '/' && start_dir[0]) {
		used = strlen(start_dir);
		if (used + 1 >= outlen)
			return -ENAMETOOLONG;
		memcpy(out, start_dir, used);
		out[used++] = '/';
	}
	return template_expand(template, (long)pid, output_program_name(), out,
			       outlen, used);
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

/* Whether @path holds a profile written by an earlier image of this
 * process: its pid and process start are ours.  (The meta lines come
 * first; the command line among them is at most a few kilobytes.) */
static bool earlier_image(const char *path)
{
	char head[8192];
	struct stat st;
	uint64_t pid, start;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !sys_read_head(path, head, sizeof(head)) ||
	    !profile_head_is_profile(head))
		return false;
	return profile_head_meta_u64(head, PROFILE_META_PID, &pid) &&
	       profile_head_meta_u64(head, PROFILE_META_PROCESS_START,
				     &start) &&
	       pid == (uint64_t)getpid() && start == output_process_start() &&
	       output_process_start() != 0;
}

int output_path(const char *template, char *out, size_t outlen)
{
	static char chosen[CONFIG_PATH_MAX] VM_SET_APART;
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
		rc = template_suffixed(expanded, n, out, outlen);
	if (rc)
		return rc;
	if (strlen(out) < sizeof(chosen)) {
		strcpy(chosen, out);
		chosen_pid = pid;
	}
	return 0;
}
