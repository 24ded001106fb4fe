package demo

class UserService {
  def findById(id: String): Option[User] = None
  val limit = 3
}

object Main {
  def main(args: Array[String]): Unit = ()
}

trait Repo {
  def save(u: User): Unit
}
