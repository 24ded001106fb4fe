package demo;

/**
 * Finds users.
 */
@Service
public class UserService {
    private int count;

    /** By id. */
    @Override
    public User findById(String id) {
        return null;
    }

    public User findById(long id) {
        return null;
    }

    static class Cache {
        void clear() {}
    }

    public void helper() {}
}
