/**
 * Publishes the branches a run owns to its remote. Branches asked for at one moment go out together
 * (one push); each carries a lease on the value last published, so nothing the run did not write
 * is ever overwritten: a branch someone else moved rejects with `RefMovedError` (code `ref-moved`)
 * for that branch alone, and the others still go out.
 */
export interface RefPublisher {
  /** Makes `branch` on the remote point at `sha` (which must exist locally). */
  publish(branch: string, sha: string): Promise<void>;
  /** Deletes `branch` on the remote (already gone counts as done). */
  remove(branch: string): Promise<void>;
  /** What was last published, per branch: save it with the run and pass it back on resume. */
  leases(): Readonly<Record<string, string>>;
}
