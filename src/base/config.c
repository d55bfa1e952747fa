/*
 * config.c - TRMS_* environment variables (see config.h).
 */
#define _GNU_SOURCE
#include "base/config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/vm.h"

struct config config VM_SET_APART;


/* @value, which may be empty, into the @cap bytes at @to.  An empty value
 * writes nothing: config_load runs once, over a zeroed config, and no text
 * setting has a default that is not empty and accepts an empty value; the
 * long path buffers are pages of their own, which most processes never
 * need to touch. */
static int copy_text(char *to, size_t cap, const char *value)
{
	size_t len = strlen(value);

	if (len >= cap)
		return -EINVAL;
	if (len)
		memcpy(to, value, len + 1);
	return 0;
}

static int apply_output(struct config *c, const char *value)
{
	if (!*value)
		return -EINVAL;
	return copy_text(c->output, sizeof(c->output), value);
}

static int apply_trace(struct config *c, const char *value)
{
	int rc = copy_text(c->trace, sizeof(c->trace), value);

	if (!rc)
		c->tracing = *value != '\0';
	return rc;
}

static int apply_metrics_dir(struct config *c, const char *value)
{
	/* The file's name is appended: room for "/trms-NAME-PID.prom". */
	if (strlen(value) + 300 >= sizeof(c->metrics_dir))
		return -EINVAL;
	return copy_text(c->metrics_dir, sizeof(c->metrics_dir), value);
}

/* Which of the @n words @names @value is, or -1. */
static int choice(const char *value, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return i;
	return -1;
}

#define CHOICE(value, ...)                                                \
	choice(value, (const char *const[]){ __VA_ARGS__ },               \
	       (int)(sizeof((const char *const[]){ __VA_ARGS__ }) /       \
		     sizeof(const char *)))

static int apply_granularity(struct config *c, const char *value)
{
	int i = CHOICE(value, "1", "2", "4", "8", "16");

	if (i < 0)
		return -EINVAL;
	c->granularity = 1u << i;
	return 0;
}

static int apply_cost(struct config *c, const char *value)
{
	/* In the order of enum cost_unit. */
	int i = CHOICE(value, "ns", "events");

	if (i < 0)
		return -EINVAL;
	c->cost = (enum cost_unit)i;
	return 0;
}

static int apply_verbose(struct config *c, const char *value)
{
	if (strlen(value) != 1 || value[0] < '0' || value[0] > '2')
		return -EINVAL;
	c->verbose = value[0] - '0';
	return 0;
}

/* A whole number from @min to @max, decimal digits only, nothing around
 * it.  (No strtoul: it takes signs and blanks, and its code is pages of
 * the C library that a process which never parses a number need not
 * have brought in.) */
static int parse_unsigned(const char *value, unsigned long min,
			  unsigned long max, unsigned *out)
{
	unsigned long n = 0;
	const char *p = value;

	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > max)
			return -EINVAL;
	}
	if (p == value || *p || n < min)
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

static int apply_sample_hz(struct config *c, const char *value)
{
	return parse_unsigned(value, 0, 10000, &c->sample_hz);
}

static int apply_sample_timer(struct config *c, const char *value)
{
	/* In the order of enum sample_timer. */
	int i = CHOICE(value, "auto", "tick", "perf");

	if (i < 0)
		return -EINVAL;
	c->sample_timer = (enum sample_timer)i;
	return 0;
}

static int apply_sample_clock(struct config *c, const char *value)
{
	int i = CHOICE(value, "cpu", "wall");

	if (i < 0)
		return -EINVAL;
	c->sample_wall = i == 1;
	return 0;
}

/* A signal the library may take for itself as the sampling toggle: not
 * one that the program's faults raise (the toggle would swallow a crash,
 * or make a breakpoint harmless), not one that cannot be caught, not the
 * C library's own (32 and 33, below SIGRTMIN), and not SIGTRAP, on which
 * samples may arrive.  (Sampling never chooses the toggle signal.) */
static bool toggle_signal_allowed(long sig)
{
	static const int refused[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				       SIGTRAP, SIGSYS, SIGKILL, SIGSTOP };

	if (sig < 1 || sig > SIGRTMAX || (sig > 31 && sig < SIGRTMIN))
		return false;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (sig == refused[i])
			return false;
	return true;
}

static int apply_sample_signal(struct config *c, const char *value)
{
	unsigned sig;

	if (!*value)
		c->sample_toggle_signal = 0;
	else if (parse_unsigned(value, 1, (unsigned long)SIGRTMAX, &sig) ||
		 !toggle_signal_allowed(sig))
		return -EINVAL;
	else
		c->sample_toggle_signal = (int)sig;
	return 0;
}

