/** WCAG 2 relative luminance of a `rrggbb` colour. */
const luminance = (hex: string) =>
  [0.2126, 0.7152, 0.0722].reduce((sum, weight, i) => {
    const c = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) / 255;
    return sum + weight * (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  }, 0);

/** Contrast of a colour against white. */
const onWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

/** The colour with its channels scaled by `keep` (0–1), toward black. */
const darken = (hex: string, keep: number) =>
  [0, 2, 4]
    .map((i) =>
      Math.round(Number.parseInt(hex.slice(i, i + 2), 16) * keep)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('');

/**
 * The colours a merchant's brand needs to stay readable, for the widget and the server's pages
 * alike: the text on the brand (white, or near black when white is under 4.5:1, WCAG AA), and an
 * ink darkened in steps of 10 % until it reads on white at 4.5:1, for outlines and text.
 * @param color - `#rrggbb`; anything else gives undefined (the stylesheet's defaults stay)
 * @example brandColors('#ffd60a') // ['#111', '#806b05']
 */
export function brandColors(color: string): [on: string, ink: string] | undefined {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return undefined;
  let ink = hex;
  for (let keep = 0.9; onWhite(ink) < 4.5; keep -= 0.1) ink = darken(hex, keep);
  return [onWhite(hex) < 4.5 ? '#111' : '#fff', `#${ink}`];
}
