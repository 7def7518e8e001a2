/**
 * The names of specification properties and groups, and the units that are words, in each
 * market language other than English, keyed by the English name the catalogue stores. A
 * name or unit without a translation (a standard's name such as `Wi-Fi` or `HDR10+`, a symbol
 * such as `GB` or `mm`) is shown as stored.
 */
import type { TextSearchConfig } from '../search/text-search-configs.ts';

type TranslatedLanguage = Exclude<TextSearchConfig, 'english'>;

/** The order of each entry's names below. */
const LANGUAGES = [
  'swedish',
  'norwegian',
  'danish',
  'finnish',
  'french',
] as const satisfies readonly TranslatedLanguage[];

type Names = readonly [
  swedish: string,
  norwegian: string,
  danish: string,
  finnish: string,
  french: string,
];

const GROUP_NAMES: Record<string, Names> = {
  General: ['Allmänt', 'Generelt', 'Generelt', 'Yleiset', 'Général'],
  Display: ['Skärm', 'Skjerm', 'Skærm', 'Näyttö', 'Écran'],
  Performance: ['Prestanda', 'Ytelse', 'Ydeevne', 'Suorituskyky', 'Performances'],
  Camera: ['Kamera', 'Kamera', 'Kamera', 'Kamera', 'Appareil photo'],
  'Main camera': [
    'Huvudkamera',
    'Hovedkamera',
    'Hovedkamera',
    'Pääkamera',
    'Appareil photo principal',
  ],
  Battery: ['Batteri', 'Batteri', 'Batteri', 'Akku', 'Batterie'],
  Dimensions: ['Mått', 'Mål', 'Mål', 'Mitat', 'Dimensions'],
  'Health & fitness': [
    'Hälsa & träning',
    'Helse & trening',
    'Sundhed & træning',
    'Terveys & kunto',
    'Santé & forme',
  ],
  Connectivity: ['Anslutningar', 'Tilkoblinger', 'Forbindelser', 'Liitettävyys', 'Connectivité'],
  Ports: ['Portar', 'Porter', 'Porte', 'Liitännät', 'Ports'],
  'Smart TV': ['Smart-TV', 'Smart-TV', 'Smart-TV', 'Smart-TV', 'Smart TV'],
  Sound: ['Ljud', 'Lyd', 'Lyd', 'Ääni', 'Son'],
  'Battery & durability': [
    'Batteri & tålighet',
    'Batteri & holdbarhet',
    'Batteri & holdbarhed',
    'Akku & kestävyys',
    'Batterie & robustesse',
  ],
  Graphics: ['Grafik', 'Grafikk', 'Grafik', 'Grafiikka', 'Graphismes'],
  Sensor: ['Sensor', 'Sensor', 'Sensor', 'Kenno', 'Capteur'],
  Video: ['Video', 'Video', 'Video', 'Video', 'Vidéo'],
  Optics: ['Optik', 'Optikk', 'Optik', 'Optiikka', 'Optique'],
  Brewing: ['Bryggning', 'Brygging', 'Brygning', 'Valmistus', 'Préparation'],
  'Capacity & power': [
    'Kapacitet & effekt',
    'Kapasitet & effekt',
    'Kapacitet & effekt',
    'Tilavuus & teho',
    'Capacité & puissance',
  ],
  Cooking: ['Tillagning', 'Tilberedning', 'Tilberedning', 'Kypsennys', 'Cuisson'],
  Blending: ['Mixning', 'Miksing', 'Blending', 'Sekoitus', 'Mixage'],
  Cleaning: ['Rengöring', 'Rengjøring', 'Rengøring', 'Puhdistus', 'Nettoyage'],
  Filter: ['Filter', 'Filter', 'Filter', 'Suodatin', 'Filtre'],
  'In the box': [
    'I förpackningen',
    'I esken',
    'I æsken',
    'Pakkauksen sisältö',
    'Contenu de la boîte',
  ],
  Cutting: ['Sågning', 'Saging', 'Savning', 'Sahaus', 'Coupe'],
  Set: ['Set', 'Sett', 'Sæt', 'Setti', 'Ensemble'],
  Play: ['Spel', 'Spill', 'Spil', 'Peli', 'Jeu'],
  Watch: ['Klocka', 'Klokke', 'Ur', 'Kello', 'Montre'],
  Bike: ['Cykel', 'Sykkel', 'Cykel', 'Pyörä', 'Vélo'],
  Drivetrain: ['Drivlina', 'Drivverk', 'Drivlinje', 'Voimansiirto', 'Transmission'],
};