static int apply_activation_sample(struct config *c, const char *value)
{
	return parse_unsigned(value, 1, 1u << 24, &c->activation_sample);
}

/* A percentage above 0 and at most 100, with at most two decimals; 0 or
 * empty: no budget. */
static int apply_budget(struct config *c, const char *value)
{
	unsigned whole = 0, hundredths = 0;
	const char *p = value;

	if (!*p) {
		c->budget_centi = 0;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((whole = whole * 10 + (unsigned)(*p - '0')) > 100)
			return -EINVAL;
	if (*p == '.') {
		unsigned digits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 2)
				hundredths = hundredths * 10 +
					     (unsigned)(*p - '0');
		if (!digits)
			return -EINVAL;
		if (digits == 1)
			hundredths *= 10;
	}
	if (*p || whole * 100 + hundredths > 10000)
		return -EINVAL;
	c->budget_centi = whole * 100 + hundredths;
	return 0;
}

/* "I/K": part I (1 to K) of K; empty: no partition. */
static int apply_partition(struct config *c, const char *value)
{
	char first[16];
	const char *slash = strchr(value, '/');
	unsigned index, count;

	if (!*value) {
		c->partition_index = c->partition_count = 1;
		return 0;
	}
	if (!slash || (size_t)(slash - value) >= sizeof(first))
		return -EINVAL;
	memcpy(first, value, (size_t)(slash - value));
	first[slash - value] = '\0';
	if (parse_unsigned(first, 1, 1024, &index) ||
	    parse_unsigned(slash + 1, 1, 1024, &count) || index > count)
		return -EINVAL;
	c->partition_index = index;
	c->partition_count = count;
	return 0;
}

/* Seconds with up to 9 decimals ("5", "0.2"), 0 for none, else at least
 * 0.05 and at most a day, into nanoseconds; no strtod: the program's
 * locale may want a comma. */
static int apply_interval(struct config *c, const char *value)
{
	uint64_t ns = 0, scale = 1000000000u;
	const char *p = value;

	if (!*p || *p == '.')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ns > 86400ull * 1000000000u)
			return -EINVAL;
		ns = ns * 10 + (uint64_t)(*p - '0') * 1000000000u;
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++) {
			scale /= 10;
			ns += (uint64_t)(*p - '0') * scale;
		}
	if (*p || (ns && ns < 50000000u) || ns > 86400ull * 1000000000u)
		return -EINVAL;
	c->interval_ns = ns;
	return 0;
}

static int apply_run_socket(struct config *c, const char *value)
{
	return copy_text(c->run_socket, sizeof(c->run_socket), value);
}

/* "0" or "1" into *@flag. */
static int apply_flag(const char *value, bool *flag)
{
	if (strcmp(value, "0") && strcmp(value, "1"))
		return -EINVAL;
	*flag = value[0] == '1';
	return 0;
}

static int apply_off(struct config *c, const char *value)
{
	return apply_flag(value, &c->off);
}

static int apply_empty(struct config *c, const char *value)
{
	int i = CHOICE(value, "skip", "keep");

	if (i < 0)
		return -EINVAL;
	c->keep_empty = i == 1;
	return 0;
}

static int apply_sample_trap(struct config *c, const char *value)
{
	return apply_flag(value, &c->sample_trap);
}

static int apply_exact_kinds(struct config *c, const char *value)
{
	return apply_flag(value, &c->exact_kinds);
}

/* "auto", N with an optional K, M, G or T (powers of 1024), or P%
 * (1 to 100) of the machine's memory. */
static int apply_memory_limit(struct config *c, const char *value)
{
	uint64_t n = 0;
	const char *s = value;

	c->memory_limit = 0;
	c->memory_limit_percent = 0;
	if (!strcmp(value, "auto"))
		return 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	if (!strcmp(s, "%")) {
		if (n < 1 || n > 100)
			return -EINVAL;
		c->memory_limit_percent = (unsigned)n;
		return 0;
	}
	static const char units[] = "KMGT";
	const char *unit = *s ? strchr(units, *s) : NULL;
	if (*s && (!unit || s[1]))
		return -EINVAL;
	for (int shift = unit ? 10 * (int)(unit - units + 1) : 0; shift;
	     shift -= 10) {
		if (n > UINT64_MAX >> 10)
			return -EINVAL;
		n <<= 10;
	}
	if (n < ((uint64_t)1 << 20))
		return -EINVAL;
	c->memory_limit = n;
	return 0;
}

