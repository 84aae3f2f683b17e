/**
 * Payment card numbers, told apart from the other long numbers memories are full of (tracking
 * numbers, epoch-millisecond timestamps, order ids, phone numbers, ISBNs). A number is a card
 * when it passes Luhn, has an issuer's prefix and length, and either sits next to card words,
 * is grouped the way cards are printed, or is a bare 15/16-digit number with no other
 * explanation nearby. About one random number in ten passes Luhn, so Luhn alone means little.
 */

interface Issuer {
  /** Inclusive prefix ranges, as digit strings of equal length. */
  ranges: ReadonlyArray<readonly [string, string]>;
  lengths: readonly number[];
  /** The length cards of this issuer usually have: a bare number of this length needs no context. */
  usual: readonly number[];
}

const ISSUERS: readonly Issuer[] = [
  { ranges: [['4', '4']], lengths: [13, 16, 19], usual: [16] }, // Visa
  {
    ranges: [
      ['51', '55'],
      ['2221', '2720'],
    ],
    lengths: [16],
    usual: [16],
  }, // Mastercard
  {
    ranges: [
      ['34', '34'],
      ['37', '37'],
    ],
    lengths: [15],
    usual: [15],
  }, // American Express
  {
    ranges: [
      ['6011', '6011'],
      ['644', '649'],
      ['65', '65'],
      ['622126', '622925'],
    ],
    lengths: [16, 17, 18, 19],
    usual: [16],
  }, // Discover
  {
    ranges: [
      ['300', '305'],
      ['3095', '3095'],
      ['36', '36'],
      ['38', '39'],
    ],
    lengths: [14, 15, 16, 17, 18, 19],
    usual: [14],
  }, // Diners
  { ranges: [['3528', '3589']], lengths: [16, 17, 18, 19], usual: [16] }, // JCB
  {
    ranges: [
      ['62', '62'],
      ['81', '81'],
    ],
    lengths: [16, 17, 18, 19],
    usual: [16],
  }, // UnionPay
  { ranges: [['2200', '2204']], lengths: [16, 17, 18, 19], usual: [16] }, // Mir
  {
    ranges: [
      ['5018', '5018'],
      ['5020', '5020'],
      ['5038', '5038'],
      ['5893', '5893'],
      ['6304', '6304'],
      ['6759', '6759'],
      ['6761', '6763'],
    ],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    usual: [16],
  }, // Maestro
  {
    ranges: [
      ['60', '60'],
      ['508', '508'],
      ['82', '82'],
    ],
    lengths: [16],
    usual: [16],
  }, // RuPay
  { ranges: [['9792', '9792']], lengths: [16], usual: [16] }, // Troy
];

/** 4-4-4-4, 4-4-4-4-3, 4-6-5 (Amex), 4-6-4 (Diners), 4-4-4-3/4-4-5 (15-digit), 4-4-4-1..: how cards are printed. */
const PRINTED_GROUPINGS = [
  '4-4-4-4',
  '4-4-4-4-3',
  '4-4-4-4-1',
  '4-4-4-4-2',
  '4-6-5',
  '4-6-4',
  '4-4-4-3',
  '4-4-4-2',
  '4-4-4-1',
  '4-4-5',
  '4-4-6',
  '6-13',
];

const CANDIDATE = /(?<![\p{L}\p{N}.,/:_+#-])\d(?:[ -]?\d){11,18}(?![\p{L}\p{N}]|[.,]\d|[ -]\d)/gu;
const CARD_WORDS =
  /(?<![\p{L}])(?:card|cards|credit|debit|visa|mastercard|master card|amex|american express|discover|diners|jcb|unionpay|union pay|maestro|mir|cc|ccn|cvv2?|cvc2?|csc|exp|expiry|expires|expiration|valid thru|valid until|billing|payment|pay with|paid with|charged|pan|carte|tarjeta|karte|kreditkarte|cartao|carta|карт\p{L}*)(?![\p{L}])|信用卡|银行卡|卡号|借记卡|クレジット|カード|카드/u;
const NOT_CARD_WORDS =
  /(?<![\p{L}])(?:tracking|track|order|orders|invoice|ticket|reference|ref|booking|confirmation|reservation|parcel|package|shipment|shipping|awb|waybill|timestamp|epoch|unix|ms|millis|milliseconds|id|ids|serial|imei|isbn|phone|tel|mobile|fax|account|acct|iban|routing|transaction|txn|customer|member|membership|policy|claim|case|po|sku|upc|ean|barcode|uuid|build|version|hash|commit|nonce|seed|number of|快递|订单|单号|电话|手机)(?![\p{L}])/u;
const CONTEXT_CHARS = 48;

export interface CardRedaction {
  content: string;
  count: number;
}

export function redactCardNumbers(text: string): CardRedaction {
  if (!/\d{4}/.test(text) && !/\d[ -]\d/.test(text)) return { content: text, count: 0 };
  let count = 0;
  const content = text.replace(CANDIDATE, (candidate: string, offset: number) => {
    if (!looksLikeCard(candidate, text, offset)) return candidate;
    count += 1;
    return `[redacted card number ending ${candidate.replace(/\D/g, '').slice(-4)}]`;
  });
  return { content, count };
}

function looksLikeCard(candidate: string, text: string, offset: number): boolean {
  const digits = candidate.replace(/\D/g, '');
  const issuer = ISSUERS.find((i) => i.lengths.includes(digits.length) && i.ranges.some((r) => inRange(digits, r)));
  if (!issuer || !luhnValid(digits)) return false;
  const around = text
    .slice(Math.max(0, offset - CONTEXT_CHARS), offset + candidate.length + CONTEXT_CHARS)
    .toLowerCase()
    .replace(candidate, ' ');
  if (CARD_WORDS.test(around)) return true;
  if (NOT_CARD_WORDS.test(around)) return false;
  const groups = candidate.split(/[ -]/);
  if (groups.length > 1) {
    const separators = new Set(candidate.replace(/\d/g, ''));
    return separators.size === 1 && PRINTED_GROUPINGS.includes(groups.map((g) => g.length).join('-'));
  }
  return issuer.usual.includes(digits.length);
}

function inRange(digits: string, [low, high]: readonly [string, string]): boolean {
  const prefix = digits.slice(0, low.length);
  return prefix >= low && prefix <= high;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
