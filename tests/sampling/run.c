/*
 * run.c - running the sampling tests' helper programs: preloaded with the
 * library, in a directory of the case's scratch one, under a deadline
 * past which the backtraces of all their threads are saved (gdb) and
 * they are killed (see sampling.h).
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../scratch.h"
#include "../spawn.h"
#include "../test_util.h"

char *sm_format(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("(out of memory formatting the message)");
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	return s;
}

/* ---- scratch directory ---- */

char scratch[256];

void sampling_setup(void)
{
	scratch_make(scratch, sizeof(scratch), "sampling");
}

void sampling_teardown(void)
{
	const char *keep = getenv("SM_KEEP");

	if (keep && *keep == '1') {
		fprintf(stderr, "sampling tests: kept %s\n", scratch);
		return;
	}
	if (!scratch_remove(scratch))
		fprintf(stderr, "could not remove %s\n", scratch);
}

char *helper(const char *name)
{
	return xasprintf("%s/%s", test_env("SM_BIN_DIR"), name);
}

char *make_dir(const char *name)
{
	char *dir = xasprintf("%s/%s", scratch, name);

	SM_CHECK(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir,
		      strerror(errno));
	return dir;
}

double env_number(const char *name, double fallback)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : fallback;
}

/* ---- running a program ---- */

/* The settings the library reads, cleared in the child so that the
 * caller's environment cannot change what a test measures. */
static const char *const trms_settings[] = {
	"LD_PRELOAD",	    "TRMS_OUTPUT",	  "TRMS_SAMPLE_HZ",
	"TRMS_SAMPLE_CLOCK", "TRMS_SAMPLE_SIGNAL", "TRMS_OFF",
	"TRMS_COST",	    "TRMS_VERBOSE",	  "TRMS_GRANULARITY",
	"TRMS_RUN_SOCKET",  "TRMS_SAMPLE_TRAP",	  NULL,
};

/* gdb's backtraces of every thread, the threads interrupted by a signal
 * (where the library's handler runs) first, without gdb's chatter. */
static char *tidy_stacks(const char *raw)
{
	char *s = NULL, *copy = strdup(raw);
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert(f && copy);
	for (int pass = 0; pass < 2; pass++) {
		char *p = copy;
		while ((p = strstr(p, "\nThread "))) {
			p++;
			char *end = strstr(p, "\nThread ");
			size_t n = end ? (size_t)(end - p) : strlen(p);
			bool in_handler = memmem(p, n, "<signal handler called>",
						 23) != NULL;
			if (in_handler == (pass == 0))
				fprintf(f, "%.*s", (int)n, p);
		}
	}
	fclose(f);
	free(copy);
	if (!*s) {
		free(s);
		return strdup(raw);
	}
	return s;
}

struct hung {
	const char *dir;
	struct run *run;
};

/* At the deadline: every thread's backtrace, into @dir/stacks and the
 * run. */
static void save_stacks(pid_t pid, void *arg)
{
	struct hung *h = arg;
	char *gdb = xasprintf("timeout 120 gdb -p %d -batch -nx "
			      "-ex 'set pagination off' "
			      "-ex 'thread apply all bt' >'%s/stacks' 2>&1",
			      (int)pid, h->dir);

	if (system(gdb) != 0)
		fprintf(stderr, "gdb failed; see %s/stacks\n", h->dir);
	free(gdb);
	char *path = xasprintf("%s/stacks", h->dir);
	char *raw = file_read(path);
	h->run->stacks = tidy_stacks(raw ? raw : "");
	free(raw);
	free(path);
}

/* What the program printed, kept beside its profiles. */
static void keep_output(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	file_write(path, text);
	free(path);
}

