/*
 * test_sampling.c - call-stack sampling, end to end: the helper programs
 * of this directory run with the library preloaded (LD_PRELOAD, as
 * `trms run` does), and their profiles are read back with
 * tools/profile_reader.c and `trms report`.
 *
 * One Check case per behaviour; meson runs each as a test of its own
 * (CK_RUN_CASE).  Every helper runs under a deadline: one that does not
 * finish in time is reported with the backtraces of all its threads
 * (gdb) and killed.  Nothing is retried: the rates, durations and
 * tolerances below are met by a correct implementation on a loaded
 * two-CPU machine every time.
 *
 * Environment: TRMS_LIB (the shared library), TRMS_BIN (the trms
 * command), SM_BIN_DIR (the helpers), SM_PLUGIN (the plugin module);
 * SM_STRESS_SECONDS, SM_STRESS_REPEAT, SM_STRESS_THREADS,
 * SM_STRESS_CLOCKS for the stress case; SM_KEEP=1 keeps the scratch
 * directories (/tmp/trms-sampling-*), which a failing case leaves behind
 * anyway, with the profiles, outputs and backtraces it looked at.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../suite_main.h"
#include "profile_reader.h"

/* Check can carry messages of a few kilobytes only: a longer one (the
 * backtraces of a hung program's threads, say) goes whole to stderr and
 * shortened into the failure. */
#define SM_MSG_MAX 3000
#define SM_CHECK(cond, ...)                                                 \
	do {                                                               \
		if (!(cond)) {                                             \
			char *m_ = sm_format(__VA_ARGS__);                 \
			bool long_ = strlen(m_) > SM_MSG_MAX;              \
			if (long_)                                         \
				fprintf(stderr, "%s\n", m_);               \
			ck_abort_msg("%.*s%s", SM_MSG_MAX, m_,             \
				     long_ ? " [... cut: the whole message " \
					     "is on stderr]"               \
					   : "");                          \
		}                                                          \
	} while (0)

static char *sm_format(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *sm_format(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("(out of memory formatting the message)");
}

/* Seconds a short helper gets before it is taken for hung: about eight
 * times what the slowest (sm-eintr, 5 s) takes on a loaded two-CPU
 * machine. */
#define SM_DEADLINE 40

/* ---- scratch directory ---- */

static char scratch[256];

static void setup(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/trms-sampling-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void teardown(void)
{
	char cmd[400];
	const char *keep = getenv("SM_KEEP");

	if (keep && *keep == '1') {
		fprintf(stderr, "sampling tests: kept %s\n", scratch);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch);
}

static const char *need_env(const char *name)
{
	const char *v = getenv(name);

	SM_CHECK(v && *v, "the environment variable %s is not set (run "
			       "the tests through meson test)", name);
	return v;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	return s;
}

static char *helper(const char *name)
{
	return xasprintf("%s/%s", need_env("SM_BIN_DIR"), name);
}

/* A fresh directory under the scratch one. */
static char *make_dir(const char *name)
{
	char *dir = xasprintf("%s/%s", scratch, name);

	SM_CHECK(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir,
		      strerror(errno));
	return dir;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *data = NULL;
	size_t len = 0;

	if (!f)
		return strdup("");
	FILE *mem = open_memstream(&data, &len);
	ck_assert_ptr_nonnull(mem);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	fclose(mem);
	return data;
}

/* ---- running a program ---- */

struct run {
	int status;  /* exit status, or 128 + signal */
	bool timed_out;
	double seconds;
	char *out, *err;
	char *stacks; /* with timed_out: every thread's backtrace */
	char *command; /* for messages */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The settings the library reads, cleared in the child so that the
 * caller's environment cannot change what a test measures. */
static const char *const trms_settings[] = {
	"LD_PRELOAD",	    "TRMS_OUTPUT",	  "TRMS_SAMPLE_HZ",
	"TRMS_SAMPLE_CLOCK", "TRMS_SAMPLE_SIGNAL", "TRMS_OFF",
	"TRMS_COST",	    "TRMS_VERBOSE",	  "TRMS_GRANULARITY",
	"TRMS_RUN_SOCKET",  "TRMS_SAMPLE_TRAP",
};

/* gdb's backtraces of every thread, the threads interrupted by a signal
 * (where the library's handler runs) first, without gdb's chatter. */
static char *tidy_stacks(const char *raw)
{
	char *s = NULL, *copy = strdup(raw);
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert(f && copy);
	for (int pass = 0; pass < 2; pass++) {
		char *p = copy;
		while ((p = strstr(p, "\nThread "))) {
			p++;
			char *end = strstr(p, "\nThread ");
			size_t n = end ? (size_t)(end - p) : strlen(p);
			bool in_handler = memmem(p, n, "<signal handler called>",
						 23) != NULL;
			if (in_handler == (pass == 0))
				fprintf(f, "%.*s", (int)n, p);
		}
	}
	fclose(f);
	free(copy);
	if (!*s) {
		free(s);
		return strdup(raw);
	}
	return s;
}

/* Run @argv in @dir with @env added ("K=V", NULL-terminated), its output
 * in @dir/stdout and @dir/stderr; kill it (its whole process group) after
 * @timeout seconds, first saving the backtraces of its threads. */
static void run_in(const char *dir, char *const argv[], char *const env[],
		   double timeout, struct run *r)
{
	char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
	FILE *cmd;
	size_t cmd_len;

	memset(r, 0, sizeof(*r));
	cmd = open_memstream(&r->command, &cmd_len);
	ck_assert_ptr_nonnull(cmd);
	fprintf(cmd, "cd %s &&", dir);
	for (size_t i = 0; env && env[i]; i++)
		fprintf(cmd, " %s", env[i]);
	for (size_t i = 0; argv[i]; i++)
		fprintf(cmd, " %s", argv[i]);
	fclose(cmd);

	double start = now_s();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		int in = open("/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || o < 0 || e < 0 || chdir(dir))
			_exit(126);
		dup2(in, 0);
		dup2(o, 1);
		dup2(e, 2);
		for (size_t i = 0; i < sizeof(trms_settings) /
					       sizeof(trms_settings[0]);
		     i++)
			unsetenv(trms_settings[i]);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		ck_assert_int_ge(w, 0);
		if (w == pid)
			break;
		if (now_s() - start > timeout) {
			char *gdb = xasprintf(
				"timeout 120 gdb -p %d -batch -nx "
				"-ex 'set pagination off' "
				"-ex 'thread apply all bt' >'%s/stacks' 2>&1",
				(int)pid, dir);
			if (system(gdb) != 0)
				fprintf(stderr, "gdb failed; see %s/stacks\n",
					dir);
			free(gdb);
			char *path = xasprintf("%s/stacks", dir);
			char *raw = slurp(path);
			r->stacks = tidy_stacks(raw);
			free(raw);
			free(path);
			r->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			ck_assert_int_eq(waitpid(pid, &status, 0), pid);
			break;
		}
		struct timespec nap = { 0, 5000000 };
		nanosleep(&nap, NULL);
	}
	r->seconds = now_s() - start;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status)
				      : 128 + WTERMSIG(status);
	r->out = slurp(out);
	r->err = slurp(err);
	free(out);
	free(err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	free(r->stacks);
	free(r->command);
}

/* The program finished in time with status @status. */
static void expect_status(const struct run *r, int status)
{
	SM_CHECK(!r->timed_out,
		      "%s: expected to finish, but it was still running "
		      "after %.1f s (a deadlock?); stdout: '%s', stderr: '%s'; "
		      "its threads were (gdb; also in stacks in that "
		      "directory):\n%s",
		      r->command, r->seconds, r->out, r->err,
		      r->stacks ? r->stacks : "?");
	SM_CHECK(r->status == status,
		      "%s: expected exit status %d, saw %d%s after %.1f s\n"
		      "stdout: %s\nstderr: %s",
		      r->command, status, r->status,
		      r->status > 128 ? " (killed by a signal: 128 + signal)"
				      : "",
		      r->seconds, r->out, r->err);
}

/* The environment of a sampled run: preloaded, its profiles in @dir. */
struct env {
	char *v[16];
	size_t n;
};

static void env_add(struct env *e, char *kv)
{
	ck_assert_uint_lt(e->n, sizeof(e->v) / sizeof(e->v[0]) - 1);
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
}

static void env_sampled(struct env *e, const char *dir, unsigned hz,
			const char *clock)
{
	memset(e, 0, sizeof(*e));
	env_add(e, xasprintf("LD_PRELOAD=%s", need_env("TRMS_LIB")));
	env_add(e, xasprintf("TRMS_OUTPUT=%s/%%e.%%p.trms", dir));
	env_add(e, xasprintf("TRMS_SAMPLE_HZ=%u", hz));
	env_add(e, xasprintf("TRMS_SAMPLE_CLOCK=%s", clock));
}

static void env_free(struct env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
}

static size_t read_profiles(const char *dir, struct profile_doc *docs,
			    size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	char err[1024];

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 5, ".trms"))
			continue;
		SM_CHECK(n < max, "more than %zu profiles in %s", max,
			      dir);
		char *path = xasprintf("%s/%s", dir, e->d_name);
		SM_CHECK(profile_read(path, &docs[n], err, sizeof(err)) ==
				      0,
			      "profile %s cannot be read: %s", path, err);
		free(path);
		n++;
	}
	closedir(d);
	return n;
}

