/*
 * thread.c - the library's state for each thread of the program: created
 * on a thread's first call, kept until the process writes its profile.
 */
#define _GNU_SOURCE
#include "runtime/thread.h"

#include <string.h>

#include "base/log.h"
#include "base/memory_limit.h"
#include "base/text.h"
#include "base/vm.h"

__thread struct trms_thread *thread_current
	__attribute__((tls_model("initial-exec")));
/* Set once the thread has gone through its exit: calls made after that
 * (from other exit-time code) are ignored rather than starting over. */
static __thread bool self_gone __attribute__((tls_model("initial-exec")));
/* Set once the thread has entered a seccomp sandbox. */
static __thread bool self_sandboxed
	__attribute__((tls_model("initial-exec")));

void thread_disown_self(void)
{
	self_gone = true;
}

bool thread_is_gone(void)
{
	return self_gone;
}

void (*runtime_observer)(struct trms_thread *t, const struct activation *a);

static void set_default_limit(void)
{
	vm_set_limit(memory_limit_default());
}

void runtime_expect_regions(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	clock_init();
	/* The default limit reads a few files: made only in a process that
	 * will hold shadow memory, never in one that runs unmeasured. */
	if (!vm_limit())
		pthread_once(&once, set_default_limit);
	atomic_store(&runtime.record_io, true);
}

void thread_record_failed(void)
{
	log_internal("out of memory for profile tuples; new input sizes are "
		     "dropped");
}

void thread_record_observed(struct trms_thread *t, const struct frame *f,
			    uint64_t cost, uint64_t library,
			    uint64_t estimated)
{
	void (*observer)(struct trms_thread *, const struct activation *) =
		runtime_observer;
	struct activation a;

	frame_activation(f, cost, &a);
	a.library = library;
	a.estimated = estimated;
	/* Calibration activations are seen by the calibration's observer
	 * only: they belong to no registered region. */
	if (f->region == REGION_CALIBRATION) {
		if (observer)
			observer(t, &a);
		return;
	}
	if (!f->tag || f->tag != runtime_tag())
		return;
	if (observer)
		observer(t, &a);
	if (tuple_table_record(atomic_load_explicit(&t->recording,
						memory_order_relaxed),
			   a.region, a.trms, a.rms,
			   &(struct tuple_add){ a.cost, a.induced_thread,
						a.induced_external, library,
						estimated }))
		thread_record_failed();
}

void thread_close_all(struct trms_thread *t)
{
	while (t->engine.depth) {
		uint64_t now = thread_cost_now(t);
		const struct frame *f = engine_pop(&t->engine);
		thread_record(t, f, now > f->cost_start ? now - f->cost_start : 0,
			      config.cost == COST_NS);
	}
	/* And those skipped on the gate's stack, which record nothing. */
	if (t->sel.gate)
		t->sel.gate->top = t->sel.gate->base = 0;
	if (t->sel.measured_from) {
		t->sel.measured_from = 0;
		selection_measuring(&t->sel, false);
	}
}

void thread_close_own(void)
{
	struct trms_thread *me = thread_current;

	if (me && !me->busy) {
		me->busy = true;
		thread_close_all(me);
		me->busy = false;
	}
}

void thread_drop_pending(struct trms_thread *t)
{
	uint64_t dropped = 0;

	for (size_t i = 1; i <= t->engine.depth; i++) {
		struct frame *f = &t->engine.stack[i];
		dropped += f->tag != 0 && f->region != REGION_CALIBRATION;
		f->tag = 0;
	}
	__atomic_store_n(&t->incomplete, t->incomplete + dropped,
			 __ATOMIC_RELAXED);
}

/* ---- Threads that ended ----
 *
 * A server that starts a thread per request would otherwise keep every
 * one's state (some 16 KiB, its tuples and call tree besides) until its
 * profile is written.  The THREAD_ENDED_KEPT most recently ended threads
 * keep their own numbers in the profile; each older one is folded into
 * one thread, named "ended threads" (ended_threads: how many), that has
 * their tuples, activation counts, data moved, samples and call paths
 * added together, and its state is given back.  With windows (TRMS_INTERVAL) the window writer
 * folds them, after a window that says which ones it folds into which
 * thread: the windows before name their tuples by their own numbers, and
 * `trms merge` counts those as the folded thread's, so that the merge of
 * the windows stays the profile at exit (docs/windows.md). */

