// What a submission does, in a few words for a list (issue 30 item 7): the intent Quill prepared it from (a
// transfer, an instruction decision), else its root actions read from the stored transaction's preview
// (`Create quill-e2e:E2E:Note`, `Exercise splice-…:TransferFactory · TransferFactory_Transfer`). A stored
// transaction never changes, so a preview's words are kept (bounded) and a live list refreshing every few seconds
// decodes each transaction once.
import type { Api } from './client.ts';
import { answer } from './client.ts';
import { shortId } from './ui.tsx';

interface Rec {
  id: string;
  intent?:
    | { kind: 'transfer'; receiver: string; amount: string; instrument: { id: string } }
    | { kind: 'instruction'; action: string; sender: string; receiver: string }
    | { kind: 'commands'; commandCount: number }
    | undefined;
  amount?: string | undefined;
  outflows?: { instrument: { admin: string; id: string }; amount: string }[] | undefined;
}

interface Node {
  depth: number;
  kind: string;
  templateId?: string | null | undefined;
  packageName?: string | undefined;
  choice?: string | undefined;
}

const KEEP = 5000;
const words = new Map<string, string>();

function remember(id: string, text: string): string {
  if (words.size >= KEEP) {
    const oldest = words.keys().next().value;
    if (oldest !== undefined) words.delete(oldest);
  }
  words.set(id, text);
  return text;
}

/** `package-name:Module:Entity` (the package id left out), or the id as given. */
function template(n: Node): string {
  const t = n.templateId ?? '';
  const at = t.indexOf(':');
  return n.packageName && at > 0 ? `${n.packageName}${t.slice(at)}` : t;
}

/** The root actions: the first in full, then how many more. */
export function rootActions(nodes: readonly Node[]): string {
  const roots = nodes.filter((n) => n.depth === 0);
  const first = roots[0];
  if (!first) return '';
  const kind = first.kind.charAt(0).toUpperCase() + first.kind.slice(1);
  const one = `${kind} ${template(first)}${first.choice ? ` · ${first.choice}` : ''}`;
  return roots.length > 1 ? `${one} (+${roots.length - 1} more)` : one;
}

/** The words of an intent, or undefined when the record was not made from one. */
function intentWords(rec: Rec): string | undefined {
  const i = rec.intent;
  if (!i) return undefined;
  if (i.kind === 'transfer') return `transfer to ${shortId(i.receiver)}`;
  if (i.kind === 'instruction') return `${i.action} the transfer from ${shortId(i.sender)}`;
  return undefined;
}

/** What each record does, by id (a record whose preview cannot be read: empty). */
export async function describeAll(api: Api, recs: readonly Rec[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    recs.map(async (r) => {
      const known = intentWords(r) ?? words.get(r.id);
      if (known !== undefined) {
        out.set(r.id, known);
        return;
      }
      const res = await answer(api.wallet.v1.submissions[':id'].preview.$get({ param: { id: r.id } }));
      if (res.status !== 200) return out.set(r.id, '');
      const nodes = res.body.preview?.nodes;
      // A dropped transaction (PAYLOAD_RETENTION_HOURS) is not kept: it says so, and that never changes either.
      out.set(r.id, remember(r.id, nodes ? rootActions(nodes) : 'transaction no longer stored'));
    }),
  );
  return out;
}

/** The amount leaving the party and its instrument, when exactly one instrument leaves it. */
export function amountOf(rec: Rec): { value: string; instrument: string } | undefined {
  if (rec.amount && rec.outflows?.length === 1 && rec.outflows[0])
    return { value: rec.amount, instrument: rec.outflows[0].instrument.id };
  if (rec.intent?.kind === 'transfer')
    return { value: rec.intent.amount, instrument: rec.intent.instrument.id };
  return undefined;
}
