/**
 * The seed's only source of randomness: sfc32 (Chris Doty-Humphrey's Small Fast Counter), a
 * well-studied 128-bit generator that passes PractRand, seeded through a murmur3 finaliser.
 *
 * A generator is keyed by (seed, stream, key...) rather than drawn from one global sequence:
 * each product and each aspect of a product (its offers, its properties, its history) gets its
 * own independent stream, so drawing one more number for one aspect never shifts the data of
 * any other product or aspect.
 */

/** murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Named streams, so that two aspects of one product never share a sequence. */
export const STREAM = {
  categories: 1,
  shops: 2,
  assignment: 3,
  product: 4,
  properties: 5,
  gtins: 6,
  offers: 7,
  history: 8,
  family: 9,
} as const;

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: number, key1 = 0, key2 = 0) {
    this.a = mix32(seed ^ 0x9e3779b9);
    this.b = mix32(this.a ^ Math.imul(stream + 1, 0x85ebca6b));
    this.c = mix32(this.b ^ Math.imul(key1 + 1, 0xc2b2ae35));
    this.d = mix32(this.c ^ Math.imul(key2 + 1, 0x27d4eb2f));
    // sfc32's recommended warm-up: the first outputs of a fresh state are still correlated.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Fisher–Yates in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const swap = items[i] as T;
      items[i] = items[j] as T;
      items[j] = swap;
    }
    return items;
  }
}

/**
 * Picks indices in proportion to fixed weights in O(log n): built once (per category, per
 * market), drawn from many times.
 */
export class WeightedPicker {
  private readonly cumulative: Float64Array;

  constructor(weights: readonly number[]) {
    this.cumulative = new Float64Array(weights.length);
    let total = 0;
    weights.forEach((weight, index) => {
      total += weight;
      this.cumulative[index] = total;
    });
  }

  get size(): number {
    return this.cumulative.length;
  }

  pick(random: Random): number {
    const target = random.next() * (this.cumulative[this.cumulative.length - 1] ?? 0);
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.cumulative[middle] ?? 0) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
