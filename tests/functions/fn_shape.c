/*
 * fn_shape.c - `trms cc` leaves the optimiser's choices as they are
 * natively: what it inlines, splits (a function whose common case is
 * short gets its rare part outlined, GCC's maybe_large.part.0) and
 * specialises (GCC's use_b.constprop.0.isra.0: a constant argument
 * folded in, a structure passed by its fields).  The functions in the
 * object are the native build's, and each remaining function's
 * activations are counted: the specialised copy under its origin's name,
 * the split part under its own.
 */
#include <stdio.h>

struct big {
	int a, b, c, d;
	char pad[100];
};

static int uses;

/* (It counts its calls: were it pure, its call would leave the loop.) */
__attribute__((noinline)) static int use_b(struct big *p, int scale)
{
	uses++;
	return p->b * scale + p->d;
}

/* Opaque to the optimiser: its loops stay in the part split off. */
__attribute__((noinline)) int slow(int x)
{
	return x % 7;
}

int maybe_large(int x)
{
	if (__builtin_expect(x < 100, 1))
		return x;
	int s = 0;
	for (int i = 0; i < x; i++)
		s += slow(i) * i + (i ^ x);
	for (int i = 0; i < x; i++)
		s += slow(i + 1) * i + (i ^ x);
	return s;
}

static int small(int x)
{
	return 3 * x + 1;
}

int main(int argc, char **argv)
{
	struct big b = { argc, 2, 3, 4, { 0 } };
	int sum = 0;

	(void)argv;
	for (int i = 0; i < 10; i++)
		sum += use_b(&b, 3) + maybe_large(i * 30 + argc) + small(i);
	printf("%d %d\n", sum, uses);
	return 0;
}
