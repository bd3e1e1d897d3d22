/** What the Rust server's `GET /api/hello` answers. */
export interface Hello {
  message: string;
  served_by: string;
}

/** Asks the Rust API for its greeting. */
export async function fetchHello(): Promise<Hello> {
  const response = await fetch("/api/hello", { headers: { accept: "application/json" } });
  if (!response.ok) {
    throw new Error(`GET /api/hello: ${response.status}`);
  }
  return (await response.json()) as Hello;
}