#define THREAD_ENDED_KEPT 256

/* The thread that holds the folded ones (NULL: none yet), and how many
 * ended threads are kept apart; under runtime.lock. */
static struct trms_thread *folded;
static unsigned ended_kept;

static struct trms_thread *folded_thread(void)
{
	if (folded)
		return folded;
	struct trms_thread *f = vm_alloc(sizeof(*f));
	if (!f)
		return NULL;
	tuple_table_init(&f->tuples);
	atomic_init(&f->recording, &f->tuples);
	selection_thread_init(&f->sel, 1, NULL);
	f->dead = true;
	f->ordinal = runtime.next_ordinal++;
	text_format(f->name, sizeof(f->name), "ended threads");
	if (config.interval_ns) {
		f->windows = vm_alloc(sizeof(*f->windows));
		if (!f->windows) {
			tuple_table_fini(&f->tuples);
			selection_thread_fini(&f->sel);
			vm_free(f, sizeof(*f));
			return NULL;
		}
		tuple_table_init(&f->windows->spare);
		tuple_table_init(&f->windows->past);
	}
	cds_list_add_tail(&f->link, &runtime.threads);
	return folded = f;
}

/* Room in @into for every region @from counted, before anything is
 * added (a fold is all or nothing until its tuples are in). */
static bool selection_room(struct selection_thread *into,
			   const struct selection_thread *from)
{
	for (uint32_t id = from->capacity; id-- > 0;)
		if (from->regions[id].known)
			return selection_region_setup(into, id) != NULL;
	return true;
}

