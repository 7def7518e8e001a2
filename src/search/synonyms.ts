/**
 * Words a shopper uses for the same thing, per market language, kept as data: a query term
 * that is one word of a group also matches the group's other words (docs/api.md, "Text search").
 * Words are lowercase, as typed; each is stemmed in its language like any term. A group
 * holds single words only: a term is one word.
 */
import type { TextSearchConfig } from './text-search-configs.ts';

export const SYNONYM_GROUPS: Readonly<Record<TextSearchConfig, readonly (readonly string[])[]>> = {
  english: [
    ['tv', 'tvs', 'television', 'televisions'],
    ['headphones', 'headphone', 'headset', 'headsets', 'earphones', 'earbuds'],
    ['phone', 'phones', 'mobile', 'smartphone', 'smartphones', 'cellphone'],
    ['laptop', 'laptops', 'notebook', 'notebooks'],
    ['speaker', 'speakers', 'loudspeaker'],
    ['bike', 'bikes', 'bicycle', 'bicycles'],
    ['hoover', 'vacuum'],
    ['console', 'consoles'],
    ['watch', 'watches', 'wristwatch'],
    ['lego', 'bricks'],
  ],
  swedish: [
    ['tv', 'television', 'teve'],
    ['hörlurar', 'headset', 'lurar', 'headphones', 'earbuds'],
    ['mobil', 'mobiltelefon', 'mobiltelefoner', 'telefon', 'smartphone'],
    ['laptop', 'bärbar', 'notebook'],
    ['cykel', 'cyklar', 'bike'],
    ['dammsugare', 'vacuum'],
    ['högtalare', 'speaker'],
    ['klocka', 'klockor', 'armbandsur'],
  ],
  norwegian: [
    ['tv', 'fjernsyn', 'television'],
    ['hodetelefoner', 'headset', 'øretelefoner', 'headphones'],
    ['mobil', 'mobiltelefon', 'telefon', 'smarttelefon'],
    ['laptop', 'bærbar', 'notebook'],
    ['sykkel', 'sykler', 'bike'],
    ['støvsuger', 'vacuum'],
    ['høyttaler', 'speaker'],
    ['klokke', 'klokker', 'armbåndsur'],
  ],
  danish: [
    ['tv', 'fjernsyn', 'television'],
    ['hovedtelefoner', 'headset', 'høretelefoner', 'headphones'],
    ['mobil', 'mobiltelefon', 'telefon', 'smartphone'],
    ['laptop', 'bærbar', 'notebook'],
    ['cykel', 'cykler', 'bike'],
    ['støvsuger', 'vacuum'],
    ['højttaler', 'speaker'],
    ['ur', 'armbåndsur', 'ure'],
  ],
  finnish: [
    ['tv', 'televisio', 'televisiot', 'television'],
    ['kuulokkeet', 'kuulokkeita', 'headset', 'headphones'],
    ['puhelin', 'matkapuhelin', 'älypuhelin', 'kännykkä'],
    ['läppäri', 'kannettava', 'laptop'],
    ['polkupyörä', 'pyörä', 'bike'],
    ['pölynimuri', 'imuri', 'vacuum'],
    ['kaiutin', 'kaiuttimet', 'speaker'],
    ['kello', 'kellot', 'rannekello'],
  ],
  french: [
    ['tv', 'télé', 'téléviseur', 'téléviseurs', 'télévision'],
    ['casque', 'casques', 'écouteurs', 'headset', 'headphones'],
    ['smartphone', 'smartphones', 'portable', 'mobile', 'téléphone'],
    ['ordinateur', 'pc', 'laptop'],
    ['vélo', 'vélos', 'bicyclette'],
    ['aspirateur', 'aspirateurs', 'vacuum'],
    ['enceinte', 'enceintes', 'speaker'],
    ['montre', 'montres'],
  ],
};

/** The other words of the term's groups in the language. */
export function synonymsOf(config: TextSearchConfig, term: string): string[] {
  const synonyms = new Set<string>();
  for (const group of SYNONYM_GROUPS[config]) {
    if (group.includes(term)) for (const word of group) if (word !== term) synonyms.add(word);
  }
  return [...synonyms];
}