/* Run @argv (whose argv[0] it frees) in a fresh directory named @name,
 * sampled at @hz of @clock, with @extra ("NAME=value") in its environment
 * too if not NULL; expect exit status @status, then read its one profile
 * into @doc if @doc is not NULL. */
static void run_sampled(const char *name, char *argv[], unsigned hz,
			const char *clock, const char *extra, int status,
			struct run *r, struct profile_doc *doc)
{
	char *dir = make_dir(name);
	struct env env;

	env_sampled(&env, dir, hz, clock);
	if (extra)
		env_add(&env, xasprintf("%s", extra));
	run_in(dir, argv, env.v, SM_DEADLINE, r);
	expect_status(r, status);
	if (doc)
		ck_assert_uint_eq(read_profiles(dir, doc, 1), 1);
	env_free(&env);
	free(argv[0]);
	free(dir);
}

/* ---- profiles ---- */

/* Read every profile in @dir (at most @max) into @docs. */

static uint64_t meta_u64(const struct profile_doc *doc, const char *key)
{
	const char *v = profile_meta(doc, key);

	SM_CHECK(v != NULL, "%s: expected a 'meta %s' line, there is none",
		      doc->path, key);
	return strtoull(v, NULL, 10);
}

/* A profile's calling context trees, with a label and subtree sums for
 * every node. */
struct tree {
	struct profile_doc *doc;
	size_t n;
	long *parent;  /* index into doc->cct, -1 for a root */
	char **label;  /* function name, "(thread start)", "[region]" */
	uint64_t *samples, *work, *blocked; /* over the subtree */
	double *idleness;		   /* over the subtree */
};

struct node_key {
	uint64_t key;
	size_t index;
};

static int by_node_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static char *node_label(struct profile_doc *doc, const struct profile_cct *c)
{
	switch (c->kind) {
	case PROFILE_CCT_THREAD:
		return strdup("(thread start)");
	case PROFILE_CCT_REGION: {
		const char *name = profile_region_name(doc, (uint32_t)c->a);
		return xasprintf("[%s]", name ? name : "?");
	}
	case PROFILE_CCT_FRAME:
		break;
	}
	const char *name = profile_symbol(doc, (uint32_t)c->a, c->b);
	if (name)
		return strdup(name);
	const struct profile_module *m = profile_module(doc, (uint32_t)c->a);
	const char *file = m ? strrchr(m->path, '/') : NULL;
	return xasprintf("%s+0x%" PRIx64,
			 m ? (file ? file + 1 : m->path) : "?", c->b);
}

static void tree_build(struct tree *t, struct profile_doc *doc)
{
	size_t n = doc->n_cct;
	struct node_key *keys = calloc(n + 1, sizeof(*keys));

	memset(t, 0, sizeof(*t));
	t->doc = doc;
	t->n = n;
	t->parent = calloc(n + 1, sizeof(*t->parent));
	t->label = calloc(n + 1, sizeof(*t->label));
	t->samples = calloc(n + 1, sizeof(*t->samples));
	t->work = calloc(n + 1, sizeof(*t->work));
	t->blocked = calloc(n + 1, sizeof(*t->blocked));
	t->idleness = calloc(n + 1, sizeof(*t->idleness));
	ck_assert(keys && t->parent && t->label && t->samples && t->work &&
		  t->blocked && t->idleness);
	for (size_t i = 0; i < n; i++) {
		keys[i].key = (uint64_t)doc->cct[i].thread << 32 |
			      doc->cct[i].node;
		keys[i].index = i;
	}
	qsort(keys, n, sizeof(*keys), by_node_key);
	for (size_t i = 0; i < n; i++) {
		const struct profile_cct *c = &doc->cct[i];
		t->parent[i] = -1;
		if (c->has_parent) {
			struct node_key k = { (uint64_t)c->thread << 32 |
						      c->parent,
					      0 };
			struct node_key *p = bsearch(&k, keys, n, sizeof(*keys),
						     by_node_key);
			SM_CHECK(p && p->index < i,
				      "%s: cct node %" PRIu32 " of thread %" PRIu32
				      " has parent %" PRIu32
				      ", which does not come before it",
				      doc->path, c->node, c->thread, c->parent);
			t->parent[i] = (long)p->index;
		}
		t->label[i] = node_label(doc, c);
		t->samples[i] = c->samples;
		t->work[i] = c->work;
		t->blocked[i] = c->blocked;
		t->idleness[i] = (double)c->idleness_millionths / 1e6;
	}
	/* Parents come before children: add each subtree to its parent. */
	for (size_t i = n; i-- > 0;) {
		if (t->parent[i] < 0)
			continue;
		size_t p = (size_t)t->parent[i];
		t->samples[p] += t->samples[i];
		t->work[p] += t->work[i];
		t->blocked[p] += t->blocked[i];
		t->idleness[p] += t->idleness[i];
	}
	free(keys);
}

static void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->label[i]);
	free(t->label);
	free(t->parent);
	free(t->samples);
	free(t->work);
	free(t->blocked);
	free(t->idleness);
}

static bool has_ancestor(const struct tree *t, size_t i, const char *label)
{
	for (long p = t->parent[i]; p >= 0; p = t->parent[p])
		if (!strcmp(t->label[p], label))
			return true;
	return false;
}

/* The path from the root down to node @i, as "a;b;c". */
static char *path_of(const struct tree *t, size_t i)
{
	size_t chain[1024], depth = 0;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	for (long p = (long)i; p >= 0 && depth < 1024; p = t->parent[p])
		chain[depth++] = (size_t)p;
	while (depth-- > 0)
		fprintf(f, "%s%s", t->label[chain[depth]], depth ? ";" : "");
	fclose(f);
	return s;
}

struct agg {
	uint64_t samples, work, blocked;
	double idleness;
	size_t nodes;
};

/* Over the subtrees of the nodes labelled @label (whose parent is
 * labelled @parent, unless NULL), in thread @thread (-1: any), each
 * sample counted once even where @label recurses. */
static struct agg under(const struct tree *t, const char *label,
			const char *parent, long thread)
{
	struct agg a = { 0 };

	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->label[i], label))
			continue;
		if (thread >= 0 && t->doc->cct[i].thread != (uint32_t)thread)
			continue;
		if (parent && (t->parent[i] < 0 ||
			       strcmp(t->label[t->parent[i]], parent)))
			continue;
		if (has_ancestor(t, i, label))
			continue;
		a.samples += t->samples[i];
		a.work += t->work[i];
		a.blocked += t->blocked[i];
		a.idleness += t->idleness[i];
		a.nodes++;
	}
	return a;
}

/* Samples of thread @thread (-1: all). */
static uint64_t samples_of(const struct tree *t, long thread)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->n; i++)
		if (thread < 0 || t->doc->cct[i].thread == (uint32_t)thread)
			sum += t->doc->cct[i].samples;
	return sum;
}