const PROPERTY_NAMES: Record<string, Names> = {
  Brand: ['Märke', 'Merke', 'Mærke', 'Merkki', 'Marque'],
  'Release year': [
    'Lanseringsår',
    'Lanseringsår',
    'Lanceringsår',
    'Julkaisuvuosi',
    'Année de sortie',
  ],
  'Operating system': [
    'Operativsystem',
    'Operativsystem',
    'Styresystem',
    'Käyttöjärjestelmä',
    'Système d’exploitation',
  ],
  Warranty: ['Garanti', 'Garanti', 'Garanti', 'Takuu', 'Garantie'],
  'Screen size': [
    'Skärmstorlek',
    'Skjermstørrelse',
    'Skærmstørrelse',
    'Näytön koko',
    'Taille d’écran',
  ],
  Panel: ['Paneltyp', 'Paneltype', 'Paneltype', 'Paneelityyppi', 'Type de dalle'],
  'Refresh rate': [
    'Uppdateringsfrekvens',
    'Oppdateringsfrekvens',
    'Opdateringshastighed',
    'Virkistystaajuus',
    'Fréquence de rafraîchissement',
  ],
  Storage: ['Lagring', 'Lagring', 'Lagerplads', 'Tallennustila', 'Stockage'],
  RAM: ['RAM-minne', 'RAM', 'RAM', 'RAM-muisti', 'Mémoire vive'],
  'Memory card slot': [
    'Minneskortplats',
    'Minnekortspor',
    'Hukommelseskortslot',
    'Muistikorttipaikka',
    'Emplacement carte mémoire',
  ],
  Resolution: ['Upplösning', 'Oppløsning', 'Opløsning', 'Resoluutio', 'Résolution'],
  'Optical image stabilisation': [
    'Optisk bildstabilisering',
    'Optisk bildestabilisering',
    'Optisk billedstabilisering',
    'Optinen kuvanvakautus',
    'Stabilisation optique',
  ],
  'Front camera': ['Frontkamera', 'Frontkamera', 'Frontkamera', 'Etukamera', 'Caméra frontale'],
  Capacity: ['Kapacitet', 'Kapasitet', 'Kapacitet', 'Kapasiteetti', 'Capacité'],
  'Wireless charging': [
    'Trådlös laddning',
    'Trådløs lading',
    'Trådløs opladning',
    'Langaton lataus',
    'Charge sans fil',
  ],
  'Fast charging': [
    'Snabbladdning',
    'Hurtiglading',
    'Hurtigopladning',
    'Pikalataus',
    'Charge rapide',
  ],
  Weight: ['Vikt', 'Vekt', 'Vægt', 'Paino', 'Poids'],
  'Pen support': [
    'Stöd för penna',
    'Pennestøtte',
    'Understøtter pen',
    'Kynätuki',
    'Compatible stylet',
  ],
  Cellular: ['Mobilnät', 'Mobilnett', 'Mobilnetværk', 'Matkapuhelinverkko', 'Réseau cellulaire'],
  'Battery life': ['Batteritid', 'Batteritid', 'Batterilevetid', 'Akunkesto', 'Autonomie'],
  'Case size': [
    'Boettstorlek',
    'Boettstørrelse',
    'Kassestørrelse',
    'Kotelon koko',
    'Taille du boîtier',
  ],
  'Always-on display': [
    'Alltid på-skärm',
    'Alltid på-skjerm',
    'Altid tændt-skærm',
    'Aina päällä -näyttö',
    'Écran toujours actif',
  ],
  ECG: ['EKG', 'EKG', 'EKG', 'EKG', 'ECG'],
  'Water resistance': [
    'Vattentålighet',
    'Vanntetthet',
    'Vandtæthed',
    'Vedenkestävyys',
    'Étanchéité',
  ],
  'Energy class': [
    'Energiklass',
    'Energiklasse',
    'Energiklasse',
    'Energialuokka',
    'Classe énergétique',
  ],
  'HDMI ports': ['HDMI-portar', 'HDMI-porter', 'HDMI-porte', 'HDMI-liitännät', 'Ports HDMI'],
  'USB ports': ['USB-portar', 'USB-porter', 'USB-porte', 'USB-liitännät', 'Ports USB'],
  Platform: ['Plattform', 'Plattform', 'Platform', 'Alusta', 'Plateforme'],
  'Active noise cancelling': [
    'Aktiv brusreducering',
    'Aktiv støydemping',
    'Aktiv støjreduktion',
    'Aktiivinen melunvaimennus',
    'Réduction de bruit active',
  ],
  'Wearing style': ['Bärstil', 'Bærestil', 'Bærestil', 'Käyttötapa', 'Type de port'],
  'Driver size': [
    'Elementstorlek',
    'Elementstørrelse',
    'Enhedsstørrelse',
    'Elementin koko',
    'Taille des transducteurs',
  ],
  Multipoint: ['Multipoint', 'Multipoint', 'Multipoint', 'Monipisteyhteys', 'Multipoint'],
  'Output power': [
    'Uteffekt',
    'Utgangseffekt',
    'Udgangseffekt',
    'Lähtöteho',
    'Puissance de sortie',
  ],
  'Stereo pairing': [
    'Stereoparning',
    'Stereosammenkobling',
    'Stereoparring',
    'Stereoparitus',
    'Appairage stéréo',
  ],
  Channels: ['Kanaler', 'Kanaler', 'Kanaler', 'Kanavat', 'Canaux'],
  'Subwoofer included': [
    'Subwoofer ingår',
    'Subwoofer inkludert',
    'Subwoofer medfølger',
    'Subwoofer mukana',
    'Caisson de basses inclus',
  ],
  Processor: ['Processor', 'Prosessor', 'Processor', 'Suoritin', 'Processeur'],
  'Dedicated GPU': [
    'Dedikerat grafikkort',
    'Dedikert grafikkort',
    'Dedikeret grafikkort',
    'Erillinen näytönohjain',
    'Carte graphique dédiée',
  ],
  'Graphics memory': [
    'Grafikminne',
    'Grafikkminne',
    'Grafikhukommelse',
    'Näyttömuisti',
    'Mémoire graphique',
  ],
  'Touch screen': ['Pekskärm', 'Berøringsskjerm', 'Touchskærm', 'Kosketusnäyttö', 'Écran tactile'],
  'USB-C with power delivery': [
    'USB-C med strömförsörjning',
    'USB-C med strømforsyning',
    'USB-C med strømforsyning',
    'USB-C ja virransyöttö',
    'USB-C avec alimentation',
  ],
  'Sensor size': [
    'Sensorstorlek',
    'Sensorstørrelse',
    'Sensorstørrelse',
    'Kennon koko',
    'Taille du capteur',
  ],
  'In-body stabilisation': [
    'Stabilisering i kamerahuset',
    'Stabilisering i kamerahuset',
    'Stabilisering i kamerahuset',
    'Runkovakautus',
    'Stabilisation du capteur',
  ],
  'Max video resolution': [
    'Max videoupplösning',
    'Maks. videooppløsning',
    'Maks. videoopløsning',
    'Suurin videoresoluutio',
    'Résolution vidéo max.',
  ],
  'Microphone input': [
    'Mikrofoningång',
    'Mikrofoninngang',
    'Mikrofonindgang',
    'Mikrofoniliitäntä',
    'Entrée micro',
  ],
  Mount: ['Fattning', 'Fatning', 'Fatning', 'Kiinnitys', 'Monture'],
  'Image stabilisation': [
    'Bildstabilisering',
    'Bildestabilisering',
    'Billedstabilisering',
    'Kuvanvakautus',
    'Stabilisation d’image',
  ],
  'Filter diameter': [
    'Filterdiameter',
    'Filterdiameter',
    'Filterdiameter',
    'Suodatinkierre',
    'Diamètre de filtre',
  ],
  'Max resolution': [
    'Max upplösning',
    'Maks. oppløsning',
    'Maks. opløsning',
    'Suurin resoluutio',
    'Résolution max.',
  ],
  'Disc drive': ['Skivenhet', 'Platestasjon', 'Diskdrev', 'Levyasema', 'Lecteur de disque'],
  Type: ['Typ', 'Type', 'Type', 'Tyyppi', 'Type'],
  'Pump pressure': ['Pumptryck', 'Pumpetrykk', 'Pumpetryk', 'Pumpun paine', 'Pression de la pompe'],
  'Built-in grinder': [
    'Inbyggd kvarn',
    'Innebygd kvern',
    'Indbygget kværn',
    'Sisäänrakennettu mylly',
    'Broyeur intégré',
  ],
  'Milk frother': [
    'Mjölkskummare',
    'Melkeskummer',
    'Mælkeskummer',
    'Maidonvaahdotin',
    'Mousseur à lait',
  ],
  'Water tank': ['Vattentank', 'Vanntank', 'Vandtank', 'Vesisäiliö', 'Réservoir d’eau'],
  Power: ['Effekt', 'Effekt', 'Effekt', 'Teho', 'Puissance'],
  'Dual basket': ['Dubbel korg', 'Dobbel kurv', 'Dobbelt kurv', 'Kaksoiskori', 'Double panier'],
  'Dishwasher-safe basket': [
    'Diskmaskinssäker korg',
    'Oppvaskmaskinsikker kurv',
    'Opvaskemaskinesikker kurv',
    'Konepestävä kori',
    'Panier lavable au lave-vaisselle',
  ],
  'Jug capacity': [
    'Kannans volym',
    'Kannens kapasitet',
    'Kandens kapacitet',
    'Kannun tilavuus',
    'Capacité du bol',
  ],
  'Speed settings': [
    'Hastighetslägen',
    'Hastighetsinnstillinger',
    'Hastighedsindstillinger',
    'Nopeusasetukset',
    'Réglages de vitesse',
  ],
  Cordless: ['Sladdlös', 'Ledningsfri', 'Ledningsfri', 'Johdoton', 'Sans fil'],
  'Dust capacity': [
    'Dammbehållare',
    'Støvbeholder',
    'Støvbeholder',
    'Pölysäiliö',
    'Capacité du bac à poussière',
  ],
  'Suction power': ['Sugeffekt', 'Sugeeffekt', 'Sugeeffekt', 'Imuteho', 'Puissance d’aspiration'],
  'HEPA filter': ['HEPA-filter', 'HEPA-filter', 'HEPA-filter', 'HEPA-suodatin', 'Filtre HEPA'],
  'Washable filter': [
    'Tvättbart filter',
    'Vaskbart filter',
    'Vaskbart filter',
    'Pestävä suodatin',
    'Filtre lavable',
  ],
  Mopping: ['Moppning', 'Mopping', 'Moppefunktion', 'Moppaus', 'Fonction serpillière'],
  'Self-emptying dock': [
    'Självtömmande station',
    'Selvtømmende stasjon',
    'Selvtømmende station',
    'Itsetyhjentyvä asema',
    'Station d’auto-vidage',
  ],
  Suction: ['Sugkraft', 'Sugekraft', 'Sugekraft', 'Imuvoima', 'Aspiration'],
  'App control': [
    'Appstyrning',
    'Appstyring',
    'App-styring',
    'Sovellusohjaus',
    'Contrôle par application',
  ],
  'Run time': ['Drifttid', 'Driftstid', 'Driftstid', 'Käyttöaika', 'Durée de fonctionnement'],
  Voltage: ['Spänning', 'Spenning', 'Spænding', 'Jännite', 'Tension'],
  'Max torque': [
    'Max vridmoment',
    'Maks. dreiemoment',
    'Maks. drejningsmoment',
    'Suurin vääntömomentti',
    'Couple max.',
  ],
  'Brushless motor': [
    'Kolborstfri motor',
    'Børsteløs motor',
    'Børsteløs motor',
    'Harjaton moottori',
    'Moteur sans balais',
  ],
  'Hammer function': [
    'Slagfunktion',
    'Slagfunksjon',
    'Slagfunktion',
    'Iskutoiminto',
    'Fonction percussion',
  ],
  'Batteries included': [
    'Batterier ingår',
    'Batterier inkludert',
    'Batterier medfølger',
    'Akut mukana',
    'Batteries incluses',
  ],
  'Carry case': [
    'Förvaringsväska',
    'Bæreveske',
    'Transportkuffert',
    'Kantolaukku',
    'Coffret de transport',
  ],
  'Blade diameter': [
    'Klingdiameter',
    'Bladdiameter',
    'Klingediameter',
    'Terän halkaisija',
    'Diamètre de lame',
  ],
  'Cutting depth': ['Sågdjup', 'Skjæredybde', 'Skæredybde', 'Sahaussyvyys', 'Profondeur de coupe'],
  Pieces: ['Antal bitar', 'Antall deler', 'Antal dele', 'Palojen määrä', 'Nombre de pièces'],
  'Age from': ['Ålder från', 'Alder fra', 'Alder fra', 'Ikäsuositus alkaen', 'Âge minimum'],
  Minifigures: ['Minifigurer', 'Minifigurer', 'Minifigurer', 'Minifiguurit', 'Minifigurines'],
  Theme: ['Tema', 'Tema', 'Tema', 'Teema', 'Thème'],
  'Box width': [
    'Kartongens bredd',
    'Eskens bredde',
    'Æskens bredde',
    'Laatikon leveys',
    'Largeur de la boîte',
  ],
  'Players from': [
    'Spelare från',
    'Spillere fra',
    'Spillere fra',
    'Pelaajia vähintään',
    'Joueurs min.',
  ],
  'Players up to': [
    'Spelare upp till',
    'Spillere opptil',
    'Spillere op til',
    'Pelaajia enintään',
    'Joueurs max.',
  ],
  'Playing time': ['Speltid', 'Spilletid', 'Spilletid', 'Peliaika', 'Durée de jeu'],
  Movement: ['Urverk', 'Urverk', 'Urværk', 'Koneisto', 'Mouvement'],
  'Case diameter': [
    'Boettdiameter',
    'Boettdiameter',
    'Kassediameter',
    'Kotelon halkaisija',
    'Diamètre du boîtier',
  ],
  'Sapphire crystal': ['Safirglas', 'Safirglass', 'Safirglas', 'Safiirilasi', 'Verre saphir'],
  'Frame size': ['Ramstorlek', 'Rammestørrelse', 'Stelstørrelse', 'Rungon koko', 'Taille du cadre'],
  Electric: ['Eldriven', 'Elektrisk', 'Elektrisk', 'Sähköavusteinen', 'Électrique'],
  Gears: ['Växlar', 'Gir', 'Gear', 'Vaihteet', 'Nombre de vitesses'],
  Brakes: ['Bromsar', 'Bremser', 'Bremser', 'Jarrut', 'Freins'],
};

