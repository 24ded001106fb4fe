export async function loadUser(id: string, signal?: AbortSignal): Promise<User> {
  const res = await fetch(`/api/users/${id}`, { signal });
  if (!res.ok) {
    throw new Error(`status ${res.status}`);
  }
  const body = await res.json();
  return body as User;
}
