/**
 * What a test file needs from the machine beyond npm's packages (a server binary, a browser).
 * Without it the file fails at once with one line saying what to install: never a skipped
 * test that reads as a pass, nor a stack trace that sends a reader after the wrong problem.
 */
export function requirePrerequisite(present: boolean, whatToInstall: string): void {
  if (present) return;
  const missing = new Error(whatToInstall);
  missing.stack = whatToInstall;
  throw missing;
}