void run_in(const char *dir, char *const argv[], char *const env[],
	    double timeout, struct run *r)
{
	FILE *cmd;
	size_t cmd_len;
	struct spawn_result s;
	struct hung hung = { dir, r };
	struct spawn_options options = {
		.dir = dir,
		.env = env,
		.unset = trms_settings,
		.own_group = true,
		.before_kill = save_stacks,
		.before_kill_arg = &hung,
	};

	memset(r, 0, sizeof(*r));
	cmd = open_memstream(&r->command, &cmd_len);
	ck_assert_ptr_nonnull(cmd);
	fprintf(cmd, "cd %s &&", dir);
	for (size_t i = 0; env && env[i]; i++)
		fprintf(cmd, " %s", env[i]);
	for (size_t i = 0; argv[i]; i++)
		fprintf(cmd, " %s", argv[i]);
	fclose(cmd);

	spawn_run(argv, &options, (int)(timeout * 1000), &s);
	r->status = s.status;
	r->timed_out = s.timed_out;
	r->seconds = s.seconds;
	r->out = s.out;
	r->err = s.err;
	s.out = s.err = NULL;
	spawn_free(&s);
	keep_output(dir, "stdout", r->out);
	keep_output(dir, "stderr", r->err);
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	free(r->stacks);
	free(r->command);
}

void expect_status(const struct run *r, int status)
{
	SM_CHECK(!r->timed_out,
		      "%s: expected to finish, but it was still running "
		      "after %.1f s (a deadlock?); stdout: '%s', stderr: '%s'; "
		      "its threads were (gdb; also in stacks in that "
		      "directory):\n%s",
		      r->command, r->seconds, r->out, r->err,
		      r->stacks ? r->stacks : "?");
	SM_CHECK(r->status == status,
		      "%s: expected exit status %d, saw %d%s after %.1f s\n"
		      "stdout: %s\nstderr: %s",
		      r->command, status, r->status,
		      r->status > 128 ? " (killed by a signal: 128 + signal)"
				      : "",
		      r->seconds, r->out, r->err);
}

/* ---- the environment of a sampled run ---- */

void env_add(struct env *e, char *kv)
{
	ck_assert_uint_lt(e->n, sizeof(e->v) / sizeof(e->v[0]) - 1);
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
}

void env_sampled(struct env *e, const char *dir, unsigned hz,
		 const char *clock)
{
	memset(e, 0, sizeof(*e));
	env_add(e, xasprintf("LD_PRELOAD=%s", test_env("TRMS_LIB")));
	env_add(e, xasprintf("TRMS_OUTPUT=%s/%%e.%%p.trms", dir));
	env_add(e, xasprintf("TRMS_SAMPLE_HZ=%u", hz));
	env_add(e, xasprintf("TRMS_SAMPLE_CLOCK=%s", clock));
}

void env_free(struct env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
}

size_t read_profiles(const char *dir, struct profile_doc *docs, size_t max)
{
	return profiles_in_dir(dir, docs, max);
}

void run_sampled(const char *name, char *argv[], unsigned hz,
		 const char *clock, const char *extra, int status,
		 struct run *r, struct profile_doc *doc)
{
	char *dir = make_dir(name);
	struct env env;

	env_sampled(&env, dir, hz, clock);
	if (extra)
		env_add(&env, xasprintf("%s", extra));
	run_in(dir, argv, env.v, SM_DEADLINE, r);
	expect_status(r, status);
	if (doc)
		ck_assert_uint_eq(read_profiles(dir, doc, 1), 1);
	env_free(&env);
	free(argv[0]);
	free(dir);
}

char *report(const char *dir, const char *profile, const char *a1,
	     const char *a2, const char *a3)
{
	char *argv[] = { (char *)test_env("TRMS_BIN"), "report", (char *)a1,
			 (char *)a2, (char *)a3, NULL, NULL };
	size_t n = 2;
	struct run r;

	while (n < 5 && argv[n])
		n++;
	argv[n] = (char *)profile;
	char *sub = xasprintf("%s/report", dir);
	mkdir(sub, 0700);
	run_in(sub, argv, NULL, SM_DEADLINE, &r);
	expect_status(&r, 0);
	char *out = strdup(r.out);
	run_free(&r);
	free(sub);
	return out;
}
