// The activity feed (scan).
import { defined, noTrailingSlash, url } from './env.ts';
import { section } from './section.ts';

export const scan = section({
  summary: 'The activity feed (scan).',
  vars: {
    SCAN_URL: url(['http:', 'https:'])
      .optional()
      .describe("the activity feed; unset = the embedded sandbox's, or none"),
  },
  outputs: { scanUrl: true },
  build: (e) => defined({ scanUrl: e.SCAN_URL ? noTrailingSlash(e.SCAN_URL) : undefined }),
});
