import { UserService, helper } from "./service";
export const x: number = helper();
