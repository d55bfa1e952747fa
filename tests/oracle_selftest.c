/*
 * oracle_selftest.c - checks the naive oracle (oracle.c) on the worked
 * cases of DESIGN §2.  The expected numbers come from the definitions,
 * never from the engine; this file must never be changed to agree with
 * the engine.  Exit status 0 iff every check passes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

#define X 0
#define Y 4
#define Z 8
#define W 12

#define MAX_OUT 64

struct results {
	struct oracle_activation a[MAX_OUT];
	size_t n;
};

static int failures;

static void collect(void *ctx, const struct oracle_activation *a)
{
	struct results *r = ctx;

	if (r->n < MAX_OUT)
		r->a[r->n] = *a;
	r->n++;
}

static void ev(struct trace *t, uint64_t tid, enum trace_op op,
	       const char *name, uint64_t addr, uint64_t size)
{
	struct trace_event e = { 0 };

	e.thread = trace_thread(t, tid);
	e.op = op;
	if (op == TRACE_CALL)
		e.name = trace_name(t, name);
	e.addr = addr;
	e.size = size;
	trace_append(t, &e);
}

static void call(struct trace *t, uint64_t tid, const char *name)
{
	ev(t, tid, TRACE_CALL, name, 0, 0);
}

static void ret(struct trace *t, uint64_t tid)
{
	ev(t, tid, TRACE_RETURN, NULL, 0, 0);
}

static void check(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		fprintf(stderr, "FAIL %s: got %llu, expected %llu\n", what,
			(unsigned long long)got, (unsigned long long)want);
		failures++;
	}
}

/* Run with K = 4 and expect exactly @n_want activations. */
static void run(const char *cas, const struct trace *t, struct results *r,
		size_t n_want)
{
	char what[128];

	memset(r, 0, sizeof(*r));
	snprintf(what, sizeof(what), "%s: oracle_run status", cas);
	check(what, (uint64_t)(int64_t)oracle_run(t, 4, collect, r), 0);
	snprintf(what, sizeof(what), "%s: activations emitted", cas);
	check(what, r->n, n_want);
}

/* The @i-th emitted activation must be @name on @tid with these counts. */
static void expect(const char *cas, const struct trace *t,
		   const struct results *r, size_t i, uint64_t tid,
		   const char *name, uint64_t trms, uint64_t rms,
		   uint64_t ithread, uint64_t iext, uint64_t cost)
{
	char what[160];

	if (i >= r->n || i >= MAX_OUT) {
		fprintf(stderr, "FAIL %s: no activation #%zu (%s)\n", cas, i,
			name);
		failures++;
		return;
	}
	const struct oracle_activation *a = &r->a[i];
	if (a->name >= t->n_names || strcmp(t->names[a->name], name)) {
		fprintf(stderr, "FAIL %s: activation #%zu is '%s', expected '%s'\n",
			cas, i,
			a->name < t->n_names ? t->names[a->name] : "?", name);
		failures++;
	}
#define CHK(field, want)                                                    \
	do {                                                                \
		snprintf(what, sizeof(what), "%s: %s(%s)", cas, #field,     \
			 name);                                             \
		check(what, a->field, want);                                \
	} while (0)
	CHK(tid, tid);
	CHK(trms, trms);
	CHK(rms, rms);
	CHK(induced_thread, ithread);
	CHK(induced_external, iext);
	CHK(cost, cost);
#undef CHK
}

/* 1. One thread, nested g inside f. */
static void case1(void)
{
	struct trace t;
	struct results r;

	trace_init(&t);
	call(&t, 1, "f");
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ev(&t, 1, TRACE_WRITE, NULL, Y, 4);
	call(&t, 1, "g");
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ev(&t, 1, TRACE_READ, NULL, Y, 4);
	ev(&t, 1, TRACE_READ, NULL, Z, 4);
	ev(&t, 1, TRACE_WRITE, NULL, W, 4);
	ret(&t, 1);
	ev(&t, 1, TRACE_READ, NULL, W, 4);
	ret(&t, 1);
	run("case 1", &t, &r, 2);
	/*                       tid name trms rms ithr iext cost */
	expect("case 1", &t, &r, 0, 1, "g", 3, 3, 0, 0, 4);
	expect("case 1", &t, &r, 1, 1, "f", 2, 2, 0, 0, 7);
	trace_free(&t);
}

