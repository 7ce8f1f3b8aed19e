/** An async iterable fed by the test, which can say when its reader has taken everything pushed. */
export class Feed<T> implements AsyncIterable<T> {
  readonly #items: Array<T> = [];
  #reader: ((result: IteratorResult<T>) => void) | undefined;
  #idle: Array<() => void> = [];

  push(item: T) {
    const reader = this.#reader;
    this.#reader = undefined;
    if (reader === undefined) this.#items.push(item);
    else reader({ value: item, done: false });
  }

  stop() {
    this.#reader?.({ value: undefined, done: true });
  }

  /** Resolves once the reader waits for more with nothing queued (everything pushed is applied). */
  idle(): Promise<void> {
    if (this.#reader !== undefined && this.#items.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        return new Promise((resolve) => {
          this.#reader = resolve;
          for (const wake of this.#idle.splice(0)) wake();
        });
      },
    };
  }
}
