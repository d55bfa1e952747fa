/*
 * thread.c - the library's state for each thread of the program: created
 * on a thread's first call, kept until the process writes its profile.
 */
#define _GNU_SOURCE
#include "thread.h"

#include <string.h>

#include "log.h"
#include "memory_limit.h"
#include "vm.h"

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
	if (profile_record(atomic_load_explicit(&t->recording,
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
	profile_table_init(&t->profile);
	atomic_init(&t->recording, &t->profile);
	if (config.interval_ns && (t->windows = vm_alloc(sizeof(*t->windows)))) {
		profile_table_init(&t->windows->spare);
		profile_table_init(&t->windows->past);
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

static void thread_windows_free(struct trms_thread *t)
{
	if (!t->windows)
		return;
	profile_table_fini(&t->windows->spare);
	profile_table_fini(&t->windows->past);
	vm_free(t->windows, sizeof(*t->windows));
	t->windows = NULL;
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
		if (t == self)
			continue;
		cds_list_del(&t->link);
		if (!t->dead)
			engine_thread_fini(&t->engine);
		profile_table_fini(&t->profile);
		thread_windows_free(t);
		cct_fini(&t->sampler.cct);
		selection_thread_fini(&t->sel);
		vm_free(t, sizeof(*t));
	}
	runtime.next_ordinal = 0;
	gate_after_fork_child(self && self->sel.measuring);
	if (!self)
		return;
	profile_table_fini(&self->profile); /* and empty */
	selection_after_fork(&self->sel);
	atomic_store(&self->recording, &self->profile);
	if (self->windows) {
		profile_table_fini(&self->windows->spare);
		profile_table_fini(&self->windows->past);
		memset(self->windows, 0, sizeof(*self->windows));
		profile_table_init(&self->windows->spare);
		profile_table_init(&self->windows->past);
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
