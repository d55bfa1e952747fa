/*
 * pthread_hooks.c - every thread the program creates gets its state before
 * it runs any of the program's code, its number in creation order, and its
 * creation context: the creating thread and the regions that thread had
 * open when it called pthread_create.
 *
 * The end of a thread (return, pthread_exit, cancellation) is seen by the
 * key destructor in thread.c, whichever way the thread was created.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "call.h"
#include "hooks.h"
#include "base/real.h"
#include "base/vm.h"

/* What the new thread needs to know; made by the creator, consumed (and
 * freed) by the new thread before the program's start routine runs. */
struct start_record {
	void *(*start)(void *);
	void *arg;
	struct thread_origin origin;
};

static void *trms_thread_trampoline(void *p)
{
	struct start_record record = *(struct start_record *)p;

	vm_free(p, sizeof(record));
	thread_attach_created(&record.origin);
	return record.start(record.arg);
}

/* The creator's open regions, outermost first (the outermost
 * THREAD_CONTEXT_MAX if it has more). */
static void note_origin(struct trms_thread *creator,
			struct thread_origin *origin)
{
	size_t depth = creator->engine.depth;

	origin->has_creator = true;
	origin->creator = creator->ordinal;
	origin->context_depth = depth < THREAD_CONTEXT_MAX
					? (uint32_t)depth
					: THREAD_CONTEXT_MAX;
	for (uint32_t i = 0; i < origin->context_depth; i++)
		origin->context[i] = creator->engine.stack[i + 1].region;
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
	       void *(*start)(void *), void *arg)
{
	__typeof__(real.pthread_create) create = REAL(pthread_create);
	struct start_record *record;
	struct trms_thread *creator;
	int rc;

	if (!create)
		return EAGAIN;
	if (!runtime_started())
		runtime_start();
	creator = call_enter(&rc);
	if (!creator)
		return create(thread, attr, start, arg);
	record = vm_alloc(sizeof(*record));
	if (!record) {
		call_leave(creator);
		return create(thread, attr, start, arg);
	}
	record->start = start;
	record->arg = arg;
	note_origin(creator, &record->origin);
	record->origin.path_len = sampler_capture_context(
		&creator->sampler, record->origin.path, SAMPLER_CONTEXT_MAX - 1);
	record->origin.ordinal = thread_reserve_ordinal();
	engine_prepare_threads(&runtime.engine);
	call_leave(creator);
	rc = create(thread, attr, trms_thread_trampoline, record);
	if (rc)
		vm_free(record, sizeof(*record));
	return rc;
}
