/*
 * profiled.c - running a program profiled, as the examples' tests do, and
 * reading its tuples back (see profiled.h).
 */
#define _GNU_SOURCE
#include "profiled.h"

#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "spawn.h"

const char *const mode_names[] = { "linked", "preload-only, trms run",
					  "preload-only, LD_PRELOAD" };

char scratch[256];

const char *program(const char *name)
{
	char var[64];
	size_t i = 0;

	i += (size_t)snprintf(var, sizeof(var), "EXAMPLE_");
	for (; *name && i < sizeof(var) - 1; name++)
		var[i++] = *name == '-' ? '_' : (char)toupper((unsigned char)*name);
	var[i] = '\0';
	return test_env(var);
}

int preload_possible(void)
{
	const char *no = getenv("EXAMPLES_NO_PRELOAD");

	return !no || strcmp(no, "1") != 0;
}

const char *scratch_file(const char *name, const char *text)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	file_write(path, text);
	return path;
}

static void parse_report(struct profile *p)
{
	char *copy = strdup(p->text), *save = NULL, *line;

	ck_assert_ptr_nonnull(copy);
	line = strtok_r(copy, "\n", &save);

	ck_assert_msg(line && !strcmp(line, "region\tthread\tmetric\tn\tcount\t"
					     "min\tmax\tsum\tsumsq\t"
					     "induced_thread\tinduced_external"),
		      "%s: report has no header", p->what);
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct row r;
		char sumsq[64];
		p->rows = realloc(p->rows, (p->len + 1) * sizeof(*p->rows));
		ck_assert_ptr_nonnull(p->rows);
		int fields = sscanf(line,
				    "%63[^\t]\t%63[^\t]\t%7[^\t]\t%llu\t%llu\t%llu\t"
				    "%llu\t%llu\t%63[^\t]\t%llu\t%llu",
				    r.region, r.thread, r.metric, &r.n, &r.count,
				    &r.min, &r.max, &r.sum, sumsq,
				    &r.induced_thread, &r.induced_external);
		ck_assert_msg(fields == 11, "%s: bad report line '%s'", p->what,
			      line);
		p->rows[p->len++] = r;
	}
	free(copy);
}

void profile_run(struct profile *p, const char *name, enum mode mode,
			const char *granularity, ...)
{
	static char what[128], output[600], env_output[700], env_gran[64],
		env_preload[4200];
	char *argv[32], *env[8];
	size_t a = 0, e = 0;
	struct spawn_result r;
	va_list ap;

	memset(p, 0, sizeof(*p));
	snprintf(what, sizeof(what), "%s (%s)", name, mode_names[mode]);
	p->what = what;
	snprintf(output, sizeof(output), "%s/profile.trms", scratch);
	unlink(output);
	/* Every setting explicit: nothing inherited changes the numbers. */
	const char *cell = granularity ? granularity : "4";
	env[e++] = "TRMS_OFF=0";
	if (mode == TRMS_RUN) {
		argv[a++] = (char *)test_env("TRMS_BIN");
		argv[a++] = "run";
		argv[a++] = "--cost";
		argv[a++] = "events";
		argv[a++] = "--output";
		argv[a++] = output;
		argv[a++] = "--granularity";
		argv[a++] = (char *)cell;
		argv[a++] = "--";
	} else {
		env[e++] = "TRMS_COST=events";
		snprintf(env_output, sizeof(env_output), "TRMS_OUTPUT=%s",
			 output);
		env[e++] = env_output;
		snprintf(env_gran, sizeof(env_gran), "TRMS_GRANULARITY=%s",
			 cell);
		env[e++] = env_gran;
		if (mode == PRELOAD) {
			snprintf(env_preload, sizeof(env_preload),
				 "LD_PRELOAD=%s", test_env("TRMS_LIB"));
			env[e++] = env_preload;
		}
	}
	env[e] = NULL;
	argv[a++] = (char *)program(name);
	va_start(ap, granularity);
	for (char *arg; (arg = va_arg(ap, char *));)
		argv[a++] = arg;
	va_end(ap);
	argv[a] = NULL;

	spawn(argv, NULL, env, &r);
	ck_assert_msg(r.status == 0, "%s: exit status %d, expected 0; stderr:\n%s",
		      what, r.status, r.err);
	p->out = r.out;
	free(r.err);

	char *report_argv[] = { (char *)test_env("TRMS_BIN"), "report",
				"--tuples", output, NULL };
	spawn(report_argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "%s: trms report --tuples %s: exit %d: %s",
		      what, output, r.status, r.err);
	free(r.err);
	p->text = r.out;
	parse_report(p);
}

void profile_free(struct profile *p)
{
	free(p->rows);
	free(p->text);
	free(p->out);
}

const struct row *one_row(const struct profile *p, const char *region,
				 const char *metric)
{
	const struct row *found = NULL;
	size_t matches = 0;

	for (size_t i = 0; i < p->len; i++)
		if (!strcmp(p->rows[i].region, region) &&
		    !strcmp(p->rows[i].metric, metric)) {
			found = &p->rows[i];
			matches++;
		}
	ck_assert_msg(matches == 1,
		      "%s: expected exactly one %s tuple for region '%s', found "
		      "%zu; report:\n%s",
		      p->what, metric, region, matches, p->text);
	return found;
}

void check_activation(const struct profile *p, const char *region,
			     const struct expect *x)
{
	const struct row *t = one_row(p, region, "trms");
	const struct row *r = one_row(p, region, "rms");

	ck_assert_msg(t->count == 1 && r->count == 1,
		      "%s: region '%s' should have run once, tuples count %llu "
		      "and %llu activations",
		      p->what, region, t->count, r->count);
	ck_assert_msg(t->n == x->trms,
		      "%s: '%s' trms: expected %llu (%s), got %llu; report:\n%s",
		      p->what, region, x->trms, x->why_trms, t->n, p->text);
	ck_assert_msg(r->n == x->rms,
		      "%s: '%s' rms: expected %llu (%s), got %llu; report:\n%s",
		      p->what, region, x->rms, x->why_rms, r->n, p->text);
	for (int i = 0; i < 2; i++) {
		const struct row *row = i ? r : t;
		ck_assert_msg(row->induced_thread == x->induced_thread &&
				      row->induced_external ==
					      x->induced_external,
			      "%s: '%s' (%s tuple) induced_thread/external: "
			      "expected %llu/%llu (%s), got %llu/%llu",
			      p->what, region, row->metric, x->induced_thread,
			      x->induced_external, x->why_induced,
			      row->induced_thread, row->induced_external);
		ck_assert_msg(row->min == x->cost && row->max == x->cost &&
				      row->sum == x->cost,
			      "%s: '%s' cost: expected %llu events (%s), got "
			      "min %llu max %llu sum %llu",
			      p->what, region, x->cost, x->why_cost, row->min,
			      row->max, row->sum);
	}
}

void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "examples");
	ck_assert_int_eq(chdir(scratch), 0);
}

void teardown(void)
{
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert(scratch_remove(scratch));
}

size_t example_modes(enum mode modes[3], int with_ld_preload)
{
	size_t n = 0;

	modes[n++] = LINKED;
	if (preload_possible()) {
		modes[n++] = TRMS_RUN;
		if (with_ld_preload)
			modes[n++] = PRELOAD;
	}
	return n;
}

const char *variant(const char *name, enum mode mode)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", name,
		 mode == LINKED ? "" : "-preload");
	return buf;
}
