/*
 * replay.c - the engine over a serialised trace (see replay.h).
 */
#define _GNU_SOURCE
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_fast.h"
#include "format/profile_writer.h"

static void record(struct replay *r, uint32_t thread, const struct activation *a,
		   replay_emit_fn emit, void *ctx)
{
	struct tuple_add add = {
		.cost = a->cost,
		.induced_thread = a->induced_thread,
		.induced_external = a->induced_external,
	};

	if (r->profiles)
		tuple_table_record(&r->profiles[thread], a->region, a->trms,
			       a->rms, &add);
	if (emit)
		emit(ctx, r->trace->tids[thread], r->trace->names[a->region],
		     a);
}

/* An access the engine did (@rc its result): with the fast option, the
 * thread's copy refreshed after it, as the library's hooks do. */
static int accessed(const struct replay *r, struct engine_thread *t,
		    uintptr_t addr, int rc)
{
	if (r->fast)
		engine_fast_refresh(t, addr);
	return rc;
}

static int step(struct replay *r, const struct trace_event *e,
		replay_emit_fn emit, void *ctx)
{
	struct engine_thread *t = &r->threads[e->thread];
	struct activation a;
	int rc;

	switch (e->op) {
	case TRACE_CALL:
		return engine_call(t, e->name, 0, NULL, 0, t->events);
	case TRACE_RETURN:
		rc = engine_return(t, t->events, &a);
		if (rc == 0)
			record(r, e->thread, &a, emit, ctx);
		return rc;
	case TRACE_READ:
	case TRACE_KREAD:
		engine_count_event(t);
		if (r->fast && engine_fast_read(t, e->addr, e->size))
			return 0;
		return accessed(r, t, e->addr,
				engine_read(t, e->addr, e->size));
	case TRACE_WRITE:
		engine_count_event(t);
		if (r->fast && engine_fast_write(t, e->addr, e->size))
			return 0;
		return accessed(r, t, e->addr,
				engine_write(t, e->addr, e->size));
	case TRACE_KWRITE:
		engine_count_event(t);
		return engine_kwrite(t, e->addr, e->size);
	}
	return -EINVAL;
}

static const struct trace *sort_trace;

static int by_tid(const void *a, const void *b)
{
	uint64_t ta = sort_trace->tids[*(const uint32_t *)a];
	uint64_t tb = sort_trace->tids[*(const uint32_t *)b];

	return ta < tb ? -1 : ta > tb;
}

static int close_pending(struct replay *r, replay_emit_fn emit, void *ctx)
{
	uint32_t *order = malloc(r->n_threads * sizeof(*order) + 1);
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_threads; i++)
		order[i] = i;
	sort_trace = r->trace;
	qsort(order, r->n_threads, sizeof(*order), by_tid);
	for (size_t i = 0; i < r->n_threads && !rc; i++) {
		struct engine_thread *t = &r->threads[order[i]];
		struct activation a;
		while (t->depth && !(rc = engine_return(t, t->events, &a)))
			record(r, order[i], &a, emit, ctx);
	}
	free(order);
	return rc;
}

int replay_run(struct replay *r, const struct trace *trace,
	       const struct replay_options *options, replay_emit_fn emit,
	       void *ctx)
{
	struct engine_config config = { options->granularity,
					 options->stamp_bits };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = engine_init(&r->engine, &config);
	if (rc)
		return rc;
	/* From here on replay_fini has an engine to finish. */
	r->trace = trace;
	r->threads = calloc(trace->n_threads + 1, sizeof(*r->threads));
	if (options->keep_profile)
		r->profiles = calloc(trace->n_threads + 1,
				     sizeof(*r->profiles));
	if (!r->threads || (options->keep_profile && !r->profiles))
		return -ENOMEM;
	for (size_t i = 0; i < trace->n_threads; i++) {
		rc = engine_thread_init(&r->engine, &r->threads[i]);
		if (rc)
			return rc;
		r->n_threads++;
		if (r->profiles)
			tuple_table_init(&r->profiles[i]);
	}
	/* (Threads are numbered as they first appear.) */
	r->alone = options->single_writer;
	engine_set_single_writer(&r->engine, &r->alone);
	r->fast = options->fast;
	engine_set_fast(&r->engine, options->fast);
	for (size_t i = 0; i < trace->n_events; i++) {
		if (trace->events[i].thread != 0)
			r->alone = 0;
		rc = step(r, &trace->events[i], emit, ctx);
		if (rc)
			return rc;
	}
	return close_pending(r, emit, ctx);
}

struct tuple_out {
	struct profile_writer *w;
	uint32_t thread;
};

static void write_tuple(void *ctx, const struct tuple_data *tuple)
{
	struct tuple_out *out = ctx;

	profile_writer_tuple(out->w, out->thread, tuple);
}

int replay_write_profile(const struct replay *r, const char *path,
			 const char *trace_name)
{
	static struct profile_writer w;
	char name[32];
	int rc;

	w.scale = 1.0;
	rc = profile_writer_open(&w, path);
	if (rc)
		return rc;
	profile_writer_meta(&w, PROFILE_META_PROGRAM, "trms replay");
	profile_writer_meta(&w, "trace", trace_name);
	profile_writer_meta(&w, PROFILE_META_COST, "events");
	profile_writer_meta_u64(&w, PROFILE_META_GRANULARITY,
				r->engine.granularity);
	profile_writer_meta_u64(&w, PROFILE_META_STAMP_BITS,
				r->engine.stamps.bits);
	profile_writer_meta_u64(
		&w, PROFILE_META_RENUMBERS,
		engine_renumber_count((struct engine *)&r->engine));
	for (size_t i = 0; i < r->trace->n_names; i++)
		profile_writer_region(&w, (uint32_t)i, r->trace->names[i]);
	/* Trace thread ids are the thread names; ordinals follow the order
	 * in which threads first appear. */
	for (size_t i = 0; i < r->n_threads; i++) {
		struct thread_info info = { .ordinal = (uint32_t)i,
					    .name = name };
		snprintf(name, sizeof(name), "%llu",
			 (unsigned long long)r->trace->tids[i]);
		profile_writer_thread(&w, &info);
	}
	for (size_t i = 0; r->profiles && i < r->n_threads; i++) {
		struct tuple_out out = { &w, (uint32_t)i };
		if (tuple_table_for_each(&r->profiles[i], write_tuple, &out,
					   NULL)) {
			profile_writer_abort(&w);
			return -ENOMEM;
		}
	}
	return profile_writer_commit(&w);
}

void replay_fini(struct replay *r)
{
	for (size_t i = 0; i < r->n_threads; i++) {
		engine_thread_fini(&r->threads[i]);
		if (r->profiles)
			tuple_table_fini(&r->profiles[i]);
	}
	free(r->threads);
	free(r->profiles);
	if (r->trace)
		engine_fini(&r->engine);
	memset(r, 0, sizeof(*r));
}
