from service import UserService, helper

UserService().find_by_id(1)
print("find_by_id")
helper()
