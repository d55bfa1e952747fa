/*
 * test_util.c - shared test helpers (see test_util.h).
 */
#define _GNU_SOURCE
#include "test_util.h"

#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile_reader.h"

void results_push(struct results *r, const struct result *x)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		ck_assert_ptr_nonnull(r->v);
	}
	r->v[r->n++] = *x;
}

void results_free(struct results *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void collect(void *ctx, uint64_t tid, const char *name,
		    const struct activation *a)
{
	struct result x = { tid, a->region, a->trms, a->rms,
			    a->induced_thread, a->induced_external, a->cost };

	(void)name;
	results_push(ctx, &x);
}

static int results_with(const struct trace *t,
			const struct replay_options *options,
			struct results *out, unsigned long *renumbers)
{
	struct replay r;
	int rc = replay_run(&r, t, options, collect, out);

	if (renumbers)
		*renumbers = engine_renumber_count(&r.engine);
	replay_fini(&r);
	return rc;
}

int engine_results(const struct trace *t, unsigned granularity,
		   unsigned stamp_bits, struct results *out,
		   unsigned long *renumbers)
{
	struct replay_options options = { granularity, stamp_bits, false,
					  false, false };

	return results_with(t, &options, out, renumbers);
}

int engine_results_single_writer(const struct trace *t, unsigned granularity,
				 unsigned stamp_bits, bool fast,
				 struct results *out, unsigned long *renumbers)
{
	struct replay_options options = { granularity, stamp_bits, false,
					  true, fast };

	return results_with(t, &options, out, renumbers);
}

void trace_from_text(struct trace *t, const char *text)
{
	char err[256];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_ptr_nonnull(f);
	trace_init(t);
	ck_assert_msg(trace_parse(f, "fixture", t, err, sizeof(err)) == 0,
		      "%s", err);
	fclose(f);
}

void trace_write(FILE *f, const struct trace *t)
{
	for (size_t i = 0; i < t->n_events; i++) {
		const struct trace_event *e = &t->events[i];
		fprintf(f, "%" PRIu64 " %s", t->tids[e->thread],
			trace_op_name(e->op));
		if (e->op == TRACE_CALL)
			fprintf(f, " %s", t->names[e->name]);
		else if (e->op != TRACE_RETURN)
			fprintf(f, " %" PRIu64 " %" PRIu64, e->addr, e->size);
		fputc('\n', f);
	}
}

static bool result_equal(const struct result *x, const struct result *y)
{
	return x->tid == y->tid && x->name == y->name && x->trms == y->trms &&
	       x->rms == y->rms && x->induced_thread == y->induced_thread &&
	       x->induced_external == y->induced_external &&
	       x->cost == y->cost;
}

long results_compare(const struct results *a, const struct results *b)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (!result_equal(&a->v[i], &b->v[i]))
			return (long)i;
	return a->n == b->n ? -1 : (long)n;
}

void result_format(char *buf, size_t len, const struct trace *t,
		   const struct result *r)
{
	if (!r) {
		snprintf(buf, len, "(none)");
		return;
	}
	snprintf(buf, len,
		 "%" PRIu64 " %s trms=%" PRIu64 " rms=%" PRIu64
		 " induced_thread=%" PRIu64 " induced_external=%" PRIu64
		 " cost=%" PRIu64,
		 r->tid, t->names[r->name], r->trms, r->rms, r->induced_thread,
		 r->induced_external, r->cost);
}

size_t profiles_in_dir(const char *dir, struct profile_doc *docs,
		       size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	char path[4096], err[1024];

	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 5, ".trms"))
			continue;
		ck_assert_msg(n < max, "more than %zu profiles in %s", max,
			      dir);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ck_assert_msg(profile_read(path, &docs[n], err,
					   sizeof(err)) == 0,
			      "profile %s cannot be read: %s", path, err);
		n++;
	}
	closedir(d);
	return n;
}

uint64_t test_seed(const char *suite)
{
	const char *env = getenv("TRMS_SEED");
	uint64_t seed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL);
	fprintf(stderr, "%s: seed %" PRIu64 " (set TRMS_SEED to repeat)\n",
		suite, seed);
	return seed;
}

unsigned long test_env_unsigned(const char *name, unsigned long fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : fallback;
}
