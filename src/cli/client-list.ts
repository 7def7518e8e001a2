/** What `clients list` prints: a table for a person, or JSON for scripts. */
import type { ListedApiClient } from '../db/repositories/api-clients.ts';
import { formatTable } from './table.ts';

export interface ClientListEntry {
  clientId: string;
  name: string;
  kind: 'partner' | 'shop';
  /** The refs a partner's client owns (none for a shop's). */
  refs: string[];
  /** The shop of a shop's client. */
  shop: { id: number; market: string; name: string } | null;
  createdAt: string;
}

export function clientListEntry(client: ListedApiClient): ClientListEntry {
  return {
    clientId: client.id,
    name: client.name,
    kind: client.shop === null ? 'partner' : 'shop',
    refs: client.refs,
    shop: client.shop,
    createdAt: client.createdAt,
  };
}

const HEADINGS = ['CLIENT ID', 'NAME', 'KIND', 'REFS OR SHOP', 'CREATED'];

/** One line per client under a heading, in aligned columns. */
export function formatClientList(entries: readonly ClientListEntry[]): string {
  if (entries.length === 0) return 'no clients yet (add-partner and add-shop add them)';
  const rows = entries.map((entry) => [
    entry.clientId,
    entry.name,
    entry.kind,
    entry.shop === null
      ? entry.refs.join(', ') || '(no refs)'
      : `shop ${entry.shop.id} (${entry.shop.market}: ${entry.shop.name})`,
    entry.createdAt,
  ]);
  return formatTable(HEADINGS, rows);
}
