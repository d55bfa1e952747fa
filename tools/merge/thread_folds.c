/*
 * thread_folds.c - ended threads counted as the thread they were folded
 * into (see thread_folds.h).
 */
#include "thread_folds.h"

#include <stdint.h>
#include <stdlib.h>

#include "format/profile_format.h"
#include "merge_rules.h"
#include "xalloc.h"

/* In process @pid, thread @from became @into. */
struct fold {
	uint64_t pid;
	const struct profile_thread *from, *into;
};

struct thread_folds {
	struct fold *fold; /* by process, then identity */
	size_t n;
};

static int compare_folds(const void *a, const void *b)
{
	const struct fold *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return thread_identity_compare(x->from->name, x->from->ordinal,
				       y->from->name, y->from->ordinal);
}

static uint64_t pid_of(const struct profile_doc *doc)
{
	return profile_meta_u64(doc, PROFILE_META_PID, 0);
}

struct thread_folds *thread_folds_find(const struct profile_doc *docs,
				       size_t n_docs)
{
	struct thread_folds *folds = NULL;
	size_t room = 0;

	for (size_t i = 0; i < n_docs; i++) {
		const struct profile_doc *doc = &docs[i];
		for (size_t k = 0; k < doc->n_threads; k++) {
			const struct profile_thread *th = &doc->threads[k];
			const struct profile_thread *into =
				th->has_folded_into
					? profile_thread(doc, th->folded_into)
					: NULL;
			if (!into || into == th)
				continue;
			if (!folds)
				folds = xcalloc(1, sizeof(*folds));
			if (folds->n == room) {
				room = room ? 2 * room : 16;
				folds->fold = xrealloc(
					folds->fold, room * sizeof(*folds->fold));
			}
			folds->fold[folds->n++] =
				(struct fold){ pid_of(doc), th, into };
		}
	}
	if (folds)
		qsort(folds->fold, folds->n, sizeof(*folds->fold),
		      compare_folds);
	return folds;
}

const struct profile_thread *
thread_folds_as(const struct thread_folds *folds,
		const struct profile_doc *doc,
		const struct profile_thread *th)
{
	if (!folds || !th)
		return th;
	struct fold key = { pid_of(doc), th, NULL };
	const struct fold *f = bsearch(&key, folds->fold, folds->n,
				       sizeof(*folds->fold), compare_folds);
	return f ? f->into : th;
}

void thread_folds_free(struct thread_folds *folds)
{
	if (!folds)
		return;
	free(folds->fold);
	free(folds);
}
