/**
 * A key for the content of a database's bytes, by the identity of the array that holds them: callers that load the
 * same database again and again (the environment loads a fresh copy every episode, from bytes it keeps) pass the
 * same array, so the engine can reuse what it derived from those bytes — its perturbed copies and one shared read-only
 * connection — instead of building them anew each episode. The arrays are treated as immutable once loaded (the
 * worker executor keeps them for reloads too). Keys are unique within the process.
 */
const ids = new WeakMap<Uint8Array, string>();
let next = 1;

export function contentKeyOf(bytes: Uint8Array): string {
  let id = ids.get(bytes);
  if (id === undefined) {
    id = `content-${next++}`;
    ids.set(bytes, id);
  }
  return id;
}
