/**
 * Everyday words of the trade across our five languages, mapped to forms a Spanish or English
 * catalog is likely to use. Merchants write aliases in their own language; customers write in
 * theirs. General vocabulary only: nothing here names a product of a particular catalog.
 */
const GROUPS: string[][] = [
  ['keyboard', 'teclado', 'tastatur', 'clavier'],
  ['mouse', 'mice', 'raton', 'rato', 'souris', 'maus'],
  ['monitor', 'pantalla', 'screen', 'display', 'ecran', 'bildschirm', 'tela', 'moniteur'],
  ['laptop', 'notebook', 'portatil', 'ordinateur', 'computadora portatil'],
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
  const direct = SYNONYMS.get(word);
  if (direct) return [word, ...direct];
  // plural forms: tastaturen, ecrans, cameras
  for (const stem of [word.replace(/en$/, ''), word.replace(/e?s$/, ''), word.replace(/n$/, '')]) {
    if (stem !== word && SYNONYMS.has(stem)) return [word, stem, ...SYNONYMS.get(stem)!];
  }
  return [word];
}
