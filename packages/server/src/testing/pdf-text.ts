import { extractText, getDocumentProxy } from 'unpdf';
import { expect } from 'vitest';

/** A PDF's text, read back as a reader would (pdf.js through unpdf), white space collapsed. */
export async function pdfText(response: Response): Promise<string> {
  expect(response.headers.get('content-type')).toBe('application/pdf');
  const pdf = await getDocumentProxy(new Uint8Array(await response.arrayBuffer()));
  const { text } = await extractText(pdf, { mergePages: true });
  return text.replace(/\s+/g, ' ');
}
