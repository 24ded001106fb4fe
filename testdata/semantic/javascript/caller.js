const { Greeter } = require("./app");
new Greeter("y").greet();
