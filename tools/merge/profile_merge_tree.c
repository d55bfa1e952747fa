/*
 * profile_merge_tree.c - the sampled calling context trees of a merge:
 * each thread's trees merged node by node along identical paths from the
 * top (two nodes merge if their parents merged and they are the same
 * frame, region or thread start), their counts added, then numbered
 * depth first with siblings in a fixed order.
 */
#define _GNU_SOURCE
#include "profile_merge_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* No node: at the top of a tree, or a free slot. */
#define NONE SIZE_MAX

/* A node of the merged trees, identified by its thread, its parent and
 * what it is (kind, a, b in output numbers). */
struct tree_node {
	uint32_t thread;
	size_t parent; /* index of the parent node, NONE at the top */
	enum profile_cct_kind kind;
	uint64_t a, b;
	uint64_t samples, work, idleness_millionths, overhead, blocked;
	size_t first_child, n_children; /* a run of the sorted order */
	uint32_t id;			/* in the output */
};

/* Open addressing: slots hold node indices (NONE: free). */
struct node_table {
	size_t *slots;
	size_t mask;
};

/* Maps (thread, node id) of one input to node indices. */
struct id_table {
	uint64_t *keys;
	size_t *nodes;
	size_t mask;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

/* The slots of a table for @entries: a power of two, at most half
 * full. */
static size_t table_size(size_t entries)
{
	size_t size = 16;

	while (size < 2 * entries)
		size *= 2;
	return size;
}

/* An array of @size indices, all NONE. */
static size_t *empty_slots(size_t size)
{
	size_t *slots = xcalloc(size, sizeof(*slots));

	memset(slots, 0xff, size * sizeof(*slots));
	return slots;
}

static size_t *node_slot(struct node_table *t, const struct tree_node *nodes,
			 const struct tree_node *key)
{
	uint64_t h = mix(mix(mix(mix(mix(0, key->thread), key->parent),
				 key->kind),
			     key->a),
			 key->b);

	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		size_t *slot = &t->slots[i];
		if (*slot == NONE)
			return slot;
		const struct tree_node *n = &nodes[*slot];
		if (n->thread == key->thread && n->parent == key->parent &&
		    n->kind == key->kind && n->a == key->a && n->b == key->b)
			return slot;
	}
}

/* The slot of node @node of thread @thread: its node index, or NONE where
 * it would go. */
static size_t *id_slot(struct id_table *t, uint32_t thread, uint32_t node)
{
	uint64_t key = (uint64_t)thread << 32 | node;

	for (size_t i = mix(0, key) & t->mask;; i = (i + 1) & t->mask)
		if (t->nodes[i] == NONE || t->keys[i] == key)
			return &t->nodes[i];
}

static void id_insert(struct id_table *t, uint32_t thread, uint32_t node,
		      size_t index)
{
	size_t *slot = id_slot(t, thread, node);

	t->keys[slot - t->nodes] = (uint64_t)thread << 32 | node;
	*slot = index;
}

struct trees {
	struct tree_node *nodes;
	size_t n_nodes;
	struct node_table table;
};

/* What tree line @c of input @input is, in output numbers. */
static int map_node(struct merge *m, size_t input,
		    const struct profile_cct *c, struct tree_node *key)
{
	bool region = c->kind == PROFILE_CCT_REGION;
	uint32_t mapped;

	merge_map_thread(m, input, c->thread, &key->thread);
	key->kind = c->kind;
	key->a = c->a;
	key->b = c->b;
	if (c->kind == PROFILE_CCT_THREAD)
		return 0;
	if (region ? !merge_map_region(m, input, c->a, &mapped)
		   : !merge_map_module(m, input, c->a, &mapped))
		return merge_fail(m,
				  "%s: tree node %" PRIu32 " of thread %" PRIu32
				  " is in undeclared %s %" PRIu64,
				  m->inputs[input].path, c->node, c->thread,
				  region ? "region" : "module", c->a);
	key->a = mapped;
	return 0;
}

/* Add the trees of input @input, node by node along identical paths.
 * The reader made sure that parents come before their children and that
 * no node number is used twice in a thread. */
