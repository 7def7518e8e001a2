/**
 * OfferChange: one offer of a product created, updated or withdrawn by a shop's feed run;
 * and `offerChanged`, the subscription that delivers them for one product in a market.
 */
import type { ProductChangeRow } from '../../db/repositories/catalogue-changes.ts';
import { badUserInput } from '../../errors.ts';
import { builder } from '../builder.ts';
import { liveEvent, liveEvents } from '../live.ts';
import type { Scope } from '../scope.ts';
import { selectedColumns } from '../selection.ts';
import { scopeArgs, scopeFromArgs } from './market.ts';
import { OfferRef, type OfferParent } from './offer.ts';
import { PRODUCT_ROW, productRows, ProductRef } from './product.ts';

const OFFER_CHANGE_KINDS = ['CREATED', 'UPDATED', 'WITHDRAWN'] as const;
type OfferChangeKind = (typeof OFFER_CHANGE_KINDS)[number];

const OfferChangeKindEnum = builder.enumType('OfferChangeKind', {
  description: 'What a feed run did to an offer.',
  values: {
    CREATED: { description: 'The offer is new for this product (or moved to it).' },
    UPDATED: {
      description: 'The shop restated the offer: repriced, restocked, renamed or relinked.',
    },
    WITHDRAWN: {
      description: 'The offer was withdrawn (or moved to another product): it is no longer sold.',
    },
  } satisfies Record<OfferChangeKind, { description: string }>,
});

interface OfferChangeShape {
  offerId: number;
  kind: OfferChangeKind;
  change: ProductChangeRow;
  scope: Scope;
}

const OfferChangeRef = builder.objectRef<OfferChangeShape>('OfferChange').implement({
  description: 'One offer of a product created, updated or withdrawn by a shop’s feed run.',
  fields: (t) => ({
    offerId: t.int({ description: 'The numeric offer id.', resolve: (e) => e.offerId }),
    kind: t.field({
      type: OfferChangeKindEnum,
      description: 'What happened to the offer.',
      resolve: (e) => e.kind,
    }),
    offer: t.field({
      type: OfferRef,
      nullable: true,
      description:
        'The offer as it is now (URL with the subscription’s `ref`); null once it is not available for purchase (withdrawn, or out of stock).',
      resolve: async (e, _args, context): Promise<OfferParent | null> => {
        const offer = await OfferRef.getDataloader(context).load(String(e.offerId));
        return offer && offer.row.market === e.scope.market
          ? { row: offer.row, scope: e.scope }
          : null;
      },
    }),
    product: t.field({
      type: ProductRef,
      description: 'The product the change concerns, in the subscription’s market and scope.',
      resolve: async (e, _args, context, info) => {
        const row = await productRows(context).load({
          id: e.change.product_id,
          columns: selectedColumns(info, PRODUCT_ROW),
        });
        if (!row) throw new Error(`product ${e.change.product_id} of a change is missing`);
        return { row, scope: e.scope };
      },
    }),
    changedAt: t.field({
      type: 'DateTime',
      description: 'When the run committed the change.',
      resolve: (e) => e.change.changed_at,
    }),
  }),
});

/** A product's outbox row as one event per offer it names. */
function offerChangesOf(change: ProductChangeRow, scope: Scope): OfferChangeShape[] {
  const of = (ids: number[], kind: OfferChangeKind) =>
    ids.map((offerId) => ({ offerId, kind, change, scope }));
  return [
    ...of(change.added_offer_ids, 'CREATED'),
    ...of(change.updated_offer_ids, 'UPDATED'),
    ...of(change.withdrawn_offer_ids, 'WITHDRAWN'),
  ];
}

builder.subscriptionField('offerChanged', (t) =>
  t.field({
    type: OfferChangeRef,
    description:
      'Emits for each offer of one product created, updated (repriced, restocked…) or withdrawn in the market.',
    args: {
      ...scopeArgs,
      productId: t.arg.int({ required: true, description: 'The numeric product id to watch.' }),
    },
    subscribe: (_root, args, context) => {
      const scope = scopeFromArgs(args);
      if (args.productId < 1) {
        throw badUserInput('productId must be a positive integer', 'productId', 'out_of_range');
      }
      const key = JSON.stringify(['offerChanged', scope, args.productId]);
      return liveEvents(context, scope.market, key, (rows) =>
        rows
          .filter((change) => change.product_id === args.productId)
          .flatMap((change) => offerChangesOf(change, scope)),
      );
    },
    resolve: (item: OfferChangeShape | symbol) => liveEvent(item as OfferChangeShape),
  }),
);
