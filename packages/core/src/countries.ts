// ISO 3166-1 alpha-2 codes (249), grouped by first letter to keep the widget bundle small: "ADEF…"
// is AD, AE, AF… (about 50 B brotli less than the codes spelled out).
const CODES = new Set(
  (
    'ADEFGILMOQRSTUWXZ BABDEFGHIJLMNOQRSTVWYZ CACDFGHIKLMNORUVWXYZ DEJKMOZ ECEGHRST FIJKMOR ' +
    'GABDEFGHILMNPQRSTUWY HKMNRTU IDELMNOQRST JEMOP KEGHIMNPRWYZ LABCIKRSTUVY MACDEFGHKLMNOPQRSTUVWXYZ ' +
    'NACEFGILOPRUZ OM PAEFGHKLMNRSTWY QA REOSUW SABCDEGHIJKLMNORSTVXYZ TCDFGHJKLMNORTVWZ UAGMSYZ VACEGINU ' +
    'WFS YET ZAMW'
  )
    .split(' ')
    .flatMap(([first, ...seconds]) => seconds.map((second) => first + second)),
);

/**
 * Whether `code` is an ISO 3166-1 alpha-2 country code (uppercase).
 * @example isCountryCode('MX') // true
 */
export const isCountryCode = (code: string): boolean => CODES.has(code);
