/**
 * Home & garden: kitchen and household appliances, power tools.
 */
import {
  colourTrait,
  dimensionsGroup,
  energyClass,
  generalGroup,
  wirelessGroup,
} from './common.ts';
import type { RootCategorySpec } from './types.ts';

export const HOME: RootCategorySpec = {
  slug: 'home-and-garden',
  name: 'Home & garden',
  description: 'Appliances for the kitchen and the home, and tools for the workshop.',
  groups: [
    {
      slug: 'kitchen-appliances',
      name: 'Kitchen appliances',
      description: 'Coffee machines, air fryers, blenders and other helpers in the kitchen.',
      leaves: [
        {
          slug: 'coffee-machines',
          name: 'Coffee machines',
          description: 'Espresso machines, bean-to-cup machines and filter coffee makers.',
          weight: 5,
          priceEur: [45, 1400],
          lines: {
            "De'Longhi": [
              'Magnifica {S|Evo|Start}',
              'Dinamica {|Plus}',
              'Eletta Explore',
              'Dedica EC{685|885}',
            ],
            Philips: ['{2200|3200|5400} Series LatteGo', 'Series {1200|2300} EP{1220|2330}'],
            Jura: ['E{4|6|8}', 'ENA {4|8}', 'Z{10|6}'],
            Sage: ['the Barista {Express|Pro|Touch}', 'the Bambino {|Plus}', 'the Oracle {|Touch}'],
            Moccamaster: ['KBG {Select|One}', 'Cup-one'],
            Siemens: ['EQ.{3|5|6|700|900} {s100|s300|plus}'],
            Nespresso: ['Vertuo {Pop|Next|Lattissima}', 'Essenza Mini', 'CitiZ {|Platinum}'],
          },
          traits: [colourTrait(['Black', 'Silver', 'Stainless Steel', 'White', 'Cream'])],
          blurbs: [
            'The {name} grinds beans fresh for every cup and froths milk at one touch.',
            'Easy to clean and quick to heat up, the {name} suits busy mornings.',
          ],
          properties: [
            generalGroup(energyClass(0.5)),
            {
              group: 'Brewing',
              icon: 'coffee',
              children: [
                {
                  name: 'Type',
                  type: 'string',
                  value: { oneOf: ['Bean to cup', 'Espresso', 'Capsule', 'Filter'] },
                  core: 'How the coffee is made',
                },
                {
                  name: 'Pump pressure',
                  type: 'number',
                  unit: 'bar',
                  value: { oneOf: [9, 15, 19] },
                  presence: 0.7,
                },
                { name: 'Built-in grinder', type: 'boolean', value: { probability: 0.5 } },
                { name: 'Milk frother', type: 'boolean', value: { probability: 0.7 } },
              ],
            },
            {
              group: 'Capacity & power',
              icon: 'power',
              children: [
                {
                  name: 'Water tank',
                  type: 'number',
                  unit: 'l',
                  value: { range: [0.6, 2.5, 0.1] },
                },
                {
                  name: 'Power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [1000, 1500, 50] },
                  core: 'Maximum draw',
                },
              ],
            },
            dimensionsGroup([2.5, 12, 0.1]),
          ],
        },
        {
          slug: 'air-fryers',
          name: 'Air fryers',
          description: 'Air fryers and multi cookers for crisp food with little oil.',
          weight: 4,
          priceEur: [40, 320],
          lines: {
            Philips: ['Airfryer {3000|5000|7000} Series {L|XL|XXL}', 'Airfryer Combi XXL'],
            Ninja: ['Foodi {Dual Zone|FlexDrawer|MAX} AF{300|400|500}', 'Air Fryer AF{100|160}'],
            Tefal: ['Easy Fry {Dual|Max|Grill}{| XXL}'],
            Cosori: ['Pro {II|LE} {4.7|5.5}L', 'TurboBlaze'],
            Tower: ['Vortx {Duo|Eco|Vizion}'],
            Princess: ['Aerofryer {XL|XXL|Digital}'],
          },
          traits: [
            {
              key: 'capacity',
              values: [3.5, 4.1, 5.5, 7.2, 9.5],
              label: (value) => `${value}L`,
              priceStep: 0.12,
            },
          ],
          blurbs: [
            'The {name} cooks a family meal in two baskets at once.',
            'Crisp chips without a deep fryer: the {name} needs only a spoon of oil.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Cooking',
              icon: 'cooking',
              children: [
                {
                  name: 'Capacity',
                  type: 'number',
                  unit: 'l',
                  value: { trait: 'capacity' },
                  core: 'Basket volume',
                },
                { name: 'Dual basket', type: 'boolean', value: { probability: 0.35 } },
                {
                  name: 'Power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [1300, 2700, 100] },
                  core: 'Maximum draw',
                },
                { name: 'Dishwasher-safe basket', type: 'boolean', value: { probability: 0.8 } },
              ],
            },
            wirelessGroup(0.25),
          ],
        },
        {
          slug: 'blenders',
          name: 'Blenders',
          description: 'Jug blenders, hand blenders and smoothie makers.',
          weight: 3,
          priceEur: [25, 420],
          lines: {
            Vitamix: ['{E310|A2500i|A3500i|Ascent X2}'],
            Ninja: ['{Professional|Detect|Blast} Blender {BN|TB}{500|750|800}'],
            Braun: ['PowerBlend {3|7|9}', 'MultiQuick {5|7|9} MQ{5200|7035|9187}'],
            Bosch: ['VitaPower Serie {2|4|6}', 'ErgoMaster Serie {4|6}'],
            KitchenAid: ['Artisan K{150|400}', 'Classic K{150|400}'],
            Wilfa: ['Power {Smoothie|Blend} BL{1000|1500}'],
          },
          traits: [colourTrait(['Black', 'White', 'Red', 'Silver'])],
          blurbs: [
            'The {name} crushes ice and frozen fruit in seconds.',
            'A sturdy jug and strong motor make the {name} last for years.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Blending',
              icon: 'blender',
              children: [
                {
                  name: 'Power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [300, 1500, 50] },
                  core: 'Maximum draw',
                },
                {
                  name: 'Jug capacity',
                  type: 'number',
                  unit: 'l',
                  value: { range: [0.6, 2, 0.1] },
                },
                { name: 'Speed settings', type: 'number', value: { range: [2, 10, 1] } },
              ],
            },
          ],
        },
      ],
    },
    {
      slug: 'household-appliances',
      name: 'Household appliances',
      description: 'Vacuum cleaners and robots that keep the home clean.',
      leaves: [
        {
          slug: 'vacuum-cleaners',
          name: 'Vacuum cleaners',
          description: 'Cordless stick vacuums and vacuum cleaners with bags or without.',
          weight: 4,
          priceEur: [70, 750],
          lines: {
            Dyson: ['V{8|11|12|15} {Absolute|Detect|Slim}', 'Gen5{detect|outsize}'],
            Electrolux: ['{Ultimate|Pure} {600|700|800}', 'Well Q{6|7|8}'],
            Miele: ['Complete C{2|3} {Cat & Dog|PowerLine|Excellence}', 'Triflex HX{1|2}'],
            Philips: ['{3000|7000|8000} Series XC{3131|7042|8147}'],
            Samsung: ['Bespoke Jet {AI|Lite|Plus}'],
            Bosch: ['Unlimited {7|8} ProHygienic', 'Serie {4|6|8} BGL{8|41}'],
            Shark: ['Stratos {Cordless|Anti Hair Wrap}', 'Detect Pro'],
          },
          traits: [colourTrait(['Nickel', 'Purple', 'Black', 'Grey', 'Blue'])],
          blurbs: [
            'The {name} picks up fine dust and pet hair from rugs and hard floors.',
            'Light and well balanced, the {name} cleans the stairs without strain.',
          ],
          properties: [
            generalGroup(energyClass(0.4)),
            {
              group: 'Cleaning',
              icon: 'vacuum',
              children: [
                {
                  name: 'Cordless',
                  type: 'boolean',
                  value: { probability: 0.6 },
                  core: 'Runs on a battery',
                },
                {
                  name: 'Dust capacity',
                  type: 'number',
                  unit: 'l',
                  value: { range: [0.3, 4.5, 0.1] },
                },
                {
                  name: 'Suction power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [100, 900, 10] },
                  presence: 0.7,
                },
                {
                  group: 'Filter',
                  presence: 0.8,
                  children: [
                    { name: 'HEPA filter', type: 'boolean', value: { probability: 0.7 } },
                    { name: 'Washable filter', type: 'boolean', value: { probability: 0.6 } },
                  ],
                },
              ],
            },
            dimensionsGroup([1.5, 8, 0.1]),
          ],
        },
        {
          slug: 'robot-vacuums',
          name: 'Robot vacuums',
          description: 'Robot vacuums and mops that clean on a schedule.',
          weight: 3,
          priceEur: [140, 1400],
          lines: {
            iRobot: ['Roomba {Combo |}{i5|j7|j9|s9}{|+}'],
            Roborock: ['{S7|S8|Q7|Q8|Qrevo} {|MaxV|Pro Ultra|Max}'],
            Ecovacs: ['Deebot {T20|T30|X2|X5} {Omni|Pro Omni}'],
            Dreame: ['{L10s|L20|X30|X40} {Ultra|Pro|Master}'],
            Xiaomi: ['Robot Vacuum {S10|X10|X20}{|+}'],
            Samsung: ['Bespoke Jet Bot {AI+|Combo}'],
          },
          traits: [colourTrait(['Black', 'White'])],
          blurbs: [
            'The {name} maps every room and empties itself into its dock.',
            'Vacuum and mop in one pass: the {name} lifts its mop on rugs.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Cleaning',
              icon: 'vacuum',
              children: [
                {
                  name: 'Mopping',
                  type: 'boolean',
                  value: { probability: 0.7 },
                  core: 'Vacuums and mops',
                },
                { name: 'Self-emptying dock', type: 'boolean', value: { probability: 0.5 } },
                {
                  name: 'Suction',
                  type: 'number',
                  unit: 'Pa',
                  value: { range: [2000, 12000, 500] },
                },
              ],
            },
            wirelessGroup(1, {
              name: 'App control',
              type: 'boolean',
              value: { probability: 0.95 },
            }),
            {
              group: 'Battery',
              icon: 'battery',
              children: [
                {
                  name: 'Run time',
                  type: 'number',
                  unit: 'min',
                  icon: 'battery',
                  value: { range: [90, 240, 10] },
                },
              ],
            },
          ],
        },
      ],
    },
    {
      slug: 'tools',
      name: 'Tools',
      description: 'Power tools for building, repairing and the garden.',
      leaves: [
        {
          slug: 'drills',
          name: 'Drills & drivers',
          description: 'Cordless drills, impact drivers and hammer drills.',
          weight: 4,
          priceEur: [45, 480],
          lines: {
            Bosch: ['GSR {12V-35|18V-55|18V-90 C} Professional', 'UniversalImpact {18V|800}'],
            Makita: ['DDF{482|484|487}{Z|RTJ}', 'DHP{453|458|486}{Z|RFJ}'],
            DeWalt: ['DCD{708|791|796|800}{N|P2|D2}', 'DCF{850|887}{N|P2}'],
            Milwaukee: ['M18 FPD{2|3}-{0X|502X}', 'M12 FDD{|2}-{0|202X}'],
            Ryobi: ['ONE+ R18{DD3|PD3|DD7}', 'RPD{500|800}'],
            Hilti: ['SF {4|6} H-22', 'SFE {2-A12|4-22}'],
            Einhell: ['TE-CD 18/{40|50} Li{|-i} BL'],
          },
          traits: [
            { key: 'voltage', values: [12, 18, 36], label: (value) => `${value}V`, priceStep: 0.2 },
          ],
          blurbs: [
            'The {name} drives long screws into hardwood without a pilot hole.',
            'Compact and powerful, the {name} belongs in every toolbox.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Performance',
              icon: 'power',
              children: [
                {
                  name: 'Voltage',
                  type: 'number',
                  unit: 'V',
                  icon: 'battery',
                  value: { trait: 'voltage' },
                  core: 'Battery platform',
                },
                {
                  name: 'Max torque',
                  type: 'number',
                  unit: 'Nm',
                  value: { range: [25, 150, 5] },
                  core: 'Hard joint',
                },
                { name: 'Brushless motor', type: 'boolean', value: { probability: 0.6 } },
                { name: 'Hammer function', type: 'boolean', value: { probability: 0.45 } },
              ],
            },
            {
              group: 'In the box',
              icon: 'box',
              children: [
                { name: 'Batteries included', type: 'number', value: { oneOf: [0, 0, 1, 2] } },
                { name: 'Carry case', type: 'boolean', value: { probability: 0.6 } },
              ],
            },
            dimensionsGroup([0.8, 2.5, 0.05]),
          ],
        },
        {
          slug: 'circular-saws',
          name: 'Circular saws',
          description: 'Circular saws, plunge saws and mitre saws.',
          weight: 2,
          priceEur: [60, 900],
          lines: {
            Bosch: ['GKS {18V-57|190|55+ GCE} Professional', 'PKS {40|55|66} AF'],
            Makita: ['DHS{660|680|782}{Z|RTJ}', 'SP{6000|001G}{J|}'],
            DeWalt: ['DCS{391|570|572}{N|P2}', 'DWE{550|575|576}K'],
            Festool: ['TS {55|60} {FEBQ|KEBQ}-Plus', 'HKC 55 EB'],
            Milwaukee: ['M18 {FCS66|BLCS66}-0'],
            Metabo: ['KS {18 LTX 57|55 FS|66 FS}'],
          },
          traits: [
            { key: 'blade', values: [136, 165, 184, 190, 216], label: (value) => `${value}mm` },
          ],
          blurbs: [
            'The {name} cuts straight and clean through sheet material.',
            'Dust extraction and a riving knife make the {name} safe to work with.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Cutting',
              icon: 'saw',
              children: [
                {
                  name: 'Blade diameter',
                  type: 'number',
                  unit: 'mm',
                  value: { trait: 'blade' },
                  core: 'Outer diameter',
                },
                {
                  name: 'Cutting depth',
                  type: 'number',
                  unit: 'mm',
                  value: { range: [42, 75, 1] },
                },
                { name: 'Cordless', type: 'boolean', value: { probability: 0.5 } },
                {
                  name: 'Power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [1000, 2000, 50] },
                  presence: 0.6,
                },
              ],
            },
            dimensionsGroup([2, 6, 0.1]),
          ],
        },
      ],
    },
  ],
};
