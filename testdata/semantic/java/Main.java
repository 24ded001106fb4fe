class Main {
    void m(UserService s) {
        s.helper();
    }
}