static void add_selection(struct selection_thread *into,
			  const struct selection_thread *from)
{
	for (uint32_t id = 0; id < from->capacity; id++) {
		const struct selection_region *r = &from->regions[id];
		struct selection_region *d;
		if (!r->known || !(d = selection_region_setup(into, id)))
			continue;
		__atomic_store_n(&d->activations, d->activations + r->activations,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&d->measured, d->measured + r->measured,
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&into->periods, into->periods + from->periods,
			 __ATOMIC_RELAXED);
}

static void add(uint64_t *into, uint64_t n)
{
	__atomic_store_n(into, __atomic_load_n(into, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static void add_sampler(struct sampler_thread *into,
			const struct sampler_thread *from)
{
	uint64_t lost = cct_absorb(&into->cct, &from->cct);

	/* What the tree could not take is counted as the handler counts a
	 * sample without memory for its node. */
	add(&into->samples, cct_load(&from->samples) - lost);
	add(&into->dropped[DROP_NO_MEMORY], lost);
	add(&into->overrun, cct_load(&from->overrun));
	for (int i = 0; i < SAMPLE_DROPS; i++)
		add(&into->dropped[i], cct_load(&from->dropped[i]));
	add(&into->handler_ticks, cct_load(&from->handler_ticks));
	add(&into->handed_ticks, cct_load(&from->handed_ticks));
	add(&into->cpu_ns, sampler_thread_cpu_ns(from));
}

/* Move @from's activations into @into; false (nothing moved) without the
 * memory for it. */
static bool move_tuples(struct tuple_table *into, struct tuple_table *from)
{
	if (tuple_table_absorb(into, from))
		return false;
	tuple_table_clear(from);
	return true;
}

/* Move @t's activations into @f's tables; false without the memory for
 * all (what was moved stays moved: a later try moves the rest).  With
 * windows, those in the windows written go to @f's past, those not in a
 * window yet (recorded since the last cut: its cut is in its past) to
 * the table @f's next window takes. */
static bool fold_tuples(struct trms_thread *f, struct trms_thread *t)
{
	if (!t->windows)
		return move_tuples(&f->tuples, &t->tuples);
	return move_tuples(atomic_load(&f->recording),
			   atomic_load(&t->recording)) &&
	       move_tuples(&f->windows->past, &t->windows->past);
}

/* Add @t into @f; false (@t kept, its counters not added) without the
 * memory for it. */
static bool fold(struct trms_thread *f, struct trms_thread *t)
{
	if (!selection_room(&f->sel, &t->sel) || !fold_tuples(f, t))
		return false;
	add_selection(&f->sel, &t->sel);
	add(&f->tuples.dropped, t->tuples.dropped);
	add(&f->tuples.slow_ticks, t->tuples.slow_ticks);
	add_sampler(&f->sampler, &t->sampler);
	add(&f->cost.excluded, t->cost.excluded);
	add(&f->incomplete, t->incomplete);
	add(&f->lookup_slow_ticks, t->lookup_slow_ticks);
	add(&f->in_bytes, t->in_bytes);
	add(&f->in_calls, t->in_calls);
	add(&f->out_bytes, t->out_bytes);
	add(&f->out_calls, t->out_calls);
	/* Its elapsed time, what a wall-clock sampler's rate is of. */
	if (t->alive_until_ns > t->alive_from_ns)
		add(&f->alive_until_ns, t->alive_until_ns - t->alive_from_ns);
	if (!f->alive_until_ns)
		f->alive_until_ns = 1;
	/* A window has the counters' change since the last one: @t's part
	 * not in a window yet is @f's from now on. */
	if (t->windows)
		for (size_t i = 0; i < sizeof(f->windows->base) /
					       sizeof(f->windows->base[0]);
		     i++)
			f->windows->base[i] += t->windows->base[i];
	add(&f->ended_threads, 1);
	return true;
}

static void thread_windows_free(struct trms_thread *t)
{
	if (!t->windows)
		return;
	tuple_table_fini(&t->windows->spare);
	tuple_table_fini(&t->windows->past);
	vm_free(t->windows, sizeof(*t->windows));
	t->windows = NULL;
}

/* Take @t, not the calling thread's, out of the list and give back all
 * it holds (runtime.lock held, or a child after fork). */
static void release(struct trms_thread *t)
{
	cds_list_del(&t->link);
	if (!t->dead)
		engine_thread_fini(&t->engine);
	tuple_table_fini(&t->tuples);
	thread_windows_free(t);
	cct_fini(&t->sampler.cct);
	selection_thread_fini(&t->sel);
	vm_free(t, sizeof(*t));
}

static void fold_ended(struct trms_thread *ending)
{
	struct trms_thread *t, *oldest = NULL;

	/* With windows, the window writer folds (thread_fold_choose). */
	if (config.interval_ns || ++ended_kept <= THREAD_ENDED_KEPT)
		return;
	cds_list_for_each_entry(t, &runtime.threads, link)
		if (t->dead && t != folded && t != ending) {
			oldest = t;
			break;
		}
	struct trms_thread *f = oldest ? folded_thread() : NULL;
	if (!f || !fold(f, oldest))
		return; /* kept as it is: the limit of memory still holds */
	release(oldest);
	ended_kept--;
}

void thread_fold_choose(void)
{
	struct trms_thread *t;
	size_t ended = 0;

	cds_list_for_each_entry(t, &runtime.threads, link)
		ended += t->dead && t != folded && t->windows &&
			 !t->windows->fold_after;
	if (ended <= THREAD_ENDED_KEPT)
		return;
	struct trms_thread *f = folded_thread();
	if (!f || !f->windows)
		return;
	size_t extra = ended - THREAD_ENDED_KEPT;
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct thread_windows *w = t->windows;
		if (!extra)
			break;
		if (!t->dead || t == f || !w || w->fold_after ||
		    (w->cut && !w->ready))
			continue;
		w->fold_after = true;
		f->windows->ended_in_window++;
		extra--;
	}
}

uint32_t thread_folded_ordinal(void)
{
	return folded ? folded->ordinal : 0;
}

void thread_fold_chosen(void)
{
	struct trms_thread *t, *next;

	if (!folded || !folded->windows)
		return;
	folded->windows->ended_in_window = 0;
	cds_list_for_each_entry_safe(t, next, &runtime.threads, link) {
		struct thread_windows *w = t->windows;
		/* One whose cut could not be put in its past, or without the
		 * memory to fold, is tried again after the next window. */
		if (w && w->fold_after && !w->cut && fold(folded, t))
			release(t);
	}
}

static void fold_after_fork_child(void)
{
	folded = NULL;
	ended_kept = 0;
}

/* The end of @t, the calling thread's state, for the library: its open
 * activations end now, its stamps go, its tuples stay for the profile;
 * the thread's later calls are ignored.  @stop_sampling: how its timer
 * goes. */
static void thread_end(struct trms_thread *t,
		       void (*stop_sampling)(struct trms_thread *))
{
	t->busy = true;
	stop_sampling(t);
	__atomic_store_n(&t->alive_until_ns, clock_monotonic_ns(),
			 __ATOMIC_RELAXED);
	thread_close_all(t);
	engine_thread_fini(&t->engine);
	if (t->functions) {
		vm_free(t->functions, sizeof(*t->functions));
		t->functions = NULL;
	}
	pthread_mutex_lock(&runtime.lock);
	/* The gate is thread-local: gone with the thread, so no one may
	 * read it after (the profile writer does so under this lock). */
	selection_slots_sync(&t->sel);
	t->sel.gate = NULL;
	t->dead = true;
	fold_ended(t);
	pthread_mutex_unlock(&runtime.lock);
	thread_current = NULL;
	self_gone = true;
	gate_thread_off();
}

static void stop_sampling(struct trms_thread *t)
{
	sampler_thread_stop(&t->sampler);
}

static void stop_sampling_for_sandbox(struct trms_thread *t)
{
	sampler_stop_self(&t->sampler);
}

/* pthread key destructor: the thread is exiting (return, pthread_exit or
 * cancellation). */
static void thread_exit(void *arg)
{
	thread_end(arg, stop_sampling);
}

bool thread_exclude_ticks(void *owner, uint64_t ticks)
{
	struct trms_thread *t = owner;

	/* With costs in events the library's time is in no cost. */
	if (config.cost != COST_NS)
		return false;
	cost_exclude(&t->cost, ticks);
	return true;
}

/* The activations skipped on @t's gate stack from entry @from to @to
 * (those whose names the thread's cache knows), into @out from @n. */
static unsigned gate_regions(const struct trms_thread *t, unsigned long from,
			     unsigned long to, struct sampler_region *out,
			     unsigned n, unsigned max)
{
	const struct trms_thread_gate_v1_ *g = t->sel.gate;

	if (to > TRMS_GATE_DEPTH_)
		to = TRMS_GATE_DEPTH_;
	for (unsigned long i = from; i < to && n < max; i++) {
		uint32_t id;
		if (region_lookup_literal(&t->names, g->name[i], &id)) {
			out[n].region = id;
			out[n].cfa = g->sp[i];
			n++;
		}
	}
	return n;
}

unsigned thread_open_regions(void *owner, struct sampler_region *out,
			     unsigned max)
{
	const struct trms_thread *t = owner;
	size_t depth = __atomic_load_n(&t->engine.depth, __ATOMIC_RELAXED);
	const struct frame *stack = t->engine.stack;
	const struct trms_thread_gate_v1_ *g = t->sel.gate;
	bool outer = g && gate_mode.begins;
	unsigned n = 0;

	/* Frame 0 is the sentinel under the outermost activation.  The
	 * gate's entries between frames i - 1 and i are those from the base
	 * frame i found to the base frame i + 1 found (or the gate's base,
	 * above the innermost): activation_gate_pushed. */
	for (size_t i = 1; i <= depth && n < max; i++) {
		if (outer)
			n = gate_regions(t, stack[i].gate_base,
					 i < depth ? stack[i + 1].gate_base
						   : g->base,
					 out, n, max);
		if (n >= max)
			break;
		out[n].region = stack[i].region;
		/* Bit 0 marks a function's frame (function_hooks.c). */
		out[n].cfa = stack[i].cfa & ~(uintptr_t)1;
		n++;
	}
	if (outer)
		n = gate_regions(t, g->base, g->top, out, n, max);
	return n;
}

bool thread_is_sandboxed(void)
{
	return self_sandboxed;
}

void thread_enter_sandbox(void)
{
	struct trms_thread *t = thread_current;

	self_sandboxed = true;
	if (!t)
		return;
	/* Nothing of the library's may run in the thread from now on, not
	 * even the key destructor at its exit. */
	pthread_setspecific(runtime.thread_key, NULL);
	thread_end(t, stop_sampling_for_sandbox);
}

bool thread_alone(void)
{
	struct trms_thread *t;
	unsigned live = 0;

	pthread_mutex_lock(&runtime.lock);
	cds_list_for_each_entry(t, &runtime.threads, link)
		live += !t->dead;
	pthread_mutex_unlock(&runtime.lock);
	return live <= 1;
}

void thread_cost_defaults(struct trms_thread *t)
{
	t->cost.floor = runtime.cost_floor;
	t->cost.access_floor = runtime.cost_access_floor;
	t->cost.clock_read = runtime.cost_clock_read;
	for (unsigned op = 0; op < COST_OPS; op++)
		cost_set_estimate(&t->cost, op, runtime.cost_estimate[op]);
}

uint32_t thread_reserve_ordinal(void)
{
	pthread_mutex_lock(&runtime.lock);
	uint32_t ordinal = runtime.next_ordinal++;
	pthread_mutex_unlock(&runtime.lock);
	return ordinal;
}

/* @origin NULL: a thread the library meets on its first call, numbered
 * now. */
static struct trms_thread *attach(const struct thread_origin *origin)
{
	struct trms_thread *t = vm_alloc(sizeof(*t));

	if (!t)
		return NULL;
	if (engine_thread_init(&runtime.engine, &t->engine)) {
		vm_free(t, sizeof(*t));
		return NULL;
	}
	tuple_table_init(&t->tuples);
	atomic_init(&t->recording, &t->tuples);
	if (config.interval_ns && (t->windows = vm_alloc(sizeof(*t->windows)))) {
		tuple_table_init(&t->windows->spare);
		tuple_table_init(&t->windows->past);
	}
	thread_cost_defaults(t);
	struct trms_thread_gate_v1_ *gate = gate_thread_open();
	selection_thread_init(&t->sel, clock_monotonic_ns() ^ (uintptr_t)t,
			      gate);

	if (origin) {
		t->has_creator = origin->has_creator;
		t->creator = origin->creator;
		t->context_depth = origin->context_depth;
		memcpy(t->context, origin->context,
		       origin->context_depth * sizeof(t->context[0]));
	}
	t->alive_from_ns = clock_monotonic_ns();
	/* The library's time from here on, for the samples too: the timer
	 * armed, a sample may come before the system call that armed it has
	 * returned. */
	t->busy = true;
	/* Ready before it is published: the profile writer may read any
	 * thread in the list. */
	if (origin)
		sampler_thread_start(&t->sampler, t, &t->busy, true,
				     origin->path, origin->path_len);
	else
		sampler_thread_start(&t->sampler, t, &t->busy, false, NULL,
				     0);
	pthread_mutex_lock(&runtime.lock);
	t->ordinal = origin ? origin->ordinal : runtime.next_ordinal++;
	cds_list_add_tail(&t->link, &runtime.threads);
	pthread_mutex_unlock(&runtime.lock);
	pthread_setspecific(runtime.thread_key, t);
	thread_current = t;
	t->busy = false;
	return t;
}

struct trms_thread *thread_attach(void)
{
	if (self_gone)
		return NULL;
	struct trms_thread *t = attach(NULL);
	if (!t)
		log_internal("out of memory for a new thread's state; the "
			     "thread is not profiled");
	return t;
}

void thread_after_fork_child(void)
{
	struct trms_thread *self = thread_current, *t, *next;

	sampler_after_fork_child(self ? &self->sampler : NULL);
	/* Only the thread that forked exists in the child: the others'
	 * state goes, and the child's profile starts empty, with the forking
	 * thread as its thread 0.  Its open regions stay open: it goes on
	 * running inside them. */
	cds_list_for_each_entry_safe(t, next, &runtime.threads, link) {
		if (t != self)
			release(t);
	}
	fold_after_fork_child();
	runtime.next_ordinal = 0;
	gate_after_fork_child(self && self->sel.measuring);
	if (!self)
		return;
	tuple_table_fini(&self->tuples); /* and empty */
	selection_after_fork(&self->sel);
	atomic_store(&self->recording, &self->tuples);
	if (self->windows) {
		tuple_table_fini(&self->windows->spare);
		tuple_table_fini(&self->windows->past);
		memset(self->windows, 0, sizeof(*self->windows));
		tuple_table_init(&self->windows->spare);
		tuple_table_init(&self->windows->past);
	}
	self->ordinal = runtime.next_ordinal++;
	self->has_creator = false;
	self->context_depth = 0;
	self->in_bytes = self->in_calls = 0;
	self->out_bytes = self->out_calls = 0;
	self->alive_from_ns = clock_monotonic_ns();
}

void thread_attach_created(const struct thread_origin *origin)
{
	if (!runtime_active() || thread_current)
		return;
	if (!attach(origin))
		log_internal("out of memory for a new thread's state; the "
			     "thread is not profiled");
}

int thread_key_create(void)
{
	return pthread_key_create(&runtime.thread_key, thread_exit);
}
