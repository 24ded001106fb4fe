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

    public UserService() {}
}

interface Repo {
    void save(User u);
}
