/**
 * Property groups and traits that many categories share, so each category file only states
 * what is particular to it.
 */
import type { PropertyGroupSpec, PropertySpec, TraitSpec } from './types.ts';

export const COLOURS = ['Black', 'White', 'Silver', 'Graphite', 'Blue', 'Green', 'Red', 'Grey'];

export function colourTrait(values: readonly string[] = COLOURS): TraitSpec {
  return { key: 'colour', values, label: (value) => String(value) };
}

/** Brand, year and warranty: what every product's first group states. */
export function generalGroup(...extra: PropertySpec[]): PropertyGroupSpec {
  return {
    group: 'General',
    icon: 'info',
    children: [
      { name: 'Brand', type: 'string', value: { brand: true } },
      { name: 'Release year', type: 'number', value: { releaseYear: true }, presence: 0.6 },
      ...extra,
      {
        name: 'Warranty',
        type: 'number',
        unit: 'years',
        value: { oneOf: [1, 2, 2, 2, 3, 5] },
        presence: 0.4,
      },
    ],
  };
}

export function dimensionsGroup(
  weight: readonly [number, number, number],
  weightUnit: 'g' | 'kg' = 'kg',
  ...extra: PropertySpec[]
): PropertyGroupSpec {
  return {
    group: 'Dimensions',
    icon: 'ruler',
    presence: 0.6,
    children: [
      {
        name: 'Weight',
        type: 'number',
        unit: weightUnit,
        icon: 'weight',
        value: { range: weight },
      },
      ...extra,
    ],
  };
}

export function wirelessGroup(
  probabilityWifi: number,
  ...extra: PropertySpec[]
): PropertyGroupSpec {
  return {
    group: 'Connectivity',
    icon: 'wireless',
    children: [
      { name: 'Wi-Fi', type: 'boolean', icon: 'wifi', value: { probability: probabilityWifi } },
      { name: 'Bluetooth', type: 'boolean', icon: 'bluetooth', value: { probability: 0.9 } },
      ...extra,
    ],
  };
}

export function energyClass(presence = 0.8): PropertySpec {
  return {
    name: 'Energy class',
    type: 'string',
    icon: 'energy',
    value: { oneOf: ['A', 'B', 'C', 'D', 'E', 'F', 'G'] },
    presence,
  };
}
