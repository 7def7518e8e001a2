/**
 * Toys & leisure: construction toys, board games, watches, bicycles.
 */
import { colourTrait, dimensionsGroup, generalGroup } from './common.ts';
import type { RootCategorySpec } from './types.ts';

export const LEISURE: RootCategorySpec = {
  slug: 'toys-and-leisure',
  name: 'Toys & leisure',
  description: 'Toys and games for every age, watches and gear for the outdoors.',
  groups: [
    {
      slug: 'toys',
      name: 'Toys',
      description: 'Construction sets, board games and toys for children and grown-ups.',
      leaves: [
        {
          slug: 'toy-bricks',
          name: 'Toy bricks',
          description: 'Building bricks and construction sets from the classic brands.',
          weight: 6,
          priceEur: [9, 650],
          lines: {
            LEGO: [
              'Technic {42151|42154|42171|42172|42182} {Bugatti Bolide|Ford GT|Mercedes-AMG F1|McLaren P1|Lunar Rover}',
              'City {60380|60414|60418|60422} {Fire Station|Police Chase|Harbour|Downtown}',
              'Star Wars {75355|75367|75375|75394} {X-Wing|Venator|Millennium Falcon|Imperial Star Destroyer}',
              'Icons {10311|10316|10318|10331} {Orchids|Rivendell|Concorde|Kingfisher}',
              'Friends {41730|41757|42620} {Autumn House|Botanical Garden|Pet Clinic}',
              'Duplo {10413|10420|10986} {Bath Time|Train|Family House}',
            ],
            Playmobil: ['{City Life|Novelmore|Country|Wiltopia} {71002|71255|71304|71402}'],
            'Mega Bloks': ['Mega {Pokémon|Halo|Hot Wheels} {Pikachu|Warthog|Track} Set'],
            Brio: ['Builder {Set|Construction Set|Engineering Set} {34586|34587|34588}'],
            Cobi: ['{Historical|Tanks|Ships} {Collection|Series} {2295|2623|4836}'],
            Geomag: ['{Classic|Mechanics|Supercolor} {42|86|142} pcs'],
          },
          traits: [
            { key: 'pieces', values: [70, 150, 320, 650, 1200, 2500, 4000], priceStep: 0.45 },
          ],
          blurbs: [
            'The {name} is a rewarding build for a rainy weekend.',
            'Detailed and sturdy, the {name} looks great on the shelf once built.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Set',
              icon: 'bricks',
              children: [
                {
                  name: 'Pieces',
                  type: 'number',
                  icon: 'bricks',
                  value: { trait: 'pieces' },
                  core: 'As stated on the box',
                },
                {
                  name: 'Age from',
                  type: 'number',
                  unit: 'years',
                  value: { oneOf: [1, 4, 6, 8, 9, 12, 18] },
                  core: "Manufacturer's recommendation",
                },
                { name: 'Minifigures', type: 'number', value: { range: [0, 8, 1] }, presence: 0.7 },
                {
                  name: 'Theme',
                  type: 'string',
                  value: {
                    oneOf: ['Vehicles', 'Buildings', 'Space', 'Animals', 'Film & TV', 'Botanicals'],
                  },
                },
              ],
            },
            dimensionsGroup([0.2, 8, 0.05], 'kg', {
              name: 'Box width',
              type: 'number',
              unit: 'cm',
              value: { range: [15, 60, 1] },
            }),
          ],
        },
        {
          slug: 'board-games',
          name: 'Board games',
          description: 'Family games, strategy games and party games.',
          weight: 3,
          priceEur: [12, 90],
          lines: {
            Hasbro: [
              'Monopoly {Classic|Deal|Junior|Cheaters Edition}',
              'Cluedo {Classic|Junior}',
              'Trivial Pursuit {Family|Classic}',
            ],
            Asmodee: [
              'Ticket to Ride {Europe|Nordic Countries|First Journey}',
              'Dixit {|Odyssey}',
              'Catan {|Seafarers|Junior}',
            ],
            Kosmos: [
              "Exit: {The Abandoned Cabin|The Pharaoh's Tomb|The Sunken Treasure}",
              'Lost Cities {|Roll & Write}',
            ],
            Ravensburger: ['Labyrinth {|Junior}', 'Scotland Yard', 'Alea Iacta Est'],
            'Days of Wonder': ['Small World {|Underground}', "Memoir '44"],
            Alga: ['Alfapet {|Junior}', 'Yatzy {Classic|Travel}'],
          },
          traits: [],
          blurbs: [
            'The {name} is easy to learn and hard to put down.',
            'A favourite for game nights: {name} plays in under an hour.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Play',
              icon: 'dice',
              children: [
                { name: 'Players from', type: 'number', value: { oneOf: [1, 2, 2, 3] } },
                { name: 'Players up to', type: 'number', value: { oneOf: [4, 5, 6, 8] } },
                {
                  name: 'Playing time',
                  type: 'number',
                  unit: 'min',
                  icon: 'clock',
                  value: { range: [15, 120, 15] },
                  core: 'Average game',
                },
                {
                  name: 'Age from',
                  type: 'number',
                  unit: 'years',
                  value: { oneOf: [5, 7, 8, 10, 12, 14] },
                },
              ],
            },
          ],
        },
      ],
    },
    {
      slug: 'watches',
      name: 'Watches',
      description: 'Wristwatches: automatic, quartz and solar.',
      leaves: [
        {
          slug: 'wristwatches',
          name: 'Wristwatches',
          description: 'Automatic, quartz and solar wristwatches for every wrist.',
          weight: 4,
          priceEur: [45, 4500],
          lines: {
            Seiko: [
              'Presage SRPD{37|39|41}',
              'Prospex SPB{143|147|317}',
              '5 Sports SRPD{55|63|73}',
            ],
            Casio: [
              'G-Shock GA-{2100|B2100|700}',
              'Edifice EFR-{526|S108}',
              'Vintage A{158|168|700}W',
            ],
            Tissot: [
              'PRX {Powermatic 80|Quartz} {35|40}mm',
              'Seastar {1000|2000}',
              'Gentleman Powermatic 80',
            ],
            Citizen: ['Eco-Drive {BM7108|AW1231|CA0690}', 'Promaster {Diver|Sky} {BN0150|JY8085}'],
            Hamilton: [
              'Khaki Field {Mechanical|Auto} {38|42}mm',
              'Jazzmaster {Open Heart|Viewmatic}',
            ],
            Garmin: ['Bounce {|2}', 'Vivomove {Sport|Trend}'],
            'Daniel Wellington': ['Classic {Petite|Bristol|Sheffield} {28|32|36|40}'],
          },
          traits: [
            colourTrait(['Black', 'Silver', 'Blue', 'Green', 'Gold']),
            { key: 'case', values: [36, 38, 40, 42, 44], label: (value) => `${value}mm` },
          ],
          blurbs: [
            'The {name} is a watch to wear every day for decades.',
            'Sapphire glass and a sturdy case: the {name} is built to last.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Watch',
              icon: 'watch',
              children: [
                {
                  name: 'Movement',
                  type: 'string',
                  value: { oneOf: ['Automatic', 'Quartz', 'Solar', 'Manual'] },
                  core: 'What keeps it running',
                },
                { name: 'Case diameter', type: 'number', unit: 'mm', value: { trait: 'case' } },
                { name: 'Sapphire crystal', type: 'boolean', value: { probability: 0.5 } },
                {
                  name: 'Water resistance',
                  type: 'number',
                  unit: 'm',
                  icon: 'water',
                  value: { oneOf: [30, 50, 100, 200, 300] },
                },
              ],
            },
            dimensionsGroup([40, 190, 1], 'g'),
          ],
        },
      ],
    },
    {
      slug: 'sports-and-outdoor',
      name: 'Sports & outdoor',
      description: 'Bicycles and equipment for days outdoors.',
      leaves: [
        {
          slug: 'bicycles',
          name: 'Bicycles',
          description: 'City bikes, e-bikes, mountain bikes and road bikes.',
          weight: 3,
          priceEur: [300, 4800],
          lines: {
            Trek: ['Marlin {5|6|7} Gen {2|3}', 'Domane {AL 2|SL 5}', 'FX {1|2|3} Disc'],
            Specialized: [
              'Rockhopper {Sport|Comp|Expert}',
              'Turbo Vado {3.0|4.0}',
              'Allez {|Sport}',
            ],
            Cube: ['Aim {Pro|Race|SL}', 'Kathmandu Hybrid {One|Pro|SLX} 750', 'Attain {|GTC}'],
            Crescent: ['{Elis|Emma|Ebbe|Elda} {3|7|8}-speed'],
            Giant: ['Talon {1|2|3}', 'Explore E+ {1|2}', 'Contend AR {1|2}'],
            Bianchi: ['Via Nirone 7', 'Impulso {Pro|Comp}', 'Magma {9.2|9.3}'],
          },
          traits: [
            { key: 'frame', values: ['S', 'M', 'L', 'XL'], label: (value) => `size ${value}` },
            colourTrait(['Black', 'Matte Grey', 'Forest Green', 'Dark Blue', 'Red']),
          ],
          blurbs: [
            'The {name} rolls easily on gravel and tarmac alike.',
            'A comfortable ride for commuting: the {name} has mudguards and a rack.',
          ],
          properties: [
            generalGroup(),
            {
              group: 'Bike',
              icon: 'bike',
              children: [
                {
                  name: 'Type',
                  type: 'string',
                  value: { oneOf: ['City', 'Mountain', 'Road', 'Hybrid', 'Gravel'] },
                },
                { name: 'Frame size', type: 'string', value: { trait: 'frame' } },
                {
                  name: 'Electric',
                  type: 'boolean',
                  value: { probability: 0.35 },
                  core: 'Pedal assist',
                },
                {
                  group: 'Drivetrain',
                  children: [
                    {
                      name: 'Gears',
                      type: 'number',
                      value: { oneOf: [1, 3, 7, 8, 10, 11, 12, 22] },
                    },
                    {
                      name: 'Brakes',
                      type: 'string',
                      value: { oneOf: ['Hydraulic disc', 'Mechanical disc', 'Rim', 'Coaster'] },
                    },
                  ],
                },
              ],
            },
            dimensionsGroup([8.5, 28, 0.1]),
          ],
        },
      ],
    },
  ],
};
