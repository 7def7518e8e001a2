/**
 * Generates the catalogue product by product, handing each row to the sink of its table. Pure
 * and streaming: nothing is kept between products but the next offer id, so the memory use
 * does not grow with the scale.
 */
import type { SeedCalendar, TimestampTable } from '../calendar.ts';
import type { CatalogueFrame } from '../frame.ts';
import { productGtin } from '../gtin.ts';
import { Random, STREAM } from '../random.ts';
import { encoded, type CopyBuffer } from '../load/copy-buffer.ts';
import type { ProductTable } from '../tables.ts';
import { writePriceHistory } from './history.ts';
import {
  generateMarketOffers,
  offerCountExponent,
  PRICE_PERIOD_DAYS,
  UPDATE_WINDOW_MINUTES,
  type OfferSinks,
  type OfferState,
} from './offers.ts';
import { draftProduct, writeProduct } from './product.ts';
import { writeProperties } from './properties.ts';

export type ProductSinks = Record<ProductTable, CopyBuffer>;

export class CatalogueGenerator {
  private readonly offerState: OfferState = { nextOfferId: 1 };
  private readonly timestamps: TimestampTable;
  private readonly historyFirstDay: Uint8Array;
  private readonly gtinOffset: number;
  private readonly offerCountExponent: number;

  constructor(
    private readonly frame: CatalogueFrame,
    calendar: SeedCalendar,
  ) {
    this.timestamps = calendar.timestamps(UPDATE_WINDOW_MINUTES, PRICE_PERIOD_DAYS);
    this.historyFirstDay = encoded(calendar.historyFirstDay);
    this.gtinOffset = new Random(frame.seed, STREAM.gtins, 0).int(0, 999_999_999);
    this.offerCountExponent = offerCountExponent(frame.scale.offersPerMarket);
  }

  get productCount(): number {
    return this.frame.scale.products;
  }

  /** Products must be generated in id order, from 1: offer ids are handed out in sequence. */
  generate(productId: number, sinks: ProductSinks): void {
    const { frame } = this;
    const draft = draftProduct(frame, productId);
    writeProduct(draft, sinks.products);

    const random = new Random(frame.seed, STREAM.gtins, productId);
    const draw = random.next();
    // Most products have one GTIN, some two (a regional variant), a few none at all.
    const gtins = draw < 0.05 ? 0 : draw < 0.8 ? 1 : 2;
    for (let index = 0; index < gtins; index++) {
      const gtin = productGtin(productId, index, draft.brandIndex, this.gtinOffset);
      sinks.gtins.str(gtin).int(productId).end();
    }

    writeProperties(draft, frame.seed, sinks.product_properties);

    const offerSinks: OfferSinks = {
      offers: sinks.offers,
      alternativePrices: sinks.offer_alternative_prices,
    };
    for (const market of draft.markets) {
      const currentLowestCents = generateMarketOffers(
        draft,
        market,
        frame.seed,
        this.offerCountExponent,
        this.offerState,
        this.timestamps,
        offerSinks,
      );
      writePriceHistory(
        productId,
        market,
        frame.seed,
        currentLowestCents,
        this.historyFirstDay,
        sinks.price_history,
      );
    }
  }
}