/* The labels of the heaviest paths, for failure messages. */
static char *top_paths(const struct tree *t, size_t max)
{
	char *s = NULL;
	size_t len = 0, shown = 0;
	FILE *f = open_memstream(&s, &len);
	bool *used = calloc(t->n + 1, sizeof(*used));

	ck_assert(f && used);
	while (shown < max) {
		size_t best = t->n;
		for (size_t i = 0; i < t->n; i++)
			if (!used[i] && t->doc->cct[i].samples &&
			    (best == t->n || t->doc->cct[i].samples >
						     t->doc->cct[best].samples))
				best = i;
		if (best == t->n)
			break;
		used[best] = true;
		char *p = path_of(t, best);
		fprintf(f, "\n  thread %" PRIu32 ": %s %" PRIu64,
			t->doc->cct[best].thread, p, t->doc->cct[best].samples);
		free(p);
		shown++;
	}
	fclose(f);
	free(used);
	return s;
}

/* Run `trms report ARGS... PROFILE` and return its standard output. */
static char *report(const char *dir, const char *profile, const char *a1,
		    const char *a2, const char *a3)
{
	char *argv[] = { (char *)need_env("TRMS_BIN"), "report", (char *)a1,
			 (char *)a2, (char *)a3, NULL, NULL };
	size_t n = 2;
	struct run r;

	while (n < 5 && argv[n])
		n++;
	argv[n] = (char *)profile;
	char *sub = xasprintf("%s/report", dir);
	mkdir(sub, 0700);
	run_in(sub, argv, NULL, SM_DEADLINE, &r);
	expect_status(&r, 0);
	char *out = strdup(r.out);
	run_free(&r);
	free(sub);
	return out;
}

/* ======================================================================
 * 1. csprof's Figure 1: work's samples split by caller
 * ====================================================================== */

/* In `trms report --folded` output: the samples of stacks in which
 * @caller calls work directly. */
static uint64_t folded_count(const char *folded, const char *caller)
{
	uint64_t sum = 0;
	char *copy = strdup(folded), *save = NULL;
	char *needle = xasprintf(";%s;work", caller);

	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *blank = strrchr(line, ' ');
		if (!blank)
			continue;
		*blank = '\0';
		char *hit = strstr(line, needle);
		size_t nl = strlen(needle);
		if (hit && (hit[nl] == '\0' || hit[nl] == ';'))
			sum += strtoull(blank + 1, NULL, 10);
	}
	free(needle);
	free(copy);
	return sum;
}

/* In `trms report --tree --min 0` output: the subtree work of the nodes
 * "work" right under a node "@caller". */
static uint64_t tree_count(const char *text, const char *caller)
{
	char *copy = strdup(text), *save = NULL;
	char *stack[256] = { 0 };
	uint64_t sum = 0;

	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		double percent, idle;
		unsigned long self, work, overhead, blocked;
		int pos = 0;
		if (sscanf(line, "%lf%% %lu %lu %lf %lu %lu%n", &percent,
			   &self, &work, &idle, &overhead, &blocked,
			   &pos) != 6)
			continue;
		const char *p = line + pos;
		size_t spaces = strspn(p, " ");
		if (spaces < 2)
			continue;
		size_t depth = (spaces - 2) / 2;
		if (depth >= 256)
			continue;
		stack[depth] = (char *)p + spaces;
		if (!strcmp(stack[depth], "work") && depth > 0 &&
		    stack[depth - 1] && !strcmp(stack[depth - 1], caller))
			sum += work;
		for (size_t d = depth + 1; d < 256 && stack[d]; d++)
			stack[d] = NULL;
	}
	free(copy);
	return sum;
}

/* The kernel's tick rate: the resolution of the coarse clocks is a tick. */
static unsigned tick_hz(void)
{
	struct timespec res;

	ck_assert_int_eq(clock_getres(CLOCK_MONOTONIC_COARSE, &res), 0);
	ck_assert(res.tv_sec == 0 && res.tv_nsec > 0);
	return (unsigned)(1000000000 / res.tv_nsec);
}

/* The rate asked for is the rate delivered, by either timer: up to the
 * tick rate (the default 100 Hz, and the tick rate itself) the CPU-time
 * timer, checked at ticks, late periods counted in the next sample; at
 * 1000 Hz the perf_event task clock where the kernel lets us open one
 * (else the timer, capped by the tick). */
static void rate_run(unsigned hz)
{
	char name[32];
	char *argv[] = { helper("sm-callers"), "1.0", NULL };
	struct run r;
	struct profile_doc doc;

	snprintf(name, sizeof(name), "rate-%u", hz);
	run_sampled(name, argv, hz, "cpu", NULL, 0, &r, &doc);
	const char *source = profile_meta(&doc, "sample_source");
	uint64_t delivered = meta_u64(&doc, "sample_hz_delivered");
	printf("rate: %u Hz asked, %" PRIu64 " Hz delivered by %s\n", hz,
	       delivered, source ? source : "?");
	SM_CHECK(source != NULL, "no meta sample_source in %s", doc.path);
	if (hz <= tick_hz())
		SM_CHECK(!strcmp(source, "posix_timer"),
			 "at %u Hz expected the CPU-time timer, saw %s", hz,
			 source);
	if (!strcmp(source, "perf_event") || hz <= tick_hz())
		SM_CHECK(delivered >= 0.9 * hz && delivered <= 1.05 * hz,
			 "%u Hz asked, %" PRIu64 " Hz delivered by %s", hz,
			 delivered, source);
	else
		SM_CHECK(delivered > 0 && delivered <= 1.05 * hz,
			 "%u Hz asked, %" PRIu64 " Hz delivered by %s", hz,
			 delivered, source);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(rate_asked_is_rate_delivered)
{
	rate_run(100);
	rate_run(tick_hz());
	rate_run(1000);
}
END_TEST

/* A program that works with every signal blocked: the CPU-time timer's
 * signal waits, the kernel counts the periods that expire meanwhile as
 * its overrun, and the one sample that finally arrives counts them all. */
START_TEST(periods_counted_while_signals_blocked)
{
	const unsigned hz = tick_hz();
	char *argv[] = { helper("sm-masked"), "0.5", NULL };
	struct run r;
	struct profile_doc doc;
	double cpu;

	run_sampled("masked", argv, hz, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "cpu %lf", &cpu) == 1,
		 "sm-masked printed '%s'", r.out);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t overrun = meta_u64(&doc, "samples_overrun");
	const char *source = profile_meta(&doc, "sample_source");
	printf("masked: %.3f s of CPU with signals blocked at %u Hz: %" PRIu64
	       " samples, %" PRIu64 " of them overrun (%s)\n",
	       cpu, hz, samples, overrun, source ? source : "?");
	SM_CHECK(source && !strcmp(source, "posix_timer"),
		 "at the tick rate expected the CPU-time timer, saw %s",
		 source ? source : "none");
	SM_CHECK((double)samples >= 0.8 * hz * cpu,
		 "%s: expected about %.0f samples (%u Hz x %.3f s of CPU), "
		 "saw %" PRIu64 " (%" PRIu64 " overrun)",
		 r.command, hz * cpu, hz, cpu, samples, overrun);
	SM_CHECK((double)overrun >= 0.5 * hz * cpu,
		 "%s: expected most periods of the blocked stretch to be "
		 "overrun, saw %" PRIu64 " of %" PRIu64,
		 r.command, overrun, samples);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

START_TEST(callers_split_work)
{
	const unsigned hz = 1000;
	const double expect_b = 0.80, tolerance = 0.10;
	char *dir = make_dir("callers");
	char *argv[] = { helper("sm-callers"), "1.2", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double cpu_a, cpu_b;
	unsigned long rounds;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "rounds %lu cpu_a %lf cpu_b %lf", &rounds,
			     &cpu_a, &cpu_b) == 3,
		      "sm-callers printed '%s'", r.out);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);

	struct agg a = under(&t, "work", "a", -1);
	struct agg b = under(&t, "work", "b", -1);
	char *top = top_paths(&t, 8);
	SM_CHECK(a.nodes >= 1 && b.nodes >= 1,
		      "expected 'work' as a node under 'a' and as another "
		      "under 'b'; saw %zu node(s) under a, %zu under b; "
		      "heaviest paths:%s",
		      a.nodes, b.nodes, top);
	double expected_samples = hz * (cpu_a + cpu_b);
	SM_CHECK((double)(a.samples + b.samples) >=
			      0.6 * expected_samples,
		      "expected at least 60%% of %.0f samples (%u Hz x %.2f s "
		      "of CPU in a and b) in work, saw %" PRIu64
		      " (a %" PRIu64 ", b %" PRIu64 "); heaviest paths:%s",
		      expected_samples, hz, cpu_a + cpu_b,
		      a.samples + b.samples, a.samples, b.samples, top);
	double share_b = (double)b.samples / (double)(a.samples + b.samples);
	printf("callers: work under a %" PRIu64 ", under b %" PRIu64
	       ": b's share %.1f%% (by design 80%%, by CPU time measured "
	       "%.1f%%)\n",
	       a.samples, b.samples, 100 * share_b,
	       100 * cpu_b / (cpu_a + cpu_b));
	SM_CHECK(fabs(share_b - expect_b) <= tolerance,
		      "expected b's share of work's samples to be %.0f%% +- "
		      "%.0f points (the program measured %.1f%% of the CPU "
		      "time in b), saw %.1f%% (a %" PRIu64 ", b %" PRIu64
		      "); heaviest paths:%s",
		      100 * expect_b, 100 * tolerance,
		      100 * cpu_b / (cpu_a + cpu_b), 100 * share_b, a.samples,
		      b.samples, top);

	/* trms report shows the same split, folded and as a tree. */
	char *folded = report(dir, doc.path, "--folded", NULL, NULL);
	uint64_t fa = folded_count(folded, "a"), fb = folded_count(folded, "b");
	SM_CHECK(fa == a.samples && fb == b.samples,
		      "expected trms report --folded to count %" PRIu64
		      " samples of a;work and %" PRIu64
		      " of b;work (as the profile's cct lines do), saw %" PRIu64
		      " and %" PRIu64 ":\n%s",
		      a.samples, b.samples, fa, fb, folded);
	char *tree = report(dir, doc.path, "--tree", "--min", "0");
	uint64_t ta = tree_count(tree, "a"), tb = tree_count(tree, "b");
	SM_CHECK(ta == a.work && tb == b.work,
		      "expected trms report --tree to show work %" PRIu64
		      " for a > work and %" PRIu64 " for b > work, saw %" PRIu64
		      " and %" PRIu64 ":\n%s",
		      a.work, b.work, ta, tb, tree);
	free(folded);
	free(tree);
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* ======================================================================
 * 2. Idleness, and trees rooted at their creation context
 * ====================================================================== */

