// Reads the audit chain through the API (admin) as flat objects; entries without a `kind` are signatures.
import { type Api, answer } from './client.ts';

export interface AuditRow {
  id: string;
  kind: string;
  fields: Record<string, string>;
}

/** The chain from its start, at most `max` entries (the API pages by 1,000). */
export async function readAudit(api: Api, max = 20_000): Promise<{ rows: AuditRow[]; status: number }> {
  const rows: AuditRow[] = [];
  let after: string | null = null;
  while (rows.length < max) {
    const query: { limit: string; after?: string } = { limit: '1000', ...(after ? { after } : {}) };
    const res = await answer(api.wallet.v1.audit.$get({ query }));
    if (res.status !== 200) return { rows, status: res.status };
    for (const e of res.body.items) {
      const fields = Object.fromEntries(e.fields);
      rows.push({ id: e.id, kind: fields.kind ?? 'signature', fields });
    }
    after = res.body.next;
    if (!after || res.body.items.length === 0) break;
  }
  return { rows, status: 200 };
}
