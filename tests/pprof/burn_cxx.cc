// burn_cxx.cc - about 300 ms of CPU time in a member function of a class
// template in a namespace, for demangle.sh: its mangled names are
// _ZN4demo3BoxImE4spinEi and _ZN4demo4burnEi.
#include <cstdio>
#include <ctime>

namespace demo {

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T spin(int n)
	{
		volatile T x = v;
		for (int i = 0; i < n; i++)
			x = x * 3 + 1;
		return x;
	}
};

__attribute__((noinline)) unsigned long burn(double seconds)
{
	Box<unsigned long> box{ 1 };
	unsigned long sum = 0;
	while ((double)std::clock() < seconds * CLOCKS_PER_SEC)
		sum += box.spin(100000);
	return sum;
}

} // namespace demo

int main()
{
	std::printf("%lu\n", demo::burn(0.3));
	return 0;
}
