#include <stdio.h>

/* A point. */
struct point {
    int x;
};

/** Adds two ints. */
static int add(int a, int b) {
    return a + b;
}

int helper(void) {
    return 1;
}

int main(void) {
    return add(1, 2) + helper();
}

int point(void) {
    return 0;
}
