// Standard output for `call("echo", x)`: lines are batched so a chatty program is not one system
// call per line, and flushed before the process reports its outcome.
export class StdoutLines {
  private buffer = '';
  private scheduled = false;

  constructor(
    private readonly limit = 64 * 1024,
    /** a live line on the terminal (progress.ts), cleared before output is written and drawn after */
    private readonly around?: { clear(): void; draw(): void },
  ) {}

  write(line: string): void {
    this.buffer += line + '\n';
    if (this.buffer.length >= this.limit) this.drain();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Writes what is buffered now (synchronous for files, pipes and terminals on Linux and macOS). */
  drain(): void {
    this.scheduled = false;
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = '';
    this.around?.clear();
    process.stdout.write(chunk);
    this.around?.draw();
  }

  flush(): Promise<void> {
    this.drain();
    return new Promise((resolve) => {
      if (process.stdout.writableNeedDrain) process.stdout.once('drain', () => resolve());
      else resolve();
    });
  }
}
