// The API client's side (`quill submit`, `quill events`): where the wallet API is, the token to call it with.
import { defined, noTrailingSlash, optionalText, secret, url } from './env.ts';
import { section } from './section.ts';

export const client = section({
  summary:
    'Where commands that call the wallet API find it (`quill submit`, `quill events`; not `quill serve`).',
  vars: {
    QUILL_URL: url(['http:', 'https:']).default('http://127.0.0.1:8080').describe('the wallet API'),
    QUILL_TOKEN: secret(optionalText, 'the bearer token to call it with'),
  },
  outputs: { walletUrl: true, walletToken: true },
  build: (e) => ({ walletUrl: noTrailingSlash(e.QUILL_URL), ...defined({ walletToken: e.QUILL_TOKEN }) }),
});
