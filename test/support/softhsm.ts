// A fresh SoftHSM2 token for a test file: its own token directory and config (SOFTHSM2_CONF points at it for this
// process), never the machine's. `recreate` deletes the token and makes a new, empty one with the same label.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SOFTHSM_MODULE = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
].find(existsSync);

export interface TestToken {
  module: string;
  tokenLabel: string;
  pin: string;
  conf: string;
  tokenDir: string;
  /** Deletes the token (every key in it) and initialises an empty one with the same label and PIN. */
  recreate(): void;
}

/**
 * One token directory per test process: a PKCS#11 library reads its configuration when initialized, and stays
 * initialized while the process lives. Kept on the process (not in this module) because test files that share a
 * process (the integration tier does not isolate them) each evaluate this module again.
 */
const slot = globalThis as { quillSoftHsm?: { conf: string; tokenDir: string } };

export function softhsmToken(label = 'quill-test'): TestToken {
  if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2 opensc)');
  let processConf = slot.quillSoftHsm;
  if (!processConf) {
    // Removed when the process ends, not after the file that made it: the next file of this process uses it too.
    const root = mkdtempSync(join(tmpdir(), 'quill-softhsm-'));
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    processConf = { conf: join(root, 'softhsm2.conf'), tokenDir: join(root, 'tokens') };
    slot.quillSoftHsm = processConf;
    writeFileSync(
      processConf.conf,
      `directories.tokendir = ${processConf.tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\n`,
    );
  }
  // Set for every file: a file of the same process may have restored the environment it started with.
  process.env.SOFTHSM2_CONF = processConf.conf;
  const { conf, tokenDir } = processConf;
  const pin = '246810';
  const run = (args: string[]) =>
    execFileSync('softhsm2-util', args, { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: 'ignore' });
  const init = () => {
    mkdirSync(tokenDir, { recursive: true });
    execFileSync(
      'softhsm2-util',
      ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '13579'],
      {
        env: { ...process.env, SOFTHSM2_CONF: conf },
        stdio: 'ignore',
      },
    );
  };
  init();
  return {
    module: SOFTHSM_MODULE,
    tokenLabel: label,
    pin,
    conf,
    tokenDir,
    recreate() {
      run(['--delete-token', '--token', label]);
      init();
    },
  };
}
