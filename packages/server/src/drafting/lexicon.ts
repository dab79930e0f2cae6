import { forms } from './text.js';

/**
 * Everyday words of the trade across our five languages, mapped to forms a Spanish or English
 * catalog is likely to use. Merchants write aliases in their own language; customers write in
 * theirs. General vocabulary only: nothing here names a product of a particular catalog.
 */
const GROUPS: string[][] = [
  ['keyboard', 'teclado', 'tastatur', 'clavier'],
  ['mouse', 'mice', 'raton', 'rato', 'souris', 'maus'],
  ['monitor', 'pantalla', 'screen', 'display', 'ecran', 'bildschirm', 'tela', 'moniteur'],
  ['laptop', 'notebook', 'portatil', 'portable', 'computadora portatil'],
  ['antivirus', 'virenschutz', 'antivirusprogramm', 'antivirenprogramm'],
  ['camera', 'camara', 'kamera', 'cctv', 'uberwachungskamera', 'ueberwachungskamera'],
  ['printer', 'impresora', 'impressora', 'imprimante', 'drucker'],
  ['cable', 'kabel', 'cabo', 'câble'],
  ['license', 'licence', 'licencia', 'licenca', 'lizenz'],
  ['training', 'capacitacion', 'curso', 'course', 'formacion', 'formation', 'schulung', 'treinamento'],
  ['consulting', 'consultoria', 'asesoria', 'conseil', 'beratung'],
  ['installation', 'instalacion', 'instalacao', 'montage'],
  ['support', 'soporte', 'suporte', 'assistance', 'wartung', 'mantenimiento', 'manutencao', 'maintenance'],
  ['backup', 'respaldo', 'sauvegarde', 'datensicherung', 'copia'],
  ['hour', 'hora', 'heure', 'stunde'],
  ['month', 'mes', 'mois', 'monat'],
  ['website', 'pagina web', 'sitio web', 'site web', 'webseite', 'site'],
  ['hosting', 'alojamiento', 'hebergement', 'hospedagem'],
  ['ups', 'nobreak', 'onduleur', 'usv'],
  ['business cards', 'tarjetas', 'cartoes de visita', 'cartes de visite', 'visitenkarten'],
  ['access point', 'punto de acceso', 'point dacces', 'ponto de acesso', 'zugangspunkt'],
  ['switch', 'conmutador', 'commutateur'],
  ['nodo', 'network drop', 'punto de red', 'ponto de rede', 'netzwerkdose', 'datendose', 'netzwerkanschluss'],
  ['logo', 'logotipo', 'logotype'],
];

const SYNONYMS = new Map<string, string[]>();
for (const group of GROUPS) {
  for (const word of group) {
    if (word.includes(' ')) continue;
    SYNONYMS.set(
      word,
      group.flatMap((w) => w.split(' ')).filter((w) => w !== word),
    );
  }
}

/** The word and what it may stand for in another language. */
export function alternatives(word: string): string[] {
  // plural forms: tastaturen, ecrans, cameras, portables
  const stems = [...new Set([...forms(word), word.replace(/n$/, '')])];
  for (const stem of stems) {
    const found = SYNONYMS.get(stem);
    if (found) return [...new Set([word, stem, ...found])];
  }
  // German compounds name the thing last: "netzwerkkabel" is a "kabel", "IT-Support" a "support".
  for (const stem of stems) {
    for (let cut = 2; stem.length - cut >= 4; cut++) {
      const found = SYNONYMS.get(stem.slice(cut));
      if (found) return [...new Set([word, stem.slice(cut), ...found])];
    }
  }
  return [word];
}
