/**
 * The browser side of HtmlService for a local page: a `google.script.run` (and `google.script.host`) whose calls
 * are POSTed as JSON `{fn, args}` to `/run` on the page's own origin and answered `{ok, value}` or `{ok: false,
 * error}`. The server that serves the page (test/browser/bridge.ts, playground/sidebar.ts) runs each call in the
 * emulator as the signed-in user, as Apps Script runs each google.script.run call as a new execution.
 */

/** The shim, run before the sidebar's own script. Kept ES5-plain: it is what Apps Script's iframe would provide. */
export const SHIM = `<script>
(function () {
  function fail(handlers, error) {
    if (handlers.failure) handlers.failure(error, handlers.userObject);
    else console.error('google.script.run failure without a failure handler:', error);
  }
  // Dates, functions and DOM elements other than a form cannot be passed, even inside objects or arrays
  // (apps-script/guides/html/communication, "Parameters and return values"): the request fails.
  function illegal(value, depth) {
    if (value === null || typeof value !== 'object') return typeof value === 'function';
    if (value instanceof Date || (typeof Node !== 'undefined' && value instanceof Node && !(value instanceof HTMLFormElement))) return true;
    if (depth > 50) return false;
    for (var k in value) if (Object.prototype.hasOwnProperty.call(value, k) && illegal(value[k], depth + 1)) return true;
    return false;
  }
  // "The google.script.run API allows 10 concurrent calls to server functions. If you make an 11th call while 10
  // are still running, the server function will be delayed until one of the 10 spots is freed."
  // (apps-script/guides/html/communication): a call past them waits, in the order made, for a call to end.
  var MAX_CALLS_AT_ONCE = 10;
  var running = 0;
  var waiting = [];
  function next() {
    running--;
    var call = waiting.shift();
    if (call) call();
  }
  function send(handlers, fn, args) {
    if (illegal(args, 0)) {
      setTimeout(function () { fail(handlers, new Error('Invalid argument: a Date, function or DOM element other than a form cannot be passed to ' + fn + '.')); }, 0);
      return;
    }
    var body = JSON.stringify({ fn: fn, args: args });
    function call() {
      running++;
      fetch('/run', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body })
        .then(function (response) { return response.json(); })
        .then(function (answer) {
          next();
          if (answer && answer.ok) { if (handlers.success) handlers.success(answer.value, handlers.userObject); }
          else fail(handlers, new Error(answer && typeof answer.error === 'string' ? answer.error : 'The bridge gave no answer.'));
        }, function (error) { next(); fail(handlers, error instanceof Error ? error : new Error(String(error))); });
    }
    if (running < MAX_CALLS_AT_ONCE) call();
    else waiting.push(call);
  }
  function runner(handlers) {
    return new Proxy({}, {
      get: function (_target, name) {
        if (typeof name !== 'string' || name === 'then') return undefined;
        if (name === 'withSuccessHandler') return function (f) { return runner(Object.assign({}, handlers, { success: f })); };
        if (name === 'withFailureHandler') return function (f) { return runner(Object.assign({}, handlers, { failure: f })); };
        if (name === 'withUserObject') return function (u) { return runner(Object.assign({}, handlers, { userObject: u })); };
        return function () { send(handlers, name, Array.prototype.slice.call(arguments)); };
      },
    });
  }
  var noop = function () {};
  window.google = window.google || {};
  window.google.script = {
    run: runner({}),
    host: { close: noop, setHeight: noop, setWidth: noop, origin: location.origin, editor: { focus: noop } },
  };
})();
</script>`;

/** Puts the shim first in <head>, so google.script.run exists before any script of the page runs. */
export function injectShim(html: string): string {
  const head = /<head[^>]*>/i.exec(html);
  if (head)
    return html.slice(0, head.index + head[0].length) + SHIM + html.slice(head.index + head[0].length);
  return SHIM + html;
}
