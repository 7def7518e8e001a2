/**
 * Every row-level rule, one row at a time, through a TSV feed: what a shop writes in a cell,
 * and the item or the rejection (field and reason) it becomes.
 */
import { describe, expect, it } from 'vitest';
import { readAll, tsv } from '../helpers/feeds.ts';

const VALID: Record<string, string> = {
  id: 'A-1',
  title: 'Stickad mössa, grå',
  link: 'https://www.butik.se/mossa',
  price: '199.00 SEK',
  availability: 'in_stock',
};

/** The one row a feed of VALID with `changes` becomes. */
async function rowWith(changes: Record<string, string>) {
  const cells = { ...VALID, ...changes };
  const columns = Object.keys(cells);
  const { rows } = await readAll(
    tsv(
      columns,
      columns.map((column) => cells[column]!),
    ),
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const rejection = (field: string, reason: string, itemId: string | null = 'A-1') => ({
  line: 2,
  itemId,
  field,
  reason,
});

describe('a valid row', () => {
  it('becomes an item with its optional fields null and its condition new', async () => {
    expect(await rowWith({})).toEqual({
      line: 2,
      itemId: 'A-1',
      title: 'Stickad mössa, grå',
      link: 'https://www.butik.se/mossa',
      price: 199,
      sale: null,
      availability: 'in_stock',
      condition: 'new',
      gtin: null,
      brand: null,
      mpn: null,
      shippingPrice: null,
      imageLink: null,
    });
  });

  it('takes values trimmed, and an empty optional cell as none', async () => {
    expect(await rowWith({ id: '  A-1 ', brand: ' ', gtin: '' })).toMatchObject({
      itemId: 'A-1',
      brand: null,
      gtin: null,
    });
  });

  it.each([
    ['in_stock', 'in_stock'],
    ['in stock', 'in_stock'],
    ['In Stock', 'in_stock'],
    ['out_of_stock', 'out_of_stock'],
    ['out of stock', 'out_of_stock'],
    ['preorder', 'preorder'],
    ['backorder', 'backorder'],
  ])('reads availability %j as %s', async (written, availability) => {
    expect(await rowWith({ availability: written })).toMatchObject({ availability });
  });

  it.each(['new', 'refurbished', 'used', 'Used'])('reads condition %j', async (condition) => {
    expect(await rowWith({ condition })).toMatchObject({ condition: condition.toLowerCase() });
  });

  it.each([
    ['96385074', '00000096385074'],
    ['036000291452', '00036000291452'],
    ['4006381333931', '04006381333931'],
    ['10012345678902', '10012345678902'],
  ])('normalises GTIN %s to %s', async (gtin, normalised) => {
    expect(await rowWith({ gtin })).toMatchObject({ gtin: normalised });
  });

  it('reads prices with or without decimals and a space, in any case of the code', async () => {
    expect(await rowWith({ price: '1299 SEK' })).toMatchObject({ price: 1299 });
    expect(await rowWith({ price: '1299.5sek' })).toMatchObject({ price: 1299.5 });
  });

  it('reads a sale and its period, with offsets, Z, seconds or bare dates (UTC)', async () => {
    expect(
      await rowWith({
        sale_price: '149.00 SEK',
        sale_price_effective_date: '2025-03-01T08:00+0100/2025-03-31T23:59:59Z',
      }),
    ).toMatchObject({
      sale: { price: 149, start: '2025-03-01T07:00:00.000Z', end: '2025-03-31T23:59:59.000Z' },
    });
    // A bare end date holds through that day.
    expect(
      await rowWith({ sale_price: '149 SEK', sale_price_effective_date: '2025-03-01/2025-03-31' }),
    ).toMatchObject({
      sale: { start: '2025-03-01T00:00:00.000Z', end: '2025-04-01T00:00:00.000Z' },
    });
    expect(await rowWith({ sale_price: '199.00 SEK' })).toMatchObject({
      sale: { price: 199, start: null, end: null },
    });
  });

  it("takes the cheapest shipping to the market's country, ignoring other countries", async () => {
    expect(
      await rowWith({ shipping: 'NO::Posten:49.00 NOK, SE::Ombud:59.00 SEK,SE:AB:Bud:39 SEK' }),
    ).toMatchObject({ shippingPrice: 39 });
    expect(await rowWith({ shipping: 'NO::Posten:49.00 NOK' })).toMatchObject({
      shippingPrice: null,
    });
  });
});

describe('a rejected row', () => {
  it.each([
    ['id', { id: '' }, 'missing: id is required', null],
    ['id', { id: 'x'.repeat(51) }, '51 characters long: at most 50', null],
    ['title', { title: '' }, 'missing: title is required', 'A-1'],
    ['link', { link: ' ' }, 'missing: link is required', 'A-1'],
    ['price', { price: '' }, 'missing: price is required', 'A-1'],
    ['availability', { availability: '' }, 'missing: availability is required', 'A-1'],
  ])('misses a required %s: %j', async (field, changes, reason, itemId) => {
    expect(await rowWith(changes)).toEqual(rejection(field, reason, itemId));
  });

  it('accepts an id of 50 characters', async () => {
    expect(await rowWith({ id: 'x'.repeat(50) })).toMatchObject({ itemId: 'x'.repeat(50) });
  });

  it.each([
    ['1 299,00 SEK', '"1 299,00 SEK" is not an amount and a currency, like 1299.00 SEK'],
    ['199.00', '"199.00" is not an amount and a currency, like 1299.00 SEK'],
    ['SEK 199', '"SEK 199" is not an amount and a currency, like 1299.00 SEK'],
    ['-5 SEK', '"-5 SEK" is not an amount and a currency, like 1299.00 SEK'],
    ['0.00 SEK', '"0.00 SEK" is not above zero'],
    ['19.999 SEK', '"19.999 SEK" has more than two decimals'],
  ])('has an unparseable price %j', async (price, reason) => {
    expect(await rowWith({ price })).toEqual(rejection('price', reason));
  });

  it("states a price, a sale price or shipping in another currency than the market's", async () => {
    expect(await rowWith({ price: '19.00 EUR' })).toEqual(
      rejection('price', "in EUR, not the market's currency SEK"),
    );
    expect(await rowWith({ sale_price: '150 NOK' })).toEqual(
      rejection('sale_price', "in NOK, not the market's currency SEK"),
    );
    expect(await rowWith({ shipping: 'SE::Standard:5 EUR' })).toEqual(
      rejection('shipping', "in EUR, not the market's currency SEK"),
    );
  });

  it('has a sale price above its price', async () => {
    expect(await rowWith({ sale_price: '199.01 SEK' })).toEqual(
      rejection('sale_price', '199.01 is above the price 199'),
    );
  });

  it.each([
    ['2025-03-01', '"2025-03-01" is not an ISO 8601 period start/end'],
    ['2025-03-01/', '"2025-03-01/" is not an ISO 8601 period start/end'],
    ['01/03/2025-31/03/2025', '"01/03/2025-31/03/2025" is not an ISO 8601 period start/end'],
    ['2025-02-30/2025-03-31', '"2025-02-30/2025-03-31" is not an ISO 8601 period start/end'],
    [
      '2025-03-01T25:00Z/2025-03-31',
      '"2025-03-01T25:00Z/2025-03-31" is not an ISO 8601 period start/end',
    ],
    ['2025-03-31/2025-03-01', '"2025-03-31/2025-03-01" ends before it starts'],
  ])('has a malformed sale period %j', async (period, reason) => {
    expect(await rowWith({ sale_price: '149 SEK', sale_price_effective_date: period })).toEqual(
      rejection('sale_price_effective_date', reason),
    );
  });

  it('has a malformed sale period even without a sale price', async () => {
    expect(await rowWith({ sale_price_effective_date: 'i mars' })).toEqual(
      rejection('sale_price_effective_date', '"i mars" is not an ISO 8601 period start/end'),
    );
  });

  it('has an unknown availability or condition', async () => {
    expect(await rowWith({ availability: 'i lager' })).toEqual(
      rejection(
        'availability',
        '"i lager" is not one of in_stock, out_of_stock, preorder, backorder',
      ),
    );
    expect(await rowWith({ condition: 'begagnad' })).toEqual(
      rejection('condition', '"begagnad" is not one of new, refurbished, used'),
    );
  });

  it.each([
    ['link', 'www.butik.se/mossa', '"www.butik.se/mossa" is not a URL'],
    ['link', 'javascript:alert(1)', '"javascript:alert(1)" is not an http(s) URL'],
    [
      'image_link',
      'ftp://bilder.butik.se/a.jpg',
      '"ftp://bilder.butik.se/a.jpg" is not an http(s) URL',
    ],
  ])('has a %s that is not http(s): %j', async (field, value, reason) => {
    expect(await rowWith({ [field]: value })).toEqual(rejection(field, reason));
  });

  it.each([
    ['4006381333932', '"4006381333932" has a wrong check digit'],
    ['96385075', '"96385075" has a wrong check digit'],
    ['4006381333', '"4006381333" is not a GTIN: 8, 12, 13 or 14 digits'],
    ['400638133393A', '"400638133393A" is not a GTIN: 8, 12, 13 or 14 digits'],
    ['400-6381333931', '"400-6381333931" is not a GTIN: 8, 12, 13 or 14 digits'],
  ])('has a bad GTIN %s', async (gtin, reason) => {
    expect(await rowWith({ gtin })).toEqual(rejection('gtin', reason));
  });

  it('has a shipping value that is not country:region:service:price', async () => {
    expect(await rowWith({ shipping: 'SE:49 SEK' })).toEqual(
      rejection('shipping', '"SE:49 SEK" is not country:region:service:price'),
    );
  });

  it('is named by the first failing field in column order', async () => {
    expect(await rowWith({ link: 'mossa', price: 'gratis', condition: 'ny' })).toEqual(
      rejection('link', '"mossa" is not a URL'),
    );
  });
});
