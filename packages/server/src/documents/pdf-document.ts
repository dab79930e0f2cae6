import PDFDocument from 'pdfkit';
import { type Lang, withColon } from '../i18n/messages.js';

/** One line of a document's table, already formatted in the document's language. */
export interface PdfLine {
  descripcion: string;
  cantidad: string;
  precio: string;
  importe: string;
}

/** What a quote or invoice PDF shows: the same figures as its public page, already formatted. */
export interface PdfView {
  /** `Cotización COT-000001`, `Factura F-000001`. */
  title: string;
  merchant: string;
  /** Brand colour of the merchant (`#rrggbb`), for the rule under the title. */
  color: string | null;
  /** Label/value pairs under the title: client, dates, status, fiscal folio… */
  meta: [string, string][];
  headers: { descripcion: string; cantidad: string; precio: string; importe: string };
  lines: PdfLine[];
  /** Label/value pairs of the totals; the last is printed bold. */
  totals: [string, string][];
  /** Further sections (payments, credit notes, acceptance), each a heading and its rows. */
  sections: { heading: string; rows: string[] }[];
  /** Small print at the end (terms, a sandbox mark). */
  footer: string[];
  lang: string;
}

const MARGIN = 50;
const WIDTH = 612 - 2 * MARGIN; // US Letter
const COLUMNS = { descripcion: 250, cantidad: 70, precio: 96, importe: 96 };
/** The totals' amounts: room for "2.863.025,19 MX$" in bold at 12 pt, the largest shrunk to fit. */
const TOTAL_WIDTH = 140;

/**
 * The font size at which `text` takes one line of `width`: an amount never wraps (a French total
 * of seven digits broke as "2 863 025,19 $M" / "X"), it is set smaller instead.
 */
function oneLineSize(doc: PDFKit.PDFDocument, text: string, width: number, size: number): number {
  doc.fontSize(size);
  const needed = doc.widthOfString(text);
  return needed <= width ? size : Math.floor(((size * width) / needed) * 10) / 10;
}

/**
 * Renders a document with pdfkit's standard Helvetica (WinAnsi covers Spanish, Portuguese,
 * French and German). Text is written as text, never as images, so the PDF can be searched,
 * read aloud and checked by tests.
 */
export function renderPdf(original: PdfView): Promise<Buffer> {
  const view = winAnsi(original);
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    info: { Title: view.title, Author: view.merchant },
    lang: view.lang,
    pdfVersion: '1.7',
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(18).fillColor('#1b1f24').text(view.title);
  doc.font('Helvetica').fontSize(11).fillColor('#5b6470').text(view.merchant);
  const ruleY = doc.y + 6;
  doc
    .moveTo(MARGIN, ruleY)
    .lineTo(MARGIN + WIDTH, ruleY)
    .lineWidth(2)
    .strokeColor(view.color ?? '#1f7a4d')
    .stroke();
  doc.y = ruleY + 12;
  doc.fillColor('#1b1f24').fontSize(10);
  for (const [label, value] of view.meta) {
    // French sets a no-break space before the colon, as the pages do.
    doc
      .font('Helvetica-Bold')
      .text(`${withColon(view.lang as Lang, label)} `, { continued: true })
      .font('Helvetica')
      .text(value);
  }
  doc.moveDown();
  row(doc, view.headers, true);
  for (const line of view.lines) row(doc, line, false);
  doc.moveDown(0.5);
  view.totals.forEach(([label, value], index) => {
    const last = index === view.totals.length - 1;
    const y = doc.y;
    doc.font(last ? 'Helvetica-Bold' : 'Helvetica').fontSize(last ? 12 : 10);
    doc.text(label, MARGIN + WIDTH - 310, y, { width: 160, align: 'right' });
    doc.fontSize(oneLineSize(doc, value, TOTAL_WIDTH, last ? 12 : 10));
    doc.text(value, MARGIN + WIDTH - TOTAL_WIDTH, y, { width: TOTAL_WIDTH, align: 'right' });
  });
  doc.x = MARGIN;
  for (const section of view.sections) {
    doc.moveDown();
    doc.font('Helvetica-Bold').fontSize(11).text(section.heading, MARGIN, doc.y, { width: WIDTH });
    doc.font('Helvetica').fontSize(10);
    for (const text of section.rows) doc.text(text, { width: WIDTH });
  }
  if (view.footer.length > 0) {
    doc.moveDown();
    doc.font('Helvetica').fontSize(8).fillColor('#5b6470');
    for (const text of view.footer) doc.text(text, MARGIN, doc.y, { width: WIDTH });
  }
  doc.end();
  return done;
}

function row(doc: PDFKit.PDFDocument, cells: PdfLine, header: boolean) {
  const y = doc.y;
  doc
    .font(header ? 'Helvetica-Bold' : 'Helvetica')
    .fontSize(10)
    .fillColor('#1b1f24');
  let x = MARGIN;
  const heights: number[] = [];
  for (const name of ['descripcion', 'cantidad', 'precio', 'importe'] as const) {
    const width = COLUMNS[name];
    const align = name === 'descripcion' ? 'left' : 'right';
    // The description wraps; quantities and amounts shrink to one line.
    doc.fontSize(name === 'descripcion' ? 10 : oneLineSize(doc, cells[name], width, 10));
    heights.push(doc.heightOfString(cells[name], { width }));
    doc.text(cells[name], x, y, { width, align });
    x += width + (WIDTH - 512) / 3;
  }
  doc.y = y + Math.max(...heights) + 4;
  doc
    .moveTo(MARGIN, doc.y - 2)
    .lineTo(MARGIN + WIDTH, doc.y - 2)
    .lineWidth(0.5)
    .strokeColor('#e5e7eb')
    .stroke();
  doc.x = MARGIN;
}

/**
 * The standard fonts only have WinAnsi glyphs: Intl's narrow no-break space (French and German
 * thousands) and the minus sign become their WinAnsi equivalents instead of missing glyphs.
 */
function winAnsi(view: PdfView): PdfView {
  const fix = (text: string) => text.replace(/[\u202f\u2009]/g, '\u00a0').replace(/\u2212/g, '-');
  const line = (l: PdfLine): PdfLine => ({
    descripcion: fix(l.descripcion),
    cantidad: fix(l.cantidad),
    precio: fix(l.precio),
    importe: fix(l.importe),
  });
  return {
    ...view,
    title: fix(view.title),
    merchant: fix(view.merchant),
    meta: view.meta.map(([a, b]) => [fix(a), fix(b)]),
    headers: line(view.headers),
    lines: view.lines.map(line),
    totals: view.totals.map(([a, b]) => [fix(a), fix(b)]),
    sections: view.sections.map((s) => ({ heading: fix(s.heading), rows: s.rows.map(fix) })),
    footer: view.footer.map(fix),
  };
}
