// Ledger watchers in child processes (test/system/history/watcher-child.ts), for tests that SIGKILL them.
import { type ChildProcess, spawn } from 'node:child_process';

export function watcherProcesses() {
  const children = new Set<ChildProcess>();
  return {
    /** Starts a watcher with `env`; resolves once it says it runs (its first line). */
    start(env: Record<string, string>): Promise<ChildProcess> {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/system/history/watcher-child.ts'], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return new Promise((resolve, reject) => {
        child.stdout?.once('data', () => resolve(child));
        child.once('exit', (code) => reject(new Error(`watcher exited early (${code})`)));
      });
    },
    killAll(): void {
      for (const c of children) c.kill('SIGKILL');
    },
  };
}