/* Whether every frame of the ';'-separated @frames is an unnamed place in
 * the C library: a sample taken while the thread was being set up or torn
 * down (running thread-specific data destructors, say), before or after
 * its start function. */
static bool only_libc(const char *frames)
{
	for (const char *f = frames; *f; f = strchr(f, ';') ? strchr(f, ';') + 1
							    : f + strlen(f))
		if (strncmp(f, "libc.so.6+", 10))
			return false;
	return true;
}

/* Every sampled path of thread @thread starts with the creator's frames
 * ... main;spawn_threads, then "(thread start)", then frames that include
 * @start_fn. */
static void expect_rooted(const struct tree *t, uint32_t thread,
			  const char *start_fn)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct profile_cct *c = &t->doc->cct[i];
		if (c->thread != thread || !c->samples)
			continue;
		char *p = path_of(t, i);
		const char *creator = strstr(p, ";main;spawn_threads;(thread start);");
		SM_CHECK(creator != NULL,
			      "expected every path of thread %" PRIu32
			      " to start with its creator's frames "
			      "...;main;spawn_threads then (thread start); saw "
			      "%s (%" PRIu64 " samples)",
			      thread, p, c->samples);
		SM_CHECK(!strncmp(p, "(thread start);", 15),
			      "expected the creation context of thread %" PRIu32
			      " to begin where thread 0's paths begin, at "
			      "(thread start); saw %s",
			      thread, p);
		SM_CHECK(strstr(creator, start_fn) != NULL ||
				 only_libc(strstr(creator, "(thread start);") +
					   15),
			      "expected thread %" PRIu32
			      "'s own frames, below (thread start), to "
			      "include %s (or be the C library's thread start "
			      "or exit alone); saw %s",
			      thread, start_fn, p);
		free(p);
	}
}

static void idleness_run(const char *clock)
{
	const unsigned hz = 1000;
	char *dir = make_dir(clock);
	char *argv[] = { helper("sm-idle"), NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	env_sampled(&env, dir, hz, clock);
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);
	char *top = top_paths(&t, 12);

	/* Threads 1 and 2 wait, 3 works; main created them all. */
	SM_CHECK(doc.n_threads == 4,
		      "expected 4 threads in the profile, saw %zu",
		      doc.n_threads);
	const struct profile_thread *main_thread = profile_thread(&doc, 0);
	SM_CHECK(main_thread && !main_thread->has_creator,
		      "expected thread 0 without a creator");
	for (uint32_t i = 1; i <= 3; i++) {
		const struct profile_thread *th = profile_thread(&doc, i);
		SM_CHECK(th != NULL, "expected a thread line for thread "
					  "%" PRIu32 ", there is none", i);
		SM_CHECK(th->has_creator && th->creator == 0,
			      "expected thread %" PRIu32 " with creator=0 in "
			      "its thread line, saw %s %" PRIu32,
			      i, th->has_creator ? "creator=" : "no creator",
			      th->has_creator ? th->creator : 0);
	}

	/* Main's paths start at its own (thread start), and never pass
	 * another. */
	for (size_t i = 0; i < t.n; i++) {
		if (doc.cct[i].thread != 0 || !doc.cct[i].samples)
			continue;
		char *p = path_of(&t, i);
		SM_CHECK(!strncmp(p, "(thread start);", 15) &&
				      !strstr(p + 15, "(thread start)"),
			      "expected thread 0's paths to start with one "
			      "(thread start) and no other; saw %s",
			      p);
		free(p);
	}
	expect_rooted(&t, 1, ";waiter_main;");
	expect_rooted(&t, 2, ";waiter_main;");
	expect_rooted(&t, 3, ";worker_main;");
	for (uint32_t i = 1; i <= 2; i++) {
		struct agg w = under(&t, "warm_up", NULL, i);
		SM_CHECK(w.samples >= 0.5 * hz * 0.15,
			      "expected at least half of %.0f samples (%u Hz x "
			      "0.15 s) in thread %" PRIu32 "'s warm_up, saw %" PRIu64
			      "; heaviest paths:%s",
			      hz * 0.15, hz, i, w.samples, top);
	}

	/* One thread works, three are blocked: 3 of idleness per sample of
	 * work. */
	struct agg w = under(&t, "burn_while_others_wait", NULL, -1);
	SM_CHECK(w.work >= 0.5 * hz * 1.0,
		      "TRMS_SAMPLE_CLOCK=%s: expected at least %.0f samples of "
		      "work (half of %u Hz x 1 s) in burn_while_others_wait, saw "
		      "%" PRIu64 " (samples %" PRIu64 ", blocked %" PRIu64
		      "); heaviest paths:%s",
		      clock, 0.5 * hz, hz, w.work, w.samples, w.blocked, top);
	double ratio = w.idleness / (double)w.work;
	printf("idleness (%s): burn_while_others_wait work %" PRIu64
	       " idleness %.1f: %.3f per sample of work\n",
	       clock, w.work, w.idleness, ratio);
	for (uint32_t i = 0; i <= 2; i++) {
		struct agg wait = under(&t, "wait_until_done", NULL, i);
		printf("idleness (%s): thread %" PRIu32 " wait_until_done: "
		       "%" PRIu64 " samples, %" PRIu64 " blocked, %" PRIu64
		       " work\n",
		       clock, i, wait.samples, wait.blocked, wait.work);
	}
	SM_CHECK(fabs(ratio - 3.0) <= 0.15 * 3.0,
		      "TRMS_SAMPLE_CLOCK=%s: expected the idleness of "
		      "burn_while_others_wait to be 3 x its work +- 15%% (three "
		      "threads in pthread_cond_wait, one working), saw "
		      "idleness %.1f for work %" PRIu64 " (%.3f x); heaviest "
		      "paths:%s",
		      clock, w.idleness, w.work, ratio, top);

	if (!strcmp(clock, "wall")) {
		/* A thread's wall-clock samples while it waits count as
		 * blocked time, not as work. */
		for (uint32_t i = 0; i <= 2; i++) {
			struct agg wait = under(&t, "wait_until_done", NULL, i);
			SM_CHECK(wait.samples >= 0.5 * hz * 1.0 &&
					      (double)wait.blocked >=
						      0.9 * (double)wait.samples,
				      "TRMS_SAMPLE_CLOCK=wall: expected thread %" PRIu32
				      " to have at least %.0f samples in "
				      "wait_until_done (it waits there > 1 s), at "
				      "least 90%% of them blocked; saw %" PRIu64
				      " samples, %" PRIu64 " blocked, %" PRIu64
				      " work; heaviest paths:%s",
				      i, 0.5 * hz, wait.samples, wait.blocked,
				      wait.work, top);
		}
	}
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}

