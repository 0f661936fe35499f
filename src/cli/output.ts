/**
 * Write to stdout and wait until it is handed off: the entry exits right after main(), and a
 * large write to a pipe that has not drained by then is cut short.
 */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
}
