const MAX = 3;

/** Greets people. */
class Greeter {
  constructor(name) {
    this.name = name;
  }

  /**
   * Says hi.
   */
  greet() {
    return "hi " + this.name;
  }
}

function helper() {
  return 1;
}

function helper() {
  return 2;
}

function main() {
  return new Greeter("x").greet() + MAX;
}
