/*
 * metrics_file.c - the profile so far as metrics for Prometheus
 * (TRMS_METRICS_DIR; see metrics_file.h and docs/metrics.md), in the
 * format `trms report --prometheus` prints (format/metrics_writer.h).
 *
 * The series are gathered under the runtime lock from every thread's
 * tables (the whole run, as the profile at exit would have it): one per
 * region and thread, threads of one name taken together as the report
 * takes them; the regions of functions (trms cc), which are named only
 * when the profile is written, are left out.  Their memory is the
 * library's own (vm_alloc), given back after each write: a server's
 * metrics cost it nothing between writes.
 */
#define _GNU_SOURCE
#include "output/metrics_file.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vm.h"
#include "engine/region.h"
#include "format/metrics_writer.h"
#include "output/output.h"
#include "runtime/thread.h"

struct gathering {
	struct metrics_series *all;
	size_t n, room; /* series, and room for them (vm_alloc'd) */
	uint32_t *index; /* per region id: its series + 1 on this thread */
	uint32_t regions;
	const struct trms_thread *thread;
	double scale; /* costs in ticks to ns, as the profile writes them */
	bool failed;  /* no memory: nothing is written */
};

static struct metrics_series *series_for(struct gathering *g,
					 uint32_t region)
{
	uintptr_t fn;

	/* (A region named after the count was taken waits for the next
	 * write.)  A function's region (trms cc) has its name only where
	 * the profile is written, from its object's symbols: not here. */
	if (region >= g->regions || !region_name(region) ||
	    region_function(region, &fn))
		return NULL;
	if (g->index[region])
		return &g->all[g->index[region] - 1];
	if (g->n == g->room) {
		size_t room = g->room ? 2 * g->room : 64;
		void *grown =
			g->all ? vm_resize(g->all, g->room * sizeof(*g->all),
					   room * sizeof(*g->all))
			       : vm_alloc(room * sizeof(*g->all));
		if (!grown) {
			g->failed = true;
			return NULL;
		}
		g->all = grown;
		g->room = room;
	}
	struct metrics_series *s = &g->all[g->n++];
	*s = (struct metrics_series){
		.region = region_name(region),
		.thread = g->thread->name[0] ? g->thread->name : NULL,
		.thread_ordinal = g->thread->ordinal,
	};
	g->index[region] = (uint32_t)g->n;
	return s;
}

static void add_tuple(void *ctx, const struct tuple_data *tuple)
{
	struct gathering *g = ctx;
	struct metrics_series *s = series_for(g, tuple->region);
	struct tuple_data d = *tuple;

	/* Each tuple's cost scaled and rounded as the profile writer does,
	 * so that the file says what `trms report` says of the profile. */
	if (g->scale != 1.0)
		d.sum = (uint64_t)((long double)d.sum * g->scale + 0.5L);
	if (s)
		metrics_series_add(s, &d);
}

/* The activations of a region on the thread gathered that were begun
 * and not measured. */
static void add_unmeasured(void *ctx, uint32_t region, uint64_t begun,
			   uint64_t measured)
{
	struct gathering *g = ctx;

	if (region < g->regions && g->index[region])
		g->all[g->index[region] - 1].begun += begun - measured;
}

static int by_identity(const void *a, const void *b)
{
	const struct metrics_series *x = a, *y = b;
	int c = strcmp(x->region, y->region);

	if (c)
		return c;
	if (!x->thread != !y->thread)
		return x->thread ? 1 : -1;
	if (x->thread)
		return strcmp(x->thread, y->thread);
	return x->thread_ordinal < y->thread_ordinal
		       ? -1
		       : x->thread_ordinal > y->thread_ordinal;
}

/* Series of the same region and thread name, taken together. */
static size_t merge_named(struct metrics_series *all, size_t n)
{
	size_t out = 0;

	sort_in_place(all, n, sizeof(*all), by_identity);
	for (size_t i = 0; i < n; i++) {
		if (out && !by_identity(&all[out - 1], &all[i]))
			metrics_series_merge(&all[out - 1], &all[i]);
		else
			all[out++] = all[i];
	}
	return out;
}

/* Every thread's series, with runtime.lock held; @library_ns the
 * profiler's own time. */
static void gather(struct gathering *g, uint64_t *library_ns)
{
	struct trms_thread *t;

	cds_list_for_each_entry(t, &runtime.threads, link) {
		const struct tuple_table *tables[PROFILE_FOLD_MAX];
		size_t n = thread_tables(t, tables), skipped = 0;
		g->thread = t;
		memset(g->index, 0, g->regions * sizeof(*g->index));
		tuple_table_for_each_of(tables, n, add_tuple, g, &skipped);
		selection_for_each_unmeasured(&t->sel, add_unmeasured, g);
		*library_ns += thread_library_ns(t);
	}
}

static int file_sink(void *ctx, const void *buf, size_t n)
{
	return atomic_file_write(ctx, buf, n);
}

void metrics_file_write(void)
{
	static struct atomic_file file;
	static bool said;
	char path[CONFIG_PATH_MAX + 320] = "";
	char template[CONFIG_PATH_MAX + 32];
	struct gathering g = { 0 };
	uint64_t library_ns = 0;
	int rc;

	if (!config.metrics_dir[0] || !runtime_active())
		return;
	text_format(template, sizeof(template), "%s/trms-%%e-%%p.prom",
		    config.metrics_dir);
	if ((rc = output_expand(template, getpid(), path, sizeof(path))))
		goto failed;
	g.regions = region_count();
	g.scale = 1.0;
	if (config.cost == COST_NS && clock_ns_per_tick() > 0)
		g.scale = clock_ns_per_tick();
	g.index = vm_alloc((g.regions ? g.regions : 1) * sizeof(*g.index));
	if (!g.index) {
		rc = -ENOMEM;
		goto failed;
	}
	/* Held while writing too: the series point to the threads' names,
	 * and a thread that ends may be folded and given back meanwhile. */
	pthread_mutex_lock(&runtime.lock);
	gather(&g, &library_ns);
	rc = g.failed ? -ENOMEM : 0;
	struct metrics_options opt = {
		.ns = config.cost == COST_NS,
		.begun = true,
		.library_ns = library_ns,
	};
	if (!rc && !(rc = atomic_file_open(&file, path))) {
		size_t n = merge_named(g.all, g.n);
		rc = metrics_write(file_sink, &file, g.all, n, &opt);
		rc = rc ? rc : atomic_file_commit(&file);
		if (rc)
			atomic_file_abort(&file);
	}
	pthread_mutex_unlock(&runtime.lock);
	vm_free(g.index, (g.regions ? g.regions : 1) * sizeof(*g.index));
	if (g.all)
		vm_free(g.all, g.room * sizeof(*g.all));
	if (!rc) {
		log_debug("metrics written to %s", path);
		return;
	}
failed:
	/* Once: a full disk would say it every few seconds. */
	if (!said) {
		said = true;
		log_environment("cannot write the metrics file %s: %s; "
				"metrics that cannot be written are skipped "
				"(TRMS_METRICS_DIR)",
				path[0] ? path : config.metrics_dir,
				atomic_file_error(&file, rc));
	}
}
