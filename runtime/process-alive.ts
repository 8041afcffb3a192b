// Whether an OS process still runs, for the owners of locks and scratch folders a killed process left.

/** Whether process `pid` is alive (signal 0 checks without signalling; EPERM: alive, someone else's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