/** Units that are words; symbols (GB, mm, Hz, W…) read the same in every language. */
const UNIT_NAMES: Record<string, Names> = {
  years: ['år', 'år', 'år', 'vuotta', 'ans'],
  days: ['dagar', 'dager', 'dage', 'päivää', 'jours'],
  inch: ['tum', 'tommer', 'tommer', 'tuumaa', 'pouces'],
};

function byLanguage(table: Record<string, Names>) {
  const index = new Map<TextSearchConfig, Map<string, string>>();
  LANGUAGES.forEach((language, position) => {
    index.set(
      language,
      new Map(Object.entries(table).map(([english, names]) => [english, names[position]!])),
    );
  });
  return index;
}

const NAMES = byLanguage({ ...GROUP_NAMES, ...PROPERTY_NAMES });
const UNITS = byLanguage(UNIT_NAMES);

/** A property's or group's name in the language (English as stored). */
export function propertyNameIn(language: TextSearchConfig, name: string): string {
  return NAMES.get(language)?.get(name) ?? name;
}

/** A unit in the language; null stays null. */
export function unitIn(language: TextSearchConfig, unit: string | null): string | null {
  return unit === null ? null : (UNITS.get(language)?.get(unit) ?? unit);
}

/** Every translated name and word unit of the language, by English name (empty in English). */
export function translationsIn(language: TextSearchConfig): {
  names: ReadonlyMap<string, string>;
  units: ReadonlyMap<string, string>;
} {
  return { names: NAMES.get(language) ?? new Map(), units: UNITS.get(language) ?? new Map() };
}
