/**
 * What the answer given at a request's deadline may say about its writes: nothing committed
 * yet (`open`, "retry later"), a COMMIT sent and not confirmed (`committing`, "outcome
 * unknown"), or the write committed (`settled`: its answer is reported).
 */
export type DeadlineState = 'open' | 'committing' | 'settled'

/**
 * One request's deadline as the domain sees it. The HTTP frame owns the clock and calls
 * `expire()`; the write path asks before each COMMIT (`beginCommit`) and says when the request's
 * outcome is committed (`settle`). Once expired no transaction of the request commits, so an
 * answer of "retry later" given then can never be contradicted by a later commit.
 */
export class RequestDeadline {
  readonly #controller = new AbortController()
  #commits = 0
  #settled = false

  constructor(readonly ms: number) {}

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get passed(): boolean {
    return this.#controller.signal.aborted
  }

  /**
   * Called right before a COMMIT is sent: false once the deadline has passed (the transaction
   * must roll back instead). Check and count happen in one synchronous step, so the frame never
   * answers "retry later" between them.
   */
  beginCommit(): boolean {
    if (this.passed) return false
    this.#commits++
    return true
  }

  /** The COMMIT begun with `beginCommit` was answered (or failed). */
  endCommit(): void {
    this.#commits--
  }

  /** The request's write committed: from now on its answer is that write's answer. */
  settle(): void {
    this.#settled = true
  }

  /** The deadline passed: no commit starts from now on. Says what the answer may claim. */
  expire(): DeadlineState {
    this.#controller.abort()
    return this.#settled ? 'settled' : this.#commits > 0 ? 'committing' : 'open'
  }

  /** Resolves when the deadline passes (never, if the request ends first). */
  whenPassed(): Promise<void> {
    const { signal } = this
    if (signal.aborted) return Promise.resolve()
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve(), { once: true }),
    )
  }
}
