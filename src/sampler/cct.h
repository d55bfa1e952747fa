/*
 * cct.h - calling context trees (csprof §2.2): one per thread, one node
 * per distinct call path, with what the samples found there.
 *
 * A path goes from the thread's creation context (the call path of the
 * pthread_create that made it, with the regions open there) through a
 * thread-start node to the thread's own frames, with the regions that were
 * open at sample time placed between the frames that opened them and their
 * callees.  Insertion happens in the sampling signal handler of the tree's
 * own thread, so it allocates only from mmap'ed blocks; it remembers the
 * last path inserted, so that a sample sharing a prefix with the previous
 * one starts from where the paths part.  Another thread (writing the
 * profile) may walk the tree meanwhile: nodes are linked in, whole, with
 * release stores, and counters are single words.
 */
#ifndef TRMS_CCT_H
#define TRMS_CCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cct_kind {
	CCT_ROOT = 0,
	CCT_FRAME = 1,  /* key: module << 40 | offset in the module */
	CCT_REGION = 2, /* key: region id */
	CCT_THREAD = 3, /* where the thread's own path starts; key 0 */
};

#define CCT_FRAME_KEY(module, offset) ((uint64_t)(module) << 40 | (offset))
#define CCT_FRAME_MODULE(key) ((uint32_t)((key) >> 40))
#define CCT_FRAME_OFFSET(key) ((key) & (((uint64_t)1 << 40) - 1))

#define CCT_MAX_DEPTH 400

struct cct_step {
	uint32_t kind;
	uint64_t key;
};

struct cct_node {
	struct cct_node *parent;
	struct cct_node *child;   /* first child: loaded with acquire */
	struct cct_node *sibling; /* next sibling: loaded with acquire */
	uint64_t key;
	uint32_t kind;
	uint32_t id;
	/* Where this node was the leaf of a sample (relaxed atomics). */
	uint64_t samples;  /* every sample */
	uint64_t work;     /* samples of a working thread */
	uint64_t overhead; /* ... whose leaf was in a synchronisation call */
	uint64_t blocked;  /* samples of a blocked thread (wall clock) */
	/* n_idle / n_working summed over work samples, in millionths (a
	 * word, so that it is read and written whole). */
	uint64_t idleness;
};

struct cct {
	struct cct_node *root;
	char *block;
	size_t used;
	uint32_t nodes;
	unsigned memo_depth;
	struct cct_step memo_steps[CCT_MAX_DEPTH];
	struct cct_node *memo_nodes[CCT_MAX_DEPTH];
};

/* A tree starts zeroed (fresh memory, or after cct_fini) and makes its
 * root at the first insert: a thread never sampled touches none of it
 * (its memo alone is some ten kilobytes). */
void cct_fini(struct cct *c);

/* The node for @path (from the root's child down), created as needed
 * (the root too).  Async-signal-safe; only the tree's own thread may
 * insert.  NULL if out of memory. */
struct cct_node *cct_insert(struct cct *c, const struct cct_step *path,
			    unsigned n);

/* Call @fn for every node but the root, parents before children. */
void cct_walk(const struct cct *c,
	      void (*fn)(void *ctx, const struct cct_node *node), void *ctx);

/* Add every sample of @from into @into, path by path (the tree of an
 * ended thread folded into another's: thread_fold.c).  Only @into's own
 * thread may insert into it meanwhile, or none.  @return the samples
 * that found no memory for their node in @into (0: all placed). */
uint64_t cct_absorb(struct cct *into, const struct cct *from);

static inline uint64_t cct_load(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

static inline void cct_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

#define CCT_IDLENESS_UNIT 1000000.0

static inline void cct_add_idleness(struct cct_node *node, double units)
{
	cct_add(&node->idleness, (uint64_t)(units * CCT_IDLENESS_UNIT + 0.5));
}

#endif