START_TEST(idleness_cpu_clock)
{
	idleness_run("cpu");
}
END_TEST

START_TEST(idleness_wall_clock)
{
	idleness_run("wall");
}
END_TEST

/* Sampling is invisible in the rest of the profile: sm-idle does no I/O,
 * so no thread has bytes or calls in or out. */
START_TEST(sampling_adds_no_io)
{
	static const char *const clocks[] = { "cpu", "wall" };

	for (size_t k = 0; k < 2; k++) {
		char *dir = make_dir(clocks[k]);
		char *argv[] = { helper("sm-idle"), NULL };
		struct env env;
		struct run r;
		struct profile_doc doc;

		env_sampled(&env, dir, 1000, clocks[k]);
		run_in(dir, argv, env.v, SM_DEADLINE, &r);
		expect_status(&r, 0);
		ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
		ck_assert_uint_gt(meta_u64(&doc, "samples"), 0);
		for (size_t i = 0; i < doc.n_threads; i++) {
			const struct profile_thread *th = &doc.threads[i];
			SM_CHECK(th->in_calls == 0 && th->in_bytes == 0 &&
					      th->out_calls == 0 &&
					      th->out_bytes == 0,
				      "TRMS_SAMPLE_CLOCK=%s: sm-idle does no "
				      "I/O: expected thread %" PRIu32
				      " with in_bytes=0 in_calls=0 "
				      "out_bytes=0 out_calls=0, saw "
				      "in_bytes=%" PRIu64 " in_calls=%" PRIu64
				      " out_bytes=%" PRIu64 " out_calls=%" PRIu64,
				      clocks[k], th->ordinal, th->in_bytes,
				      th->in_calls, th->out_bytes, th->out_calls);
		}
		profile_doc_free(&doc);
		run_free(&r);
		env_free(&env);
		free(argv[0]);
		free(dir);
	}
}
END_TEST

/* ======================================================================
 * 3. The program's own profiling signals keep working
 * ====================================================================== */

static void own_timer_run(const char *mode)
{
	const unsigned hz = 1000;
	const double own_hz = 100;
	char *dir = make_dir(mode);
	char *argv[] = { helper("sm-sigprof"), (char *)mode, "1.5", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	int hits, sig;
	double cpu;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "hits %d cpu %lf signal %d", &hits, &cpu,
			     &sig) == 3,
		      "sm-sigprof printed '%s'", r.out);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t sample_signal = meta_u64(&doc, "sample_signal");
	printf("own timer (%s): handler ran %d times in %.3f s of CPU "
	       "(%.1f Hz, asked %.0f); the library took %" PRIu64
	       " samples (%.0f Hz, asked %u) on signal %" PRIu64 "\n",
	       mode, hits, cpu, hits / cpu, own_hz, samples, samples / cpu,
	       hz, sample_signal);
	double expected = own_hz * cpu;
	SM_CHECK(fabs(hits - expected) <= 0.3 * expected,
		      "%s: expected the program's own handler (signal %d) to "
		      "run %.0f times +- 30%% (%.0f Hz x %.3f s of CPU), saw "
		      "%d",
		      r.command, sig, expected, own_hz, cpu, hits);
	SM_CHECK((double)samples >= 0.6 * hz * cpu,
		      "%s: expected the library to take at least 60%% of %.0f "
		      "samples (%u Hz x %.3f s of CPU), saw %" PRIu64,
		      r.command, hz * cpu, hz, cpu, samples);
	SM_CHECK(sample_signal != (uint64_t)sig,
		      "expected the library to sample on another signal than "
		      "the program's %d, saw sample_signal %" PRIu64,
		      sig, sample_signal);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}

START_TEST(own_sigprof_and_itimer)
{
	own_timer_run("prof");
}
END_TEST

START_TEST(own_handler_on_sampling_signal)
{
	own_timer_run("rt");
}
END_TEST

/* ======================================================================
 * 3a. Samples on SIGTRAP, next to the program's own SIGTRAPs
 * ====================================================================== */

/* Can this process open a perf_event task clock that raises SIGTRAP (as
 * the library will, above the tick rate, unless told not to)? */
static bool kernel_traps(void)
{
	struct perf_event_attr pe;

	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.sample_period = 1000000;
	pe.disabled = 1;
	pe.exclude_kernel = 1;
	pe.sigtrap = 1;
	pe.remove_on_exec = 1;
	int fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Run sm-sigtrap MODE N at 1000 Hz with TRMS_SAMPLE_TRAP=@trap, expecting
 * exit status @status; its profile into *@doc if @doc. */
static void sigtrap_run(const char *mode, const char *n, const char *trap,
			int status, struct run *r, struct profile_doc *doc)
{
	char name[64], setting[32];
	char *argv[] = { helper("sm-sigtrap"), (char *)mode, (char *)n,
			 NULL };

	snprintf(name, sizeof(name), "sigtrap-%s-%s", mode, trap);
	snprintf(setting, sizeof(setting), "TRMS_SAMPLE_TRAP=%s", trap);
	run_sampled(name, argv, 1000, "cpu", setting, status, r, doc);
}

/* The program's handler runs for each of its SIGTRAPs (raise and int3),
 * exactly, and for none of the samples; samples still come, on SIGTRAP
 * where the kernel can, on another signal with TRMS_SAMPLE_TRAP=0. */
static void sigtrap_handler_case(const char *trap)
{
	struct run r;
	struct profile_doc doc;
	int hits;

	sigtrap_run("handler", "40", trap, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "hits %d", &hits) == 1,
		 "sm-sigtrap printed '%s'", r.out);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t sig = meta_u64(&doc, "sample_signal");
	const char *source = profile_meta(&doc, "sample_source");
	printf("sigtrap (TRMS_SAMPLE_TRAP=%s): the program's handler ran %d "
	       "times for its 80 SIGTRAPs; %" PRIu64 " samples by %s on "
	       "signal %" PRIu64 "\n",
	       trap, hits, samples, source ? source : "?", sig);
	SM_CHECK(hits == 80,
		 "%s: expected the program's SIGTRAP handler to run 80 times "
		 "(40 raise, 40 int3), saw %d",
		 r.command, hits);
	SM_CHECK(samples >= 200,
		 "%s: expected at least 200 samples (about 0.5 s of CPU at "
		 "1000 Hz), saw %" PRIu64,
		 r.command, samples);
	if (!strcmp(trap, "0"))
		SM_CHECK(sig != SIGTRAP,
			 "TRMS_SAMPLE_TRAP=0, but samples came on SIGTRAP");
	else if (kernel_traps() && source && !strcmp(source, "perf_event"))
		SM_CHECK(sig == SIGTRAP,
			 "the kernel raises SIGTRAP for perf events here, but "
			 "samples came on signal %" PRIu64,
			 sig);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(sigtrap_program_handler)
{
	sigtrap_handler_case("1");
}
END_TEST

START_TEST(sigtrap_off)
{
	sigtrap_handler_case("0");
}
END_TEST

START_TEST(sigtrap_ignored_or_fatal_as_set)
{
	struct run r;

	sigtrap_run("ignore", "40", "1", 0, &r, NULL);
	SM_CHECK(strstr(r.out, "survived") != NULL,
		 "sm-sigtrap ignore printed '%s'", r.out);
	run_free(&r);
	sigtrap_run("default", "0", "1", 128 + SIGTRAP, &r, NULL);
	run_free(&r);
}
END_TEST

/* A sample's SIGTRAP still pending at exec would kill the new image,
 * whose handlers are the defaults: 20 execs in a row, sampled at 1 kHz. */
START_TEST(sigtrap_exec_chain)
{
	struct run r;

	sigtrap_run("exec", "20", "1", 0, &r, NULL);
	run_free(&r);
}
END_TEST

/* ======================================================================
 * 3b. CPU time in the kernel is sampled like CPU time in user space, as
 *     work
 * ====================================================================== */

START_TEST(system_time_is_sampled)
{
	const unsigned hz = 1000;
	char *dir = make_dir("systime");
	char *argv[] = { helper("sm-systime"), "1.0", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double user, sys;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "user %lf sys %lf", &user, &sys) == 2,
		      "sm-systime printed '%s'", r.out);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "kernel_burn", NULL, -1);
	uint64_t samples = meta_u64(&doc, "samples");
	const char *source = profile_meta(&doc, "sample_source");
	printf("system time: %.3f s user + %.3f s sys in kernel_burn: %" PRIu64
	       " samples there (%" PRIu64 " in all, source %s; asked %u Hz)\n",
	       user, sys, burn.samples, samples, source ? source : "?", hz);
	SM_CHECK((double)burn.samples >= 0.6 * hz * (user + sys),
		      "%s: expected at least 60%% of %.0f samples in kernel_burn "
		      "(%u Hz x %.3f s of CPU time: %.3f user, %.3f system), saw "
		      "%" PRIu64 " (%" PRIu64 " in the whole profile, "
		      "sample_source %s)",
		      r.command, hz * (user + sys), hz, user + sys, user, sys,
		      burn.samples, samples, source ? source : "?");
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* The CPU clock only samples a running thread: its time inside a hooked
 * read(), copying, is work, though the thread counts as inside a
 * blocking call meanwhile. */
