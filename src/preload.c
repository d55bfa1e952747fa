/*
 * preload.c - starting and stopping the library inside a process: read the
 * configuration, set up the engine, and write the profile at exit.
 */
#define _GNU_SOURCE
#include "runtime/thread.h"

#include <string.h>
#include <sys/auxv.h>
#include <sys/single_threaded.h>
#include <time.h>
#include <unistd.h>

#include "annotated.h"
#include "base/log.h"
#include "base/memory_limit.h"
#include "runtime/sweep.h"
#include "base/vm.h"
#include "output/output.h"
#include "base/real.h"
#include "output/run_link.h"
#include "output/profile_write.h"
#include "hooks.h"
#include "output/trace_write.h"
#include "output/window_write.h"

/* The limit of the library's memory, as TRMS_MEMORY_LIMIT gives it (0:
 * auto, set when regions are first expected: runtime_expect_regions). */
static size_t memory_limit(void)
{
	if (config.memory_limit)
		return (size_t)config.memory_limit;
	size_t physical = memory_physical();
	if (config.memory_limit_percent && physical)
		return physical / 100 * config.memory_limit_percent;
	return 0;
}

static void go_inert(const char *why)
{
	runtime_go_inert();
	if (why)
		log_info("inactive: %s", why);
}

static void start_once(void)
{
	struct engine_config engine_config;
	char path[CONFIG_PATH_MAX];

	real_resolve();
	config_load();
	if (config.off)
		return go_inert("TRMS_OFF=1");
	/* A set-uid or otherwise privileged program: its environment is not
	 * to be trusted and it must not write files for the user. */
	if (getauxval(AT_SECURE))
		return go_inert(NULL);
	if (config.budget_centi && config.cost == COST_EVENTS) {
		log_client("TRMS_BUDGET needs costs in ns (the library times "
			   "itself only then); no budget with TRMS_COST=events: "
			   "use TRMS_ACTIVATION_SAMPLE instead");
		config.budget_centi = 0;
	}
	selection_configure();
	vm_set_limit(memory_limit());
	output_init();
	run_link_init();
	engine_config.granularity = config.granularity;
	engine_config.stamp_bits = 0;
	if (engine_init(&runtime.engine, &engine_config)) {
		log_internal("cannot set up the engine; profiling disabled");
		return go_inert(NULL);
	}
	sweep_init();
	/* Until the program makes a second thread, writes need not take a
	 * fresh value of the engine's write clock: the C library's own flag
	 * says so, cleared by pthread_create before the thread exists
	 * (whoever calls it: a sanitizer's interceptor, another preloaded
	 * library).  A thread made without the C library (a raw clone) is
	 * not seen: docs/hooks.md. */
	engine_set_single_writer(&runtime.engine, &__libc_single_threaded);
	trace_start();
	pthread_mutex_init(&runtime.lock, NULL);
	pthread_mutex_init(&runtime.flush_lock, NULL);
	CDS_INIT_LIST_HEAD(&runtime.threads);
	atomic_init(&runtime.generation, 1);
	atomic_init(&runtime.tag, 1);
	atomic_init(&runtime.finished, false);
	atomic_init(&runtime.record_io, false);
	if (annotated_scan())
		runtime_expect_regions();
	log_debug("%s", atomic_load(&runtime.record_io)
				? "the program can open regions: its I/O is "
				  "recorded from the start"
				: "no code here opens regions: I/O is recorded "
				  "once one is named");
	runtime.start_realtime_ns = runtime_realtime_ns();
	runtime.pid = getpid();
	if (thread_key_create()) {
		log_internal("cannot create a thread key; profiling disabled");
		return go_inert(NULL);
	}
	process_hooks_start();
	signal_hooks_start();
	atomic_store(&runtime_state, RUNTIME_ACTIVE);
	struct sampler_config sampling = {
		.hz = config.sample_hz,
		.wall = config.sample_wall,
		.trap = config.sample_trap,
		.tick_timer = config.sample_timer == SAMPLE_TIMER_TICK,
		.perf_timer = config.sample_timer == SAMPLE_TIMER_PERF,
		.toggle_signal = config.sample_toggle_signal,
		.objects_now = atomic_load(&runtime.record_io),
		.open_regions = thread_open_regions,
		.exclude_ticks = thread_exclude_ticks,
	};
	sampler_start(&sampling);
	/* The thread that starts the library (normally the main thread) is
	 * thread 0.  (Costs in nanoseconds are calibrated later, at the first
	 * region: see api.c.) */
	(void)thread_self();
	window_writer_start();
	if (output_expand(config.output, getpid(), path, sizeof(path)))
		strcpy(path, "(a path too long to use)");
	else if (!run_link_active())
		/* Under trms run, trms run checks and says. */
		output_check_directory(path);
	log_info("trms %s active: granularity %u, cost in %s, profile to %s",
		 TRMS_VERSION_TEXT, config.granularity,
		 config_cost_name(config.cost), path);
}

static void start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, start_once);
}

void runtime_start(void)
{
	/* Not while the dynamic loader relocates the program: instrumented
	 * code it runs then (an ifunc resolver, before any constructor)
	 * finds the C library not initialised and other objects'
	 * thread-local storage not set up, and starting would use
	 * liburcu-bp's.  The C library sets __libc_single_threaded once it
	 * is initialised, before any constructor, and clears it only when
	 * a second thread starts: a constructor that ran before this
	 * library's and made a thread waits for this library's constructor,
	 * which starts it regardless.  Nor from the program's
	 * .preinit_array, which runs before the C library's own constructor
	 * has set `environ`: the settings (TRMS_OUTPUT, TRMS_OFF, ...) would
	 * not be read. */
	if (__libc_single_threaded && environ)
		start();
}

__attribute__((constructor)) static void trms_constructor(void)
{
	start();
}

__attribute__((destructor)) static void trms_destructor(void)
{
	/* (Not in a child made by vfork, which shares the parent's memory
	 * and must not mark it as exiting.) */
	if (!runtime_active() || !runtime_own_process())
		return;
	profile_write_exit_begin();
	uint64_t start = clock_monotonic_ns();
	log_debug("exit: writing the profile");
	/* The last window and metrics file end with the calling thread's
	 * open regions, as the whole run's profile does. */
	thread_close_own();
	window_writer_stop(true);
	profile_write_now(WRITE_EXIT);
	profile_write_exit_end();
	/* What the exit costs the process (TRMS_VERBOSE=2). */
	log_debug("exit: profile written in %.3f ms",
		  (double)(clock_monotonic_ns() - start) / 1e6);
}
