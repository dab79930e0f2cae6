/**
 * Per-seat bundles: "equipar 4 puestos, cada uno con laptop, monitor y teclado", "for each of
 * the 6 people: …", "für jeden der 4 Arbeitsplätze: …", "laptop y 2 monitores para cada uno de
 * los 3 empleados". Each item of the bundle is drafted times the number of seats.
 */

import { ARTICLES, readQuantity } from './numbers.js';
import { EACH } from './words.js';

/** Who or what a bundle is for: people and workplaces, in the five languages. */
const SEATS = new Set(
  (
    'equipo equipos team teams puesto puestos persona personas empleado empleados usuario usuarios colaborador colaboradores ' +
    'trabajador trabajadores escritorio escritorios lugar lugares ' +
    'people person persons employee employees user users desk desks seat seats staff hire hires ' +
    'posto postos estacao estacoes pessoa pessoas funcionario funcionarios colaboradora colaboradoras ' +
    'poste postes personne personnes collaborateur collaborateurs employe employes utilisateur utilisateurs ' +
    'bureau bureaux arbeitsplatz arbeitsplatze arbeitsplatzen mitarbeiter mitarbeitern mitarbeitende ' +
    'personen benutzer nutzer platz platze ' +
    // places equipped alike: "3 oficinas, cada una con…"
    'oficina oficinas sucursal sucursales sala salas aula aulas tienda tiendas room rooms branch branches ' +
    'store stores loja lojas filial filiais salle salles agence agences buro buros raum raume filiale filialen'
  ).split(' '),
);

/**
 * The seats of a bundle in one part of the request ("4 puestos", "6 people", "5 new hires"),
 * when the request also says "each" (cada, each, chacun, jeder…) somewhere, or the part ends with
 * them and the next one says what they come with (`withNext`: "10 usuarios con correo y
 * antivirus"): how many, and where the count and its noun are (`start`, `length`), so they are
 * not read as a quantity of a product in the same part ("5 new hires need a laptop"). Undefined
 * when there is none.
 */
export function seatCount(
  tokens: string[],
  wholeRequest: string[],
  withNext = false,
): { seats: number; start: number; length: number } | undefined {
  const each = wholeRequest.some((t) => EACH.has(t));
  if (!each && !withNext) return undefined;
  for (let i = 0; i < tokens.length; i++) {
    const read = readQuantity(tokens, i);
    if (!read || read.length === 0) continue;
    // "una sucursal con 6 puestos": an article is no count of seats.
    if (read.length === 1 && ARTICLES.has(tokens[i]!)) continue;
    // "5 new hires", "4 nuevos empleados": one word may come between.
    for (const gap of [0, 1]) {
      const noun = tokens[i + read.length + gap];
      const last = i + read.length + gap === tokens.length - 1;
      if (noun && SEATS.has(noun) && read.value >= 1 && Number.isInteger(read.value) && (each || last))
        return { seats: read.value, start: i, length: read.length + gap + 1 };
    }
    i += read.length - 1;
  }
  return undefined;
}
