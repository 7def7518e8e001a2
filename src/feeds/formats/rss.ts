/**
 * RSS 2.0 feeds with Google's `g:` namespace (docs/api.md, "Feeds"): each `<item>` is a row,
 * its position from 1 its line. saxes reads the XML as it streams in; an item's child named
 * like a column is read whether it carries the `g:` prefix or, like RSS's own `title` and
 * `link`, none.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import {
  isFeedColumn,
  type FeedColumn,
  type FeedRecord,
  type ShippingEntry,
} from '../feed-record.ts';
import { FeedRejected } from '../feed-rejected.ts';
import type { FormatReader } from './format-reader.ts';

const GOOGLE_NAMESPACE = 'http://base.google.com/ns/1.0';
const SHIPPING_PARTS = ['country', 'region', 'service', 'price'] as const;
type ShippingPart = (typeof SHIPPING_PARTS)[number];

/** The item being read: what its elements said so far. */
interface OpenItem {
  depth: number;
  record: FeedRecord & { shippingEntries: ShippingEntry[] };
  /** The column element being read, and its text so far. */
  column: FeedColumn | null;
  shipping: Partial<ShippingEntry>;
  shippingPart: ShippingPart | null;
  text: string;
}

/** Turns saxes's events into the records of finished items, taken after each chunk. */
class RssItems {
  readonly finished: FeedRecord[] = [];
  itemCount = 0;
  private depth = 0;
  private item: OpenItem | null = null;

  constructor(private readonly ignoredColumns: Set<string>) {}

  open(tag: SaxesTagNS): void {
    this.depth += 1;
    if (this.depth === 1 && (tag.local !== 'rss' || tag.uri !== '')) {
      throw new FeedRejected(
        'unparseable',
        `not an RSS 2.0 feed: its root element is <${tag.name}>`,
      );
    }
    const item = this.item;
    if (item === null) {
      if (tag.local === 'item' && tag.uri === '') this.openItem();
    } else if (this.depth === item.depth + 1) {
      this.openColumn(item, tag);
    } else if (this.depth === item.depth + 2 && item.column === 'shipping') {
      const part = tag.uri === GOOGLE_NAMESPACE ? shippingPartOf(tag.local) : null;
      item.shippingPart = part;
      item.text = '';
    }
  }

  text(text: string): void {
    if (this.item?.column) this.item.text += text;
  }

  close(): void {
    const item = this.item;
    if (item !== null && this.depth === item.depth + 2 && item.shippingPart) {
      item.shipping[item.shippingPart] = item.text.trim();
      item.shippingPart = null;
    } else if (item !== null && this.depth === item.depth + 1 && item.column) {
      this.closeColumn(item, item.column);
    } else if (item !== null && this.depth === item.depth) {
      const { shippingEntries, ...record } = item.record;
      this.finished.push(shippingEntries.length > 0 ? item.record : record);
      this.item = null;
    }
    this.depth -= 1;
  }

  private openItem(): void {
    this.itemCount += 1;
    this.item = {
      depth: this.depth,
      record: { line: this.itemCount, values: {}, shippingEntries: [] },
      column: null,
      shipping: {},
      shippingPart: null,
      text: '',
    };
  }

  private openColumn(item: OpenItem, tag: SaxesTagNS): void {
    const readable = tag.uri === GOOGLE_NAMESPACE || tag.uri === '';
    item.column = readable && isFeedColumn(tag.local) ? tag.local : null;
    item.shipping = {};
    item.text = '';
    if (item.column === null) this.ignoredColumns.add(readable ? tag.local : tag.name);
  }

  /** The first element of a column counts; `g:shipping` may repeat, one entry each. */
  private closeColumn(item: OpenItem, column: FeedColumn): void {
    const values = item.record.values;
    if (column === 'shipping' && Object.keys(item.shipping).length > 0) {
      const { country = '', region = '', service = '', price = '' } = item.shipping;
      item.record.shippingEntries.push({ country, region, service, price });
    } else if (values[column] === undefined) {
      // A `g:shipping` with text and no parts is the text form, country:region:service:price.
      values[column] = item.text;
    }
    item.column = null;
  }
}

function shippingPartOf(name: string): ShippingPart | null {
  return (SHIPPING_PARTS as readonly string[]).includes(name) ? (name as ShippingPart) : null;
}

export const rssRecords: FormatReader = async function* (bytes, ignoredColumns) {
  const items = new RssItems(ignoredColumns);
  const parser = new SaxesParser({ xmlns: true });
  parser.on('opentag', (tag) => items.open(tag));
  parser.on('text', (text) => items.text(text));
  parser.on('cdata', (text) => items.text(text));
  parser.on('closetag', () => items.close());
  const decoder = new TextDecoder();
  let anything = false;
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    anything ||= text.trim() !== '';
    parsed(() => parser.write(text));
    yield* items.finished.splice(0);
  }
  if (!anything) throw new FeedRejected('empty', 'the body is empty');
  parsed(() => parser.write(decoder.decode()).close());
  yield* items.finished.splice(0);
  if (items.itemCount === 0) throw new FeedRejected('empty', 'the feed has no items');
};

/** saxes throws plain errors for XML that is not well-formed: the feed is not parseable. */
function parsed(step: () => void): void {
  try {
    step();
  } catch (error) {
    if (error instanceof FeedRejected) throw error;
    throw new FeedRejected('unparseable', `not parseable as XML: ${(error as Error).message}`);
  }
}
