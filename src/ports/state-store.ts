/** Where the engine keeps its state: a whole-document load and a durable save. */
export interface StateStore<T> {
  /** Where the state lives, for messages. */
  readonly path: string;
  load(): Promise<T>;
  /**
   * Resolves once everything in `document` is on disk (a store may write only what changed).
   * `changed`, when given, lists the parts (e.g. tree nodes) that may have changed since the
   * previous save besides the document's top level and anything new: a store may skip looking at
   * the rest. Omitted: anything may have changed.
   */
  save(document: T, changed?: ReadonlySet<object>): Promise<void>;
  /**
   * A clean stop: like `save`, and the main file (the one a person reads) then holds the whole
   * document on its own. Stores that always write the whole document need not have it.
   */
  compact?(document: T): Promise<void>;
}