START_TEST(cpu_samples_in_hooked_call_are_work)
{
	char *dir = make_dir("systime-hooked");
	char *argv[] = { helper("sm-systime"), "0.5", "hooked", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	env_sampled(&env, dir, 1000, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "kernel_burn", NULL, -1);
	printf("hooked read: %" PRIu64 " samples in kernel_burn, %" PRIu64
	       " work, %" PRIu64 " blocked\n",
	       burn.samples, burn.work, burn.blocked);
	SM_CHECK(burn.samples >= 100, "%s: only %" PRIu64 " samples",
		 r.command, burn.samples);
	SM_CHECK(burn.blocked == 0 && burn.work == burn.samples,
		 "%s: of %" PRIu64 " CPU-clock samples in kernel_burn, %" PRIu64
		 " counted as work and %" PRIu64 " as blocked",
		 r.command, burn.samples, burn.work, burn.blocked);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* ======================================================================
 * 4. A program that never retries EINTR sees none
 * ====================================================================== */

static const char eintr_expected[] =
	"main: read 40 bytes one by one, then end of file\n"
	"main: poll timed out 15 times\n"
	"main: nanosleep slept 15 times\n"
	"main: usleep slept 15 times\n"
	"main: clock_nanosleep slept 20 times\n"
	"main: select timed out 10 times\n"
	"main: epoll_wait timed out 10 times\n"
	"main: sem_timedwait timed out 10 times\n"
	"main: read 64 MiB of /dev/zero and 16 MiB of /dev/urandom in one "
	"call each\n"
	"second: poll timed out 15 times\n"
	"second: nanosleep slept 15 times\n"
	"second: usleep slept 15 times\n"
	"second: clock_nanosleep slept 20 times\n"
	"second: select timed out 10 times\n"
	"second: epoll_wait timed out 10 times\n"
	"second: sem_timedwait timed out 10 times\n";

static void eintr_run(const char *clock)
{
	const unsigned hz = 1000;
	char *plain_dir = make_dir("plain"), *dir = make_dir(clock);
	char *argv[] = { helper("sm-eintr"), NULL };
	struct env env;
	struct run plain, sampled;
	struct profile_doc doc;

	/* Without the library: the reference. */
	run_in(plain_dir, argv, NULL, SM_DEADLINE, &plain);
	expect_status(&plain, 0);
	ck_assert_str_eq(plain.out, eintr_expected);
	ck_assert_str_eq(plain.err, "");

	env_sampled(&env, dir, hz, clock);
	run_in(dir, argv, env.v, SM_DEADLINE, &sampled);
	SM_CHECK(!sampled.timed_out && sampled.status == plain.status &&
			      !strcmp(sampled.out, plain.out) &&
			      !strcmp(sampled.err, plain.err),
		      "%s: expected the same exit status and output as "
		      "without the library (status %d, stdout:\n%s"
		      "stderr: '%s'), saw %sstatus %d, stdout:\n%s"
		      "stderr: '%s'",
		      sampled.command, plain.status, plain.out, plain.err,
		      sampled.timed_out ? "a timeout, " : "", sampled.status,
		      sampled.out, sampled.err);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	uint64_t samples = meta_u64(&doc, "samples");
	printf("eintr (%s): same output and status as without the library; "
	       "%" PRIu64 " samples, %.1f s with, %.1f s without\n",
	       clock, samples, sampled.seconds, plain.seconds);
	/* cpu: ~0.25 s of CPU burnt between calls; wall: 3 threads for
	 * about 2 s each. */
	SM_CHECK(samples >= (strcmp(clock, "wall") ? 100u : 2000u),
		      "%s: expected the library to sample (at least %u "
		      "samples), saw %" PRIu64,
		      sampled.command, strcmp(clock, "wall") ? 100u : 2000u,
		      samples);
	profile_doc_free(&doc);
	run_free(&plain);
	run_free(&sampled);
	env_free(&env);
	free(argv[0]);
	free(dir);
	free(plain_dir);
}

START_TEST(eintr_cpu_clock)
{
	eintr_run("cpu");
}
END_TEST

START_TEST(eintr_wall_clock)
{
	eintr_run("wall");
}
END_TEST

/* ======================================================================
 * 5. Samples in a plugin unloaded before the profile is written
 * ====================================================================== */

START_TEST(dlclosed_plugin_keeps_its_name)
{
	const unsigned hz = 1000;
	char *dir = make_dir("dlopen");
	/* A copy of the plugin, removed once the program has run: the
	 * name can come from the profile only. */
	char *copy = xasprintf("%s/libsm_plugin_copy.so", scratch);
	char *cp = xasprintf("cp '%s' '%s'", need_env("SM_PLUGIN"), copy);
	ck_assert_int_eq(system(cp), 0);
	char *argv[] = { helper("sm-dlopen"), copy, NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double plugin_cpu, after_cpu;
	char unloaded[8];

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "plugin_cpu %lf after_cpu %lf unloaded %7s",
			     &plugin_cpu, &after_cpu, unloaded) == 3,
		      "sm-dlopen printed '%s'", r.out);
	SM_CHECK(!strcmp(unloaded, "yes"),
		      "expected the plugin to be unloaded by dlclose (the "
		      "test relies on it), but dlopen(RTLD_NOLOAD) still "
		      "found it");
	ck_assert_int_eq(unlink(copy), 0);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);

	/* The module is listed, unloaded, and its function is named in the
	 * profile itself. */
	const struct profile_module *plugin = NULL;
	for (size_t i = 0; i < doc.n_modules; i++)
		if (strstr(doc.modules[i].path, "libsm_plugin_copy.so"))
			plugin = &doc.modules[i];
	SM_CHECK(plugin != NULL,
		      "expected a module line for %s in the profile", copy);
	SM_CHECK(plugin->unloaded,
		      "expected the module line of %s to say unloaded",
		      copy);
	bool named = false;
	for (size_t i = 0; i < doc.n_symbols; i++)
		if (doc.symbols[i].module == plugin->id &&
		    !strcmp(doc.symbols[i].name, "burn_in_plugin"))
			named = true;
	SM_CHECK(named,
		      "expected a symbol line naming burn_in_plugin in module "
		      "%" PRIu32 " (%s), there is none",
		      plugin->id, plugin->path);

	tree_build(&t, &doc);
	char *top = top_paths(&t, 8);
	struct agg in_plugin = under(&t, "burn_in_plugin", NULL, -1);
	struct agg after = under(&t, "after_plugin", NULL, -1);
	uint64_t total = samples_of(&t, -1);
	printf("dlopen: burn_in_plugin %" PRIu64 " of %" PRIu64
	       " samples (%.1f%%), after_plugin %" PRIu64
	       "; CPU %.3f s in the plugin, %.3f s after\n",
	       in_plugin.samples, total,
	       total ? 100.0 * (double)in_plugin.samples / (double)total : 0,
	       after.samples, plugin_cpu, after_cpu);
	SM_CHECK(total >= 0.6 * hz * (plugin_cpu + after_cpu),
		      "expected at least 60%% of %.0f samples, saw %" PRIu64,
		      hz * (plugin_cpu + after_cpu), total);
	SM_CHECK((double)in_plugin.samples >= 0.3 * (double)total,
		      "expected at least 30%% of the samples under "
		      "burn_in_plugin (it burnt %.3f s of %.3f s), saw %" PRIu64
		      " of %" PRIu64 "; heaviest paths:%s",
		      plugin_cpu, plugin_cpu + after_cpu, in_plugin.samples,
		      total, top);
	SM_CHECK((double)after.samples >= 0.3 * (double)total *
						       after_cpu /
						       (plugin_cpu + after_cpu),
		      "expected samples under after_plugin too, saw %" PRIu64
		      " of %" PRIu64 "; heaviest paths:%s",
		      after.samples, total, top);
	char *tree = report(dir, doc.path, "--tree", NULL, NULL);
	SM_CHECK(strstr(tree, "burn_in_plugin") != NULL,
		      "expected trms report --tree to show burn_in_plugin:\n%s",
		      tree);
	free(tree);
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(cp);
	free(copy);
	free(dir);
}
END_TEST

