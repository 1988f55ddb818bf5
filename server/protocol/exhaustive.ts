/**
 * The default branch of a switch over a union: typecheck fails when a member has no
 * case (the value is not `never`), and at run time — an old browser meeting a newer
 * server — it answers the fallback instead of failing.
 */
export function unhandled<T>(value: never, fallback: T): T {
  void value;
  return fallback;
}
