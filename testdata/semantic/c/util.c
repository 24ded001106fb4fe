int helper(void);

int twice(void) { return helper() * 2; }
