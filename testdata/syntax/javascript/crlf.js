class A {
  foo() {
    return 1;
  }
}
