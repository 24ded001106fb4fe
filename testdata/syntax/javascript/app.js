#!/usr/bin/env node
const MAX = 3;

class Greeter {
  constructor(name) {
    this.name = name;
  }

  greet() {
    return "hi " + this.name;
  }
}

function main() {
  new Greeter("x").greet();
}

const arrow = () => 1;
