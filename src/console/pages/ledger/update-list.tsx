// A list of updates as the ledger's contract types them: offset, kind and update id (linked to its page).
import type { InferResponseType } from 'hono/client';
import type { Api } from '../../client.ts';
import { Empty, Id } from '../../ui.tsx';
import { qs } from './query.ts';

/** One update as the ledger's contract types it ({ Transaction: { value } } and the other variants). */
export type LedgerUpdate = InferResponseType<
  Api['wallet']['v1']['ledger']['updates']['$get'],
  200
>['updates'][number];

/** The kind, offset and update id of an update (a checkpoint has no update id). */
function describe(u: LedgerUpdate): { kind: string; offset: number; id: string | undefined } {
  if ('Transaction' in u) return { kind: 'Transaction', ...ids(u.Transaction.value) };
  if ('Reassignment' in u) return { kind: 'Reassignment', ...ids(u.Reassignment.value) };
  if ('TopologyTransaction' in u) return { kind: 'TopologyTransaction', ...ids(u.TopologyTransaction.value) };
  return { kind: 'OffsetCheckpoint', offset: u.OffsetCheckpoint.value.offset, id: undefined };
}

const ids = (v: { offset: number; updateId: string }) => ({ offset: v.offset, id: v.updateId });

export function UpdateList(p: { updates: LedgerUpdate[]; party: string }) {
  if (p.updates.length === 0) return <Empty>No updates in this range for the party.</Empty>;
  return (
    <table data-testid="updates">
      <thead>
        <tr>
          <th scope="col">Offset</th>
          <th scope="col">Kind</th>
          <th scope="col">Update id</th>
        </tr>
      </thead>
      <tbody>
        {p.updates.map((u) => {
          const d = describe(u);
          return (
            <tr data-offset={d.offset}>
              <td>{d.offset}</td>
              <td>{d.kind}</td>
              <td>
                {d.id ? (
                  <Id
                    value={d.id}
                    href={`/console/ledger/update?${qs({ party: p.party, updateId: d.id })}`}
                  />
                ) : (
                  ''
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
