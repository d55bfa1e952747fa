/*
 * cct.c - calling context trees (see cct.h).
 */
#include "sampler/cct.h"

#include <string.h>

#include "base/vm.h"

#define BLOCK_BYTES ((size_t)64 << 10)

/* Blocks are chained through their first word, so cct_fini can free
 * them. */
static struct cct_node *new_node(struct cct *c)
{
	if (!c->block || c->used + sizeof(struct cct_node) > BLOCK_BYTES) {
		char *block = vm_alloc(BLOCK_BYTES);
		if (!block)
			return NULL;
		*(char **)block = c->block;
		c->block = block;
		c->used = 64;
	}
	struct cct_node *node = (struct cct_node *)(c->block + c->used);
	c->used += sizeof(struct cct_node);
	node->id = c->nodes;
	/* The profile writer reads the count to size its buffers. */
	__atomic_store_n(&c->nodes, c->nodes + 1, __ATOMIC_RELAXED);
	return node;
}

static struct cct_node *root_of(struct cct *c)
{
	struct cct_node *root = __atomic_load_n(&c->root, __ATOMIC_RELAXED);

	if (!root && (root = new_node(c))) {
		root->kind = CCT_ROOT;
		__atomic_store_n(&c->root, root, __ATOMIC_RELEASE);
	}
	return root;
}

void cct_fini(struct cct *c)
{
	char *block = c->block;

	while (block) {
		char *next = *(char **)block;
		vm_free(block, BLOCK_BYTES);
		block = next;
	}
	/* The memo is read only below memo_depth: left as it is.  Clearing
	 * its ten kilobytes cost a forked child two or three pages copied;
	 * and a tree never used is not written at all. */
	if (c->root || c->block || c->used || c->nodes || c->memo_depth) {
		c->root = NULL;
		c->block = NULL;
		c->used = 0;
		c->nodes = 0;
		c->memo_depth = 0;
	}
}

static struct cct_node *child_of(struct cct *c, struct cct_node *parent,
				 const struct cct_step *step)
{
	struct cct_node *n;

	for (n = __atomic_load_n(&parent->child, __ATOMIC_ACQUIRE); n;
	     n = __atomic_load_n(&n->sibling, __ATOMIC_ACQUIRE))
		if (n->key == step->key && n->kind == step->kind)
			return n;
	n = new_node(c);
	if (!n)
		return NULL;
	n->parent = parent;
	n->key = step->key;
	n->kind = step->kind;
	n->sibling = parent->child;
	/* Linked in whole: a reader that finds the node sees it filled. */
	__atomic_store_n(&parent->child, n, __ATOMIC_RELEASE);
	return n;
}

struct cct_node *cct_insert(struct cct *c, const struct cct_step *path,
			    unsigned n)
{
	unsigned same = 0;
	struct cct_node *node;

	if (n > CCT_MAX_DEPTH)
		n = CCT_MAX_DEPTH;
	/* Start from where this path leaves the previous one. */
	while (same < n && same < c->memo_depth &&
	       c->memo_steps[same].key == path[same].key &&
	       c->memo_steps[same].kind == path[same].kind)
		same++;
	node = same ? c->memo_nodes[same - 1] : root_of(c);
	if (!node)
		return NULL;
	for (unsigned i = same; i < n; i++) {
		node = child_of(c, node, &path[i]);
		if (!node) {
			c->memo_depth = i;
			return NULL;
		}
		c->memo_steps[i] = path[i];
		c->memo_nodes[i] = node;
	}
	c->memo_depth = n;
	return node;
}

void cct_walk(const struct cct *c,
	      void (*fn)(void *ctx, const struct cct_node *node), void *ctx)
{
	const struct cct_node *root = __atomic_load_n(&c->root,
						      __ATOMIC_ACQUIRE);
	const struct cct_node *n;

	if (!root)
		return;
	n = __atomic_load_n(&root->child, __ATOMIC_ACQUIRE);
	/* Depth first, without a stack: down to the first child, else on to
	 * the next sibling of the nearest ancestor that has one. */
	while (n) {
		fn(ctx, n);
		const struct cct_node *next =
			__atomic_load_n(&n->child, __ATOMIC_ACQUIRE);
		while (!next && n && n != root) {
			next = __atomic_load_n(&n->sibling, __ATOMIC_ACQUIRE);
			if (!next)
				n = n->parent;
		}
		n = next;
	}
}

struct absorb {
	struct cct *into;
	uint64_t lost;
};

/* @n's path from below the root, into @path (at most CCT_MAX_DEPTH, as
 * every path inserted); @return its length. */
static unsigned path_of(const struct cct_node *n, struct cct_step *path)
{
	unsigned depth = 0;

	for (const struct cct_node *up = n; up && up->kind != CCT_ROOT;
	     up = up->parent)
		depth++;
	if (depth > CCT_MAX_DEPTH)
		depth = CCT_MAX_DEPTH;
	for (unsigned i = depth; i > 0 && n; i--, n = n->parent)
		path[i - 1] = (struct cct_step){ n->kind, n->key };
	return depth;
}

static void absorb_node(void *ctx, const struct cct_node *n)
{
	struct absorb *a = ctx;
	struct cct_step path[CCT_MAX_DEPTH];
	uint64_t samples = cct_load(&n->samples);

	/* A node no sample ended at is made, if needed, by its
	 * descendants' paths. */
	if (!samples && !cct_load(&n->work) && !cct_load(&n->overhead) &&
	    !cct_load(&n->blocked) && !cct_load(&n->idleness))
		return;
	struct cct_node *d = cct_insert(a->into, path, path_of(n, path));
	if (!d) {
		a->lost += samples;
		return;
	}
	cct_add(&d->samples, samples);
	cct_add(&d->work, cct_load(&n->work));
	cct_add(&d->overhead, cct_load(&n->overhead));
	cct_add(&d->blocked, cct_load(&n->blocked));
	cct_add(&d->idleness, cct_load(&n->idleness));
}

uint64_t cct_absorb(struct cct *into, const struct cct *from)
{
	struct absorb a = { into, 0 };

	cct_walk(from, absorb_node, &a);
	return a.lost;
}
