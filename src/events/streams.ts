// How many event streams (SSE) are open in this process, per token and in all (issue 29 item 8, F10). Each open
// stream holds a Redis connection for its blocking reads, so one token must not hold hundreds. Counted in memory:
// both caps are per API process (a deployment of N processes allows N times each).

export interface StreamCaps {
  /** Streams one token (subject and party) may hold open at once. */
  maxPerToken: number;
  /** Streams this process holds open at once. */
  max: number;
}

export class StreamSlots {
  private readonly byToken = new Map<string, number>();
  private total = 0;
  /** Streams refused so far, by which cap refused them. */
  readonly refused = { token: 0, process: 0 };

  constructor(readonly caps: StreamCaps) {}

  /** Streams open now. */
  get open(): number {
    return this.total;
  }

  /** Takes a slot for `token`: the release (call it once, when the stream ends), or which cap is full. */
  take(token: string): (() => void) | 'token' | 'process' {
    const mine = this.byToken.get(token) ?? 0;
    if (mine >= this.caps.maxPerToken) {
      this.refused.token++;
      return 'token';
    }
    if (this.total >= this.caps.max) {
      this.refused.process++;
      return 'process';
    }
    this.byToken.set(token, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byToken.get(token) ?? 1) - 1;
      if (left > 0) this.byToken.set(token, left);
      else this.byToken.delete(token);
    };
  }
}
