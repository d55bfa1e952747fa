/*
 * fn_robust.cc - what real programs do to a profiler of every function,
 * for `trms c++ --trms-full` (tests/functions/functions.sh), built by
 * g++ and clang++, each count below derived by hand:
 *
 *  - thrower(n) recurses THROW_DEPTH times and throws; main catches it,
 *    THROWS times: (THROW_DEPTH + 1) * THROWS activations of thrower,
 *    every one closed (GCC calls the exits on the way; Clang's frames are
 *    closed by the next exit of a function still running);
 *  - early() runs in a constructor, before main and perhaps before the
 *    library's own constructor: 1 activation;
 *  - on_signal() runs in a signal handler (raise, so once, outside the
 *    library): 1 activation;
 *  - a forked child runs in_child() and exits; the parent's profile has
 *    no in_child, the child writes its own.  The parent prints its pid,
 *    which names its profile;
 *  - std::sort of 1000 ints: the C++ library's functions that are not
 *    inlined are no regions with GCC (trms cc excludes the system
 *    headers' functions), regions with Clang (which cannot);
 *  - the word printed first is a global with a dynamic initialiser
 *    (which GCC brackets with calls of the sanitizer's: they must link).
 * The run is traced: the profile must be what the definitions give for
 * the trace.
 */
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <vector>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define THROW_DEPTH 4
#define THROWS 3

static volatile int sink;

NOINLINE int thrower(int n)
{
	if (n == 0)
		throw std::runtime_error("deep");
	int r = thrower(n - 1);
	sink = r;
	return r + 1;
}

NOINLINE void early(void)
{
	sink = 1;
}

NOINLINE void on_signal(int sig)
{
	sink = sig;
}

NOINLINE void in_child(void)
{
	sink = 2;
}

NOINLINE std::string make_word(void)
{
	return std::string("caught");
}

static const std::string word = make_word();

__attribute__((constructor)) static void before_main(void)
{
	early();
}

static void handler(int sig)
{
	on_signal(sig);
}

int main()
{
	int caught = 0;
	std::vector<int> numbers;

	/* std::sort: functions of the C++ library's headers that the
	 * compiler leaves out of line (GCC: no regions, excluded by file). */
	for (int i = 0; i < 1000; i++)
		numbers.push_back((i * 7919) % 1009);
	std::sort(numbers.begin(), numbers.end());
	std::printf("sorted %d\n", std::is_sorted(numbers.begin(), numbers.end()));

	for (int i = 0; i < THROWS; i++) {
		try {
			thrower(THROW_DEPTH);
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::signal(SIGUSR1, handler);
	std::raise(SIGUSR1);
	std::fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		in_child();
		return 0;
	}
	int status = 1;
	waitpid(child, &status, 0);
	std::printf("%s %d, child %d, parent %ld\n", word.c_str(), caught,
		    status, (long)getpid());
	return 0;
}
