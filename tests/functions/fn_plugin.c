/*
 * fn_plugin.c - a shared object built by `trms cc --trms-full -shared`,
 * loaded by fn_loaded.c with dlopen: plugin_sum reads @n ints its caller
 * wrote.
 */
__attribute__((noinline)) long plugin_sum(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}
