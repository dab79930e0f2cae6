/**
 * Per-seat bundles: "equipar 4 puestos, cada uno con laptop, monitor y teclado", "for each of
 * the 6 people: …", "für jeden der 4 Arbeitsplätze: …". Each item of the bundle is drafted
 * times the number of seats.
 */

import { readQuantity } from './numbers.js';
import { EACH } from './words.js';

/** Who or what a bundle is for: people and workplaces, in the five languages. */
const SEATS = new Set(
  (
    'puesto puestos persona personas empleado empleados usuario usuarios colaborador colaboradores ' +
    'trabajador trabajadores escritorio escritorios lugar lugares ' +
    'people person persons employee employees user users desk desks seat seats staff hire hires ' +
    'posto postos pessoa pessoas funcionario funcionarios colaboradora colaboradoras ' +
    'poste postes personne personnes collaborateur collaborateurs employe employes utilisateur utilisateurs ' +
    'bureau bureaux arbeitsplatz arbeitsplatze arbeitsplatzen mitarbeiter mitarbeitern mitarbeitende ' +
    'personen benutzer nutzer platz platze'
  ).split(' '),
);

/**
 * The number of seats of a bundle in one part of the request ("4 puestos", "6 people"), when
 * the request also says "each" (cada, each, chacun, jeder…) somewhere; else undefined.
 */
export function seatCount(tokens: string[], wholeRequest: string[]): number | undefined {
  if (!wholeRequest.some((t) => EACH.has(t))) return undefined;
  for (let i = 0; i < tokens.length; i++) {
    const read = readQuantity(tokens, i);
    if (!read || read.length === 0) continue;
    const noun = tokens[i + read.length];
    if (noun && SEATS.has(noun) && read.value >= 1 && Number.isInteger(read.value)) return read.value;
    i += read.length - 1;
  }
  return undefined;
}
