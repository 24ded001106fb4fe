class Greeter {
    def greet(name) {
        return "hi " + name
    }
}

def helper() {
    println "x"
}