/* A program that loads and unloads a plugin all day, sampled: the
 * library's table of modules must not grow with every load (measured
 * before the fix: 40 MiB of resident memory and 5,009 module lines after
 * 5,000 cycles). */
START_TEST(plugin_reloaded_many_times)
{
	const unsigned cycles = 5000;
	char *dir = make_dir("reload");
	char *n = xasprintf("%u", cycles);
	char *argv[] = { helper("sm-dlopen"), (char *)need_env("SM_PLUGIN"), n,
			 NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	unsigned done;
	long growth_kib;

	env_sampled(&env, dir, 1000, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "cycles %u rss_growth_kib %ld", &done,
			&growth_kib) == 2 && done == cycles,
		 "sm-dlopen printed '%s'", r.out);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	size_t plugin_lines = 0;
	for (size_t i = 0; i < doc.n_modules; i++)
		plugin_lines += strstr(doc.modules[i].path, "libsm_plugin") != NULL;
	printf("reload: %u cycles, resident set grew %ld KiB, %zu module "
	       "lines for the plugin\n",
	       cycles, growth_kib, plugin_lines);
	SM_CHECK(growth_kib < 8192,
		 "expected the resident set to grow by less than 8 MiB over "
		 "%u loads and unloads, it grew %ld KiB",
		 cycles, growth_kib);
	SM_CHECK(plugin_lines >= 1 && plugin_lines <= 10,
		 "expected the plugin loaded %u times at the same place to "
		 "have a module line or a few, saw %zu",
		 cycles, plugin_lines);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(n);
	free(dir);
}
END_TEST

/* ======================================================================
 * 6. fork in the middle of sampling; 500 threads
 * ====================================================================== */

/* The samples of the tree add up to the profile's count. */
static void expect_consistent(const struct tree *t)
{
	uint64_t meta = meta_u64(t->doc, "samples"), sum = samples_of(t, -1);

	SM_CHECK(meta == sum,
		      "%s: expected 'meta samples' to equal the samples of "
		      "its cct lines, saw %" PRIu64 " and %" PRIu64,
		      t->doc->path, meta, sum);
}

/* Every node labelled @label has @ancestor above it. */
static void expect_under(const struct tree *t, const char *label,
			 const char *ancestor)
{
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->label[i], label) || !t->samples[i])
			continue;
		char *p = path_of(t, i);
		SM_CHECK(has_ancestor(t, i, ancestor) &&
				      !strncmp(p, "(thread start);", 15),
			      "%s: expected %s below %s, in a path from "
			      "(thread start); saw %s",
			      t->doc->path, label, ancestor, p);
		free(p);
	}
}

