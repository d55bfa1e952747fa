/*
 * fn_inlined.c - a helper the optimiser inlines into its caller is no
 * region of its own, with GCC (its plugin instruments functions after
 * inlining) as with Clang (which instruments after inlining); the caller,
 * which the optimiser may clone for its constant argument
 * (outer.constprop.0), stays one region with one activation.
 */
#include <stdio.h>

static int scale(int x)
{
	return 3 * x + 1;
}

__attribute__((noinline)) static int outer(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += scale(i);
	return sum;
}

int main(void)
{
	printf("%d\n", outer(100));
	return 0;
}
