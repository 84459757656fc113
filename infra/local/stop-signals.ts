/**
 * Calls `stop` when the process is asked to end: SIGINT, SIGTERM, or the end of the process that
 * started it. `npm start` and `npm run samples` run through a shell that does not pass SIGTERM on:
 * when npm is told to stop (`kill %1`), the shell ends and this process is handed to another
 * parent. That, too, means stop; without it the process would keep its port after `kill`.
 */
export function stopOnSignals(stop: () => void): void {
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 250).unref();
}
