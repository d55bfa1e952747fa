/*
 * sampler_handler.c - taking a sample: the interrupted thread's frames,
 * its open regions placed among them, into its calling context tree.
 * Runs in the sampling signal's handler: async-signal-safe, no lock, no
 * malloc, no system call (but for a tree's memory growing).
 */
#define _GNU_SOURCE
#include "sampler_internal.h"

#include <sys/single_threaded.h>

#include "clock.h"
#include "modules.h"
#include "vm.h"

#define UNKNOWN_MODULE 0xffffffu

/* Scratch space for the handler, one per thread: no stack spent on it. */
struct scratch {
	uintptr_t ip[MAX_FRAMES];
	uintptr_t sp[MAX_FRAMES];
	struct sampler_region regions[CCT_MAX_DEPTH];
	struct cct_step path[CCT_MAX_DEPTH];
};

static __thread struct scratch *scratch
	__attribute__((tls_model("initial-exec")));

/* See sampler_charge_caller. */
static __thread bool charge_caller __attribute__((tls_model("initial-exec")));

void sampler_scratch_init(void)
{
	if (!scratch)
		scratch = vm_alloc(sizeof(*scratch));
}

void sampler_charge_caller(bool on)
{
	charge_caller = on;
}

static bool in_own_module(const struct modules_view *view, uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	uint32_t library = modules_library();

	return library != UINT32_MAX &&
	       modules_find_in(view, ip, &module, &offset) &&
	       module == library;
}

/* The frame of @ip[0..@n) that called the library's frames nearest the
 * leaf (0 if there are none): those, and what they called, cut off. */
static unsigned caller_of_library(const struct modules_view *view,
				  const uintptr_t *ip, unsigned n)
{
	unsigned i = 0;

	while (i < n && !in_own_module(view, ip[i]))
		i++;
	while (i < n && in_own_module(view, ip[i]))
		i++;
	return i < n ? i : 0;
}

static struct cct_step frame_step(const struct modules_view *view,
				  uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	if (!modules_find_in(view, ip, &module, &offset)) {
		module = UNKNOWN_MODULE;
		offset = ip;
	}
	return (struct cct_step){ CCT_FRAME,
				  CCT_FRAME_KEY(module, offset &
							((1ull << 40) - 1)) };
}

/* @s's path: its creation context, then frames @first..@n-1 of @x->ip
 * (stack pointers in @x->sp) from the outermost in, with @s's open
 * regions placed after the frame that opened each (the deepest frame
 * whose stack pointer is at or above the one recorded when the region
 * began).  @return the path's length. */
static unsigned build_path(const struct sampler_thread *s,
			   const struct modules_view *view, struct scratch *x,
			   unsigned first, unsigned n, struct cct_step *path,
			   unsigned max)
{
	unsigned depth = sampler.open_regions
				 ? sampler.open_regions(s->owner, x->regions,
							CCT_MAX_DEPTH)
				 : 0;
	const struct sampler_region *open = x->regions;
	unsigned region = 0, len = 0;

	for (unsigned i = 0; i < s->context_len && len < max; i++)
		path[len++] = s->context[i];
	for (unsigned i = n; i-- > first && len < max;) {
		while (region < depth && x->sp[i] < open[region].cfa &&
		       len < max)
			path[len++] = (struct cct_step){
				CCT_REGION, open[region++].region };
		if (len < max)
			path[len++] = frame_step(view, x->ip[i]);
	}
	while (region < depth && len < max)
		path[len++] = (struct cct_step){ CCT_REGION,
						 open[region++].region };
	return len;
}

static bool in_sync_routine(uintptr_t ip)
{
	for (unsigned i = 0; i < sampler.n_sync; i++)
		if (ip >= sampler.sync[i].start && ip < sampler.sync[i].end)
			return true;
	return false;
}

static void drop(struct sampler_thread *s, enum sample_drop why,
		 uint64_t periods)
{
	cct_add(&s->dropped[why], periods);
}

/* The sample, walked within @view: its path into the tree.  @return the
 * tree's node for it, or NULL (a drop, counted). */
static struct cct_node *record_walk(struct sampler_thread *s,
				    const struct modules_view *view,
				    struct scratch *x, void *uctx,
				    uint64_t periods)
{
	unsigned n = unwind_frames(&s->stack, view, uctx, true, x->ip, x->sp,
				   MAX_FRAMES);

	if (!n) {
		drop(s, DROP_UNWIND, periods);
		return NULL;
	}
	unsigned first = charge_caller ? caller_of_library(view, x->ip, n) : 0;
	if (in_own_module(view, x->ip[first])) {
		drop(s, DROP_IN_LIBRARY, periods);
		return NULL;
	}
	unsigned len = build_path(s, view, x, first, n, x->path,
				  CCT_MAX_DEPTH);
	struct cct_node *leaf = cct_insert(&s->cct, x->path, len);
	if (!leaf)
		drop(s, DROP_NO_MEMORY, periods);
	return leaf;
}

