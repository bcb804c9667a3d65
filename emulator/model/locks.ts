/** Script, document and user locks, shared by every execution of an environment. */

interface Waiter {
  owner: string;
  grant: (granted: boolean) => void;
  timer: NodeJS.Timeout;
}

/** Script, document and user locks held by executions; a waiter is parked until release or time-out (FIFO). */
export class LockManager {
  private readonly holders = new Map<string, string>();
  private readonly waiters = new Map<string, Waiter[]>();

  holds(key: string, owner: string): boolean {
    return this.holders.get(key) === owner;
  }

  holder(key: string): string | undefined {
    return this.holders.get(key);
  }

  acquire(key: string, owner: string, timeoutMs: number): Promise<boolean> {
    const current = this.holders.get(key);
    if (current === undefined || current === owner) {
      this.holders.set(key, owner);
      return Promise.resolve(true);
    }
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const queue = this.waiters.get(key) ?? [];
      this.waiters.set(key, queue);
      const waiter: Waiter = {
        owner,
        grant: (granted) => {
          clearTimeout(waiter.timer);
          resolve(granted);
        },
        timer: setTimeout(() => {
          const list = this.waiters.get(key) ?? [];
          const index = list.indexOf(waiter);
          if (index >= 0) list.splice(index, 1);
          resolve(false);
        }, timeoutMs),
      };
      queue.push(waiter);
    });
  }

  release(key: string, owner: string): void {
    if (this.holders.get(key) !== owner) return;
    this.holders.delete(key);
    const queue = this.waiters.get(key);
    const next = queue?.shift();
    if (next) {
      this.holders.set(key, next.owner);
      next.grant(true);
    }
  }

  /** At the end of an execution: releases what it holds and drops its waits. */
  releaseAll(owner: string): void {
    for (const [_key, queue] of this.waiters) {
      for (const waiter of queue.filter((w) => w.owner === owner)) {
        queue.splice(queue.indexOf(waiter), 1);
        waiter.grant(false);
      }
    }
    for (const [key, holder] of [...this.holders]) if (holder === owner) this.release(key, owner);
  }
}
