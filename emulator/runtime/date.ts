/** Date follows the environment's clock (env.advanceClock, the `now` of each answer). */
import { host, RealDate } from './core';

export function installDate(global: typeof globalThis): void {
  function EmulatedDate(this: unknown, ...args: unknown[]) {
    if (!new.target) return new RealDate(host.now()).toString();
    if (args.length === 0) return Reflect.construct(RealDate, [host.now()], new.target);
    return Reflect.construct(RealDate, args, new.target);
  }
  EmulatedDate.prototype = RealDate.prototype;
  Object.setPrototypeOf(EmulatedDate, RealDate);
  EmulatedDate.now = () => host.now();
  EmulatedDate.parse = RealDate.parse;
  EmulatedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', {
    value: EmulatedDate,
    writable: true,
    configurable: true,
  });
  (global as { Date: unknown }).Date = EmulatedDate;
}