START_TEST(fork_while_sampling)
{
	const unsigned hz = 1000;
	char *dir = make_dir("fork");
	char *argv[] = { helper("sm-fork"), "fork", NULL };
	struct env env;
	struct run r;
	struct profile_doc docs[3];
	struct tree parent, child;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_str_eq(r.out, "child ok\n");
	size_t n = read_profiles(dir, docs, 3);
	SM_CHECK(n == 2, "expected 2 profiles (parent and child), saw %zu",
		      n);
	struct profile_doc *p = &docs[0], *c = &docs[1];
	if (meta_u64(p, "ppid") == meta_u64(c, "pid")) {
		p = &docs[1];
		c = &docs[0];
	}
	SM_CHECK(meta_u64(c, "ppid") == meta_u64(p, "pid"),
		      "expected one profile to be the other's child");
	tree_build(&parent, p);
	tree_build(&child, c);
	char *ptop = top_paths(&parent, 8), *ctop = top_paths(&child, 8);
	expect_consistent(&parent);
	expect_consistent(&child);

	struct agg before = under(&parent, "before_fork", NULL, -1);
	struct agg pburn = under(&parent, "parent_burn", NULL, -1);
	struct agg comp = under(&parent, "companion_burn", NULL, -1);
	struct agg pchild = under(&parent, "child_burn", NULL, -1);
	struct agg cburn = under(&child, "child_burn", NULL, -1);
	struct agg cbefore = under(&child, "before_fork", NULL, -1);
	struct agg cparent = under(&child, "parent_burn", NULL, -1);
	struct agg ccomp = under(&child, "companion_burn", NULL, -1);
	printf("fork: parent before_fork %" PRIu64 " parent_burn %" PRIu64
	       " companion %" PRIu64 "; child child_burn %" PRIu64
	       " (of %" PRIu64 ")\n",
	       before.samples, pburn.samples, comp.samples, cburn.samples,
	       samples_of(&child, -1));
	SM_CHECK(before.samples >= 0.5 * hz * 0.4 &&
			      pburn.samples >= 0.5 * hz * 0.6 &&
			      comp.samples >= 100,
		      "expected the parent's profile to have at least %.0f "
		      "samples in before_fork, %.0f in parent_burn and 100 in "
		      "companion_burn, saw %" PRIu64 ", %" PRIu64 ", %" PRIu64
		      "; heaviest paths:%s",
		      0.5 * hz * 0.4, 0.5 * hz * 0.6, before.samples,
		      pburn.samples, comp.samples, ptop);
	SM_CHECK(pchild.samples == 0,
		      "expected no child_burn in the parent's profile, saw %" PRIu64,
		      pchild.samples);
	SM_CHECK(cburn.samples >= 0.5 * hz * 0.6,
		      "expected the child's profile to have at least %.0f "
		      "samples in child_burn, saw %" PRIu64 "; heaviest paths:%s",
		      0.5 * hz * 0.6, cburn.samples, ctop);
	SM_CHECK(cbefore.samples == 0 && cparent.samples == 0 &&
			      ccomp.samples == 0,
		      "expected the child's profile to start fresh at the "
		      "fork: no samples of before_fork, parent_burn or "
		      "companion_burn; saw %" PRIu64 ", %" PRIu64 ", %" PRIu64
		      "; heaviest paths:%s",
		      cbefore.samples, cparent.samples, ccomp.samples, ctop);
	SM_CHECK(c->n_threads == 1,
		      "expected 1 thread in the child's profile, saw %zu",
		      c->n_threads);
	SM_CHECK(p->n_threads == 2,
		      "expected 2 threads in the parent's profile, saw %zu",
		      p->n_threads);
	expect_under(&parent, "before_fork", "main");
	expect_under(&parent, "parent_burn", "main");
	expect_under(&parent, "companion_burn", "companion");
	expect_under(&child, "child_burn", "main");
	free(ptop);
	free(ctop);
	tree_free(&parent);
	tree_free(&child);
	profile_doc_free(&docs[0]);
	profile_doc_free(&docs[1]);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* The library's fork handlers are its own time: a process that forks all
 * the time has none of their frames in its tree, and its thread line
 * counts the samples that found it there. */
START_TEST(fork_handlers_are_library_time)
{
	static const char *const ours[] = {
		"after_fork_parent", "after_fork_child", "unlock_all",
		"urcu_bp_before_fork", "urcu_bp_after_fork_parent",
	};
	char *dir = make_dir("forks");
	char *argv[] = { helper("sm-fork"), "forks", "400", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	env_sampled(&env, dir, 1000, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_str_eq(r.out, "forks 400\n");
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);
	uint64_t library = 0;
	for (size_t i = 0; i < doc.n_threads; i++)
		library += doc.threads[i].library_samples;
	printf("forks: %" PRIu64 " samples in the tree, %" PRIu64
	       " inside the library\n",
	       meta_u64(&doc, "samples"), library);
	for (size_t i = 0; i < t.n; i++)
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			SM_CHECK(strcmp(t.label[i], ours[k]),
				 "%s: the library's %s is in the program's "
				 "tree (%" PRIu64 " samples under it)",
				 r.command, ours[k], t.samples[i]);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

START_TEST(five_hundred_threads)
{
	const unsigned hz = 1000;
	char *dir = make_dir("threads");
	char *argv[] = { helper("sm-fork"), "threads", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_str_eq(r.out, "threads 500\n");
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	SM_CHECK(doc.n_threads == 501,
		      "expected 501 threads in the profile, saw %zu",
		      doc.n_threads);
	for (uint32_t i = 1; i <= 500; i++) {
		const struct profile_thread *th = profile_thread(&doc, i);
		SM_CHECK(th && th->has_creator && th->creator == 0,
			      "expected thread %" PRIu32 " created by thread 0",
			      i);
	}
	tree_build(&t, &doc);
	expect_consistent(&t);
	struct agg burn = under(&t, "thread_burn", NULL, -1);
	uint32_t sampled = 0;
	for (uint32_t i = 1; i <= 500; i++)
		sampled += under(&t, "thread_burn", NULL, i).samples > 0;
	printf("threads: %" PRIu64 " samples in thread_burn (500 x 3 ms at "
	       "%u Hz), %" PRIu32 " of 500 threads sampled\n",
	       burn.samples, hz, sampled);
	SM_CHECK(burn.samples >= 0.3 * hz * 1.5,
		      "expected at least 30%% of %.0f samples in thread_burn "
		      "(500 threads x 3 ms at %u Hz), saw %" PRIu64,
		      hz * 1.5, hz, burn.samples);
	expect_under(&t, "thread_burn", "short_thread");
	expect_under(&t, "thread_burn", "run_threads");
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* ======================================================================
 * 7. Stress: threads, malloc and I/O under 4 kHz sampling
 * ====================================================================== */

static double env_number(const char *name, double fallback)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : fallback;
}

START_TEST(stress)
{
	const unsigned hz = 4000;
	double seconds = env_number("SM_STRESS_SECONDS", 8);
	int repeat = (int)env_number("SM_STRESS_REPEAT", 1);
	int threads = (int)env_number("SM_STRESS_THREADS", 6);
	const char *clocks = getenv("SM_STRESS_CLOCKS");

	if (!clocks || !*clocks)
		clocks = "cpu";
	for (int k = 0; k < repeat; k++) {
		/* The clocks of the list in turn: cpu,wall,cpu,... */
		char clock[16];
		const char *c = clocks;
		int listed = 1;
		for (const char *q = clocks; (q = strchr(q, ',')); q++)
			listed++;
		for (int skip = k % listed; skip > 0; skip--)
			c = strchr(c, ',') + 1;
		snprintf(clock, sizeof(clock), "%.*s", (int)strcspn(c, ","), c);
		char *name = xasprintf("stress-%d-%s", k, clock);
		char *dir = make_dir(name);
		char *secs = xasprintf("%g", seconds);
		char *nthreads = xasprintf("%d", threads);
		char *argv[] = { helper("sm-stress"), secs, nthreads, dir, NULL };
		struct env env;
		struct run r;
		struct profile_doc doc;

		env_sampled(&env, dir, hz, clock);
		run_in(dir, argv, env.v, 2 * seconds + 60, &r);
		expect_status(&r, 0);
		char *want = xasprintf("stress ok: %d threads, ", threads);
		SM_CHECK(!strncmp(r.out, want, strlen(want)),
			      "%s: expected output starting '%s', saw '%s'",
			      r.command, want, r.out);
		ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
		uint64_t samples = meta_u64(&doc, "samples");
		printf("stress %d (%s, %g s, %d threads, %u Hz): %.1f s, %s"
		       "       %" PRIu64 " samples, %zu threads in the profile\n",
		       k, clock, seconds, threads, hz, r.seconds, r.out,
		       samples, doc.n_threads);
		SM_CHECK(samples > 0 && doc.n_threads >= (size_t)threads + 2,
			      "%s: expected samples (saw %" PRIu64
			      ") and at least %d threads in the profile "
			      "(saw %zu)",
			      r.command, samples, threads + 2, doc.n_threads);
		profile_doc_free(&doc);
		run_free(&r);
		env_free(&env);
		free(want);
		free(argv[0]);
		free(secs);
		free(nthreads);
		free(name);
		free(dir);
	}
}
END_TEST

/* ---- the suite ---- */

static TCase *tcase(Suite *s, const char *name, double timeout)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, timeout);
	suite_add_tcase(s, tc);
	return tc;
}

int main(void)
{
	Suite *s = suite_create("sampling");
	TCase *tc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tc = tcase(s, "callers", 120);
	tcase_add_test(tc, callers_split_work);
	tcase_add_test(tc, rate_asked_is_rate_delivered);
	tcase_add_test(tc, periods_counted_while_signals_blocked);
	tc = tcase(s, "idleness", 120);
	tcase_add_test(tc, idleness_cpu_clock);
	tcase_add_test(tc, idleness_wall_clock);
	tc = tcase(s, "no-phantom-io", 120);
	tcase_add_test(tc, sampling_adds_no_io);
	tc = tcase(s, "own-timers", 120);
	tcase_add_test(tc, own_sigprof_and_itimer);
	tcase_add_test(tc, own_handler_on_sampling_signal);
	tc = tcase(s, "system-time", 120);
	tcase_add_test(tc, system_time_is_sampled);
	tcase_add_test(tc, cpu_samples_in_hooked_call_are_work);
	tc = tcase(s, "eintr-cpu", 120);
	tcase_add_test(tc, eintr_cpu_clock);
	tc = tcase(s, "eintr-wall", 120);
	tcase_add_test(tc, eintr_wall_clock);
	tc = tcase(s, "dlopen", 120);
	tcase_add_test(tc, dlclosed_plugin_keeps_its_name);
	tcase_add_test(tc, plugin_reloaded_many_times);
	tc = tcase(s, "fork", 120);
	tcase_add_test(tc, fork_while_sampling);
	tcase_add_test(tc, fork_handlers_are_library_time);
	tc = tcase(s, "threads", 120);
	tcase_add_test(tc, five_hundred_threads);
	tc = tcase(s, "sigtrap", 120);
	tcase_add_test(tc, sigtrap_program_handler);
	tcase_add_test(tc, sigtrap_off);
	tcase_add_test(tc, sigtrap_ignored_or_fatal_as_set);
	tcase_add_test(tc, sigtrap_exec_chain);
	double stress_budget =
		env_number("SM_STRESS_REPEAT", 1) *
			(2 * env_number("SM_STRESS_SECONDS", 8) + 120) +
		60;
	tc = tcase(s, "stress", stress_budget);
	tcase_add_test(tc, stress);
	return run_suite(s);
}