static int add_trees(struct merge *m, size_t input, struct trees *t)
{
	const struct profile_doc *doc = &m->inputs[input];
	size_t size = table_size(doc->n_cct);
	struct id_table ids = { xcalloc(size, sizeof(uint64_t)),
				empty_slots(size), size - 1 };
	int rc = 0;

	for (size_t j = 0; j < doc->n_cct && !rc; j++) {
		const struct profile_cct *c = &doc->cct[j];
		struct tree_node key = { .parent = NONE };
		if (c->has_parent)
			key.parent = *id_slot(&ids, c->thread, c->parent);
		rc = map_node(m, input, c, &key);
		if (rc)
			break;
		size_t *slot = node_slot(&t->table, t->nodes, &key);
		if (*slot == NONE) {
			*slot = t->n_nodes;
			t->nodes[t->n_nodes++] = key;
		}
		struct tree_node *node = &t->nodes[*slot];
		merge_add(m, &node->samples, c->samples);
		merge_add(m, &node->work, c->work);
		merge_add(m, &node->idleness_millionths,
			  c->idleness_millionths);
		merge_add(m, &node->overhead, c->overhead);
		merge_add(m, &node->blocked, c->blocked);
		id_insert(&ids, c->thread, c->node, *slot);
	}
	free(ids.keys);
	free(ids.nodes);
	return rc;
}

/* Siblings in a fixed order: kind, then a and b in output numbers. */
static int compare_nodes(const void *a, const void *b, void *ctx)
{
	const struct tree_node *nodes = ctx;
	const struct tree_node *x = &nodes[*(const size_t *)a];
	const struct tree_node *y = &nodes[*(const size_t *)b];
	int c = merge_compare_u64(x->thread, y->thread);

	/* Grouping by parent: its index is no canonical order, but only
	 * siblings' order within a group counts. */
	if (!c)
		c = merge_compare_u64(x->parent + 1, y->parent + 1);
	if (!c)
		c = merge_compare_u64(x->kind, y->kind);
	if (!c)
		c = merge_compare_u64(x->a, y->a);
	if (!c)
		c = merge_compare_u64(x->b, y->b);
	return c;
}

/* Number the nodes depth first, each thread's from 1, and write them in
 * that order (parents before children). */
static void number_nodes(struct trees *t, struct profile_doc *out)
{
	size_t *order = xcalloc(t->n_nodes, sizeof(*order));
	size_t *stack = xcalloc(t->n_nodes, sizeof(*stack));

	for (size_t k = 0; k < t->n_nodes; k++)
		order[k] = k;
	qsort_r(order, t->n_nodes, sizeof(*order), compare_nodes, t->nodes);
	out->cct = xcalloc(t->n_nodes, sizeof(*out->cct));
	for (size_t k = 0; k < t->n_nodes;) {
		const struct tree_node *first = &t->nodes[order[k]];
		size_t end = k + 1;
		while (end < t->n_nodes &&
		       t->nodes[order[end]].thread == first->thread &&
		       t->nodes[order[end]].parent == first->parent)
			end++;
		if (first->parent != NONE) {
			t->nodes[first->parent].first_child = k;
			t->nodes[first->parent].n_children = end - k;
		}
		k = end;
	}
	uint32_t thread = 0, next_id = 1;
	for (size_t k = 0; k < t->n_nodes; k++) {
		const struct tree_node *top = &t->nodes[order[k]];
		if (top->parent != NONE)
			continue;
		if (!out->n_cct || top->thread != thread) {
			thread = top->thread;
			next_id = 1;
		}
		/* One top node and its subtree, children pushed last first. */
		size_t depth = 0;
		stack[depth++] = order[k];
		while (depth) {
			struct tree_node *node = &t->nodes[stack[--depth]];
			node->id = next_id++;
			out->cct[out->n_cct++] = (struct profile_cct){
				.thread = node->thread,
				.node = node->id,
				.has_parent = node->parent != NONE,
				.parent = node->parent != NONE
						  ? t->nodes[node->parent].id
						  : 0,
				.kind = node->kind,
				.a = node->a,
				.b = node->b,
				.samples = node->samples,
				.work = node->work,
				.idleness_millionths = node->idleness_millionths,
				.overhead = node->overhead,
				.blocked = node->blocked,
			};
			const size_t *children = &order[node->first_child];
			for (size_t c = node->n_children; c > 0; c--)
				stack[depth++] = children[c - 1];
		}
	}
	free(stack);
	free(order);
}

int merge_trees(struct merge *m)
{
	size_t total = 0;

	for (size_t i = 0; i < m->n_inputs; i++)
		total += m->inputs[i].n_cct;
	size_t size = table_size(total);
	struct trees t = { xcalloc(total, sizeof(*t.nodes)), 0,
			   { empty_slots(size), size - 1 } };
	int rc = 0;

	for (size_t i = 0; i < m->n_inputs && !rc; i++)
		rc = add_trees(m, i, &t);
	if (!rc)
		number_nodes(&t, m->out);
	free(t.nodes);
	free(t.table.slots);
	return rc;
}
