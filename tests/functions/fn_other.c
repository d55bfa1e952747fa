/*
 * fn_other.c - a second file for fn_cases.c, with a static function of
 * the same name as one there: the profile must keep them apart.
 */
#define NOINLINE __attribute__((noinline))

int other_helper(int x);

static volatile int sink;

NOINLINE static int helper(int x)
{
	sink = x;
	return x * 5;
}

NOINLINE int other_helper(int x)
{
	return helper(x);
}
