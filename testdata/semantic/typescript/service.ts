import { User } from "./user";

/** Finds users. */
@Injectable()
export class UserService {
  private cache: Map<string, User> = new Map();

  @Log()
  async findById(id: string): Promise<User | null> {
    return null;
  }

  findById(id: number): User;
}

export interface Repo {
  get(id: string): User;
}

export function helper(): number {
  return 1;
}
