/*
 * profile_dump.c - what the process's profile says: every thread's
 * tuples, the region names, the sampled trees and what describes the run
 * (when and where it is written: profile_write.c).
 */
#define _GNU_SOURCE
#include "output/profile_dump.h"
#include "runtime/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/log.h"
#include "output/output.h"
#include "format/profile_format.h"
#include "format/profile_writer.h"
#include "base/sys.h"
#include "base/text.h"
#include "base/vm.h"

struct dump_thread {
	struct profile_writer *w;
	uint32_t ordinal;
};

static void dump_tuple(void *ctx, const struct tuple_data *tuple)
{
	struct dump_thread *d = ctx;
	struct tuple_data t = *tuple;

	/* With costs in time every activation's correction is recorded
	 * (thread_record). */
	t.corrected = config.cost == COST_NS ? t.count : 0;
	profile_writer_tuple(d->w, d->ordinal, &t);
}

/* The command line, each argument escaped on its own, spaces between. */
static void write_command(struct profile_writer *w)
{
	char buf[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? sys_read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* Arguments are separated by NULs: escape each on its own and put
	 * one blank between them, so the reader gets one field per
	 * argument. */
	char joined[3 * sizeof(buf)];
	size_t len = 0;
	for (ssize_t i = 0; i < n && len + 4 < sizeof(joined); i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\0') {
			if (i + 1 < n)
				joined[len++] = ' ';
		} else {
			len += profile_escape_byte(c, joined + len);
		}
	}
	joined[len] = '\0';
	profile_writer_meta_raw(w, PROFILE_META_COMMAND, joined);
}

/* What decided which activations were measured, if not all were. */
static void write_selection_meta(struct profile_writer *w)
{
	char text[32];

	if (config.activation_sample > 1)
		profile_writer_meta_u64(w, PROFILE_META_ACTIVATION_SAMPLE,
					config.activation_sample);
	if (config.budget_centi) {
		/* (text_format has no field widths.) */
		text_format(text, sizeof(text), "%u.%u%u",
			    config.budget_centi / 100,
			    config.budget_centi / 10 % 10,
			    config.budget_centi % 10);
		profile_writer_meta(w, PROFILE_META_BUDGET_PERCENT, text);
	}
	if (config.partition_count > 1) {
		text_format(text, sizeof(text), "%u/%u",
			    config.partition_index, config.partition_count);
		profile_writer_meta(w, PROFILE_META_PARTITION, text);
	}
	if (selection.on)
		profile_writer_meta_u64(w, PROFILE_META_EXACT_KINDS,
					selection.outside_reads);
}

/* What the library's memory was, and what its limit left out. */
static void write_memory_meta(struct profile_writer *w)
{
	struct trms_thread *t;
	uint64_t incomplete = 0;

	cds_list_for_each_entry(t, &runtime.threads, link)
		incomplete += __atomic_load_n(&t->incomplete, __ATOMIC_RELAXED);
	profile_writer_meta_u64(w, PROFILE_META_MEMORY_LIMIT, vm_limit());
	profile_writer_meta_u64(w, PROFILE_META_MEMORY_PEAK, vm_peak_bytes());
	profile_writer_meta_u64(w, PROFILE_META_MEMORY_REFUSED, vm_refusals());
	profile_writer_meta_u64(w, PROFILE_META_SHADOW_FORGOTTEN,
				atomic_load_explicit(
					&runtime.engine.forgotten_bytes,
					memory_order_relaxed));
	profile_writer_meta_u64(w, PROFILE_META_ACTIVATIONS_INCOMPLETE,
				incomplete);
}

static void write_meta(struct profile_writer *w)
{
	struct engine *e = &runtime.engine;

	profile_writer_meta(w, PROFILE_META_PROGRAM, output_program_name());
	write_command(w);
	profile_writer_meta_u64(w, PROFILE_META_PID, (uint64_t)getpid());
	profile_writer_meta_u64(w, PROFILE_META_PPID, (uint64_t)getppid());
	profile_writer_meta_u64(w, PROFILE_META_PROCESS_START,
				output_process_start());
	profile_writer_meta_u64(w, PROFILE_META_START_NS,
				runtime.start_realtime_ns);
	profile_writer_meta_u64(w, PROFILE_META_END_NS, runtime_realtime_ns());
	profile_writer_meta(w, PROFILE_META_COST,
			    config_cost_name(config.cost));
	if (config.cost == COST_NS)
		profile_writer_meta(w, PROFILE_META_CLOCK, clock_source());
	profile_writer_meta_u64(w, PROFILE_META_GRANULARITY, e->granularity);
	profile_writer_meta_u64(w, PROFILE_META_STAMP_BITS, e->stamps.bits);
	profile_writer_meta_u64(w, PROFILE_META_SHADOW_BYTES,
				engine_shadow_bytes(e));
	profile_writer_meta_u64(w, PROFILE_META_RENUMBERS,
				engine_renumber_count(e));
	profile_writer_meta(w, PROFILE_META_LIBRARY, TRMS_VERSION_TEXT);
	write_selection_meta(w);
}

