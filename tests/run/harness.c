/*
 * harness.c - what the tests of `trms run` share (see harness.h).
 */
#define _GNU_SOURCE
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scratch.h"

char scratch[256];
char tmpdir_env[320];

void setup(void)
{
	char tmp[300];

	scratch_make(scratch, sizeof(scratch), "run");
	/* Whatever trms run or the library might leave in TMPDIR shows. */
	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	ck_assert_int_eq(mkdir(tmp, 0777), 0);
	snprintf(tmpdir_env, sizeof(tmpdir_env), "TMPDIR=%s", tmp);
}

void teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

void start(struct spawn_result *b, char *const argv[], const char *dir,
	   char *const env[], void (*prepare)(void))
{
	struct spawn_options options = { .dir = dir, .env = env,
					 .prepare = prepare };

	spawn_start(b, argv, &options);
}

int finish(struct spawn_result *b, int timeout_ms)
{
	int status = spawn_finish(b, timeout_ms);

	ck_assert_msg(!b->timed_out, "%d still running after %d ms; stderr:\n%s",
		      (int)b->pid, timeout_ms, b->err);
	return status;
}

void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

void start_run(struct spawn_result *b, void (*prepare)(void), ...)
{
	char *argv[32], *env[] = { tmpdir_env, NULL };
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)test_env("TRMS_BIN");
	argv[n++] = "run";
	va_start(ap, prepare);
	for (char *arg; (arg = va_arg(ap, char *)) && n < 31;)
		argv[n++] = arg;
	va_end(ap);
	argv[n] = NULL;
	start(b, argv, scratch, env, prepare);
}

const char *probe(void)
{
	return test_env("RUN_PROBE");
}

/* ---- what is in the scratch directory ---- */

bool complete_profile(const char *path)
{
	char line[512], last[512] = "";
	FILE *f = fopen(path, "r");
	bool first_ok;

	if (!f)
		return false;
	/* Versions 1 to 3 (docs/profile-format.md). */
	first_ok = fgets(line, sizeof(line), f) &&
		   !strncmp(line, "trms-profile ", 13) && line[13] >= '1' &&
		   line[13] <= '3' && !strcmp(line + 14, "\n");
	while (fgets(line, sizeof(line), f))
		strcpy(last, line);
	fclose(f);
	return first_ok && !strncmp(last, "end ", 4);
}

void list_dir(const char *dir, struct listing *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	memset(l, 0, sizeof(*l));
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".trms") &&
		    complete_profile(path)) {
			l->profiles++;
		} else {
			l->others++;
			strncat(l->names, e->d_name,
				sizeof(l->names) - strlen(l->names) - 2);
			strcat(l->names, " ");
		}
	}
	closedir(d);
}

bool run_directory(const char *prefix, char *out, size_t len)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			ck_assert_msg(!found, "two directories %s*", prefix);
			snprintf(out, len, "%s/%s", scratch, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

void assert_tmp_empty(void)
{
	struct listing l;
	char tmp[300];

	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	list_dir(tmp, &l);
	ck_assert_msg(!l.profiles && !l.others, "left in TMPDIR: %s", l.names);
}
