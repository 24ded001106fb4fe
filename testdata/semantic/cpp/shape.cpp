#include <string>

namespace geo {

class Shape {
public:
    double area(int scale) const { return 0; }
    double area() const { return 0; }
    std::string name() const { return "shape"; }
};

}  // namespace geo

/// Twice x.
[[nodiscard]] int twice(int x) { return x * 2; }

int helper() { return 1; }
