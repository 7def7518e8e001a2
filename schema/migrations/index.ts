/**
 * Every migration, by name, in the order they run. A new migration file is added here too
 * (test/migrations.test.ts fails when a file in this folder is missing from the list).
 * docs/operations.md, "Upgrades and rollbacks", says what a migration may change, and when one
 * must declare `oldestRelease`.
 */
import type { Migration } from 'kysely';
import * as catalogue from './0001_catalogue.ts';
import * as priceTrendOrderIndex from './0002_price_trend_order_index.ts';
import * as summaryNameVectors from './0003_summary_name_vectors.ts';
import * as categoryOrderIndexes from './0004_category_order_indexes.ts';
import * as searchVectors from './0005_search_vectors.ts';
import * as searchLexicons from './0006_search_lexicons.ts';
import * as shopClients from './0007_shop_clients.ts';
import * as feeds from './0008_feeds.ts';
import * as shopOfferOrderIndex from './0009_shop_offer_order_index.ts';
import * as feedRuns from './0010_feed_runs.ts';
import * as trustedDocuments from './0011_trusted_documents.ts';
import * as gtin14Unique from './0012_gtin14_unique.ts';
import * as offersShopIndexDropped from './0013_offers_shop_index_dropped.ts';

export interface CatalogueMigration extends Migration {
  /**
   * A contract migration's: the oldest release (package.json's version) that runs on the
   * schema once it is applied. Absent on an expand migration, which every release that ran
   * before it survives.
   */
  readonly oldestRelease?: string;
}

export type MigrationList = Readonly<Record<string, CatalogueMigration>>;

export const migrations: MigrationList = {
  '0001_catalogue': catalogue,
  '0002_price_trend_order_index': priceTrendOrderIndex,
  '0003_summary_name_vectors': summaryNameVectors,
  '0004_category_order_indexes': categoryOrderIndexes,
  '0005_search_vectors': searchVectors,
  '0006_search_lexicons': searchLexicons,
  '0007_shop_clients': shopClients,
  '0008_feeds': feeds,
  '0009_shop_offer_order_index': shopOfferOrderIndex,
  '0010_feed_runs': feedRuns,
  '0011_trusted_documents': trustedDocuments,
  '0012_gtin14_unique': gtin14Unique,
  '0013_offers_shop_index_dropped': offersShopIndexDropped,
};
