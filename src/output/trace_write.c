/*
 * trace_write.c - TRMS_TRACE: the engine's operations, as it did them,
 * written as a trace `trms replay` reads (tools/replay/trace.h):
 *
 *   <thread> call r<region>
 *   <thread> return
 *   <thread> read|write|kwrite <address> <size>
 *
 * with the thread's ordinal in the profile and the region's id ("r7" is
 * region 7 of the profile), so that the activations the definitions give
 * for the trace (tests/oracle.c) can be compared with the profile's
 * tuples one by one (tests/functions/trace_check.c).  Lines go through a
 * buffer, written with the raw system call: the library's own hooks of
 * write must not see them.  The trace ends when the profile is written at
 * exit, so that both cover the same operations; a forked child writes
 * none.
 */
#define _GNU_SOURCE
#include "output/trace_write.h"

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/sys.h"
#include "base/text.h"
#include "runtime/thread.h"
#include "base/vm.h"

static int fd = -1;
static char buffer[64 << 10] VM_SET_APART;
static size_t used;

static void flush(void)
{
	for (size_t at = 0; at < used;) {
		ssize_t n = sys_write(fd, buffer + at, used - at);
		if (n <= 0) {
			log_internal("cannot write the trace to %s",
				     config.trace);
			break;
		}
		at += (size_t)n;
	}
	used = 0;
}

static const char *const op_words[] = {
	[ENGINE_TRACE_CALL] = "call",   [ENGINE_TRACE_RETURN] = "return",
	[ENGINE_TRACE_READ] = "read",   [ENGINE_TRACE_WRITE] = "write",
	[ENGINE_TRACE_KWRITE] = "kwrite",
};

/* Called with the engine's trace lock held: the buffer is ours. */
static void emit(void *ctx, const struct engine_thread *e,
		 enum engine_trace_op op, uint64_t a, uint64_t b)
{
	const struct trms_thread *t =
		(const struct trms_thread *)((const char *)e -
					     offsetof(struct trms_thread,
						      engine));
	char line[128];
	int n;

	(void)ctx;
	if (op == ENGINE_TRACE_CALL)
		n = text_format(line, sizeof(line), "%u call r%u\n",
				t->ordinal, (unsigned)a);
	else if (op == ENGINE_TRACE_RETURN)
		n = text_format(line, sizeof(line), "%u return\n", t->ordinal);
	else
		n = text_format(line, sizeof(line), "%u %s %llu %llu\n",
				t->ordinal, op_words[op], (unsigned long long)a,
				(unsigned long long)b);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (used + (size_t)n > sizeof(buffer))
		flush();
	memcpy(buffer + used, line, (size_t)n);
	used += (size_t)n;
}

static struct engine_tracer tracer = { emit, NULL };

void trace_start(void)
{
	if (!config.tracing)
		return;
	fd = open(config.trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		log_client("TRMS_TRACE: cannot create %s: %s", config.trace,
			   text_errno(errno));
		return;
	}
	engine_trace_set(&tracer);
}

void trace_finish(void)
{
	if (fd < 0)
		return;
	engine_trace_set(NULL);
	flush();
	close(fd);
	fd = -1;
}

void trace_after_fork_child(void)
{
	if (fd < 0)
		return;
	engine_trace_set(NULL);
	used = 0;
	close(fd);
	fd = -1;
}