void profile_sampler_totals(struct sampler_totals *totals)
{
	struct trms_thread *t;

	sampler_totals_begin(totals);
	cds_list_for_each_entry(t, &runtime.threads, link)
		sampler_totals_add(totals, &t->sampler);
}

void profile_log_sampling(void)
{
	struct sampler_totals s;
	uint64_t dropped = 0;

	if (log_verbosity < 1 || !sampler_active())
		return;
	pthread_mutex_lock(&runtime.lock);
	profile_sampler_totals(&s);
	pthread_mutex_unlock(&runtime.lock);
	for (int i = 0; i < SAMPLE_DROPS; i++)
		dropped += s.dropped[i];
	log_info("%llu samples at %.0f Hz of %s time (asked %u Hz; %llu "
		 "periods caught late, in the next sample), %llu "
		 "dropped (in library %llu, in loader %llu, unwinding %llu, "
		 "memory %llu), %.3f ms in the handler",
		 (unsigned long long)s.samples,
		 s.cpu_ns ? (double)s.samples * 1e9 / (double)s.cpu_ns : 0.0,
		 s.clock, s.hz, (unsigned long long)s.overrun,
		 (unsigned long long)dropped,
		 (unsigned long long)s.dropped[DROP_IN_LIBRARY],
		 (unsigned long long)s.dropped[DROP_IN_LOADER],
		 (unsigned long long)s.dropped[DROP_UNWIND],
		 (unsigned long long)s.dropped[DROP_NO_MEMORY],
		 (double)clock_ticks_to_ns(s.handler_ticks) / 1e6);
}

struct activations_line {
	struct profile_writer *w;
	uint32_t thread;
};

static void write_activations_line(void *ctx, uint32_t region,
				   uint64_t begun, uint64_t measured)
{
	const struct activations_line *a = ctx;

	profile_writer_activations(a->w, region, a->thread, begun, measured);
}

/* How many of each region's activations on @t were measured, where not
 * all were. */
static void write_activations(struct profile_writer *w,
			      const struct trms_thread *t)
{
	struct activations_line a = { w, t->ordinal };

	selection_for_each_unmeasured(&t->sel, write_activations_line, &a);
}

/* A thread's counter: its value, or in a window its change over the
 * window. */
static uint64_t counter(const struct trms_thread *t, const uint64_t *value,
			enum window_counter which, bool window)
{
	if (window)
		return t->windows->at_cut[which] - t->windows->base[which];
	return __atomic_load_n(value, __ATOMIC_RELAXED);
}

/* @t has a part in the window being written. */
static bool window_ready(const struct trms_thread *t)
{
	return t->windows && t->windows->n_in_window;
}

/* @t has a line in the window being written: a part, or a fold to say
 * (thread_fold_choose). */
static bool window_names(const struct trms_thread *t)
{
	return window_ready(t) ||
	       (t->windows &&
		(t->windows->fold_after || t->windows->ended_in_window));
}

/* TRMS_BUDGET's periods ended so far, all threads' (runtime.lock held). */
static uint64_t budget_periods(void)
{
	struct trms_thread *t;
	uint64_t n = 0;

	cds_list_for_each_entry(t, &runtime.threads, link)
		n += __atomic_load_n(&t->sel.periods, __ATOMIC_RELAXED);
	return n;
}

static void write_threads(struct profile_writer *w, size_t *skipped,
			  uint64_t *dropped, const struct dump_window *window)
{
	struct trms_thread *t;
	bool win = window != NULL;

	cds_list_for_each_entry(t, &runtime.threads, link) {
		if (win && !window_names(t))
			continue;
		struct thread_info info = {
			.ordinal = t->ordinal,
			.name = t->name,
			.has_creator = t->has_creator,
			.creator = t->creator,
			.context = t->context,
			.context_depth = t->context_depth,
			.in_bytes = counter(t, &t->in_bytes, WIN_IN_BYTES, win),
			.in_calls = counter(t, &t->in_calls, WIN_IN_CALLS, win),
			.out_bytes =
				counter(t, &t->out_bytes, WIN_OUT_BYTES, win),
			.out_calls =
				counter(t, &t->out_calls, WIN_OUT_CALLS, win),
			/* Samples are the whole run's only. */
			.sampled = !win && sampler_active(),
			.samples = cct_load(&t->sampler.samples),
			.cpu_ns = sampler_thread_cpu_ns(&t->sampler),
			.library_samples = cct_load(
				&t->sampler.dropped[DROP_IN_LIBRARY]),
			.library_ns = win ? 0 : thread_library_ns(t),
			.ended_threads = win ? t->windows->ended_in_window
					     : __atomic_load_n(&t->ended_threads,
							       __ATOMIC_RELAXED),
			.has_folded_into = win && t->windows->fold_after,
			.folded_into = win ? thread_folded_ordinal() : 0,
		};
		profile_writer_thread(w, &info);
	}
	/* The counts are the whole run's: a window has none (merging the
	 * windows must not count them again). */
	if (!win)
		cds_list_for_each_entry(t, &runtime.threads, link)
			write_activations(w, t);
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct dump_thread d = { w, t->ordinal };
		const struct tuple_table *tables[PROFILE_FOLD_MAX];
		size_t n = thread_tables(t, tables);
		if (win) {
			if (!window_ready(t))
				continue;
			n = t->windows->n_in_window;
			memcpy(tables, t->windows->in_window, n * sizeof(*tables));
		}
		if (tuple_table_for_each_of(tables, n, dump_tuple, &d,
					      skipped))
			w->error = ENOMEM;
		*dropped += win ? counter(t, NULL, WIN_DROPPED, true)
				: thread_dropped(t);
	}
}

