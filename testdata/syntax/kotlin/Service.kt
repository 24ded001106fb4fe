package demo

/** Finds users. */
class UserService(val repo: Repo) {
    fun findById(id: String): User? = null

    val limit = 3
}

object Registry {
    fun all() = listOf<String>()
}

fun helper() {}