/* Every setting; `trms run` offers those with a run option as options of
 * its own, which set the variable (see config_run_option). */
static const struct config_setting settings[] = {
	{ "TRMS_OUTPUT", "a path; %p is the pid, %e the name the program "
			 "was started as, %% a percent sign",
	  "where the profile is written; under `trms run`, where trms run "
	  "says",
	  "%e.%p.trms", { 0 }, apply_output },
	{ "TRMS_GRANULARITY", "1, 2, 4, 8 or 16",
	  "bytes per memory cell: smaller is exact to the byte, larger "
	  "uses less shadow memory",
	  "4", { 'g', "granularity", "K", "1, 2, 4, 8 or 16" },
	  apply_granularity },
	{ "TRMS_COST", "ns or events",
	  "ns: elapsed time; events: number of trms_read/trms_write calls "
	  "(deterministic)",
	  "ns", { 'c', "cost", "UNIT", "ns or events" }, apply_cost },
	{ "TRMS_VERBOSE", "0, 1 or 2",
	  "1: say at start that the library is active and at exit where the "
	  "profile went; 2: debugging detail",
	  "0", { 0 }, apply_verbose },
	{ "TRMS_OFF", "0 or 1",
	  "1: the library stays loaded but records and writes nothing", "0",
	  { 0 }, apply_off },
	{ "TRMS_EMPTY", "skip or keep",
	  "what a process that recorded nothing (no samples, no regions, "
	  "no I/O) leaves: skip: no profile; keep: a profile all the same "
	  "(trms run --all keeps them for every process it runs)",
	  "skip", { 0 }, apply_empty },
	{ "TRMS_SAMPLE_HZ", "0 to 10000",
	  "call-stack samples per second of each thread's CPU time (0: "
	  "no sampling); up to the kernel's tick rate (at least 100) "
	  "the tick times them at almost no cost, faster needs a "
	  "perf_event timer (see docs/sampling.md)",
	  "100",
	  { 'F', "sample-hz", "HZ",
	    "call-stack samples per second of each thread, 0 to 10000; 0 "
	    "turns sampling off (default 100)" },
	  apply_sample_hz },
	{ "TRMS_SAMPLE_CLOCK", "cpu or wall",
	  "cpu: sample threads as they use CPU time; wall: every thread at "
	  "the rate, blocked or not",
	  "cpu",
	  { 0, "sample-clock", "C",
	    "cpu (threads sampled as they use CPU time) or wall (every "
	    "thread, blocked or not)" },
	  apply_sample_clock },
	{ "TRMS_SAMPLE_TIMER", "auto, tick or perf",
	  "the timer of CPU-clock samples: auto, the CPU-time timer up to "
	  "the kernel's tick rate and the perf_event task clock above it, "
	  "which a thread that waits more than 2,000 times per second of "
	  "its CPU time leaves for the CPU-time timer; "
	  "tick, the CPU-time timer at any rate (above the tick rate each "
	  "signal counts the periods it covers: cheapest, coarser); perf, "
	  "the task clock at any rate; see docs/sampling.md",
	  "auto", { 0 }, apply_sample_timer },
	{ "TRMS_SAMPLE_TRAP", "0 or 1",
	  "above the tick rate, 1: the perf_event timer raises SIGTRAP "
	  "itself, the cheapest way (not if a debugger is attached at "
	  "start or the program handles SIGTRAP then); 0: it sends a "
	  "real-time signal; see docs/sampling.md",
	  "1", { 0 }, apply_sample_trap },
	{ "TRMS_SAMPLE_SIGNAL",
	  "a signal number, or empty; not SIGSEGV, SIGBUS, SIGILL, SIGFPE, "
	  "SIGTRAP, SIGSYS, SIGKILL, SIGSTOP nor 32 or 33",
	  "sending this signal to the process turns sampling off and on",
	  "", { 0 }, apply_sample_signal },
	{ "TRMS_INTERVAL", "seconds, 0.05 to 86400 (decimals allowed), or 0",
	  "every so many seconds, write the profile of the time since the "
	  "last one (a window) beside the main profile, as NAME.wN.trms; "
	  "the profile at exit still covers the whole run (0: no windows; "
	  "see docs/windows.md)",
	  "0",
	  { 0, "interval", "S",
	    "every S seconds (decimals allowed, at least 0.05) each process "
	    "also writes the profile of the last S seconds, a window "
	    "(default 0: none)" },
	  apply_interval },
	{ "TRMS_METRICS_DIR", "a directory, or empty; %p and %e as in "
			      "TRMS_OUTPUT",
	  "also write the profile so far as metrics for Prometheus, to "
	  "DIR/trms-NAME-PID.prom (node-exporter's textfile collector reads "
	  "them), every TRMS_INTERVAL seconds (10 without windows) and at "
	  "exit; see docs/metrics.md",
	  "", { 0 }, apply_metrics_dir },
	{ "TRMS_TRACE", "a path, or empty",
	  "write every operation of the engine, in the order it did them, "
	  "as a trace `trms replay` reads, to check the profile against the "
	  "definitions; for small programs: it serialises the threads",
	  "", { 0 }, apply_trace },
	{ "TRMS_ACTIVATION_SAMPLE", "1 to 16777216",
	  "measure about one activation in N of each region on each "
	  "thread, chosen at random among those that begin outside any "
	  "measured activation; everything inside a measured one is "
	  "measured (1: every activation; see docs/production.md)",
	  "1",
	  { 0, "activation-sample", "N",
	    "measure about one activation in N of each region (default 1: "
	    "all)" },
	  apply_activation_sample },
	{ "TRMS_BUDGET", "a percentage above 0 and at most 100 (two "
			 "decimals at most), or empty",
	  "measure as many activations as the budget allows: each "
	  "thread adapts the rate of each region so that the library "
	  "takes at most this share of its CPU time (costs in ns only; see "
	  "docs/production.md)",
	  "",
	  { 0, "budget", "P",
	    "keep the library under P% of each thread's CPU time by "
	    "measuring fewer activations" },
	  apply_budget },
	{ "TRMS_EXACT_KINDS", "0 or 1",
	  "with TRMS_ACTIVATION_SAMPLE or TRMS_BUDGET, 1: record every read "
	  "and write outside measured activations too, so that each "
	  "measured activation's induced reads have exactly the kinds "
	  "(thread, external) of a full run; 0: skip them, which changes "
	  "no measured trms, rms or cost (see docs/production.md)",
	  "0", { 0 }, apply_exact_kinds },
	{ "TRMS_MEMORY_LIMIT",
	  "auto, a size of 1M or more (bytes, or with K, M, G or T: powers "
	  "of 1024), or a percentage of the machine's memory (1% to 100%)",
	  "the most memory the library may hold in the process (its shadow "
	  "memory above all): past it, it measures nothing that needs more "
	  "and says in the profile what it left out; auto: a quarter of the "
	  "machine's memory or of the process's control group's limit, and "
	  "an eighth of what RLIMIT_AS and RLIMIT_DATA leave, whichever is "
	  "least (see docs/production.md)",
	  "auto", { 0, "memory-limit", "SIZE",
		    "the most memory the library may hold in each process "
		    "(default auto; see TRMS_MEMORY_LIMIT)" },
	  apply_memory_limit },
	{ "TRMS_PARTITION", "I/K, 1 <= I <= K <= 1024, or empty",
	  "measure only the regions in part I of K (by a hash of the "
	  "name): K processes share the work, and `trms merge` of their K "
	  "profiles is the full profile; see `trms run --partitions`",
	  "", { 0 }, apply_partition },
	{ "TRMS_RUN_SOCKET", "what trms run sets, or empty",
	  "set by `trms run`: where each process hands over its profile "
	  "(or says why it has none); see `trms run --help`",
	  "", { 0 }, apply_run_socket },
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

void config_load(void)
{
	/* (No memset first: config starts zeroed, and every setting's
	 * fallback sets its fields; clearing its path buffers would touch
	 * three pages that most processes never need.) */
	for (size_t i = 0; i < N_SETTINGS; i++)
		settings[i].apply(&config, settings[i].fallback);
	log_verbosity = config.verbose;
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const char *value = getenv(settings[i].name);
		if (!value)
			continue;
		if (settings[i].apply(&config, value) != 0) {
			log_message(LOG_CLIENT,
				    "%s=%s is not valid (accepted: %s); using "
				    "%s",
				    settings[i].name, value,
				    settings[i].accepted,
				    settings[i].fallback);
			settings[i].apply(&config, settings[i].fallback);
		}
	}
	log_verbosity = config.verbose;
}

const struct config_setting *config_settings(size_t *n)
{
	*n = N_SETTINGS;
	return settings;
}

const struct config_setting *config_setting(const char *name)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (!strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}

const char *config_cost_name(enum cost_unit cost)
{
	return cost == COST_EVENTS ? "events" : "ns";
}