/* How long an abrupt write waits for the runtime lock (held only
 * briefly: a thread starting or ending, or its owner was interrupted). */
#define ABRUPT_LOCK_WAIT_NS 20000000ull

static bool take_runtime_lock(bool abrupt)
{
	if (!abrupt) {
		pthread_mutex_lock(&runtime.lock);
		return true;
	}
	return mutex_lock_within(&runtime.lock, ABRUPT_LOCK_WAIT_NS, NULL);
}

/* Whether @t has tuples to write: in @window's table if @window. */
static bool has_tuples(const struct trms_thread *t, bool window)
{
	const struct tuple_table *tables[PROFILE_FOLD_MAX];
	size_t n = thread_tables(t, tables), used = 0;

	if (window) {
		if (!window_ready(t))
			return false;
		n = t->windows->n_in_window;
		memcpy(tables, t->windows->in_window, n * sizeof(*tables));
	}
	for (size_t i = 0; i < n; i++)
		used += __atomic_load_n(&tables[i]->used, __ATOMIC_RELAXED);
	return used > 0;
}

bool profile_recorded_anything(bool abrupt)
{
	struct trms_thread *t;
	bool any = false;

	if (!take_runtime_lock(abrupt))
		return true;
	cds_list_for_each_entry(t, &runtime.threads, link) {
		if (has_tuples(t, false) ||
		    __atomic_load_n(&t->in_calls, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&t->out_calls, __ATOMIC_RELAXED) ||
		    cct_load(&t->sampler.samples)) {
			any = true;
			break;
		}
	}
	pthread_mutex_unlock(&runtime.lock);
	return any;
}

unsigned profile_dump_version(bool abrupt, const struct dump_window *window)
{
	struct trms_thread *t;
	bool tuples = false;

	if (config.cost == COST_NS && take_runtime_lock(abrupt)) {
		cds_list_for_each_entry(t, &runtime.threads, link)
			tuples |= has_tuples(t, window != NULL);
		pthread_mutex_unlock(&runtime.lock);
	}
	/* Only a run that measured some activations may need activations
	 * lines; functions have object lines. */
	return profile_format_version_for(selection.on, tuples,
					  function_names_any());
}

int profile_dump(struct profile_writer *w, bool abrupt)
{
	return profile_dump_part(w, abrupt, NULL);
}

int profile_dump_part(struct profile_writer *w, bool abrupt,
		      const struct dump_window *window)
{
	size_t skipped = 0;
	uint64_t dropped = 0;

	write_meta(w);
	if (window) {
		profile_writer_meta_u64(w, PROFILE_META_WINDOW, window->number);
		profile_writer_meta_u64(w, PROFILE_META_WINDOW_START,
					window->start_ns);
		profile_writer_meta_u64(w, PROFILE_META_WINDOW_END,
					window->end_ns);
	}
	function_names_write(w, !abrupt);
	if (!take_runtime_lock(abrupt))
		return -EBUSY;
	write_threads(w, &skipped, &dropped, window);
	if (!window)
		write_memory_meta(w);
	/* Names are looked up in the objects' files: not from a signal
	 * handler or _exit, where trms report does it instead. */
	if (!window)
		sample_dump(w, !abrupt);
	bool with_periods = config.budget_centi && !window;
	uint64_t periods = with_periods ? budget_periods() : 0;
	pthread_mutex_unlock(&runtime.lock);
	if (with_periods)
		profile_writer_meta_u64(w, PROFILE_META_BUDGET_PERIODS,
					periods);
	profile_writer_meta_u64(w, PROFILE_META_TUPLES_SKIPPED, skipped);
	profile_writer_meta_u64(w, PROFILE_META_TUPLES_DROPPED, dropped);
	return 0;
}
