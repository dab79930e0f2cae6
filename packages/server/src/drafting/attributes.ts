/** A number with its unit ("16in", "1tb", "24ports"): a property that must agree with the name. */
export const ATTRIBUTE = /^(\d+(?:\.\d+)?)(in|gb|tb|mb|kva|va|mp|m|ports|w|hz)$/;

/** Whether a token is a property ("32gb", "4k"), not a word or a quantity. */
export function isAttribute(token: string | undefined): boolean {
  return !!token && ATTRIBUTE.test(token);
}

/**
 * What the request's attributes say about a product: +2 for each one its name has, -3 for each
 * one its name has with another value ("32 GB" asked, "16 GB" named): "laptop de 32 GB" picks
 * the laptop whose name carries 32 GB.
 */
export function attributeScore(words: string[], nameTokens: { token: string }[]): number {
  let score = 0;
  for (const word of words) {
    const attribute = ATTRIBUTE.exec(word);
    if (!attribute) continue;
    const sameUnit = nameTokens.filter(({ token }) => ATTRIBUTE.exec(token)?.[2] === attribute[2]);
    if (sameUnit.some(({ token }) => token === word)) score += 2;
    else if (sameUnit.length > 0) score -= 3;
  }
  return score;
}
