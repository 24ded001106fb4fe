#include <string>

namespace geo {

class Shape {
public:
    virtual double area() const;
    std::string name() const { return "shape"; }
};

double Shape::area() const {
    return 0;
}

}  // namespace geo

template <typename T>
T twice(T x) { return x * 2; }
