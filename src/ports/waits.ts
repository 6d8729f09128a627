/**
 * A wait on an external service that people are shown: which service, why, and until when. Adapters
 * report every wait they make on a service's account (an outage's backoff, a Retry-After, a quota);
 * the engine shows the ones long enough to notice.
 */
export interface ServiceWait {
  /** `jules`, `github`, … */
  readonly service: string;
  /** One sentence a person reads, e.g. "Jules is failing (503) since 10:02:11Z; retrying". */
  readonly reason: string;
  readonly until: Date;
  /** When it began, if before it was reported (a model call shown once it ran long). */
  readonly since?: Date | undefined;
}

/** Reports a wait as it starts; the function it returns ends it (calling it again does nothing). */
export type WaitReporter = (wait: ServiceWait) => () => void;
