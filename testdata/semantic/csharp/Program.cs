class Program
{
    static void Main(Demo.UserService s) { s.Helper(); }
}
