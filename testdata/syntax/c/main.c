#include <stdio.h>

#define MAX 10

/* A point. */
struct point {
    int x;
};

typedef struct {
    int y;
} pair_t;

static int add(int a, int b) {
    return a + b;
}

int main(void) {
    return add(1, 2);
}
