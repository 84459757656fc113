/**
 * The marketplace proxy secret, read once per container. `read` answers undefined when the
 * deployment requires no secret. A failed read is not remembered, so the next request retries.
 */
export function createProxySecret(
  read: () => Promise<string | undefined>,
): () => Promise<string | undefined> {
  let value: Promise<string | undefined> | undefined;
  return () => {
    value ??= read().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}
