// The Restate SDK calls `Promise.withResolvers` (Node 22+). On Node 20 the worker installs this
// equivalent before the SDK runs (test/restate/polyfill.test.ts).

interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

/** Installs `Promise.withResolvers` where the running Node lacks it; returns whether it did. */
export function installPromiseWithResolvers(): boolean {
  const P = Promise as unknown as { withResolvers?: unknown };
  if (typeof P.withResolvers === 'function') return false;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor): WithResolvers<T> {
      let resolve!: WithResolvers<T>['resolve'];
      let reject!: WithResolvers<T>['reject'];
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
  return true;
}

installPromiseWithResolvers();
