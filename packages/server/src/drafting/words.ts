/** Small word lists the request parser shares (normalised: lowercase, no accents). */

const set = (words: string) => new Set(words.split(' '));

/** Words that join two requested things: a new line starts after them. */
export const JOINERS = set(
  ', : ; + & / y e and et und con with com avec mit plus mas ademas also tambien tambem aussi auch ausserdem ' +
    'additionally besides zendq',
);
/** Words that start something more, after a bundle: "También 1 switch", "Also 2 hours of…". */
export const MORE = set('zendq tambien tambem ademas also aussi auch ausserdem additionally besides plus');
/** "for each one": the line takes the quantity of the first thing asked for. */
export const EACH = set(
  'cada each chaque chacun chacune jede jeden jedes jeder jeweils per pro todos todas everyone',
);
export const FOR = set('para for pour fur per pra');
/** "LAP-14 x 2" (text.ts writes × as x): the number after it is the count of the thing before. */
export const TIMES = set('x');
/** "con docking", "with monitors": things that come with the ones before. */
export const WITH = set('con with com avec mit');
/** "y otro para la bodega": one more of the thing before. */
export const OTHER = set(
  'otro otra otros otras another outro outra outros outras autre autres weitere weiteren weiteres noch',
);
export const OF = set('de of da do du von des d');
/** Words that only say what a number counts ("5 horas", "12 unidades"): the number is a quantity. */
export const COUNT_WORDS = set(
  'hora horas hour hours hr hrs h heure heures stunde stunden unidad unidades unit units pieza piezas pza pzas ' +
    'pz pc pcs piece pieces unite unites stuck stk peca pecas unidade total en mas more veces times x',
);
