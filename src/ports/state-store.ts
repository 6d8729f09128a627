/** Where the engine keeps its state: a whole-document load and an atomic save. */
export interface StateStore<T> {
  /** Where the state lives, for messages. */
  readonly path: string;
  load(): Promise<T>;
  save(document: T): Promise<void>;
}
