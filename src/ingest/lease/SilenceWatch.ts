/**
 * Tells when a lease's holder has gone silent: the record has kept the same
 * revision for `leaseMs`, measured on this process's own clock from when it
 * first saw that revision. A live holder rewrites its record several times
 * per lease period, so an unchanged revision means it stopped. No timestamp
 * written by another host is compared, so clocks that disagree do no harm.
 */
export class SilenceWatch {
  #revision: number | undefined;
  #since = 0;

  constructor(readonly leaseMs: number) {}

  /** Records what was seen at `now` (ms) and answers whether the holder has been silent for a whole lease. */
  silent(revision: number, now: number): boolean {
    if (revision !== this.#revision) {
      this.#revision = revision;
      this.#since = now;
      return false;
    }
    return now - this.#since >= this.leaseMs;
  }
}
