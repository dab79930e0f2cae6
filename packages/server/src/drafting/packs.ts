/** Products sold by the pack: the pack size in the name, and units turned into packs. */

/** Pack size when the name says so ("paquete de 100", "pack of 50"), else null. */
export function packSizeOf(nombre: string): number | null {
  const pack = /(?:paquete|pack|caja|box|paquet|packung|pacote|bolsa)\s+(?:de|of|com|von|mit)?\s*(\d+)/i.exec(
    nombre,
  );
  return pack && Number(pack[1]) > 1 ? Number(pack[1]) : null;
}

/** Words saying the number counts packs, not pieces. */
export const PACK_WORDS = new Set(
  'paquete paquetes pack packs caja cajas paquet paquets pacote pacotes packung packungen box boxes'.split(
    ' ',
  ),
);

/**
 * How many packs a request means. "300 tarjetas" counts pieces (3 packs of 100; 250 → the 3
 * packs that cover them); "3 tarjetas" of a pack of 100 can only mean packs; "3 paquetes" says so.
 * `units` is set when pieces were turned into packs, so the drafter can say so.
 */
export function toPacks(
  quantity: number,
  pack: number | null,
  packsExplicit: boolean,
): { packs: number; units?: number } {
  if (!pack || packsExplicit || quantity <= pack / 10) return { packs: quantity };
  return { packs: Math.ceil(quantity / pack), units: quantity };
}