/* Record the sample of @periods periods (more than one when the timer
 * expired again before its signal was taken) at the interrupted stack. */
static void take_sample(struct sampler_thread *s, void *uctx,
			uint64_t periods)
{
	struct scratch *x = scratch;

	if (!x) {
		drop(s, DROP_NO_MEMORY, periods);
		return;
	}
	/* The first sample of a process that has kept to one thread sets
	 * libunwind up and takes the table of loaded objects (see
	 * sampler_capture_context for the others). */
	if ((!unwind_ready() &&
	     (!__libc_single_threaded || unwind_prepare(true) != 0)) ||
	    !modules_ready(true)) {
		drop(s, DROP_UNWIND, periods);
		return;
	}
	/* dlclose may be unmapping the unwind tables the walk reads. */
	const struct modules_view *view = modules_walk_begin();
	if (!view) {
		drop(s, DROP_IN_LOADER, periods);
		return;
	}
	struct cct_node *leaf = record_walk(s, view, x, uctx, periods);
	bool in_sync = leaf && in_sync_routine(x->ip[0]);
	modules_walk_end();
	if (!leaf)
		return;
	cct_add(&leaf->samples, periods);
	/* A CPU-time timer fires only on a thread that is running: inside
	 * a hooked write() copying data, say, it is working.  Only on the
	 * wall clock can a sample find the thread waiting. */
	if (sampler.wall && __atomic_load_n(&s->blocked, __ATOMIC_RELAXED)) {
		cct_add(&leaf->blocked, periods);
	} else {
		double idle, working;
		sampler_count_threads(&idle, &working);
		cct_add(&leaf->work, periods);
		cct_add_idleness(leaf, (double)periods * idle / working);
		if (in_sync)
			cct_add(&leaf->overhead, periods);
	}
	cct_add(&s->samples, periods);
	cct_add(&s->overrun, periods - 1);
}

void sampler_on_sample(int sig, siginfo_t *info, void *uctx)
{
	struct sampler_thread *s = sampler_self;

	(void)sig;
	if (!s) {
		atomic_fetch_add_explicit(&sampler.unattached, 1,
					  memory_order_relaxed);
		return;
	}
	__atomic_store_n(&s->signalled, true, __ATOMIC_RELEASE);
	/* A CPU-time timer is checked at the kernel's ticks: when a tick
	 * finds more than one period used up, one signal comes for all of
	 * them, and the rest are its overrun. */
	uint64_t periods = 1;
	if (info && info->si_code == SI_TIMER && info->si_overrun > 0)
		periods += (uint64_t)info->si_overrun;
	uint64_t start = clock_ticks();
	bool in_program = false;
	if (!atomic_load_explicit(&sampler.on, memory_order_relaxed)) {
		/* a signal still in flight when sampling was turned off */
	} else if (s->busy && *s->busy) {
		drop(s, DROP_IN_LIBRARY, periods);
	} else if (modules_loader_busy()) {
		drop(s, DROP_IN_LOADER, periods);
	} else {
		/* libunwind calls dl_iterate_phdr and sigprocmask, which are
		 * hooked: inside a handler of the library's the hooks go
		 * straight through, recording nothing and taking no lock of
		 * the library's (the interrupted code may hold one), and
		 * answer sigprocmask without the kernel: every signal is
		 * blocked already (signals.h). */
		take_sample(s, uctx, periods);
		in_program = true;
	}
	sampler_judge_waits(s, periods);
	uint64_t ticks = clock_ticks() - start;
	cct_add(&s->handler_ticks, ticks);
	/* The program's code was interrupted, perhaps inside a measured
	 * activation, whose cost must not have the library's time in it.
	 * (Inside the library's code, the call that was interrupted keeps
	 * its own time out, or charges its estimate.) */
	if (in_program && sampler.exclude_ticks &&
	    sampler.exclude_ticks(s->owner, ticks))
		cct_add(&s->handed_ticks, ticks);
}

unsigned sampler_capture(struct sampler_thread *s, struct cct_step *steps,
			 unsigned max)
{
	struct scratch *x = scratch;
	const struct modules_view *view;

	if (!x || !(view = modules_walk_begin()))
		return 0;
	unsigned n = unwind_frames_here(&s->stack, view, x->ip, x->sp,
					MAX_FRAMES);
	/* Leave out the library's own frames (this function and the
	 * pthread_create hook). */
	unsigned first = 0;
	while (first < n && in_own_module(view, x->ip[first]))
		first++;
	if (modules_library() == UINT32_MAX)
		first = n > 2 ? 2 : n;
	unsigned len = build_path(s, view, x, first, n, steps, max);
	modules_walk_end();
	return len;
}