/* 2. Another thread overwrites x between two reads of f. */
static void case2(void)
{
	struct trace t;
	struct results r;

	trace_init(&t);
	call(&t, 1, "f");
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ev(&t, 2, TRACE_WRITE, NULL, X, 4);
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ret(&t, 1);
	run("case 2", &t, &r, 1);
	expect("case 2", &t, &r, 0, 1, "f", 2, 1, 1, 0, 2);
	trace_free(&t);
}

/* 3. The induced read happens in h, nested in f; f's later read is not. */
static void case3(void)
{
	struct trace t;
	struct results r;

	trace_init(&t);
	call(&t, 1, "f");
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ev(&t, 2, TRACE_WRITE, NULL, X, 4);
	call(&t, 1, "h");
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ret(&t, 1);
	ev(&t, 1, TRACE_READ, NULL, X, 4);
	ret(&t, 1);
	run("case 3", &t, &r, 2);
	expect("case 3", &t, &r, 0, 1, "h", 1, 1, 1, 0, 1);
	expect("case 3", &t, &r, 1, 1, "f", 2, 1, 1, 0, 3);
	trace_free(&t);
}

/* 4. Producer/consumer through one cell, n items. */
static void case4(unsigned n)
{
	struct trace t;
	struct results r;
	char cas[32];

	snprintf(cas, sizeof(cas), "case 4 (n=%u)", n);
	trace_init(&t);
	/* The producer has no pending activation: its writes still count. */
	call(&t, 2, "consumer");
	for (unsigned i = 0; i < n; i++) {
		ev(&t, 1, TRACE_WRITE, NULL, X, 4);
		ev(&t, 2, TRACE_READ, NULL, X, 4);
	}
	ret(&t, 2);
	run(cas, &t, &r, 1);
	expect(cas, &t, &r, 0, 2, "consumer", n, 1, n, 0, n);
	trace_free(&t);
}

/* 5. A loop of kwrites of 2 cells into one buffer, reading the first. */
static void case5(unsigned n)
{
	struct trace t;
	struct results r;
	char cas[32];

	snprintf(cas, sizeof(cas), "case 5 (n=%u)", n);
	trace_init(&t);
	call(&t, 1, "loop");
	for (unsigned i = 0; i < n; i++) {
		ev(&t, 1, TRACE_KWRITE, NULL, 100, 8);
		ev(&t, 1, TRACE_READ, NULL, 100, 4);
	}
	ret(&t, 1);
	run(cas, &t, &r, 1);
	expect(cas, &t, &r, 0, 1, "loop", n, 1, 0, n, 2 * n);
	trace_free(&t);
}

/* Not a worked case: the closing order at the end of the trace
 * (ascending tid, innermost first), and rejection of a malformed trace. */
static void case_closing(void)
{
	struct trace t;
	struct results r;

	trace_init(&t);
	call(&t, 7, "a");
	call(&t, 7, "b");
	call(&t, 3, "c");
	call(&t, 3, "d");
	ev(&t, 3, TRACE_READ, NULL, X, 4);
	run("closing", &t, &r, 4);
	expect("closing", &t, &r, 0, 3, "d", 1, 1, 0, 0, 1);
	expect("closing", &t, &r, 1, 3, "c", 1, 1, 0, 0, 1);
	expect("closing", &t, &r, 2, 7, "b", 0, 0, 0, 0, 0);
	expect("closing", &t, &r, 3, 7, "a", 0, 0, 0, 0, 0);
	trace_free(&t);

	trace_init(&t);
	call(&t, 1, "f");
	ret(&t, 1);
	ret(&t, 1); /* nothing pending */
	memset(&r, 0, sizeof(r));
	check("malformed: oracle_run status",
	      (uint64_t)(int64_t)oracle_run(&t, 4, collect, &r),
	      (uint64_t)(int64_t)-1);
	check("malformed: activations emitted", r.n, 0);
	trace_free(&t);
}

int main(void)
{
	case1();
	case2();
	case3();
	for (unsigned n = 1; n <= 6; n++) {
		case4(n);
		case5(n);
	}
	case_closing();
	if (failures) {
		fprintf(stderr, "oracle_selftest: %d check(s) failed\n",
			failures);
		return 1;
	}
	printf("oracle_selftest: all checks passed\n");
	return 0;
}
