// prog.cc - a small C++ program built by trms c++ in
// tests/cc/compilers.sh: templates and the standard library's inline
// code, virtual calls, an exception thrown through instrumented frames
// and caught; it prints what it computed.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Square : Shape {
	explicit Square(double s) : side(s) {}
	double area() const override { return side * side; }
	double side;
};

struct Rect : Shape {
	Rect(double w, double h) : w(w), h(h) {}
	double area() const override { return w * h; }
	double w, h;
};

int depth(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom reached");
	return depth(n - 1) + 1;
}

} // namespace

int main()
{
	std::vector<std::unique_ptr<Shape>> shapes;
	shapes.push_back(std::make_unique<Square>(3));
	shapes.push_back(std::make_unique<Rect>(2, 5));
	double total = 0;
	for (const auto &s : shapes)
		total += s->area();
	std::cout << "total area " << total << "\n";

	std::vector<std::string> words{ "pear", "apple", "fig", "apple" };
	std::sort(words.begin(), words.end());
	std::map<std::string, int> counts;
	for (const auto &w : words)
		counts[w]++;
	for (const auto &c : counts)
		std::cout << c.first << " " << c.second << "\n";

	try {
		depth(10);
	} catch (const std::exception &e) {
		std::cout << "caught: " << e.what() << "\n";
	}
	return 0;
}
