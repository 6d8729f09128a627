import { MakerError } from '../core/errors.js';

/**
 * A failure of the offline world itself (a fake service's store, its git, a package it builds), as
 * opposed to what a fake answers on purpose: the message says what was asked and what was wrong, so
 * a person running `maker demo` or `maker fake-github` can act on it, never "a bug in maker".
 */
export class OfflineError extends MakerError {
  override readonly name: string = 'OfflineError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('offline', message, options);
  }
}
