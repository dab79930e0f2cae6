import { extractText, getDocumentProxy } from 'unpdf';
import { expect } from 'vitest';

/** A PDF's text, read back as a reader would (pdf.js through unpdf), white space collapsed. */
export async function pdfText(response: Response): Promise<string> {
  expect(response.headers.get('content-type')).toBe('application/pdf');
  const pdf = await getDocumentProxy(new Uint8Array(await response.arrayBuffer()));
  const { text } = await extractText(pdf, { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/** A PDF's runs of text as pdf.js reads them (each line of a wrapped text its own), spaces made plain. */
export async function pdfRuns(response: Response): Promise<string[]> {
  expect(response.headers.get('content-type')).toBe('application/pdf');
  const pdf = await getDocumentProxy(new Uint8Array(await response.arrayBuffer()));
  const runs: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    for (const item of content.items) if ('str' in item) runs.push(item.str.replace(/\s/g, ' ').trim());
  }
  return runs;
}
