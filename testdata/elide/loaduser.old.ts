export async function loadUser(id: string): Promise<User> {
  const res = await fetch(`/api/users/${id}`);
  if (!res.ok) {
    throw new Error(`status ${res.status}`);
  }
  const body = await res.json();
  return body as User;
}
