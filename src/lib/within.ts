/** `work`, or a rejection with `late()` once `ms` have passed without its answer (the work itself goes on). */
export const within = <A>(work: Promise<A>, ms: number, late: () => Error): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
