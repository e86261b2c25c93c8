// The sandbox package, loaded only when asked for (`quill sandbox`, `quill serve --demo|--sandbox`): it is a
// development dependency, absent from the production image, and no product code imports it.
import { UsageError } from '../errors.ts';

const NOT_INSTALLED =
  'the sandbox is not installed (it is a development dependency, not in the production image): run `npm ci` with dev dependencies, or point LEDGER_URL at a participant';

/** A dynamic import of the sandbox package; UsageError (exit 2) when it is not installed. */
async function load<T>(importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('@quill/sandbox'))
      throw new UsageError(NOT_INSTALLED);
    throw err;
  }
}

export const loadSandbox = () => load(() => import('@quill/sandbox'));
export const loadSandboxCli = () => load(() => import('@quill/sandbox/cli'));
