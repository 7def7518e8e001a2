/**
 * Electronics: phones and wearables, TV and audio, computers, cameras, gaming.
 */
import {
  colourTrait,
  dimensionsGroup,
  energyClass,
  generalGroup,
  wirelessGroup,
} from './common.ts';
import type { RootCategorySpec } from './types.ts';

const storageTrait = (values: readonly number[]) => ({
  key: 'storage',
  values,
  label: (value: number | string) =>
    Number(value) >= 1024 ? `${Number(value) / 1024}TB` : `${value}GB`,
  // Each step costs at least 12 % more (1.2 / 1.0 … 1.8 / 1.6): more than a model family's
  // offers spread within a market (seeds/economics.ts), so more storage never costs less.
  priceStep: 0.2,
});

export const ELECTRONICS: RootCategorySpec = {
  slug: 'electronics',
  name: 'Electronics',
  description: 'Phones, TVs, computers, cameras and everything else with a plug or a battery.',
  groups: [
    {
      slug: 'phones-and-wearables',
      name: 'Phones & wearables',
      description: 'Mobile phones, tablets and smartwatches from every major brand.',
      leaves: [
        {
          slug: 'mobile-phones',
          name: 'Mobile phones',
          description: 'Smartphones with 5G, great cameras and all-day batteries.',
          weight: 14,
          priceEur: [120, 1300],
          lines: {
            Samsung: [
              'Galaxy S{22-26}{|+| Ultra| FE}',
              'Galaxy A{15|25|35|55}{| 5G}',
              'Galaxy Z Flip{5-7}',
              'Galaxy Z Fold{5-7}',
            ],
            Apple: ['iPhone {13-17}{| Plus| Pro| Pro Max}', 'iPhone SE ({2nd|3rd} generation)'],
            Google: ['Pixel {7-10}{| Pro|a| Pro XL}'],
            OnePlus: ['OnePlus {11-13}{|R|T}', 'Nord {3|4|CE4|CE4 Lite}'],
            Xiaomi: [
              'Redmi Note {12-14}{| Pro| Pro+}',
              'Xiaomi {13-15}{|T| Ultra}',
              'Poco X{5-7}{| Pro}',
            ],
            Motorola: ['Moto G{34|54|84|85}', 'Edge {40-50}{| Neo| Pro}', 'Razr {40|50}{| Ultra}'],
            Nokia: ['G{22|42|60}', 'X{30|35}'],
            Sony: ['Xperia {1|5|10} {IV|V|VI}'],
            Fairphone: ['Fairphone {4|5}'],
          },
          traits: [
            storageTrait([64, 128, 256, 512, 1024]),
            colourTrait([
              'Black',
              'White',
              'Midnight Blue',
              'Titanium Grey',
              'Mint',
              'Lavender',
              'Coral',
            ]),
            { key: 'screen', values: [6.1, 6.3, 6.4, 6.6, 6.7, 6.8] },
            { key: 'battery', values: [3400, 4000, 4500, 5000, 5500] },
          ],
          blurbs: [
            'The {name} pairs a bright OLED display with a camera that copes well in low light.',
            '{brand} keeps the {name} slim while still fitting a battery that lasts a full day.',
            'A dependable 5G phone: the {name} gets years of security updates from {brand}.',
          ],
          properties: [
            generalGroup({
              name: 'Operating system',
              type: 'string',
              value: {
                byBrand: { Apple: ['iOS 18', 'iOS 26'] },
                otherwise: ['Android 14', 'Android 15'],
              },
            }),
            {
              group: 'Display',
              icon: 'screen',
              children: [
                {
                  name: 'Screen size',
                  type: 'number',
                  unit: 'inch',
                  icon: 'screen',
                  value: { trait: 'screen' },
                  core: 'Measured diagonally',
                },
                { name: 'Panel', type: 'string', value: { oneOf: ['OLED', 'AMOLED', 'LCD'] } },
                {
                  name: 'Refresh rate',
                  type: 'number',
                  unit: 'Hz',
                  value: { oneOf: [60, 90, 120, 144] },
                  presence: 0.7,
                },
              ],
            },
            {
              group: 'Performance',
              icon: 'chip',
              children: [
                {
                  name: 'Storage',
                  type: 'number',
                  unit: 'GB',
                  icon: 'storage',
                  value: { trait: 'storage' },
                  core: 'Built-in, before the system takes its share',
                },
                { name: 'RAM', type: 'number', unit: 'GB', value: { oneOf: [4, 6, 8, 12, 16] } },
                {
                  name: 'Memory card slot',
                  type: 'boolean',
                  value: { probability: 0.3 },
                  presence: 0.6,
                },
              ],
            },
            {
              group: 'Camera',
              icon: 'camera',
              presence: 0.8,
              children: [
                {
                  group: 'Main camera',
                  children: [
                    {
                      name: 'Resolution',
                      type: 'number',
                      unit: 'MP',
                      value: { oneOf: [12, 48, 50, 64, 108, 200] },
                    },
                    {
                      name: 'Optical image stabilisation',
                      type: 'boolean',
                      value: { probability: 0.6 },
                    },
                  ],
                },
                {
                  name: 'Front camera',
                  type: 'number',
                  unit: 'MP',
                  value: { oneOf: [8, 12, 16, 32] },
                  presence: 0.7,
                },
              ],
            },
            {
              group: 'Battery',
              icon: 'battery',
              children: [
                {
                  name: 'Capacity',
                  type: 'number',
                  unit: 'mAh',
                  icon: 'battery',
                  value: { trait: 'battery' },
                  core: "Manufacturer's figure",
                },
                { name: 'Wireless charging', type: 'boolean', value: { probability: 0.55 } },
                {
                  name: 'Fast charging',
                  type: 'number',
                  unit: 'W',
                  value: { oneOf: [18, 25, 33, 45, 67, 120] },
                  presence: 0.8,
                },
              ],
            },
            dimensionsGroup([140, 240, 1], 'g'),
          ],
        },
        {
          slug: 'tablets',
          name: 'Tablets',
          description: 'Tablets for reading, streaming, drawing and work.',
          weight: 5,
          priceEur: [150, 1400],
          lines: {
            Apple: ['iPad {|Air |Pro |mini }({9|10|11}th generation)', 'iPad Pro {11|13}'],
            Samsung: ['Galaxy Tab S{8-10}{|+| Ultra| FE}', 'Galaxy Tab A{8|9}{|+}'],
            Lenovo: ['Tab P{11|12}{| Pro}', 'Tab M{9|10|11}'],
            Xiaomi: ['Pad {6|7}{| Pro}', 'Redmi Pad {SE|Pro}'],
            Microsoft: ['Surface Pro {9-11}', 'Surface Go {3|4}'],
          },
          traits: [
            storageTrait([64, 128, 256, 512, 1024]),
            colourTrait(['Space Grey', 'Silver', 'Blue', 'Starlight']),
          ],
          blurbs: [
            'The {name} is light enough to hold for a whole film and fast enough for work.',
            'With a pen and a keyboard cover, the {name} from {brand} stands in for a laptop.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Display',
              icon: 'screen',
              children: [
                {
                  name: 'Screen size',
                  type: 'number',
                  unit: 'inch',
                  icon: 'screen',
                  value: { sizeInModel: { 11: 11, 13: 13 }, otherwise: [8.3, 10.9, 11, 12.4, 13] },
                  core: 'Measured diagonally',
                },
                { name: 'Pen support', type: 'boolean', value: { probability: 0.7 } },
              ],
            },
            {
              group: 'Performance',
              icon: 'chip',
              children: [
                {
                  name: 'Storage',
                  type: 'number',
                  unit: 'GB',
                  icon: 'storage',
                  value: { trait: 'storage' },
                },
                { name: 'Cellular', type: 'boolean', value: { probability: 0.3 } },
              ],
            },
            {
              group: 'Battery',
              icon: 'battery',
              children: [
                {
                  name: 'Battery life',
                  type: 'number',
                  unit: 'h',
                  icon: 'battery',
                  value: { range: [8, 15, 1] },
                },
              ],
            },
          ],
        },
        {
          slug: 'smartwatches',
          name: 'Smartwatches',
          description: 'Smartwatches and fitness trackers that count steps, sleep and heartbeats.',
          weight: 4,
          priceEur: [60, 900],
          lines: {
            Apple: ['Watch Series {8-11}', 'Watch Ultra {|2|3}', 'Watch SE'],
            Samsung: ['Galaxy Watch{5-8}{| Classic| Pro}'],
            Garmin: [
              'Forerunner {165|265|965}',
              'Fenix {7|8}{| Pro}',
              'Venu {3|4}',
              'Instinct {2|3}',
            ],
            Fitbit: ['Versa {4|5}', 'Sense {2|3}', 'Charge {6|7}'],
            Polar: ['Vantage V{2|3}', 'Grit X{|2} Pro', 'Pacer Pro'],
            Suunto: ['{Race|Vertical|9 Peak Pro}'],
          },
          traits: [
            { key: 'case', values: [40, 41, 44, 45, 47, 49], label: (value) => `${value}mm` },
            colourTrait(['Black', 'Silver', 'Midnight', 'Starlight', 'Olive']),
          ],
          blurbs: [
            'The {name} tracks runs, rides and swims with accurate GPS.',
            'Sleep, stress and heart rate: the {name} shows it all on the wrist.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Display',
              icon: 'screen',
              children: [
                { name: 'Case size', type: 'number', unit: 'mm', value: { trait: 'case' } },
                { name: 'Always-on display', type: 'boolean', value: { probability: 0.7 } },
              ],
            },
            {
              group: 'Health & fitness',
              icon: 'heart',
              children: [
                {
                  name: 'GPS',
                  type: 'boolean',
                  icon: 'gps',
                  value: { probability: 0.85 },
                  core: 'Built in, no phone needed',
                },
                { name: 'ECG', type: 'boolean', value: { probability: 0.4 } },
                {
                  name: 'Water resistance',
                  type: 'number',
                  unit: 'm',
                  icon: 'water',
                  value: { oneOf: [30, 50, 100] },
                },
              ],
            },
            {
              group: 'Battery',
              icon: 'battery',
              children: [
                {
                  name: 'Battery life',
                  type: 'number',
                  unit: 'days',
                  icon: 'battery',
                  value: { range: [1, 21, 1] },
                  core: 'Typical use',
                },
              ],
            },
          ],
        },
      ],
    },
    {
      slug: 'tv-and-audio',
      name: 'TV & audio',
      description: 'Televisions, headphones, speakers and soundbars.',
      leaves: [
        {
          slug: 'tvs',
          name: 'TVs',
          description: 'OLED, QLED and LED televisions from 32 to 85 inches.',
          weight: 9,
          priceEur: [220, 2800],
          lines: {
            Samsung: [
              '{Q|QN}{60|70|80|90}{C|D|F}',
              'S{90|95}{D|F} OLED',
              'Crystal UHD CU{7|8}{0|1}00',
            ],
            LG: ['OLED{B|C|G}{3-5}', 'QNED{80|85|90}', 'UR{78|80}'],
            Sony: ['Bravia {7|8|9} {|II}', 'Bravia XR A{80|95}L'],
            Philips: ['{PUS|OLED}{7|8|9}{00|08|09}', 'The One {8|9}00'],
            Panasonic: ['TX-{MZ|LZ}{1500|2000}', 'TX-{LX|MX}{650|800}'],
            TCL: ['C{745|805|845}', 'P{735|755}'],
            Hisense: ['U{6|7|8}N', 'A{6|7}N'],
          },
          traits: [
            {
              key: 'size',
              values: [32, 43, 50, 55, 65, 75, 85],
              label: (value) => `${value}"`,
              priceStep: 0.28,
            },
          ],
          blurbs: [
            'The {name} has deep blacks and enough brightness for a sunny living room.',
            '{brand} built the {name} for films and for gaming at 120 Hz.',
            'Streaming apps, voice control and four HDMI ports: the {name} has it covered.',
          ],
          properties: [
            generalGroup(energyClass()),
            {
              group: 'Display',
              icon: 'screen',
              children: [
                {
                  name: 'Screen size',
                  type: 'number',
                  unit: 'inch',
                  icon: 'screen',
                  value: { trait: 'size' },
                  core: 'Measured diagonally',
                },
                {
                  name: 'Resolution',
                  type: 'string',
                  value: { oneOf: ['3840 x 2160', '3840 x 2160', '1920 x 1080', '7680 x 4320'] },
                  core: 'Native panel resolution',
                },
                {
                  name: 'Panel',
                  type: 'string',
                  value: { oneOf: ['OLED', 'QLED', 'LED', 'Mini LED'] },
                },
                {
                  name: 'Refresh rate',
                  type: 'number',
                  unit: 'Hz',
                  value: { oneOf: [50, 60, 100, 120, 144] },
                },
                {
                  group: 'HDR',
                  presence: 0.8,
                  children: [
                    { name: 'HDR10+', type: 'boolean', value: { probability: 0.6 } },
                    { name: 'Dolby Vision', type: 'boolean', value: { probability: 0.5 } },
                  ],
                },
              ],
            },
            wirelessGroup(0.95, {
              group: 'Ports',
              children: [
                { name: 'HDMI ports', type: 'number', value: { oneOf: [2, 3, 4] } },
                { name: 'USB ports', type: 'number', value: { oneOf: [1, 2, 3] }, presence: 0.8 },
              ],
            }),
            {
              group: 'Smart TV',
              icon: 'apps',
              children: [
                {
                  name: 'Platform',
                  type: 'string',
                  value: { oneOf: ['Tizen', 'webOS', 'Google TV', 'Android TV', 'Roku'] },
                },
              ],
            },
            dimensionsGroup([4, 40, 0.1]),
          ],
        },
        {
          slug: 'headphones',
          name: 'Headphones',
          description: 'In-ear, on-ear and over-ear headphones, wired and wireless.',
          weight: 8,
          priceEur: [20, 480],
          lines: {
            Sony: ['WH-1000XM{4-6}', 'WF-1000XM{4|5}', 'WH-CH{520|720}N', 'ULT Wear'],
            Bose: ['QuietComfort {45|Ultra|Earbuds II}', '700 Noise Cancelling'],
            Apple: ['AirPods {3|4}', 'AirPods Pro {2|3}', 'AirPods Max'],
            Sennheiser: [
              'Momentum {3|4} Wireless',
              'Momentum True Wireless {3|4}',
              'HD {450|560S|660S2}',
            ],
            JBL: ['Tune {520|770|Flex}{|BT|NC}', 'Live {660|770}NC', 'Tour One M{2|3}'],
            Jabra: ['Elite {5|8|10}', 'Evolve{2} {65|85}'],
            Marshall: ['Major {IV|V}', 'Monitor {II|III} A.N.C.', 'Motif {II|III} A.N.C.'],
            'Bang & Olufsen': ['Beoplay H{95|100}', 'Beoplay EX'],
          },
          traits: [colourTrait(['Black', 'White', 'Silver', 'Midnight Blue', 'Sand'])],
          blurbs: [
            'The {name} shuts out the commute with effective noise cancelling.',
            'Balanced sound and a comfortable fit: the {name} is made for long listening.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Sound',
              icon: 'sound',
              children: [
                {
                  name: 'Active noise cancelling',
                  type: 'boolean',
                  icon: 'anc',
                  value: { probability: 0.6 },
                  core: 'Tested on a city bus',
                },
                {
                  name: 'Wearing style',
                  type: 'string',
                  value: { oneOf: ['In-ear', 'On-ear', 'Over-ear'] },
                },
                {
                  name: 'Driver size',
                  type: 'number',
                  unit: 'mm',
                  value: { oneOf: [6, 10, 11, 30, 40, 50] },
                  presence: 0.6,
                },
              ],
            },
            wirelessGroup(0, {
              name: 'Multipoint',
              type: 'boolean',
              value: { probability: 0.5 },
              presence: 0.7,
            }),
            {
              group: 'Battery',
              icon: 'battery',
              presence: 0.9,
              children: [
                {
                  name: 'Battery life',
                  type: 'number',
                  unit: 'h',
                  icon: 'battery',
                  value: { range: [5, 60, 1] },
                  core: 'With noise cancelling on',
                },
              ],
            },
          ],
        },
        {
          slug: 'bluetooth-speakers',
          name: 'Bluetooth speakers',
          description: 'Portable and smart speakers for the home, the beach and the garden.',
          weight: 4,
          priceEur: [30, 450],
          lines: {
            JBL: ['Flip {5|6|7}', 'Charge {5|6}', 'Go {3|4}', 'Xtreme {3|4}', 'Boombox {2|3}'],
            'Ultimate Ears': ['BOOM {3|4}', 'WONDERBOOM {3|4}', 'MEGABOOM {3|4}'],
            Bose: ['SoundLink {Flex|Max|Micro}'],
            Marshall: ['Emberton {II|III}', 'Stanmore {II|III}', 'Acton {II|III}', 'Willen {|II}'],
            Sonos: ['Era {100|300}', 'Roam {|2}', 'Move {|2}'],
            'Bang & Olufsen': ['Beosound A{1|5}', 'Beosound Explore'],
          },
          traits: [colourTrait(['Black', 'Blue', 'Red', 'Teal', 'Cream'])],
          blurbs: [
            'The {name} fills a room and survives a drop in the pool.',
            '{brand} packs big bass into the compact {name}.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Sound',
              icon: 'sound',
              children: [
                {
                  name: 'Output power',
                  type: 'number',
                  unit: 'W',
                  icon: 'power',
                  value: { range: [5, 120, 5] },
                  core: 'RMS',
                },
                { name: 'Stereo pairing', type: 'boolean', value: { probability: 0.7 } },
              ],
            },
            wirelessGroup(0.3),
            {
              group: 'Battery & durability',
              icon: 'battery',
              children: [
                {
                  name: 'Battery life',
                  type: 'number',
                  unit: 'h',
                  icon: 'battery',
                  value: { range: [8, 30, 1] },
                },
                {
                  name: 'Water resistance',
                  type: 'string',
                  icon: 'water',
                  value: { oneOf: ['IP54', 'IP67', 'IPX4', 'IPX7'] },
                },
              ],
            },
          ],
        },
        {
          slug: 'soundbars',
          name: 'Soundbars',
          description: 'Soundbars and home cinema systems with Dolby Atmos.',
          weight: 3,
          priceEur: [120, 1500],
          lines: {
            Sonos: ['Arc {|Ultra}', 'Beam (Gen {1|2})', 'Ray'],
            Samsung: ['HW-Q{600|800|990}{C|D}', 'HW-S{60|80}{C|D}'],
            Sony: ['HT-A{3000|5000|7000|9000}', 'HT-S{400|2000}'],
            LG: ['S{65|75|95}{Q|QR|TR}', 'DS{60|90}TR'],
            Bose: ['Smart Soundbar {|600|900}', 'Smart Ultra Soundbar'],
            Sennheiser: ['Ambeo {Mini|Plus|Max}'],
          },
          traits: [colourTrait(['Black', 'White'])],
          blurbs: [
            'The {name} brings Dolby Atmos height effects without extra speakers.',
            'Clear dialogue at low volume is what the {name} does best.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Sound',
              icon: 'sound',
              children: [
                {
                  name: 'Channels',
                  type: 'string',
                  value: { oneOf: ['2.1', '3.1', '5.1', '5.1.2', '7.1.4'] },
                  core: 'Including the subwoofer',
                },
                { name: 'Dolby Atmos', type: 'boolean', value: { probability: 0.6 } },
                { name: 'Subwoofer included', type: 'boolean', value: { probability: 0.5 } },
              ],
            },
            wirelessGroup(0.8, {
              group: 'Ports',
              children: [{ name: 'HDMI eARC', type: 'boolean', value: { probability: 0.9 } }],
            }),
          ],
        },
      ],
    },
    {
      slug: 'computers',
      name: 'Computers',
      description: 'Laptops, monitors and the accessories that go with them.',
      leaves: [
        {
          slug: 'laptops',
          name: 'Laptops',
          description: 'Ultrabooks, gaming laptops and everyday notebooks.',
          weight: 9,
          priceEur: [330, 2900],
          lines: {
            Apple: ['MacBook Air {13|15} M{2-4}', 'MacBook Pro {14|16} M{3|4} {|Pro|Max}'],
            Lenovo: [
              'ThinkPad {X1 Carbon|T14|T14s|E14} Gen {4-6}',
              'IdeaPad Slim {3|5}',
              'Legion {5|7} Pro',
              'Yoga {7|9} {14|16}',
            ],
            Dell: [
              'XPS {13|14|16}',
              'Inspiron {14|15|16} {3000|5000|7000}',
              'Latitude {5450|7450}',
            ],
            HP: [
              'Pavilion {14|15}',
              'EliteBook {840|860} G{10|11}',
              'Envy x360 {14|15}',
              'Omen {16|17}',
            ],
            ASUS: [
              'Zenbook {14|S 13} OLED',
              'Vivobook {15|16}{|X}',
              'ROG Zephyrus G{14|16}',
              'TUF Gaming A{15|16}',
            ],
            Acer: [
              'Swift Go {14|16}',
              'Aspire {3|5|7}',
              'Nitro V {15|16}',
              'Predator Helios {16|18}',
            ],
            Microsoft: ['Surface Laptop {5-7}'],
          },
          traits: [
            {
              key: 'ram',
              values: [8, 16, 32, 64],
              label: (value) => `${value}GB`,
              priceStep: 0.18,
            },
            storageTrait([256, 512, 1024, 2048]),
          ],
          blurbs: [
            'The {name} is thin, quiet and lasts a working day away from the charger.',
            'With a fast processor and a sharp screen, the {name} handles photo editing with ease.',
          ],
          properties: [
            generalGroup({
              name: 'Operating system',
              type: 'string',
              value: {
                byBrand: { Apple: ['macOS'] },
                otherwise: ['Windows 11 Home', 'Windows 11 Pro', 'ChromeOS'],
              },
            }),
            {
              group: 'Performance',
              icon: 'chip',
              children: [
                {
                  name: 'Processor',
                  type: 'string',
                  value: {
                    oneOf: [
                      'Intel Core i5',
                      'Intel Core i7',
                      'Intel Core Ultra 7',
                      'AMD Ryzen 5',
                      'AMD Ryzen 7',
                      'Apple M3',
                      'Apple M4',
                      'Snapdragon X Elite',
                    ],
                  },
                  core: 'Model family',
                },
                {
                  name: 'RAM',
                  type: 'number',
                  unit: 'GB',
                  value: { trait: 'ram' },
                  core: 'Not upgradeable on most models',
                },
                {
                  name: 'Storage',
                  type: 'number',
                  unit: 'GB',
                  icon: 'storage',
                  value: { trait: 'storage' },
                },
                {
                  group: 'Graphics',
                  presence: 0.7,
                  children: [
                    { name: 'Dedicated GPU', type: 'boolean', value: { probability: 0.35 } },
                    {
                      name: 'Graphics memory',
                      type: 'number',
                      unit: 'GB',
                      value: { oneOf: [4, 6, 8, 12] },
                      presence: 0.5,
                    },
                  ],
                },
              ],
            },
            {
              group: 'Display',
              icon: 'screen',
              children: [
                {
                  name: 'Screen size',
                  type: 'number',
                  unit: 'inch',
                  icon: 'screen',
                  value: {
                    sizeInModel: { 13: 13.3, 14: 14, 15: 15.6, 16: 16, 17: 17.3, 18: 18 },
                    otherwise: [13.3, 13.6, 14, 15.6, 16, 17.3],
                  },
                },
                { name: 'Touch screen', type: 'boolean', value: { probability: 0.3 } },
              ],
            },
            {
              group: 'Battery',
              icon: 'battery',
              children: [
                {
                  name: 'Battery life',
                  type: 'number',
                  unit: 'h',
                  icon: 'battery',
                  value: { range: [5, 22, 1] },
                },
              ],
            },
            dimensionsGroup([0.9, 3.2, 0.05]),
          ],
        },
        {
          slug: 'monitors',
          name: 'Monitors',
          description: 'Office, design and gaming monitors.',
          weight: 5,
          priceEur: [110, 1500],
          lines: {
            Dell: [
              'UltraSharp U{24|27|32}{23|24}',
              'S{24|27}{21|22}H{|S}',
              'Alienware AW{2725|3425}{DF|DW}',
            ],
            LG: ['UltraGear {24|27|32}GS{60|75|95}', 'UltraFine {27|32}UN{880|850}'],
            Samsung: ['Odyssey G{5|7|9}', 'ViewFinity S{6|8}', 'Smart Monitor M{7|8}'],
            ASUS: [
              'ProArt PA{248|278|329}{QV|CV}',
              'ROG Swift PG{27|32}{AQDM|UCDM}',
              'TUF Gaming VG{249|279}Q{1A|3A}',
            ],
            BenQ: ['PD{2705|3205}U', 'MOBIUZ EX{2710|2510}{Q|S}', 'GW{2490|2790}'],
            AOC: ['{24|27}G{2|4}{SP|X}', 'Q{27|32}P{2|3}'],
          },
          traits: [
            {
              key: 'size',
              values: [24, 27, 32, 34],
              label: (value) => `${value}"`,
              priceStep: 0.2,
            },
          ],
          blurbs: [
            'The {name} has accurate colours straight out of the box.',
            'High refresh rate and low input lag make the {name} a fine gaming screen.',
          ],
          properties: [
            generalGroup(energyClass(0.6)),
            {
              group: 'Display',
              icon: 'screen',
              children: [
                {
                  name: 'Screen size',
                  type: 'number',
                  unit: 'inch',
                  icon: 'screen',
                  value: { trait: 'size' },
                  core: 'Measured diagonally',
                },
                {
                  name: 'Resolution',
                  type: 'string',
                  value: { oneOf: ['1920 x 1080', '2560 x 1440', '3440 x 1440', '3840 x 2160'] },
                },
                {
                  name: 'Refresh rate',
                  type: 'number',
                  unit: 'Hz',
                  value: { oneOf: [60, 75, 144, 165, 240] },
                },
                { name: 'Panel', type: 'string', value: { oneOf: ['IPS', 'VA', 'OLED', 'TN'] } },
              ],
            },
            {
              group: 'Connectivity',
              icon: 'plug',
              children: [
                { name: 'USB-C with power delivery', type: 'boolean', value: { probability: 0.4 } },
                { name: 'HDMI ports', type: 'number', value: { oneOf: [1, 2] } },
              ],
            },
          ],
        },
      ],
    },
    {
      slug: 'cameras-and-photo',
      name: 'Cameras & photo',
      description: 'System cameras, compact cameras and lenses.',
      leaves: [
        {
          slug: 'digital-cameras',
          name: 'Digital cameras',
          description: 'Mirrorless, DSLR and compact cameras.',
          weight: 3,
          priceEur: [350, 4200],
          lines: {
            Canon: ['EOS R{5|6|8|10|50|100}{| Mark II}', 'PowerShot G{5|7} X Mark {II|III}'],
            Nikon: ['Z{5|6|7|8|9|50|f|fc}{| II}', 'Coolpix P{950|1000}'],
            Sony: ['Alpha 7{| II| III| IV| C| CR}', 'ZV-E{1|10}{| II}', 'RX100 {VI|VII}'],
            Fujifilm: ['X-T{5|30|50}{| II}', 'X{100|-S20|-H2}{V|S|}', 'GFX{50S II|100S}'],
            Panasonic: ['Lumix S{5|9}{| II|IIX}', 'Lumix G{9|100} {|II}'],
            'OM System': ['OM-{1|5}{| Mark II}'],
          },
          traits: [
            {
              key: 'kit',
              values: ['body', 'kit'],
              label: (value) => (value === 'kit' ? 'with kit lens' : 'body'),
              priceStep: 0.15,
            },
          ],
          blurbs: [
            'The {name} focuses fast on eyes, people and animals.',
            '{brand} made the {name} weather-sealed for shooting in any season.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Sensor',
              icon: 'camera',
              children: [
                {
                  name: 'Resolution',
                  type: 'number',
                  unit: 'MP',
                  value: { oneOf: [20, 24, 26, 33, 45, 61] },
                  core: 'Effective pixels',
                },
                {
                  name: 'Sensor size',
                  type: 'string',
                  value: { oneOf: ['Full frame', 'APS-C', 'Micro Four Thirds', '1 inch'] },
                },
                { name: 'In-body stabilisation', type: 'boolean', value: { probability: 0.6 } },
              ],
            },
            {
              group: 'Video',
              icon: 'video',
              children: [
                {
                  name: 'Max video resolution',
                  type: 'string',
                  value: { oneOf: ['4K', '4K 60p', '6K', '8K'] },
                },
                { name: 'Microphone input', type: 'boolean', value: { probability: 0.8 } },
              ],
            },
            dimensionsGroup([300, 1100, 5], 'g'),
          ],
        },
        {
          slug: 'camera-lenses',
          name: 'Camera lenses',
          description: 'Prime and zoom lenses for system cameras.',
          weight: 2,
          priceEur: [180, 2600],
          lines: {
            Canon: [
              'RF {24-70|70-200|24-105|15-35}mm F{2.8|4} L IS USM',
              'RF {35|50|85}mm F{1.2|1.8} {L USM|STM}',
            ],
            Nikon: [
              'Nikkor Z {24-70|70-200|14-30}mm f/{2.8|4} S',
              'Nikkor Z {35|50|85}mm f/{1.2|1.8} S',
            ],
            Sony: [
              'FE {24-70|70-200|16-35}mm F{2.8|4} GM{| II}',
              'FE {35|50|85}mm F{1.4|1.8} {GM|}',
            ],
            Sigma: [
              '{24-70|28-70|100-400}mm F{2.8|5-6.3} DG DN {Art|Contemporary|Sports}',
              '{35|50|85}mm F1.4 DG DN Art',
            ],
            Tamron: ['{28-75|17-70|70-180}mm F/2.8 Di III{| VXD G2}'],
            Samyang: ['AF {14|24|35|45|75}mm F{1.8|2.8}'],
          },
          traits: [
            { key: 'mount', values: ['Sony E', 'Canon RF', 'Nikon Z', 'Fujifilm X', 'L-Mount'] },
          ],
          blurbs: [
            'The {name} is sharp from edge to edge even wide open.',
            'A versatile lens: the {name} covers most of what a day out needs.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Optics',
              icon: 'lens',
              children: [
                {
                  name: 'Mount',
                  type: 'string',
                  value: { trait: 'mount' },
                  core: 'Check your camera',
                },
                { name: 'Image stabilisation', type: 'boolean', value: { probability: 0.4 } },
                {
                  name: 'Filter diameter',
                  type: 'number',
                  unit: 'mm',
                  value: { oneOf: [49, 52, 58, 62, 67, 72, 77, 82] },
                },
              ],
            },
            dimensionsGroup([150, 1500, 5], 'g'),
          ],
        },
      ],
    },
    {
      slug: 'gaming',
      name: 'Gaming',
      description: 'Consoles and the games and controllers to go with them.',
      leaves: [
        {
          slug: 'game-consoles',
          name: 'Game consoles',
          description: 'Home and handheld consoles.',
          weight: 2,
          priceEur: [200, 750],
          lines: {
            Sony: ['PlayStation 5 {Slim|Pro|Digital Edition}', 'PlayStation Portal'],
            Microsoft: ['Xbox Series {X|S}'],
            Nintendo: ['Switch {OLED|Lite|2}'],
            Valve: ['Steam Deck {OLED|LCD}'],
            ASUS: ['ROG Ally {|X}'],
            Lenovo: ['Legion Go {|S}'],
          },
          traits: [storageTrait([64, 512, 1024, 2048]), colourTrait(['Black', 'White'])],
          blurbs: [
            'The {name} loads games in seconds from its fast SSD.',
            'Play at home or on the go with the {name}.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Performance',
              icon: 'chip',
              children: [
                {
                  name: 'Storage',
                  type: 'number',
                  unit: 'GB',
                  icon: 'storage',
                  value: { trait: 'storage' },
                  core: 'Expandable on most models',
                },
                {
                  name: 'Max resolution',
                  type: 'string',
                  value: { oneOf: ['1080p', '1440p', '4K', '8K'] },
                },
                { name: 'Disc drive', type: 'boolean', value: { probability: 0.4 } },
              ],
            },
            wirelessGroup(1),
          ],
        },
      ],
    },
  ],
};
