import functools

MAX_USERS = 10


class UserService:
    """Finds users."""

    limit = 3

    # cached lookup
    @functools.lru_cache
    @staticmethod
    def find_by_id(user_id):
        def inner():
            return user_id
        return inner()

    def save(self, user):
        pass


def helper():
    return 1
