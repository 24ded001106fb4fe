import Foundation

/// Finds users.
class UserService {
    var limit = 3

    func findById(id: String) -> User? {
        return nil
    }
}

struct Point {
    let x: Int
}

protocol Repo {
    func save()
}

func helper() {}
